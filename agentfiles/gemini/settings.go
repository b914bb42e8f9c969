// Package gemini models what Google's Gemini CLI (0.61.0, read in its
// shipped bundle and measured with its own policy engine offline:
// /work/shared/reference/agents-permissions.md section 2) takes from a
// repository's .gemini/settings.json: the policy rules its settings become
// (tools.exclude, tools.allowed with run_shell_command(prefix) and its
// narrowing deny, tools.confirmationRequired, tools.core with its deny of
// every other tool, mcpServers.*.trust, mcp.allowed, mcp.excluded), each at
// its priority in the user tier, decided first-match after a stable sort by
// priority; and the values that widen the agent otherwise (policy paths
// that inject rule files, the approval mode, hooks, MCP servers, folder
// trust and sandbox switches). Workspace policy files (.gemini/policies/
// *.toml) are never loaded by 0.61.0 (disableWorkspacePolicies = true in
// its bundle): they are reported, not evaluated. The package is pure.
package gemini

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// Version is the Gemini CLI release the model was checked against.
const Version = "0.61.0"

// Decision is a rule's decision.
type Decision int

const (
	Deny Decision = iota
	AskUser
	Allow
)

// String spells a decision as Gemini does.
func (d Decision) String() string {
	switch d {
	case Deny:
		return "deny"
	case Allow:
		return "allow"
	}
	return "ask_user"
}

// Priorities of the rules settings become (user tier 4; bundle
// chunk-JDPZ4CE3.js, USER_POLICY_TIER + …).
const (
	PriorityMCPExcluded  = 4.9
	PriorityExclude      = 4.4
	PriorityConfirmation = 4.35
	PriorityAllowed      = 4.3
	PriorityNarrowing    = 4.29
	PriorityCore         = 4.25
	PriorityCoreDeny     = 4.24
	PriorityMCPTrusted   = 4.2
	PriorityMCPAllowed   = 4.1
)

// ShellTool is the shell tool's canonical name; ShellToolAlias is the
// other name settings may use for it.
const (
	ShellTool      = "run_shell_command"
	ShellToolAlias = "ShellTool"
)

// Rule is one policy rule a setting becomes.
type Rule struct {
	// Tool is the rule's toolName: a tool, "*", or an MCP pattern
	// mcp_<server>_* / mcp_*.
	Tool string
	// MCPName is the server the rule requires ("" none, "*" any).
	MCPName string
	// Prefix is a shell command prefix (HasPrefix set): the command must
	// start with it and continue with a blank, a double quote or nothing.
	Prefix    string
	HasPrefix bool
	Decision  Decision
	Priority  float64
	// Source names the setting, as Gemini's rule sources do.
	Source string
	// Text is the settings entry as written, for reports.
	Text string
	Line int
}

// Setting is a value that widens the agent other than through rules.
type Setting struct {
	Key, Value string
	Line       int
	Grant      int
	Exec       bool
	Check      string
	Why        string
}

// Check kinds.
const (
	CheckAllow   = "allow"
	CheckSandbox = "sandbox"
	CheckHook    = "hook"
	CheckEnv     = "env"
)

// Server is an mcpServers entry.
type Server struct {
	Name, Summary, Canon string
	Line                 int
}

// Problem kinds.
const (
	ProblemInvalidRule  = "invalid_rule"
	ProblemDuplicateKey = "duplicate_key"
	ProblemUnknownKey   = "unknown_key"
)

// Problem is an entry read differently from how it looks.
type Problem struct {
	Kind, Key, Message string
	Line               int
	Restricts          bool
}

// Doc is one version of .gemini/settings.json, read.
type Doc struct {
	Rules    []Rule
	Settings []Setting
	Servers  []Server
	Problems []Problem
}

// ParseError is a settings file Gemini refuses (it stops with a
// FatalConfigError).
type ParseError struct {
	Path      string
	Line, Col int
	Msg       string
	// Limit: a bound of Shipgate's reader (nesting past
	// jsonpos.DefaultMaxDepth), which Gemini CLI's JSON.parse does not
	// have: the file may still grant anything.
	Limit bool
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// StripComments replaces // and /* */ comments outside strings with
// blanks, keeping every newline and byte offset (strip-json-comments, as
// Gemini's settings loader runs it before JSON.parse). Trailing commas are
// not removed: JSON.parse refuses them, and so does Gemini.
func StripComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			i += 2
			for ; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}

