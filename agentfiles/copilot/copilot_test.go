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
