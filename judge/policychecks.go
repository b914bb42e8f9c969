package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// policyChecks holds the change to the policy's ceiling and intents.
func (e *engine) policyChecks() {
	if e.pol == nil {
		return
	}
	touched := map[string]bool{} // scopes whose settings files changed
	for _, f := range e.files {
		if f.kind == report.SettingsFile && f.changed {
			touched[f.scope] = true
		}
	}
	for _, c := range e.pol.AllCeilings() {
		e.ceiling(c, touched)
	}
	if touched[""] {
		e.intents()
	}
}

// ceiling checks every allow rule of a changed settings file against the
// ceiling's allow rules, and the ceiling's must_deny rules against the
// deny rules of each touched project.
func (e *engine) ceiling(c policy.Ceiling, touched map[string]bool) {
	action := c.Action
	if action == "" {
		action = policy.Block
	}
	var ceil []lattice.Rule
	for _, it := range c.Allow {
		ceil = append(ceil, lattice.ParseIn(lattice.Allow, it.Value))
	}
	if c.HasAllow {
		for _, f := range e.files {
			// A skill's or command's allowed-tools are allow rules too.
			if (f.kind != report.SettingsFile && f.kind != report.SkillFile && f.kind != report.CommandFile) || !f.changed || f.head == nil {
				continue
			}
			for _, d := range f.head.RulesIn(lattice.Allow) {
				r := d.Rule
				if r.Dead() && r.Family != lattice.FamilyToolGlob {
					continue
				}
				v := lattice.Verdict{Answer: lattice.No}
				if r.Family != lattice.FamilyToolGlob {
					v = lattice.CoveredByContext(e.ctx, r, ceil)
				}
				if v.Answer == lattice.Yes {
					continue
				}
				msg := fmt.Sprintf("allow: %s in %s is not within the ceiling of %s", r.Text, f.Path, c.Source)
				var wit []string
				switch {
				case v.Answer == lattice.No && v.HasWitness() && r.Family != lattice.FamilyToolGlob:
					// Only a call the rule newly lets run counts against the
					// ceiling: not a read-only command or a read inside the
					// project (Claude Code runs those with no rule), not one it
					// asks about whatever the rule says.
					pool := append(append([]lattice.Rule(nil), ceil...), implicitFor(r.Canonical)...)
					calls, ans, skipped := e.newlyRuns(r, pool, 2)
					if ans == lattice.No && lattice.CoveredByExceptContext(e.ctx, r, pool, skipped).Answer == lattice.Yes {
						continue
					}
					if ans == lattice.Yes && len(calls) > 0 {
						w := calls[0] // a recognisable call when there is one
						wit = callStrings([]lattice.Call{w})
						msg += fmt.Sprintf(": it allows `%s`, which no ceiling rule allows", wit[0])
					} else {
						msg += ": it cannot be proven to fit (every call the search found runs with no rule or asks anyway, but not every call it matches could be shown to)"
					}
				case v.Answer == lattice.No && v.HasWitness():
					wit = []string{v.Witness.String()}
					msg += fmt.Sprintf(": it allows `%s`, which no ceiling rule allows", v.Witness)
				case v.Answer == lattice.Unknown:
					msg += ": it cannot be proven to fit (" + v.Reason + ")"
				}
				e.finding(report.Finding{CheckID: report.CheckCeiling, Action: action, Path: f.Path, Line: d.Line, HeadLine: d.Line,
					Evidence: "rule=" + r.Text, Title: "outside the ceiling: " + r.Text, Message: msg + ".", Witnesses: wit,
					Key: report.CheckCeiling + "|" + f.Path + "|" + r.Text})
			}
		}
	}
	for _, it := range c.MustDeny {
		m := lattice.ParseIn(lattice.Deny, it.Value)
		for _, scope := range sortedKeys(touched) {
			denies := e.scopeRules(scope, true, lattice.Deny)
			v := lattice.CoveredByContext(e.ctx, m, denies)
			if v.Answer == lattice.Yes {
				continue
			}
			where := "the project's settings"
			if scope != "" {
				where = "the settings of " + scope
			}
			msg := fmt.Sprintf("the ceiling of %s says %s must stay denied, but the deny rules of %s no longer cover it", it.Source, it.Value, where)
			var wit []string
			if v.HasWitness() {
				wit = []string{v.Witness.String()}
				msg += fmt.Sprintf(": `%s` is not denied", v.Witness)
			}
			e.finding(report.Finding{CheckID: report.CheckCeiling, Action: action, Path: it.Source, Line: it.Line, HeadLine: it.Line,
				Evidence: "must_deny=" + it.Value, Title: "must stay denied: " + it.Value, Message: msg + ".", Witnesses: wit,
				Key: report.CheckCeiling + "|must_deny|" + scope + "|" + it.Value})
		}
	}
}

// outcome is what Claude Code does with a call at the head, in the
// effective view of one project: deny, then ask, then allow, then the
// permission mode.
type outcome struct {
	state string // denied, asked, allowed, default
	by    string // the rule (or mode) that decides it
	maybe string // a rule that may match under another reading
	part  string // for a compound command, the part that decides it
	note  string // why a command the rules allow still prompts
	whole bool   // allowed by a rule naming the whole tool (Bash, Bash(*))
	ro    bool   // allowed as a read-only command Claude Code runs with no rule
	mode  bool   // allowed by the permission mode (acceptEdits), not by a rule
}

