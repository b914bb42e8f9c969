package rating

import (
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
)

// Mode permissiveness, from the most restrictive: plan, dontAsk (prompts
// become denials), default (= manual), acceptEdits (edits and filesystem
// commands run), auto (a classifier approves), bypassPermissions
// (everything not denied runs). Plan refuses edits and writes but is not
// below the others: its classifier may approve the Bash calls they ask
// about, so a change to plan is a grant whatever the rank says (judge's
// modeShift).
var modeRank = map[string]int{
	"plan":              1,
	"dontAsk":           2,
	"default":           3,
	"manual":            3,
	"acceptEdits":       4,
	"auto":              5,
	"bypassPermissions": 6,
}

// ModeRank returns a permission mode's permissiveness (higher is more
// permissive) and whether the mode is documented.
func ModeRank(mode string) (int, bool) {
	r, ok := modeRank[mode]
	return r, ok
}

// Mode rates a defaultMode value (shipgate-spec 3.6). A value Claude Code
// does not document is rated high: it cannot hide bypassPermissions behind
// a spelling the reviewer does not recognise.
func Mode(mode string, isString bool) Rating {
	if !isString {
		return Rating{Access: AccessUnknown, Risk: RiskHigh, Basis: "an undocumented, non-string permission mode"}
	}
	switch mode {
	case "bypassPermissions":
		return Rating{Access: AccessAdmin, Risk: RiskCritical, Wildcard: true, Basis: "every tool call not denied or asked runs without a prompt"}
	case "auto":
		return Rating{Access: AccessAdmin, Risk: RiskHigh, Basis: "a classifier approves tool calls (ignored from project settings since Claude Code 2.1.142 — on 2.1.328 in settings.json and settings.local.json alike, measured with a fake classifier approving — and honoured before, and from the user's own settings)"}
	case "acceptEdits":
		return Rating{Access: AccessWrite, Risk: RiskHigh, Basis: "file edits and filesystem commands in the working tree run without a prompt"}
	case "dontAsk":
		return Rating{Access: AccessUnknown, Risk: RiskMedium, Basis: "prompts become denials"}
	case "plan":
		return PlanMode
	case "default", "manual":
		return Rating{Access: AccessUnknown, Risk: RiskMedium, Basis: "a documented, prompting mode"}
	}
	return Rating{Access: AccessUnknown, Risk: RiskHigh, Basis: "an undocumented permission mode"}
}

// PlanMode rates defaultMode plan, rated like auto: measured on Claude Code
// 2.1.328 with the conformance harness's fake classifier, plan mode hands
// every call no rule decides (Bash, WebFetch, WebSearch, Agent) to the
// auto-mode classifier, a model on Anthropic's server whose approval runs
// it without a prompt (`npm publish`, `curl …`, `rm -rf build` ran), and
// reads any file without a prompt; only edits and writes are refused.
var PlanMode = Rating{Access: AccessAdmin, Risk: RiskHigh,
	Basis: "a classifier approves tool calls: plan mode hands every Bash, WebFetch, WebSearch and Agent call no rule decides to Claude Code " + lattice.ClaudeCodeVersion +
		"'s auto-mode classifier, which runs it without a prompt when it approves, and reads any file without a prompt (measured with a fake classifier)"}

// Switch rates a boolean-like settings switch by its key and JSON value.
// truthy is the JSON.parse truthiness of the value; isTrue says the value
// is exactly JSON true.
func Switch(key string, truthy, isTrue bool) Rating {
	switch key {
	case "skipDangerousModePermissionPrompt", "enableAllProjectMcpServers":
		if truthy {
			basis := "approves without a prompt"
			if key == "enableAllProjectMcpServers" {
				basis = "every .mcp.json server connects without approval"
			} else {
				basis = "bypass mode starts without its warning"
			}
			if !isTrue {
				basis += " (a truthy value other than true)"
			}
			return Rating{Access: AccessAdmin, Risk: RiskCritical, Wildcard: true, Basis: basis}
		}
		return Rating{Access: AccessUnknown, Risk: RiskMedium, Basis: "switched off"}
	case "disableBypassPermissionsMode", "disableAutoMode":
		return Rating{Access: AccessUnknown, Risk: RiskMedium, Basis: "a mode lock"}
	}
	return Rating{Access: AccessUnknown, Risk: RiskMedium, Basis: "a managed-only or hook switch"}
}

// MCPServerApproval rates an enabledMcpjsonServers entry: a named server
// of .mcp.json connects without asking.
func MCPServerApproval() Rating {
	return Rating{Access: AccessExternal, Risk: RiskHigh, Basis: "an .mcp.json server connects without approval"}
}

