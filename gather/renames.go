package gather

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/report"
)

// Agent-config files moved or renamed.
//
// A pull request that renames a skill's folder, moves a command to another
// folder or renames a plugin's folder shows the engine an agent-config
// file deleted and one added: every grant of the new one reads as new,
// though the old one held it. renames pairs such files when the move
// keeps the agent's effective grant, and says why not otherwise (a note);
// a pair goes to the engine as report.Rename, which compares the new
// version against the old one (a respelling is one quiet row, a change
// made on the way is compared as a change).
//
// What moves as one (a unit), and when its move is the same grant:
//
//   - A skill (…/skills/<name>/SKILL.md, Claude Code's and Copilot CLI's):
//     its folder, whose scripts and references the skill's instructions
//     run. The folder must be moved whole within the same skills folder
//     (a rename: `.claude/skills/a` → `.claude/skills/b`): every other
//     file the same, byte by byte, and no script in it reaching past the
//     folder (sameFolder, as for hook folders). Moved to another skills
//     folder it is another scope (a nested project's skills, an example
//     folder no agent reads, a folder only one agent reads): not paired.
//   - A custom command or a subagent (.claude/commands/**/*.md,
//     .claude/agents/**/*.md): the file alone (what it references is
//     named from the project folder, which does not move), within the
//     same project's .claude folder.
//   - A plugin (…/.claude-plugin/plugin.json, .codex-plugin, .cursor-plugin):
//     its folder, whole, in the same parent folder, or anywhere when a
//     marketplace of the repository re-points the plugin's entry from the
//     old folder to the new one (plugins are installed through it). The
//     manifest is compared (its name stays significant: enabledPlugins
//     name the plugin by it), and a marketplace entry still naming the
//     old folder, or one naming the new folder that did not name the old,
//     is not the same plugin: not paired.
//   - A .env Gemini CLI loads (a project folder's): the project folder,
//     whole, renamed in the same parent folder (a session started in the
//     new folder sees what one started in the old folder saw).
//
// The name a skill or command answers is its folder's or file's (measured
// on Claude Code 2.1.328, TestSkillNameOnTheBinary: a skill answers its
// folder's name and its frontmatter's name, a command grp/x.md answers
// grp:x and not its frontmatter's name). The pre-approvals run whoever
// invokes it, so a new name is the same grant unless something keys on
// the name: a permission rule naming a skill or an agent (Skill(x),
// Agent(x), Task(x)) in the project's settings, where a rename may move
// the skill from asking to running or out of a deny, or another skill or
// command of the project answering the new name, which the renamed one
// would take over. Either way the pair is not made.

// unit is what moves as one with an agent-config file.
type unit struct {
	kind string // "skill", "file", "plugin", "env"
	root string // the folder (the file for "file")
	// scope is the adapter's scope of the file, and agent its agent:
	// a pair has the same agent and kind.
	agent string
	fkind report.FileKind
}

// unitOf says what moves with the agent-config file p ("" kind: it is
// not paired).
func (g *gatherer) unitOf(p string) unit {
	agent, kind, _ := agentfiles.ClassifyAgent(p, g.pol)
	u := unit{agent: agent, fkind: kind}
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case kind == report.NotAgentConfig || kind == report.ScriptFile:
	case base == "SKILL.md" && dir != "" && path.Dir(dir) != ".":
		u.kind, u.root = "skill", dir
	case base == "plugin.json" && (path.Base(dir) == ".claude-plugin" || path.Base(dir) == ".codex-plugin" || path.Base(dir) == ".cursor-plugin") && path.Dir(dir) != ".":
		u.kind, u.root = "plugin", path.Dir(dir)
	case base == ".env" && agent == agentfiles.AgentGemini:
		root := dir
		if path.Base(dir) == ".gemini" {
			root = path.Dir(dir)
		}
		if root != "." && root != "" {
			u.kind, u.root = "env", root
		}
	case kind == report.CommandFile || kind == report.SubagentFile:
		u.kind, u.root = "file", p
	}
	return u
}

