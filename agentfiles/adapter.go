// Package agentfiles says which files each agent reads and how: the
// adapter registry (RegisterAdapter, ClassifyAgent, Classify, Pathspecs,
// MayBeAgentPath, SiblingPaths) over the pure readers of the other agents'
// files (agentfiles/codex, gemini, copilot, cursor, vscode, opencode, into
// the agent-neutral model of agentfiles/agent), Claude Code's file kinds,
// and the agents' names as reports show them. The engine (diff) compares
// what the adapters read; the gatherer asks the registry what to read.
package agentfiles

import (
	"path"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// Agent names, as reports (the "agent" field of every row) and policies
// (`agents: [codex]`) spell them.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
	AgentGemini     = "gemini-cli"
	AgentCopilotCLI = "copilot-cli"
	AgentCursor     = "cursor"
	AgentVSCode     = "vscode"
	AgentOpenCode   = "opencode"
	// AgentShipgate labels rows about Shipgate's own policy file.
	AgentShipgate = "shipgate"
)

// An Adapter teaches Shipgate one coding agent: which repository paths it
// reads (one place: the gatherer, Classify and Pathspecs all ask the
// registry), and how one version of each of its files reads.
//
// Claude Code is the first adapter and keeps the engine's original,
// dedicated comparison (settings.go, rules.go, values.go, …). Every other
// agent is a ModelAdapter: it reads its files into the agent-neutral model
// of agentfiles/agent (rules over a surface compiled to lattice
// automata, the agent's precedence, settings, MCP servers, problems with
// positions) and the engine compares a scope's model at base and head
// (agentcompare.go): effective decision per call (runs without a prompt /
// asks / refused) by the agent's precedence, widening witnesses from the
// lattice, the existing check IDs and actions, and the "agent" field on
// every row.
//
// To add an agent:
//
//  1. Write a pure package agentfiles/<name> (no import of diff):
//     its strict parser with positions (jsonpos or tailscale/hujson
//     for JSONC, TOML, Starlark…), its rule language translated to
//     lattice.RE and compiled with lattice.Compile (a construct outside
//     the regular subset sets agent.Rule.Unknown with the reason), its
//     precedence (agent.Strictest, LastMatch, FirstMatch) and defaults,
//     and a Read(path, data) (*agent.Doc, error) plus a Combine(docs)
//     *agent.Policy. Settings carry a Grant ordinal (0 = the agent's
//     default), Exec for values that run arbitrary code, and the Check
//     kind a widening raises.
//  2. Add agentfiles/agent_<name>.go: a type implementing ModelAdapter that
//     calls the package, and register it in an init func with
//     RegisterAdapter. Add the agent's name to the constants above.
//  3. Document it in docs/agents.md (files, language, precedence, what is
//     flagged, version checked, what is not modelled) and docs/checks.md
//     if it needs a new check ID (prefer the existing ones).
//  4. Tests: a table of decisions citing the agent's documentation (or a
//     real-binary oracle), a fuzz target per parser, and end-to-end
//     cases in cmd/shipgate/agents_e2e_test.go.
type Adapter interface {
	// Agent is the agent's name (one of the Agent* constants).
	Agent() string
	// CheckedAgainst names the agent version (or the documentation and
	// its date) the adapter's semantics were checked against; reports
	// carry it in checked_against.
	CheckedAgainst() string
	// Classify says whether the agent reads a repository path (cleaned,
	// slash-separated, relative to the root), how (FileKind), and its
	// scope: the files of one scope are evaluated together. A ModelAdapter
	// returns AgentFile.
	Classify(p string) (report.FileKind, string)
	// Pathspecs are git pathspecs (":(glob)…") matching every path
	// Classify accepts, for tools that list changed files.
	Pathspecs() []string
	// Hints are substrings (matched ignoring case) one of which every path
	// Classify accepts contains: the gatherer's quick test on large trees.
	Hints() []string
}

// ModelAdapter is an Adapter whose files the engine compares through the
// agent-neutral model.
type ModelAdapter interface {
	Adapter
	// Read parses one version of one file strictly. An *agent.ParseError
	// means the agent cannot read the file (and drops it): the engine
	// reports it and compares as if the file were absent.
	Read(path string, data []byte) (*agent.Doc, error)
	// Combine is the effective policy of a scope: the docs of its files
	// in the agent's load order (the adapter sorts by Doc position File;
	// a nil doc is a file absent or unreadable on that side).
	Combine(docs []*agent.Doc) *agent.Policy
	// Siblings names the other files of p's scope the agent reads
	// together with it (opencode.json and opencode.jsonc; Copilot CLI's
	// settings.json and settings.local.json): the front ends read them,
	// unchanged, for the effective view.
	Siblings(p string) []string
}

// FrontmatterReader is a ModelAdapter that reads of some files only their
// YAML frontmatter (agent.Frontmatter): Copilot CLI's skills and custom
// agents. The engine charges its work budget for reading such a file by
// the frontmatter's bytes, and the Markdown after it (a skill's prose, often
// tens of kilobytes) at the cost of a scan.
type FrontmatterReader interface {
	// FrontmatterOnly reports whether Read parses nothing of the file at
	// path p but its frontmatter.
	FrontmatterOnly(p string) bool
}

