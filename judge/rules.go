package judge

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// maxWitnesses is how many concrete calls a change lists.
const maxWitnesses = 3

// event is one rule that appeared in or left a list of one file.
type event struct {
	decl  claude.RuleDecl
	added bool
	done  bool // already explained by another row

	// outcome
	expands   bool
	witnesses []string
	why       string
	cover     string // the rule that makes an addition add nothing
	partner   *event // the other half of a widened/narrowed/respelled pair
	direction string
	findings  []report.Finding
	// stops counts the searches the work budget (or the context) cut
	// short while this rule was judged: its answer then counts as a grant
	// and it gets a too_complex finding of its own (tooComplexRule).
	stops int64
}

func (ev *event) list() lattice.List { return ev.decl.Rule.List }
func (ev *event) text() string       { return ev.decl.Rule.Text }

// ruleSet is the rule events of one file, by list.
type ruleSet struct {
	f       *fileState
	added   map[lattice.List][]*event
	removed map[lattice.List][]*event
}

// compareRules turns the permission lists of one file into rows and
// findings.
func (e *engine) compareRules(f *fileState) {
	rs := ruleSet{f: f, added: map[lattice.List][]*event{}, removed: map[lattice.List][]*event{}}
	for _, l := range claude.Lists {
		baseTexts, headTexts := map[string]bool{}, map[string]bool{}
		for _, r := range f.base.RulesIn(l) {
			baseTexts[r.Rule.Text] = true
		}
		for _, r := range f.head.RulesIn(l) {
			headTexts[r.Rule.Text] = true
		}
		seen := map[string]bool{}
		for _, r := range f.head.RulesIn(l) {
			if !baseTexts[r.Rule.Text] && !seen[r.Rule.Text] {
				rs.added[l] = append(rs.added[l], &event{decl: r, added: true})
			}
			seen[r.Rule.Text] = true
		}
		seen = map[string]bool{}
		for _, r := range f.base.RulesIn(l) {
			if !headTexts[r.Rule.Text] && !seen[r.Rule.Text] {
				rs.removed[l] = append(rs.removed[l], &event{decl: r})
			}
			seen[r.Rule.Text] = true
		}
	}
	moved := e.pairMoves(&rs)
	// A respelling the budget left undecided is not paired: both rules
	// are then judged on their own, exactly or with a finding each; and
	// judgeRemaining's questions only word rows. Neither needs a
	// file-wide too_complex finding.
	e.accounted(func() { e.pairRespellings(&rs, moved) })
	e.judgeAllowAdditions(&rs, moved)
	e.judgeRestrictionRemovals(&rs, moved)
	e.accounted(func() { e.judgeRemaining(&rs) })
	e.carveOuts(&rs)
	e.emitRuleRows(&rs, moved)
	e.tooComplexRules(&rs)
}

// pairMoves finds rules whose exact text left one list and arrived in
// another of the same file.
func (e *engine) pairMoves(rs *ruleSet) map[*event]*event {
	moved := map[*event]*event{}
	for _, from := range claude.Lists {
		for _, r := range rs.removed[from] {
			if from == lattice.Allow && len(rs.removed[lattice.Allow]) == 1 && len(rs.added[lattice.Allow]) > 0 {
				// The only allow rule that left is what the arrivals replaced
				// (shipgate-spec 2.3): pair it by containment, not as a move.
				continue
			}
			for _, to := range claude.Lists {
				if to == from {
					continue
				}
				for _, a := range rs.added[to] {
					if a.text() == r.text() && moved[a] == nil && moved[r] == nil {
						moved[a], moved[r] = r, a
					}
				}
			}
		}
	}
	return moved
}

// pairRespellings joins a removed and an added rule of one list that are
// the same grant written another way (Bash(x:*) and Bash(x *), Bash(*) and
// Bash). Only tidy rules respell: padding and case are never documented.
func (e *engine) pairRespellings(rs *ruleSet, moved map[*event]*event) {
	for _, l := range claude.Lists {
		// Equivalent rules share a respelling key: compare each removed
		// rule with the added rules of its key only, not every pair.
		byKey := map[string][]*event{}
		for _, a := range rs.added[l] {
			if k, ok := lattice.RespellKeyContext(e.ctx, a.decl.Rule); ok {
				byKey[k] = append(byKey[k], a)
			}
		}
		for _, r := range rs.removed[l] {
			if moved[r] != nil || r.done || !r.decl.Rule.Tidy() || r.decl.Rule.Negated {
				continue
			}
			candidates := rs.added[l]
			if k, ok := lattice.RespellKeyContext(e.ctx, r.decl.Rule); ok {
				candidates = byKey[k]
			} else if e.budget.Exhausted() {
				// Without a key every added rule is a candidate, and with
				// the budget spent each question answers Unknown: the scan
				// would be quadratic for nothing. The rule stays removed and
				// its would-be partner is judged as an addition (fail closed).
				continue
			}
			for _, a := range candidates {
				if moved[a] != nil || a.done || !a.decl.Rule.Tidy() || a.decl.Rule.Negated {
					continue
				}
				if r.decl.Rule.Canonical != a.decl.Rule.Canonical {
					continue
				}
				if lattice.EquivalentContext(e.ctx, r.decl.Rule, a.decl.Rule) == lattice.Yes {
					a.direction, a.partner, a.done = report.DirRespelled, r, true
					r.done = true
					a.why = respellWhy(r.decl.Rule, a.decl.Rule)
					break
				}
			}
		}
	}
}

func respellWhy(a, b lattice.Rule) string {
	how := "Claude Code reads them as one grant"
	switch {
	case strings.HasSuffix(a.Specifier, ":*") || strings.HasSuffix(b.Specifier, ":*"):
		how = "Claude Code reads a trailing :* as a trailing ` *`"
	case a.Whole() && b.Whole():
		how = "both name the whole tool"
	}
	return "the same grant written another way (" + how + "); it matches exactly what it matched and adds nothing"
}

