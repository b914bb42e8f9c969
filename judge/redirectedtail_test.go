package judge

import (
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// TestRedirectedTail: a Bash pattern rule whose fixed text after its last
// star redirects to a file grants nothing (measured on 2.1.328:
// internal/conformance TestRedirectedTailRules); every shape in which a
// star's text could make the redirection something else is left to the
// search.
func TestRedirectedTail(t *testing.T) {
	for _, c := range []struct {
		rule string
		want bool
	}{
		{"Bash(task-master:*, npm install -g task-master-ai, mkdir -p, cat >, grep, echo, basename, date)", true},
		{"Bash(npm run * > out.txt)", true},
		{"Bash(npm run * >> log/out.txt)", true},
		{"Bash(npm run * >out.txt)", true},
		{"Bash(npm run * > /dev/null)", false}, // a redirection Claude Code lets run
		{"Bash(npm run * 2>&1)", false},
		{"Bash(npm run *)", false},
		{"Bash(npm run * x)", false},
		{"Bash(npm run *>out.txt)", false},         // not led by a blank inside the tail
		{"Bash(npm run * '>' out.txt)", false},     // quoted
		{"Bash(npm run * # > out.txt)", false},     // a comment
		{"Bash(npm run * ; cat > out.txt)", false}, // another command
		{"Bash(npm run * $(x) > out.txt)", false},
		{"Bash(* > out.txt)", false},           // no fixed word before the star
		{"Bash(npm run > out.txt)", false},     // exact: runs its line
		{"Bash(npm run:* > out.txt)", true},    // the star mid-pattern is a glob star
		{"Bash(npm > out.txt:*)", false},       // a legacy prefix rule
		{"Bash(npm run \\* > out.txt)", false}, // an escaped star: exact
		{"Read(./src/* > x)", false},
	} {
		_, got := redirectedTail(lattice.ParseIn(lattice.Allow, c.rule))
		if got != c.want {
			t.Errorf("redirectedTail(%s) = %v, want %v", c.rule, got, c.want)
		}
	}
	if _, ok := redirectedTail(lattice.ParseIn(lattice.Deny, "Bash(npm run * > out.txt)")); ok {
		t.Errorf("a deny rule: read as an allow rule")
	}
}
