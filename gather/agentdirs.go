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
//
// Copilot CLI follows symlinks there (measured on 1.0.102,
// TestCopilotAgentDirectoriesRuntime): an agent file that links to a file
// elsewhere (Markdown or not), a named folder that links to another, a
// subfolder that does. So the base's folders are learnt before the change
// is listed, and a symlink in, at or above one of them hides agent
// configuration (inAgentDirTree): its target is a backing path whose
// change is a change of the agents seen through it. A folder only the
// head names comes with a change of the settings, reviewed on its own.

// copilotSettings are the files whose agentDirectories Copilot CLI reads.
var copilotSettings = []string{".github/copilot/settings.json", ".github/copilot/settings.local.json"}

// mdSpec lists every changed Markdown file: one may be a custom agent of
// a folder agentDirectories names.
const mdSpec = ":(glob)**/*.md"

// learnAgentDirs reads agentDirectories from both settings files on the
// given sides into g.agentDirs (the union: a folder either side names is
// one whose agents the change may widen). A settings file Shipgate cannot
// read or parse may name any folder: every .md is then read as an agent
// (fail closed), with a note. The base is read before the change is
// listed (its reads do not depend on the change), the head after.
func (g *gatherer) learnAgentDirs(ctx context.Context, sides ...side) error {
	seen := map[string]bool{}
	for _, d := range g.agentDirs {
		seen[d] = true
	}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			g.agentDirs = append(g.agentDirs, d)
		}
	}
	for _, s := range sides {
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

// inAgentDirTree reports whether p lies in a folder agentDirectories names,
// is one, or is a folder above one: a symlink there can stand for custom
// agents Copilot CLI loads through it.
func (g *gatherer) inAgentDirTree(p string) bool {
	for _, d := range g.agentDirs {
		if d == "" || p == d || strings.HasPrefix(p, d+"/") || strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	return false
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
