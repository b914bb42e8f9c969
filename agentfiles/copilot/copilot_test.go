package copilot

import (
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// TestRules holds the rule reader to `copilot help permissions` (1.0.102,
// agents-permissions.md section 3.2).
func TestRules(t *testing.T) {
	const help = "copilot help permissions (1.0.102)"
	cases := []struct {
		why, rule string
		d         agent.Decision
		call      string
		match     bool
	}{
		{"shell(git:*) matches git push", "shell(git:*)", agent.Allow, "git push", true},
		{"shell(git:*) does not match gitea", "shell(git:*)", agent.Allow, "gitea", false},
		{"bare shell is every command", "shell", agent.Allow, "rm -rf /", true},
		{"Bash() is the Claude spelling of shell()", "Bash(ls)", agent.Allow, "ls", true},
		{"an exact deny matches the command", "shell(git push)", agent.Deny, "git push", true},
		{"an exact deny is read narrowly", "shell(git push)", agent.Deny, "git push origin", false},
		{"an exact allow is read widely (matcher not run)", "shell(git push)", agent.Allow, "git push origin", true},
		{"write(.env) matches .env anywhere", "write(.env)", agent.Allow, "config/.env", true},
		{"an absolute write path is one location", "write(/etc/hosts)", agent.Allow, "etc/hosts", false},
		{"url with a subdomain wildcard", "url(*.github.com)", agent.Allow, "api.github.com", true},
		{"an MCP server's tool", "github(create_issue)", agent.Allow, "github:create_issue", true},
	}
	for _, c := range cases {
		r, skip, err := Rule(c.rule, c.d)
		if err != nil || skip {
			t.Fatalf("%s: %v %v", c.rule, err, skip)
		}
		if got := r.Matches(c.call); got != c.match {
			t.Errorf("%s (%s): %s matches %q = %v", help, c.why, c.rule, c.call, got)
		}
	}
	if _, skip, _ := Rule("Read", agent.Allow); !skip {
		t.Errorf("Read needs no rule")
	}
}

func TestReadFiles(t *testing.T) {
	d, err := Read(".github/skills/x/SKILL.md", []byte("---\nname: x\nallowed-tools: shell(git:*), write\n---\nbody\n"))
	if err != nil || len(d.Rules) != 2 || d.Rules[0].Pos.Line != 3 {
		t.Fatalf("skill: %v %+v", err, d)
	}
	d, err = Read(".github/copilot/settings.json", []byte(`{"trustedFolders": ["/"], "hooks": {"preToolUse": [{"command": "x"}]}, "deniedUrls": ["evil.example"]}`))
	if err != nil || len(d.Problems) != 1 || len(d.Settings) != 2 {
		t.Fatalf("settings: %v %+v", err, d)
	}
	if _, err := Read(".github/copilot/settings.json", []byte(`{"a": 1,}`)); err == nil {
		t.Errorf("Copilot CLI reads strict JSON")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(".github/skills/x/SKILL.md", "---\nallowed-tools:\n  - shell(npm test)\n  - url(*.x.com)\n---\n")
	f.Add(".github/copilot/settings.json", `{"permissions": {"allow": ["shell(git:*)"], "deny": ["write(.env)"]}, "enabledPlugins": {"a@b": true}}`)
	f.Add(".github/hooks/h.json", `{"version": 1, "hooks": {}}`)
	f.Fuzz(func(t *testing.T, file, s string) {
		if _, ok := Classify(file); !ok {
			return
		}
		d, err := Read(file, []byte(s))
		if err != nil {
			if _, ok := err.(*agent.ParseError); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		p := Combine([]*agent.Doc{d})
		for _, surf := range agent.Surfaces(p) {
			p.Decide(surf, "git push")
		}
	})
}

// TestAgentFiles holds custom agents to Copilot CLI 1.0.102 as measured
// (docs/agents.md): any .md under .github/agents is an agent, and its
// mcp-servers are servers the CLI starts; its tools list grants nothing.
func TestAgentFiles(t *testing.T) {
	for p, want := range map[string]string{
		".github/agents/h.agent.md": Agent, ".github/agents/h.md": Agent, ".github/agents/team/h.agent.md": Agent,
		".github/agents/x/SKILL.md": Agent, ".github/agent/h.md": "", "docs/.github/agents/h.md": "", ".github/agents/h.txt": "",
	} {
		if got, _ := Classify(p); got != want {
			t.Errorf("Classify(%q) = %q, want %q", p, got, want)
		}
	}
	cases := []struct {
		why, src string
		servers  []string
		bad      bool
	}{
		{"a local server", "---\nname: h\ndescription: d\ntools: [\"view\"]\nmcp-servers:\n  docs:\n    type: local\n    command: docs-server\n    tools: [\"*\"]\n---\nx\n", []string{"docs"}, false},
		{"two servers", "---\nname: h\nmcp-servers: {a: {command: x, tools: [\"*\"]}, b: {url: \"https://m.example\", tools: [a]}}\n---\n", []string{"a", "b"}, false},
		// Measured: an entry without tools makes Copilot CLI refuse the
		// whole agent, so no server of the file starts.
		{"a server without tools", "---\nname: h\nmcp-servers: {a: {command: x, tools: [\"*\"]}, b: {command: y}}\n---\n", nil, false},
		{"tools only", "---\nname: h\ntools: [\"shell\"]\n---\nx\n", nil, false},
		{"no frontmatter", "Just a prompt.\n", nil, false},
		{"not YAML", "---\nmcp-servers: [\n---\n", nil, true},
		{"mcp-servers not a mapping", "---\nmcp-servers: [a, b]\n---\n", nil, true},
	}
	for _, c := range cases {
		d, err := Read(".github/agents/h.agent.md", []byte(c.src))
		if c.bad {
			if _, ok := err.(*agent.ParseError); !ok {
				t.Errorf("%s: got %v, want a ParseError", c.why, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.why, err)
			continue
		}
		var got []string
		for _, s := range d.Servers {
			got = append(got, s.Name)
		}
		if len(got) != len(c.servers) || len(d.Rules) != 0 {
			t.Errorf("%s: servers %v rules %d, want %v and no rule", c.why, got, len(d.Rules), c.servers)
		}
	}
}

// TestAgentDir: agentDirectories values as Copilot CLI 1.0.102 resolves
// them (measured: internal/conformance TestCopilotAgentDirectoriesRuntime).
func TestAgentDir(t *testing.T) {
	for _, c := range []struct {
		in, dir string
		none    bool
	}{
		{in: "tools/agents", dir: "tools/agents"},
		{in: "./tools/agents/", dir: "tools/agents"},
		{in: ".", dir: ""},
		{in: "tools/*", dir: "tools/*"},
		{in: "../checkout/tools/agents", dir: "tools/agents"},
		{in: "../../a/b/tools", dir: "tools"},
		{in: "tools/../agents", dir: "agents"},
		{in: "../outside", none: true},
		{in: "..", none: true},
		{in: "/srv/agents", none: true},
		{in: "~/agents", none: true},
		{in: "", none: true},
	} {
		d, why := AgentDir(c.in)
		if (why != "") != c.none || !c.none && d != c.dir {
			t.Errorf("AgentDir(%q) = %q, %q; want %q (none %v)", c.in, d, why, c.dir, c.none)
		}
	}
	if !InAgentDir("docs/x.md", []string{""}) || InAgentDir("docs/x.MD", []string{""}) || InAgentDir("toolsx/a.md", []string{"tools"}) || !InAgentDir("tools/a/b.md", []string{"tools"}) {
		t.Error("InAgentDir")
	}
	if ds, _, ok := AgentDirs([]byte(`{"agentDirectories": "tools"}`)); !ok || len(ds) != 0 {
		t.Errorf("a string value names no folder: %q", ds)
	}
	if _, _, ok := AgentDirs([]byte(`{`)); ok {
		t.Error("an unparsable file must fail closed")
	}
}
