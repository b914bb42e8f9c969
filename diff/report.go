// Package diff turns two versions of a repository's agent-config files into
// a Report a reviewer can act on: it parses Claude Code settings and
// .mcp.json strictly with positions, lists what changed (rule by rule and
// setting by setting), decides with the lattice whether each change widens,
// narrows or respells what the agent may do without a prompt, computes the
// effective delta across the settings files of a project (deny, then ask,
// then allow), rates every grant, and raises findings with check IDs and
// actions. It is pure: no network, no clock, no file system — the CLI, the
// App and the tests all call Compare.
package diff

import (
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
)

// Schema names the JSON contract of a Report.
const Schema = "shipgate.report/v1"

// Decision is the verdict of a Report: the strongest action among its
// findings ("allow" when none holds the merge).
type Decision string

const (
	DecisionAllow         Decision = "allow"
	DecisionRequireReview Decision = "require_review"
	DecisionBlock         Decision = "block"
)

// Report is the outcome of comparing a change. Its JSON form is a stable
// contract (DESIGN.md section 4): schema, decision, files, changes, findings.
type Report struct {
	Schema   string   `json:"schema"`
	Decision Decision `json:"decision"`
	// CheckedAgainst names the versions of the agents whose measured
	// behaviour the verdict was checked against: {"claude-code": "2.1.328"}
	// (lattice.ClaudeCodeVersion). Additive to shipgate.report/v1.
	CheckedAgainst map[string]string `json:"checked_against"`
	Files          []FileStatus      `json:"files"`
	Changes        []Change          `json:"changes"`
	Findings       []Finding         `json:"findings"`
	// Suggestions are narrower replacements for expanding allow rules,
	// each proved by the lattice (suggest.go); additive to
	// shipgate.report/v1, documented in docs/checks.md.
	Suggestions []Suggestion `json:"suggestions"`
}

// File statuses.
const (
	StatusCompared    = "compared"
	StatusAdded       = "added"
	StatusDeleted     = "deleted"
	StatusUnchanged   = "unchanged"
	StatusParseFailed = "parse_failed"
	StatusTooLarge    = "too_large"
)

// FileStatus says what the run did with one file.
type FileStatus struct {
	Path string `json:"path"`
	// Agent names the coding agent that reads the file (claude-code,
	// codex, gemini-cli, copilot-cli, cursor, vscode, opencode; shipgate
	// for the policy file).
	Agent  string `json:"agent"`
	Status string `json:"status"`
	// Detail explains a status that is not a plain comparison (a parse
	// error, the size of a file too large to read).
	Detail string `json:"-"`
	// Rows is the number of changes on this file.
	Rows int `json:"-"`
}

// Change directions.
const (
	DirAdded     = "added"
	DirRemoved   = "removed"
	DirWidened   = "widened"
	DirNarrowed  = "narrowed"
	DirRespelled = "respelled"
	DirCovered   = "covered"
	DirMoved     = "moved"
	DirChanged   = "changed"
)

// Change kinds.
const (
	KindRule       = "permission_rule"
	KindMode       = "permission_mode"
	KindSetting    = "setting"
	KindDirectory  = "additional_directory"
	KindHook       = "hook"
	KindEnv        = "env"
	KindHelper     = "command_helper"
	KindSandbox    = "sandbox"
	KindPlugin     = "plugin"
	KindMCPServer  = "mcp_server"
	KindMCPApprove = "mcp_approval"
	KindFile       = "file"
)