// callOutcome is outcome for a call as Claude Code handles a Bash command
// line: split into parts first; a deny or ask rule on any part decides,
// the line runs without a prompt only when every part is allowed, and an
// expansion anywhere ($(…), $VAR) makes it prompt whatever the allow rules
// say. A line Shipgate cannot split (the policy loader rejects those)
// prompts, as Claude Code prompts for what it cannot parse.
func (e *engine) callOutcome(scope string, c lattice.Call) outcome {
	if c.Param == "" {
		return e.bareOutcome(scope, c)
	}
	// A call that sets an input field meets the parameter rules too
	// (Claude Code 2.1.328, measured: a deny Bash(timeout:*) denies a call
	// with a timeout under allow Bash(*), an ask one asks): a parameter
	// deny rule first, then the call's own outcome, whose deny stands, then
	// a parameter ask rule.
	bare := c
	bare.Param, bare.Value = "", ""
	if o, ok := e.paramRuleOutcome(scope, lattice.Deny, c, bare); ok {
		return o
	}
	o := e.bareOutcome(scope, bare)
	if o.state == "denied" {
		return o
	}
	if a, ok := e.paramRuleOutcome(scope, lattice.Ask, c, bare); ok {
		return a
	}
	return o
}

// paramRuleOutcome is the outcome of the first rule of the list that
// matches c only through its input field (a parameter rule).
func (e *engine) paramRuleOutcome(scope string, list lattice.List, c, bare lattice.Call) (outcome, bool) {
	state, word := "denied", "deny: "
	if list == lattice.Ask {
		state, word = "asked", "ask: "
	}
	for _, r := range e.scopeRules(scope, true, list) {
		if lattice.MatchContext(e.ctx, r, c) == lattice.Yes && lattice.MatchContext(e.ctx, r, bare) != lattice.Yes {
			return outcome{state: state, by: word + r.Text}, true
		}
	}
	return outcome{}, false
}

// bareOutcome is callOutcome for a call that sets no input field a
// parameter rule could name.
func (e *engine) bareOutcome(scope string, c lattice.Call) outcome {
	if c.Tool == "Monitor" {
		return e.monitorOutcome(scope, c)
	}
	if c.Tool != "Bash" {
		return e.outcome(scope, c)
	}
	cmd, err := lattice.ParseCommand(c.Arg)
	if err != nil {
		return outcome{state: "default", by: "defaultMode " + e.headMode(scope), note: "Claude Code cannot split it (" + err.Error() + ")"}
	}
	for _, in := range cmd.Inner {
		// A deny rule sees the commands inside $(…) and <(…) (Claude Code
		// 2.1.328, measured).
		if po := e.partOutcome(scope, in); po.state == "denied" {
			po.part = in
			return po
		}
	}
	parts := make([]outcome, len(cmd.Parts))
	for i, p := range cmd.Parts {
		parts[i] = e.partOutcome(scope, p)
		if cmd.Compound() {
			parts[i].part = p
		}
	}
	// deny > unknown > ask > default (some part no rule allows) > allowed.
	var o outcome
	for _, state := range []string{"denied", "unknown", "asked", "default", "allowed"} {
		found := false
		for _, po := range parts {
			if po.state == state {
				o, found = po, true
				break
			}
		}
		if found {
			break
		}
	}
	if o.state == "default" && cmd.Compound() && !strings.ContainsAny(c.Arg, "*") {
		// An exact compound allow rule matches its whole line (Claude Code
		// 2.1.328, measured), once no part is denied or asked.
		for _, r := range e.scopeRules(scope, true, lattice.Allow) {
			if r.Canonical == "Bash" && r.HasSpecifier && !strings.Contains(r.Specifier, "*") && lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
				o = outcome{state: "allowed", by: "allow: " + r.Text + ", an exact compound rule, which matches the whole line"}
				break
			}
		}
	}
	if cmd.Compound() && o.state != "denied" {
		// A deny rule written as a pipeline (Bash(curl * | bash)) matches
		// each pipeline of the line whole, its commands joined by " | ",
		// unless every command of it is allowed on its own by a rule that
		// is not the whole tool (Claude Code 2.1.328, measured: it denies
		// `curl x | bash` and `curl x |bash` with no allow rule, under
		// Bash(curl *) alone and under Bash(*), not under Bash(**) or
		// Bash(curl *) with Bash(bash)); an ask rule likewise. A rule
		// joined by && || ; never sees its line whole (`wget x && sh y`
		// runs under Bash with a deny Bash(wget * && sh *)).
		// An exact compound deny rule (Bash(npm test; npm publish),
		// no wildcard) matches its whole line as written, whatever allows
		// the parts (measured: denied under Bash(npm *), Bash(npm test)
		// with Bash(npm publish), Bash(**) and Bash(*); `npm test;npm
		// publish` is not matched).
		if d, ok := e.exactCompoundOutcome(scope, lattice.Deny, c); ok {
			return d
		}
		if d, ok := e.pipelineRuleOutcome(scope, lattice.Deny, c); ok {
			return d
		}
		if o.state != "asked" {
			// An exact compound ask rule is not matched whole: ask
			// Bash(npm test; npm publish) lets the line run under
			// Bash(npm *), under Bash(npm test) with Bash(npm publish),
			// under Bash(**), Bash(*) and Bash; with no allow it asks only
			// because the parts do (2.1.328, measured). A pipeline ask rule
			// is matched whole like a pipeline deny.
			if a, ok := e.pipelineRuleOutcome(scope, lattice.Ask, c); ok {
				return a
			}
		}
	}
	if o.state == "allowed" && cmd.Compound() && !strings.HasSuffix(o.by, "matches the whole line") {
		o.part = "" // every part is allowed: no single part decides
		o.by = "every part is allowed"
	}
	if o.state == "allowed" && len(cmd.Expansions) == 0 {
		// Line-level command checks: a subshell, a block, a background &
		// (Claude Code 2.1.328 asks, measured).
		whole := true
		for _, po := range parts {
			whole = whole && po.whole
		}
		if why, ok := lattice.AlwaysAsksWriting(c.Arg, whole, e.readable(scope), e.writable(scope)); ok {
			o = outcome{state: "default", by: "defaultMode " + e.headMode(scope), note: why + " (Claude Code " + lattice.ClaudeCodeVersion + ", measured)"}
		}
	}
	allWhole := o.state == "allowed"
	for _, po := range parts {
		// (A read-only part's own expansions were judged by the
		// classifier: `git status $HOME` runs; 2.1.328, measured.)
		allWhole = allWhole && (po.whole || po.ro)
	}
	if len(cmd.Inner) > 0 && o.state != "denied" && o.state != "asked" && lattice.AssignmentsOnly(c.Arg) {
		// A bare assignment from $(…) is decided by the commands inside:
		// x=$(git push x) ran under Bash(**) (Claude Code 2.1.328,
		// measured), where echo $(…) asks.
		all := true
		for _, in := range cmd.Inner {
			if po := e.partOutcome(scope, in); po.state != "allowed" {
				all = false
			}
		}
		if all {
			return outcome{state: "allowed", by: "every command inside its $(…) is allowed"}
		}
	}
	if o.state == "allowed" && len(cmd.Expansions) > 0 && !allWhole {
		// (Under the whole tool, Bash or Bash(*), $(…) and $VAR run:
		// Claude Code 2.1.328, measured.)
		o = outcome{state: "default", by: "defaultMode " + e.headMode(scope),
			note: "it contains " + strings.Join(cmd.Expansions, ", ") + ", and Claude Code asks about such a command whatever the allow rules say"}
	}
	return o
}

