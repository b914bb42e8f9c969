package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/copilot"
)

// TestCopilotAgentDirectoriesRuntime: custom agents in the folders a
// repository's agentDirectories names, on Copilot CLI 1.0.102. Each case
// is a trusted throwaway repository (proj/) whose model delegates to the
// agent "helper" with the task tool; the agent's MCP server touches a
// marker file, so the marker says the binary loaded the file as an agent
// and started its server without a prompt. The binary must load exactly
// where the case says (what docs/agents.md states), and Shipgate's reading
// (copilot.AgentDirs, copilot.InAgentDir: what the front ends follow) must
// cover every file it loads.
func TestCopilotAgentDirectoriesRuntime(t *testing.T) {
	bin, _ := pinnedForTest(t, copilotBinary, "SHIPGATE_COPILOT_RUN_N", 1)
	const set, local = "proj/.github/copilot/settings.json", "proj/.github/copilot/settings.local.json"
	cases := []struct {
		name  string
		files map[string]string // relative to the case's folder; ABS is the folder
		agent string            // the agent file, relative to the case's folder
		loads bool              // the binary loads it (measured)
		// links are symlinks to make (path → target, both relative to
		// the case's folder); the agent file is then written where the
		// link leads, and agent names the path through the link.
		links map[string]string
		real  string // where the agent file is written, when links lead there
	}{
		{"no setting", nil, "proj/tools/agents/helper.md", false, nil, ""},
		{"settings.json", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/helper.md", true, nil, ""},
		{"settings.local.json", map[string]string{local: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/helper.md", true, nil, ""},
		{"./x/ spelling, a subfolder, .agent.md", map[string]string{set: `{"agentDirectories": ["./tools/agents/"]}`}, "proj/tools/agents/team/helper.agent.md", true, nil, ""},
		{"deep, a leading underscore", map[string]string{set: `{"agentDirectories": ["tools"]}`}, "proj/tools/a/b/_helper.md", true, nil, ""},
		{"the whole repository", map[string]string{set: `{"agentDirectories": ["."]}`}, "proj/docs/helper.md", true, nil, ""},
		{"back in through the checkout's name", map[string]string{set: `{"agentDirectories": ["../proj/tools/agents"]}`}, "proj/tools/agents/helper.md", true, nil, ""},
		{"not a glob", map[string]string{set: `{"agentDirectories": ["tools/*"]}`}, "proj/tools/agents/helper.md", false, nil, ""},
		{"a string, not a list", map[string]string{set: `{"agentDirectories": "tools/agents"}`}, "proj/tools/agents/helper.md", false, nil, ""},
		{".MD", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/helper.MD", false, nil, ""},
		{"outside the repository", map[string]string{set: `{"agentDirectories": ["../outside"]}`}, "outside/helper.md", false, nil, ""},
		{"absolute, inside the repository", map[string]string{set: `{"agentDirectories": ["ABS/proj/tools/agents"]}`}, "proj/tools/agents/helper.md", false, nil, ""},
		{"home", map[string]string{set: `{"agentDirectories": ["~/agents"]}`}, "home/agents/helper.md", false, nil, ""},
		{"settings.local.json's empty list replaces settings.json's", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`, local: `{"agentDirectories": []}`}, "proj/tools/agents/helper.md", false, nil, ""},
		// Symlinks (gather follows them: an edit of the target alone is a
		// change of the agent).
		{"an agent file that is a symlink to a file elsewhere in the repository", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/helper.md", true,
			map[string]string{"proj/tools/agents/helper.md": "../../docs/helper.md"}, "proj/docs/helper.md"},
		{"an agent file that is a symlink to a file that is not Markdown", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/helper.md", true,
			map[string]string{"proj/tools/agents/helper.md": "../../docs/helper.txt"}, "proj/docs/helper.txt"},
		{"the named folder is a symlink to another folder", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/helper.md", true,
			map[string]string{"proj/tools/agents": "../shared/agents"}, "proj/shared/agents/helper.md"},
		{"a subfolder of the named folder is a symlink", map[string]string{set: `{"agentDirectories": ["tools/agents"]}`}, "proj/tools/agents/team/helper.md", true,
			map[string]string{"proj/tools/agents/team": "../../shared/team"}, "proj/shared/team/helper.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "started")
			src := subagentFile("mcp-servers", marker, "    type: local\n    tools: [\"*\"]\n")
			written := c.agent
			if c.real != "" {
				written = c.real
			}
			files := map[string]string{"proj/README.md": "# r\n", written: src}
			var dirs []string
			for p, d := range c.files {
				files[p] = strings.ReplaceAll(d, "ABS", dir)
				ds, _, ok := copilot.AgentDirs([]byte(files[p]))
				if !ok {
					t.Fatalf("Shipgate cannot read %s", p)
				}
				dirs = append(dirs, ds...)
			}
			if err := writeTree(dir, files); err != nil {
				t.Fatal(err)
			}
			for l, to := range c.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, l)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(to, filepath.Join(dir, l)); err != nil {
					t.Fatal(err)
				}
			}
			proj := filepath.Join(dir, "proj")
			if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			res, err := RunAgent(context.Background(), AgentSession{Agent: "copilot-cli", Bin: bin, Proj: proj, Home: filepath.Join(dir, "home"),
				Calls: []ModelCall{{ID: "toolu_tk", Name: "task", Args: map[string]any{"description": "help", "prompt": "go", "agent_type": "helper", "name": "h1"}}}})
			if err != nil {
				t.Fatal(err)
			}
			_, serr := os.Stat(marker)
			if loaded := serr == nil; loaded != c.loads {
				t.Errorf("Copilot CLI %s loaded the agent: %v, docs/agents.md says %v (task result %q)", CopilotVersion, loaded, c.loads, clip(res.Results["toolu_tk"], 300))
			}
			rel, inRepo := strings.CutPrefix(c.agent, "proj/")
			if serr == nil && (!inRepo || !copilot.InAgentDir(rel, dirs)) {
				t.Errorf("Copilot CLI loads %s as an agent and Shipgate does not read it as one (folders %q)", c.agent, dirs)
			}
		})
	}
}