// renames adds to the input the agent-config files moved or renamed as
// the same grant.
func (g *gatherer) renames(ctx context.Context) error {
	// deleted and added are the files a unit is found by; the parts a
	// plugin's manifest loads (As set by the plugin layouts) move with
	// their plugin and are paired with it, as its other agent-config files.
	var deleted, added, partsDeleted, partsAdded []report.File
	for _, f := range g.res.Input.Files {
		if f.Base.Unreadable != "" || f.Head.Unreadable != "" {
			continue
		}
		if f.As != "" {
			if f.As != g.pluginAs(f.Path) {
				continue
			}
			switch {
			case f.Base.Exists && !f.Head.Exists:
				partsDeleted = append(partsDeleted, f)
			case !f.Base.Exists && f.Head.Exists:
				partsAdded = append(partsAdded, f)
			}
			continue
		}
		switch {
		case f.Base.Exists && !f.Head.Exists:
			deleted = append(deleted, f)
		case !f.Base.Exists && f.Head.Exists:
			added = append(added, f)
		}
	}
	if len(deleted) == 0 || len(added) == 0 {
		return nil
	}
	type pair struct {
		from, to unit
	}
	var pairs []pair
	seen := map[[2]string]bool{}
	for _, a := range added {
		ua := g.unitOf(a.Path)
		if ua.kind == "" {
			continue
		}
		var cands []unit
		for _, d := range deleted {
			ud := g.unitOf(d.Path)
			if ud.kind != ua.kind || ud.agent != ua.agent || ud.fkind != ua.fkind || ud.root == ua.root {
				continue
			}
			if ud.kind != "file" && strings.TrimPrefix(d.Path, ud.root+"/") != strings.TrimPrefix(a.Path, ua.root+"/") {
				continue
			}
			if ud.kind == "file" && !sameFileMove(d, a) {
				continue
			}
			cands = append(cands, ud)
		}
		if len(cands) != 1 {
			if len(cands) > 1 {
				g.note(fmt.Sprintf("`%s` is read as new: more than one deleted file could be its old version.", a.Path))
			}
			continue
		}
		k := [2]string{cands[0].root, ua.root}
		if !seen[k] {
			seen[k] = true
			pairs = append(pairs, pair{cands[0], ua})
		}
	}
	// The outermost folders first: a plugin's folder holds its skills.
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].from.root) != len(pairs[j].from.root) {
			return len(pairs[i].from.root) < len(pairs[j].from.root)
		}
		return pairs[i].from.root+"\x00"+pairs[i].to.root < pairs[j].from.root+"\x00"+pairs[j].to.root
	})
	paired := map[string]bool{}
	for _, p := range pairs {
		if paired[p.to.root] || paired[p.from.root] {
			continue
		}
		why, n, err := g.sameGrant(ctx, p.from, p.to)
		if err != nil {
			return err
		}
		if why != "" {
			g.note(fmt.Sprintf("`%s` → `%s` is read as new, not as moved: %s.", p.from.root, p.to.root, why))
			continue
		}
		// Every agent-config file of the unit pairs with its old version,
		// and a plugin's parts with theirs: the same file at the same place
		// in the plugin, loaded as the same part.
		olds, news := deleted, added
		if p.from.kind == "plugin" {
			olds, news = append(slices.Clip(deleted), partsDeleted...), append(slices.Clip(added), partsAdded...)
		}
		for _, a := range news {
			rel, ok := under(a.Path, p.to.root)
			if !ok || paired[a.Path] || a.As == "" && !isAgentConfig(g, a.Path) {
				continue
			}
			for _, d := range olds {
				if drel, ok := under(d.Path, p.from.root); ok && drel == rel && !paired[d.Path] && samePart(d.As, p.from.root, a.As, p.to.root) {
					paired[a.Path], paired[d.Path] = true, true
					g.res.Input.Renames = append(g.res.Input.Renames, report.Rename{From: d.Path, To: a.Path, UnitFrom: p.from.root, UnitTo: p.to.root, Files: n})
				}
			}
		}
		paired[p.to.root], paired[p.from.root] = true, true
	}
	sort.Slice(g.res.Input.Renames, func(i, j int) bool { return g.res.Input.Renames[i].To < g.res.Input.Renames[j].To })
	return nil
}

// under is p's path inside folder root (root itself for a file unit).
func under(p, root string) (string, bool) {
	if p == root {
		return "", true
	}
	return strings.CutPrefix(p, root+"/")
}

// sameFileMove says whether the added command or subagent a may be the
// deleted d moved: the same file name (moved to another folder), or the
// same bytes.
func sameFileMove(d, a report.File) bool {
	return path.Base(d.Path) == path.Base(a.Path) || string(d.Base.Data) == string(a.Head.Data)
}

