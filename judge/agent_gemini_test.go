package judge

import (
	"math/rand/v2"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/gemini"
)

// TestGeminiLangMatchesRule: the languages settings rules compile to
// accept exactly the calls gemini.Rule.Matches does (prefix boundaries,
// MCP server names up to the first underscore), on generated calls.
func TestGeminiLangMatchesRule(t *testing.T) {
	rules := []gemini.Rule{
		{Tool: gemini.ShellTool, Prefix: "git status", HasPrefix: true, Decision: gemini.Allow},
		{Tool: gemini.ShellTool, Prefix: "npm", HasPrefix: true, Decision: gemini.Allow},
		{Tool: "mcp_srv_*", MCPName: "srv", Decision: gemini.Allow},
		{Tool: "mcp_my_srv_*", MCPName: "my_srv", Decision: gemini.Allow},
		{Tool: "read_file", Decision: gemini.Deny},
	}
	pieces := []string{"git", " ", "status", "npm", "x", "\"", "\u00a0", "\t", "-", "mcp_", "srv", "_", "my", "q", "read_file"}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, r := range rules {
		mrs := agentfiles.GeminiRules("s.json", r)
		if len(mrs) != 1 {
			t.Fatalf("%+v: %d rules", r, len(mrs))
		}
		mr := mrs[0]
		for i := 0; i < 3000; i++ {
			s := ""
			for k := 0; k < rng.IntN(6); k++ {
				s += pieces[rng.IntN(len(pieces))]
			}
			var c gemini.Call
			switch mr.Surface {
			case agent.Shell:
				c = gemini.Call{Tool: gemini.ShellTool, Command: s}
			default:
				c = gemini.Call{Tool: s}
			}
			if got, want := mr.Matches(s), r.Matches(c); got != want {
				t.Fatalf("%+v on %q: language %v, rule %v", r, s, got, want)
			}
		}
	}
}