// envRef is Gemini's resolveEnvVarsInString pattern (0.61.0 bundle):
// $NAME, ${NAME} and ${NAME:-default}.
var envRef = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// ExpandEnv expands a settings string as Gemini's loader does
// (resolveEnvVarsInObject, applied to every string value after
// JSON.parse and before the settings are used) with every variable unset:
// ${NAME:-default} becomes default, $NAME and ${NAME} stay as written.
// The repository's .env is loaded only after the settings are expanded
// (loadEnvironment follows loadSettings), so it cannot set them.
func ExpandEnv(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := envRef.FindStringSubmatch(m)
		if sub[1] == "" && sub[2] == "" {
			return m
		}
		if strings.Contains(m, ":-") && sub[2] != "" {
			return sub[3]
		}
		return m
	})
}

// expand is a string value as Gemini reads it (ExpandEnv).
func expand(v *jsonpos.Value) string { return ExpandEnv(v.Text()) }

// toolSpec is how tools.allowed and tools.core entries name a tool with
// arguments: `name(args)`.
var toolSpec = regexp.MustCompile(`^([a-zA-Z0-9_-]+)\((.*)\)$`)

// Read parses one version of .gemini/settings.json and lists the rules,
// settings, servers and problems it yields.
func Read(path string, data []byte) (*Doc, error) {
	root, probs, err := jsonpos.Parse(StripComments(data))
	if err != nil {
		pe := &ParseError{Path: path, Msg: err.Error()}
		if se, ok := err.(*jsonpos.SyntaxError); ok {
			pe.Line, pe.Col, pe.Msg = se.Line, se.Column, se.Error()
			pe.Limit = se.Kind == jsonpos.SyntaxTooDeep
		}
		return nil, pe
	}
	if root.Kind() != jsonpos.Object {
		return nil, &ParseError{Path: path, Line: 1, Col: 1, Msg: "Settings file is not a valid JSON object."}
	}
	d := &Doc{}
	for _, p := range probs {
		if p.Kind == jsonpos.ProblemDuplicateKey {
			d.Problems = append(d.Problems, Problem{Kind: ProblemDuplicateKey, Key: p.Key, Line: p.Line,
				Message: fmt.Sprintf("the key %q is written twice; Gemini (JSON.parse) keeps the last one", p.Key)})
		}
	}
	line := func(v *jsonpos.Value) int { return v.Start().Line }
	strs := func(v *jsonpos.Value) []*jsonpos.Value {
		var out []*jsonpos.Value
		for _, e := range v.Elements() {
			if e.Kind() == jsonpos.String {
				out = append(out, e)
			}
		}
		return out
	}
	tools := root.Get("tools")
	// Legacy top-level spellings (allowedTools, coreTools, excludeTools)
	// are read like their tools.* keys: failing closed if Gemini migrates
	// them.
	list := func(key, legacy string) *jsonpos.Value {
		v := tools.Get(key)
		if v == nil {
			v = root.Get(legacy)
		}
		return truthy(v, d, "tools."+key)
	}
	if v := truthy(root.Get("mcp").Get("excluded"), d, "mcp.excluded"); v != nil {
		for _, e := range strs(v) {
			srv := expand(e)
			tool := "mcp_" + srv + "_*"
			if srv == "*" {
				tool = "mcp_*"
			}
			d.Rules = append(d.Rules, Rule{Tool: tool, MCPName: srv, Decision: Deny, Priority: PriorityMCPExcluded,
				Source: "Settings (MCP Excluded)", Text: "mcp.excluded: " + srv, Line: line(e)})
		}
	}
	if v := list("exclude", "excludeTools"); v != nil {
		for _, e := range strs(v) {
			t := expand(e)
			d.Rules = append(d.Rules, Rule{Tool: t, Decision: Deny, Priority: PriorityExclude,
				Source: "Settings (Tools Excluded)", Text: "tools.exclude: " + t, Line: line(e)})
			if toolSpec.MatchString(t) {
				d.Problems = append(d.Problems, Problem{Kind: ProblemInvalidRule, Key: "tools.exclude", Line: line(e), Restricts: true,
					Message: fmt.Sprintf("tools.exclude takes bare tool names: %q excludes nothing (Gemini 0.61.0 reads it as a tool of that literal name)", t)})
			}
		}
	}
	mapTools := func(v *jsonpos.Value, prio float64, source, key string, narrowing bool) {
		narrowed := false
		var narrowLine int
		for _, e := range strs(v) {
			t := expand(e)
			if m := toolSpec.FindStringSubmatch(t); m != nil {
				name := m[1]
				if name == ShellToolAlias {
					name = ShellTool
				}
				if name == ShellTool {
					narrowed = true
					if narrowLine == 0 {
						narrowLine = line(e)
					}
					if m[2] == "" {
						// An empty prefix builds no pattern (Gemini skips it).
						continue
					}
					d.Rules = append(d.Rules, Rule{Tool: ShellTool, Prefix: m[2], HasPrefix: true, Decision: Allow, Priority: prio,
						Source: source, Text: key + ": " + t, Line: line(e)})
					continue
				}
				// Arguments of other tools are ignored: the whole tool is allowed.
				d.Rules = append(d.Rules, Rule{Tool: name, Decision: Allow, Priority: prio, Source: source, Text: key + ": " + t, Line: line(e)})
				if m[2] != "" {
					d.Problems = append(d.Problems, Problem{Kind: ProblemInvalidRule, Key: key, Line: line(e),
						Message: fmt.Sprintf("%q allows all of %s: Gemini 0.61.0 ignores the arguments of tools other than run_shell_command", t, name)})
				}
				continue
			}
			name := t
			if name == ShellToolAlias {
				name = ShellTool
			}
			d.Rules = append(d.Rules, Rule{Tool: name, Decision: Allow, Priority: prio, Source: source, Text: key + ": " + t, Line: line(e)})
		}
		if narrowing && narrowed {
			d.Rules = append(d.Rules, Rule{Tool: ShellTool, Decision: Deny, Priority: prio - 0.01,
				Source: source + " (Narrowing Enforcement)", Text: key + ": every other shell command (narrowing)", Line: narrowLine})
		}
	}
	if v := list("allowed", "allowedTools"); v != nil {
		mapTools(v, PriorityAllowed, "Settings (Tools Allowed)", "tools.allowed", true)
	}
	if v := truthy(tools.Get("confirmationRequired"), d, "tools.confirmationRequired"); v != nil {
		for _, e := range strs(v) {
			name := expand(e)
			if name == ShellToolAlias {
				name = ShellTool
			}
			d.Rules = append(d.Rules, Rule{Tool: name, Decision: AskUser, Priority: PriorityConfirmation,
				Source: "Settings (Confirmation Required)", Text: "tools.confirmationRequired: " + expand(e), Line: line(e)})
			if name == ShellTool {
				// Measured (TestGeminiRuntime): without a rule a -p session
				// refuses every shell command (ask, and nobody to ask); this
				// ask rule hands the decision to the shell tool, whose
				// known-safe heuristic runs read-only commands.
				d.Problems = append(d.Problems, Problem{Kind: ProblemInvalidRule, Key: "tools.confirmationRequired " + name, Line: line(e),
					Message: "tools.confirmationRequired on the shell does not make Gemini ask for every command: its known-safe heuristic still runs read-only ones (ls, cat, echo, git status, git log) without a prompt, and in a non-interactive session (gemini -p), which refuses every shell command when no rule names the shell, this entry lets those run (measured with Gemini CLI " + Version + ")"})
			}
		}
	}
	if v := list("core", "coreTools"); v != nil {
		mapTools(v, PriorityCore, "Settings (Core Tools)", "tools.core", false)
		d.Rules = append(d.Rules, Rule{Tool: "*", Decision: Deny, Priority: PriorityCoreDeny,
			Source: "Settings (Core Tools Allowlist Enforcement)", Text: "tools.core: every other tool", Line: line(v)})
	}
	servers := root.Get("mcpServers")
	for _, m := range servers.Members() {
		d.Servers = append(d.Servers, server(m.Key, m.Value))
		if t := m.Value.Get("trust"); t != nil && isTrue(t) {
			d.Rules = append(d.Rules, Rule{Tool: "mcp_" + m.Key + "_*", MCPName: m.Key, Decision: Allow, Priority: PriorityMCPTrusted,
				Source: "Settings (MCP Trusted)", Text: "mcpServers." + m.Key + ".trust: true", Line: line(t)})
		}
	}
	if v := truthy(root.Get("mcp").Get("allowed"), d, "mcp.allowed"); v != nil {
		for _, e := range strs(v) {
			srv := expand(e)
			tool := "mcp_" + srv + "_*"
			if srv == "*" {
				tool = "mcp_*"
			}
			d.Rules = append(d.Rules, Rule{Tool: tool, MCPName: srv, Decision: Allow, Priority: PriorityMCPAllowed,
				Source: "Settings (MCP Allowed)", Text: "mcp.allowed: " + srv, Line: line(e)})
		}
	}
	d.values(root)
	return d, nil
}

