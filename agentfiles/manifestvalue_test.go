package agentfiles

import "testing"

// TestManifestValuePartPaths: a Claude Code plugin manifest's or
// marketplace's ./ part paths and an entry's ./ source are not part of its
// value (gather reads the files they name), and everything else is: an
// inline part, a URL, a path without ./ or leaving the plugin, a remote
// source, another key. A Codex or Cursor manifest keeps its paths, but
// for a ./ skills folder and its interface (instructions and the plugin
// list's labels: no grant).
func TestManifestValuePartPaths(t *testing.T) {
	mk := func(entry string) string {
		return `{"name": "m", "owner": {"name": "o"}, "metadata": {"version": "1"}, "plugins": [` + entry + `]}`
	}
	for _, c := range []struct {
		name, p, a, b string
		same          bool
	}{
		{"an agent path added to a list", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./plugins/t", "agents": ["./agents/a.md"]}`), mk(`{"name": "t", "source": "./plugins/t", "agents": ["./agents/a.md", "./agents/b.md"]}`), true},
		{"a skills path removed", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t", "skills": ["./skills/x", "./skills/y"]}`), mk(`{"name": "t", "source": "./t", "skills": ["./skills/x"]}`), true},
		{"a source re-pointed to another folder", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./plugins/t"}`), mk(`{"name": "t", "source": "./plugins/t2"}`), true},
		{"a commands key added with ./ paths only", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t"}`), mk(`{"name": "t", "source": "./t", "commands": "./cmds"}`), true},
		{"hooks declared inline", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t"}`), mk(`{"name": "t", "source": "./t", "hooks": {"SessionStart": []}}`), false},
		{"an MCP path turned into a URL", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t", "mcpServers": "./m.json"}`), mk(`{"name": "t", "source": "./t", "mcpServers": "https://x.example/s.mcpb"}`), false},
		{"an inline server beside a path", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t", "mcpServers": ["./m.json"]}`), mk(`{"name": "t", "source": "./t", "mcpServers": ["./m.json", {"x": {"command": "npx"}}]}`), false},
		{"a source made remote", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t"}`), mk(`{"name": "t", "source": {"source": "github", "repo": "x/t"}}`), false},
		{"a source without ./", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t"}`), mk(`{"name": "t", "source": "t"}`), false},
		{"a path leaving the plugin", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t", "hooks": "./h.json"}`), mk(`{"name": "t", "source": "./t", "hooks": "./../../h.json"}`), false},
		{"a path without ./", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t", "commands": "./c"}`), mk(`{"name": "t", "source": "./t", "commands": "c"}`), false},
		{"the marketplace's description and version bumped", ".claude-plugin/marketplace.json",
			`{"name": "m", "metadata": {"description": "65 plugins", "version": "1.2.0"}, "plugins": []}`, `{"name": "m", "metadata": {"description": "67 plugins", "version": "1.3.0"}, "plugins": []}`, true},
		{"the $schema changed", ".claude-plugin/marketplace.json",
			`{"$schema": "https://a.example/s.json", "name": "m", "plugins": []}`, `{"$schema": "https://b.example/s.json", "name": "m", "plugins": []}`, true},
		{"the marketplace's pluginRoot changed", ".claude-plugin/marketplace.json",
			`{"name": "m", "metadata": {"pluginRoot": "./plugins"}, "plugins": []}`, `{"name": "m", "metadata": {"pluginRoot": "./other"}, "plugins": []}`, false},
		{"strict changed", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t"}`), mk(`{"name": "t", "source": "./t", "strict": false}`), false},
		{"an entry added", ".claude-plugin/marketplace.json",
			mk(`{"name": "t", "source": "./t"}`), mk(`{"name": "t", "source": "./t"}, {"name": "u", "source": "./u"}`), false},
		{"a plugin.json's commands path changed", "p/.claude-plugin/plugin.json",
			`{"name": "t", "commands": "./a"}`, `{"name": "t", "commands": ["./a", "./b/x.md"]}`, true},
		{"a plugin.json's hooks made inline", "p/.claude-plugin/plugin.json",
			`{"name": "t", "hooks": "./h.json"}`, `{"name": "t", "hooks": {"SessionStart": []}}`, false},
		{"a Codex plugin's skills folder moved", "p/.codex-plugin/plugin.json",
			`{"name": "t", "skills": "./a"}`, `{"name": "t", "skills": "./b"}`, true},
		{"a Codex plugin's interface changed", "p/.cursor-plugin/plugin.json",
			`{"name": "t", "interface": {"displayName": "T"}}`, `{"name": "t", "interface": {"displayName": "U", "defaultPrompt": "go"}}`, true},
		{"a Cursor plugin's displayName and logo changed", ".cursor-plugin/plugin.json",
			`{"name": "t", "displayName": "T"}`, `{"name": "t", "displayName": "U", "logo": "assets/logo.png"}`, true},
		{"a Claude plugin's displayName stays in its value", "p/.claude-plugin/plugin.json",
			`{"name": "t", "displayName": "T"}`, `{"name": "t", "displayName": "U"}`, false},
		{"a Codex plugin's skills made a URL", "p/.codex-plugin/plugin.json",
			`{"name": "t", "skills": "./a"}`, `{"name": "t", "skills": "https://x.example/s"}`, false},
		{"a Codex plugin's servers path changed", "p/.codex-plugin/plugin.json",
			`{"name": "t", "mcpServers": "./a.json"}`, `{"name": "t", "mcpServers": "./b.json"}`, false},
		{"a Codex plugin's apps path changed", "p/.codex-plugin/plugin.json",
			`{"name": "t", "apps": "./a.json"}`, `{"name": "t", "apps": "./b.json"}`, false},
	} {
		parts := IsPluginManifest(c.p)
		entries := c.p == ".claude-plugin/marketplace.json"
		va, ok1 := manifestValue([]byte(c.a), entries, parts)
		vb, ok2 := manifestValue([]byte(c.b), entries, parts)
		if !ok1 || !ok2 {
			t.Fatalf("%s: not read (%v %v)", c.name, ok1, ok2)
		}
		if (va == vb) != c.same {
			t.Errorf("%s: %q and %q, same %v, want %v", c.name, va, vb, va == vb, c.same)
		}
	}
}
