package agentfiles

import (
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/opencode"
	"github.com/shipgate-app/shipgate/report"
)

// opencodeAdapter is OpenCode (opencode.json, opencode.jsonc, the files
// of .opencode folders and those {file:…} pulls in): see
// agentfiles/opencode.
type opencodeAdapter struct{}

func (opencodeAdapter) Agent() string          { return AgentOpenCode }
func (opencodeAdapter) CheckedAgainst() string { return opencode.CheckedAgainst }
func (opencodeAdapter) Hints() []string        { return []string{"opencode.json", ".opencode/"} }
func (opencodeAdapter) Pathspecs() []string    { return opencode.Pathspecs }
func (opencodeAdapter) Classify(p string) (report.FileKind, string) {
	if s, ok := opencode.Classify(p); ok {
		return AgentFile, s
	}
	return report.NotAgentConfig, ""
}
func (opencodeAdapter) Read(p string, data []byte) (*agent.Doc, error) { return opencode.Read(p, data) }
func (opencodeAdapter) Combine(docs []*agent.Doc) *agent.Policy        { return opencode.Combine(docs) }
func (opencodeAdapter) Siblings(p string) []string                     { return opencode.Siblings(p) }
func (opencodeAdapter) MayReference(p string) bool                     { return opencode.MayReference(p) }
func (opencodeAdapter) References(p string, data []byte) []string {
	return opencode.References(p, data)
}
func (opencodeAdapter) ReadWith(p string, data []byte, look func(string) ([]byte, bool, bool)) (*agent.Doc, error) {
	return opencode.ReadWith(p, data, look)
}

func init() { RegisterAdapter(opencodeAdapter{}) }