// Change is one row: something that differs between base and head, with
// the lattice's judgement of whether it widens what the agent may do.
type Change struct {
	Path string `json:"path"`
	// Agent names the coding agent whose permissions the row concerns.
	Agent     string `json:"agent"`
	Kind      string `json:"kind"`
	List      string `json:"list"`
	Direction string `json:"direction"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Expands   bool   `json:"expands"`
	// Access and Risk are the rating of what the row grants (rating.Rate):
	// typed, so a front end never parses them back from strings.
	Access    rating.Access `json:"access"`
	Risk      rating.Risk   `json:"risk"`
	Line      int           `json:"line"`
	Witnesses []string      `json:"witnesses"`
	Why       string        `json:"why"`

	// HeadLine is the line of the head file a reviewer's annotation goes
	// on (0 when the change has no place at head).
	HeadLine int `json:"-"`
}

// Finding is one check that fired: what it is, how strongly it holds the
// merge, where, and why.
type Finding struct {
	CheckID string `json:"check_id"`
	// Agent names the coding agent whose permissions the finding concerns.
	Agent string `json:"agent"`
	// Action is how strongly the finding holds the merge (the catalogue's
	// default, raised by the policy); Risk its severity.
	Action   policy.Action `json:"action"`
	Risk     rating.Risk   `json:"risk"`
	Path     string        `json:"path"`
	Line     int           `json:"line"`
	Evidence string        `json:"evidence"`
	Message  string        `json:"message"`

	// HeadLine is the head-file line to annotate (for a removal, the line
	// of the list it left, or 1).
	HeadLine int `json:"-"`
	// Base says Line is a line of the base version (what the finding is
	// about was removed); renderers say so next to the line.
	Base bool `json:"-"`
	// Title is a short one-line summary for annotations.
	Title string `json:"-"`
	// Witnesses are concrete calls the change lets through.
	Witnesses []string `json:"-"`
	// Suggestion is a narrower rule the lattice proved, when there is one.
	Suggestion string `json:"-"`
	// Key identifies the finding independently of line numbers (SARIF
	// fingerprints, approvals bound to a delta).
	Key string `json:"-"`
	// Cleared, when set, names the approvals that clear the finding (the
	// App's team approvals): it stays in the report but no longer holds
	// the merge.
	Cleared string `json:"-"`
}

// Blocking reports whether the finding's action holds the merge (whether
// or not an approval cleared it).
func (f Finding) Blocking() bool {
	return f.Action.Rank() >= policy.RequireReview.Rank()
}

// Decide computes the decision from findings: the strongest action among
// those no approval cleared.
func Decide(fs []Finding) Decision { return decide(fs) }

// decide computes the decision from the findings.
func decide(fs []Finding) Decision {
	best := 0
	for _, f := range fs {
		if f.Cleared != "" {
			continue
		}
		if r := f.Action.Rank(); r > best {
			best = r
		}
	}
	switch best {
	case policy.Block.Rank():
		return DecisionBlock
	case policy.RequireReview.Rank():
		return DecisionRequireReview
	}
	return DecisionAllow
}

// CheckedAgainst is the Report.CheckedAgainst of a report that reads no
// other agent's files: the Claude Code version the lattice's semantics
// were measured on. A report that reads files of other agents adds, per
// agent, the version or documentation its adapter was checked against
// (checkedAgainst).
func CheckedAgainst() map[string]string {
	return map[string]string{"claude-code": lattice.ClaudeCodeVersion}
}

// checkedAgainst is CheckedAgainst plus every agent the files name.
func checkedAgainst(fs []FileStatus) map[string]string {
	out := CheckedAgainst()
	for _, f := range fs {
		if a := adapterFor(f.Agent); a != nil {
			out[f.Agent] = a.CheckedAgainst()
		}
	}
	return out
}

// checkedAgainstText names every agent version a report was checked
// against, for the footers: "Claude Code 2.1.328, Codex CLI 0.169.0".
// Claude Code is always named: its semantics decide the engine's own
// rules and the policy's intents.
func CheckedAgainstText(r Report) string {
	ca := r.CheckedAgainst
	if len(ca) == 0 {
		ca = CheckedAgainst()
	}
	names := make([]string, 0, len(ca))
	for n := range ca {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := agentRank(names[i]), agentRank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = AgentDisplay(n) + " " + ca[n]
	}
	return strings.Join(parts, ", ")
}

// agentRank orders agents in reports: the registry's order (Claude Code
// first), Shipgate's own policy last.
func agentRank(name string) int {
	for i, a := range adapters {
		if a.Agent() == name {
			return i
		}
	}
	return len(adapters)
}
