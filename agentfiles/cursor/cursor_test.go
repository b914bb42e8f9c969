package cursor

import (
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// TestDecisions holds the reader to Cursor's documented permissions.
func TestDecisions(t *testing.T) {
	const docs = "https://docs.cursor.com/en/cli/reference/permissions"
	const mirror = "https://techdevnotes.com/releases/cursor-docs/20260626-202020Z-6c7064724f5e/content/pages/cli/reference/permissions.txt"
	cases := []struct {
		src, cfg string
		s        agent.Surface
		call     string
		want     agent.Decision
	}{
		{docs + " (commandBase is the first token)", `{"permissions": {"allow": ["Shell(git)"]}}`, agent.Shell, "git push origin", agent.Allow},
		{docs + " (first token only: gitea is not git)", `{"permissions": {"allow": ["Shell(git)"]}}`, agent.Shell, "gitea", agent.Ask},
		{docs + " (deny rules take precedence over allow rules)", `{"permissions": {"allow": ["Shell(git)"], "deny": ["Shell(git:push *)"]}}`, agent.Shell, "git push origin", agent.Deny},
		{mirror + " (command:args)", `{"permissions": {"allow": ["Shell(curl:*)"]}}`, agent.Shell, "curl -s x", agent.Allow},
		{docs + " (Read(glob))", `{"permissions": {"allow": ["Read(src/**)"]}}`, agent.Read, "src/a/b.go", agent.Allow},
		{docs + " (Write(glob), ** crosses directories)", `{"permissions": {"allow": ["Write(**)"], "deny": ["Write(**/.env)"]}}`, agent.Write, "config/.env", agent.Deny},
		{mirror + " (WebFetch(domain))", `{"permissions": {"allow": ["WebFetch(*.github.com)"]}}`, agent.Fetch, "api.github.com", agent.Allow},
		{"https://www.skills.sh/masermediagroup-stack/cursorskills/update-cli-config (Mcp(server, tool))", `{"permissions": {"allow": ["Mcp(github, create_issue)"]}}`, agent.MCP, "github:create_issue", agent.Allow},
		{docs + " (no ask list: no match asks)", `{"permissions": {"allow": ["Shell(ls)"]}}`, agent.Shell, "rm x", agent.Ask},
	}
	for _, c := range cases {
		d, err := Read(".cursor/cli.json", []byte(c.cfg))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := Combine([]*agent.Doc{d}).Decide(c.s, c.call); got != c.want {
			t.Errorf("%s: %s %q under %s = %v, want %v", c.src, c.s, c.call, c.cfg, got, c.want)
		}
	}
}

// TestOpenReadings: where the docs leave a reading open, an allow rule
// is read widest and a deny rule narrowest.
func TestOpenReadings(t *testing.T) {
	allow, _ := Rule("Shell(g*)", agent.Allow)
	deny, _ := Rule("Shell(g*)", agent.Deny)
	if !allow.Matches("git push") || !allow.Matches("g x y") {
		t.Errorf("an allow glob should span words")
	}
	if deny.Matches("gx y") != true || deny.Matches("g x") != true {
		t.Errorf("a deny glob still matches its first token")
	}
	if _, err := Rule("Bash(ls)", agent.Allow); err == nil {
		t.Errorf("Bash() is not a Cursor kind")
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"permissions": {"allow": ["Shell(git:push *)", "Read(**)", "WebFetch(*)"], "deny": ["Mcp(a:b)"]}}`, `{"mcpServers": {"x": {"command": "npx"}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Read(".cursor/cli.json", []byte(s))
		if err != nil {
			return
		}
		p := Combine([]*agent.Doc{d})
		for _, surf := range agent.Surfaces(p) {
			p.Decide(surf, "git push")
		}
	})
}