// MCPServer rates an MCP server declaration (.mcp.json): a stdio server is
// a command Claude Code spawns; a remote one is a host it talks to.
func MCPServer() Rating {
	return Rating{Access: AccessExternal, Risk: RiskHigh, Basis: "a tool surface the agent may call"}
}

// Hook rates a hook handler: it runs a command (or calls out) around the
// agent's actions, and a PreToolUse or PermissionRequest hook can approve
// tool calls.
func Hook(event string) Rating {
	r := Rating{Access: AccessExecute, Risk: RiskHigh, Basis: "runs around the agent's actions"}
	switch event {
	case "PreToolUse", "PermissionRequest":
		r.Access = AccessAdmin
		r.Basis = "runs before tool calls and may approve them without a prompt"
	}
	return r
}

// Helper rates a command helper setting (apiKeyHelper, statusLine, …): a
// command Claude Code runs itself, in `claude -p` even before trust.
func Helper(key string) Rating {
	switch key {
	case "policyHelper", "policyHelpers", "processWrapper":
		return Rating{Access: AccessNone, Risk: RiskLow, Basis: "honoured only from user or managed settings: inert in a project file"}
	case "proxyAuthHelper":
		// 2.1.328 runs a project or local file's proxyAuthHelper once the
		// folder is trusted, where CLAUDE_CODE_ENABLE_PROXY_AUTH_HELPER is
		// set (read from the binary).
		return Rating{Access: AccessExecute, Risk: RiskHigh, Basis: "a command Claude Code runs for the proxy's credentials once the folder is trusted, where CLAUDE_CODE_ENABLE_PROXY_AUTH_HELPER is set"}
	}
	return Rating{Access: AccessExecute, Risk: RiskHigh, Basis: "a command Claude Code runs itself, in claude -p even before the folder is trusted"}
}

// sensitiveEnv lists environment variables that change what code runs or
// where traffic goes: loader and interpreter injection, command prefixes,
// API endpoints and credentials, proxies and certificate trust.
var sensitiveEnv = map[string]string{
	"NODE_OPTIONS": "injects Node.js options (--require runs code)", "LD_PRELOAD": "preloads a shared library into every process",
	"LD_LIBRARY_PATH": "changes which libraries load", "PATH": "changes which executables run",
	"PYTHONPATH": "changes which Python modules load", "PYTHONSTARTUP": "runs a Python file at interpreter start",
	"PERL5OPT": "injects Perl options", "RUBYOPT": "injects Ruby options", "BASH_ENV": "runs a file at every non-interactive bash start",
	"ENV": "runs a file at sh start", "GIT_SSH_COMMAND": "replaces the ssh git runs", "GIT_EXTERNAL_DIFF": "runs a command on git diff",
	"ANTHROPIC_BASE_URL": "redirects all API traffic", "ANTHROPIC_API_KEY": "sets the API credential", "ANTHROPIC_AUTH_TOKEN": "sets the API credential",
	"CLAUDE_CODE_SHELL_PREFIX": "wraps every shell command Claude runs", "HTTP_PROXY": "routes traffic through a proxy",
	"HTTPS_PROXY": "routes traffic through a proxy", "ALL_PROXY": "routes traffic through a proxy", "NO_PROXY": "bypasses the proxy",
	"NODE_EXTRA_CA_CERTS": "trusts extra certificate authorities", "SSL_CERT_FILE": "replaces trusted certificate authorities",
	"NODE_TLS_REJECT_UNAUTHORIZED": "turns off TLS verification", "CLAUDE_CODE_USE_BEDROCK": "changes the API provider",
	"CLAUDE_CODE_USE_VERTEX": "changes the API provider", "DISABLE_AUTOUPDATER": "pins the client version",
}

