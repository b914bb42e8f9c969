package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// suggest computes the suggestion for an expanding allow rule of f (the
// added event a, which replaced the base rules in replaced), or none.
//
// The candidate set keeps every replaced base rule as it was written and
// adds, for each allowed intent of the policy that the new rule matches and
// nothing else in the project allows, the narrowest usual rule for that
// call in the file's own spelling (a prefix rule, else the exact call).
// It is offered only when the lattice proves it: each suggested rule is
// covered by the new rule (Covers = Yes), the set does not cover the new
// rule (a call the new rule matches and none of them does exists: the
// counter-example the Why names), and each intent is matched. A new rule
// with nothing the base or the policy needs it for gets none: nothing says
// what a narrower rule would have to keep.
func (e *engine) suggest(f *fileState, a *event, replaced []*event) (report.Suggestion, bool) {
	r := a.decl.Rule
	if r.Negated || r.Dead() || r.Malformed != "" || r.Family == lattice.FamilyToolGlob || f.head == nil {
		return report.Suggestion{}, false
	}
	var keep []lattice.Rule
	for _, b := range replaced {
		keep = append(keep, b.decl.Rule)
	}
	var allowed []policy.Item
	if f.scope == "" && e.pol != nil {
		allowed = e.pol.Intent.Allowed
	}
	if len(keep) == 0 && len(allowed) == 0 {
		return report.Suggestion{}, false // nothing says what a narrower rule would keep
	}
	// The project's other allow rules at the head (an intent one of them
	// allows needs nothing from this rule) and the file's spelling are
	// needed only for an intent this rule matches.
	var others []lattice.Rule
	othersDone, style := false, ""
	var intents []string
	var extra []lattice.Rule
	for _, it := range allowed {
		c, err := policy.ParseCall(it.Value)
		if err != nil || lattice.MatchContext(e.ctx, r, c) != lattice.Yes {
			continue
		}
		if !othersDone {
			othersDone = true
			for _, o := range e.scopeRules(f.scope, true, lattice.Allow) {
				if o.Text != r.Text {
					others = append(others, o)
				}
			}
			style = spellingStyle(f, r, keep)
		}
		if matchesAny(e, keep, c) || matchesAny(e, extra, c) || matchesAny(e, others, c) {
			continue
		}
		s, ok := e.ruleFor(r, c, style)
		if !ok {
			return report.Suggestion{}, false // the intent needs what only this rule gives
		}
		extra = append(extra, s)
		intents = append(intents, c.String())
	}
	rules := append(append([]lattice.Rule(nil), keep...), extra...)
	if len(rules) == 0 {
		return report.Suggestion{}, false
	}
	for _, s := range rules {
		if lattice.CoversAnswer(e.ctx, r, s) != lattice.Yes {
			return report.Suggestion{}, false
		}
	}
	w, ok := e.counterExample(r, rules, a.witnesses)
	if !ok || w.Arg == "" {
		// The intents and the base need the whole width, or what the
		// suggestion leaves out is only the bare tool call: nothing a
		// reviewer could read as the difference.
		return report.Suggestion{}, false
	}
	texts := make([]string, len(rules))
	for i, s := range rules {
		texts[i] = s.Text
	}
	before, after, ok := lineEditAt(e.headLines(f), a.decl.Line, r.Text, texts)
	if !ok {
		return report.Suggestion{}, false
	}
	var kept []string
	if len(keep) > 0 {
		names := make([]string, len(keep))
		for i, k := range keep {
			names[i] = "`" + k.Text + "`"
		}
		kept = append(kept, "everything the base allowed ("+strings.Join(names, ", ")+")")
	}
	for _, c := range intents {
		kept = append(kept, "`"+c+"` (an allowed intent of the policy)")
	}
	why := fmt.Sprintf("Matches %s; does not match `%s`, which `%s` runs without a prompt. Proved by the lattice: `%s` covers each suggested rule, and `%s` is matched by it and by none of them.",
		joinAnd(kept), w.String(), r.Text, r.Text, w.String())
	return report.Suggestion{Path: f.Path, Line: a.decl.Line, Before: before, After: after, Why: why, Rule: r.Text, Rules: texts, Restores: len(extra) == 0}, true
}

// matchesAny reports whether some rule surely matches c.
func matchesAny(e *engine, rs []lattice.Rule, c lattice.Call) bool {
	for _, r := range rs {
		if lattice.MatchContext(e.ctx, r, c) == lattice.Yes {
			return true
		}
	}
	return false
}

