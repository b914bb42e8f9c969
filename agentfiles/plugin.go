package agentfiles

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/report"
)

// Claude Code plugins: a folder with .claude-plugin/plugin.json, or an
// entry of a marketplace (.claude-plugin/marketplace.json) whose source
// is a folder of the repository. A session that enables the plugin
// loads its commands, agents, skills, hooks, MCP and LSP servers and
// monitors from the folders the manifest (or the marketplace entry)
// names, and from default folders at the plugin's root. Which ones is
// read from the 2.1.328 bundle's manifest schema (claudeschema's
// plugin-manifest files) and measured (TestPluginHooksOnTheBinary):
//
//   - commands, agents, outputStyles: a named path replaces the default
//     folder (commands/, agents/);
//   - skills, hooks, mcpServers, lspServers: named paths add to the
//     default (skills/, hooks/hooks.json, .mcp.json, .lsp.json);
//   - monitors (also under "experimental"), workflows: a named path
//     replaces monitors/monitors.json, workflows/.
//
// A path must start with ./ (else the manifest is invalid and the
// plugin does not load); one through .. "escapes plugin directory" and
// none of the plugin's hooks load. Shipgate reads every path the manifest
// names either way (a path that leaves the plugin folder is still a
// repository file, and what Claude Code makes of it may change), and
// says so (PluginLayout.Problems).
//
// These files lie anywhere in the repository, so their path alone does
// not classify them: the front ends read the manifests of the base and
// the head (gather), and judge each file as what the manifest makes it
// through report.File.As (PluginLayout.As).

// PluginPart is a kind of thing a plugin loads.
type PluginPart string

const (
	PartCommands PluginPart = "commands"
	PartAgents   PluginPart = "agents"
	PartSkills   PluginPart = "skills"
	PartHooks    PluginPart = "hooks"
	PartMCP      PluginPart = "mcpServers"
	PartLSP      PluginPart = "lspServers"
	PartMonitors PluginPart = "monitors"
	// PartWorkflows are .js workflows Claude Code runs (a folder or
	// files): Shipgate does not read them, any change is reviewed.
	PartWorkflows PluginPart = "workflows"
)

// pluginParts are the manifest keys of the parts Shipgate reads, with
// their default paths (relative to the plugin root) and whether a named
// path replaces the default.
var pluginParts = []struct {
	part     PluginPart
	def      string
	replaces bool
}{
	{PartCommands, "commands", true},
	{PartAgents, "agents", true},
	{PartSkills, "skills", false},
	{PartHooks, "hooks/hooks.json", false},
	{PartMCP, ".mcp.json", false},
	{PartLSP, ".lsp.json", false},
	{PartMonitors, "monitors/monitors.json", true},
	{PartWorkflows, "workflows", true},
}

// PartApps is the apps (connectors) file of a Codex plugin, .app.json at
// its root: Shipgate does not read it, any change is reviewed.
const PartApps PluginPart = "apps"

// IsCodexPluginManifest reports whether p is a plugin manifest Codex reads
// that is not a Claude Code one: .codex-plugin/plugin.json or
// .cursor-plugin/plugin.json in any folder (Codex 0.169.0 loads a plugin
// folder holding one of them, or .claude-plugin/plugin.json: its binary's
// "missing .codex-plugin/plugin.json or valid Agent Plugin manifest").
func IsCodexPluginManifest(p string) bool {
	dir, base := path.Split(p)
	d := path.Base(strings.TrimSuffix(dir, "/"))
	return base == "plugin.json" && (d == ".codex-plugin" || d == ".cursor-plugin")
}

