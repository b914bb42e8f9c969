package codex

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Check kinds a config value's widening raises (package diff maps them to
// check IDs).
const (
	CheckAllow   = "allow"   // ALLOW-EXPANDED (WILDCARD-ALLOW when Exec)
	CheckSandbox = "sandbox" // SANDBOX-LOOSENED
	CheckHook    = "hook"    // HOOK-CHANGED: a command Codex runs
	CheckEnv     = "env"     // ENV-CHANGED: environment or where traffic goes
)

// Setting is one config value that changes what Codex may do.
type Setting struct {
	// Key names the setting (a dotted path; for values compared by their
	// text, such as a notify command, the key carries the text).
	Key   string
	Value string
	Line  int
	// Grant orders values of one key: 0 is Codex's default (the key
	// absent), higher lets more through, negative is stricter.
	Grant int
	// Exec says the value lets Codex run arbitrary commands without a
	// prompt and outside any sandbox: a widening to it blocks.
	Exec bool
	// Check is the kind of finding a widening raises.
	Check string
	// Why says what the value does.
	Why string
}

// Server is an MCP server of mcp_servers.
type Server struct {
	Name    string
	Summary string
	Canon   string
	Line    int
}

// Problem kinds.
const (
	ProblemParse      = "parse"
	ProblemUnknownKey = "unknown_key"
	ProblemInert      = "inert"
)

// Problem is a value Codex reads differently from how it looks, or not at
// all.
type Problem struct {
	Kind    string
	Key     string
	Message string
	Line    int
}

// Config is what one .codex/config.toml grants.
type Config struct {
	Settings []Setting
	Servers  []Server
	Problems []Problem
}

// Approval policies Codex 0.169.0 accepts as strings: on-request (the
// default), on-failure (rendered like on-request) and never; "untrusted",
// "granular" as a string and any other value make it refuse to start
// (measured with codex debug prompt-input). The granular form is a table.
var approvalGrant = map[string]int{"on-request": 0, "on-failure": 0, "never": 2}

// Sandbox modes: read-only, workspace-write (a trusted project's
// default), danger-full-access (no sandbox).
var sandboxGrant = map[string]int{"read-only": -1, "workspace-write": 0, "danger-full-access": 2}

// permissionKeys are the keys read here for what they grant; inertKeys
// are other documented keys with no effect on permissions (a model name,
// reasoning effort, UI options), which pass.
var inertKeys = map[string]bool{
	"model": true, "model_reasoning_effort": true, "model_reasoning_summary": true, "model_verbosity": true,
	"model_context_window": true, "model_max_output_tokens": true, "model_auto_compact_token_limit": true,
	"review_model": true, "hide_agent_reasoning": true, "show_raw_agent_reasoning": true,
	"file_opener": true, "tui": true, "history": true, "disable_response_storage": true,
	"project_doc_max_bytes": true, "model_supports_reasoning_summaries": true, "personality": true,
	"web_search": true, "tools": true, "preferred_auth_method": true, "windows_wsl_setup_acknowledged": true,
	"notice": true, "analytics": true, "feedback": true, "otel": true, "check_for_update_on_startup": true,
}

