package claude

import (
	"bytes"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Claude Code 2.1.328 parses a frontmatter block with Bun.YAML.parse and,
// when that throws, tries once more on a respelling of the block (read
// from the binary's frontmatter parser): every line of the form
// `key: value` (a key of letters, `_` and `-` at the line's start) whose
// value is not already quoted, is not a flow list that parses, and holds
// `: ` or one of YAML's special characters {}[]*&#!|>%@` is rewritten as
// `key: "value"` (backslashes and double quotes escaped), and leading
// tabs become two spaces each. Only when that parse throws too is the
// block ignored. So the subagent frontmatter Claude Code's own /agents
// writes — `description: Use this agent when … Examples: <example>Context:
// …` on one line, not valid YAML — is read, its tools, hooks and
// permissionMode included (issue 22: 25 flagged pairs of the corpus).
//
// The regular expressions below are the binary's, with JavaScript's \s,
// \S and . spelt out (Go's \s is ASCII only, and JavaScript's . stops at
// \r, U+2028 and U+2029: a CRLF line is never rewritten).

const (
	jsSpace    = `\t\n\v\f\r \x{00a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
	jsDotClass = `[^\n\r\x{2028}\x{2029}]`
)

// retryLine is the binary's /^([a-zA-Z_-]+):\s+(\S.*)$/.
var retryLine = regexp.MustCompile(`^([a-zA-Z_-]+):[` + jsSpace + `]+([^` + jsSpace + `]` + jsDotClass + `*)$`)

// retrySpecial is the binary's /[{}[\]*&#!|>%@`]|: /.
var retrySpecial = regexp.MustCompile("[{}\\[\\]*&#!|>%@`]|: ")

// retryBlock is the block Claude Code parses when the block itself does
// not parse: raw is the block as the file holds it (a byte order mark
// dropped, line endings kept). ok is false when Shipgate cannot tell what
// the binary would make of a line — a `[…]` value its YAML parser does
// not read: Bun's may read it as a list, which is kept, or not, which is
// quoted — and the block then stays unreadable (fail closed).
func retryBlock(raw []byte) (out []byte, ok bool) {
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		m := retryLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		key, v := m[1], m[2]
		if strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) || strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") {
			continue
		}
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(v), &n); err != nil {
				return nil, false
			}
			if len(n.Content) == 1 && n.Content[0].Kind == yaml.SequenceNode {
				continue
			}
		}
		if retrySpecial.MatchString(v) {
			v = strings.ReplaceAll(v, `\`, `\\`)
			v = strings.ReplaceAll(v, `"`, `\"`)
			lines[i] = key + `: "` + v + `"`
		}
	}
	return leadingTabs([]byte(strings.Join(lines, "\n"))), true
}

// leadingTabs is the binary's .replace(/^\t+/gm, t => "  ".repeat(t.length)):
// a run of tabs at the start of the text or after a line terminator
// (\n, \r, U+2028, U+2029) becomes two spaces a tab.
func leadingTabs(b []byte) []byte {
	var out bytes.Buffer
	lineStart := true
	for i := 0; i < len(b); i++ {
		c := b[i]
		if lineStart && c == '\t' {
			out.WriteString("  ")
			continue
		}
		out.WriteByte(c)
		switch {
		case c == '\n' || c == '\r':
			lineStart = true
		case c == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9):
			out.WriteByte(b[i+1])
			out.WriteByte(b[i+2])
			i += 2
			lineStart = true
		default:
			lineStart = false
		}
	}
	return out.Bytes()
}
