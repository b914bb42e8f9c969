package gather

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/report"
)

// The files hooks run, learnt from the base.
//
// A hook, status line, helper or stdio MCP server whose command runs a
// repository file (`python3 scripts/guard.py`,
// `"$CLAUDE_PROJECT_DIR"/tools/check.sh`) makes that file part of the
// agent's surface: a pull request that changes only the file, deletes it
// or replaces it with a symlink changes what the hook does, though no
// agent-config file changed. So before the change's files are listed the
// gatherer reads every agent-config file of the base that can run a
// command (settings.json and settings.local.json of every project,
// .mcp.json, skills, commands and subagents, through symlinks and case
// variants as Claude Code opens them), asks hookscript.CommandsOf what each runs,
// and selects those paths (and where base symlinks lead them) among the
// changed ones. A changed file one of them runs brings its owner into the
// input, unchanged, so the engine sees the use (judge/hookscripts.go).
//
// A command Shipgate cannot resolve to files (`$(git rev-parse
// --show-toplevel)/x.sh`, `python3 "$SCRIPT"`, `python3 -m pkg.hook`)
// selects every changed file whose name its text names (hookscript.Mentions):
// the engine holds such a change for review, saying what it could not
// resolve.
//
// The base's files rarely change, so what each runs is cached by its blob
// (the host's object name for its content, Entry.ID) when the source has a
// cache (the App's, shared across pull requests): a pull request that
// touches no agent-config file costs no read once a blob has been seen.

// hookOwner is an agent-config file of the base whose commands run files.
type hookOwner struct {
	path string // the candidate's repository path (cand.path)
	hookscript.HookCommands
}

// baseHooks is what the base's agent-config files run.
type baseHooks struct {
	byPath  map[string][]string // a file run (or where a base symlink leads it) → owners
	dynamic []hookOwner         // owners with commands Shipgate cannot resolve
	// loaders: a file a script of the base loads (hookscript.LoadsOf) → the
	// scripts that load it; dirs: a folder any file of which a script may
	// load (a load Shipgate cannot resolve, or past the bounds) → those
	// scripts. The engine needs the scripts on the way to judge a change
	// to a loaded file (judge.followLoads).
	loaders map[string][]string
	dirs    map[string][]string
	// unread are the scripts whose loads were not read (past
	// hookscript.MaxLoadFiles, or too large), with why: the engine is given
	// them unreadable, and treats their folder as loaded.
	unread map[string]string
}

// cacher is a source with a cache shared across gathers.
type cacher interface{ sharedCache() *Cache }

func (g *GitHub) sharedCache() *Cache { return g.Cache }

// hooksKey names what CommandsOf found in one blob read as one path.
func hooksKey(id, as string) string { return "hooks\x00" + id + "\x00" + as }

// pluginCommandFiles are the hooks, servers, LSP and monitors files the base's
// plugins load: a sparse listing (the CLI's) holds only paths that look
// like agent configuration, and a manifest may name
// ./config/codex-hooks.json, whose commands run scripts too.
func (g *gatherer) pluginCommandFiles() []string {
	var out []string
	for _, l := range g.plugins[baseSide] {
		for _, pp := range l.Paths {
			switch pp.Part {
			case agentfiles.PartHooks, agentfiles.PartMCP, agentfiles.PartMonitors, agentfiles.PartLSP:
				if pp.Path != "" {
					out = append(out, pp.Path)
				}
			}
		}
	}
	return out
}