// ParseConfig reads one .codex/config.toml: strict TOML, then each key
// Codex 0.169.0 reads for what it grants (reference: agents-permissions.md
// 1.2). Unknown keys are accepted by Codex and reported here as problems.
func ParseConfig(path string, data []byte) (*Config, error) {
	t, err := ReadTOML(path, data)
	if err != nil {
		return nil, err
	}
	c := &Config{}
	if err := validate(path, t, "", t.Values); err != nil {
		return nil, err
	}
	// [profiles.*] tables are not validated: Codex 0.169.0 ignores them in
	// a project (measured: sandbox_mode = "bogus" in one starts).
	keys := make([]string, 0, len(t.Values))
	for k := range t.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := t.Values[k]
		switch k {
		case "approval_policy", "sandbox_mode", "sandbox_workspace_write", "shell_environment_policy":
			c.layer(t, "", k, v)
		case "profiles":
			// Legacy profile tables are inert in 0.169.0 (measured: with a
			// project's [profiles.yolo] setting danger-full-access and
			// approval never, `codex --profile yolo debug prompt-input`
			// renders workspace-write; a profile is now a file of the
			// user's, ~/.codex/<name>.config.toml).
			c.Problems = append(c.Problems, Problem{Kind: ProblemInert, Key: k, Line: t.Line(k),
				Message: "a [profiles.<name>] table in a project's config.toml is inert in Codex 0.169.0 (measured: `codex --profile <name>` does not apply it; profiles are the user's ~/.codex/<name>.config.toml files)"})
		case "mcp_servers":
			m, _ := v.(map[string]any)
			for _, name := range sortedKeys(m) {
				c.Servers = append(c.Servers, server(name, m[name], t.Line("mcp_servers."+name)))
			}
		case "notify", "hooks":
			c.command(t, k, v)
		case "model_provider", "model_providers", "openai_base_url", "chatgpt_base_url":
			c.traffic(t, k, v)
		case "permissions", "default_permissions", "features", "allow_login_shell",
			"model_instructions_file", "experimental_instructions_file", "project_doc_fallback_filenames",
			"experimental_use_exec_command_tool", "experimental_use_unified_exec_tool":
			c.Settings = append(c.Settings, Setting{Key: k + " = " + canon(v), Value: canon(v), Line: t.Line(k),
				Grant: 1, Check: CheckAllow,
				Why: "a Codex setting whose effect on what runs without a prompt Shipgate does not model: reviewed as a grant"})
		case "profile":
			c.Problems = append(c.Problems, Problem{Kind: ProblemInert, Key: k, Line: t.Line(k),
				Message: "profile in a project's config.toml did not select the profile in Codex 0.169.0 (measured); the profiles themselves are reviewed as if a user selected them"})
		case "projects":
			c.Problems = append(c.Problems, Problem{Kind: ProblemInert, Key: k, Line: t.Line(k),
				Message: "a repository cannot trust itself: projects.<path>.trust_level is read only from the user's ~/.codex/config.toml"})
		default:
			if !inertKeys[k] {
				c.Problems = append(c.Problems, Problem{Kind: ProblemUnknownKey, Key: k, Line: t.Line(k),
					Message: fmt.Sprintf("Codex 0.169.0 accepts unknown keys silently; %q is not a key Shipgate knows", k)})
			}
		}
	}
	c.combined(t, "", t.Values, nil)
	return c, nil
}

// layer reads the keys a profile may also set (pre is "" or
// "profiles.<name>.").
func (c *Config) layer(t *Table, pre, k string, v any) {
	key := pre + k
	switch k {
	case "approval_policy":
		if m, ok := v.(map[string]any); ok && len(m) == 1 && m["granular"] != nil {
			c.Settings = append(c.Settings, Setting{Key: key + " = " + canon(v), Value: canon(v), Line: t.Line(key), Grant: 1, Check: CheckAllow,
				Why: "a granular approval policy: which prompts it turns off is not modelled, so it is reviewed as a grant"})
			return
		}
		s, _ := v.(string)
		g := approvalGrant[s]
		why := "Codex asks before commands that need to leave the sandbox"
		if s == "never" {
			why = "Codex never asks: every command runs without a prompt (inside the sandbox mode in force)"
		}
		c.Settings = append(c.Settings, Setting{Key: key, Value: s, Line: t.Line(key), Grant: g, Check: CheckAllow, Why: why})
	case "sandbox_mode":
		s, _ := v.(string)
		g := sandboxGrant[s]
		why := map[string]string{
			"read-only":          "commands may read but not write",
			"workspace-write":    "commands may write the project and /tmp",
			"danger-full-access": "no sandbox: commands reach the whole file system and the network",
		}[s]
		c.Settings = append(c.Settings, Setting{Key: key, Value: s, Line: t.Line(key), Grant: g, Check: CheckSandbox, Why: why})
	case "sandbox_workspace_write":
		m, _ := v.(map[string]any)
		for _, sk := range sortedKeys(m) {
			sv := m[sk]
			kk := key + "." + sk
			switch sk {
			case "network_access":
				if b, _ := sv.(bool); b {
					c.Settings = append(c.Settings, Setting{Key: kk, Value: "true", Line: t.Line(kk), Grant: 1, Check: CheckSandbox,
						Why: "sandboxed commands reach the network"})
				}
			case "writable_roots":
				roots, _ := sv.([]any)
				for _, r := range roots {
					rs := fmt.Sprint(r)
					g, why := 1, "sandboxed commands may write "+rs
					if rs == "/" || rs == "~" || strings.HasPrefix(rs, "~/") || rs == "$HOME" {
						g, why = 2, "sandboxed commands may write "+rs+": the whole file system or the home folder"
					}
					c.Settings = append(c.Settings, Setting{Key: kk + "[" + rs + "]", Value: rs, Line: t.Line(kk), Grant: g, Check: CheckSandbox, Why: why})
				}
			case "exclude_tmpdir_env_var", "exclude_slash_tmp":
				if b, _ := sv.(bool); b {
					c.Settings = append(c.Settings, Setting{Key: kk, Value: "true", Line: t.Line(kk), Grant: -1, Check: CheckSandbox,
						Why: "a temporary folder is no longer writable"})
				}
			default:
				c.Settings = append(c.Settings, Setting{Key: kk + " = " + canon(sv), Value: canon(sv), Line: t.Line(kk), Grant: 1, Check: CheckSandbox,
					Why: "a sandbox key Shipgate does not model: reviewed as a loosening"})
			}
		}
	case "shell_environment_policy":
		m, _ := v.(map[string]any)
		for _, sk := range sortedKeys(m) {
			sv := m[sk]
			kk := key + "." + sk
			switch sk {
			case "inherit":
				s, _ := sv.(string)
				g := map[string]int{"none": -2, "core": -1, "all": 0}[s]
				if _, ok := map[string]int{"none": -2, "core": -1, "all": 0}[s]; !ok {
					g = 1
				}
				c.Settings = append(c.Settings, Setting{Key: kk, Value: s, Line: t.Line(kk), Grant: g, Check: CheckEnv,
					Why: "which of the user's environment variables commands inherit"})
			case "ignore_default_excludes":
				if b, _ := sv.(bool); b {
					c.Settings = append(c.Settings, Setting{Key: kk, Value: "true", Line: t.Line(kk), Grant: 1, Check: CheckEnv,
						Why: "variables named like *KEY*, *SECRET*, *TOKEN* reach every command"})
				}
			case "exclude", "include_only":
				list, _ := sv.([]any)
				for _, e := range list {
					es := fmt.Sprint(e)
					c.Settings = append(c.Settings, Setting{Key: kk + "[" + es + "]", Value: es, Line: t.Line(kk), Grant: -1, Check: CheckEnv,
						Why: "keeps variables out of commands' environment"})
				}
			case "set":
				sm, _ := sv.(map[string]any)
				for _, name := range sortedKeys(sm) {
					val := canon(sm[name])
					c.Settings = append(c.Settings, Setting{Key: kk + "." + name + " = " + val, Value: val, Line: t.Line(kk + "." + name), Grant: 1, Check: CheckEnv,
						Why: "sets " + name + " for every command Codex runs"})
				}
			default:
				c.Settings = append(c.Settings, Setting{Key: kk + " = " + canon(sv), Value: canon(sv), Line: t.Line(kk), Grant: 1, Check: CheckEnv,
					Why: "an environment key Shipgate does not model: reviewed"})
			}
		}
	}
}