// judgeAllowAdditions decides, for each rule added to the allow list,
// whether it lets the agent run anything without a prompt that it could
// not before — in the effective view of the file's project: not denied or
// asked by any settings file at the head, not already allowed at the base.
func (e *engine) judgeAllowAdditions(rs *ruleSet, moved map[*event]*event) {
	f := rs.f
	headStop := e.scopeRules(f.scope, true, lattice.Deny, lattice.Ask)
	baseAllow := e.scopeRules(f.scope, false, lattice.Allow)
	none := append(append([]lattice.Rule(nil), headStop...), baseAllow...)
	none = append(none, e.extraDirReads(f.scope, false)...) // (policychecks.go; measured)
	if e.baseMode(f.scope) == "acceptEdits" {
		// The base already edits inside the project without a prompt: a
		// path there is no witness of an Edit rule (measured, 2.1.328).
		none = append(none, projectEdits)
	}
	// The preapproved WebFetch hosts only where a WebFetch rule is judged
	// (built on the first one).
	var noneWeb []lattice.Rule
	explicit := none[:len(none):len(none)]
	noneOther := append(explicit, implicitFor("")...)
	judging := e.attribution()
	defer judging(nil)
	for _, a := range rs.added[lattice.Allow] {
		if a.done {
			continue
		}
		judging(a)
		r := a.decl.Rule
		rt := e.rate(r)
		none := noneOther
		if r.Canonical == "WebFetch" {
			if noneWeb == nil {
				noneWeb = append(explicit, implicitFor("WebFetch")...)
			}
			none = noneWeb
		}
		switch {
		case r.Family == lattice.FamilyToolGlob:
			a.expands = true
			a.why = "a tool-name glob: current Claude Code skips it in allow lists (2.1.166+), but it reads as every matching tool and was meant as one"
			e.allowFinding(f, a, rt, nil)
			continue
		case r.Malformed != "":
			a.why = "Claude Code skips this rule: " + r.Malformed
			e.invalidRuleFinding(f, a)
			continue
		case r.Negated:
			a.why = "a gitignore carve-out in an allow list: Claude Code reads it as a path pattern starting with !, which matches nothing useful"
			e.invalidRuleFinding(f, a)
			continue
		case r.Dead():
			a.why = r.Note
			e.invalidRuleFinding(f, a)
			continue
		}
		if why, ok := asksWhateverItMatches(r); ok {
			a.why = why
			e.invalidRuleFinding(f, a)
			continue
		}
		if why, ok := redirectedTail(r); ok {
			a.why = why
			e.invalidRuleFinding(f, a)
			continue
		}
		if why, ok := unconsultedSearchRule(r); ok {
			a.why = why
			e.invalidRuleFinding(f, a)
			continue
		}
		calls, ans, skipped := e.newlyRuns(r, none, maxWitnesses)
		switch ans {
		case lattice.Yes:
			a.expands = true
			a.witnesses = callStrings(calls)
			if why, ok := e.onlyOptions(calls); ok {
				a.why = why
			}
			if ws := searchWitnesses(r, headStop); len(ws) > 0 {
				// The tool's name is no call: a search outside the
				// project is what newly runs.
				a.witnesses, a.why = ws, searchWhy(r.Canonical)
			}
		case lattice.No:
			if v := lattice.CoveredByExceptContext(e.ctx, r, none, skipped); v.Answer != lattice.Yes {
				// An ambiguous rule on either side: what it may grant is not
				// surely stopped or already granted.
				a.expands = true
				a.why = "Claude Code may read these rules in more than one way (" + v.Reason + "); treated as a grant"
				break
			}
			if c, ok := lattice.GuardedCallContext(e.ctx, r); ok && !approvedExactly(c, baseAllow) && !stoppedBy(c, headStop) {
				// Bash(find *) at the base does not approve find -delete in
				// Claude Code 2.1.113+; an explicit rule does.
				a.expands = true
				a.witnesses = []string{c.String()}
				a.why = "Claude Code 2.1.113+ never lets a wildcard rule such as Bash(find *) approve find -exec or -delete; this rule approves `" + c.Arg + "` explicitly"
				break
			}
			if len(skipped) > 0 {
				if _, ans := lattice.FindContext(e.ctx, []lattice.Rule{r}, none); ans != lattice.No {
					// Everything it adds is a call Claude Code runs with no
					// rule, or asks about whatever the rules say.
					a.why = "adds nothing that newly runs without a prompt: " + e.skipReasons(skipped, r)
					break
				}
			}
			a.why, a.cover = e.whyNothingNew(f, r, headStop, baseAllow)
			if a.cover != "" {
				// Narrowed from a removed rule of this file, or covered by
				// one that stays.
				for _, rem := range rs.removed[lattice.Allow] {
					if rem.text() == a.cover && moved[rem] == nil {
						a.direction, a.partner = report.DirNarrowed, rem
						a.why = "the new rule matches only what the old rule matched; " + a.why
					}
				}
				if a.direction == "" {
					a.direction = report.DirCovered
				}
			}
		default:
			if why, ok := readerAddsNothing(r); ok && (f.kind == report.SettingsFile || f.kind == report.SkillFile || f.kind == report.CommandFile) {
				// Measured for settings rules and for a skill's and a
				// command's allowed-tools alike (internal/conformance
				// TestSkillReaderRules: the same probes ask under the
				// skill with and without the rule). A subagent's tools
				// were not measured: there the rule stays a grant.
				a.why = why
				break
			}
			a.expands = true
			a.why = "could not be compared exactly with the rules already in force; treated as a grant"
			if len(skipped) > 0 {
				a.why = "every call the search found is one Claude Code runs with no rule or asks about anyway (" + e.skipReasons(skipped, r) + "), but not every call it matches could be shown to be; treated as a grant"
			}
			if calls, ans := lattice.FindNContext(e.ctx, []lattice.Rule{r}, headStop, maxWitnesses); ans == lattice.Yes {
				for _, c := range calls {
					if _, skip := e.notNewlyRun(c, r); !skip {
						a.witnesses = append(a.witnesses, c.String())
					}
				}
			}
			if len(a.witnesses) == 0 {
				// The search found only plain forms that run anyway; the
				// measured forms of the command that ask with no rule
				// (`rg --pre cat x`) are what such a rule newly lets run.
				a.witnesses = e.askingForms(r, headStop, baseAllow)
				if len(a.witnesses) > 0 {
					a.why = "its plain forms run with no rule, but Claude Code " + lattice.ClaudeCodeVersion + " asks about these with no rule (measured), and this rule lets them run; treated as a grant"
				}
			}
		}
		if r.Canonical == "Bash" && r.Whole() && (!a.expands || onlyBareTool(a.witnesses)) {
			// The whole tool runs what every pattern rule asks about.
			var checked []string
			var wholeBase []lattice.Rule
			for _, b := range baseAllow {
				if b.Whole() {
					wholeBase = append(wholeBase, b)
				}
			}
			for _, c := range lattice.CheckedExamples {
				if !stoppedBy(c, headStop) && !stoppedBy(c, wholeBase) {
					checked = append(checked, c.String())
				}
			}
			if len(checked) > 0 {
				if !a.expands {
					a.direction, a.cover = "", ""
				}
				a.expands = true
				a.witnesses = checked[:min(len(checked), maxWitnesses)]
				a.why = "Bash and Bash(*) are the whole tool: Claude Code " + lattice.ClaudeCodeVersion + " runs eval, exec, watch, $(…), find -exec and redirections to a file under them, and asks about them under every pattern rule, Bash(**) included (measured)"
			}
		}
		if !a.expands {
			continue
		}
		// A single removed allow rule that the new one strictly covers is
		// what it replaced: the change widens it.
		var wider []*event
		for _, rem := range rs.removed[lattice.Allow] {
			if e.budget.Exhausted() {
				break // each question would answer Unknown: no partner is proved
			}
			if moved[rem] == nil && !rem.done && sameTool(r, rem.decl.Rule) && lattice.CoversAnswer(e.ctx, r, rem.decl.Rule) == lattice.Yes {
				wider = append(wider, rem)
			}
		}
		if len(wider) == 1 {
			a.direction, a.partner = report.DirWidened, wider[0]
			wider[0].done = true
		}
		e.allowFinding(f, a, rt, wider)
	}
	// One removed rule narrowed to several added rules: each added row
	// names it; the removed rule needs no row of its own.
	for _, a := range rs.added[lattice.Allow] {
		if a.direction == report.DirNarrowed && a.partner != nil {
			a.partner.done = true
		}
	}
}

// onlyBareTool reports whether the witnesses name no concrete call (a
// bare tool name such as "Bash" says less than a command).
func onlyBareTool(ws []string) bool {
	for _, w := range ws {
		if !lattice.KnownTool(w) {
			return false
		}
	}
	return true
}

// maxSkips bounds how many times newlyRuns looks past witnesses that do
// not count.
const maxSkips = 4