// monitorOutcome is the outcome of a Monitor call, read as Claude Code
// 2.1.328 reads it (measured, TestMonitorOnTheBinary): a deny of the
// whole Monitor or the whole Bash tool takes the tool away, whatever else
// the rules say; then a rule naming the whole Monitor tool (Monitor,
// Monitor(*)) decides — ask asks, allow runs any command but the ones the
// removal check asks about (`rm -rf /`). Otherwise the command is decided as a Bash command by
// the Bash rules that name commands (allow Bash(npm *) runs `npm publish`,
// deny Bash(curl *) denies `curl x`), the read-only table (`true`, `git
// status` run with no rule) and the permission mode, but not by an allow
// of the whole Bash tool (under Bash(*) `curl x` asks), and Monitor rules
// that name commands are not read at all (under allow Monitor(npm *)
// `npm publish` asks; under deny Monitor(curl *) `curl x` asks).
func (e *engine) monitorOutcome(scope string, c lattice.Call) outcome {
	// A deny of the whole Monitor or the whole Bash tool takes Monitor
	// away before any other rule is read: under deny Bash with ask
	// Monitor, Claude Code 2.1.328 answers "No such tool available:
	// Monitor" (measured, the conformance class tools at seed 1).
	for _, r := range e.scopeRules(scope, true, lattice.Deny) {
		if (r.Canonical == "Monitor" || r.Canonical == "Bash") && r.Whole() {
			by := "deny: " + r.Text
			if r.Canonical == "Bash" {
				by += ", which takes the Monitor tool away too (Claude Code " + lattice.ClaudeCodeVersion + ", measured)"
			}
			return outcome{state: "denied", whole: r.Canonical == "Monitor", by: by}
		}
	}
	// A Bash deny or ask rule that matches the command decides it before
	// a whole-Monitor ask or allow does: under allow Monitor(*) with deny
	// Bash(npm publish:*) and ask Bash(git status), `npm publish` and `rm
	// -rf /` (deny Bash(rm:*)) are denied and `git status` asks (measured,
	// the conformance class tools at seed 2).
	bo := e.bareOutcome(scope, lattice.Call{Tool: "Bash", Arg: c.Arg})
	if bo.state == "denied" && strings.HasPrefix(bo.by, "deny: Bash") {
		return bo
	}
	for _, l := range []struct {
		list  lattice.List
		state string
	}{{lattice.Ask, "asked"}, {lattice.Allow, "allowed"}} {
		if l.state == "allowed" && bo.state == "asked" && strings.HasPrefix(bo.by, "ask: Bash") {
			return bo
		}
		for _, r := range e.scopeRules(scope, true, l.list) {
			if r.Canonical != "Monitor" || !r.Whole() {
				continue
			}
			if l.state == "allowed" {
				if why, ok := lattice.AlwaysAsks(c.Arg, true); ok {
					return outcome{state: "default", by: "defaultMode " + e.headMode(scope), note: why + " (Claude Code " + lattice.ClaudeCodeVersion + ", measured on a Monitor command)"}
				}
			}
			return outcome{state: l.state, whole: true, by: string(l.list) + ": " + r.Text}
		}
	}
	o := bo
	// (The permission mode does reach a Monitor command: under
	// acceptEdits `rm -rf build` runs as a Monitor call with no rule,
	// Claude Code 2.1.328, measured.)
	if o.state == "allowed" && o.whole && !o.mode && !o.ro && !e.readOnlyLine(scope, c.Arg) {
		if r, ok := e.monitorPatternAllow(scope, c.Arg); ok {
			// A pattern rule matching every part reaches it as it
			// reaches a Bash command (measured: Bash(**) beside Bash,
			// the class tools at seed 3).
			return outcome{state: "allowed", by: "allow: " + r.Text}
		}
		if e.headMode(scope) == "acceptEdits" && lattice.AcceptEditsRuns(c.Arg, func(p string) bool { return e.inExtraDir(scope, p) }) {
			// The mode still reaches it (measured: `rm -rf build` runs
			// under allow Bash in acceptEdits, the class tools at seed 4).
			return outcome{state: "allowed", whole: true, mode: true, by: "defaultMode acceptEdits, in which Claude Code " + lattice.ClaudeCodeVersion + " runs mkdir, touch, rm, rmdir, mv, cp and sed inside the project without a prompt, a Monitor command too"}
		}
		return outcome{state: "default", by: "defaultMode " + e.headMode(scope),
			note: "an allow of the whole Bash tool does not reach a Monitor command (Claude Code " + lattice.ClaudeCodeVersion + ", measured)"}
	}
	return o
}