// combined adds the composite setting that blocks: sandbox_mode
// danger-full-access in one layer (a profile inherits the top level's
// values it does not set) under any approval policy that lets a command run
// without asking first. With no sandbox nothing needs an escalation, so
// on-request (the default) asks only when the model chooses to and
// on-failure asks only after a command fails — neither stops a command
// before it runs; never does not ask at all. A granular approval table is
// left to its own setting (reviewed).
func (c *Config) combined(t *Table, pre string, layer, top map[string]any) {
	get := func(k string) (any, bool) {
		if v, ok := layer[k]; ok {
			return v, true
		}
		v, ok := top[k]
		return v, ok
	}
	if s, _ := get("sandbox_mode"); s != "danger-full-access" {
		return
	}
	approval := "on-request"
	if v, ok := get("approval_policy"); ok {
		s, isString := v.(string)
		if !isString {
			return
		}
		approval = s
	}
	var why string
	switch approval {
	case "never":
		why = "every command runs without a prompt and without a sandbox: the agent may run anything"
	case "on-request", "on-failure":
		why = "commands run without a sandbox, and approval_policy " + approval + " asks only when the model requests it or a command fails: " +
			"nothing stops a command before it runs, so the agent may run anything (use workspace-write, or prompt rules for what needs full access)"
	default:
		return
	}
	line := t.Line(pre + "approval_policy")
	if _, ok := layer["approval_policy"]; !ok {
		line = t.Line(pre + "sandbox_mode")
	}
	if pre != "" {
		line = t.Line(strings.TrimSuffix(pre, "."))
		why += " (in the profile " + strings.TrimSuffix(strings.TrimPrefix(pre, "profiles."), ".") + ", when a user selects it)"
	}
	c.Settings = append(c.Settings, Setting{Key: pre + "approval_policy+sandbox_mode", Value: approval + " + danger-full-access",
		Line: line, Grant: 1, Exec: true, Check: CheckAllow, Why: why})
}

// command adds a value that is a command Codex runs (notify, hooks): any
// change is reviewed.
func (c *Config) command(t *Table, k string, v any) {
	c.Settings = append(c.Settings, Setting{Key: k + " = " + canon(v), Value: canon(v), Line: t.Line(k), Grant: 1, Check: CheckHook,
		Why: "a command Codex runs itself (outside the approval flow)"})
}

