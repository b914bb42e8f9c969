package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
)

// bypassForms wrap a denied command in the forms Claude Code does not look
// inside before it matches deny rules: with `allow: Bash(*)` and
// `deny: Bash(curl:*)`, `bash -c 'curl x'`, `eval curl x`,
// `python3 -c 'import os; os.system("curl x")'` and
// `find . -exec curl x {} +` all ran (measured on lattice.ClaudeCodeVersion).
// A deny rule alone does not protect; these are the calls that show it.
var bypassForms = []func(string) string{
	func(m string) string { return "bash -c '" + m + "'" },
	func(m string) string { return "eval " + m },
	func(m string) string { return `python3 -c 'import os; os.system("` + m + `")'` },
	func(m string) string { return "find . -exec " + m + " {} +" },
}

// denyBypasses returns up to max calls that run without a prompt past the
// deny rules of a scope at the head, through a grant among grants: a
// bypass form of a command a deny rule names, that the grant approves
// (its command checks included) and no deny or ask rule of the head
// stops, in any form Claude Code reads the line. It names the grant that
// lets each call through.
//
// The calls only word a message, so the work is bounded: at most
// maxBypassChecks candidates that the grant's literal text does not rule
// out are matched against it (a file with hundreds of Bash deny rules has
// thousands of candidates, and every Bash allow finding asks).
func (e *engine) denyBypasses(scope string, grants []lattice.Rule, max int) (calls []string, via string) {
	cands := e.bypassCandidates(scope)
	if len(cands) == 0 {
		return nil, ""
	}
	set := e.bypassSet(scope, cands)
	// Which candidates each grant approves; then the approved candidates
	// in their order, each through the first grant that approves it.
	first := map[int]int{} // candidate → grant
	checks := 0
	for gi, g := range grants {
		if g.Canonical != "Bash" {
			continue
		}
		set.Each(g, func(ci int, w lattice.Call) bool {
			if checks >= maxBypassChecks {
				return false
			}
			if _, done := first[ci]; done {
				return true
			}
			checks++
			if lattice.MatchContext(e.ctx, g, w) == lattice.Yes {
				if _, skip := notNewlyRun(w, g); !skip {
					first[ci] = gi
				}
			}
			return true
		})
	}
	order := make([]int, 0, len(first))
	for ci := range first {
		order = append(order, ci)
	}
	sort.Ints(order)
	for _, ci := range order {
		calls = append(calls, cands[ci].Arg)
		if via == "" {
			via = grants[first[ci]].Text
		}
		if len(calls) >= max {
			break
		}
	}
	return calls, via
}

// bypassSet indexes a scope's bypass candidates, once.
func (e *engine) bypassSet(scope string, cands []lattice.Call) *lattice.CallSet {
	if s, ok := e.bypassSets[scope]; ok {
		return s
	}
	s := lattice.NewCallSet(cands)
	if e.bypassSets == nil {
		e.bypassSets = map[string]*lattice.CallSet{}
	}
	e.bypassSets[scope] = s
	return s
}

// maxBypassChecks bounds the matches one denyBypasses makes.
const maxBypassChecks = 512

// bypassCandidates are the bypass forms of the commands the head's deny
// rules of a scope name that no deny or ask rule of the head stops,
// computed once per scope.
func (e *engine) bypassCandidates(scope string) []lattice.Call {
	if c, ok := e.bypasses[scope]; ok {
		return c
	}
	denies := e.scopeRules(scope, true, lattice.Deny)
	stops := e.scopeRules(scope, true, lattice.Deny, lattice.Ask)
	var out []lattice.Call
	seen := map[string]bool{}
	for _, d := range denies {
		if d.Canonical != "Bash" || d.Whole() || d.Dead() || !d.HasSpecifier || seen["rule "+d.Text] {
			continue
		}
		seen["rule "+d.Text] = true
		m, ok := e.denyWitness(d)
		if !ok {
			continue
		}
		for i, form := range bypassForms {
			if i == 0 && (m == "rm" || strings.HasPrefix(m, "rm ") || strings.HasPrefix(m, "rmdir")) {
				// bash -c 'rm x' with a deny on rm asks (Claude Code
				// 2.1.328, measured): not a bypass.
				continue
			}
			w := lattice.Call{Tool: "Bash", Arg: form(m)}
			if seen[w.Arg] || stoppedInAnyForm(e, w, stops) {
				continue
			}
			seen[w.Arg] = true
			out = append(out, w)
		}
	}
	if e.bypasses == nil {
		e.bypasses = map[string][]lattice.Call{}
	}
	e.bypasses[scope] = out
	return out
}

