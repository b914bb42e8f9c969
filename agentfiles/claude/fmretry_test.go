package claude

import (
	"strings"
	"testing"
)

// TestRetryBlock pins the respelling Claude Code 2.1.328 parses when a
// frontmatter block is not YAML (read from the binary's parser).
func TestRetryBlock(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"description: a: b", `description: "a: b"`, true},
		{"description:   spaced: out", `description: "spaced: out"`, true},
		{"name: plain", "name: plain", true},
		{`description: "already: quoted"`, `description: "already: quoted"`, true},
		{"description: 'single: quoted'", "description: 'single: quoted'", true},
		{`description: x "y": z \ w`, `description: "x \"y\": z \\ w"`, true},
		{"tools: [Read, Grep]", "tools: [Read, Grep]", true},
		{"tools: [Read", `tools: "[Read"`, true},
		{"tools: [a, {]", "", false},                                                 // an unclosed brace: Bun's reading not known, fail closed
		{"tools: [Read, Bash(npm *)] # c", `tools: "[Read, Bash(npm *)] # c"`, true}, // not ending in ]: quoted, comment and all
		{"tools: [Read, Grep] # c]", "tools: [Read, Grep] # c]", true},               // a list, then a comment
		{"argument-hint: [id] [reason]", `argument-hint: "[id] [reason]"`, true},
		{"x: a # comment", `x: "a # comment"`, true},
		{"a1: b: c", "a1: b: c", true},             // a digit is not in the binary's key pattern
		{"  nested: a: b", "  nested: a: b", true}, // an indented line is left
		{"d: a: b\r", "d: a: b\r", true},           // JavaScript's . stops at \r
		{"d: a\u2028: b", "d: a\u2028: b", true},   // and at U+2028
		{"d:\u00a0a: b", `d: "a: b"`, true},        // \s holds U+00A0
		{"k:\n\t\tv: 1\n\tw: 2", "k:\n    v: 1\n  w: 2", true},
		{"\tfirst", "  first", true},
		{"a\u2028\tb", "a\u2028  b", true},
	} {
		got, ok := retryBlock([]byte(c.in))
		if ok != c.ok || ok && string(got) != c.want {
			t.Errorf("retryBlock(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// FuzzRetryBlock holds the respelling's invariants: it keeps the line
// count (so every key keeps its line) and never panics.
func FuzzRetryBlock(f *testing.F) {
	for _, s := range []string{"description: a: b\nallowed-tools: Read", "k:\n\tv: [x", "x: \"y\": z\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := retryBlock([]byte(s))
		if !ok {
			return
		}
		if n, m := strings.Count(s, "\n"), strings.Count(string(got), "\n"); n != m {
			t.Fatalf("retryBlock(%q) has %d newlines, the block %d", s, m, n)
		}
	})
}
