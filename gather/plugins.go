package gather

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/report"
)

// Claude Code plugins (agentfiles.PluginLayouts), and Codex's and
// Cursor's (agentfiles.CodexPluginLayout): a plugin manifest or
// marketplace names the folders and files a plugin loads its commands,
// agents, skills, hooks and servers from, anywhere in the repository, so
// no fixed pathspec finds them. As for Copilot's agentDirectories
// (agentdirs.go), the manifests are read on both sides: the base's
// before the change is listed (their paths are selected among the
// changed ones: a change to only a named hooks file is a change to the
// plugin's hooks), the head's after. A file either side's plugins load
// is judged as what they make it (report.File.As); on a side whose
// plugins do not load it, it is absent, so a file a changed manifest
// newly names is a new command, agent or hooks file, read at the head
// though the change does not touch it.

// pluginSides are the plugin layouts of the base and the head.
type pluginSides [2][]agentfiles.PluginLayout

// learnPlugins reads the plugin manifests of one side into g.plugins: at
// the base every manifest of the listing, at the head the base's
// unchanged ones and the changed ones read again. A manifest Shipgate
// cannot read yields its default folders (PluginLayouts).
func (g *gatherer) learnPlugins(ctx context.Context, s side) error {
	var paths []string
	if s == baseSide {
		for p := range g.base {
			if agentfiles.IsPluginManifest(p) || agentfiles.IsCodexPluginManifest(p) {
				paths = append(paths, p)
			}
		}
	} else {
		for _, l := range g.plugins[baseSide] {
			if _, ok := g.changed[l.Manifest]; !ok {
				g.plugins[headSide] = append(g.plugins[headSide], l)
			}
		}
		for p, st := range g.changed {
			if (agentfiles.IsPluginManifest(p) || agentfiles.IsCodexPluginManifest(p)) && st != Deleted {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		r, err := g.resolve(ctx, s, p)
		if err != nil {
			return err
		}
		if s == headSide {
			r.force = true
		}
		v, err := g.version(ctx, s, r)
		if err != nil {
			return err
		}
		if s == baseSide {
			g.forget(r.real)
		}
		if !v.Exists {
			continue
		}
		if v.Unreadable != "" {
			v.Data = nil // read as a manifest Shipgate cannot read: its defaults
		}
		if agentfiles.IsCodexPluginManifest(p) {
			// Its default files and the files its manifest names (a
			// manifest that names them is a grant of its own too,
			// reviewed when it changes).
			g.plugins[s] = append(g.plugins[s], agentfiles.CodexPluginLayout(p, v.Data))
			continue
		}
		ls, _ := agentfiles.PluginLayouts(p, v.Data)
		g.plugins[s] = append(g.plugins[s], ls...)
	}
	return nil
}

// pluginAs is the path p is judged as by the plugins of either side (the
// head's first), "" when none loads it.
func (g *gatherer) pluginAs(p string) string {
	if as := agentfiles.PluginAs(p, g.plugins[headSide]); as != "" {
		return as
	}
	return agentfiles.PluginAs(p, g.plugins[baseSide])
}

// pluginMoved reports whether the change changes what the plugins make
// of p (a manifest newly names it, no longer does, or names it as
// another part): p is then read on both sides though the change does
// not touch it.
func (g *gatherer) pluginMoved(p string) bool {
	return agentfiles.PluginAs(p, g.plugins[baseSide]) != agentfiles.PluginAs(p, g.plugins[headSide]) || g.newlyLoaded(p)
}

// newlyLoaded reports whether a head plugin loads p, agent configuration
// by its path (a hooks/hooks.json, an .mcp.json), and no base plugin does:
// a marketplace entry added for a plugin folder whose hooks file is
// unchanged. p is read on both sides and compared as new (pluginNew), so
// the hooks and servers the entry makes installable are reviewed.
func (g *gatherer) newlyLoaded(p string) bool {
	if agentfiles.PluginAs(p, g.plugins[headSide]) == "" && agentfiles.PluginLoads(p, g.plugins[headSide]) && !agentfiles.PluginLoads(p, g.plugins[baseSide]) {
		return true
	}
	return g.newlyListed(p)
}

// newlyListed reports whether p is a part of a plugin a marketplace entry
// of the head lists and no marketplace entry of the base listed (by its
// folder): a plugin that only now can be installed from the repository's
// marketplace, judged by what its files grant though its plugin.json and
// files were there before (anthropics/claude-code c6a1c392d7 lists a
// plugin shipping a PreToolUse hook).
func (g *gatherer) newlyListed(p string) bool {
	listed := map[string]bool{}
	for _, l := range g.plugins[baseSide] {
		if path.Base(l.Manifest) == "marketplace.json" {
			listed[l.Root] = true
		}
	}
	for _, l := range g.plugins[headSide] {
		if path.Base(l.Manifest) == "marketplace.json" && !listed[l.Root] && l.As(p) != "" {
			return true
		}
	}
	return false
}

// pluginNew masks the base version of a file a head plugin newly loads
// (newlyLoaded): as a plugin's part it did not exist there.
func (g *gatherer) pluginNew(f *report.File) {
	if !f.Base.Exists || !(f.As == "" && g.newlyLoaded(f.Path) || f.As != "" && g.newlyListed(f.Path)) {
		return
	}
	f.Base = report.Version{}
	g.note(fmt.Sprintf("`%s` is compared as new: a plugin the change lists (a manifest or a marketplace entry) loads it, and none did at the base.", f.Path))
}

// pluginPathspecs select the changed files the base's plugins load.
func (g *gatherer) pluginPathspecs() []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range g.plugins[baseSide] {
		for _, pp := range l.Paths {
			if pp.Path != "" && !seen[pp.Path] {
				seen[pp.Path] = true
				out = append(out, ":(literal)"+pp.Path)
			}
		}
	}
	return out
}

// pluginFiles adds (through add) the files the head's plugins load that
// the change's listing may not hold, for the manifests the change
// touches: a hooks, servers or monitors file (a new file at a path no
// pathspec selects), and the files of the folders they name (a sparse
// base listing holds only the paths agentfiles.MayBeAgentPath accepts:
// such a folder is listed whole).
func (g *gatherer) pluginFiles(ctx context.Context, add func(string)) error {
	dirs := map[string]bool{}
	for _, l := range g.plugins[headSide] {
		if _, ok := g.changed[l.Manifest]; !ok {
			continue
		}
		for _, pp := range l.Paths {
			switch pp.Part {
			case agentfiles.PartHooks, agentfiles.PartMCP, agentfiles.PartLSP, agentfiles.PartMonitors, agentfiles.PartApps:
				if pp.Path != "" {
					add(pp.Path)
				}
				continue
			case agentfiles.PartWorkflows:
				add(pp.Path) // a .js file, or a folder (listed below)
			case agentfiles.PartCommands, agentfiles.PartAgents:
				if strings.HasSuffix(pp.Path, ".md") {
					// A file the manifest names: a sparse base listing
					// holds it only if its path looks like agent
					// configuration, and listing it as a folder finds
					// nothing (the CLI missed a command a marketplace
					// entry newly listed, unchanged).
					add(pp.Path)
					continue
				}
			}
			if !dirs[pp.Path] {
				dirs[pp.Path] = true
				if err := g.fill(ctx, pp.Path); err != nil {
					return err
				}
			}
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	for p := range g.base {
		for q := p; ; q = path.Dir(q) {
			if q == "." {
				q = ""
			}
			if dirs[q] {
				add(p)
				break
			}
			if q == "" {
				break
			}
		}
	}
	return nil
}

// pluginSide masks the version of a plugin-loaded file on a side whose
// plugins do not load it (and where its path makes it nothing else): as
// a command, agent or hooks file it does not exist there.
func (g *gatherer) pluginSide(f *report.File) {
	if f.As == "" || f.As != g.pluginAs(f.Path) {
		return
	}
	for _, s := range []side{baseSide, headSide} {
		if agentfiles.PluginAs(f.Path, g.plugins[s]) == "" {
			*ver(f, s) = report.Version{}
		}
	}
	if f.Base.Exists || f.Head.Exists {
		g.note(fmt.Sprintf("`%s` is read as a plugin's %s: a plugin manifest names it, or it is one of the plugin's default folders.", f.Path, pluginWhat(f.As)))
	}
}

// pluginWhat names the part an As stands for.
func pluginWhat(as string) string {
	for _, w := range []string{"commands", "agents", "skills"} {
		if strings.Contains("/"+as, "/.claude-plugin/.claude/"+w+"/") {
			return w[:len(w)-1]
		}
	}
	return path.Base(as) + " file"
}
