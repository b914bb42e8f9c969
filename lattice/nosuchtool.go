package lattice

import (
	_ "embed"
	"strings"
	"sync"
)

// claudeNamesText lists every string literal of the ClaudeCodeVersion
// binary shaped like a tool name (internal/conformance
// TestToolNamesOnTheBinary derives it from the pinned binary and fails when
// it differs).
//
//go:embed claude_names.txt
var claudeNamesText string

var claudeNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(claudeNamesText, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
})

// maxToolName is the longest name claude_names.txt lists in full.
const maxToolName = 64

// toolNameShape reports a name the binary's literals were searched for:
// an ASCII capital, then ASCII letters and digits.
func toolNameShape(name string) bool {
	if name == "" || len(name) > maxToolName || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// NoSuchTool reports whether Claude Code ClaudeCodeVersion can have no tool
// named name, so that a rule naming it matches no call: the name is shaped
// like a built-in tool's (a capital, letters and digits: no "_", which the
// binary reads as a possible MCP tool, no "*"), Shipgate knows no tool or
// alias of that name, and the binary holds it nowhere as a string literal
// (claude_names.txt), in any mode or environment: a built-in tool, a
// legacy alias (Task, KillShell, Brief…), a removed tool the binary still
// names (TaskOutput) or a tool behind a flag (TodoWrite behind
// CLAUDE_CODE_ENABLE_TODO_TOOLS, ToolSearch behind ENABLE_TOOL_SEARCH) is
// spelled there. Measured (TestToolNamesOnTheBinary): a deny rule naming
// such a tool draws the binary's own warning "matches no known tool —
// check for typos", an allow rule changes no tool the session offers, and
// a call of it is answered "No such tool available". TodoRead is one (it
// was removed long before 2.1.328): claudekit's commands allow it.
// (An Agent SDK host that sets CLAUDE_AGENT_SDK_MCP_NO_PREFIX may offer an
// MCP tool under a bare name of its own choosing; a repository cannot.)
func NoSuchTool(name string) bool {
	if !toolNameShape(name) || KnownTool(name) {
		return false
	}
	if _, ok := toolsWithoutRule[name]; ok {
		return false
	}
	return !claudeNames()[name]
}