// newlyRuns is FindN for an added allow rule, read the way Claude Code
// (lattice.ClaudeCodeVersion) decides: up to n calls r surely matches, none
// of none may match, that would newly run without a prompt. A call that
// runs with no rule at all (a read-only command, a read inside the
// project) or that Claude Code asks about whatever the rules say under r
// (lattice.AlwaysAsks) is not one: the search looks past it, up to
// maxSkips times. It returns the calls, Find's answer over what remains
// and the skipped calls (the search looked past none and them: the rules
// searched past are none plus one exact rule per skipped call, which the
// lattice's Except forms take without copying none). An answer of Unknown
// with skipped calls means the search gave up looking past them: the rule
// is treated as a grant.
func (e *engine) newlyRuns(r lattice.Rule, none []lattice.Rule, n int) ([]lattice.Call, lattice.Answer, []lattice.Call) {
	var skipped []lattice.Call
	for i := 0; i <= maxSkips; i++ {
		calls, ans := lattice.FindNExceptContext(e.ctx, []lattice.Rule{r}, none, skipped, n)
		if ans != lattice.Yes {
			return nil, ans, skipped
		}
		var out []lattice.Call
		for _, c := range calls {
			if _, ok := e.notNewlyRun(c, r); ok {
				skipped = append(skipped, c)
				continue
			}
			out = append(out, c)
		}
		if len(out) == 0 {
			out = e.pastReadOnly(r, none, skipped, calls)
		}
		if len(out) > 0 {
			out = e.concrete(out, []lattice.Rule{r}, none, func(c lattice.Call) bool {
				_, skip := notNewlyRun(c, r)
				return !skip
			})
			return out, lattice.Yes, skipped
		}
	}
	return nil, lattice.Unknown, skipped
}

// outsideOperands are operands that take a read-only command out of
// Claude Code's no-rule set: a path outside the project, an option that
// writes.
var outsideOperands = []string{" ~/.ssh/id_rsa", " /etc/passwd", " ~/.aws/credentials", " /", optionOperand}

// optionOperand is an option no read-only command of Claude Code's takes:
// it asks about the line with no rule (`git status --output=out.txt`,
// measured on 2.1.328), and a prefix rule lets it run.
const optionOperand = " --output=out.txt"

// onlyOptions explains witnesses that are read-only commands with
// optionOperand added: the command runs with no rule already, and what the
// rule adds is the options Claude Code does not know as read-only.
func (e *engine) onlyOptions(calls []lattice.Call) (string, bool) {
	if len(calls) == 0 {
		return "", false
	}
	var plain string
	for _, c := range calls {
		base, ok := strings.CutSuffix(c.Arg, optionOperand)
		if c.Tool != "Bash" || !ok || !e.isReadOnly(base) {
			return "", false
		}
		plain = base
	}
	return "`" + plain + "` itself runs with no rule in Claude Code " + lattice.ClaudeCodeVersion + "; what this rule adds is the options Claude Code does not know as read-only, such as `" + strings.TrimSpace(optionOperand) + "`, which ask with no rule (measured)", true
}

// pastReadOnly looks for a call the rule grants near the read-only
// commands the search found: the command with an operand outside the
// project (`cat ~/.ssh/id_rsa` for Bash(cat *)), which Claude Code asks
// about without the rule.
func (e *engine) pastReadOnly(r lattice.Rule, none []lattice.Rule, skipped, calls []lattice.Call) []lattice.Call {
	for _, c := range calls {
		if c.Tool != "Bash" || !e.isReadOnly(c.Arg) {
			continue
		}
		for _, op := range outsideOperands {
			w := lattice.Call{Tool: "Bash", Arg: c.Arg + op}
			if lattice.MatchContext(e.ctx, r, w) != lattice.Yes {
				continue
			}
			if _, skip := e.notNewlyRun(w, r); skip || stoppedBy(w, none) || slices.Contains(skipped, w) {
				continue
			}
			return []lattice.Call{w}
		}
	}
	return nil
}

// notNewlyRun says why a call an allow rule matches does not newly run
// because of it in Claude Code: it runs with no rule, Claude Code asks about
// it whatever the rules, or it is a compound line whose parts the rule
// does not all approve.
func notNewlyRun(c lattice.Call, r lattice.Rule) (string, bool) {
	if lattice.RunsWithoutRule(c) {
		if c.Tool == "Read" {
			return "a read inside the project, which needs no rule", true
		}
		return "a read-only command Claude Code runs with no rule", true
	}
	if c.Tool != "Bash" {
		return "", false
	}
	exact := !strings.Contains(r.Specifier, "*") && r.HasSpecifier
	if why, ok := lattice.AlwaysAsks(c.Arg, r.Whole()); ok && !(exact && exactRuns(why)) {
		return why, true
	}
	if r.Whole() {
		return "", false
	}
	cmd, err := lattice.ParseCommand(c.Arg)
	if err != nil {
		return "Claude Code cannot parse the line, so it asks", true
	}
	if cmd.Compound() && !(exact && lattice.Matches(r, c)) {
		// An exact compound rule matches its whole line; otherwise every
		// part must be approved on its own.
		for _, p := range cmd.Parts {
			pc := lattice.Call{Tool: "Bash", Arg: p}
			if !lattice.Matches(r, pc) && !lattice.ReadOnly(p) {
				return "a compound line: Claude Code splits it and `" + p + "` still asks", true
			}
		}
	}
	return "", false
}

// pathCheckedReaders are the allow rules over a command that only reads,
// whose every call Claude Code either runs with no rule or still asks about
// under the rule: grep and find check every path operand (and the files
// -f, --file and --exclude-from name) against the working directories
// under any pattern rule, and find's -exec, -execdir, -ok, -okdir,
// -delete, -fprint, -fprint0, -fprintf and -fls ask under any pattern
// rule (measured on Claude Code 2.1.328 under Bash(grep:*), Bash(grep *),
// Bash(find:*), Bash(find *), Bash(**) and Bash(* *): "grep in
// '/etc/hostname' was blocked", "find with '-fprint0' … cannot be
// auto-allowed by a Bash(find:*) prefix rule"). GNU grep has no option
// that runs a program or writes a file. Such a rule lets run only reads of
// the project, which need no rule. rg is not here: `rg --pre cmd` runs a
// program, and `rg --files`, `--pre-glob` and `--ignore-file` ask with no
// rule but run under Bash(rg:*) (measured).
var pathCheckedReaders = map[string]string{
	"grep:*": "grep", "grep *": "grep", "find:*": "find", "find *": "find",
}

// readerAddsNothing reports an allow rule of pathCheckedReaders:
// everything it lets run reads the project, which Claude Code does with
// no rule. The search for the calls
// it newly runs cannot end on its own (grep takes any argument), so this
// is the bounded argument instead; it holds only for the exact rule texts
// measured.
func readerAddsNothing(r lattice.Rule) (string, bool) {
	if r.Canonical != "Bash" || !r.HasSpecifier || r.List != lattice.Allow {
		return "", false
	}
	word, ok := pathCheckedReaders[r.Specifier]
	if !ok {
		return "", false
	}
	return "adds nothing that newly runs without a prompt: `" + word + "` only reads, and Claude Code " + lattice.ClaudeCodeVersion +
		" checks its paths under any rule (a path outside the working directories still asks: measured)" + findActions(word) +
		", so what it lets run reads the project, which needs no rule", true
}

// findActions words find's actions that ask under any pattern rule.
func findActions(word string) string {
	if word != "find" {
		return ""
	}
	return ", and find's -exec, -delete and the actions that write (-fprint, -fls) still ask"
}

// askingForms are the measured lines of a read-only command that ask with
// no rule (lattice.ReadOnlyAsking), matched by the allow rule r, stopped
// by no rule of stop, not already allowed by base, and not asked about
// anyway under r.
func (e *engine) askingForms(r lattice.Rule, stop, base []lattice.Rule) []string {
	if r.Canonical != "Bash" || !r.HasSpecifier {
		return nil
	}
	word, _, _ := strings.Cut(strings.TrimLeft(r.Specifier, " "), " ")
	word, _, _ = strings.Cut(word, ":")
	var out []string
	for _, line := range lattice.ReadOnlyAsking(word) {
		c := lattice.Call{Tool: "Bash", Arg: line}
		if lattice.MatchContext(e.ctx, r, c) != lattice.Yes || stoppedBy(c, stop) || approvedExactly(c, base) {
			continue
		}
		if _, skip := e.notNewlyRun(c, r); skip {
			continue
		}
		out = append(out, c.String())
		if len(out) == maxWitnesses {
			break
		}
	}
	return out
}