// traffic adds a value that redirects model traffic (the code and prompts
// Codex sends).
func (c *Config) traffic(t *Table, k string, v any) {
	c.Settings = append(c.Settings, Setting{Key: k + " = " + canon(v), Value: canon(v), Line: t.Line(k), Grant: 1, Check: CheckEnv,
		Why: "changes where Codex sends prompts and code (a model provider or base URL)"})
}

// server reads an mcp_servers entry.
func server(name string, v any, line int) Server {
	m, _ := v.(map[string]any)
	summary := "stdio server"
	if cmd, ok := m["command"].(string); ok {
		summary = "stdio server running " + cmd
	} else if u, ok := m["url"].(string); ok {
		summary = "HTTP server at " + u
	}
	return Server{Name: name, Summary: summary, Canon: canon(v), Line: line}
}

// canon is a value's canonical text (JSON with sorted keys).
func canon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validate refuses the values Codex 0.169.0 refuses to start with: an
// approval_policy or sandbox_mode it does not know, of the wrong type.
func validate(path string, t *Table, pre string, layer map[string]any) error {
	if v, ok := layer["approval_policy"]; ok {
		s, isStr := v.(string)
		m, isTable := v.(map[string]any)
		switch {
		case isStr && s == "untrusted":
			return &ParseError{Path: path, Line: t.Line(pre + "approval_policy"),
				Msg: `approval_policy = "untrusted" is no longer supported (Codex 0.169.0 refuses to start)`}
		case isStr:
			if _, ok := approvalGrant[s]; !ok {
				return &ParseError{Path: path, Line: t.Line(pre + "approval_policy"),
					Msg: fmt.Sprintf("approval_policy %q is not one Codex 0.169.0 accepts (on-request, on-failure, never): it refuses to start", s)}
			}
		case isTable && len(m) == 1 && m["granular"] != nil:
		default:
			return &ParseError{Path: path, Line: t.Line(pre + "approval_policy"),
				Msg: "approval_policy must be a string or a granular table: Codex 0.169.0 refuses to start"}
		}
	}
	if v, ok := layer["sandbox_mode"]; ok {
		s, _ := v.(string)
		if _, ok := sandboxGrant[s]; !ok {
			return &ParseError{Path: path, Line: t.Line(pre + "sandbox_mode"),
				Msg: fmt.Sprintf("sandbox_mode %s is not one Codex 0.169.0 accepts (read-only, workspace-write, danger-full-access): it refuses to start", canon(v))}
		}
	}
	return nil
}

// Effective is what a Codex session started in a trusted project reads
// from the project's config.toml alone (no user config beyond the trust):
// the approval policy, the sandbox mode, whether sandboxed commands reach
// the network, and the writable roots of workspace-write (the project,
// /tmp and $TMPDIR unless excluded, and the configured roots). A profile
// key in the project's file does not select a profile (measured).
type Effective struct {
	Approval, Sandbox string
	Network           bool
	Roots             []string
}

// EffectiveConfig computes Effective for a project folder and $TMPDIR
// ("" when unset).
func EffectiveConfig(path string, data []byte, project, tmpdir string) (Effective, error) {
	t, err := ReadTOML(path, data)
	if err != nil {
		return Effective{}, err
	}
	if err := validate(path, t, "", t.Values); err != nil {
		return Effective{}, err
	}
	e := Effective{Approval: "on-request", Sandbox: "workspace-write"}
	if s, ok := t.Values["approval_policy"].(string); ok {
		e.Approval = s
	}
	if s, ok := t.Values["sandbox_mode"].(string); ok {
		e.Sandbox = s
	}
	sww, _ := t.Values["sandbox_workspace_write"].(map[string]any)
	switch e.Sandbox {
	case "danger-full-access":
		e.Network = true
	case "workspace-write":
		e.Network, _ = sww["network_access"].(bool)
		roots := map[string]bool{project: true}
		if b, _ := sww["exclude_slash_tmp"].(bool); !b {
			roots["/tmp"] = true
		}
		if b, _ := sww["exclude_tmpdir_env_var"].(bool); !b && tmpdir != "" {
			roots[tmpdir] = true
		}
		if rs, ok := sww["writable_roots"].([]any); ok {
			for _, r := range rs {
				if s, ok := r.(string); ok {
					roots[s] = true
				}
			}
		}
		for r := range roots {
			e.Roots = append(e.Roots, r)
		}
		sort.Strings(e.Roots)
	}
	return e, nil
}
