package claude

import (
	"bytes"
	"regexp"
	"strings"
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

// BunVersion is the Bun runtime Claude Code 2.1.328 is built on (its
// binary says "Bun v1.4.4", TestBunVersionIsClaudeCodes): Bun.YAML.parse
// reads a frontmatter block and decides which `[…]` values the retry
// keeps as lists. The tests hold flowList and whole blocks' readings to
// it, run from the pinned npm package @oven/bun-linux-x64 (make bun).
const BunVersion = "1.4.4"

// retryBlock is the block Claude Code parses when the block itself does
// not parse: raw is the block as the file holds it (a byte order mark
// dropped, line endings kept). A `[…]` value is kept when it parses as a
// list and quoted otherwise, as the binary does with Bun's parser; ok is
// false when flowList cannot tell which (otherValue), and the block then
// stays unreadable (fail closed).
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
			switch flowList(v) {
			case isList:
				continue
			case notYAMLValue:
				// Bun throws (TestRetryFlowListsAgainstBun:
				// "[issue-id] [reason]"): the binary quotes it, below.
			default:
				return nil, false
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

// flowReading is what Shipgate can tell of Bun's reading of a `[…]`
// value.
type flowReading int

const (
	isList       flowReading = iota // a list: the retry keeps it
	notYAMLValue                    // Bun throws: the retry quotes it
	otherValue                      // not known: the block stays unreadable (fail closed)
)

// flowList says what Bun.YAML.parse makes of a `[…]` value, where
// Shipgate can tell (held to Bun by TestRetryFlowListsAgainstBun): text
// after the list closes, other than a comment ("[issue-id] [reason]"),
// is refused; a list of plain words and quoted strings is a list
// (`[Read, Bash(npm *)]`); anything else — nested lists and maps,
// indicators, tags, anchors, an unclosed bracket — is left unknown
// (go.yaml.in/yaml/v3 and Bun disagree on several such shapes).
func flowList(v string) flowReading {
	end := flowEnd(v)
	if end < 0 {
		return otherValue
	}
	if end < len(v)-1 {
		tail := v[end+1:]
		t := strings.TrimLeft(tail, " \t")
		if len(t) == len(tail) || !strings.HasPrefix(t, "#") {
			return notYAMLValue
		}
		v = v[:end+1] // a comment follows the list
	}
	if simpleFlowList(v) {
		return isList
	}
	return otherValue
}

// simpleFlowList reports whether v is "[" elements "]" where every
// element is a plain word (no YAML indicator first, no ": ", " #", brace
// or bracket) or a whole quoted string, and none is empty but in "[]".
func simpleFlowList(v string) bool {
	inner := strings.TrimSpace(v[1 : len(v)-1])
	if inner == "" {
		return true
	}
	for _, e := range splitFlow(inner) {
		e = strings.Trim(e, " \t")
		switch {
		case e == "":
			return false
		case e[0] == '\'' || e[0] == '"':
			if !wholeQuoted(e) {
				return false
			}
		case strings.ContainsAny(e[:1], "-?:,[]{}#&*!|>%@`") || strings.ContainsAny(e, "[]{}\t") ||
			strings.Contains(e, ": ") || strings.Contains(e, " #") || strings.HasSuffix(e, ":"):
			return false
		}
	}
	return true
}

// splitFlow splits a flow list's inside on commas outside quoted strings
// (a quote opens one only as an element's first character).
func splitFlow(s string) []string {
	var out []string
	start, elem := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ',':
			out = append(out, s[start:i])
			start, elem = i+1, true
			continue
		case c == ' ' || c == '\t':
			continue
		case elem && (c == '\'' || c == '"'):
			i = quoteEnd(s, i)
			if i < 0 {
				return append(out, s[start:])
			}
		}
		elem = false
	}
	return append(out, s[start:])
}

// quoteEnd is the index of the quote closing the one at s[i], -1 if none
// ('…' holds a doubled single quote, "…" backslash escapes).
func quoteEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case q == '"' && s[j] == '\\':
			j++
		case s[j] == q && q == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++
		case s[j] == q:
			return j
		}
	}
	return -1
}

// wholeQuoted reports whether e is one quoted string and nothing more.
func wholeQuoted(e string) bool {
	return quoteEnd(e, 0) == len(e)-1
}

// flowEnd is the index of the bracket that closes the flow collection v
// opens (v[0] is '['), -1 when none does: brackets and braces nest, and a
// quote that opens a scalar (first after '[', '{', ',' or ':' and blanks)
// holds none until it closes (quoteEnd); a quote inside a plain scalar
// (it's) is text.
func flowEnd(v string) int {
	depth := 0
	start := false // the next non-blank character starts a scalar
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == ' ' || c == '\t':
			continue
		case c == '[' || c == '{':
			depth++
			start = true
			continue
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i
			}
		case c == ',' || c == ':':
			start = true
			continue
		case start && (c == '\'' || c == '"'):
			if i = quoteEnd(v, i); i < 0 {
				return -1
			}
		}
		start = false
	}
	return -1
}
