package agent

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shipgate-app/shipgate/lattice"
)

func TestGlobs(t *testing.T) {
	cases := []struct {
		name    string
		re      lattice.RE
		yes, no []string
	}{
		{"star spans spaces and slashes", Glob("git * main"), []string{"git push origin main", "git a/b main"}, []string{"git main", "git push"}},
		{"question mark", Glob("ls ?"), []string{"ls a"}, []string{"ls", "ls ab"}},
		{"bare star", Glob("*"), []string{"rm -rf /", "x"}, nil},
		{"path star stays in a segment", PathGlob("src/*.go"), []string{"src/a.go"}, []string{"src/a/b.go", "a.go"}},
		{"double star", PathGlob("src/**"), []string{"src/a", "src/a/b.go"}, []string{"lib/a"}},
		{"double star slash", PathGlob("**/.env"), []string{".env", "a/.env", "a/b/.env"}, []string{"a.env", "x/.envrc"}},
		{"class", PathGlob("[ab].txt"), []string{"a.txt", "b.txt"}, []string{"c.txt"}},
		{"negated class", PathGlob("[!a].txt"), []string{"b.txt"}, []string{"a.txt", "/.txt"}},
		{"braces", PathGlob("*.{js,ts}"), []string{"a.js", "a.ts"}, []string{"a.go"}},
		{"unclosed bracket is literal", PathGlob("[a"), []string{"[a"}, []string{"a"}},
	}
	for _, c := range cases {
		l := lattice.MustCompile(c.re)
		for _, s := range c.yes {
			if !l.Match(s) {
				t.Errorf("%s: should match %q", c.name, s)
			}
		}
		for _, s := range c.no {
			if l.Match(s) {
				t.Errorf("%s: should not match %q", c.name, s)
			}
		}
	}
}

// FuzzGlobs: any pattern translates and compiles (or is refused with an
// error, never a panic), and a glob without wildcards matches exactly its
// own text.
func FuzzGlobs(f *testing.F) {
	for _, s := range []string{"git * main", "src/**", "**/.env", "[!a].txt", "*.{js,ts}", "[a", "{{{", "**/**/**"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		for _, re := range []lattice.RE{Glob(s), PathGlob(s)} {
			_, _ = lattice.Compile(re)
		}
		if !strings.ContainsAny(s, "*?") && utf8.ValidString(s) {
			l, err := lattice.Compile(Glob(s))
			if err == nil && !l.Match(s) {
				t.Fatalf("Glob(%q) does not match its own text", s)
			}
		}
	})
}
