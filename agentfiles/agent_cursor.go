package agentfiles

import (
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/cursor"
	"github.com/shipgate-app/shipgate/report"
)

// cursorAdapter is Cursor (.cursor/cli.json, .cursor/mcp.json,
// .cursor/hooks.json and its scripts): see
// agentfiles/cursor.
type cursorAdapter struct{}

func (cursorAdapter) Agent() string          { return AgentCursor }
func (cursorAdapter) CheckedAgainst() string { return cursor.CheckedAgainst }
func (cursorAdapter) Hints() []string        { return []string{".cursor"} }
func (cursorAdapter) Pathspecs() []string    { return cursor.Pathspecs }
func (cursorAdapter) Classify(p string) (report.FileKind, string) {
	if s, ok := cursor.Classify(p); ok {
		return AgentFile, s
	}
	return report.NotAgentConfig, ""
}
func (cursorAdapter) Read(p string, data []byte) (*agent.Doc, error) { return cursor.Read(p, data) }
func (cursorAdapter) Combine(docs []*agent.Doc) *agent.Policy        { return cursor.Combine(docs) }
func (cursorAdapter) Siblings(p string) []string                     { return cursor.Siblings(p) }

func init() { RegisterAdapter(cursorAdapter{}) }
