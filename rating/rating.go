// Package rating rates what a declaration lets an agent do: the access and
// risk of a permission rule or a settings value, and whether a Bash allow
// rule falls in the exec-equivalent tier (a launcher that runs caller-chosen
// code). It owns the tier table of the seed specification and the settings
// rating table; it decides nothing about widening or narrowing (that is the
// lattice's job) and never changes what Covers answers.
package rating

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shipgate-app/shipgate/lattice"
)

// Access is the kind of reach a declaration grants.
type Access string

const (
	AccessNone     Access = "none"
	AccessRead     Access = "read"
	AccessWrite    Access = "write"
	AccessExecute  Access = "execute"
	AccessExternal Access = "external"
	AccessAdmin    Access = "admin"
	AccessUnknown  Access = "unknown"
)

// Risk is a declaration's severity.
type Risk string

const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// Rank orders risks: low 1 … critical 4 (0 for an unknown value).
func (r Risk) Rank() int {
	switch r {
	case RiskLow:
		return 1
	case RiskMedium:
		return 2
	case RiskHigh:
		return 3
	case RiskCritical:
		return 4
	}
	return 0
}

// ParseRisk reads a risk name.
func ParseRisk(s string) (Risk, bool) {
	r := Risk(s)
	return r, r.Rank() > 0
}

// Class is a tool's class for rating.
type Class string

const (
	ClassEverything Class = "everything"
	ClassExecution  Class = "execution"
	ClassNetwork    Class = "network"
	ClassWrite      Class = "write"
	ClassRead       Class = "read"
	ClassUnknown    Class = "unknown"
)

// ToolClass classifies a canonical tool name. PowerShell and Monitor are
// execution tools (the original tool rated PowerShell as unknown, a gap).
func ToolClass(tool string) Class {
	switch tool {
	case "*":
		return ClassEverything
	case "Bash", "PowerShell", "Monitor":
		return ClassExecution
	case "WebFetch", "WebSearch":
		return ClassNetwork
	case "Edit", "Write", "NotebookEdit", "MultiEdit":
		return ClassWrite
	case "Read", "Glob", "Grep", "LS", "NotebookRead", "LSP":
		// (LSP is governed by Read path rules, documented: code
		// intelligence over files the agent may read.)
		return ClassRead
	}
	return ClassUnknown
}

// Rating is what a declaration grants.
type Rating struct {
	Access Access
	Risk   Risk
	// Wildcard says the allow rule is wildcard-shaped: it matches every
	// target of its kind (a bare tool, an argument starting with a star,
	// WebFetch(domain:*)), or it is an exec-tier rule.
	Wildcard bool
	// ExecTier says the rule is in the exec-equivalent tier.
	ExecTier bool
	// Evidence is the rule as a check may print it: the canonical table
	// text for a tier rule, the rule itself for a whole tool, otherwise the
	// tool with its arguments redacted.
	Evidence string
	// Basis explains the rating in a few words.
	Basis string
}

// Rater rates rules; its zero value uses the seed's exec tier table. Extra
// launcher prefixes (from a repository's policy) join the table and are
// rated exactly like its entries, wider rules included.
type Rater struct {
	Extra []string
	// Budget bounds the work of one tier decision across the table, in the
	// lattice's steps (DefaultTierBudget when zero); a decision that needs
	// more fails closed into the tier.
	Budget int
}

// Rule rates one permission rule in its list. Ask and deny rules restrict,
// so they are rated (none, low) whatever they say.
func (rt Rater) Rule(r lattice.Rule) Rating { return rt.RuleContext(context.Background(), r) }

