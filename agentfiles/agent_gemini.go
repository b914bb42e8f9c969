package agentfiles

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/gemini"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// The Gemini CLI adapter: .gemini/settings.json of a folder (the one
// Gemini is started in), read by agentfiles/gemini and compared
// through the agent-neutral model, and .gemini/policies/*.toml, which
// Gemini CLI 0.61.0 never loads (disableWorkspacePolicies): a change to
// one is reported as information.
//
// The rules settings become are decided first-match in priority order
// (Read keeps them in that order) on three surfaces: "shell" (the
// command of run_shell_command), "mcp" (MCP tool names mcp_<server>_<tool>)
// and "tool" (every other tool by name). A call no settings rule decides
// asks (Gemini's own defaults and heuristics decide it the same way at
// base and head), except the read-only tools its default policy allows.
type geminiAdapter struct{}

func (geminiAdapter) Agent() string          { return AgentGemini }
func (geminiAdapter) CheckedAgainst() string { return gemini.Version }
func (geminiAdapter) Hints() []string        { return []string{".gemini", ".env"} }
func (geminiAdapter) Pathspecs() []string {
	return []string{":(glob).gemini/settings.json", ":(glob)**/.gemini/settings.json",
		":(glob).gemini/policies/*.toml", ":(glob)**/.gemini/policies/*.toml",
		":(glob).gemini/.env", ":(glob)**/.gemini/.env", ":(glob).env", ":(glob)**/.env",
		":(glob).gemini/agents/*.md", ":(glob)**/.gemini/agents/*.md"}
}

// Classify accepts .gemini/settings.json, .gemini/policies/*.toml, the
// subagents of .gemini/agents (gemini.IsAgentFile) and the .env files
// Gemini CLI loads into its environment (.gemini/.env and .env) in any
// folder; the scope is the folder holding .gemini (or the .env).
func (geminiAdapter) Classify(p string) (report.FileKind, string) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == ".env" && (dir == ".gemini" || strings.HasSuffix(dir, "/.gemini")):
		return AgentFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".gemini"), "/")
	case base == ".env":
		return AgentFile, dir
	case base == "settings.json" && (dir == ".gemini" || strings.HasSuffix(dir, "/.gemini")):
		return AgentFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".gemini"), "/")
	case gemini.IsAgentFile(p):
		return AgentFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".gemini/agents"), "/")
	case strings.HasSuffix(base, ".toml") && (dir == ".gemini/policies" || strings.HasSuffix(dir, "/.gemini/policies")):
		return AgentFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".gemini/policies"), "/")
	}
	return report.NotAgentConfig, ""
}

func (geminiAdapter) Siblings(string) []string { return nil }