// monitorPatternAllow is a Bash allow rule that is not the whole tool and
// that surely matches every part of line, when the line passes the command
// checks of a pattern rule: such a rule lets a Monitor command run, where
// an allow of the whole Bash tool does not.
func (e *engine) monitorPatternAllow(scope, line string) (lattice.Rule, bool) {
	cmd, err := lattice.ParseCommand(line)
	if err != nil || len(cmd.Parts) == 0 || len(cmd.Expansions) > 0 {
		return lattice.Rule{}, false
	}
	if _, asks := lattice.AlwaysAsksWriting(line, false, e.readable(scope), e.writable(scope)); asks {
		return lattice.Rule{}, false
	}
	var first lattice.Rule
	for i, p := range cmd.Parts {
		found := false
		for _, r := range e.scopeRules(scope, true, lattice.Allow) {
			if r.Canonical == "Bash" && !r.Whole() && lattice.MatchContext(e.ctx, r, lattice.Call{Tool: "Bash", Arg: p}) == lattice.Yes {
				if i == 0 {
					first = r
				}
				found = true
				break
			}
		}
		if !found {
			return lattice.Rule{}, false
		}
	}
	return first, true
}

// readOnlyLine reports whether every command of a command line is a
// read-only one on places it may read (which runs with no rule).
func (e *engine) readOnlyLine(scope, line string) bool {
	cmd, err := lattice.ParseCommand(line)
	if err != nil || len(cmd.Expansions) > 0 || len(cmd.Parts) == 0 {
		return false
	}
	for _, p := range cmd.Parts {
		if !lattice.ReadOnlyWhere(p, e.readable(scope)) {
			return false
		}
	}
	return true
}

// pipelineRuleOutcome is the outcome of a deny or ask rule of the list
// written as a pipeline that matches a pipeline of the command line whole,
// where not every command of that pipeline is allowed on its own by a
// rule that is not the whole tool.
func (e *engine) pipelineRuleOutcome(scope string, list lattice.List, c lattice.Call) (outcome, bool) {
	var rules []lattice.Rule
	for _, r := range e.scopeRules(scope, true, list) {
		if pipelineRule(r) && strings.Contains(r.Specifier, "*") {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return outcome{}, false
	}
	state := "denied"
	if list == lattice.Ask {
		state = "asked"
	}
	for _, p := range lattice.Pipelines(c.Arg) {
		own := true
		for _, part := range p.Parts {
			po := e.partOutcome(scope, part)
			own = own && po.state == "allowed" && !po.whole
		}
		if own {
			continue
		}
		for _, r := range rules {
			for _, text := range []string{p.Text, p.Joined()} {
				if lattice.MatchContext(e.ctx, r, lattice.Call{Tool: "Bash", Arg: text}) == lattice.Yes {
					return outcome{state: state, by: string(list) + ": " + r.Text + ", a pipeline rule, which matches the pipeline `" + p.Joined() + "` whole when not every command of it is allowed on its own"}, true
				}
			}
		}
	}
	return outcome{}, false
}

// exactCompoundOutcome is the outcome of an exact compound rule of the
// list (no wildcard) that matches the command line as written. Only deny
// rules are read this way: an exact compound ask rule never sees its line
// whole (Claude Code 2.1.328, measured).
func (e *engine) exactCompoundOutcome(scope string, list lattice.List, c lattice.Call) (outcome, bool) {
	state := "denied"
	if list == lattice.Ask {
		state = "asked"
	}
	for _, r := range e.scopeRules(scope, true, list) {
		if strings.Contains(r.Specifier, "*") {
			continue
		}
		if _, _, ok := compoundShape(r); ok && lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
			return outcome{state: state, by: string(list) + ": " + r.Text + ", an exact compound rule, which matches the whole line"}, true
		}
	}
	return outcome{}, false
}

