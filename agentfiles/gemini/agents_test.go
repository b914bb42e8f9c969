package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// TestIsAgentFile holds the classification to loadAgentsFromDirectory
// (0.61.0): .md files directly in .gemini/agents, not starting with "_".
func TestIsAgentFile(t *testing.T) {
	for p, want := range map[string]bool{
		".gemini/agents/helper.md": true, "pkg/.gemini/agents/h.md": true,
		".gemini/agents/_draft.md": false, ".gemini/agents/sub/h.md": false,
		".gemini/agents/h.txt": false, ".claude/agents/h.md": false, "gemini/agents/h.md": false,
	} {
		if got := IsAgentFile(p); got != want {
			t.Errorf("IsAgentFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestReadAgent holds the subagent reader to Gemini CLI 0.61.0's loader
// (parseAgentMarkdown, markdownToAgentDefinition, its strict schemas):
// what it starts and trusts, and what makes it refuse a file.
func TestReadAgent(t *testing.T) {
	const local = "---\nname: helper\ndescription: helps\ntools: [\"read_file\"]\nmcp_servers:\n  docs:\n    command: docs-server\n    args: [\"--x\"]\n---\nYou help.\n"
	cases := []struct {
		why, src string
		servers  []string // name: summary prefix
		settings []string // key
		refused  string   // a part of the ParseError's message
	}{
		{why: "a local agent's MCP server", src: local, servers: []string{"docs: stdio docs-server"}},
		{why: "trust: true runs the server's tools without a confirmation", src: strings.Replace(local, "args:", "trust: true\n    args:", 1),
			servers: []string{"docs: stdio docs-server"}, settings: []string{"agent helper mcp_servers.docs.trust"}},
		{why: "trust: false trusts nothing", src: strings.Replace(local, "args:", "trust: false\n    args:", 1), servers: []string{"docs: stdio docs-server"}},
		{why: "a URL server", src: "---\nname: h\ndescription: d\nmcp_servers:\n  web: {url: \"https://mcp.example/sse\"}\n---\n", servers: []string{"web: "}},
		{why: "an agent without servers grants nothing", src: "---\nname: h\ndescription: d\ntools: [\"*\"]\n---\nbody\n"},
		{why: "a remote agent", src: "---\nkind: remote\nname: far\nagent_card_url: https://a.example/card\n---\n", settings: []string{"remote agent far"}},
		{why: "remote keys without kind", src: "---\nname: far\nagent_card_url: https://a.example/card\n---\n", settings: []string{"remote agent far"}},
		{why: "a list of remote agents", src: "---\n- name: a\n  agent_card_url: https://a.example/1\n- name: b\n  agent_card_url: https://a.example/2\n---\n",
			settings: []string{"remote agent a", "remote agent b"}},
		{why: "no frontmatter", src: "You help.\n", refused: "without YAML frontmatter"},
		{why: "frontmatter never closed", src: "---\nname: h\n", refused: "without YAML frontmatter"},
		{why: "not YAML", src: "---\nname: [\n---\n", refused: "not YAML"},
		{why: "a key the strict schema lacks", src: strings.Replace(local, "tools:", "approval_mode: yolo\ntools:", 1), refused: "approval_mode is not a key"},
		{why: "no description", src: "---\nname: h\n---\n", refused: "needs a description"},
		{why: "a name that is not a slug", src: "---\nname: Helper One\ndescription: d\n---\n", refused: "needs a name"},
		{why: "mcp_servers not a mapping", src: "---\nname: h\ndescription: d\nmcp_servers: [a]\n---\n", refused: "not a mapping"},
		{why: "a remote agent without a card", src: "---\nkind: remote\nname: far\n---\n", refused: "agent_card_url or agent_card_json"},
	}
	for _, c := range cases {
		d, err := ReadAgent(".gemini/agents/x.md", []byte(c.src))
		if c.refused != "" {
			var pe *agent.ParseError
			if !errors.As(err, &pe) || !strings.Contains(pe.Msg, c.refused) {
				t.Errorf("%s: got %v, want a ParseError saying %q", c.why, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.why, err)
			continue
		}
		var srv, set []string
		for _, s := range d.Servers {
			srv = append(srv, s.Name+": "+s.Summary)
		}
		for _, s := range d.Settings {
			set = append(set, s.Key)
			if s.Grant < 1 {
				t.Errorf("%s: %s grants %d", c.why, s.Key, s.Grant)
			}
		}
		if len(srv) != len(c.servers) {
			t.Errorf("%s: servers %q, want %q", c.why, srv, c.servers)
		}
		for i := range c.servers {
			if i < len(srv) && !strings.HasPrefix(srv[i], c.servers[i]) {
				t.Errorf("%s: server %q, want %q…", c.why, srv[i], c.servers[i])
			}
		}
		if strings.Join(set, ",") != strings.Join(c.settings, ",") {
			t.Errorf("%s: settings %q, want %q", c.why, set, c.settings)
		}
	}
}

// TestReadAgentRespelling: a server written in flow style, its keys
// reordered, reads as the same server.
func TestReadAgentRespelling(t *testing.T) {
	a, err := ReadAgent("a.md", []byte("---\nname: h\ndescription: d\nmcp_servers:\n  s:\n    command: x\n    args: [\"-y\"]\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadAgent("a.md", []byte("---\ndescription: d\nname: h\nmcp_servers: {s: {args: [-y], command: x}}\n---\nnew body\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Servers[0].Canon != b.Servers[0].Canon {
		t.Errorf("canon %q != %q", a.Servers[0].Canon, b.Servers[0].Canon)
	}
}

// FuzzReadAgent: the subagent reader never panics and returns a
// *ParseError or a document.
func FuzzReadAgent(f *testing.F) {
	for _, s := range []string{
		"---\nname: helper\ndescription: helps\nmcp_servers:\n  docs:\n    command: docs-server\n    trust: true\n---\nx\n",
		"---\n- name: a\n  agent_card_url: https://a.example/1\n---\n",
		"---\nname: [\n---\n", "no frontmatter",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := ReadAgent(".gemini/agents/x.md", []byte(src))
		if err != nil {
			var pe *agent.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		if d == nil {
			t.Fatal("nil document without an error")
		}
	})
}
