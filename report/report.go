package report

import (
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

func Decide(fs []Finding) Decision {
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

// Suggestion is a replacement for an added or widened allow rule that the
// lattice proved strictly narrower than the rule it replaces, while still
// matching everything the base allowed through that rule (for a widening)
// and every call the policy's intents say must run without a prompt. It is
// a line edit of the head file: After replaces line Line of Path (whose
// text at the head is Before), so a front end can apply it without
// re-parsing — the App posts it as a pull-request suggested change.
type Suggestion struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Before string `json:"before"`
	After  string `json:"after"`
	Why    string `json:"why"`
	// Rule is the allow rule the suggestion replaces; Rules the rules it
	// suggests instead (additive to the {path, line, before, after, why}
	// contract).
	Rule  string   `json:"rule"`
	Rules []string `json:"rules"`
	// Restores says the suggested rules are exactly the base rules the
	// new rule replaced (no policy intent needed more): applying it
	// leaves the file's allow rules as the base had them, so the finding
	// on its line goes.
	Restores bool `json:"-"`
}

// SuggestionsClear reports whether applying every suggestion of the report
// clears the run: each finding that holds the merge (and no approval
// cleared) is an allow-rule finding on a line a suggestion rewrites, and
// that suggestion only restores the base's rules (Restores). A suggestion
// that narrows one rule while another finding holds the merge, or that
// keeps a policy intent's new grant, is no way out, and the check run does
// not offer it as one.
func (r Report) SuggestionsClear() bool {
	if len(r.Suggestions) == 0 {
		return false
	}
	return r.HoldingBeyondSuggestions() == 0
}

// restoredBy reports whether a restoring suggestion of the report
// rewrites the allow rule a finding is about (its message names the rule:
// "allow: RULE in PATH").
func (r Report) restoredBy(f Finding) bool {
	if f.CheckID != CheckAllowExpanded && f.CheckID != CheckWildcardAllow {
		return false
	}
	for _, s := range r.Suggestions {
		if s.Restores && s.Path == f.Path && s.Line == f.Line && strings.HasPrefix(f.Message, "allow: "+s.Rule+" in ") {
			return true
		}
	}
	return false
}

// holdingBeyondSuggestions counts the findings that hold the merge and
// that no suggestion of the report clears.
func (r Report) HoldingBeyondSuggestions() int {
	n := 0
	for _, f := range r.Findings {
		if f.Cleared == "" && f.Blocking() && !r.restoredBy(f) {
			n++
		}
	}
	return n
}
