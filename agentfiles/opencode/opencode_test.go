package opencode

import (
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// TestDecisions holds the reader to OpenCode's documented decisions, each
// row citing its source.
func TestDecisions(t *testing.T) {
	const v1 = "https://opencode.ai/v1/docs/permissions/"
	const v2 = "https://opencode.ai/zh/docs/permissions/"
	cases := []struct {
		src, cfg string
		s        agent.Surface
		call     string
		want     agent.Decision
	}{
		{v1 + " (last matching rule wins; catch-all first)", `{"permission": {"bash": {"*": "ask", "git *": "allow"}}}`, agent.Shell, "git status", agent.Allow},
		{v1 + " (last matching rule wins)", `{"permission": {"bash": {"git *": "allow", "*": "ask"}}}`, agent.Shell, "git status", agent.Ask},
		{v1 + " (* is zero or more of any character)", `{"permission": {"bash": {"git * main": "deny"}}}`, agent.Shell, "git push origin main", agent.Deny},
		{v1 + " (? is exactly one character)", `{"permission": {"bash": {"ls ?": "allow"}}}`, agent.Shell, "ls ab", agent.Ask},
		{v1 + " (a string sets every tool)", `{"permission": "allow"}`, agent.Write, "src/a.go", agent.Allow},
		{v1 + " (a tool set to one action)", `{"permission": {"edit": "deny"}}`, agent.Write, "src/a.go", agent.Deny},
		{v2 + " (a shell pattern ending in ' *' matches the bare command)", `{"permission": {"bash": {"git status *": "allow"}}}`, agent.Shell, "git status", agent.Allow},
		{v2 + " (permissions list, last match)", `{"permissions": [{"action": "shell", "resource": "*", "effect": "deny"}, {"action": "shell", "resource": "npm test", "effect": "allow"}]}`, agent.Shell, "npm test", agent.Allow},
		{v2 + " (no match asks)", `{"permissions": [{"action": "shell", "resource": "npm test", "effect": "allow"}]}`, agent.Shell, "npm run x", agent.Ask},
		{v1 + " (per-agent overrides, appended)", `{"permission": {"bash": "ask"}, "agent": {"plan": {"permission": {"bash": "deny"}}}}`, agent.Shell + "@plan", "ls", agent.Deny},
		{v1 + " (top-level rules reach every agent)", `{"permission": {"bash": "deny"}, "agent": {"plan": {"permission": {"edit": "ask"}}}}`, agent.Shell + "@plan", "ls", agent.Deny},
	}
	for _, c := range cases {
		d, err := Read("opencode.json", []byte(c.cfg))
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, _ := Combine([]*agent.Doc{d}).Decide(c.s, c.call)
		if got != c.want {
			t.Errorf("%s: %s %q under %s = %v, want %v", c.src, c.s, c.call, c.cfg, got, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for p, want := range map[string]string{"opencode.json": "", "a/b/opencode.jsonc": "a/b", ".opencode/opencode.json": "", "x/.opencode/opencode.jsonc": "x"} {
		if s, ok := Classify(p); !ok || s != want {
			t.Errorf("Classify(%s) = %q %v, want %q", p, s, ok, want)
		}
	}
	for _, p := range []string{"opencode.yaml", "src/opencode.json.bak", "notopencode.json"} {
		if _, ok := Classify(p); ok {
			t.Errorf("Classify(%s) accepted", p)
		}
	}
}

// FuzzRead: any input either fails with a position or reads into rules
// that compile and decide without panicking.
func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`, `{"permission": "ask"}`, "{// c\n\"mcp\": {\"x\": {\"command\": [\"a\"]}},}",
		`{"permissions": [{"action": "*", "resource": "a?b*", "effect": "deny"}]}`, `{"agent": {"a": {"permission": {"*": {"*": "allow"}}}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Read("opencode.json", []byte(s))
		if err != nil {
			if _, ok := err.(*agent.ParseError); !ok {
				t.Fatalf("error %T is not a ParseError", err)
			}
			return
		}
		p := Combine([]*agent.Doc{d})
		for _, surf := range agent.Surfaces(p) {
			p.Decide(surf, "git push origin main")
			_ = p.Regions(surf)
		}
	})
}