// ClaudeTuningEnv lists Claude Code's own tuning variables: each bounds a
// limit, a timeout or the telemetry of Claude Code itself, and changes no
// command, file, endpoint or credential an agent reaches (documented in
// Claude Code's settings reference; internal/conformance checks that the
// pinned binary reads every name, so a name it dropped fails as a row).
// Setting one is advisory, not a review: on real histories
// MAX_THINKING_TOKENS was the one ENV-CHANGED finding judged noise
// (docs/accuracy.md).
var ClaudeTuningEnv = map[string]string{
	"MAX_THINKING_TOKENS":                      "the model's thinking budget",
	"CLAUDE_CODE_MAX_OUTPUT_TOKENS":            "the model's output limit",
	"MAX_MCP_OUTPUT_TOKENS":                    "the size of an MCP tool's answer",
	"BASH_DEFAULT_TIMEOUT_MS":                  "the default timeout of a Bash call",
	"BASH_MAX_TIMEOUT_MS":                      "the longest timeout a Bash call may ask for",
	"BASH_MAX_OUTPUT_LENGTH":                   "how much of a command's output the model sees",
	"MCP_TIMEOUT":                              "how long an MCP server may take to start",
	"MCP_TOOL_TIMEOUT":                         "how long an MCP tool call may take",
	"DISABLE_TELEMETRY":                        "turns Claude Code's telemetry off",
	"DISABLE_ERROR_REPORTING":                  "turns Claude Code's error reports off",
	"DISABLE_BUG_COMMAND":                      "turns the /bug command off",
	"DISABLE_COST_WARNINGS":                    "turns cost warnings off",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "turns Claude Code's non-essential traffic off",
	"CLAUDE_CODE_DISABLE_TERMINAL_TITLE":       "stops Claude Code setting the terminal title",
	"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "returns Bash to the project folder after each command",
	"DISABLE_PROMPT_CACHING":                   "turns prompt caching off",
}

// Env rates an environment variable set by a settings file; the value is
// never read. The reason is empty for ordinary variables. One of
// ClaudeTuningEnv rates AccessNone, RiskLow.
func Env(name string) (Rating, string) {
	upper := strings.ToUpper(name)
	if why, ok := sensitiveEnv[upper]; ok {
		return Rating{Access: AccessAdmin, Risk: RiskHigh, Basis: why}, why
	}
	if what, ok := ClaudeTuningEnv[name]; ok {
		return Rating{Access: AccessNone, Risk: RiskLow, Basis: "Claude Code's own tuning (" + what + "): it changes no command, file or endpoint the agent reaches"}, ""
	}
	switch {
	case strings.HasPrefix(upper, "DYLD_"):
		return Rating{Access: AccessAdmin, Risk: RiskHigh, Basis: "changes what the macOS loader loads"}, "changes what the macOS loader loads"
	case strings.HasPrefix(upper, "GIT_CONFIG"):
		return Rating{Access: AccessAdmin, Risk: RiskHigh, Basis: "injects git configuration (hooks, pagers)"}, "injects git configuration (hooks, pagers)"
	case strings.HasPrefix(upper, "NPM_CONFIG_"):
		return Rating{Access: AccessExecute, Risk: RiskHigh, Basis: "changes npm configuration (registries, scripts)"}, "changes npm configuration (registries, scripts)"
	case strings.HasSuffix(upper, "_PROXY"):
		return Rating{Access: AccessExternal, Risk: RiskHigh, Basis: "routes traffic through a proxy"}, "routes traffic through a proxy"
	}
	return Rating{Access: AccessUnknown, Risk: RiskMedium, Basis: "an environment variable for the session and its subprocesses"}, ""
}

// AdditionalDirectory rates an additionalDirectories entry: file access
// beyond the project, worst when it leaves the repository.
func AdditionalDirectory(dir string) Rating {
	d := strings.TrimSpace(dir)
	switch {
	case d == "/" || d == "~" || d == "~/" || d == "//":
		return Rating{Access: AccessWrite, Risk: RiskCritical, Wildcard: true, Basis: "grants file access to the whole filesystem or home directory"}
	case strings.HasPrefix(d, "/") || strings.HasPrefix(d, "~") || strings.Contains(d, "..") || (len(d) > 1 && d[1] == ':'):
		return Rating{Access: AccessWrite, Risk: RiskHigh, Basis: "grants file access outside the repository"}
	}
	return Rating{Access: AccessWrite, Risk: RiskMedium, Basis: "grants file access to another directory"}
}

// Sandbox rates a sandbox setting change that loosens the OS boundary.
func Sandbox(key string) Rating {
	switch key {
	case "enabled", "allowUnsandboxedCommands", "autoAllowBashIfSandboxed":
		return Rating{Access: AccessAdmin, Risk: RiskHigh, Basis: "loosens the OS sandbox around Bash"}
	}
	return Rating{Access: AccessUnknown, Risk: RiskHigh, Basis: "widens what sandboxed commands may reach"}
}

// Plugin rates an enabled plugin or marketplace: plugins bring hooks, MCP
// servers and agents.
func Plugin() Rating {
	return Rating{Access: AccessExecute, Risk: RiskHigh, Basis: "a plugin brings hooks, MCP servers and agents"}
}
