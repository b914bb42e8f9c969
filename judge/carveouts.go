package judge

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// carveOuts judges gitignore carve-outs (`Read(!p)`, `Edit(!p)`) in deny and
// ask lists. A carve-out excepts the paths it matches from the rules of the
// same tool listed before it in the same list of the same file; it cannot
// reach rules anchored with /, ~/ or // nor another carve-out. It lifts a
// restriction when it now excepts paths from a rule the base declared that
// it did not except them from at the base. Unlike the original tool, which
// assumed a carve-out reaches every earlier rule, Shipgate asks the lattice
// whether the two patterns share a path, and names one.
func (e *engine) carveOuts(rs *ruleSet) {
	f := rs.f
	for _, l := range []lattice.List{lattice.Deny, lattice.Ask} {
		baseTexts := map[string]bool{}
		for _, r := range f.base.RulesIn(l) {
			baseTexts[r.Rule.Text] = true
		}
		baseReach := map[string]map[string]bool{}
		for _, c := range f.base.RulesIn(l) {
			if c.Rule.Negated {
				baseReach[c.Rule.Text] = map[string]bool{}
				for _, t := range reach(f.base.RulesIn(l), c) {
					baseReach[c.Rule.Text][t.Rule.Text] = true
				}
			}
		}
		addedEv := map[string]*event{}
		for _, a := range rs.added[l] {
			addedEv[a.text()] = a
		}
		for _, c := range f.head.RulesIn(l) {
			if !c.Rule.Negated {
				continue
			}
			reached := reach(f.head.RulesIn(l), c)
			var lifted []string
			var witness string
			for _, t := range reached {
				if !baseTexts[t.Rule.Text] {
					continue
				}
				if br, ok := baseReach[c.Rule.Text]; ok && br[t.Rule.Text] {
					continue
				}
				lifted = append(lifted, t.Rule.Text)
				if witness == "" {
					if call, ans := lattice.FindContext(e.ctx, []lattice.Rule{positive(c.Rule), t.Rule}, nil); ans == lattice.Yes {
						witness = call.String()
					}
				}
			}
			var from []string
			for _, t := range reached {
				from = append(from, t.Rule.Text)
			}
			ev := addedEv[c.Rule.Text]
			switch {
			case len(lifted) == 0 && ev != nil && len(reached) == 0:
				ev.why = "a carve-out listed before every " + string(l) + " rule whose paths it shares in this file, so it excepts nothing"
			case len(lifted) == 0 && ev != nil:
				ev.why = fmt.Sprintf("a carve-out: paths it matches are excepted from the earlier %s rules it follows in this file (%s); it lifts no %s the base declared", l, strings.Join(from, ", "), stopNoun(l))
			case len(lifted) > 0:
				why := fmt.Sprintf("a carve-out: it now excepts paths from %s, declared at the base, so part of a %s is lifted", strings.Join(lifted, ", "), stopNoun(l))
				var wit []string
				if witness != "" {
					wit = []string{witness}
				}
				fd := e.carveFinding(f, l, c, lifted, witness)
				if ev != nil {
					ev.expands, ev.why, ev.witnesses = true, why, wit
					ev.findings = append(ev.findings, fd)
					continue
				}
				// The carve-out was there at the base and now follows a rule
				// it did not: a reorder that widens.
				e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindRule, List: string(l), Direction: report.DirWidened,
					Before: c.Rule.Text, After: c.Rule.Text, Expands: true, Access: "none", Risk: "low", Line: c.Line, HeadLine: c.Line,
					Witnesses: wit, Why: why + " (it was reordered)"})
				e.finding(fd)
			}
		}
		for _, r := range rs.removed[l] {
			if r.decl.Rule.Negated && r.why == "" {
				r.why = "removes a carve-out; the paths it excepted are " + map[lattice.List]string{lattice.Deny: "denied", lattice.Ask: "asked about"}[l] + " again"
			}
		}
	}
}

// carveFinding raises DENY-REMOVED (or ASK-REMOVED) for a carve-out that
// lifts part of a restriction.
func (e *engine) carveFinding(f *fileState, l lattice.List, c claude.RuleDecl, lifted []string, witness string) report.Finding {
	check := report.CheckDenyRemoved
	if l == lattice.Ask {
		check = report.CheckAskRemoved
	}
	msg := fmt.Sprintf("%s: %s in %s excepts paths from %s", l, c.Rule.Text, f.Path, strings.Join(lifted, ", "))
	if witness != "" {
		msg += fmt.Sprintf(": `%s` is no longer %s", witness, map[lattice.List]string{lattice.Deny: "denied", lattice.Ask: "asked about"}[l])
	}
	var wit []string
	if witness != "" {
		wit = []string{witness}
	}
	return report.Finding{CheckID: check, Path: f.Path, Line: c.Line, HeadLine: c.Line, Evidence: rating.Redact(c.Rule),
		Message: msg + ".", Title: "carve-out " + c.Rule.Text, Witnesses: wit,
		Key: check + "|" + f.Path + "|carve|" + c.Rule.Text}
}

// reach returns the earlier rules of a list that a carve-out excepts paths
// from: same tool, not a carve-out, not anchored, sharing a path with it.
func reach(rules []claude.RuleDecl, c claude.RuleDecl) []claude.RuleDecl {
	pos := positive(c.Rule)
	var out []claude.RuleDecl
	for _, t := range rules {
		if t.Index >= c.Index {
			break
		}
		if t.Rule.Negated || t.Rule.Canonical != c.Rule.Canonical || anchored(t.Rule.Specifier) {
			continue
		}
		if _, ans := lattice.Find([]lattice.Rule{pos, t.Rule}, nil); ans == lattice.No {
			continue
		}
		out = append(out, t)
	}
	return out
}

// positive is the pattern a carve-out excepts: the rule without its "!".
func positive(r lattice.Rule) lattice.Rule {
	return lattice.ParseIn(r.List, r.Canonical+"("+strings.TrimPrefix(r.Specifier, "!")+")")
}

func anchored(spec string) bool {
	return strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "~/")
}
