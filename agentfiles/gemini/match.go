package gemini

import (
	"strings"
	"unicode/utf8"
)

// Call is a tool call: a tool name and, for the shell tool, its command.
type Call struct {
	Tool    string
	Command string
}

// Boundary reports whether r may follow a command prefix: Gemini's
// pattern requires, after the JSON-encoded prefix, a character of JS's \s
// or a `"` in the JSON text of the arguments — a blank (space or one of
// Unicode's spaces; tab and newline are escaped in JSON and do not count),
// the end of the command, or a double quote in it.
func Boundary(r rune) bool {
	switch r {
	case ' ', '"', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// MatchesPrefix reports whether command starts with prefix followed by a
// boundary or its end.
func MatchesPrefix(prefix, command string) bool {
	if !strings.HasPrefix(command, prefix) {
		return false
	}
	rest := command[len(prefix):]
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return Boundary(r)
}

// ServerOf is the MCP server a tool name names: mcp_<server>_<tool>, the
// server running to the first underscore (Gemini's parseMcpToolName), ""
// for other tools.
func ServerOf(tool string) string {
	if !strings.HasPrefix(tool, "mcp_") {
		return ""
	}
	rest := tool[len("mcp_"):]
	i := strings.IndexByte(rest, '_')
	if i <= 0 || i == len(rest)-1 {
		return ""
	}
	return rest[:i]
}

// Matches reports whether the rule matches a call (PolicyEngine's
// ruleMatches for the rules settings produce, in the default mode).
func (r Rule) Matches(c Call) bool {
	srv := ServerOf(c.Tool)
	if r.MCPName != "" {
		if r.MCPName == "*" {
			if srv == "" {
				return false
			}
		} else if srv != r.MCPName {
			return false
		}
	}
	switch {
	case r.Tool == "*":
	case r.Tool == "mcp_*":
		if srv == "" {
			return false
		}
	case strings.HasPrefix(r.Tool, "mcp_") && strings.HasSuffix(r.Tool, "_*"):
		want := strings.TrimSuffix(strings.TrimPrefix(r.Tool, "mcp_"), "_*")
		if srv == "" || srv != want || !strings.HasPrefix(c.Tool, "mcp_"+want+"_") {
			return false
		}
	case strings.Contains(r.Tool, "*"):
		if c.Tool != r.Tool {
			return false
		}
	default:
		if c.Tool != r.Tool {
			return false
		}
	}
	if r.HasPrefix {
		if c.Tool != ShellTool && c.Tool != ShellToolAlias {
			return false
		}
		return MatchesPrefix(r.Prefix, c.Command)
	}
	return true
}

// Decide is the settings tier's decision for a simple call (one command,
// no shell operators or redirections): the first matching rule in
// evaluation order. decided is false when no settings rule matches and
// Gemini's defaults (its default policies and heuristics) decide.
func Decide(rules []Rule, c Call) (d Decision, r *Rule, decided bool) {
	sorted := Sorted(rules)
	for i := range sorted {
		if sorted[i].Matches(c) {
			return sorted[i].Decision, &sorted[i], true
		}
	}
	return AskUser, nil, false
}