// stoppedInAnyForm reports whether a deny or ask rule may match any part of
// the line in any form Claude Code reads it (past wrappers and
// assignments).
func stoppedInAnyForm(e *engine, c lattice.Call, stops []lattice.Rule) bool {
	forms, ok := e.denyForms(c.Arg)
	if !ok {
		return true
	}
	set := e.ruleSet(stops)
	for _, f := range forms {
		if set.MayMatch(lattice.Call{Tool: "Bash", Arg: f}) {
			return true
		}
	}
	return false
}

// denyForms are the texts a deny rule is matched against for every part
// of the command line (lattice.CommandForms), parsed once per comparison:
// the same bypass lines (`bash -c 'rm x'`) recur in every project folder
// of a pull request. ok is false when the line does not parse.
func (e *engine) denyForms(line string) ([]string, bool) {
	if f, ok := e.formsCache[line]; ok {
		return f.forms, f.ok
	}
	if !e.budget.Spend(formSteps) {
		// The budget is spent: the line counts as stopped, so it is no
		// bypass candidate (the notes are words in a message; the verdict
		// of a grant judged after the budget fails closed on its own).
		return nil, false
	}
	var out []string
	cmd, err := lattice.ParseCommand(line)
	if err == nil {
		for _, p := range cmd.Parts {
			for _, f := range lattice.CommandForms(p).Deny {
				out = append(out, f.Text)
			}
		}
	}
	if e.formsCache == nil {
		e.formsCache = map[string]parsedForms{}
	}
	e.formsCache[line] = parsedForms{out, err == nil}
	return out, err == nil
}

// formSteps is what parsing one bypass line with the shell parser is
// charged to the work budget: about 10 µs, as many as 400 search steps.
// A file of thousands of deny rules parses four lines for each.
const formSteps = 400

// parsedForms is a cached denyForms answer.
type parsedForms struct {
	forms []string
	ok    bool
}

// denyWitness is the command a deny rule's bypass notes are built from:
// a call the rule matches (with an operand when it takes one), or false
// when there is none to quote. It depends on the rule's text alone, so it
// is searched once per comparison, not once per project folder; an answer
// the budget cut short is not kept.
func (e *engine) denyWitness(d lattice.Rule) (string, bool) {
	if m, ok := e.witnesses[d.Text]; ok {
		return m, m != ""
	}
	c, ans := lattice.FindContext(e.ctx, []lattice.Rule{d}, nil)
	if ans != lattice.Yes || c.Arg == "" || strings.ContainsAny(c.Arg, `'"\`) {
		if ans != lattice.Unknown {
			e.keepWitness(d.Text, "")
		}
		return "", false
	}
	m := c.Arg
	x := lattice.Call{Tool: "Bash", Arg: m + " x"}
	switch lattice.MatchContext(e.ctx, d, x) {
	case lattice.Yes:
		m = x.Arg
	case lattice.Unknown:
		return m, true
	}
	e.keepWitness(d.Text, m)
	return m, true
}

// keepWitness caches a denyWitness answer.
func (e *engine) keepWitness(rule, m string) {
	if e.witnesses == nil {
		e.witnesses = map[string]string{}
	}
	e.witnesses[rule] = m
}

// ruleSet indexes one of the engine's pools (scopeRules) for MayMatch,
// once: stoppedBy over an index.
func (e *engine) ruleSet(pool []lattice.Rule) *lattice.RuleSet {
	if len(pool) == 0 {
		return lattice.NewRuleSet(nil)
	}
	if s, ok := e.ruleSets[&pool[0]]; ok && s.n == len(pool) {
		return s.set
	}
	s := lattice.NewRuleSet(pool)
	if e.ruleSets == nil {
		e.ruleSets = map[*lattice.Rule]indexedPool{}
	}
	e.ruleSets[&pool[0]] = indexedPool{len(pool), s}
	return s
}

// indexedPool is a pool's RuleSet and the pool's length.
type indexedPool struct {
	n   int
	set *lattice.RuleSet
}

// bypassNote words denyBypasses for a finding's message, or "".
func bypassNote(calls []string, via, subject string) string {
	if len(calls) == 0 {
		return ""
	}
	q := make([]string, len(calls))
	for i, c := range calls {
		q[i] = "`" + c + "`"
	}
	return fmt.Sprintf(" %s do not stop %s under allow: %s: Claude Code %s does not look inside bash -c, eval, python3 -c or find -exec before it matches deny rules (measured), so a deny rule alone does not protect.",
		subject, quoteListRaw(q), via, lattice.ClaudeCodeVersion)
}

// quoteListRaw joins already quoted items with commas and "and".
func quoteListRaw(q []string) string {
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