// pipelineRule reports a Bash rule written as a pipeline of two or more
// commands joined only by | or |& (Bash(curl * | bash)).
func pipelineRule(r lattice.Rule) bool {
	if r.Canonical != "Bash" || !r.HasSpecifier || !strings.Contains(r.Specifier, "|") {
		return false
	}
	cmd, err := lattice.ParseCommand(r.Specifier)
	if err != nil || !cmd.Compound() {
		return false
	}
	for _, o := range cmd.Operators {
		if o != "|" && o != "|&" {
			return false
		}
	}
	return true
}

// outcome is the outcome of a call that is not a Bash command line.
func (e *engine) outcome(scope string, c lattice.Call) outcome {
	self := []lattice.Form{{Text: c.Arg}}
	o := e.formsOutcome(scope, c.Tool, self, self, "")
	if o.state == "default" && o.note == "" {
		switch {
		case lattice.RunsWithoutRule(c):
			// A read inside the project needs no rule (Claude Code
			// 2.1.328, measured).
			o = outcome{state: "allowed", by: "no rule: a read inside the project, which Claude Code " + lattice.ClaudeCodeVersion + " allows with no rule"}
		case (c.Tool == "Edit" || c.Tool == "Write" || c.Tool == "NotebookEdit") && e.headMode(scope) == "acceptEdits" && (inProjectPath(c.Arg) || e.inExtraDir(scope, c.Arg)):
			o = outcome{state: "allowed", by: "defaultMode acceptEdits, in which Claude Code " + lattice.ClaudeCodeVersion + " edits and writes inside the project without a prompt"}
		case c.Tool == "Read" && e.inExtraDir(scope, c.Arg):
			o = outcome{state: "allowed", by: "additionalDirectories: Claude Code " + lattice.ClaudeCodeVersion + " reads inside an additional directory with no rule"}
		case (c.Tool == "Edit" || c.Tool == "Write" || c.Tool == "NotebookEdit") && e.headMode(scope) == "plan":
			o = outcome{state: "denied", by: "defaultMode plan, in which Claude Code " + lattice.ClaudeCodeVersion + " refuses edits and writes"}
		case c.Tool == "Read" && e.headMode(scope) == "plan":
			o = outcome{state: "allowed", by: "defaultMode plan, in which Claude Code " + lattice.ClaudeCodeVersion + " reads any file without a prompt"}
		}
	}
	return o
}

// partOutcome is the outcome of one simple command of a Bash command line,
// read as Claude Code reads it: deny and ask rules see past any leading
// assignment and through wrappers, allow rules past the fixed wrappers and
// known-safe assignments only, and never through watch, setsid, ionice or
// flock (lattice.CommandForms).
func (e *engine) partOutcome(scope, part string) outcome {
	fs := lattice.CommandForms(part)
	o := e.formsOutcome(scope, "Bash", fs.Allow, fs.Deny, fs.Wrapper)
	if o.state == "default" && o.note == "" {
		if d := e.readDenied(scope, part); d != "" {
			return outcome{state: "denied", by: d}
		}
	}
	if o.state != "denied" {
		if d := e.writeDenied(scope, part); d != "" {
			return outcome{state: "denied", by: d}
		}
	}
	switch {
	case o.state == "default" && o.note == "" && lattice.ReadOnlyWhere(part, e.readable(scope)):
		o = outcome{state: "allowed", ro: true, by: "no rule: a read-only command Claude Code " + lattice.ClaudeCodeVersion + " runs with no rule"}
	case o.state == "default" && o.note == "" && lattice.ReadOnlyWriting(part, e.writable(scope)):
		// (whole: the write is approved as an Edit call, which a pattern
		// rule's command checks would otherwise ask about.)
		o = outcome{state: "allowed", whole: true, by: "no rule: a read-only command whose output goes to a file an Edit allow rule or acceptEdits approves, which Claude Code " + lattice.ClaudeCodeVersion + " runs with no Bash rule (measured)"}
	case o.state == "default" && o.note == "" && e.headMode(scope) == "acceptEdits" && lattice.AcceptEditsRuns(part, func(p string) bool { return e.inExtraDir(scope, p) }):
		// (whole: the mode approves the write by redirection, which a
		// pattern rule's command checks would ask about.)
		o = outcome{state: "allowed", whole: true, mode: true, by: "defaultMode acceptEdits, in which Claude Code " + lattice.ClaudeCodeVersion + " runs mkdir, touch, rm, rmdir, mv, cp and sed (lattice.AcceptEditsRuns) and writes by redirection inside the project and its additional directories without a prompt"}
	case o.state == "allowed" && !strings.ContainsAny(part, "$`") && !o.whole && lattice.ReadOnlyWhere(part, e.readable(scope)):
		// A read-only command on places it may read runs whatever rule
		// also matches it.
	case o.state == "allowed" && !strings.ContainsAny(part, "$`"):
		// (Expansions are worded for the whole line by callOutcome.)
		if why, ok := lattice.AlwaysAsksWriting(part, o.whole, e.readable(scope), e.writable(scope)); ok {
			o = outcome{state: "default", by: "defaultMode " + e.headMode(scope), note: why + " (Claude Code " + lattice.ClaudeCodeVersion + ", measured)"}
		} else if e.deniedRemovalInScript(scope, part) {
			o = outcome{state: "default", by: "defaultMode " + e.headMode(scope),
				note: "a deny rule matches an rm inside its shell -c script, and Claude Code " + lattice.ClaudeCodeVersion + " then asks for the whole script (measured)"}
		}
	}
	return o
}