// skipReasons words why the calls an added allow rule matches do not
// newly run, one clause per reason.
func (e *engine) skipReasons(calls []lattice.Call, r lattice.Rule) string {
	var order []string
	byWhy := map[string][]string{}
	for _, c := range calls {
		why, _ := e.notNewlyRun(c, r)
		if len(byWhy[why]) == 0 {
			order = append(order, why)
		}
		if len(byWhy[why]) < maxWitnesses {
			byWhy[why] = append(byWhy[why], c.String())
		}
	}
	parts := make([]string, 0, len(order))
	for _, why := range order {
		verb := "is"
		if len(byWhy[why]) > 1 {
			verb = "are each"
		}
		if strings.HasPrefix(why, "a ") {
			parts = append(parts, quoteList(byWhy[why])+" "+verb+" "+why)
		} else {
			parts = append(parts, quoteList(byWhy[why])+": "+why)
		}
	}
	return strings.Join(parts, "; ") + " (measured on Claude Code " + lattice.ClaudeCodeVersion + ")"
}

// whyNothingNew explains an added allow rule that grants nothing new, and
// names the rule that covers it when one alone does.
func (e *engine) whyNothingNew(f *fileState, r lattice.Rule, headStop, baseAllow []lattice.Rule) (why, cover string) {
	if _, ans := lattice.FindContext(e.ctx, []lattice.Rule{r}, headStop); ans == lattice.No {
		for _, s := range headStop {
			if lattice.CoversAnswer(e.ctx, s, r) == lattice.Yes {
				return fmt.Sprintf("adds nothing that runs without a prompt: every call it matches is stopped by %s: %s (Claude Code evaluates deny, then ask, then allow)", s.List, s.Text), ""
			}
		}
		return "adds nothing that runs without a prompt: the deny and ask rules together stop every call it matches", ""
	}
	if r.Canonical == "Read" && lattice.CoveredByContext(e.ctx, r, implicitFor(r.Canonical)).Answer == lattice.Yes {
		return "adds nothing: reads inside the project need no rule in Claude Code " + lattice.ClaudeCodeVersion + " (measured), so every path it matches is read without a prompt already", ""
	}
	if r.Canonical == "WebFetch" && lattice.CoveredByContext(e.ctx, r, implicitFor(r.Canonical)).Answer == lattice.Yes {
		return "adds nothing: Claude Code " + lattice.ClaudeCodeVersion + " fetches from this host with no rule (it is on the binary's built-in list of documentation hosts; measured)", ""
	}
	if how, ok := lattice.ToolsWithoutRule()[r.Canonical]; ok && lattice.CoveredByContext(e.ctx, r, implicitFor(r.Canonical)).Answer == lattice.Yes {
		if strings.HasPrefix(how, "documented") {
			// A question to the user: the rule neither lets it run unseen
			// nor needs to.
			return "adds nothing: in Claude Code " + lattice.ClaudeCodeVersion + " " + r.Canonical + " is a question to the user, which no rule answers for them (" + how + ")", ""
		}
		return "adds nothing: Claude Code " + lattice.ClaudeCodeVersion + " runs " + r.Canonical + " with no rule (" + how + ")", ""
	}
	if (r.Canonical == "Edit" || r.Canonical == "Write") && e.baseMode(f.scope) == "acceptEdits" && lattice.CoveredByContext(e.ctx, r, []lattice.Rule{projectEdits}).Answer == lattice.Yes {
		return "adds nothing: the base's defaultMode acceptEdits already edits and writes every path it matches (inside the project) without a prompt (Claude Code " + lattice.ClaudeCodeVersion + ", measured)", ""
	}
	// Prefer a cover from the same file.
	for _, d := range f.base.RulesIn(lattice.Allow) {
		if lattice.CoversAnswer(e.ctx, d.Rule, r) == lattice.Yes {
			return "runs without a prompt, but adds nothing: allow: " + d.Rule.Text + ", declared in this file at the base, already matches everything it matches", d.Rule.Text
		}
	}
	for _, b := range baseAllow {
		if lattice.CoversAnswer(e.ctx, b, r) == lattice.Yes && strings.HasPrefix(b.Note, "implied by ") {
			return "runs without a prompt, but adds nothing: allow: " + b.Text + " at the base already lets the agent " + verbFor(r) + " these paths (Claude Code " + lattice.ClaudeCodeVersion + " lets an Edit allow rule read and write what it edits, measured)", ""
		}
		if lattice.CoversAnswer(e.ctx, b, r) == lattice.Yes {
			return "runs without a prompt, but adds nothing: allow: " + b.Text + ", declared in another settings file of this project at the base, already matches everything it matches", ""
		}
	}
	return "runs without a prompt, but adds nothing: the allow rules at the base together already match everything it matches", ""
}

// allowFinding raises the check for an allow rule that grants something
// new: WILDCARD-ALLOW for wildcard-shaped rules above read-only and for
// exec-tier rules, ALLOW-EXPANDED otherwise.
func (e *engine) allowFinding(f *fileState, a *event, rt rating.Rating, replaced []*event) {
	r := a.decl.Rule
	check := report.CheckAllowExpanded
	if rt.ExecTier || (rt.Wildcard && rt.Risk.Rank() > rating.RiskLow.Rank()) {
		check = report.CheckWildcardAllow
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "allow: %s in %s", r.Text, f.Path)
	what := "runs without a prompt"
	switch {
	case rt.ExecTier:
		what = "reaches arbitrary code through a launcher, without a prompt"
	case rt.Wildcard && rt.Access == rating.AccessAdmin:
		what = "matches any command of this kind, without a prompt"
	case rt.Wildcard:
		what = "matches every target of this kind, without a prompt"
	}
	msg.WriteString(" " + what)
	if bareSkill(r) && rt.Basis != "" {
		// What a bare Skill allow grants is what the skills pre-approve
		// while they run (skillGrantRating, measured): say so.
		a.why = rt.Basis
	}
	if a.why == "" || a.why == "runs without a prompt" {
		a.why = what
	}
	if len(a.witnesses) > 0 {
		fmt.Fprintf(&msg, ": the agent can now %s %s", verbFor(r), quoteList(a.witnesses))
	}
	msg.WriteString(".")
	if a.why != "" && a.why != what {
		msg.WriteString(" " + upperFirst(a.why) + ".")
	}
	if note, ok := compoundAllowNote(r); ok {
		msg.WriteString(" " + note)
	}
	if e.headMode(f.scope) == "plan" && lattice.PlanStripped(r) {
		// Set aside while the session plans, restored when it leaves plan
		// mode (ExitPlanMode calls restoreDangerousPermissions in
		// 2.1.328's bundle): the grant is real once the plan is approved.
		msg.WriteString(" While the session is in plan mode Claude Code " + lattice.ClaudeCodeVersion + " sets this rule aside (what it matches goes to the auto-mode classifier); it applies once the session leaves plan mode.")
	}
	if e.headMode(f.scope) == "plan" && lattice.PlanReadsAnyway(r) {
		msg.WriteString(" While the session is in plan mode Claude Code " + lattice.ClaudeCodeVersion + " reads any file without a prompt, rule or not; this rule applies once the session leaves plan mode.")
	}
	if r.Canonical == "Bash" {
		calls, via := e.denyBypasses(f.scope, []lattice.Rule{r}, maxWitnesses)
		msg.WriteString(bypassNote(calls, via, "The deny rules"))
	}
	suggestion := ""
	if len(replaced) == 1 {
		fmt.Fprintf(&msg, " It replaces %s, which it strictly covers.", replaced[0].text())
	}
	if sg, ok := e.suggest(f, a, replaced); ok {
		suggestion = strings.Join(sg.Rules, ", ")
		e.suggestions = append(e.suggestions, sg)
		fmt.Fprintf(&msg, " Suggested instead: %s.", suggestion)
	}
	a.findings = append(a.findings, report.Finding{
		CheckID: check, Risk: rt.Risk, Path: f.Path, Line: a.decl.Line, HeadLine: a.decl.Line,
		Evidence: rt.Evidence, Message: msg.String(), Title: "allow " + r.Text, Witnesses: a.witnesses,
		Suggestion: suggestion, Key: check + "|" + f.Path + "|allow|" + r.Text,
	})
}

