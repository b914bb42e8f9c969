package gather

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/copilot"
	"github.com/shipgate-app/shipgate/report"
)

// Copilot CLI's custom agents in the folders its settings' agentDirectories
// name (measured: copilot.AgentDirs says how the binary reads the setting).
// Those folders are the repository's to choose, so no fixed pathspec
// finds them: the change's Markdown files are listed with the rest
// (mdSpec), the settings are read at base and head once the change is
// known (learnAgentDirs), and a changed .md under a folder either side
// names is judged as a custom agent (classified as copilot.AgentAs).

// copilotSettings are the files whose agentDirectories Copilot CLI reads.
var copilotSettings = []string{".github/copilot/settings.json", ".github/copilot/settings.local.json"}

// mdSpec lists every changed Markdown file: one may be a custom agent of
// a folder agentDirectories names.
const mdSpec = ":(glob)**/*.md"

// learnAgentDirs reads agentDirectories from both settings files at base
// and head into g.agentDirs (the union: a folder either side names is one
// whose agents the change may widen). A settings file Shipgate cannot read
// or parse may name any folder: every .md is then read as an agent (fail
// closed), with a note.
func (g *gatherer) learnAgentDirs(ctx context.Context) error {
	seen := map[string]bool{}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			g.agentDirs = append(g.agentDirs, d)
		}
	}
	for _, s := range []side{baseSide, headSide} {
		for _, p := range copilotSettings {
			r, err := g.resolve(ctx, s, p)
			if err != nil {
				return err
			}
			v, err := g.version(ctx, s, r)
			if err != nil {
				return err
			}
			if !v.Exists {
				continue
			}
			var (
				dirs, notes []string
				ok          bool
			)
			if v.Unreadable == "" {
				dirs, notes, ok = copilot.AgentDirs(v.Data)
			}
			if !ok {
				add("")
				g.note(fmt.Sprintf("`%s` could not be read for its agentDirectories: every changed Markdown file was judged as a Copilot CLI custom agent.", p))
				continue
			}
			for _, n := range notes {
				g.note(fmt.Sprintf("`%s`: %s.", p, n))
			}
			for _, d := range dirs {
				add(d)
			}
		}
	}
	sort.Strings(g.agentDirs)
	return nil
}

// agentDirFile is the path an unclassified file of a folder
// agentDirectories names is read as ("" for any other path).
func (g *gatherer) agentDirFile(p string) string {
	if len(g.agentDirs) == 0 || !copilot.InAgentDir(p, g.agentDirs) {
		return ""
	}
	if k, _ := agentfiles.Classify(p, g.pol); k != report.NotAgentConfig {
		return "" // another file of an agent's (or Copilot's own .github/agents)
	}
	return copilot.AgentAs(p)
}

// isAgentDirAs reports whether f is read as a custom agent of a folder
// agentDirectories names.
func isAgentDirAs(f report.File) bool {
	return f.As != "" && f.As == copilot.AgentAs(f.Path) && strings.HasSuffix(f.Path, ".md")
}
