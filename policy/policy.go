// Package policy is a repository's (and an organisation's) tuning of the
// gate: which extra files to watch and which to ignore, which checks to
// raise, extra exec-equivalent launchers, a ceiling no allow rule may
// exceed, intents the settings must keep, and the teams whose approval
// clears findings. It owns the policy file's types, its strict loading
// with positions, the merge of an organisation default with a repository
// file, and the raise-only rule: a policy may make a check stricter than
// the engine's default, never looser.
package policy

import (
	"strings"
)

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

// Policy is a parsed policy file (version 1). The zero Policy (and a nil
// *Policy) is the engine's defaults.
type Policy struct {
	// Version is the policy format version; only 1 exists.
	Version int `yaml:"version" json:"version" jsonschema:"required,enum=1,description=The policy format version. Write 1."`
	// Paths adds agent-config files to review and leaves others alone.
	Paths Paths `yaml:"paths,omitempty" json:"paths,omitempty" jsonschema:"description=Extra files to review and files to leave alone."`
	// Checks raises checks by ID: their action, their risk, or both.
	Checks map[string]CheckRule `yaml:"checks,omitempty" json:"checks,omitempty" jsonschema:"description=Raise a check's action or risk\\, by check ID (see docs/checks.md). A policy may only raise: a lower value is an error and the default applies."`
	// ExecTier extends the exec-equivalent launcher table.
	ExecTier ExecTier `yaml:"exec_tier,omitempty" json:"exec_tier,omitempty" jsonschema:"description=Extra launcher prefixes rated like the exec-equivalent table (wider rules included)."`
	// Ceiling bounds what allow rules may grant and what deny rules must keep.
	Ceiling *Ceiling `yaml:"ceiling,omitempty" json:"ceiling,omitempty" jsonschema:"description=Rules in Claude Code's rule language bounding every allow rule\\, and rules that must stay denied."`
	// Intent lists calls that must stay allowed, asked or denied.
	Intent Intent `yaml:"intent,omitempty" json:"intent,omitempty" jsonschema:"description=Calls that must keep their outcome: run without a prompt\\, prompt\\, or be denied."`
	// Reviewers names the teams whose approval clears findings.
	Reviewers Reviewers `yaml:"reviewers,omitempty" json:"reviewers,omitempty" jsonschema:"description=Teams (org/team) whose approving review clears findings."`

	// Source names where the policy was read, for messages.
	Source string `yaml:"-" json:"-"`
	// Ceilings holds, after Merge, every ceiling that applies (the
	// organisation's and the repository's): each one must hold.
	Ceilings []Ceiling `yaml:"-" json:"-"`
}

// Item is one string of a policy list with its position in the file, so a
// finding or an error can point at it.
type Item struct {
	Value  string
	Line   int
	Column int
	// Source is the policy file the item was read from.
	Source string
}

// Paths lists extra files to review and files to leave alone.
type Paths struct {
	// Watch are extra agent-config files to review, as globs (`*` and `?`
	// stay in one segment, `**` crosses directories), read as Claude Code
	// settings.
	Watch []Item `yaml:"watch,omitempty" json:"watch,omitempty" jsonschema:"description=Extra Claude Code settings files to review\\, as globs (** crosses directories)."`
	// Ignore are paths never reviewed, as globs.
	Ignore []Item `yaml:"ignore,omitempty" json:"ignore,omitempty" jsonschema:"description=Paths never reviewed\\, as globs."`
}

// CheckRule raises one check: its action, its risk, or both.
type CheckRule struct {
	Action Action `yaml:"action,omitempty" json:"action,omitempty" jsonschema:"enum=advisory,enum=require_review,enum=block,description=The action: advisory\\, require_review or block."`
	Risk   string `yaml:"risk,omitempty" json:"risk,omitempty" jsonschema:"enum=low,enum=medium,enum=high,enum=critical,description=The risk: low\\, medium\\, high or critical."`
	// Agents, when set, scopes the raise to findings about these agents
	// (claude-code, codex, gemini-cli, copilot-cli, cursor, vscode,
	// opencode); other agents' findings keep the default.
	Agents []Item `yaml:"agents,omitempty" json:"agents,omitempty" jsonschema:"description=Raise the check only for findings about these agents (claude-code\\, codex\\, gemini-cli\\, copilot-cli\\, cursor\\, vscode\\, opencode). Without it the raise applies to every agent."`
	// Line is where the rule is written.
	Line int `yaml:"-" json:"-"`
}

// ExecTier extends the exec-equivalent launcher table.
type ExecTier struct {
	Extra []Item `yaml:"extra,omitempty" json:"extra,omitempty" jsonschema:"description=Launcher prefixes such as 'npm exec' or 'yarn dlx'. A Bash allow rule ending in a wildcard after one (or strictly wider) is rated admin/critical and blocks."`
}

