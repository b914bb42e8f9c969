package agentfiles

import (
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/copilot"
	"github.com/shipgate-app/shipgate/report"
)

// copilotAdapter is GitHub Copilot CLI (.github/copilot/settings*.json,
// .github/hooks/*.json, skills, .github/mcp.json, .github/lsp.json,
// custom agents in .github/agents): see
// agentfiles/copilot.
type copilotAdapter struct{}

func (copilotAdapter) Agent() string          { return AgentCopilotCLI }
func (copilotAdapter) CheckedAgainst() string { return copilot.CheckedAgainst }
func (copilotAdapter) Hints() []string        { return []string{".github/", "skill.md"} }
func (copilotAdapter) Pathspecs() []string    { return copilot.Pathspecs }
func (copilotAdapter) Classify(p string) (report.FileKind, string) {
	if _, ok := copilot.Classify(p); ok {
		return AgentFile, ""
	}
	return report.NotAgentConfig, ""
}
func (copilotAdapter) Read(p string, data []byte) (*agent.Doc, error) { return copilot.Read(p, data) }
func (copilotAdapter) Combine(docs []*agent.Doc) *agent.Policy        { return copilot.Combine(docs) }
func (copilotAdapter) Siblings(p string) []string                     { return copilot.Siblings(p) }
func (copilotAdapter) FrontmatterOnly(p string) bool                  { return copilot.FrontmatterOnly(p) }

func init() { RegisterAdapter(copilotAdapter{}) }
