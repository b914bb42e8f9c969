package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// MCPServers are the stub MCP servers of an MCP session and the tools each
// offers. Claude Code names their tools mcp__<server>__<tool>.
var MCPServers = map[string][]string{
	"gh":     {"create_issue", "get_issue", "get_pr", "delete_repo", "list_issues", "merge_pull_request"},
	"db":     {"query", "drop_table", "get_schema"},
	"gh_ext": {"get_issue", "create_issue"},
	"github": {"get_issue"},
}

// MCPTools lists every stub tool by the name Claude Code gives it, sorted.
func MCPTools() []string {
	var out []string
	for s, ts := range MCPServers {
		for _, t := range ts {
			out = append(out, "mcp__"+s+"__"+t)
		}
	}
	sort.Strings(out)
	return out
}

// mcpMarker is the text every stub MCP tool answers with, so a call that
// ran is told from one that was refused.
const mcpMarker = "SHIPGATE-MCP-RAN"

// mcpStub is a minimal MCP server on stdio (newline-delimited JSON-RPC
// 2.0): it answers initialize, tools/list with the tools named in argv,
// and tools/call with mcpMarker; any other request gets an empty result.
const mcpStub = `const tools = process.argv.slice(2);
let buf = "";
function send(m) { process.stdout.write(JSON.stringify(m) + "\n"); }
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i).trim();
    buf = buf.slice(i + 1);
    if (!line) continue;
    let m;
    try { m = JSON.parse(line); } catch (e) { continue; }
    if (m.id === undefined || m.id === null) continue;
    let result = {};
    if (m.method === "initialize") {
      result = { protocolVersion: (m.params && m.params.protocolVersion) || "2025-06-18",
        capabilities: { tools: {} }, serverInfo: { name: "shipgate-stub", version: "1.0.0" } };
    } else if (m.method === "tools/list") {
      result = { tools: tools.map((t) => ({ name: t, description: "conformance stub tool " + t,
        inputSchema: { type: "object", properties: {} } })) };
    } else if (m.method === "tools/call") {
      result = { content: [{ type: "text", text: "` + mcpMarker + ` " + (m.params && m.params.name) }] };
    }
    send({ jsonrpc: "2.0", id: m.id, result });
  }
});
`

// writeMCP writes the stub server and an --mcp-config file naming every
// stub server, and returns the file's path. The stub runs under the real
// node (the session's PATH has a stub "node" first).
func writeMCP(lay Layout) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("conformance: MCP session: the stub MCP server needs node on PATH: %w", err)
	}
	script := filepath.Join(lay.Root, "mcp-stub.js")
	if err := os.WriteFile(script, []byte(mcpStub), 0o644); err != nil {
		return "", fmt.Errorf("conformance: MCP stub: %w", err)
	}
	servers := map[string]any{}
	for s, ts := range MCPServers {
		servers[s] = map[string]any{"type": "stdio", "command": node, "args": append([]string{script}, ts...)}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(lay.Root, "mcp.json")
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		return "", fmt.Errorf("conformance: MCP config: %w", err)
	}
	return cfg, nil
}

// mcpToolsOffered reports whether every stub tool is in the tool list.
func mcpToolsOffered(tools []string) bool {
	have := map[string]bool{}
	for _, t := range tools {
		have[t] = true
	}
	for _, t := range MCPTools() {
		if !have[t] {
			return false
		}
	}
	return true
}