// Read parses one version of a Gemini file.
func (geminiAdapter) Read(p string, data []byte) (*agent.Doc, error) {
	if path.Base(p) == ".env" {
		return geminiEnv(p, data), nil
	}
	if gemini.IsAgentFile(p) {
		return gemini.ReadAgent(p, data)
	}
	if strings.HasSuffix(p, ".toml") {
		sum := sha256.Sum256(data)
		return &agent.Doc{Problems: []agent.Problem{{Kind: agent.ProblemInvalidRule, Key: "workspace policy " + hex.EncodeToString(sum[:6]),
			Message: "Gemini CLI " + gemini.Version + " does not load workspace policy files (.gemini/policies/*.toml; disableWorkspacePolicies in its bundle), so this file grants and denies nothing today; " +
				"a later version may load them, and when it did it accepted changed files without a prompt — review what it says",
			Pos: agent.Pos{File: p, Line: 1}}}}, nil
	}
	d, err := gemini.Read(p, data)
	if err != nil {
		line, col, msg := 0, 0, err.Error()
		pe, ok := err.(*gemini.ParseError)
		if ok {
			line, col, msg = pe.Line, pe.Col, pe.Msg
		}
		if ok && pe.Limit {
			// Gemini reads it (JSON.parse has no nesting bound): fail closed.
			return nil, &agent.ParseError{File: p, Line: line, Col: col, Msg: msg, MayStillGrant: true}
		}
		return nil, &agent.ParseError{File: p, Line: line, Col: col, Msg: "Gemini CLI stops with a configuration error (" + msg + ")"}
	}
	out := &agent.Doc{}
	for _, r := range gemini.Sorted(d.Rules) {
		out.Rules = append(out.Rules, GeminiRules(p, r)...)
	}
	for _, s := range d.Settings {
		out.Settings = append(out.Settings, agent.Setting{Key: s.Key, Value: s.Value, Pos: agent.Pos{File: p, Line: s.Line},
			Grant: s.Grant, Exec: s.Exec, Check: s.Check, Why: s.Why})
	}
	for _, s := range d.Servers {
		out.Servers = append(out.Servers, agent.Server{Name: s.Name, Summary: s.Summary, Canon: s.Canon, Pos: agent.Pos{File: p, Line: s.Line}})
	}
	for _, pr := range d.Problems {
		out.Problems = append(out.Problems, agent.Problem{Kind: pr.Kind, Key: pr.Key, Message: pr.Message, Pos: agent.Pos{File: p, Line: pr.Line}, Restricts: pr.Restricts})
	}
	return out, nil
}

// geminiBoundary is what may follow a command prefix (gemini.Boundary).
var geminiBoundary = lattice.Class(false, ' ', ' ', '"', '"', 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a,
	0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff)

var geminiNone = lattice.MustCompile(lattice.Alt())

// geminiRules turns one settings rule into model rules, one per surface
// it can match.
func GeminiRules(p string, r gemini.Rule) []agent.Rule {
	dec := agent.Ask
	switch r.Decision {
	case gemini.Allow:
		dec = agent.Allow
	case gemini.Deny:
		dec = agent.Deny
	}
	mk := func(s agent.Surface, l *lattice.Lang) agent.Rule {
		return agent.Rule{Surface: s, Text: r.Text, Decision: dec, Lang: l, Pos: agent.Pos{File: p, Line: r.Line}}
	}
	switch {
	case r.Tool == "*":
		return []agent.Rule{mk(agent.Shell, nil), mk(agent.MCP, nil), mk(agent.Tool, nil)}
	case r.Tool == gemini.ShellTool:
		if !r.HasPrefix {
			return []agent.Rule{mk(agent.Shell, nil)}
		}
		l, err := lattice.Compile(lattice.Cat(lattice.Lit(r.Prefix), lattice.Opt(lattice.Cat(geminiBoundary, lattice.Everything()))))
		rule := mk(agent.Shell, l)
		if err != nil {
			rule.Lang, rule.Unknown = nil, err.Error()
		}
		return []agent.Rule{rule}
	case r.Tool == "mcp_*":
		// Every MCP tool (a call on this surface always names a server).
		return []agent.Rule{mk(agent.MCP, nil)}
	case strings.HasPrefix(r.Tool, "mcp_") && strings.HasSuffix(r.Tool, "_*"):
		srv := strings.TrimSuffix(strings.TrimPrefix(r.Tool, "mcp_"), "_*")
		if srv == "" || strings.Contains(srv, "_") {
			// Gemini reads the server of a tool name up to its first
			// underscore: this rule matches no tool.
			return []agent.Rule{mk(agent.MCP, geminiNone)}
		}
		return []agent.Rule{mk(agent.MCP, lattice.MustCompile(lattice.Cat(lattice.Lit("mcp_"+srv+"_"), lattice.Plus(lattice.AnyRune()))))}
	case strings.HasPrefix(r.Tool, "mcp_"):
		return []agent.Rule{mk(agent.MCP, lattice.MustCompile(lattice.Lit(r.Tool)))}
	}
	return []agent.Rule{mk(agent.Tool, lattice.MustCompile(lattice.Lit(r.Tool)))}
}