// ruleFor is the narrowest usual allow rule for an intent's call that the
// new rule r covers: for Bash the call as a prefix rule in the file's
// spelling (`Bash(npm run lint *)` or `Bash(npm run lint:*)`), else the
// exact command; for other tools the exact argument.
func (e *engine) ruleFor(r lattice.Rule, c lattice.Call, style string) (lattice.Rule, bool) {
	var cands []string
	switch c.Tool {
	case "Bash", "PowerShell":
		if !strings.ContainsAny(c.Arg, "*()") {
			cands = append(cands, c.Tool+"("+c.Arg+style+")")
		}
		if !strings.ContainsAny(c.Arg, "*") {
			cands = append(cands, c.Tool+"("+c.Arg+")")
		}
	case "WebFetch":
		cands = append(cands, "WebFetch(domain:"+c.Arg+")")
	default:
		if c.Arg != "" && c.Param == "" && !strings.ContainsAny(c.Arg, "*()") {
			cands = append(cands, c.Tool+"("+c.Arg+")")
		}
	}
	for _, t := range cands {
		s := lattice.ParseIn(lattice.Allow, t)
		if s.Malformed != "" || s.Dead() {
			continue
		}
		if lattice.MatchContext(e.ctx, s, c) == lattice.Yes && lattice.CoversAnswer(e.ctx, r, s) == lattice.Yes {
			return s, true
		}
	}
	return lattice.Rule{}, false
}

// counterExample is a call r surely matches and no rule of rules may
// match: one of the witnesses the report already shows when one is such a
// call (they read as real commands), else the lattice's own.
func (e *engine) counterExample(r lattice.Rule, rules []lattice.Rule, witnesses []string) (lattice.Call, bool) {
	w, ans := lattice.FindContext(e.ctx, []lattice.Rule{r}, rules)
	if ans != lattice.Yes {
		return lattice.Call{}, false
	}
	if w.Tool != "Bash" && w.Tool != "PowerShell" {
		return w, true
	}
	for _, s := range witnesses {
		c := lattice.Call{Tool: w.Tool, Arg: s}
		if lattice.MatchContext(e.ctx, r, c) != lattice.Yes {
			continue
		}
		free := true
		for _, s := range rules {
			if lattice.MatchContext(e.ctx, s, c) != lattice.No {
				free = false
				break
			}
		}
		if free {
			return c, true
		}
	}
	return w, true
}

// spellingStyle is how the file writes a prefix rule: " *" or the legacy
// ":*", by majority of the rules that stay — the head's rules other than
// the one replaced, and the base rules the suggestion keeps (" *" on a
// tie, the spelling Claude Code documents).
func spellingStyle(f *fileState, replaced lattice.Rule, keep []lattice.Rule) string {
	legacy, modern := 0, 0
	count := func(r lattice.Rule) {
		switch s := r.Specifier; {
		case strings.HasSuffix(s, ":*"):
			legacy++
		case strings.HasSuffix(s, " *"):
			modern++
		}
	}
	for _, l := range claude.Lists {
		for _, d := range f.head.RulesIn(l) {
			if d.Rule.Text != replaced.Text {
				count(d.Rule)
			}
		}
	}
	for _, k := range keep {
		count(k)
	}
	if legacy > modern {
		return ":*"
	}
	return " *"
}

// lineEdit replaces the JSON string of rule on line n (1-based) of data
// with the strings of rules: on a line of its own each on its own line at
// the same indentation, otherwise inline. It returns the line as written
// and its replacement, or false when the rule is not found there.
func lineEdit(data []byte, n int, rule string, rules []string) (before, after string, ok bool) {
	return lineEditAt(strings.Split(string(data), "\n"), n, rule, rules)
}

// headLines are the lines of f's head version, split once per comparison.
func (e *engine) headLines(f *fileState) []string {
	if e.lines == nil {
		e.lines = map[string][]string{}
	}
	ls, ok := e.lines[f.Path]
	if !ok {
		ls = strings.Split(string(f.Head.Data), "\n")
		e.lines[f.Path] = ls
	}
	return ls
}

// lineEditAt is lineEdit over a file's lines.
func lineEditAt(lines []string, n int, rule string, rules []string) (before, after string, ok bool) {
	if n < 1 || n > len(lines) {
		return "", "", false
	}
	before = strings.TrimSuffix(lines[n-1], "\r")
	q := jsonString(rule)
	i := strings.Index(before, q)
	if i < 0 {
		return "", "", false
	}
	qs := make([]string, len(rules))
	for j, r := range rules {
		qs[j] = jsonString(r)
	}
	trimmed := strings.TrimSpace(before)
	if trimmed == q || trimmed == q+"," {
		indent := before[:len(before)-len(strings.TrimLeft(before, " \t"))]
		tail := strings.TrimPrefix(trimmed, q)
		var b strings.Builder
		for j, s := range qs {
			if j > 0 {
				b.WriteString("\n")
			}
			b.WriteString(indent + s)
			if j < len(qs)-1 {
				b.WriteString(",")
			} else {
				b.WriteString(tail)
			}
		}
		return before, b.String(), true
	}
	return before, before[:i] + strings.Join(qs, ", ") + before[i+len(q):], true
}

// jsonString is s as a JSON string, HTML characters left as they are.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// joinAnd joins phrases as "a", "a and b", "a, b and c".
func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