// sameGrant says why the move of unit from to unit to may change what the
// agent is granted ("" when it does not), and how many files moved.
func (g *gatherer) sameGrant(ctx context.Context, from, to unit) (string, int, error) {
	_, _, sf := agentfiles.ClassifyAgent(unitFile(from), g.pol)
	_, _, st := agentfiles.ClassifyAgent(unitFile(to), g.pol)
	switch from.kind {
	case "skill":
		if path.Dir(from.root) != path.Dir(to.root) || sf != st {
			return "the skill moved to another skills folder, which another project or another agent reads (or none)", 0, nil
		}
	case "file":
		if sf != st || claudeFolder(from.root) != claudeFolder(to.root) || claudeFolder(from.root) == "" {
			return "it moved to another project's folder", 0, nil
		}
	case "env":
		if path.Dir(from.root) != path.Dir(to.root) {
			return "the project folder moved to another folder, whose own configuration a session started there reads too", 0, nil
		}
	}
	names := from.kind == "skill" || from.kind == "file"
	if names && nameOf(from) != nameOf(to) {
		if why, err := g.nameKeyed(ctx, from, to, sf); why != "" || err != nil {
			return why, 0, err
		}
	}
	if from.kind == "plugin" {
		why, repointed, err := g.marketplaces(ctx, from.root, to.root)
		if why != "" || err != nil {
			return why, 0, err
		}
		if !repointed && path.Dir(from.root) != path.Dir(to.root) {
			return "the plugin moved to another folder and no marketplace of the repository re-points it there", 0, nil
		}
	}
	if from.kind == "file" {
		return "", 1, nil
	}
	n, why, err := g.sameFolder(ctx, from.root, to.root, func(rel string) bool {
		p := path.Join(to.root, rel)
		return isAgentConfig(g, p) || from.kind == "plugin" && g.pluginAs(p) != ""
	})
	return why, n, err
}

// samePart says whether a plugin part read as asFrom in the plugin at
// from is read as the same part, asTo, in the plugin moved to to (both
// "": neither is a plugin's part).
func samePart(asFrom, from, asTo, to string) bool {
	if asFrom == "" || asTo == "" {
		return asFrom == asTo
	}
	rf, ok1 := strings.CutPrefix(asFrom, from+"/")
	rt, ok2 := strings.CutPrefix(asTo, to+"/")
	return ok1 && ok2 && rf == rt
}

// isAgentConfig says whether p is a file an agent reads as configuration
// (not a script): the engine compares it itself.
func isAgentConfig(g *gatherer, p string) bool {
	_, k, _ := agentfiles.ClassifyAgent(p, g.pol)
	return k != report.NotAgentConfig && k != report.ScriptFile
}

// unitFile is a path inside a unit the adapters classify like its file.
func unitFile(u unit) string {
	switch u.kind {
	case "skill":
		return u.root + "/SKILL.md"
	case "plugin":
		return u.root + "/.claude-plugin/plugin.json"
	case "env":
		return u.root + "/.env"
	}
	return u.root
}

// claudeFolder is the .claude folder a command or subagent lies in, with
// its commands or agents folder ("" when none).
func claudeFolder(p string) string {
	segs := strings.Split(p, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == ".claude" && i+1 < len(segs) {
			return strings.Join(segs[:i+2], "/")
		}
	}
	return ""
}

// nameOf is the name a skill or command answers by its path: a skill its
// folder's, a command its path under the commands folder with ':' between
// folders (grp/x.md is grp:x), a subagent its file's.
func nameOf(u unit) string {
	if u.kind == "skill" {
		return path.Base(u.root)
	}
	d := claudeFolder(u.root)
	rel := strings.TrimSuffix(strings.TrimPrefix(u.root, d+"/"), ".md")
	if strings.HasSuffix(d, "/commands") || d == ".claude/commands" {
		return strings.ReplaceAll(rel, "/", ":")
	}
	return path.Base(rel)
}

// nameKeyed says why a skill or command answering another name may be
// another grant: the project's settings key a rule on a skill's or an
// agent's name, or another file of the project answers the new name.
func (g *gatherer) nameKeyed(ctx context.Context, from, to unit, scope string) (string, error) {
	if !g.complete {
		return "the repository's file tree was not listed whole, so what else answers the new name is not known", nil
	}
	for _, n := range []string{"settings.json", "settings.local.json"} {
		p := path.Join(scope, ".claude", n)
		for _, rev := range []Revision{g.src.Base(), g.src.Head()} {
			e, err := rev.Read(ctx, p)
			if err != nil {
				return "", err
			}
			if e.Kind == Missing {
				continue
			}
			if e.Kind != File || e.TooLarge {
				return fmt.Sprintf("`%s` cannot be read, and a rule of it may name the %s", p, from.kind), nil
			}
			for _, key := range []string{"Skill(", "Agent(", "Task("} {
				if strings.Contains(string(e.Data), key) {
					return fmt.Sprintf("it answers another name (%s, was %s), and `%s` holds a rule on a %s name (%s…), which may decide it differently", nameOf(to), nameOf(from), p, strings.TrimSuffix(key, "("), key), nil
				}
			}
		}
	}
	// Another file of the project answering the new name at the head.
	want := nameOf(to)
	dot := path.Join(scope, ".claude")
	for p, st := range g.headPaths() {
		if !st || p == unitFile(to) || !strings.HasPrefix(p, dot+"/") {
			continue
		}
		var other string
		switch {
		case strings.HasPrefix(p, dot+"/skills/") && path.Base(p) == "SKILL.md":
			other = path.Base(path.Dir(p))
		case strings.HasPrefix(p, dot+"/commands/") && strings.HasSuffix(p, ".md"):
			other = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(p, dot+"/commands/"), ".md"), "/", ":")
		default:
			continue
		}
		if other == want {
			return fmt.Sprintf("`%s` answers %s too, which the renamed %s would take over or lose to", p, want, from.kind), nil
		}
	}
	return "", nil
}