// geminiReadOnly are the tools Gemini's default policy (read-only.toml,
// priority 1.05) allows without a prompt.
var geminiReadOnly = []string{"glob", "grep_search", "list_directory", "read_file", "google_web_search", "codebase_investigator",
	"cli_help", "get_internal_docs", "tracker_create_task", "tracker_update_task", "tracker_get_task", "tracker_list_tasks",
	"tracker_add_dependency", "tracker_visualize", "update_topic", "complete_task", "read_mcp_resource", "list_mcp_resources"}

var geminiDefaults = func() []agent.Rule {
	var alts []lattice.RE
	for _, t := range geminiReadOnly {
		alts = append(alts, lattice.Lit(t))
	}
	return []agent.Rule{{Surface: agent.Tool, Text: "Gemini's default policy (read-only tools)", Decision: agent.Allow,
		Lang: lattice.MustCompile(lattice.Alt(alts...))}}
}()

// Combine is a folder's settings rules in evaluation order, then
// Gemini's default allow of its read-only tools.
func (geminiAdapter) Combine(docs []*agent.Doc) *agent.Policy {
	pol := &agent.Policy{Precedence: agent.FirstMatch,
		Default: map[agent.Surface]agent.Decision{agent.Shell: agent.Ask, agent.MCP: agent.Ask, agent.Tool: agent.Ask}}
	for _, d := range docs {
		if d != nil {
			pol.Rules = append(pol.Rules, d.Rules...)
		}
	}
	pol.Rules = append(pol.Rules, geminiDefaults...)
	return pol
}

func init() { RegisterAdapter(geminiAdapter{}) }

// geminiEnv reads a .env file Gemini CLI loads (gemini.ReadEnv): each
// variable is a setting under the key "env NAME@sha256:…" (the value's
// digest, never the value: .env files hold secrets), so a new value is a
// new key and widens. .gemini/.env exists only for Gemini: every variable
// counts. A project .env is every tool's: only the variables that change
// what code runs or where traffic goes (rating.Env) and Gemini's own
// (GEMINI_*, GOOGLE_*) count, so an application's settings stay quiet.
func geminiEnv(p string, data []byte) *agent.Doc {
	own := strings.HasSuffix(path.Dir(p), ".gemini")
	file := ".env"
	if own {
		file = ".gemini/.env"
	}
	out := &agent.Doc{}
	for _, v := range gemini.ReadEnv(data) {
		if !own && gemini.ProjectEnvExcluded[v.Name] {
			continue
		}
		rt, why := rating.Env(v.Name)
		upper := strings.ToUpper(v.Name)
		gem := strings.HasPrefix(upper, "GEMINI_") || strings.HasPrefix(upper, "GOOGLE_")
		if !own && !gem && (rt.Access == rating.AccessUnknown || rt.Access == rating.AccessNone) {
			continue
		}
		switch {
		case why != "":
		case upper == "GOOGLE_GEMINI_BASE_URL" || upper == "GOOGLE_VERTEX_BASE_URL":
			why = "sends every prompt and file the model sees to another server, whose answers choose the tool calls"
		case upper == "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND":
			why = "a command Gemini CLI starts to reach the IDE"
		case gem:
			why = "one of Gemini CLI's own variables"
		default:
			why = "an environment variable"
		}
		sum := sha256.Sum256([]byte(v.Value))
		out.Settings = append(out.Settings, agent.Setting{Key: "env " + v.Name + "@sha256:" + hex.EncodeToString(sum[:4]), Value: "(value not shown)",
			Pos: agent.Pos{File: p, Line: v.Line}, Grant: 1, Check: agent.CheckEnv,
			Why: "Gemini CLI " + gemini.Version + " loads " + file + " into its own environment in a trusted folder, and every command it runs inherits it: " + why})
	}
	return out
}