// RuleContext is Rule under a context: the tier decision draws on the
// context's lattice.Budget and stops when the context is done, failing
// closed (the rule is rated as the tier).
func (rt Rater) RuleContext(ctx context.Context, r lattice.Rule) Rating {
	if r.List != lattice.Allow {
		return Rating{Access: AccessNone, Risk: RiskLow, Evidence: Redact(r), Basis: "a restriction"}
	}
	if r.Family == lattice.FamilyToolGlob {
		// Claude Code 2.1.166+ skips `*`, `B*` and `mcp__*` in allow lists,
		// but the author meant every matching tool: rate what was meant.
		rt := wholeRating(ClassEverything)
		rt.Wildcard, rt.Evidence = true, r.Text
		rt.Basis = "a tool-name glob: current Claude Code skips it in allow lists, but it reads as every matching tool"
		return rt
	}
	if r.Dead() {
		return Rating{Access: AccessNone, Risk: RiskLow, Evidence: Redact(r), Basis: "matches nothing"}
	}
	if why, ok := lattice.ToolsWithoutRule()[r.Canonical]; ok && (!r.HasSpecifier || strings.TrimSpace(r.Specifier) == "*") {
		// Claude Code runs the tool with no rule: a bare allow of it
		// grants nothing new (not a wildcard of anything).
		return Rating{Access: AccessNone, Risk: RiskLow, Evidence: Redact(r),
			Basis: r.Canonical + " runs with no rule in Claude Code " + lattice.ClaudeCodeVersion + " (" + why + "): allowing it grants nothing new"}
	}
	if r.Canonical == "WebSearch" {
		// WebSearch takes no specifier. It asks with no rule and, allowed,
		// runs the model provider's web search (measured on 2.1.328): the
		// agent's query text leaves the machine and results come back, but
		// no page or host of its choosing is fetched (WebFetch does that).
		return Rating{Access: AccessExternal, Risk: RiskMedium, Evidence: Redact(r),
			Basis: "web searches run without a prompt: the agent's queries go to the model provider's search (no page of its choosing is fetched)"}
	}
	class := ToolClass(r.Canonical)
	if !strings.HasPrefix(strings.TrimSpace(r.Specifier), "*") || !r.HasSpecifier {
		// A rule starting with a star matches every command's first word and
		// is rated as a wildcard below (same risk, `<wildcard>` evidence).
		if t, ok := rt.TierContext(ctx, r); ok {
			basis := "leaves the code, command or package that " + t.Launcher + " runs selectable by the caller"
			if t.Undecided && t.Launcher == "" {
				basis = "too complex to decide whether it leaves a launcher's operand selectable (rated as the exec tier, failing closed): write the launcher rules out plainly"
			} else if !t.Sure {
				basis += " (in one of its readings)"
			}
			return Rating{Access: AccessAdmin, Risk: RiskCritical, Wildcard: true, ExecTier: true, Evidence: t.Display, Basis: basis}
		}
	}
	if wildcardShaped(ctx, r) {
		rt := wholeRating(class)
		rt.Wildcard = true
		rt.Evidence = Redact(r)
		return rt
	}
	if class == ClassRead {
		return Rating{Access: AccessRead, Risk: RiskLow, Evidence: Redact(r), Basis: "scoped read"}
	}
	return Rating{Access: AccessExecute, Risk: RiskMedium, Evidence: Redact(r), Basis: "scoped " + string(class) + " rule"}
}

// wholeRating is the rating of a rule matching every target of its tool.
func wholeRating(c Class) Rating {
	switch c {
	case ClassEverything, ClassExecution:
		return Rating{Access: AccessAdmin, Risk: RiskCritical, Basis: "matches any command of this kind"}
	case ClassRead:
		return Rating{Access: AccessRead, Risk: RiskLow, Basis: "matches every target of this kind (read-only)"}
	}
	return Rating{Access: AccessExecute, Risk: RiskHigh, Basis: "matches every target of this kind"}
}

// wildcardShaped reports whether an allow rule matches every target of its
// kind: a bare tool (except an MCP token naming tools within one server),
// an argument starting with a star, WebFetch(domain:*), Bash(**), or a rule
// that may read as the whole tool.
func wildcardShaped(ctx context.Context, r lattice.Rule) bool {
	if r.MayBeWhole() {
		return true
	}
	if r.Family == lattice.FamilyMCP {
		return !mcpWithinServer(r.Canonical)
	}
	if !r.HasSpecifier {
		return true
	}
	if r.Family == lattice.FamilyPath {
		// A path pattern is wildcard-shaped when it matches every path under
		// the project (Read(*), Edit(**/*)), not merely when it starts with
		// a star (Edit(**/.env.example) names one file name).
		// The question draws on the comparison's budget; one the budget
		// cuts short rates the rule as a wildcard (fail closed).
		v := lattice.CoversContext(ctx, r, everyPath(r.List, r.Canonical))
		return v.Answer == lattice.Yes || v.TooComplex
	}
	return strings.HasPrefix(strings.TrimSpace(r.Specifier), "*")
}

// everyPath is the rule Tool(**) of a list, parsed once per tool: every
// path rule's rating asks whether it covers it.
func everyPath(l lattice.List, tool string) lattice.Rule {
	k := string(l) + "\x00" + tool
	if r, ok := everyPaths.Load(k); ok {
		return r.(lattice.Rule)
	}
	r := lattice.ParseIn(l, tool+"(**)")
	if everyPathCount.Add(1) <= maxEveryPaths {
		everyPaths.Store(k, r)
	}
	return r
}

// everyPaths caches everyPath; path tools are few, and maxEveryPaths
// bounds it whatever a repository names.
var (
	everyPaths     sync.Map
	everyPathCount atomic.Int64
)

const maxEveryPaths = 64

// mcpWithinServer reports whether an MCP token names tools within one
// server: a plain server segment and a tool segment not starting with *.
func mcpWithinServer(tok string) bool {
	rest, ok := strings.CutPrefix(tok, "mcp__")
	if !ok {
		return false
	}
	server, tool, ok := strings.Cut(rest, "__")
	return ok && server != "" && !strings.ContainsRune(server, '*') && tool != "" && !strings.HasPrefix(tool, "*")
}

// Redact renders a rule for check evidence without disclosing its
// arguments: bare tools as written, `Tool(*)` as is, an argument starting
// with a star as `Tool(<wildcard>)`, anything else `Tool(<redacted-arguments>)`.
// Exec-tier rules show their canonical table text instead (see Tier).
func Redact(r lattice.Rule) string {
	if !r.HasSpecifier {
		return r.Text
	}
	tool := strings.TrimSpace(r.Tool)
	spec := strings.TrimSpace(r.Specifier)
	switch {
	case spec == "*":
		return tool + "(*)"
	case strings.HasPrefix(spec, "*"):
		return tool + "(<wildcard>)"
	}
	return tool + "(<redacted-arguments>)"
}
