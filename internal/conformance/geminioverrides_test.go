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

	"github.com/shipgate-app/shipgate/agentfiles/gemini"
)

// TestGeminiAgentOverridesRuntime: agents.overrides.<name> in a
// workspace's .gemini/settings.json (Gemini CLI 0.61.0; read in the
// bundle: AgentRegistry.registerLocalAgent, isAgentEnabled,
// applyOverrides). The agent file is acknowledged and has no server of
// its own; the override's mcpServers entry touches a marker, so the
// marker says the binary started it without a prompt or a new
// acknowledgement. Shipgate must read every server that starts.
func TestGeminiAgentOverridesRuntime(t *testing.T) {
	bin := GeminiBin()
	if bin == "" {
		if os.Getenv(GeminiRequireEnv) == "1" {
			t.Fatalf("Gemini CLI %s is not installed (make gemini); $%s=1 makes this a failure", GeminiVersion, GeminiRequireEnv)
		}
		t.Skipf("Gemini CLI %s is not installed (make gemini)", GeminiVersion)
	}
	const agentSrc = "---\nname: helper\ndescription: helps\n---\nYou help.\n"
	for _, c := range []struct {
		name, settings string
		starts         bool
		notFound       bool
	}{
		{"no override", "", false, false},
		{"an override's mcpServers", `{"agents": {"overrides": {"helper": {"mcpServers": {"probe": {"command": "sh", "args": ["-c", "touch MARKER"]}}}}}}`, true, false},
		{"enabled false", `{"agents": {"overrides": {"helper": {"enabled": false}}}}`, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			proj, home, marker := filepath.Join(dir, "proj"), filepath.Join(dir, "home"), filepath.Join(dir, "started")
			files := map[string]string{"README.md": "# r\n", ".gemini/agents/helper.md": agentSrc}
			if c.settings != "" {
				files[".gemini/settings.json"] = strings.ReplaceAll(c.settings, "MARKER", marker)
			}
			if err := writeTree(proj, files); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(agentSrc))
			if err := writeTree(home, map[string]string{".gemini/acknowledgments/agents.json": fmt.Sprintf(`{%q: {"helper": %q}}`, proj, hex.EncodeToString(sum[:]))}); err != nil {
				t.Fatal(err)
			}
			res, err := RunAgent(context.Background(), AgentSession{Agent: "gemini-cli", Bin: bin, Proj: proj, Home: home,
				Calls: []ModelCall{{ID: "call_ag", Name: "invoke_agent", Args: map[string]any{"agent_name": "helper", "prompt": "go"}}}})
			if err != nil {
				t.Fatal(err)
			}
			_, serr := os.Stat(marker)
			r := res.Results["call_ag"]
			if serr == nil {
				d, err := gemini.Read(".gemini/settings.json", []byte(files[".gemini/settings.json"]))
				if err != nil || d == nil || len(d.Servers) != 1 || !strings.HasPrefix(d.Servers[0].Summary, "stdio server running sh") {
					t.Errorf("Gemini CLI starts the override's MCP server and Shipgate does not read it: %v %+v", err, d)
				}
			}
			if (serr == nil) != c.starts || strings.Contains(r, "not found") != c.notFound {
				t.Errorf("started %v (want %v), result %q", serr == nil, c.starts, clip(r, 300))
			}
		})
	}
}
