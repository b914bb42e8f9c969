package diff

import (
	"github.com/shipgate-app/shipgate/internal/agents/agent"
	"github.com/shipgate-app/shipgate/internal/agents/opencode"
)

// opencodeAdapter is OpenCode (opencode.json, opencode.jsonc): see
// internal/agents/opencode.
type opencodeAdapter struct{}

func (opencodeAdapter) Agent() string          { return AgentOpenCode }
func (opencodeAdapter) CheckedAgainst() string { return opencode.CheckedAgainst }
func (opencodeAdapter) Hints() []string        { return []string{"opencode.json"} }
func (opencodeAdapter) Pathspecs() []string    { return opencode.Pathspecs }
func (opencodeAdapter) Classify(p string) (FileKind, string) {
	if s, ok := opencode.Classify(p); ok {
		return AgentFile, s
	}
	return NotAgentConfig, ""
}
func (opencodeAdapter) Read(p string, data []byte) (*agent.Doc, error) { return opencode.Read(p, data) }
func (opencodeAdapter) Combine(docs []*agent.Doc) *agent.Policy        { return opencode.Combine(docs) }
func (opencodeAdapter) Siblings(p string) []string                     { return opencode.Siblings(p) }

func init() { RegisterAdapter(opencodeAdapter{}) }