// CodexPluginLayout is what a Codex plugin with the manifest p (data,
// nil when unread) loads from its folder, as files Shipgate compares:
// hooks/hooks.json, .mcp.json and .app.json (the binary's default file
// names beside its manifest paths), and the files its hooks, mcpServers
// and apps keys name as relative paths (beads' ./plugin/hooks/codex-hooks.json),
// which the manifest's own change reviews but a change to only the file
// would not. The defaults are kept beside them (fail closed). Its skills/
// are instructions, which grant no permission. Read like a Claude Code
// layout (gather), a file it newly loads is compared as new: a manifest
// added beside an unchanged hooks file is a new hooks file.
func CodexPluginLayout(p string, data []byte) PluginLayout {
	root := path.Dir(path.Dir(p))
	if root == "." {
		root = ""
	}
	l := PluginLayout{Manifest: p, Root: root, Paths: []PluginPath{
		{Part: PartMCP, Path: path.Join(root, ".mcp.json")},
		{Part: PartApps, Path: path.Join(root, ".app.json")},
		{Part: PartHooks, Path: path.Join(root, "hooks/hooks.json")},
	}}
	obj, probs, err := jsonpos.Parse(data)
	if err != nil || len(probs) > 0 || obj == nil || obj.Kind() != jsonpos.Object {
		return l
	}
	for _, k := range []struct {
		key  string
		part PluginPart
	}{{"hooks", PartHooks}, {"mcpServers", PartMCP}, {"apps", PartApps}} {
		v := obj.Get(k.key)
		if v == nil {
			continue
		}
		vals := []*jsonpos.Value{v}
		if v.Kind() == jsonpos.Array {
			vals = v.Elements()
		}
		for _, e := range vals {
			if e.Kind() != jsonpos.String || strings.Contains(e.Text(), "://") {
				continue
			}
			if q, _ := join(root, e.Text()); q != "" && !slices.ContainsFunc(l.Paths, func(pp PluginPath) bool { return pp.Path == q }) {
				l.Paths = append(l.Paths, PluginPath{Part: k.part, Path: q})
			}
		}
	}
	return l
}

// PluginPath is one repository path a plugin loads a part from: a file
// or a folder.
type PluginPath struct {
	Part PluginPart
	Path string // repository path, cleaned ("" is the root)
	// Named: the manifest names it (else it is a default path).
	Named bool
}

// PluginLayout is what one plugin (a plugin.json, or a marketplace
// entry) loads from the repository.
type PluginLayout struct {
	Manifest string // the file that declares it
	Root     string // the plugin's folder ("" for the repository root)
	Paths    []PluginPath
	// Problems are what Claude Code refuses or Shipgate could not read
	// (a path outside the plugin, one not starting with ./, a value of
	// the wrong type), each a sentence.
	Problems []string
}

// IsPluginManifest reports whether p is a plugin manifest or a
// marketplace Claude Code reads: .claude-plugin/plugin.json or
// .claude-plugin/marketplace.json in any folder.
func IsPluginManifest(p string) bool {
	dir, base := path.Split(p)
	return (base == "plugin.json" || base == "marketplace.json") && path.Base(strings.TrimSuffix(dir, "/")) == ".claude-plugin"
}

// PluginLayouts reads a plugin manifest or a marketplace (IsPluginManifest)
// into the layouts of the plugins it declares. ok is false when the file
// is not a JSON object Shipgate reads: a plugin.json then yields its
// default paths (Claude Code does not load an invalid manifest, but a
// manifest Shipgate cannot read may be one it does), a marketplace none.
func PluginLayouts(p string, data []byte) (layouts []PluginLayout, ok bool) {
	manifestDir := path.Dir(path.Dir(p))
	if manifestDir == "." {
		manifestDir = ""
	}
	root, probs, err := jsonpos.Parse(data)
	ok = err == nil && len(probs) == 0 && root != nil && root.Kind() == jsonpos.Object
	if path.Base(p) == "plugin.json" {
		if !ok {
			l := PluginLayout{Manifest: p, Root: manifestDir}
			l.Paths = defaultPaths(manifestDir, nil)
			sortPaths(l.Paths)
			l.Problems = []string{"the manifest is not a JSON object Shipgate reads: only its default folders were read"}
			return []PluginLayout{l}, false
		}
		return []PluginLayout{layoutOf(p, manifestDir, root)}, true
	}
	if !ok {
		return nil, false
	}
	for _, me := range marketplaceEntries(manifestDir, root) {
		e, src, r, inside := me.obj, me.src, me.root, me.inside
		l := layoutOf(p, r, e)
		if !inside {
			l.Problems = append(l.Problems, "the entry's source "+src.Text()+" leaves the marketplace's folder")
		}
		layouts = append(layouts, l)
	}
	return layouts, true
}

// marketplaceEntry is one plugin of a marketplace whose source is a
// folder of the repository.
type marketplaceEntry struct {
	obj, src *jsonpos.Value
	root     string // the folder the source resolves to
	inside   bool   // the folder lies inside the marketplace's folder
}

