package hookscript

import (
	"slices"
	"strings"
	"testing"
)

// TestOpaqueRefs: the scripts the commands of a file Shipgate holds whole
// run, and the commands looked for by their text.
func TestOpaqueRefs(t *testing.T) {
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}]}}`
	for _, c := range []struct {
		name, path, data string
		refs             []string // paths
		events           []string // of the refs
		bad              []string // reasons' first words
	}{
		{name: "plugin root at the default place", path: "plugins/g/hooks/hooks.json",
			data: strings.Replace(hooks, "%q", `"${CLAUDE_PLUGIN_ROOT}/scripts/g.sh"`, 1),
			refs: []string{"plugins/g/scripts/g.sh"}, events: []string{"PreToolUse"}, bad: []string{pluginFolderGuessed}},
		{name: "Codex's variable, quoted, through bash", path: "hooks/hooks.json",
			data: strings.Replace(hooks, "%q", `"bash \"${PLUGIN_ROOT}\"/s/x.sh"`, 1),
			refs: []string{"s/x.sh"}, events: []string{"PreToolUse"}, bad: []string{pluginFolderGuessed}},
		{name: "a named file: the root is not known", path: "p/config/h.json/.claude-plugin-part/hooks",
			data: strings.Replace(hooks, "%q", `"${CLAUDE_PLUGIN_ROOT}/s/x.sh"`, 1), bad: []string{pluginFolderUnknown}},
		{name: ".codex/hooks.json runs in the project", path: "sub/.codex/hooks.json",
			data: strings.Replace(hooks, "%q", `"python3 tools/guard.py"`, 1),
			refs: []string{"sub/tools/guard.py"}, events: []string{"PreToolUse"}},
		{name: "a plugin's data folder is outside the repository", path: "hooks/hooks.json",
			data: strings.Replace(hooks, "%q", `"${CLAUDE_PLUGIN_DATA}/bin/x"`, 1)},
		{name: "Codex's commandWindows is followed too", path: "hooks/hooks.json",
			data: `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true", "commandWindows": "node w.js"}]}]}}`,
			refs: []string{"w.js"}, events: []string{"SessionStart"}},
		{name: "a hook under a key Claude Code does not define is still followed", path: "hooks/hooks.json",
			data: `{"hooks": {"PreToolUse": [{"matcher": ".*", "hook": {"type": "command", "command": "sh a.sh"}}]}}`,
			refs: []string{"a.sh"}, events: []string{"PreToolUse"}},
		{name: "a named servers file's argv", path: "p/srv.json/.claude-plugin-part/mcpServers",
			data: `{"mcpServers": {"s": {"command": "node", "args": ["./srv/s.js"]}}}`,
			refs: []string{"p/srv/s.js"}, events: []string{""}},
		{name: "a plugin's language server's argv", path: "p/.lsp.json/.claude-plugin-part/lspServers",
			data: `{"ts": {"command": "node", "args": ["./lsp/server.js", "--stdio"], "extensionToLanguage": {".ts": "typescript"}}}`,
			refs: []string{"p/lsp/server.js"}, events: []string{""}},
		{name: "not JSON runs nothing", path: "hooks/hooks.json", data: `{"hooks": `},
		{name: "not such a file", path: ".claude/settings.json", data: strings.Replace(hooks, "%q", `"sh a.sh"`, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			refs, bad := OpaqueRefs(c.path, []byte(c.data))
			var ps, evs, rs []string
			for _, r := range refs {
				ps, evs = append(ps, r.Path), append(evs, r.Event)
			}
			for _, b := range bad {
				rs = append(rs, b.Reason)
			}
			if !slices.Equal(ps, c.refs) || !slices.Equal(evs, c.events) {
				t.Errorf("refs %q (events %q), want %q (%q)", ps, evs, c.refs, c.events)
			}
			if !slices.Equal(rs, c.bad) {
				t.Errorf("looked for by text: %q, want %q", rs, c.bad)
			}
		})
	}
}

// TestUnknownVariableInServerArgs: a server's script named through a
// variable Shipgate does not know is a command it cannot resolve (it was
// read as a literal relative path).
func TestUnknownVariableInServerArgs(t *testing.T) {
	got, err := resolveArgv([]string{"node", "${SRV}/s.js"}, map[string]string{}, "")
	if err == nil || len(got) != 0 {
		t.Fatalf("resolveArgv = %q, %v; want an error", got, err)
	}
	got, err = resolveArgv([]string{"node", "${CLAUDE_PLUGIN_ROOT}/s.js"}, pluginEnv(map[string]string{}, "p", true), "p")
	if err != nil || !slices.Equal(got, []string{"p/s.js"}) {
		t.Fatalf("resolveArgv = %q, %v; want p/s.js", got, err)
	}
}

// FuzzOpaqueRefs: any bytes, read as a plugin's hooks file, resolve or
// are refused without a panic, and every path resolved is a cleaned
// repository path.
func FuzzOpaqueRefs(f *testing.F) {
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"hooks": [{"command": "${CLAUDE_PLUGIN_ROOT}/a.sh"}]}]}}`))
	f.Add([]byte(`{"mcpServers": {"s": {"command": "node", "args": ["${X}/s.js"]}}}`))
	f.Add([]byte(`[[[[{"command": "cd .. && sh x"}]]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []string{"hooks/hooks.json", ".codex/hooks.json", "a/.mcp.json/.claude-plugin-part/mcpServers"} {
			refs, _ := OpaqueRefs(p, data)
			for _, r := range refs {
				if r.Path == "" || strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, "../") || r.Path != CleanPath(r.Path) {
					t.Fatalf("%s: resolved %q", p, r.Path)
				}
			}
		}
	})
}