// headPaths are the repository's files at the head as far as the base
// listing and the change's listing tell (true: present).
func (g *gatherer) headPaths() map[string]bool {
	out := make(map[string]bool, len(g.base))
	for p, e := range g.base {
		out[p] = e.Kind != Missing
	}
	for p, st := range g.changed {
		out[p] = st != Deleted
	}
	for _, f := range g.res.Input.Files {
		out[f.Path] = f.Head.Exists
	}
	return out
}

// marketplaces says why the repository's plugin marketplaces may resolve
// the plugin moved from folder from to folder to to other content, or
// "": each marketplace (…/.claude-plugin/marketplace.json, Copilot CLI's
// .github/plugin/marketplace.json) that names the old folder at the base
// names the new one at the head under the same plugin names, and none
// still names the old one or names the new one under another name.
// repointed says some marketplace moved with the plugin.
func (g *gatherer) marketplaces(ctx context.Context, from, to string) (why string, repointed bool, err error) {
	files := map[string]bool{}
	for p, present := range g.headPaths() {
		if isMarketplace(p) {
			files[p] = files[p] || present
		}
	}
	for p := range g.base {
		if isMarketplace(p) {
			files[p] = true
		}
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, m := range names {
		var at [2]map[string]map[string]bool // side → folder → plugin names
		for i, rev := range []Revision{g.src.Base(), g.src.Head()} {
			e, err := rev.Read(ctx, m)
			if err != nil {
				return "", false, err
			}
			if e.Kind == Missing {
				continue
			}
			got, ok := marketplaceSources(m, e)
			if !ok {
				return fmt.Sprintf("the marketplace `%s` cannot be read as a plain list of plugins with relative sources", m), false, nil
			}
			at[i] = got
		}
		b, h := at[0][from], at[1][to]
		if len(at[1][from]) > 0 {
			return fmt.Sprintf("the marketplace `%s` still names the old folder", m), false, nil
		}
		if fmt.Sprint(sortedSet(b)) != fmt.Sprint(sortedSet(h)) {
			return fmt.Sprintf("the marketplace `%s` names the old folder as %v at the base and the new one as %v at the head", m, sortedSet(b), sortedSet(h)), false, nil
		}
		repointed = repointed || len(b) > 0
	}
	return "", repointed, nil
}

// isMarketplace says whether p is a plugin marketplace file.
func isMarketplace(p string) bool {
	return p == ".github/plugin/marketplace.json" || path.Base(p) == "marketplace.json" && path.Base(path.Dir(p)) == ".claude-plugin"
}

// marketplaceSources reads a marketplace's plugins: for each relative
// source, the repository folder it resolves to (from the folder holding
// the marketplace's .claude-plugin or .github folder) and the plugin
// names naming it. ok is false for anything this cannot follow (not a
// strict JSON object, a metadata.pluginRoot, a relative source leaving
// the repository): the caller fails closed.
func marketplaceSources(p string, e Entry) (map[string]map[string]bool, bool) {
	if e.Kind != File || e.TooLarge {
		return nil, false
	}
	root, probs, err := jsonpos.Parse(e.Data)
	if err != nil || len(probs) > 0 || root.Kind() != jsonpos.Object {
		return nil, false
	}
	if md := root.Get("metadata"); md.Kind() == jsonpos.Object && md.Get("pluginRoot") != nil {
		return nil, false
	}
	base := path.Dir(path.Dir(p))
	out := map[string]map[string]bool{}
	for _, pl := range root.Get("plugins").Elements() {
		src := pl.Get("source")
		if src.Kind() != jsonpos.String {
			continue // a remote source: no folder of this repository
		}
		dir := path.Clean(path.Join(base, src.Text()))
		if dir == ".." || strings.HasPrefix(dir, "../") || strings.HasPrefix(src.Text(), "/") {
			return nil, false
		}
		if out[dir] == nil {
			out[dir] = map[string]bool{}
		}
		out[dir][pl.Get("name").Text()] = true
	}
	return out, true
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