// marketplaceEntries are the plugins of the marketplace root (read from
// the folder manifestDir) whose source is a relative path (under
// metadata.pluginRoot when it does not start with ./), resolved; a remote
// source names nothing of the repository and is left out.
func marketplaceEntries(manifestDir string, root *jsonpos.Value) []marketplaceEntry {
	prefix := ""
	if md := root.Get("metadata"); md != nil && md.Kind() == jsonpos.Object {
		if pr := md.Get("pluginRoot"); pr != nil && pr.Kind() == jsonpos.String {
			prefix = pr.Text()
		}
	}
	var out []marketplaceEntry
	for _, e := range root.Get("plugins").Elements() {
		if e.Kind() != jsonpos.Object {
			continue
		}
		src := e.Get("source")
		if src == nil || src.Kind() != jsonpos.String {
			continue // a remote source: nothing of this repository
		}
		rel := src.Text()
		if prefix != "" && !strings.HasPrefix(rel, "./") {
			rel = path.Join(prefix, rel)
		}
		r, inside := join(manifestDir, rel)
		if r == "" && !inside {
			continue
		}
		out = append(out, marketplaceEntry{obj: e, src: src, root: r, inside: inside})
	}
	return out
}

// RepointMarketplace is the base version of the marketplace p with every
// entry whose source resolves to the folder from spelt as the head's entry
// of the same name spells its source to the folder to: the marketplace a
// pull request that moves a plugin from from to to (as the same plugin:
// gather/renames.go proves it) would have had, had the plugin always been
// at to. Only the source tokens change, so lines stay where they were.
// ok is false when a side is not a strict JSON object, or an entry naming
// from has no head entry of its name naming to: the caller compares the
// versions as they are.
func RepointMarketplace(p string, base, head []byte, from, to string) ([]byte, bool) {
	manifestDir := path.Dir(path.Dir(p))
	if manifestDir == "." {
		manifestDir = ""
	}
	parse := func(data []byte) (*jsonpos.Value, bool) {
		v, probs, err := jsonpos.Parse(data)
		return v, err == nil && len(probs) == 0 && v != nil && v.Kind() == jsonpos.Object
	}
	b, ok1 := parse(base)
	h, ok2 := parse(head)
	if !ok1 || !ok2 {
		return nil, false
	}
	spelt := map[string]string{} // name → the head's raw source token naming to
	for _, me := range marketplaceEntries(manifestDir, h) {
		if name := me.obj.Get("name"); me.root == to && name.Kind() == jsonpos.String {
			spelt[name.Text()] = me.src.Raw()
		}
	}
	out := slices.Clone(base)
	var edits []marketplaceEntry
	for _, me := range marketplaceEntries(manifestDir, b) {
		if me.root != from {
			continue
		}
		name := me.obj.Get("name")
		if name.Kind() != jsonpos.String || spelt[name.Text()] == "" {
			return nil, false
		}
		edits = append(edits, me)
	}
	// From the last token back, so each offset still holds.
	for i := len(edits) - 1; i >= 0; i-- {
		me := edits[i]
		tok := spelt[me.obj.Get("name").Text()]
		out = slices.Concat(out[:me.src.Start().Offset], []byte(tok), out[me.src.End().Offset:])
	}
	return out, true
}

// isPluginPart reports a manifest key naming one of the parts
// PluginLayouts reads (pluginParts).
func isPluginPart(key string) bool {
	for _, pp := range pluginParts {
		if string(pp.part) == key {
			return true
		}
	}
	return false
}

// localPartPath reports a path of part (any part for "") that layoutOf
// reads as repository files: starting with ./ (or skills "."), no URL,
// and inside the plugin's folder. Anything else (a path Claude Code
// refuses, one leaving the plugin, a URL) is not.
func localPartPath(part, s string) bool {
	if strings.Contains(s, "://") || !strings.HasPrefix(s, "./") && !(part == string(PartSkills) && s == ".") {
		return false
	}
	_, inside := join("plugin", s)
	return inside
}

// partPaths splits a part's manifest value into how many of its entries
// are local paths (localPartPath) and the rest; rest is nil when every
// entry is one (a string path, or a list of them), and the value itself
// when it is neither a string nor a list (an inline object).
func partPaths(key string, v *jsonpos.Value) (local int, rest []*jsonpos.Value) {
	switch v.Kind() {
	case jsonpos.String:
		if localPartPath(key, v.Text()) {
			return 1, nil
		}
		return 0, []*jsonpos.Value{v}
	case jsonpos.Array:
		for _, e := range v.Elements() {
			if e.Kind() == jsonpos.String && localPartPath(key, e.Text()) {
				local++
			} else {
				rest = append(rest, e)
			}
		}
		if len(rest) == 0 {
			return local, nil
		}
		return local, rest
	}
	return 0, []*jsonpos.Value{v}
}

