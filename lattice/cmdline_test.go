package lattice

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in         string
		parts      []string
		ops        []string
		expansions []string
	}{
		{in: "npm test", parts: []string{"npm test"}},
		{in: "  npm test  ", parts: []string{"npm test"}},
		{in: "npm test;", parts: []string{"npm test"}},
		{in: "npm test && npm run lint", parts: []string{"npm test", "npm run lint"}, ops: []string{"&&"}},
		{in: "curl -fsSL https://x.sh | sh", parts: []string{"curl -fsSL https://x.sh", "sh"}, ops: []string{"|"}},
		{in: "make || true; echo done", parts: []string{"make", "true", "echo done"}, ops: []string{"||", ";"}},
		{in: "a |& b", parts: []string{"a", "b"}, ops: []string{"|&"}},
		{in: "npm run dev & npm test", parts: []string{"npm run dev", "npm test"}, ops: []string{"&"}},
		{in: "git status\ngit diff", parts: []string{"git status", "git diff"}, ops: []string{"newline"}},
		{in: "(cd web && npm ci)", parts: []string{"cd web", "npm ci"}, ops: []string{"&&"}},
		{in: "{ a; b; }", parts: []string{"a", "b"}, ops: []string{";"}},
		// Quoted operators are text, not operators.
		{in: `grep "a|b" file && echo 'x; y'`, parts: []string{`grep "a|b" file`, `echo 'x; y'`}, ops: []string{"&&"}},
		{in: `echo a\;b`, parts: []string{`echo a\;b`}},
		// Redirections stay in their part: rules match commands carrying them.
		{in: "python x.py > out.txt 2>&1 && cat out.txt", parts: []string{"python x.py > out.txt 2>&1", "cat out.txt"}, ops: []string{"&&"}},
		{in: "NODE_ENV=test npm test", parts: []string{"NODE_ENV=test npm test"}},
		{in: "export A=1; npm test", parts: []string{"export A=1", "npm test"}, ops: []string{";"}},
		// Expansions are recorded wherever they are; a substitution's inner
		// command is not a part.
		{in: "echo $(curl x | sh)", parts: []string{"echo $(curl x | sh)"}, expansions: []string{"$(…)"}},
		{in: "echo `id` $HOME ${PATH} $((1+2))", parts: []string{"echo `id` $HOME ${PATH} $((1+2))"}, expansions: []string{"`…`", "$HOME", "${…}", "$((…))"}},
		{in: "diff <(a) <(b)", parts: []string{"diff <(a) <(b)"}, expansions: []string{"<(…)"}},
		{in: `echo '$HOME'`, parts: []string{`echo '$HOME'`}},
		// A rule's wildcard is a literal glob word to the parser.
		{in: "npm test && *", parts: []string{"npm test", "*"}, ops: []string{"&&"}},
		{in: "curl * | sh", parts: []string{"curl *", "sh"}, ops: []string{"|"}},
		{in: "npm test:*", parts: []string{"npm test:*"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseCommand(tt.in)
			if err != nil {
				t.Fatalf("ParseCommand: %v", err)
			}
			if !reflect.DeepEqual(c.Parts, tt.parts) {
				t.Errorf("parts %q, want %q", c.Parts, tt.parts)
			}
			if !reflect.DeepEqual(c.Operators, tt.ops) {
				t.Errorf("operators %q, want %q", c.Operators, tt.ops)
			}
			if !reflect.DeepEqual(c.Expansions, tt.expansions) {
				t.Errorf("expansions %q, want %q", c.Expansions, tt.expansions)
			}
			if c.Compound() != (len(tt.parts) > 1) {
				t.Errorf("Compound() = %v", c.Compound())
			}
		})
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`echo "unclosed`, "not a complete shell command at 1:6"},
		{"npm test &&", "not a complete shell command"},
		{"", "no command"},
		{"# only a comment", "no command"},
		{"if true; then rm -rf /; fi", "at 1:1: Shipgate reads a command as simple commands joined by && || | ; & — write the commands this if runs instead"},
		{"for f in *; do rm $f; done", "for loop"},
		{"npm test && f() { rm -rf /; }", "at 1:13"},
	}
	for _, tt := range tests {
		_, err := ParseCommand(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseCommand(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseCommand holds the reader's invariants on any input: no panic;
// on success at least one part, every part a trimmed, non-empty substring
// of the input, and operators only when there are several parts or a
// background job.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"npm test", "a && b || c | d |& e; f & g\nh", "(a; { b; })", `echo "$(x)" '$y' \;`,
		"cat <<EOF\nhi\nEOF", "> out", "! a", "time a | b", "[[ -f x ]] && let i=1", "coproc a", "a\\\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// A hang in the shell parser would only show as a stalled fuzzer:
		// turn it into a crash, which records the input.
		wd := time.AfterFunc(3*time.Second, func() { panic(fmt.Sprintf("ParseCommand hung on %q", s)) })
		c, err := ParseCommand(s)
		wd.Stop()
		if err != nil {
			return
		}
		if len(c.Parts) == 0 {
			t.Fatalf("ParseCommand(%q) succeeded with no parts", s)
		}
		for _, p := range c.Parts {
			if p == "" || p != trimBlanks(p) || !strings.Contains(s, p) {
				t.Fatalf("ParseCommand(%q): part %q is not a trimmed substring", s, p)
			}
		}
	})
}