// learnHooks reads what the base's agent-config files run.
func (g *gatherer) learnHooks(ctx context.Context) (baseHooks, error) {
	h := baseHooks{byPath: map[string][]string{}, loaders: map[string][]string{}, dirs: map[string][]string{}, unread: map[string]string{}}
	var cache *Cache
	if c, ok := g.src.(cacher); ok {
		cache = c.sharedCache()
	}
	cands := map[string]cand{}
	add := func(p string) {
		if as, ok := g.candidate(p); ok {
			cands[p] = cand{path: p, as: as}
		}
	}
	for p, e := range g.base {
		add(p)
		if (e.Kind == Symlink || e.Kind == Submodule) && g.hides(p) {
			if err := g.linkChildren(ctx, e, add); err != nil {
				return h, err
			}
		}
	}
	for _, p := range g.pluginCommandFiles() {
		add(p)
	}
	paths := make([]string, 0, len(cands))
	for p := range cands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		c := cands[p]
		switch k, scope := agentfiles.Classify(c.key(), g.pol); {
		case strings.HasPrefix(scope, "watched:"):
			continue
		case k == report.SettingsFile, k == report.MCPFile, k == report.SkillFile, k == report.CommandFile, k == report.SubagentFile:
		case k == agentfiles.AgentFile && agentfiles.MayPullIn(c.key()):
			// Another agent's config that pulls in files (OpenCode's
			// {file:…}): a change to one is a change to the config.
		default:
			continue
		}
		r, err := g.resolve(ctx, baseSide, c.path)
		if err != nil {
			return h, err
		}
		if r.unreadable != "" || r.real == "" {
			continue
		}
		e, listed, err := g.baseEntry(ctx, r.real)
		if err != nil {
			return h, err
		}
		if !listed || e.Kind != File || e.TooLarge {
			continue
		}
		var hc hookscript.HookCommands
		key := ""
		if e.ID != "" {
			key = hooksKey(e.ID, c.key())
		}
		if v, ok := cache.Get(key); ok && key != "" {
			hc = v.(hookscript.HookCommands)
		} else {
			v, err := g.version(ctx, baseSide, r)
			if err != nil {
				return h, err
			}
			g.forget(r.real)
			if !v.Exists || v.Unreadable != "" {
				continue
			}
			hc = hookscript.CommandsOf(c.key(), v.Data)
			if key != "" {
				size := len(key)
				for _, x := range append(append([]string(nil), hc.Paths...), hc.Dynamic...) {
					size += len(x) + 16
				}
				cache.Add(key, hc, size)
			}
		}
		if len(hc.Dynamic) > 0 {
			h.dynamic = append(h.dynamic, hookOwner{path: c.path, HookCommands: hc})
		}
		for _, x := range hc.Paths {
			h.byPath[x] = appendOnce(h.byPath[x], c.path)
			// Where the base's symlinks lead it: the change may edit the
			// target instead.
			rx, err := g.resolve(ctx, baseSide, x)
			if err != nil {
				return h, err
			}
			if rx.real != "" && rx.real != x && rx.unreadable == "" {
				h.byPath[rx.real] = appendOnce(h.byPath[rx.real], c.path)
			}
		}
	}
	if err := g.learnLoads(ctx, cache, &h); err != nil {
		return h, err
	}
	return h, nil
}

// loadsKey names what LoadsOf found in one blob read as one path.
func loadsKey(id, as string) string { return "loads\x00" + id + "\x00" + as }

// learnLoads follows, from the scripts the base's commands run, what they
// load (hookscript.LoadsOf on the base's content, cached by blob like the
// settings), hookscript.MaxLoadDepth levels deep and over at most
// hookscript.MaxLoadFiles scripts, as the engine does: a loaded file is run by
// the owners of the script that loads it. A script whose loads Shipgate
// cannot resolve, or that is past the bounds, makes every file in its
// folder run by them (fail closed).
func (g *gatherer) learnLoads(ctx context.Context, cache *Cache, h *baseHooks) error {
	var start []string
	for p := range h.byPath {
		start = append(start, p)
	}
	return hookscript.WalkLoads(start, func(p string, depth int, past bool) ([]string, bool, error) {
		owners := h.byPath[p]
		r, err := g.resolve(ctx, baseSide, p)
		if err != nil {
			return nil, false, err
		}
		if r.unreadable != "" || r.real == "" {
			return nil, false, nil
		}
		e, listed, err := g.baseEntry(ctx, r.real)
		if err != nil {
			return nil, false, err
		}
		if !listed || e.Kind != File {
			return nil, false, nil
		}
		dir := path.Dir(p)
		if past || e.TooLarge {
			if depth <= hookscript.MaxLoadDepth {
				h.unread[p] = fmt.Sprintf("Shipgate reads what at most %d hook scripts load, and this one is past that or too large", hookscript.MaxLoadFiles)
			}
			h.dirs[dir] = appendOnce(h.dirs[dir], p)
			for _, o := range owners {
				h.byPath[loadedDir+dir] = appendOnce(h.byPath[loadedDir+dir], o)
			}
			return nil, false, nil
		}
		var l hookscript.Loads
		key := ""
		if e.ID != "" {
			key = loadsKey(e.ID, p)
		}
		if v, ok := cache.Get(key); ok && key != "" {
			l = v.(hookscript.Loads)
		} else {
			v, err := g.version(ctx, baseSide, r)
			if err != nil {
				return nil, true, err
			}
			g.forget(r.real)
			if !v.Exists || v.Unreadable != "" {
				return nil, true, nil
			}
			l = hookscript.LoadsOf(p, v.Data)
			if key != "" {
				size := len(key)
				for _, x := range append(append([]string(nil), l.Paths...), l.Dynamic...) {
					size += len(x) + 16
				}
				cache.Add(key, l, size)
			}
		}
		for _, x := range l.Paths {
			h.loaders[x] = appendOnce(h.loaders[x], p)
			for _, o := range owners {
				h.byPath[x] = appendOnce(h.byPath[x], o)
			}
		}
		if len(l.Dynamic) > 0 {
			h.dirs[dir] = appendOnce(h.dirs[dir], p)
			for _, o := range owners {
				h.byPath[loadedDir+dir] = appendOnce(h.byPath[loadedDir+dir], o)
			}
		}
		return l.Paths, true, nil
	})
}