// invalidRuleFinding notes an added rule Claude Code does not use.
func (e *engine) invalidRuleFinding(f *fileState, a *event) {
	r := a.decl.Rule
	risk := rating.RiskLow
	effect := "it grants nothing"
	if r.List != lattice.Allow {
		// A dead deny or ask rule is a trap: a reviewer who reads it
		// believes it protects, and it protects nothing.
		risk, effect = rating.RiskMedium, "it protects nothing (a reviewer who reads it as a "+stopNoun(r.List)+" is misled; the agent is not subject to it)"
	}
	a.findings = append(a.findings, report.Finding{
		CheckID: report.CheckRuleInvalid, Risk: risk, Path: f.Path, Line: a.decl.Line, HeadLine: a.decl.Line,
		Evidence: rating.Redact(r), Title: string(r.List) + " rule Claude Code skips",
		Message: fmt.Sprintf("%s: %s in %s is not used by Claude Code, so %s: %s.", r.List, r.Text, f.Path, effect, strings.TrimSuffix(a.why, ".")),
		Key:     report.CheckRuleInvalid + "|" + f.Path + "|" + string(r.List) + "|" + r.Text,
	})
}

// compoundRestriction explains a Bash deny or ask rule written as a
// compound command. Written as a pipeline (`Bash(curl * | sh)`), Claude
// Code 2.1.328 matches it against each pipeline of a line whole unless
// every command of that pipeline is allowed on its own by a rule that is
// not the whole tool (measured: deny Bash(curl * | bash) stops `curl x |
// bash` with no allow rule, under Bash(curl *) and under Bash(*), not
// under Bash(**) or Bash(curl *) with Bash(bash)): a working restriction
// with one gap, which the explanation names — never advice to replace it
// (restricting is false then). An exact deny rule (no wildcard) matches
// its line whole as written. Otherwise — joined by && || ; & or a line
// break, or an exact ask rule joined so — it never sees its line whole (measured: `wget x && sh y` runs under Bash
// with a deny Bash(wget * && sh *)); the explanation names the parts to
// restrict instead.
func compoundRestriction(r lattice.Rule) (why string, restricting bool, ok bool) {
	if r.List == lattice.Allow {
		return "", false, false
	}
	parts, ops, ok := compoundShape(r)
	if !ok {
		return "", false, false
	}
	if !strings.Contains(r.Specifier, "*") && r.List == lattice.Deny {
		// Measured on 2.1.328: deny Bash(npm test; npm publish) denies
		// that line under Bash(npm *), Bash(**) and Bash(*), not `npm
		// test;npm publish`. The same rule in ask is never matched whole
		// (the line runs under Bash(npm *)): it takes the last branch,
		// or the pipeline one when it is a pipeline.
		act, fix := "stops", "to stop the other ways of writing it, deny one of its parts as well"
		return fmt.Sprintf("an exact %s written as a compound command: Claude Code %s matches it against the whole line and %s `%s` as written, whatever allows its parts — not the same commands joined or spaced otherwise; %s (%s)",
			stopNoun(r.List), lattice.ClaudeCodeVersion, act, r.Specifier, fix, strings.Join(parts, " or ")), true, true
	}
	if pipelineRule(r) {
		act, fix := "stops", "to stop it there too, also deny one of its commands"
		if r.List == lattice.Ask {
			act, fix = "prompts for", "to prompt there too, also add one of its commands to ask"
		}
		return fmt.Sprintf("a %s written as a pipeline: Claude Code %s matches it against each pipeline of a command line whole and %s `%s` — unless every command of the pipeline is allowed on its own by a rule that is not the whole tool (as under Bash(**)), where it runs; %s (%s)",
			stopNoun(r.List), lattice.ClaudeCodeVersion, act, r.Specifier, fix, strings.Join(parts, " or ")), true, true
	}
	fix := "to stop the line, deny one of its parts instead"
	if r.List == lattice.Ask {
		fix = "to prompt for the line, add one of its parts to ask instead"
	}
	return fmt.Sprintf("a %s written as a compound command: Claude Code splits a command on %s before it matches rules, so this rule never sees `%s` whole and %s; %s (%s)",
		stopNoun(r.List), strings.Join(ops, " and "), r.Specifier, compoundReach(r, ops), fix, strings.Join(parts, " or ")), false, true
}

// compoundReach says what a compound rule still matches once commands are
// split: a command whose operator is quoted, if the rule has a wildcard.
func compoundReach(r lattice.Rule, ops []string) string {
	if !strings.Contains(r.Specifier, "*") {
		return "matches nothing"
	}
	return "matches only a command whose " + strings.Join(ops, " or ") + " is inside quotes"
}

// compoundRestrictionFinding reports a deny or ask rule joined by && || ;
// that stops less than it reads (see compoundRestriction): the author
// meant a restriction the agent is not subject to.
func (e *engine) compoundRestrictionFinding(f *fileState, a *event) {
	r := a.decl.Rule
	a.findings = append(a.findings, report.Finding{
		CheckID: report.CheckRuleInvalid, Risk: "medium", Path: f.Path, Line: a.decl.Line, HeadLine: a.decl.Line,
		Evidence: rating.Redact(r), Title: string(r.List) + " rule that never sees a whole compound command",
		Message: fmt.Sprintf("%s: %s in %s is %s.", r.List, r.Text, f.Path, a.why),
		Key:     report.CheckRuleInvalid + "|" + f.Path + "|" + string(r.List) + "|" + r.Text,
	})
}

// compoundAllowNote explains an allow rule written as an exact compound
// command (`Bash(cd web && npm ci)`): Claude Code 2.1.328 matches it
// against that whole line (measured), and approves no other line of
// these parts unless each part is allowed. (With a wildcard such a rule
// matches nothing; the lattice reads it as dead.)
func compoundAllowNote(r lattice.Rule) (string, bool) {
	if r.List != lattice.Allow {
		return "", false
	}
	parts, ops, ok := compoundShape(r)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("It is written as a compound command: Claude Code %s matches an exact compound rule against the whole line (measured), so it approves `%s` as written; any other line of these parts (joined with %s) still needs each part allowed: %s.",
		lattice.ClaudeCodeVersion, r.Specifier, strings.Join(ops, " or "), strings.Join(parts, " and ")), true
}

// compoundShape splits a Bash rule's specifier as Claude Code splits a
// command: the parts as rules and the operators in words, when there is
// more than one part.
func compoundShape(r lattice.Rule) (parts, ops []string, ok bool) {
	if r.Canonical != "Bash" || !r.HasSpecifier || !mayBeCompound(r.Specifier) {
		return nil, nil, false
	}
	cmd, err := lattice.ParseCommand(r.Specifier)
	if err != nil || !cmd.Compound() {
		return nil, nil, false
	}
	for _, p := range cmd.Parts {
		parts = append(parts, "`Bash("+p+")`")
	}
	ops = make([]string, len(cmd.Operators))
	for i, o := range cmd.Operators {
		ops[i] = "`" + o + "`"
		if o == "newline" {
			ops[i] = "a line break"
		}
	}
	return parts, ops, true
}

