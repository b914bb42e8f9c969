package conformance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/copilot"
	"github.com/shipgate-app/shipgate/agentfiles/gemini"
)

// The agents' own subagent files, at run time: what docs/agents.md says
// Copilot CLI's custom agents and Gemini CLI's subagents start, measured
// with a session against the fake model whose only call delegates to the
// repository's agent. The agent's MCP server is a stdio command that
// touches a marker file: the marker says it was started, without a prompt
// (the sessions have nobody to ask). Shipgate must read that server from
// the file (and so review the change that adds it).

// subagentFile is an agent definition whose MCP server touches marker
// (extra: more keys of the server).
func subagentFile(key, marker, extra string) string {
	return "---\nname: helper\ndescription: helps\n" + key + ":\n  probe:\n    command: sh\n    args: [\"-c\", \"touch " + marker + "\"]\n" + extra + "---\nYou help.\n"
}

// readsServer fails the test unless Shipgate's reader finds the server.
func readsServer(t *testing.T, d *agent.Doc, err error) {
	t.Helper()
	if err != nil || d == nil || len(d.Servers) != 1 || d.Servers[0].Name != "probe" || !strings.HasPrefix(d.Servers[0].Summary, "stdio sh") {
		t.Fatalf("Shipgate does not read the agent's MCP server: %v %+v", err, d)
	}
}

// TestCopilotCustomAgentRuntime: a .github/agents file's mcp-servers
// command starts when the model delegates to the agent with the task tool,
// and nothing asks (Copilot CLI 1.0.102).
func TestCopilotCustomAgentRuntime(t *testing.T) {
	bin, _ := pinnedForTest(t, copilotBinary, "SHIPGATE_COPILOT_RUN_N", 1)
	for _, p := range []string{".github/agents/helper.agent.md", ".github/agents/team/helper.md"} {
		dir := t.TempDir()
		proj, marker := filepath.Join(dir, "proj"), filepath.Join(dir, "started")
		src := subagentFile("mcp-servers", marker, "    type: local\n    tools: [\"*\"]\n")
		d, err := copilot.Read(p, []byte(src))
		readsServer(t, d, err)
		if err := writeTree(proj, map[string]string{"README.md": "# r\n", p: src}); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		res, err := RunAgent(context.Background(), AgentSession{Agent: "copilot-cli", Bin: bin, Proj: proj, Home: filepath.Join(dir, "home"),
			Calls: []ModelCall{{ID: "toolu_tk", Name: "task", Args: map[string]any{"description": "help", "prompt": "go", "agent_type": "helper", "name": "h1"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%s: the custom agent's MCP server did not start (task result %q): Shipgate reviews a server Copilot CLI %s does not start", p, clip(res.Results["toolu_tk"], 300), CopilotVersion)
		}
	}
}

// TestGeminiSubagentRuntime: a .gemini/agents file is used only once the
// user acknowledged its content (by sha256); then invoke_agent runs
// without a prompt and the agent's mcp_servers command starts (Gemini CLI
// 0.61.0).
func TestGeminiSubagentRuntime(t *testing.T) {
	bin := GeminiBin()
	if bin == "" {
		if os.Getenv(GeminiRequireEnv) == "1" {
			t.Fatalf("Gemini CLI %s is not installed (make gemini); $%s=1 makes this a failure", GeminiVersion, GeminiRequireEnv)
		}
		t.Skipf("Gemini CLI %s is not installed (make gemini)", GeminiVersion)
	}
	for _, ack := range []bool{false, true} {
		dir := t.TempDir()
		proj, home, marker := filepath.Join(dir, "proj"), filepath.Join(dir, "home"), filepath.Join(dir, "started")
		src := subagentFile("mcp_servers", marker, "")
		d, err := gemini.ReadAgent(".gemini/agents/helper.md", []byte(src))
		readsServer(t, d, err)
		if err := writeTree(proj, map[string]string{"README.md": "# r\n", ".gemini/agents/helper.md": src}); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if ack {
			// What "Acknowledge and Enable" writes (AcknowledgedAgentsService).
			sum := sha256.Sum256([]byte(src))
			if err := writeTree(home, map[string]string{".gemini/acknowledgments/agents.json": fmt.Sprintf(`{%q: {"helper": %q}}`, proj, hex.EncodeToString(sum[:]))}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := RunAgent(context.Background(), AgentSession{Agent: "gemini-cli", Bin: bin, Proj: proj, Home: home,
			Calls: []ModelCall{{ID: "call_ag", Name: "invoke_agent", Args: map[string]any{"agent_name": "helper", "prompt": "go"}}}})
		if err != nil {
			t.Fatal(err)
		}
		_, serr := os.Stat(marker)
		r := res.Results["call_ag"]
		switch {
		case !ack && (serr == nil || !strings.Contains(r, "not found")):
			t.Errorf("an unacknowledged subagent ran (marker %v, result %q): Gemini CLI %s no longer asks before a new agent file is used", serr == nil, clip(r, 300), GeminiVersion)
		case ack && serr != nil:
			t.Errorf("the acknowledged subagent's MCP server did not start (result %q)", clip(r, 300))
		}
	}
}