// SiblingPaths names the files the front ends read, unchanged, with a
// changed agent file p for the effective view of its scope (nil for
// Claude Code, whose siblings the gatherer knows).
func SiblingPaths(p string, pol *policy.Policy) []string {
	name, k, _ := ClassifyAgent(p, pol)
	if k != AgentFile {
		return nil
	}
	if m, ok := AdapterFor(name).(ModelAdapter); ok {
		return m.Siblings(CleanPath(p))
	}
	return nil
}

// SiblingDirs names the folders whose files of p's agent and scope the
// front ends read, unchanged, with a changed agent file p, where the
// agent reads every file of a folder together (Codex's .codex/rules/*.rules:
// an unchanged sibling's forbidden rule still decides a new allow).
func SiblingDirs(p string, pol *policy.Policy) []string {
	name, k, _ := ClassifyAgent(p, pol)
	if k != AgentFile {
		return nil
	}
	if d, ok := AdapterFor(name).(interface{ SiblingDirs(string) []string }); ok {
		return d.SiblingDirs(CleanPath(p))
	}
	return nil
}

// AgentFile is a file of an agent other than Claude Code, read through
// its ModelAdapter.
const AgentFile report.FileKind = 100

var adapters []Adapter

// RegisterAdapter adds an agent to the registry (from an init func). The
// registry is ordered by agent name after Claude Code, which is always
// asked first.
func RegisterAdapter(a Adapter) {
	adapters = append(adapters, a)
	for _, h := range a.Hints() {
		agentHints = append(agentHints, FoldName(h))
	}
	sort.SliceStable(adapters, func(i, j int) bool {
		ai, aj := adapters[i].Agent() == AgentClaudeCode, adapters[j].Agent() == AgentClaudeCode
		if ai != aj {
			return ai
		}
		return adapters[i].Agent() < adapters[j].Agent()
	})
}

// AgentNames lists the registered agents' names, Claude Code first: the
// names a policy may scope by.
func AgentNames() []string {
	out := make([]string, len(adapters))
	for i, a := range adapters {
		out[i] = a.Agent()
	}
	return out
}

func AdapterFor(agentName string) Adapter {
	for _, a := range adapters {
		if a.Agent() == agentName {
			return a
		}
	}
	return nil
}

// ClassifyAgent is Classify, also naming the agent that reads the path
// ("" when none does).
func ClassifyAgent(p string, pol *policy.Policy) (agentName string, kind report.FileKind, scope string) {
	p = CleanPath(p)
	if pol.Ignored(p) {
		return "", report.NotAgentConfig, ""
	}
	// Claude Code first, with the policy (watched files are read as its
	// settings).
	if k, s := classifyClaude(p, pol); k != report.NotAgentConfig {
		return AgentClaudeCode, k, s
	}
	for _, a := range adapters {
		if a.Agent() == AgentClaudeCode {
			continue
		}
		if k, s := a.Classify(p); k != report.NotAgentConfig {
			return a.Agent(), k, s
		}
	}
	return "", report.NotAgentConfig, ""
}

// agentOfPath names the agent that reads a path ("" when none does).
func AgentOfPath(p string, pol *policy.Policy) string {
	a, _, _ := ClassifyAgent(p, pol)
	return a
}

// MayBeAgentPath is a quick test the gatherer runs on every path of a
// large tree: false means no adapter reads p (without watched paths).
// It folds p once and looks for the adapters' hints, folded once when
// registered (agentHints), in it: on a 200,000-file tree it runs once per
// path, and folding p again for every hint cost 150 ms there.
func MayBeAgentPath(p string) bool {
	f := FoldName(p)
	for _, h := range agentHints {
		if strings.Contains(f, h) {
			return true
		}
	}
	return false
}

// agentHints are the registered adapters' hints, folded as FoldName
// folds a path (RegisterAdapter adds them).
var agentHints []string

func CleanPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
}

// claudeAdapter is Claude Code: settings files, .mcp.json, skills,
// commands, subagents and the scripts in .claude folders, compared by the
// engine's dedicated code.
type claudeAdapter struct{}

func (claudeAdapter) Agent() string          { return AgentClaudeCode }
func (claudeAdapter) CheckedAgainst() string { return lattice.ClaudeCodeVersion }
func (claudeAdapter) Hints() []string        { return []string{".claude", ".mcp.json"} }
func (claudeAdapter) Classify(p string) (report.FileKind, string) {
	return classifyClaude(p, nil)
}
func (claudeAdapter) Pathspecs() []string {
	return []string{
		":(glob).claude/settings.json", ":(glob).claude/settings.local.json",
		":(glob)**/.claude/settings.json", ":(glob)**/.claude/settings.local.json",
		":(glob).mcp.json", ":(glob)**/.mcp.json",
		":(glob).claude/skills/**/SKILL.md", ":(glob)**/.claude/skills/**/SKILL.md",
		":(glob).claude/commands/**/*.md", ":(glob)**/.claude/commands/**/*.md",
		":(glob).claude/agents/**/*.md", ":(glob)**/.claude/agents/**/*.md",
		":(glob).claude/**", ":(glob)**/.claude/**",
	}
}

func init() { RegisterAdapter(claudeAdapter{}) }
