// Package policy is a repository's (and an organisation's) tuning of the
// gate: which extra files to watch, which checks to raise, extra
// exec-equivalent launchers. It owns the policy file's types and the
// raise-only rule: a policy may make a check stricter than the engine's
// default, never looser.
package policy

import "strings"

// Action is what a finding asks of the pull request.
type Action string

const (
	// Advisory findings are shown but do not change the decision.
	Advisory Action = "advisory"
	// RequireReview findings hold the merge until a reviewer approves.
	RequireReview Action = "require_review"
	// Block findings fail the check.
	Block Action = "block"
)

// Rank orders actions: advisory 1, require_review 2, block 3 (0 unknown).
func (a Action) Rank() int {
	switch a {
	case Advisory:
		return 1
	case RequireReview:
		return 2
	case Block:
		return 3
	}
	return 0
}

// ParseAction reads an action name.
func ParseAction(s string) (Action, bool) {
	a := Action(s)
	return a, a.Rank() > 0
}

// Policy is a parsed policy file. The zero Policy (and a nil *Policy) is
// the engine's defaults.
type Policy struct {
	Version  int                  `yaml:"version" json:"version"`
	Paths    Paths                `yaml:"paths,omitempty" json:"paths,omitempty"`
	Checks   map[string]CheckRule `yaml:"checks,omitempty" json:"checks,omitempty"`
	ExecTier ExecTier             `yaml:"exec_tier,omitempty" json:"exec_tier,omitempty"`
}

// Paths lists extra files to review and files to leave alone.
type Paths struct {
	// Watch are extra agent-config files to review, as globs (`**` crosses
	// directories), read as Claude Code settings when they end in .json.
	Watch []string `yaml:"watch,omitempty" json:"watch,omitempty"`
	// Ignore are paths never reviewed, as globs.
	Ignore []string `yaml:"ignore,omitempty" json:"ignore,omitempty"`
}

// CheckRule raises one check: its action, its risk, or both.
type CheckRule struct {
	Action Action `yaml:"action,omitempty" json:"action,omitempty"`
	Risk   string `yaml:"risk,omitempty" json:"risk,omitempty"`
}

// ExecTier extends the exec-equivalent launcher table.
type ExecTier struct {
	Extra []string `yaml:"extra,omitempty" json:"extra,omitempty"`
}

// ActionFor returns the action of a check: the policy's when it is
// stricter than the default, the default otherwise (raise-only).
func (p *Policy) ActionFor(checkID string, def Action) Action {
	if p == nil {
		return def
	}
	if r, ok := p.Checks[checkID]; ok && r.Action.Rank() > def.Rank() {
		return r.Action
	}
	return def
}

// RiskRank is the order of risk names: low 1 … critical 4.
func RiskRank(s string) int {
	switch s {
	case "low":
		return 1
	case "medium":
		return 2
	case "high":
		return 3
	case "critical":
		return 4
	}
	return 0
}

// RiskFor returns the risk of a finding: the policy's when it is higher.
func (p *Policy) RiskFor(checkID, def string) string {
	if p == nil {
		return def
	}
	if r, ok := p.Checks[checkID]; ok && RiskRank(r.Risk) > RiskRank(def) {
		return r.Risk
	}
	return def
}

// ExtraLaunchers returns the policy's extra exec-tier prefixes.
func (p *Policy) ExtraLaunchers() []string {
	if p == nil {
		return nil
	}
	return p.ExecTier.Extra
}

// Ignored reports whether the policy leaves a path alone.
func (p *Policy) Ignored(path string) bool {
	if p == nil {
		return false
	}
	for _, g := range p.Paths.Ignore {
		if MatchGlob(g, path) {
			return true
		}
	}
	return false
}

// Watched reports whether the policy adds a path to the reviewed files.
func (p *Policy) Watched(path string) bool {
	if p == nil {
		return false
	}
	for _, g := range p.Paths.Watch {
		if MatchGlob(g, path) {
			return true
		}
	}
	return false
}

// MatchGlob matches a slash-separated path against a glob where `*` and
// `?` stay inside one segment and a `**` segment spans any number of them.
func MatchGlob(glob, path string) bool {
	return matchSegs(strings.Split(strings.Trim(glob, "/"), "/"), strings.Split(strings.Trim(path, "/"), "/"))
}

func matchSegs(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchSegs(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 || !matchSeg(g[0], p[0]) {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// matchSeg matches one segment: `*` any run, `?` one rune.
func matchSeg(g, s string) bool {
	gr, sr := []rune(g), []rune(s)
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		for i < len(gr) {
			switch gr[i] {
			case '*':
				for k := j; k <= len(sr); k++ {
					if rec(i+1, k) {
						return true
					}
				}
				return false
			case '?':
				if j >= len(sr) {
					return false
				}
			default:
				if j >= len(sr) || gr[i] != sr[j] {
					return false
				}
			}
			i++
			j++
		}
		return j == len(sr)
	}
	return rec(0, 0)
}
