package hookscript

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommandTokens(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string
	}{
		{"", nil},
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, []string{"git", "rev-parse", "--show-toplevel", "scripts", "guard.sh"}},
		{`python3 -m scripts.guard`, []string{"python3", "-m", "scripts.guard"}},
		{`bash -c "$HOOKS/x.sh && echo ok"`, []string{"bash", "-c", "HOOKS", "x.sh", "echo", "ok"}},
		{"é/a_b.c", []string{"a_b.c"}},
	}
	for _, c := range cases {
		if got := CommandTokens(c.cmd); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CommandTokens(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestMentions(t *testing.T) {
	cases := []struct {
		cmd, path string
		want      bool
	}{
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "scripts/guard.sh", true},
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "other/guard.sh", true}, // over-approximates: any guard.sh
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "scripts/guard.py", false},
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "scripts/myguard.sh", false},
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "scripts/guard.sh.bak", true}, // guard.sh as a module-style stem: over-approximates
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "scripts/guard.shx", false},
		{`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "README.md", false},
		{`python3 -m scripts.guard`, "scripts/guard.py", true},
		{`python3 -m guard`, "guard.py", true},
		{`python3 -m scripts.guard`, "scripts/scripts.py", false},
		{`python3 -m scripts.guardian`, "scripts/guard.py", false},
		{`bash -c "$DIR/run"`, "bin/run", true},
		{`bash -c "$DIR/run"`, "bin/run.sh", true},
		{`bash -c "$DIR/run"`, "bin/runner", false},
		{`node "$X"`, "src/main.go", false},
		{`x ./a\b.sh`, `a\b.sh`, true}, // a backslash separates folders, as Classify reads it
	}
	for _, c := range cases {
		if got := Mentions(c.cmd, c.path); got != c.want {
			t.Errorf("Mentions(%q, %q) = %v, want %v", c.cmd, c.path, got, c.want)
		}
	}
}

func TestCommandsOf(t *testing.T) {
	settings := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "python3 scripts/guard.py"},
		{"type": "command", "command": "$(git rev-parse --show-toplevel)/x.sh"}]}]},
	 "statusLine": {"type": "command", "command": "bash bin/status.sh"}}`
	got := CommandsOf("pkg/.claude/settings.json", []byte(settings))
	if want := []string{"pkg/bin/status.sh", "pkg/scripts/guard.py"}; !reflect.DeepEqual(got.Paths, want) {
		t.Errorf("Paths = %q, want %q", got.Paths, want)
	}
	if want := []string{"$(git rev-parse --show-toplevel)/x.sh"}; !reflect.DeepEqual(got.Dynamic, want) {
		t.Errorf("Dynamic = %q, want %q", got.Dynamic, want)
	}
	if got := CommandsOf("pkg/.claude/settings.json", []byte("{")); len(got.Paths)+len(got.Dynamic) != 0 {
		t.Errorf("unparsable settings run %+v", got)
	}
	if got := CommandsOf("src/x.go", []byte(settings)); len(got.Paths)+len(got.Dynamic) != 0 {
		t.Errorf("a file that is not agent config runs %+v", got)
	}
}

// FuzzMentions: CommandTokens never panics, its words are non-empty runs
// of name bytes found in the text, and a path whose file name is one of
// them is always mentioned.
func FuzzMentions(f *testing.F) {
	f.Add(`$(git rev-parse --show-toplevel)/scripts/guard.sh`, "scripts/guard.sh")
	f.Add(`python3 -m scripts.guard`, "scripts/guard.py")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, cmd, p string) {
		_ = Mentions(cmd, p)
		for _, w := range CommandTokens(cmd) {
			if w == "" || !strings.Contains(cmd, w) {
				t.Fatalf("word %q of %q", w, cmd)
			}
			for i := 0; i < len(w); i++ {
				if !isNameByte(w[i]) {
					t.Fatalf("word %q of %q holds %q", w, cmd, w[i])
				}
			}
			if w != "." && w != ".." && !Mentions(cmd, "d/"+w) {
				t.Fatalf("%q names %q but does not mention d/%s", cmd, w, w)
			}
		}
	})
}