// deniedRemovalInScript reports whether part is `bash -c S` or `sh -c S`
// and a deny rule matches an rm or rmdir command of S: Claude Code asks
// then ("A permission rule denies a command inside this shell -c script,
// so Claude Code could not check it for dangerous removals"; measured on
// 2.1.328 with deny Bash(rm *) and Bash(rm*); a deny on curl does not stop
// bash -c 'curl x').
func (e *engine) deniedRemovalInScript(scope, part string) bool {
	script := lattice.ShellScript(part)
	if script == "" {
		return false
	}
	cmd, err := lattice.ParseCommand(script)
	if err != nil {
		return false
	}
	for _, p := range cmd.Parts {
		if w := strings.Fields(p); len(w) == 0 || w[0] != "rm" && w[0] != "rmdir" {
			continue
		}
		fs := lattice.CommandForms(p)
		if o := e.formsOutcome(scope, "Bash", nil, fs.Deny, ""); o.state == "denied" {
			return true
		}
	}
	return false
}

// wholeAllow is an allow rule of the scope naming the whole tool that
// matches the call, or nil.
func (e *engine) wholeAllow(scope string, c lattice.Call) *lattice.Rule {
	for _, r := range e.scopeRules(scope, true, lattice.Allow) {
		if r.Whole() && lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
			return &r
		}
	}
	return nil
}

// formsOutcome decides deny > ask > allow > mode over the texts each list's
// rules are matched against. A match on a stripped form says what was set
// aside to reach it.
func (e *engine) formsOutcome(scope, tool string, allow, deny []lattice.Form, wrapper string) outcome {
	for _, st := range []struct {
		list  lattice.List
		state string
		forms []lattice.Form
	}{{lattice.Deny, "denied", deny}, {lattice.Ask, "asked", deny}, {lattice.Allow, "allowed", allow}} {
		if st.list == lattice.Allow && wrapper != "" {
			// The whole tool runs even watch and setsid (Claude Code
			// 2.1.328, measured); no pattern rule does.
			for _, r := range e.scopeRules(scope, true, lattice.Allow) {
				if r.Whole() && lattice.MatchContext(e.ctx, r, lattice.Call{Tool: tool, Arg: allow[0].Text}) == lattice.Yes {
					return outcome{state: "allowed", by: "allow: " + r.Text, whole: true}
				}
			}
			return outcome{state: "default", by: "defaultMode " + e.headMode(scope),
				note: "it runs through `" + wrapper + "`, and Claude Code asks about a command run through " + wrapper + " whatever the allow rules say"}
		}
		var maybe string
		for _, f := range st.forms {
			c := lattice.Call{Tool: tool, Arg: f.Text}
			for _, r := range e.scopeRules(scope, true, st.list) {
				if st.list != lattice.Allow && !f.MatchesForm(r) {
					continue // an exact rule past xargs (lattice.Form.NoExact)
				}
				switch lattice.MatchContext(e.ctx, r, c) {
				case lattice.Yes:
					if st.list == lattice.Allow && !r.Whole() {
						// Beside a pattern rule, an allow of the whole tool
						// approves the call too, and its approval skips the
						// command checks: under Bash(**) with Bash(*),
						// `rm /tmp/x`, `cp x *.o`, `mv x -- -x` run (Claude
						// Code 2.1.328, measured), under Bash(**) alone they
						// ask.
						if w := e.wholeAllow(scope, c); w != nil {
							r = *w
						}
					}
					by := string(st.list) + ": " + r.Text
					if f.Past != "" {
						by += ", which matches `" + f.Text + "` past `" + f.Past + "`"
					}
					return outcome{state: st.state, by: by, whole: r.Whole()}
				case lattice.Unknown:
					if maybe == "" {
						maybe = string(st.list) + ": " + r.Text
					}
				}
			}
		}
		if maybe != "" {
			return outcome{state: "unknown", maybe: maybe}
		}
	}
	return outcome{state: "default", by: "defaultMode " + e.headMode(scope)}
}

