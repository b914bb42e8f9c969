package conformance

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// readmeText is the fixture's README.md, which each traced tool call
// reads (so a session whose call did not run is noticed).
const readmeMark = "# r"

// toolTraceRuns are the traced sessions in which each agent that is not
// Claude Code (whose trace already runs a tool call) runs tool calls
// against a fake model: a shell command and, where the agent has one, its
// file-read tool, both reading README.md. A session whose shell call did
// not return the file fails the trace: it did not trace a tool call.
func toolTraceRuns(ctx context.Context) []surfaceRun {
	var runs []surfaceRun
	add := func(agentName, version, bin, how string, calls []ModelCall, args []string, overlay map[string]string) {
		runs = append(runs, surfaceRun{agentName, version, "tool", how, func(proj, home string) ([]string, error) {
			if err := writeTree(proj, overlay); err != nil {
				return nil, err
			}
			for i := range calls {
				if p, ok := calls[i].Args["file_path"].(string); ok && p == "$PROJ/README.md" {
					calls[i].Args["file_path"] = filepath.Join(proj, "README.md")
				}
				if p, ok := calls[i].Args["path"].(string); ok && p == "$PROJ/README.md" {
					calls[i].Args["path"] = filepath.Join(proj, "README.md")
				}
			}
			paths, res, err := traceSession(ctx, AgentSession{Agent: agentName, Bin: bin, Proj: proj, Home: home, Calls: calls, Args: args})
			if err != nil {
				return nil, err
			}
			if r := res.Results[calls[0].ID]; !strings.Contains(r, readmeMark) {
				return nil, fmt.Errorf("%s: the shell call did not run (result %q; tools offered %v; requests %s): %s", agentName, clip(r, 300), res.Tools, res.Log, clip(res.Stdout+res.Stderr, 800))
			}
			return paths, nil
		}})
	}
	if bin := FindOpenCode(); bin != "" {
		add("opencode", OpenCodeVersion, bin, "opencode run with a bash and a read tool call from a fake Anthropic API (bash allowed in .opencode/mode.txt)",
			[]ModelCall{{ID: "toolu_sh", Name: "bash", Args: map[string]any{"command": "cat README.md", "description": "read"}},
				{ID: "toolu_rd", Name: "read", Args: map[string]any{"filePath": "README.md"}}},
			nil, map[string]string{".opencode/mode.txt": "allow\n"})
	}
	if bin := FindCopilot(); bin != "" {
		add("copilot-cli", CopilotVersion, bin, "copilot -p with a bash and a view tool call from a fake Anthropic API (BYOK; --allow-tool 'shell(cat)'; the folder trusted)",
			[]ModelCall{{ID: "toolu_sh", Name: "bash", Args: map[string]any{"command": "cat README.md", "description": "read"}},
				{ID: "toolu_rd", Name: "view", Args: map[string]any{"path": "$PROJ/README.md"}}},
			[]string{"--allow-tool", "shell(cat)"}, nil)
	}
	if bin := FindCodex(); bin != "" {
		add("codex", CodexVersion, bin, "codex exec with an exec_command tool call from a fake Responses API (the project trusted)",
			[]ModelCall{{ID: "call_sh", Name: "exec_command", Args: map[string]any{"cmd": "cat README.md"}}},
			nil, nil)
	}
	if bin := GeminiBin(); bin != "" {
		add("gemini-cli", GeminiVersion, bin, "gemini -p with a run_shell_command and a read_file tool call from a fake Gemini API (--allowed-tools 'run_shell_command(cat)'; the folder trusted)",
			[]ModelCall{{ID: "call_sh", Name: "run_shell_command", Args: map[string]any{"command": "cat README.md", "description": "read"}},
				{ID: "call_rd", Name: "read_file", Args: map[string]any{"file_path": "$PROJ/README.md"}}},
			[]string{"--allowed-tools", "run_shell_command(cat)"}, nil)
		runs = append(runs, surfaceRun{"gemini-cli", GeminiVersion, "", "gemini -p against a fake Gemini API that answers with text (no tool call; the folder trusted)", func(proj, home string) ([]string, error) {
			paths, _, err := traceSession(ctx, AgentSession{Agent: "gemini-cli", Bin: bin, Proj: proj, Home: home})
			return paths, err
		}})
	}
	return runs
}