// values lists the settings that widen the agent other than by rules.
func (d *Doc) values(root *jsonpos.Value) {
	add := func(key string, v *jsonpos.Value, grant int, exec bool, check, why string) {
		d.Settings = append(d.Settings, Setting{Key: key, Value: v.Raw(), Line: v.Start().Line, Grant: grant, Exec: exec, Check: check, Why: why})
	}
	// agents.overrides.<agent> (read in the 0.61.0 bundle:
	// AgentRegistry.registerLocalAgent, isAgentEnabled, applyOverrides;
	// measured: TestGeminiAgentOverridesRuntime): its mcpServers are merged
	// into the agent's own and start, without a prompt, when the model
	// invokes the agent — no new acknowledgement, since the agent file is
	// unchanged; enabled: true turns on an agent that is off by default
	// (the experimental ones, such as the browser agent), which the model
	// then invokes without a prompt. runConfig, modelConfig, tools (it only
	// picks from the parent's tools, whose calls pass the same policy) and
	// enabled: false grant nothing.
	for _, a := range root.Get("agents").Get("overrides").Members() {
		if a.Overridden {
			continue
		}
		for _, m := range a.Value.Get("mcpServers").Members() {
			if m.Overridden {
				continue
			}
			sv := server("agents.overrides."+a.Key+".mcpServers."+m.Key, m.Value)
			sv.Summary += "; started whenever subagent " + a.Key + " runs, which the model invokes without a prompt (an override asks for no acknowledgement)"
			d.Servers = append(d.Servers, sv)
			if t := m.Value.Get("trust"); t != nil && isTrue(t) {
				add("agents.overrides."+a.Key+".mcpServers."+m.Key+".trust", t, 1, false, CheckAllow,
					"every tool of this MCP server runs without a confirmation when subagent "+a.Key+" calls it (trust in a trusted folder)")
			}
		}
		if e := a.Value.Get("enabled"); e != nil && isTrue(e) {
			add("agents.overrides."+a.Key+".enabled", e, 1, false, CheckAllow,
				"turns on subagent "+a.Key+" where it is off by default (Gemini CLI's experimental agents, such as the browser agent); the model invokes it without a prompt")
		}
	}
	for _, k := range []string{"policyPaths", "adminPolicyPaths"} {
		v := root.Get(k)
		for _, e := range v.Elements() {
			tier := "user tier (4)"
			if k == "adminPolicyPaths" {
				tier = "admin tier (5), above every setting and the user's own excludes"
			}
			add(k+"["+e.Raw()+"]", e, 1, true, CheckAllow,
				"loads policy files from "+e.Raw()+" at the "+tier+"; Shipgate does not read them, and they may allow any tool or command")
		}
	}
	if v := root.Path("general", "defaultApprovalMode"); v != nil {
		g := map[string]int{"default": 0, "plan": -1, "auto_edit": 1}[expand(v)]
		if _, ok := map[string]bool{"default": true, "plan": true, "auto_edit": true}[expand(v)]; !ok && v.Kind() == jsonpos.String {
			g = 0 // Gemini refuses other values (yolo only from the command line)
		}
		add("general.defaultApprovalMode", v, g, false, CheckAllow, "auto_edit approves file edits without a prompt")
	}
	if v := root.Path("security", "folderTrust", "enabled"); v != nil && isFalse(v) {
		add("security.folderTrust.enabled", v, 0, false, CheckAllow,
			"read from the user's and system settings only: a workspace cannot turn folder trust off for itself")
	}
	if v := root.Path("security", "disableAlwaysAllow"); v != nil && isTrue(v) {
		add("security.disableAlwaysAllow", v, -1, false, CheckAllow, "remembered approvals are not applied")
	}
	if v := root.Path("security", "disableYoloMode"); v != nil && isTrue(v) {
		add("security.disableYoloMode", v, -1, false, CheckAllow, "YOLO mode cannot be switched on")
	}
	if v := root.Path("mcp", "autoAllowInHeadless"); v != nil && isTrue(v) {
		add("mcp.autoAllowInHeadless", v, 1, false, CheckAllow, "in a headless run every configured MCP server's tools run without a prompt")
	}
	for _, k := range [][]string{{"hooks"}, {"hooksConfig"}, {"tools", "discoveryCommand"}, {"tools", "callCommand"}} {
		if v := root.Path(k...); v != nil {
			key := strings.Join(k, ".")
			d.Settings = append(d.Settings, Setting{Key: key + " = " + v.Raw(), Value: v.Raw(), Line: v.Start().Line, Grant: 1, Check: CheckHook,
				Why: "a command Gemini runs itself"})
		}
	}
	for _, k := range [][]string{{"tools", "sandbox"}, {"sandbox"}} {
		if v := root.Path(k...); v != nil {
			g := -1
			if isFalse(v) {
				g = 0
			}
			add(strings.Join(k, "."), v, g, false, CheckSandbox, "runs tools in a sandbox")
		}
	}
	for _, k := range []string{"advanced"} {
		if v := root.Path(k, "excludedEnvVars"); v != nil {
			add(k+".excludedEnvVars", v, 0, false, CheckEnv, "environment variables kept from the project's .env")
		}
	}
	known := map[string]bool{
		"tools": true, "mcp": true, "mcpServers": true, "policyPaths": true, "adminPolicyPaths": true, "general": true,
		"security": true, "hooks": true, "hooksConfig": true, "sandbox": true, "advanced": true, "ui": true, "model": true,
		"context": true, "privacy": true, "telemetry": true, "ide": true, "output": true, "experimental": true,
		"extensions": true, "skills": true, "agents": true, "billing": true, "allowedTools": true, "coreTools": true,
		"excludeTools": true, "$schema": true, "modelConfigs": true, "useWriteTodos": true, "admin": true,
	}
	for _, m := range root.Members() {
		if !known[m.Key] {
			d.Problems = append(d.Problems, Problem{Kind: ProblemUnknownKey, Key: m.Key, Line: m.KeyStart.Line,
				Message: fmt.Sprintf("%q is not a Gemini CLI 0.61.0 settings key: it is kept but nothing reads it", m.Key)})
		}
	}
}

