package judge

import (
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// bareSkill reports an allow rule naming the whole Skill tool.
func bareSkill(r lattice.Rule) bool {
	return r.List == lattice.Allow && r.Canonical == "Skill" && (!r.HasSpecifier || strings.TrimSpace(r.Specifier) == "*")
}

// skillGrantRating rates a bare allow of Skill by what it lets run: with
// it, Claude Code invokes any skill without the "Execute skill" prompt, and
// a running skill's allowed-tools apply (Claude Code 2.1.328, measured:
// with Skill(x) allowed, allowed-tools: Bash(npm *) let `npm publish` run
// unprompted in the next turn). So the grant is the widest allowed-tools
// of the repository's skills and commands at the head; skills of the user
// or of plugins are not in the repository and may bring their own.
func (e *engine) skillGrantRating(r lattice.Rule) rating.Rating {
	var worst rating.Rating
	var widest []string
	for _, f := range e.files {
		if (f.kind != report.SkillFile && f.kind != report.CommandFile) || f.head == nil {
			continue
		}
		for _, d := range f.head.RulesIn(lattice.Allow) {
			rt := e.rater.RuleContext(e.ctx, d.Rule)
			switch {
			case rt.Risk.Rank() > worst.Risk.Rank() || rt.Wildcard && !worst.Wildcard && rt.Risk.Rank() == worst.Risk.Rank():
				worst, widest = rt, []string{d.Rule.Text + " (" + f.Path + ")"}
			case rt.Risk == worst.Risk && rt.Wildcard == worst.Wildcard:
				widest = append(widest, d.Rule.Text+" ("+f.Path+")")
			}
		}
	}
	const others = "; skills of the user and of plugins may pre-approve more"
	if worst.Risk == "" {
		// No skill of the repository is in the comparison (unchanged ones
		// are not read): what the skills grant is unknown, so the rule is
		// rated as the widest grant, failing closed.
		rt := e.rater.RuleContext(e.ctx, r)
		rt.Basis = "every skill runs without a prompt, with its allowed-tools; no skill of the repository is in this comparison, so Shipgate cannot say what they pre-approve (rated as the widest grant)"
		return rt
	}
	sort.Strings(widest)
	if len(widest) > 3 {
		widest = append(widest[:3], "…")
	}
	out := worst
	out.Evidence = rating.Redact(r)
	out.ExecTier = false
	out.Basis = "every skill runs without a prompt, and a running skill's allowed-tools apply: the widest the repository's skills pre-approve is " +
		strings.Join(widest, ", ") + " (" + worst.Basis + ")" + others
	return out
}