// headMode is the permission mode of a project at the head: the local
// file's when it sets one, else the shared file's, else default.
func (e *engine) headMode(scope string) string {
	mode := "default"
	var files []*fileState
	files = append(files, e.scopes[scope]...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files { // settings.json sorts before settings.local.json
		if f.kind == report.SettingsFile && f.head != nil {
			if s := claude.Lookup(f.head, "defaultMode", true); s.Present() && s.Value.Kind() == jsonpos.String {
				mode = s.Value.Text()
			}
		}
	}
	return mode
}

// describe words an outcome for a message.
func (o outcome) describe() string {
	d := o.describeState()
	if o.part != "" {
		d += " — decided by its part `" + o.part + "`"
	}
	return d
}

func (o outcome) describeState() string {
	if o.note != "" {
		switch strings.TrimPrefix(o.by, "defaultMode ") {
		case "bypassPermissions":
			return "runs without a prompt (the mode is bypassPermissions)"
		case "dontAsk":
			return "is denied (" + o.note + "; the mode is dontAsk)"
		}
		return "prompts: " + o.note
	}
	switch o.state {
	case "denied":
		return "is denied (" + o.by + ")"
	case "asked":
		return "prompts (" + o.by + ")"
	case "allowed":
		return "runs without a prompt (" + o.by + ")"
	case "unknown":
		return "depends on how Claude Code reads " + o.maybe
	}
	switch strings.TrimPrefix(o.by, "defaultMode ") {
	case "bypassPermissions":
		return "runs without a prompt (no rule matches and the mode is bypassPermissions)"
	case "dontAsk":
		return "is denied (no rule matches and the mode is dontAsk)"
	}
	return "prompts only because no rule matches (" + o.by + ")"
}

// intents holds the root project's settings to the policy's intents.
func (e *engine) intents() {
	in := e.pol.Intent
	action := in.Action
	if action == "" {
		action = policy.Block
	}
	check := func(items []policy.Item, want string, ok func(outcome) bool) {
		for _, it := range items {
			c, err := policy.ParseCall(it.Value)
			if err != nil {
				continue
			}
			o := e.callOutcome("", c)
			if ok(o) {
				continue
			}
			msg := fmt.Sprintf("intent: `%s` must %s, but at the head it %s", it.Value, want, o.describe())
			e.finding(report.Finding{CheckID: report.CheckIntent, Action: action, Path: it.Source, Line: it.Line, HeadLine: it.Line,
				Evidence: "intent=" + want + " call=" + it.Value, Title: "intent: " + it.Value + " must " + want,
				Message: msg + ".", Witnesses: []string{c.String()}, Key: report.CheckIntent + "|" + want + "|" + it.Value})
		}
	}
	mode := e.headMode("")
	check(in.Allowed, "run without a prompt", func(o outcome) bool {
		return o.state == "allowed" || (o.state == "default" && mode == "bypassPermissions")
	})
	check(in.Asked, "prompt", func(o outcome) bool {
		// (Not plan: there the auto-mode classifier decides a call no
		// rule decides, without a prompt.)
		return o.state == "asked" || (o.state == "default" && (mode == "default" || mode == "manual"))
	})
	check(in.Denied, "be denied", func(o outcome) bool {
		return o.state == "denied" || (o.state == "default" && mode == "dontAsk")
	})
}

// inProjectPath reports whether a path argument, as the lattice writes
// one, lies inside the project.
func inProjectPath(p string) bool {
	return lattice.RunsWithoutRule(lattice.Call{Tool: "Read", Arg: p})
}

// readDenied names the Read deny rule that covers a home or absolute path
// a read-only command reads, or "": Claude Code denies the command then
// (measured on 2.1.328: `cat ~/.ssh/id_rsa` is denied under deny
// Read(~/.ssh/**) in bypassPermissions mode).
func (e *engine) readDenied(scope, part string) string {
	denies := e.scopeRules(scope, true, lattice.Deny)
	hit := ""
	lattice.ReadOnlyWhere(part, func(p string) bool {
		c := lattice.Call{Tool: "Read", Arg: p}
		for _, r := range denies {
			if hit == "" && r.Canonical == "Read" && e.readRuleCovers(r, c) {
				hit = "deny: " + r.Text + ", which covers " + p + ", a path the command reads"
			}
		}
		return true
	})
	return hit
}

// writable is what a Bash line of a scope may write by redirection without
// the redirection asking under a pattern rule (Claude Code 2.1.328,
// TestRedirectWrites): the file checked as an Edit call, which an Edit
// allow rule with a path approves (a whole-tool Edit or Edit(*) does not,
// nor a Write rule: `npm test > out.txt` asked
// under Bash(npm *) and Write(out.txt)), and acceptEdits inside the
// project and its additional directories (an ask rule on it does not stop
// that: it ran under ask Edit(out.txt)); never a sensitive file
// (lattice.SensitiveWrite), nor one an Edit deny rule covers (writeDenied
// refuses the line).
func (e *engine) writable(scope string) func(string) bool {
	return func(p string) bool {
		if lattice.SensitiveWrite(p) {
			return false
		}
		c := lattice.Call{Tool: "Edit", Arg: p}
		for _, r := range e.scopeRules(scope, true, lattice.Deny) {
			if redirectEditRule(r) && lattice.MatchContext(e.ctx, r, c) != lattice.No {
				return false
			}
		}
		if e.headMode(scope) == "acceptEdits" && (inProjectPath(p) || e.inExtraDir(scope, p)) {
			return true
		}
		for _, r := range e.scopeRules(scope, true, lattice.Allow) {
			// A whole-tool allow (Edit, Edit(*)) approves no write by
			// redirection: `echo x > out.txt` and, under Bash(npm *),
			// `npm test > out.txt` ask with it (measured), where Edit(**)
			// approves them.
			if redirectEditRule(r) && lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
				return true
			}
		}
		return false
	}
}