// server reads an mcpServers entry.
func server(name string, v *jsonpos.Value) Server {
	summary := "server"
	if c := v.Get("command"); c != nil {
		summary = "stdio server running " + expand(c)
	} else if u := v.Get("httpUrl"); u != nil {
		summary = "HTTP server at " + expand(u)
	} else if u := v.Get("url"); u != nil {
		summary = "server at " + expand(u)
	}
	return Server{Name: name, Summary: summary, Canon: v.Raw(), Line: v.Start().Line}
}

// Sorted returns rules in Gemini's evaluation order: by priority,
// highest first, keeping the order they were produced in for equal
// priorities (a stable sort, as PolicyEngine's constructor does).
func Sorted(rules []Rule) []Rule {
	out := append([]Rule(nil), rules...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Priority > out[j].Priority })
	return out
}

func isTrue(v *jsonpos.Value) bool  { return v.Kind() == jsonpos.Bool && v.Bool() }
func isFalse(v *jsonpos.Value) bool { return v.Kind() == jsonpos.Bool && !v.Bool() }

// truthy is a list setting as Gemini's policy code reads it: absent when
// JavaScript finds the value falsy (null, false, 0, ""), the array when
// it is one (an empty array is truthy: tools.core: [] denies every tool).
// Another truthy value is reported and read as absent.
func truthy(v *jsonpos.Value, d *Doc, key string) *jsonpos.Value {
	switch v.Kind() {
	case jsonpos.Invalid, jsonpos.Null:
		return nil
	case jsonpos.Array:
		return v
	case jsonpos.Bool:
		if !v.Bool() {
			return nil
		}
	case jsonpos.String:
		if expand(v) == "" {
			return nil
		}
	case jsonpos.Number:
		if v.Raw() == "0" || v.Raw() == "-0" {
			return nil
		}
	}
	d.Problems = append(d.Problems, Problem{Kind: ProblemInvalidRule, Key: key, Line: v.Start().Line, Restricts: true,
		Message: fmt.Sprintf("%s is not a list: Shipgate reads no rules from it", key)})
	return nil
}