// Ceiling bounds the settings: every allow rule must be covered by one of
// Allow, and every rule of MustDeny must stay covered by a deny rule.
type Ceiling struct {
	Allow    []Item `yaml:"allow,omitempty" json:"allow,omitempty" jsonschema:"description=Allow rules (Claude Code syntax). Every allow rule of a changed settings file must be covered by one of them."`
	MustDeny []Item `yaml:"must_deny,omitempty" json:"must_deny,omitempty" jsonschema:"description=Rules (Claude Code syntax) that must stay covered by the deny rules of the project."`
	Action   Action `yaml:"action,omitempty" json:"action,omitempty" jsonschema:"enum=require_review,enum=block,description=The action of a ceiling finding (default block)."`
	// HasAllow is set when the ceiling restricts allow rules at all (an
	// empty allow list with this set permits no allow rule).
	HasAllow bool `yaml:"-" json:"-"`
	// Source names the policy the ceiling comes from.
	Source string `yaml:"-" json:"-"`
}

// Intent lists calls whose outcome must not change. A call is a Bash
// command (`npm test`) or a tool call written Tool(argument) (`Read(.env)`,
// `WebFetch(evil.example.com)`, `mcp__github__delete_repository`).
type Intent struct {
	Allowed []Item `yaml:"allowed,omitempty" json:"allowed,omitempty" jsonschema:"description=Calls that must run without a prompt."`
	Asked   []Item `yaml:"asked,omitempty" json:"asked,omitempty" jsonschema:"description=Calls that must prompt."`
	Denied  []Item `yaml:"denied,omitempty" json:"denied,omitempty" jsonschema:"description=Calls that must be denied."`
	Action  Action `yaml:"action,omitempty" json:"action,omitempty" jsonschema:"enum=require_review,enum=block,description=The action of a violated intent (default block)."`
	// Agents names the agents whose effective permissions the calls are
	// checked against (default: claude-code only).
	Agents []Item `yaml:"agents,omitempty" json:"agents,omitempty" jsonschema:"description=The agents whose effective permissions the calls are checked against (default claude-code). For other agents a Bash command is a shell call\\, Read(path)/Edit(path)/Write(path) a file call\\, WebFetch(url) a fetch."`
}

// Reviewers names the teams whose approval clears findings.
type Reviewers struct {
	Review []Item `yaml:"review,omitempty" json:"review,omitempty" jsonschema:"description=Teams (org/team) whose approving review clears require_review findings."`
	Block  []Item `yaml:"block,omitempty" json:"block,omitempty" jsonschema:"description=Teams (org/team) whose approving review also clears block findings."`
}

// ActionFor returns the action of a check: the policy's when it is
// stricter than the default, the default otherwise (raise-only). A raise
// scoped to some agents does not apply here (see ActionForAgent).
func (p *Policy) ActionFor(checkID string, def Action) Action {
	return p.ActionForAgent(checkID, "", def)
}

// ActionForAgent is ActionFor for a finding about one agent: a raise
// scoped with agents applies only to the agents it names.
func (p *Policy) ActionForAgent(checkID, agent string, def Action) Action {
	if p == nil {
		return def
	}
	if r, ok := p.Checks[checkID]; ok && r.AppliesTo(agent) && r.Action.Rank() > def.Rank() {
		return r.Action
	}
	return def
}

// AppliesTo reports whether a check rule applies to findings about an
// agent: always without agents, else when it names the agent.
func (r CheckRule) AppliesTo(agent string) bool {
	if len(r.Agents) == 0 {
		return true
	}
	for _, a := range r.Agents {
		if a.Value == agent {
			return true
		}
	}
	return false
}

// IntentAgents returns the agents the intents are checked against:
// intent.agents, claude-code by default.
func (p *Policy) IntentAgents() []string {
	if p == nil || len(p.Intent.Agents) == 0 {
		return []string{"claude-code"}
	}
	return values(p.Intent.Agents)
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
	return p.RiskForAgent(checkID, "", def)
}

// RiskForAgent is RiskFor for a finding about one agent (a raise scoped
// with agents applies only to the agents it names).
func (p *Policy) RiskForAgent(checkID, agent, def string) string {
	if p == nil {
		return def
	}
	if r, ok := p.Checks[checkID]; ok && r.AppliesTo(agent) && RiskRank(r.Risk) > RiskRank(def) {
		return r.Risk
	}
	return def
}

// ExtraLaunchers returns the policy's extra exec-tier prefixes.
func (p *Policy) ExtraLaunchers() []string {
	if p == nil {
		return nil
	}
	return values(p.ExecTier.Extra)
}

// AllCeilings returns every ceiling that applies.
func (p *Policy) AllCeilings() []Ceiling {
	if p == nil {
		return nil
	}
	if len(p.Ceilings) > 0 {
		return p.Ceilings
	}
	if p.Ceiling != nil {
		c := *p.Ceiling
		if c.Source == "" {
			c.Source = p.Source
		}
		return []Ceiling{c}
	}
	return nil
}

// Ignored reports whether the policy leaves a path alone.
func (p *Policy) Ignored(path string) bool {
	if p == nil {
		return false
	}
	for _, g := range p.Paths.Ignore {
		if MatchGlob(g.Value, path) {
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
		if MatchGlob(g.Value, path) {
			return true
		}
	}
	return false
}

// values returns the strings of items.
func values(items []Item) []string {
	out := make([]string, 0, len(items))
	for _, i := range items {
		out = append(out, i.Value)
	}
	return out
}

// Teams returns the team slugs of items ("org/team").
func Teams(items []Item) []string { return values(items) }

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