// mayBeCompound reports whether a command line holds a byte that can
// start a control operator, a list, a group or a substitution; a line
// without one is one simple command (skipping the shell parse of every
// rule a finding words).
func mayBeCompound(s string) bool { return strings.ContainsAny(s, ";&|\n\r`$(){}") }

// judgeRestrictionRemovals decides, for each deny and ask rule that left,
// what the agent may now do that it could not: calls the rule stopped that
// no deny (or, for an ask rule, no deny or ask) rule of the project stops
// at the head.
func (e *engine) judgeRestrictionRemovals(rs *ruleSet, moved map[*event]*event) {
	f := rs.f
	for _, l := range []lattice.List{lattice.Deny, lattice.Ask} {
		stops := e.scopeRules(f.scope, true, lattice.Deny)
		if l == lattice.Ask {
			stops = e.scopeRules(f.scope, true, lattice.Deny, lattice.Ask)
		}
		judging := e.attribution()
		for _, d := range rs.removed[l] {
			if d.done {
				continue
			}
			judging(d)
			r := d.decl.Rule
			if r.Negated {
				continue // carve-outs are judged by carveOuts
			}
			if r.Dead() {
				d.why = "Claude Code never used this rule (" + report.FirstNonEmpty(r.Malformed, r.Note) + "), so no effective restriction is removed"
				continue
			}
			calls, ans := lattice.FindNContext(e.ctx, []lattice.Rule{r}, stops, maxWitnesses)
			switch ans {
			case lattice.No:
				if v := lattice.CoveredByContext(e.ctx, r, stops); v.Answer != lattice.Yes {
					d.expands = true
					d.why = "the rules at the head may not stop everything it stopped (" + v.Reason + ")"
					break
				}
				d.why = fmt.Sprintf("removes this %s rule, but the %s rules at the head still stop everything it stopped", l, stopWord(l))
				for _, a := range rs.added[l] {
					if moved[a] == nil && !a.done && sameTool(a.decl.Rule, r) && lattice.CoversAnswer(e.ctx, a.decl.Rule, r) == lattice.Yes {
						a.direction, a.partner, a.done = report.DirWidened, d, true
						a.why = fmt.Sprintf("the %s rule now matches everything it matched and more", l)
						d.done = true
						break
					}
				}
				continue
			case lattice.Yes:
				d.expands = true
				calls = e.concrete(calls, []lattice.Rule{r}, stops, nil)
				calls = e.derivedRuns(f.scope, r, stops, calls)
				d.witnesses = witnessStrings(r, calls)
			default:
				d.expands = true
				d.why = "could not be compared exactly with the rules at the head; treated as removed"
			}
			// An added rule of the same list that it strictly covers is what
			// it was narrowed to.
			for _, a := range rs.added[l] {
				if moved[a] == nil && !a.done && !a.decl.Rule.Negated && !a.decl.Rule.Dead() && sameTool(r, a.decl.Rule) && lattice.CoversAnswer(e.ctx, r, a.decl.Rule) == lattice.Yes {
					a.direction, a.partner, a.done = report.DirNarrowed, d, true
					d.partner = a
					a.expands = true
					a.witnesses = d.witnesses
					a.why = fmt.Sprintf("the %s rule now matches less than the rule it replaced", l)
					d.done = true
					break
				}
			}
			e.restrictionFinding(f, d, calls)
		}
		judging(nil)
	}
}

// restrictionFinding raises DENY-REMOVED or ASK-REMOVED and says what the
// freed calls now do.
func (e *engine) restrictionFinding(f *fileState, d *event, calls []lattice.Call) {
	r := d.decl.Rule
	check := report.CheckDenyRemoved
	if r.List == lattice.Ask {
		check = report.CheckAskRemoved
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "%s: %s was removed from %s", r.List, r.Text, f.Path)
	if d.partner != nil {
		fmt.Fprintf(&msg, " (narrowed to %s)", d.partner.text())
	}
	if len(calls) > 0 {
		// One clause per fate: under one allow rule `rm` runs while
		// `rm -rf /` still asks.
		var order []string
		byFate := map[string][]string{}
		strs := witnessStrings(r, calls)
		for i, c := range calls {
			fate := e.fate(f.scope, c, r.List)
			if len(byFate[fate]) == 0 {
				order = append(order, fate)
			}
			byFate[fate] = append(byFate[fate], strs[i])
		}
		clauses := make([]string, len(order))
		for i, fate := range order {
			clauses[i] = quoteList(byFate[fate]) + " — " + fate
		}
		fmt.Fprintf(&msg, ": %s", strings.Join(clauses, "; "))
		if d.why == "" {
			d.why = fmt.Sprintf("removes a %s; %s", stopNoun(r.List), strings.Join(clauses, "; "))
		}
	} else if d.why == "" {
		d.why = "removes a " + stopNoun(r.List)
	}
	msg.WriteString(".")
	if r.List == lattice.Deny && r.Canonical == "Bash" {
		calls, via := e.denyBypasses(f.scope, e.scopeRules(f.scope, true, lattice.Allow), maxWitnesses)
		msg.WriteString(bypassNote(calls, via, "The deny rules that remain"))
	}
	d.findings = append(d.findings, report.Finding{
		CheckID: check, Path: f.Path, Line: d.decl.Line, HeadLine: f.head.ListLine(r.List), Base: true,
		Evidence: rating.Redact(r), Message: msg.String(), Title: string(r.List) + " " + r.Text + " removed",
		Witnesses: d.witnesses, Key: check + "|" + f.Path + "|" + string(r.List) + "|" + r.Text,
	})
}

// derivedRuns puts first, among a removed restriction's witnesses, the
// calls of the tools Claude Code derives from it (lattice.Implied: a deny
// Edit rule denies Write and NotebookEdit of its paths too) that now run
// without a prompt: under a bare allow NotebookEdit, removing deny
// Edit(./secret/**) lets a notebook edit there run, while the Edit itself
// only prompts.
func (e *engine) derivedRuns(scope string, r lattice.Rule, stops []lattice.Rule, calls []lattice.Call) []lattice.Call {
	var runs []lattice.Call
	for _, ir := range e.implied(r) {
		found, ans := lattice.FindNContext(e.ctx, []lattice.Rule{ir}, stops, maxWitnesses)
		if ans != lattice.Yes {
			continue
		}
		for _, c := range found {
			if c.Tool == "NotebookEdit" && !strings.HasSuffix(c.Arg, ".ipynb") {
				// The tool edits notebooks: name one where one may be.
				if nb := (lattice.Call{Tool: c.Tool, Arg: c.Arg + ".ipynb"}); e.isWitness(nb, []lattice.Rule{ir}, stops) {
					c = nb
				}
			}
			if strings.HasPrefix(e.fate(scope, c, r.List), "now runs") {
				runs = append(runs, c)
			}
		}
	}
	if len(runs) == 0 {
		return calls
	}
	out := append(runs[:min(len(runs), maxWitnesses)], calls...)
	return out[:min(len(out), maxWitnesses+1)]
}

// witnessStrings renders a removed rule's witnesses: a call of another
// tool than the rule's (a derived one) names its tool, as
// NotebookEdit(secret/x.ipynb), since a bare path would read as the
// rule's own tool.
func witnessStrings(r lattice.Rule, calls []lattice.Call) []string {
	out := callStrings(calls)
	for i, c := range calls {
		if c.Tool != r.Canonical && c.Tool != "" && c.Arg != "" && !strings.HasPrefix(c.Tool, "mcp__") {
			out[i] = c.Tool + "(" + out[i] + ")"
		}
	}
	return out
}

