package agentfiles

import (
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/report"
)

// checkedAgainst is CheckedAgainst plus every agent the files name.
func CheckedAgainst(fs []report.FileStatus) map[string]string {
	out := report.CheckedAgainst()
	for _, f := range fs {
		if a := AdapterFor(f.Agent); a != nil {
			out[f.Agent] = a.CheckedAgainst()
		}
	}
	return out
}

// checkedAgainstText names every agent version a report was checked
// against, for the footers: "Claude Code 2.1.328, Codex CLI 0.169.0".
// Claude Code is always named: its semantics decide the engine's own
// rules and the policy's intents.
func CheckedAgainstText(r report.Report) string {
	ca := r.CheckedAgainst
	if len(ca) == 0 {
		ca = report.CheckedAgainst()
	}
	names := make([]string, 0, len(ca))
	for n := range ca {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := AgentRank(names[i]), AgentRank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = AgentDisplay(n) + " " + ca[n]
	}
	return strings.Join(parts, ", ")
}

// agentRank orders agents in reports: the registry's order (Claude Code
// first), Shipgate's own policy last.
func AgentRank(name string) int {
	for i, a := range adapters {
		if a.Agent() == name {
			return i
		}
	}
	return len(adapters)
}

// agentDisplay is an agent's display name.
func AgentDisplay(agentName string) string {
	switch agentName {
	case AgentClaudeCode:
		return "Claude Code"
	case AgentCodex:
		return "Codex CLI"
	case AgentGemini:
		return "Gemini CLI"
	case AgentCopilotCLI:
		return "Copilot CLI"
	case AgentCursor:
		return "Cursor"
	case AgentVSCode:
		return "VS Code (Copilot Chat)"
	case AgentOpenCode:
		return "OpenCode"
	case AgentShipgate:
		return "Shipgate policy"
	}
	return agentName
}
