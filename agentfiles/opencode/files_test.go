package opencode

import (
	"errors"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// TestClassifyFiles: every file of a .opencode folder is OpenCode's, by
// kind (measured: `strace -f -e trace=file opencode debug config` opens
// each folder; testdata/opened-1.18.33.txt).
func TestClassifyFiles(t *testing.T) {
	for p, want := range map[string][2]string{
		".opencode/plugin/a.ts":        {"", kindCode},
		"x/.opencode/plugins/b.js":     {"x", kindCode},
		".opencode/tools/t.ts":         {"", kindCode},
		".opencode/agent/build.md":     {"", kindAgent},
		".opencode/agents/sub/deep.md": {"", kindAgent},
		".opencode/modes/m.md":         {"", kindAgent},
		".opencode/package.json":       {"", kindPackage},
		".opencode/bash-mode.txt":      {"", kindData},
		".opencode/opencode.json":      {"", kindConfig},
		"a/opencode.jsonc":             {"a", kindConfig},
	} {
		if s, k := classify(p); s != want[0] || k != want[1] {
			t.Errorf("classify(%s) = %q %q, want %q %q", p, s, k, want[0], want[1])
		}
	}
	for _, p := range []string{"opencode/plugin/a.ts", "src/x.opencode/a.ts", ".opencode"} {
		if _, ok := Classify(p); ok {
			t.Errorf("Classify(%s) accepted", p)
		}
	}
	if got := agentName(".opencode/agents/sub/deep.md"); got != "sub/deep" {
		t.Errorf("agentName = %q, want sub/deep (measured: debug config lists agent sub/deep)", got)
	}
}

func files(m map[string]string) Lookup {
	return func(p string) ([]byte, bool, bool) {
		s, ok := m[p]
		return []byte(s), ok, true
	}
}

// TestSubstitution holds {file:} and {env:} to what OpenCode 1.18.33
// does (measured with `opencode debug agent build`): the content trimmed,
// the path relative to the config's folder, a commented line left alone,
// a missing file refused; what Shipgate cannot see grants.
func TestSubstitution(t *testing.T) {
	repo := map[string]string{".opencode/m.txt": "allow\n\n", "prompts/ask.txt": "ask"}
	cases := []struct {
		file, cfg string
		s         agent.Surface
		want      agent.Decision
		unknown   bool
	}{
		{"opencode.json", `{"permission": {"bash": "{file:.opencode/m.txt}"}}`, agent.Shell, agent.Allow, false},
		{"opencode.json", `{"permission": {"bash": "{file:./.opencode/m.txt}"}}`, agent.Shell, agent.Allow, false},
		{".opencode/opencode.json", `{"permission": {"bash": "{file:m.txt}"}}`, agent.Shell, agent.Allow, false},
		{"opencode.json", `{"permission": {"bash": "{file:prompts/ask.txt}"}}`, agent.Shell, agent.Ask, false},
		{"opencode.jsonc", "{\n // {file:missing.txt}\n \"permission\": {\"bash\": \"{file:prompts/ask.txt}\"}}", agent.Shell, agent.Ask, false},
		{"opencode.json", `{"permission": {"bash": "{env:MODE}"}}`, agent.Shell, agent.Allow, true},
		{"opencode.json", `{"permission": {"bash": "{file:../outside.txt}"}}`, agent.Shell, agent.Allow, true},
		{"opencode.json", `{"permission": {"bash": "{file:~/mode.txt}"}}`, agent.Shell, agent.Allow, true},
		// A deny pattern Shipgate cannot see matches no call.
		{"opencode.json", `{"permission": {"bash": {"{env:P}": "deny"}}}`, agent.Shell, agent.Ask, false},
	}
	for _, c := range cases {
		d, err := ReadWith(c.file, []byte(c.cfg), files(repo))
		if err != nil {
			t.Fatalf("%s: %v", c.cfg, err)
		}
		got, r := Combine([]*agent.Doc{d}).Decide(c.s, "rm -rf /")
		if got != c.want || (r != nil && r.Unknown != "") != c.unknown {
			t.Errorf("%s: %v (rule %+v), want %v unknown=%v", c.cfg, got, r, c.want, c.unknown)
		}
	}
	_, err := ReadWith("opencode.json", []byte(`{"permission": {"bash": "{file:nope.txt}"}}`), files(repo))
	var pe *agent.ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "bad file reference") {
		t.Errorf("a missing {file:} target: %v, want OpenCode's bad file reference", err)
	}
	if got := References("opencode.jsonc", []byte("{\n// {file:a}\n\"x\": \"{file:./b.txt}\", \"y\": \"{file:../c}\"}")); strings.Join(got, ",") != "b.txt" {
		t.Errorf("References = %v, want [b.txt]", got)
	}
}

// TestAgentFiles: an agent file's permission and tools come after the
// top-level rules for that agent (measured: `opencode debug agent build`
// lists them last), and an agent without a file follows the top level.
func TestAgentFiles(t *testing.T) {
	cfg, err := Read("opencode.json", []byte(`{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	md, err := Read(".opencode/agent/build.md", []byte("---\npermission:\n  bash:\n    \"rm *\": allow\ntools:\n  edit: false\n---\nx\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := Combine([]*agent.Doc{md, cfg})
	for _, c := range []struct {
		s    agent.Surface
		call string
		want agent.Decision
	}{
		{"shell@build", "rm -rf /", agent.Allow},
		{"shell@build", "ls", agent.Ask},
		{"write@build", "a.go", agent.Deny},
		{agent.Shell, "rm -rf /", agent.Deny},
	} {
		if got, _ := p.Decide(c.s, c.call); got != c.want {
			t.Errorf("%s %q = %v, want %v", c.s, c.call, got, c.want)
		}
	}
	if _, err := Read(".opencode/agent/x.md", []byte("---\npermission: [\n")); err == nil {
		t.Error("an unclosed frontmatter read")
	}
}

// TestBuiltin: where no repository rule decides, OpenCode's own rules
// (Builtin, measured) allow but for .env reads and other folders.
func TestBuiltin(t *testing.T) {
	p := Combine(nil)
	for _, c := range []struct {
		s    agent.Surface
		call string
		want agent.Decision
	}{
		{agent.Shell, "rm -rf /", agent.Allow},
		{agent.Read, "src/.env", agent.Ask},
		{agent.Read, "src/.env.example", agent.Allow},
		{agent.Tool, "external_directory:/etc/passwd", agent.Ask},
	} {
		if got, _ := p.Fallback.Decide(c.s, c.call); got != c.want {
			t.Errorf("built-in %s %q = %v, want %v", c.s, c.call, got, c.want)
		}
	}
	if got, _ := p.Decide(agent.Shell, "ls"); got != agent.Ask {
		t.Errorf("the repository's no-rule default = %v, want ask (the user's own configuration may ask)", got)
	}
}

// TestPluginsAndPackages: plugin code and the installed package are
// settings any change of which is a hook change.
func TestPluginsAndPackages(t *testing.T) {
	a, b := readCode(".opencode/plugin/a.ts", []byte("x")), readCode(".opencode/plugin/a.ts", []byte("y"))
	if a.Settings[0].Value == b.Settings[0].Value || a.Settings[0].Check != agent.CheckHook {
		t.Errorf("plugin settings %+v %+v", a.Settings, b.Settings)
	}
	d, err := ReadWith(".opencode/package.json", []byte(`{"dependencies": {"left-pad": "1.0.0"}, "scripts": {"postinstall": "sh x"}}`), nil)
	if err != nil || len(d.Settings) != 2 {
		t.Fatalf("package.json: %v %+v", err, d)
	}
}