// layoutOf is the layout of a plugin rooted at r whose manifest (or
// marketplace entry) is obj.
func layoutOf(manifest, r string, obj *jsonpos.Value) PluginLayout {
	l := PluginLayout{Manifest: manifest, Root: r}
	named := map[PluginPart]bool{}
	for _, pp := range pluginParts {
		v := obj.Get(string(pp.part))
		if x := obj.Get("experimental"); v == nil && pp.part == PartMonitors && x != nil && x.Kind() == jsonpos.Object {
			v = x.Get(string(pp.part))
		}
		if v == nil {
			continue
		}
		var vals []*jsonpos.Value
		switch v.Kind() {
		case jsonpos.String:
			vals = []*jsonpos.Value{v}
		case jsonpos.Array:
			vals = v.Elements()
		case jsonpos.Object:
			continue // inline: in the manifest itself
		default:
			l.Problems = append(l.Problems, string(pp.part)+" is neither a path, a list nor an object")
			continue
		}
		for _, x := range vals {
			if x.Kind() != jsonpos.String {
				continue // an inline entry of a list (mcpServers): in the manifest
			}
			s := x.Text()
			if !strings.HasPrefix(s, "./") && (pp.part != PartSkills || s != ".") {
				l.Problems = append(l.Problems, string(pp.part)+" names "+s+", which does not start with ./ (Claude Code does not load the plugin)")
			}
			q, inside := join(r, s)
			if !inside {
				l.Problems = append(l.Problems, string(pp.part)+" names "+s+", outside the plugin's folder (Claude Code says it escapes the plugin directory)")
				if q == "" {
					continue // above the repository
				}
			}
			if strings.Contains(s, "://") {
				continue // a URL (an MCPB file): nothing of this repository
			}
			named[pp.part] = true
			l.Paths = append(l.Paths, PluginPath{Part: pp.part, Path: q, Named: true})
		}
	}
	l.Paths = append(l.Paths, defaultPaths(r, named)...)
	sortPaths(l.Paths)
	return l
}

// sortPaths orders paths by path, then part.
func sortPaths(ps []PluginPath) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Path != ps[j].Path {
			return ps[i].Path < ps[j].Path
		}
		return ps[i].Part < ps[j].Part
	})
}

// defaultPaths are the default folders and files of a plugin rooted at
// r, less those a named path replaces.
func defaultPaths(r string, named map[PluginPart]bool) []PluginPath {
	var out []PluginPath
	for _, pp := range pluginParts {
		if pp.replaces && named[pp.part] {
			continue
		}
		out = append(out, PluginPath{Part: pp.part, Path: path.Join(r, pp.def)})
	}
	return out
}

// join resolves a manifest path against the plugin root. inside is false
// when it leaves r; the path is "" when it leaves the repository (or is
// absolute).
func join(r, rel string) (string, bool) {
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || (len(rel) > 1 && rel[1] == ':') {
		return "", false
	}
	q := path.Join(r, rel)
	if q == "." {
		q = ""
	}
	if q == ".." || strings.HasPrefix(q, "../") {
		return "", false
	}
	inside := r == "" || q == r || strings.HasPrefix(q, r+"/")
	return q, inside
}

// pluginAsDir is the folder name the As of a plugin's hooks, server or
// monitor file ends in: codexOpaque holds such a file (any change
// HOOK-CHANGED), whose part the name after it says.
const pluginAsDir = ".claude-plugin-part"

// As is the path a repository file p is judged as, when this plugin
// loads it ("" when it does not): a command, agent or skill is classified
// under a .claude folder inside the plugin's .claude-plugin (its own
// scope: no project settings apply), a hooks, servers or monitors file as
// an opaque file of its part.
//
// The innermost path that loads p decides (a skills folder "." is the
// plugin root: its skills/ folder's skills are still skills/'s).
func (l PluginLayout) As(p string) string {
	best, bestLen := "", -1
	for _, pp := range l.Paths {
		if as := pp.as(l.Root, p); as != "" && len(pp.Path) > bestLen {
			best, bestLen = as, len(pp.Path)
		}
	}
	return best
}

func (pp PluginPath) as(root, p string) string {
	rel := ""
	switch {
	case p == pp.Path:
		rel = path.Base(p)
	case pp.Path == "" || strings.HasPrefix(p, pp.Path+"/"):
		rel = strings.TrimPrefix(strings.TrimPrefix(p, pp.Path), "/")
	default:
		return ""
	}
	scope := path.Join(root, ".claude-plugin", ".claude")
	switch pp.Part {
	case PartCommands, PartAgents, PartSkills:
		if !strings.HasSuffix(p, ".md") {
			return ""
		}
		if path.Base(p) == "SKILL.md" {
			if p == pp.Path+"/SKILL.md" {
				rel = path.Base(pp.Path) + "/SKILL.md" // the folder named is a skill
			}
			if !strings.Contains(rel, "/") {
				return ""
			}
			return path.Join(scope, "skills", rel)
		}
		if pp.Part == PartSkills {
			return "" // a skill's other Markdown: read with it, not a part
		}
		return path.Join(scope, string(pp.Part), rel)
	}
	if p != pp.Path && pp.Part != PartWorkflows {
		return "" // a file part names one file
	}
	return path.Join(p, pluginAsDir, string(pp.Part))
}