// fate says what happens at the head to a call a removed rule stopped.
func (e *engine) fate(scope string, c lattice.Call, from lattice.List) string {
	for _, r := range e.scopeRules(scope, true, lattice.Ask) {
		if lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
			if from == lattice.Ask {
				return "still prompts (ask: " + r.Text + ")"
			}
			return "now prompts instead of being denied (ask: " + r.Text + ")"
		}
	}
	asks := ""
	for _, r := range e.scopeRules(scope, true, lattice.Allow) {
		if lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
			if why, ok := notNewlyRun(c, r); ok && !lattice.RunsWithoutRule(c) {
				asks = why
				continue
			}
			return "now runs without a prompt (allow: " + r.Text + ")"
		}
	}
	if lattice.RunsWithoutRule(c) {
		why, _ := notNewlyRun(c, lattice.Rule{})
		return "now runs without a prompt: " + why + " in Claude Code " + lattice.ClaudeCodeVersion
	}
	if asks != "" {
		if from == lattice.Ask {
			return "still prompts (" + asks + ")"
		}
		return "now prompts instead of being denied (" + asks + ")"
	}
	if from == lattice.Ask {
		return "now follows the permission mode: a prompt in the default mode, none under bypassPermissions"
	}
	return "no longer denied: a prompt in the default mode, none under bypassPermissions"
}

// judgeRemaining words the rows the other passes left: removed allow
// rules, added deny and ask rules.
func (e *engine) judgeRemaining(rs *ruleSet) {
	f := rs.f
	headAllow := e.scopeRules(f.scope, true, lattice.Allow)
	for _, r := range rs.removed[lattice.Allow] {
		if r.done || r.why != "" {
			continue
		}
		switch {
		case r.decl.Rule.Dead():
			r.why = "Claude Code never used this rule, so no permission is removed"
		case lattice.CoveredByContext(e.ctx, r.decl.Rule, headAllow).Answer == lattice.Yes:
			r.why = "removes this allow rule; the allow rules at the head still cover its matches"
		default:
			r.why = "removes a permission the agent previously had here"
		}
	}
	for _, l := range []lattice.List{lattice.Deny, lattice.Ask} {
		for _, a := range rs.added[l] {
			if a.done || a.decl.Rule.Negated {
				continue
			}
			r := a.decl.Rule
			if r.Dead() {
				a.why = "Claude Code skips this rule: " + report.FirstNonEmpty(r.Malformed, r.Note)
				e.invalidRuleFinding(f, a)
				continue
			}
			if r.Ambiguous() {
				a.why = "a " + stopNoun(l) + "; Claude Code may skip it (" + r.Ambiguity + ")"
				continue
			}
			if why, restricting, ok := compoundRestriction(r); ok {
				a.why = why
				if !restricting {
					e.compoundRestrictionFinding(f, a)
				}
				continue
			}
			a.why = "a " + stopNoun(l) + " the agent is subject to"
		}
	}
}

// emitRuleRows turns the events into rows and records their findings.
func (e *engine) emitRuleRows(rs *ruleSet, moved map[*event]*event) {
	f := rs.f
	rt := e.rate
	emitted := map[*event]bool{}
	for _, l := range claude.Lists {
		for _, a := range rs.added[l] {
			if emitted[a] {
				continue
			}
			emitted[a] = true
			row := report.Change{Path: f.Path, Kind: report.KindRule, List: string(l), Direction: report.DirAdded, After: a.text(),
				Expands: a.expands, Line: a.decl.Line, HeadLine: a.decl.Line, Witnesses: a.witnesses, Why: a.why}
			ra := rt(a.decl.Rule)
			row.Access, row.Risk = ra.Access, ra.Risk
			if m := moved[a]; m != nil {
				emitted[m] = true
				row.Direction, row.Before = report.DirMoved, m.text()
				row.Before = string(m.list()) + ": " + m.text()
				row.After = string(l) + ": " + a.text()
				row.Expands = a.expands || m.expands
				row.Witnesses = dedupe(append(append([]string(nil), a.witnesses...), m.witnesses...))
				row.Why = fmt.Sprintf("the same rule moved from %s to %s; %s", m.list(), l, report.FirstNonEmpty(a.why, m.why, moveWhy(m.list(), l)))
				e.record(m)
			} else if a.partner != nil {
				emitted[a.partner] = true
				e.record(a.partner)
				row.Direction, row.Before = a.direction, a.partner.text()
				if a.direction == report.DirWidened && l == lattice.Allow {
					row.Why = "the new rule matches everything the old rule matched and more; " + report.FirstNonEmpty(a.why, "runs without a prompt")
				}
			} else if a.direction == report.DirCovered {
				row.Direction, row.Before = report.DirCovered, a.cover
			} else if a.direction != "" {
				row.Direction = a.direction
			}
			if row.Why == "" {
				row.Why = a.why
			}
			if row.Why == "" && a.expands {
				row.Why = "runs without a prompt"
			}
			e.changes = append(e.changes, row)
			e.record(a)
		}
	}
	for _, l := range claude.Lists {
		for _, r := range rs.removed[l] {
			if emitted[r] || (r.done && !r.expands && len(r.findings) == 0) {
				continue
			}
			if r.done {
				// Explained by a pair row, but its finding still stands.
				e.record(r)
				continue
			}
			emitted[r] = true
			ra := rt(r.decl.Rule)
			e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindRule, List: string(l), Direction: report.DirRemoved, Before: r.text(),
				Expands: r.expands, Access: ra.Access, Risk: ra.Risk, Line: r.decl.Line, HeadLine: f.head.ListLine(l),
				Witnesses: r.witnesses, Why: r.why})
			e.record(r)
		}
	}
}

// record adds an event's findings (once).
func (e *engine) record(ev *event) {
	for _, fd := range ev.findings {
		e.finding(fd)
	}
	ev.findings = nil
}

func moveWhy(from, to lattice.List) string {
	rank := map[lattice.List]int{lattice.Deny: 0, lattice.Ask: 1, lattice.Allow: 2}
	if rank[to] > rank[from] {
		return "it stops less than it did"
	}
	return "it stops more than it did"
}

func stopWord(l lattice.List) string {
	if l == lattice.Ask {
		return "deny and ask"
	}
	return "deny"
}

func stopNoun(l lattice.List) string {
	if l == lattice.Ask {
		return "confirmation requirement"
	}
	return "denial"
}

func callStrings(cs []lattice.Call) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		if (c.Tool == "Write" || c.Tool == "NotebookEdit") && c.Arg != "" && c.Param == "" {
			// A Write or NotebookEdit call is a path, like Read and Edit.
			out = append(out, c.Arg)
			continue
		}
		if server, ok := strings.CutSuffix(c.Tool, "__"); ok && c.Arg == "" && strings.HasPrefix(server, "mcp__") && !strings.Contains(server[len("mcp__"):], "__") {
			// A server-wide rule's witness is the server's prefix with an
			// empty tool name (mcp__sentry__): it stands for every tool
			// the server offers, so it is written as such.
			out = append(out, c.Tool+"<any tool>")
			continue
		}
		out = append(out, c.String())
	}
	return out
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// sameTool is a cheap test before a containment question: rules of
// different tools never cover each other (tool-name globs aside).
func sameTool(a, b lattice.Rule) bool {
	return a.Canonical == b.Canonical || a.Family == lattice.FamilyToolGlob || b.Family == lattice.FamilyToolGlob ||
		a.Family == lattice.FamilyMCP || b.Family == lattice.FamilyMCP
}