// loadedDir prefixes, in byPath, a folder any file of which a script may
// load.
const loadedDir = "\x00dir:"

// inLoadedDir is the folder of dirs p lies in, if any.
func (h baseHooks) inLoadedDir(p string) (string, bool) {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if _, ok := h.dirs[d]; ok {
			return d, true
		}
		if d == "." || d == "/" || d == "" {
			return "", false
		}
	}
}

// chain are the base's scripts the engine needs to judge a change to p:
// those that load p (or whose folder p lies in), and those that load
// them, up to the scripts commands run.
func (h baseHooks) chain(p string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(x string)
	walk = func(x string) {
		ls := h.loaders[x]
		if d, ok := h.inLoadedDir(x); ok {
			ls = append(append([]string(nil), ls...), h.dirs[d]...)
		}
		for _, l := range ls {
			if !seen[l] && l != p {
				seen[l] = true
				out = append(out, l)
				walk(l)
			}
		}
	}
	walk(p)
	sort.Strings(out)
	return out
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// runs reports whether a base command runs, or may run, p.
func (h baseHooks) runs(p string) bool { return len(h.owners(p)) > 0 }

// owners are the base's agent-config files whose commands run p, or may
// (a command Shipgate cannot resolve that names it).
func (h baseHooks) owners(p string) []string {
	out := h.byPath[p]
	if d, ok := h.inLoadedDir(p); ok {
		for _, o := range h.byPath[loadedDir+d] {
			out = appendOnce(append([]string(nil), out...), o)
		}
	}
	for _, o := range h.dynamic {
		for _, t := range o.Dynamic {
			if hookscript.Mentions(t, p) {
				out = appendOnce(append([]string(nil), out...), o.path)
				break
			}
		}
	}
	return out
}

// pathspecs select, for a host that lists changes by pathspec, every path
// runs accepts: the files run, literally, and for each command Shipgate
// cannot resolve the files its words could name (a superset; Match
// decides).
func (h baseHooks) pathspecs() []string {
	var out []string
	for p := range h.byPath {
		if !strings.HasPrefix(p, loadedDir) {
			out = append(out, ":(literal)"+p)
		}
	}
	for d := range h.dirs {
		if d == "." {
			out = append(out, ":(glob)**")
		} else {
			out = append(out, ":(literal)"+d)
		}
	}
	seen := map[string]bool{}
	for _, o := range h.dynamic {
		for _, t := range o.Dynamic {
			for _, w := range hookscript.CommandTokens(t) {
				if strings.Trim(w, ".") == "" {
					continue // . and .. name no file (and git refuses them)
				}
				specs := []string{":(glob)**/" + w}
				if i := strings.LastIndex(w, "."); i >= 0 && i+1 < len(w) {
					specs = append(specs, ":(glob)**/"+w[i+1:]+".*")
				} else if i < 0 {
					specs = append(specs, ":(glob)**/"+w+".*")
				}
				for _, spec := range specs {
					if !seen[spec] {
						seen[spec] = true
						out = append(out, spec)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// dynamicCommands are the commands of the input's files (either version)
// that Shipgate cannot resolve to files.
func dynamicCommands(files []report.File) []string {
	var out []string
	for _, f := range files {
		as := f.Path
		if f.As != "" {
			as = f.As
		}
		for _, v := range []report.Version{f.Base, f.Head} {
			if v.Exists && v.Unreadable == "" {
				out = append(out, hookscript.CommandsOf(as, v.Data).Dynamic...)
			}
		}
	}
	return out
}

// folderLinks adds the agent-config paths a symlink the change makes or
// retargets brings into view whatever its name: Claude Code opens paths,
// so with `pkg -> vendor/x` a session started in pkg reads
// vendor/x/.claude/settings.json as pkg/.claude/settings.json (and
// vendor/x/.mcp.json as pkg/.mcp.json). A target inside the repository is
// followed: the agent-config files under it (at base, or added by the
// change) are added under the link's name. A target outside the
// repository (or the repository root, which the link would show again
// under its name) cannot be read: the link's .claude/settings.json is
// added, and resolve reports it unreadable (fail closed), unless the base
// had a regular file there (a file replaced by a link out).
// Links named like agent configuration are handled with the .claude
// folders (files, headLinkChildren).
func (g *gatherer) folderLinks(ctx context.Context, add func(string)) error {
	for _, c := range g.links {
		if g.hides(c.Path) {
			continue
		}
		target := c.Target
		to, inside := "", false
		if target != "" {
			to, inside = resolveLink(c.Path, target)
			if inside {
				if err := g.fill(ctx, to); err != nil {
					return err
				}
			}
			if inside && !g.holdsConfig(c.Path, to) {
				continue // a link to a file, or to a folder with no agent configuration
			}
		}
		// Read the head to be sure it is a symlink (GitHub tells one only
		// by its patch), and for its exact text.
		e, err := g.entry(ctx, headSide, c.Path, false)
		if err != nil {
			return err
		}
		if e.Kind != Symlink || e.Path != c.Path {
			continue
		}
		to, inside = resolveLink(c.Path, e.Target)
		if inside {
			// The target may itself lie under a link (a chain).
			rt, err := g.resolve(ctx, headSide, to)
			if err != nil {
				return err
			}
			to, inside = rt.real, rt.unreadable == "" && rt.real != ""
		}
		if !inside {
			was, _, err := g.baseEntry(ctx, c.Path)
			if err != nil {
				return err
			}
			if was.Kind == File {
				// A file replaced by a link out: a file it was, and a
				// session is not started in it (a change to a script it
				// was is reported as the script's).
				continue
			}
			// One path under it says so (resolve reports it unreadable).
			add(path.Join(c.Path, ".claude/settings.json"))
			g.note(fmt.Sprintf("`%s` is a symlink to %q: a session started under it reads agent configuration Shipgate cannot see.", c.Path, e.Target))
			continue
		}
		if err := g.fill(ctx, to); err != nil {
			return err
		}
		for p := range g.base {
			if rest, ok := strings.CutPrefix(p, to+"/"); ok {
				add(path.Join(c.Path, rest))
			}
		}
		for p, st := range g.changed {
			if rest, ok := strings.CutPrefix(p, to+"/"); ok && st != Deleted {
				add(path.Join(c.Path, rest))
			}
		}
	}
	return nil
}

// holdsConfig reports whether the folder to, seen as link, holds agent
// configuration at base or in the change (a path under it that is an
// agent-config path under the link's name).
func (g *gatherer) holdsConfig(link, to string) bool {
	for p := range g.base {
		if rest, ok := strings.CutPrefix(p, to+"/"); ok {
			if _, ok := g.candidate(path.Join(link, rest)); ok {
				return true
			}
		}
	}
	for q := to; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if g.base[q].Kind == Symlink {
			return true // a chain of links: follow it
		}
	}
	for p, st := range g.changed {
		if rest, ok := strings.CutPrefix(p, to+"/"); ok && st != Deleted {
			if _, ok := g.candidate(path.Join(link, rest)); ok {
				return true
			}
		}
		if p == to && st != Deleted {
			return true // the change makes the target too (maybe a link)
		}
	}
	return false
}