// pluginPartOf is the part an As made by PluginLayout.As names for a
// hooks, servers or monitors file ("" for another path).
func pluginPartOf(as string) string {
	dir, base := path.Split(as)
	if path.Base(strings.TrimSuffix(dir, "/")) != pluginAsDir {
		return ""
	}
	return base
}

// PluginLoads reports whether one of the layouts loads p as one of its
// parts, whatever p is by its path (a plugin's hooks/hooks.json or
// .mcp.json is agent configuration by its path too: PluginAs leaves it to
// that reading).
func PluginLoads(p string, layouts []PluginLayout) bool {
	for _, l := range layouts {
		if l.As(p) != "" {
			return true
		}
	}
	return false
}

// PluginAs is the path p is judged as given the plugin layouts of one
// side ("" for none): the first layout that loads it, unless p is agent
// configuration by its path already (a plugin's hooks/hooks.json, its
// .mcp.json, a .claude folder's command; not a SKILL.md only Copilot
// CLI's catch-all takes).
func PluginAs(p string, layouts []PluginLayout) string {
	for _, l := range layouts {
		if as := l.As(p); as != "" {
			// Copilot CLI takes any SKILL.md as a candidate (its settings
			// then say which folders count): a plugin's skill is Claude
			// Code's.
			name, k, _ := ClassifyAgent(p, nil)
			if k != report.NotAgentConfig && k != report.ScriptFile && (name != AgentCopilotCLI || path.Base(p) != "SKILL.md") {
				return ""
			}
			return as
		}
	}
	return ""
}

// CommandsFile is a file Shipgate holds whole (codexOpaque: any change
// to it is HOOK-CHANGED) whose commands still run repository files: a
// plugin's hooks, MCP or LSP servers or monitors file, a project's
// .codex/hooks.json.
// A change to a script such a command runs is a change to what the file
// makes the agent run, so the front ends read those scripts as they read
// a settings hook's (hookscript.ExtraPaths).
type CommandsFile struct {
	// Part is the plugin part the file is (PartHooks for
	// .codex/hooks.json).
	Part PluginPart
	// Root is the plugin's folder (${CLAUDE_PLUGIN_ROOT}, Codex's
	// ${PLUGIN_ROOT}) when RootKnown: hooks/hooks.json read by its path
	// is at the root's hooks/ (a guess: a manifest elsewhere may name the
	// same file, so the front ends also read the files such a command's
	// text names). A file a plugin's layout loads has no root known from
	// its path: a command built from the variable cannot be resolved,
	// and the engine falls back to the files its text names.
	Root      string
	RootKnown bool
	// Dir is the folder relative paths are read from: the project for
	// .codex/hooks.json; for a plugin's file the plugin root (or the
	// file's folder), an over-approximation (Claude Code runs a plugin's
	// hooks in the user's project: reading one more file is the safe
	// side).
	Dir string
}

// OpaqueCommands says whether p (a repository path, or the As of a file
// a plugin loads) is a CommandsFile, and which.
func OpaqueCommands(p string) (CommandsFile, bool) {
	p = CleanPath(p)
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if name, k, _ := ClassifyAgent(p, nil); name != AgentCodex || k != AgentFile {
		return CommandsFile{}, false
	}
	top := func(d string) string { return strings.TrimSuffix(strings.TrimSuffix(d, "."), "/") }
	switch {
	case base == "hooks.json" && (dir == ".codex" || strings.HasSuffix(dir, "/.codex")):
		return CommandsFile{Part: PartHooks, Dir: top(strings.TrimSuffix(dir, ".codex"))}, true
	case base == "hooks.json" && path.Base(dir) == "hooks":
		r := top(path.Dir(dir))
		return CommandsFile{Part: PartHooks, Root: r, RootKnown: true, Dir: r}, true
	}
	switch part := PluginPart(pluginPartOf(p)); part {
	case PartHooks, PartMCP, PartMonitors, PartLSP:
		// A file a plugin loads by its layout: its own path is the As
		// less the last two elements; the plugin root is not known from
		// it (a manifest may name the file anywhere).
		return CommandsFile{Part: part, Dir: top(path.Dir(path.Dir(dir)))}, true
	}
	return CommandsFile{}, false
}
