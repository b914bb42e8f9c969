package agentfiles

import (
	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// ReferenceReader is a ModelAdapter whose files pull in other
// repository files (OpenCode's {file:…}): References names them (the
// front ends read them at base and head: ExtraPaths), ReadWith reads a
// version with the same side's files at hand.
type ReferenceReader interface {
	// MayReference says whether a path's files can pull others in.
	MayReference(path string) bool
	References(path string, data []byte) []string
	ReadWith(path string, data []byte, look func(string) (data []byte, exists, known bool)) (*agent.Doc, error)
}

// MayPullIn reports whether an agent file at p (in a base tree) can
// pull in other repository files that the front ends must watch: a
// change to only such a file is a change to p (ExtraPaths names them).
func MayPullIn(p string) bool {
	if _, ok := OpaqueCommands(p); ok {
		return true // the scripts its commands run
	}
	name, k, _ := ClassifyAgent(p, nil)
	rr, ok := AdapterFor(name).(ReferenceReader)
	return k == AgentFile && ok && rr.MayReference(CleanPath(p))
}

// AsReader is a ModelAdapter that reads a file classified by another path
// (report.File.As) by what that path makes it: a file a plugin manifest
// names for its hooks is read as a plugin's hooks file.
type AsReader interface {
	ReadAs(path, as string, data []byte) (*agent.Doc, error)
}