// dedupe removes repeated strings, keeping the first of each.
func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// verbFor says what the agent does with a rule's witness: run a command,
// read or edit a path, fetch from a host, call a tool.
func verbFor(r lattice.Rule) string {
	switch r.Canonical {
	case "Bash", "PowerShell", "Monitor":
		return "run"
	case "Read":
		return "read"
	case "Edit":
		return "edit"
	case "Write":
		return "write"
	case "WebFetch":
		return "fetch from"
	}
	if r.Family == lattice.FamilyMCP || r.Family == lattice.FamilyToolGlob {
		return "call"
	}
	return "use"
}

// approvedExactly reports whether an exact (star-free) allow rule already
// names the call: Claude Code's find guard does not apply to it.
func approvedExactly(c lattice.Call, allows []lattice.Rule) bool {
	for _, a := range allows {
		if !strings.Contains(a.Specifier, "*") && lattice.Matches(a, c) {
			return true
		}
	}
	return false
}

// stoppedBy reports whether a deny or ask rule may match the call.
func stoppedBy(c lattice.Call, stops []lattice.Rule) bool {
	for _, s := range stops {
		if lattice.Match(s, c) != lattice.No {
			return true
		}
	}
	return false
}

// projectEdits is what defaultMode acceptEdits lets run with no rule:
// edits and writes inside the project (claude-code-observed.md,
// acceptEdits; measured on lattice.ClaudeCodeVersion).
var projectEdits = func() lattice.Rule {
	r := lattice.ParseIn(lattice.Allow, "Edit(./**)")
	r.Note = "defaultMode acceptEdits edits inside the project without a prompt"
	return r
}()

// baseMode is the defaultMode of the project folder scope at the base:
// the last settings file that sets it, in the order headMode reads them
// (settings.local.json after settings.json).
func (e *engine) baseMode(scope string) string {
	mode := "default"
	files := append([]*fileState(nil), e.scopes[scope]...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		if f.kind == report.SettingsFile && f.base != nil {
			if s := claude.Lookup(f.base, "defaultMode", true); s.Present() && s.Value.Kind() == jsonpos.String {
				mode = s.Value.Text()
			}
		}
	}
	return mode
}

// asksWhateverItMatches reports whether every command a Bash pattern rule
// can match holds, at the same unquoted place, a command substitution
// (`$(…)`, backticks, `<(…)`) or a variable (`$HOME`): Claude Code asks
// about such a line under every rule but the whole tool ("can't be
// checked"; measured on 2.1.328 for $(…), backticks, <(…), $FOO and
// ${BAR} under `:*` and ` *` rules), so the rule grants nothing. Only the
// text before the rule's first star is read, and
// only when no quote or escape precedes the expansion there: a star's
// text could open a quote that turns what follows into a literal.
func asksWhateverItMatches(r lattice.Rule) (string, bool) {
	if r.Canonical != "Bash" || !r.HasSpecifier || r.Whole() || r.Ambiguous() {
		return "", false
	}
	// An exact rule (no star) runs the line it names, substitutions and
	// all: `Bash(printf $(whoami))` ran `printf $(whoami)` (2.1.328,
	// measured through internal/conformance).
	spec := strings.TrimSuffix(r.Specifier, ":*")
	if i := strings.IndexByte(spec, '*'); i >= 0 {
		spec = spec[:i]
	} else if spec == r.Specifier {
		return "", false
	}
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; c {
		case '\'', '"', '\\', '#':
			return "", false
		case '`':
			return "every command it matches holds a command substitution (`…`), which Claude Code " + lattice.ClaudeCodeVersion + " asks about under every pattern rule", true
		case '$', '<':
			if i+1 >= len(spec) {
				return "", false
			}
			n := spec[i+1]
			switch {
			case n == '(' && (c == '$' || c == '<'):
				return "every command it matches holds a command substitution (" + string(c) + "(…)), which Claude Code " + lattice.ClaudeCodeVersion + " asks about under every pattern rule", true
			case c == '$' && (n == '{' || n == '_' || n >= 'A' && n <= 'Z' || n >= 'a' && n <= 'z'):
				return "every command it matches holds a variable ($…), which Claude Code " + lattice.ClaudeCodeVersion + " asks about under every pattern rule", true
			}
		}
	}
	return "", false
}

// redirectedTail reports whether every command a Bash pattern rule can
// match ends, after its last star, in fixed text that redirects output to
// a file, such as the allowed-tools entry `Bash(task-master:*, npm install
// -g task-master-ai, mkdir -p, cat >, grep, echo, basename, date)` (one rule:
// Claude Code splits allowed-tools on commas and blanks outside
// parentheses only). Measured on Claude Code 2.1.328 with that entry in a
// running command's allowed-tools (internal/conformance
// TestRedirectedTailRules): the line with the tail outside quotes is
// refused ("Redirect has multiple targets"), with a comment before the tail
// it asks, with `$(` or a backtick before it it asks, joined to another
// command it asks, and with a quote opened before the tail Claude Code lets
// it through but bash cannot parse it ("unexpected EOF"), so nothing runs.
// So the rule grants nothing. The tail must hold no character that could
// close what a star opened or turn the redirection into something else
// (quotes, escapes, `#`, `$`, backticks, brackets, parentheses, braces,
// `<`, operators, line breaks), the redirection must be a blank-led `>` or
// `>>` with a plain target other than /dev/null, and the text before the
// first star must start with a word character, so that any part of a line
// it matches starts a simple command.
func redirectedTail(r lattice.Rule) (string, bool) {
	if r.Canonical != "Bash" || r.List != lattice.Allow || !r.HasSpecifier || r.Whole() || r.Ambiguous() || strings.HasSuffix(r.Specifier, ":*") {
		return "", false
	}
	spec := r.Specifier
	first, last := unescapedStars(spec)
	if first < 0 {
		return "", false
	}
	if c := spec[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/') || first == 0 {
		return "", false
	}
	tail := spec[last+1:]
	if strings.ContainsAny(tail, "'\"\\#$`[](){}<;&|\n\r*") {
		return "", false
	}
	words := strings.Fields(tail)
	for i, w := range words {
		op := ""
		switch {
		case w == ">" || w == ">>":
			if i+1 < len(words) {
				op = words[i+1]
			}
		case strings.HasPrefix(w, ">>"):
			op = w[2:]
		case strings.HasPrefix(w, ">"):
			op = w[1:]
		default:
			continue
		}
		// Led by a blank inside the tail (a star's text cannot escape it).
		if at := strings.Index(tail, " "+w); op == "" || at < 0 || op == "/dev/null" || strings.HasPrefix(op, ">") {
			continue
		}
		return "every command it matches ends in `" + strings.TrimSpace(tail) + "`, which redirects output to a file (`" + w + "`) outside quotes — Claude Code " +
			lattice.ClaudeCodeVersion + " refuses or asks about such a line under every pattern rule — or inside a quote opened before it that never closes, which bash cannot parse, so nothing runs (measured)", true
	}
	return "", false
}

// unescapedStars returns the positions of the first and last star of a
// specifier not escaped by a backslash (-1 when there is none).
func unescapedStars(spec string) (first, last int) {
	first, last = -1, -1
	for i := 0; i < len(spec); i++ {
		switch spec[i] {
		case '\\':
			i++
		case '*':
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// exactRuns reports whether an exact rule (no star) still runs a line
// that lattice.AlwaysAsks says pattern rules ask about, for the reason
// why: the find -exec it names (2.1.113+), and — measured on 2.1.328
// through internal/conformance — command substitutions ($(…), backticks,
// <(…)), variables ($FOO, ${BAR}) and eval: `Bash(printf $(whoami))`
// runs `printf $(whoami)`. A redirection to a file still asks.
func exactRuns(why string) bool {
	return strings.HasPrefix(why, "find ") || strings.Contains(why, "command substitution") ||
		strings.HasPrefix(why, "a variable") || strings.HasPrefix(why, "`eval`")
}
