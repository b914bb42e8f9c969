package agentfiles

import (
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/vscode"
	"github.com/shipgate-app/shipgate/report"
)

// vscodeAdapter is VS Code with GitHub Copilot Chat (.vscode/settings.json,
// .vscode/mcp.json, *.code-workspace, dev container definitions): see
// agentfiles/vscode.
type vscodeAdapter struct{}

func (vscodeAdapter) Agent() string          { return AgentVSCode }
func (vscodeAdapter) CheckedAgainst() string { return vscode.CheckedAgainst }
func (vscodeAdapter) Hints() []string        { return []string{".vscode", ".code-workspace", "devcontainer"} }
func (vscodeAdapter) Pathspecs() []string    { return vscode.Pathspecs }
func (vscodeAdapter) Classify(p string) (report.FileKind, string) {
	if _, s, ok := vscode.Classify(p); ok {
		return AgentFile, s
	}
	return report.NotAgentConfig, ""
}
func (vscodeAdapter) Read(p string, data []byte) (*agent.Doc, error) { return vscode.Read(p, data) }
func (vscodeAdapter) Combine(docs []*agent.Doc) *agent.Policy        { return vscode.Combine(docs) }
func (vscodeAdapter) Siblings(p string) []string                     { return vscode.Siblings(p) }

func init() { RegisterAdapter(vscodeAdapter{}) }