// redirectEditRule reports an Edit rule Claude Code 2.1.328 reads when it
// checks a write by redirection: one with a path. The whole tool (Edit,
// Edit(*)) is not read, as an allow or as a deny (TestRedirectWrites,
// measured: `npm test > out.txt` asks under Bash(npm *) with allow Edit or
// Edit(*), and runs in acceptEdits under deny Edit or Edit(*)).
func redirectEditRule(r lattice.Rule) bool {
	return r.Canonical == "Edit" && r.HasSpecifier && r.Specifier != "" && r.Specifier != "*"
}

// writeDenied names the Edit deny rule that covers a file part writes by
// redirection (redirectEditRule), or "": Claude Code 2.1.328 denies the line then, whatever
// allows it (TestRedirectWrites, measured: `npm test > out.txt` and `echo
// x > out.txt` denied under deny Edit(out.txt) with allow Bash(npm *), in
// acceptEdits and in the default mode).
func (e *engine) writeDenied(scope, part string) string {
	if !strings.Contains(part, ">") {
		return ""
	}
	targets, _ := lattice.RedirectWrites(part)
	if len(targets) == 0 {
		return ""
	}
	for _, r := range e.scopeRules(scope, true, lattice.Deny) {
		if !redirectEditRule(r) {
			continue
		}
		for _, t := range targets {
			if lattice.MatchContext(e.ctx, r, lattice.Call{Tool: "Edit", Arg: t}) == lattice.Yes {
				return "deny: " + r.Text + ", which covers " + t + ", a file the command writes by redirection"
			}
		}
	}
	return ""
}

// readable is what a read-only command of a scope may read with no
// prompt besides the project (Claude Code 2.1.328, measured): a place
// inside an additional directory, or a path a Read allow rule grants
// (an ask rule on it does not stop the command: `cat ~/.ssh/id_rsa` ran
// under allow Read(~/**) and ask Read(~/.ssh/**)).
func (e *engine) readable(scope string) func(string) bool {
	return func(p string) bool {
		if e.inExtraDir(scope, p) {
			return true
		}
		c := lattice.Call{Tool: "Read", Arg: p}
		for _, r := range e.scopeRules(scope, true, lattice.Allow) {
			if r.Canonical == "Read" && e.readRuleCovers(r, c) {
				return true
			}
		}
		return false
	}
}

// readRuleCovers reports whether a Read rule covers a path a read-only
// command reads: the path matches it, or the rule is dir/** and the path
// is dir itself (Claude Code 2.1.328, measured: `ls ~/.ssh` runs under
// allow Read(~/.ssh/**) in the default and plan modes, and a deny
// Read(~/.ssh/**) in settings.json or settings.local.json denies it).
func (e *engine) readRuleCovers(r lattice.Rule, c lattice.Call) bool {
	if lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
		return true
	}
	dir, ok := strings.CutSuffix(r.Specifier, "/**")
	if !ok || dir == "" || strings.HasSuffix(dir, "/") {
		return false
	}
	d := lattice.ParseIn(r.List, r.Tool+"("+dir+")")
	return lattice.MatchContext(e.ctx, d, c) == lattice.Yes
}

// extraDirReads are the reads Claude Code makes with no rule inside the
// additionalDirectories of a scope (base or head), as rules a witness
// search avoids: a Read there is never a witness of a grant (the
// conformance harness's witness class found one).
func (e *engine) extraDirReads(scope string, head bool) []lattice.Rule {
	var out []lattice.Rule
	for _, f := range e.scopes[scope] {
		d := f.base
		if head {
			d = f.head
		}
		if f.kind != report.SettingsFile || d == nil {
			continue
		}
		for _, s := range []claude.Setting{claude.LookupOnly(d, "permissions", "additionalDirectories"), claude.LookupOnly(d, "", "additionalDirectories")} {
			for dir := range stringSet(s.Value) {
				dir = strings.TrimRight(dir, "/")
				if !strings.HasPrefix(dir, "/") || strings.ContainsAny(dir, "*?[\\") || strings.Contains(dir, "..") {
					continue
				}
				r := lattice.ParseIn(lattice.Allow, "Read(/"+dir+"/**)")
				r.Note = "reads inside an additional directory need no rule in Claude Code " + lattice.ClaudeCodeVersion
				out = append(out, r)
			}
		}
	}
	return out
}

// inExtraDir reports whether an absolute path lies inside one of the head's
// additionalDirectories of a scope (written as absolute paths).
func (e *engine) inExtraDir(scope, p string) bool {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
		return false
	}
	for _, f := range e.scopes[scope] {
		if f.kind != report.SettingsFile || f.head == nil {
			continue
		}
		for _, s := range []claude.Setting{claude.LookupOnly(f.head, "permissions", "additionalDirectories"), claude.LookupOnly(f.head, "", "additionalDirectories")} {
			for dir := range stringSet(s.Value) {
				d := strings.TrimRight(dir, "/")
				if strings.HasPrefix(d, "/") && d != "" && (p == d || strings.HasPrefix(p, d+"/")) {
					return true
				}
			}
		}
	}
	return false
}
