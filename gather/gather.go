package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// DefaultPolicyPath is where a repository keeps its Shipgate policy.
const DefaultPolicyPath = ".github/shipgate.yml"

// maxHops bounds how many symlinks one path may pass through.
const maxHops = 16

// Options tune a gather.
type Options struct {
	// PolicyPath is the repository's policy file (default
	// .github/shipgate.yml), read at base (enforced) and at head (a
	// proposed change to it is judged: report.PolicyChange).
	PolicyPath string
	// Override, when HasOverride, is the policy in force instead of the
	// base's file (shipgate diff --policy FILE). The head's file is still
	// read and judged.
	Override    *policy.Policy
	HasOverride bool
	// Org is the organisation default the repository file extends (the
	// App); OrgBroken says it has errors, so the defaults apply.
	Org       *policy.Policy
	OrgBroken bool
	// MaxInputBytes is the most bytes of content read for the engine
	// (default report.MaxInputBytes); past it the files left are named in
	// Input.Unread and not read.
	MaxInputBytes int64
}

// Result is what a gather found: the engine's input and what a front end
// must show next to the report.
type Result struct {
	// Input is judge.Compare's input, the same for the App and the CLI.
	Input report.Input
	// BasePolicyExists says the base has a policy file (read or not).
	BasePolicyExists bool
	// PolicyErrs are the errors of the base's policy file: the defaults
	// apply until it is fixed.
	PolicyErrs []*policy.Error
	// HeadPolicyErrs are the errors of the policy file the change
	// proposes (not enforced; shown so the author fixes them).
	HeadPolicyErrs []*policy.Error
	// Truncated: the host lists only so many changed files, and there
	// were more; files beyond them were not read.
	Truncated bool
	// Notes say what the gatherer resolved on the way (a symlink followed,
	// a case variant read as the canonical file) or could not check.
	Notes []string
}

// Empty reports whether the change touches nothing the engine reads and
// nothing needs saying: no agent-config file, no policy change, no
// policy error, no cut listing.
func (r *Result) Empty() bool {
	return len(r.Input.Files) == 0 && len(r.Input.Unread) == 0 && r.Input.PolicyChange == nil && len(r.PolicyErrs) == 0 &&
		len(r.HeadPolicyErrs) == 0 && !r.Truncated && len(r.Notes) == 0
}

// side names a revision.
type side int

const (
	baseSide side = iota
	headSide
)

type gatherer struct {
	src      Source
	o        Options
	res      *Result
	pol      *policy.Policy
	base     map[string]Entry // the base listing
	complete bool
	// sparse is set when the host's base listing names, of the files,
	// only those agentfiles.MayBeAgentPath accepts (every symlink and submodule
	// still): a path it does not name is read, and filled says which
	// folders were listed whole since (fill).
	sparse  sparseBase
	filled  map[string]bool
	changed map[string]Status
	read    [2]map[string]Entry // entries read, per side
	notes   map[string]bool
	hooks   baseHooks
	// forced are the unchanged agent-config files read because the change
	// touches a file their commands run (or may run).
	forced map[string]bool
	// links are the changed paths that are, or may be, symlinks at the
	// head (Change.Link).
	links []Change
	// metering: reads count against o.MaxInputBytes (from when the base's
	// hooks are learnt: those reads are not kept); used is the bytes read,
	// counted once per side and path in counted.
	metering bool
	used     int64
	counted  [2]map[string]bool
	learnt   int64 // bytes kept from the learning reads (forget)
	peeked   int64 // bytes kept from the peeks (peek)
	// agentDirs are the folders Copilot CLI's agentDirectories name at
	// base or head (learnAgentDirs; "" is the whole repository).
	agentDirs []string
	// plugins are the Claude Code plugin layouts of the base and the
	// head (learnPlugins).
	plugins pluginSides
}

// notRead is the kind of an entry the gatherer did not read because the
// input had passed its bound (Options.MaxInputBytes).
const notRead Kind = -1

// notReadMsg is the Unreadable of a version not read for the bound; the
// callers move such a file to Input.Unread.
const notReadMsg = "not read: this change's agent-config input passed the bound Shipgate reads in one evaluation"

// isNotRead reports whether a version was left unread for the bound.
func isNotRead(v report.Version) bool { return v.NotRead }

// spent reports whether the input has reached its bound: nothing more is
// read for the engine.
func (g *gatherer) spent() bool { return g.metering && g.used >= g.o.MaxInputBytes }

// use counts the content of an entry read on a side against the bound.
func (g *gatherer) use(s side, p string, e Entry) {
	if !g.metering || e.Data == nil || g.counted[s][p] {
		return
	}
	g.counted[s][p] = true
	g.used += int64(len(e.Data))
}

// forget bounds what the reads that learn what the base's files run or
// load keep (they are not metered): a file read for that is kept for the
// comparison (read once, not twice) while the kept ones add up to less
// than the input bound, and dropped past it.
func (g *gatherer) forget(p string) {
	e, ok := g.read[baseSide][p]
	if !ok || e.Data == nil {
		return
	}
	if g.learnt+int64(len(e.Data)) > g.o.MaxInputBytes {
		delete(g.read[baseSide], p)
		return
	}
	g.learnt += int64(len(e.Data))
}

// Gather reads what the engine needs to judge the change from src's base
// to its head. Any read error is returned: a change Shipgate could not
// read is never reported as one that changes nothing.
func Gather(ctx context.Context, src Source, o Options) (*Result, error) {
	if o.PolicyPath == "" {
		o.PolicyPath = DefaultPolicyPath
	}
	if o.MaxInputBytes <= 0 {
		o.MaxInputBytes = report.MaxInputBytes
	}
	g := &gatherer{src: src, o: o, res: &Result{},
		changed: map[string]Status{}, read: [2]map[string]Entry{{}, {}}, notes: map[string]bool{}, forced: map[string]bool{},
		counted: [2]map[string]bool{{}, {}}}
	entries, complete, err := src.ListBase(ctx)
	if err != nil {
		return nil, err
	}
	g.complete = complete
	if sb, ok := src.(sparseBase); ok {
		g.sparse, g.filled = sb, map[string]bool{}
	}
	g.base = make(map[string]Entry, len(entries))
	for _, e := range entries {
		g.base[e.Path] = e
	}
	if !complete {
		g.note("The repository's file tree is too large for one listing: agent-config files reached through symlinks or spelled in another case outside the changed files were not checked.")
	}
	if err := g.basePolicy(ctx); err != nil {
		return nil, err
	}
	g.res.Input.Policy = g.pol

	// The base's plugins: a change to a file one loads is a change to it.
	if err := g.learnPlugins(ctx, baseSide); err != nil {
		return nil, err
	}
	// The files the base's hooks, helpers and servers run (those of the
	// files its plugins load too: learnt after them): a change to one is
	// a change to the hook, wherever it lives.
	if g.hooks, err = g.learnHooks(ctx); err != nil {
		return nil, err
	}
	g.metering = true

	// Which changed paths matter: the base's agentDirectories first, so
	// the symlinks in those folders have their targets watched.
	if err := g.learnAgentDirs(ctx, baseSide); err != nil {
		return nil, err
	}
	backing := g.backingPaths(ctx)
	match := func(p string) bool {
		if p == g.o.PolicyPath || hasClaudeSegment(p) {
			return true
		}
		if g.hooks.runs(p) || g.pluginAs(p) != "" {
			return true
		}
		if _, ok := g.candidate(p); ok {
			return true
		}
		for _, b := range backing {
			if p == b || strings.HasPrefix(p, b+"/") {
				return true
			}
		}
		return false
	}
	sel := Selector{Pathspecs: append(append(append(g.pathspecs(backing), g.hooks.pathspecs()...), g.pluginPathspecs()...), mdSpec), Match: func(p string) bool {
		return match(p) || strings.HasSuffix(p, ".md")
	}}
	sel.Links = true
	changes, truncated, err := src.Changed(ctx, sel)
	if err != nil {
		return nil, err
	}
	g.res.Truncated = truncated
	var mdOnly []Change // listed only as Markdown (mdSpec): kept once agentDirs are known
	for _, c := range changes {
		if !match(c.Path) && !c.Link {
			mdOnly = append(mdOnly, c)
			continue
		}
		g.changed[c.Path] = c.Status
		if c.Link && c.Status != Deleted {
			g.links = append(g.links, c)
		}
		for _, o := range g.hooks.owners(c.Path) {
			g.forced[o] = true
		}
	}
	if err := g.learnAgentDirs(ctx, headSide); err != nil {
		return nil, err
	}
	if err := g.learnPlugins(ctx, headSide); err != nil {
		return nil, err
	}
	for _, c := range mdOnly {
		if g.agentDirFile(c.Path) != "" || g.pluginAs(c.Path) != "" {
			g.changed[c.Path] = c.Status
		}
	}
	if err := g.headPolicy(ctx); err != nil {
		return nil, err
	}
	if err := g.files(ctx); err != nil {
		return nil, err
	}
	if err := g.moves(ctx); err != nil {
		return nil, err
	}
	if err := g.renames(ctx); err != nil {
		return nil, err
	}
	sort.Strings(g.res.Input.Unread)
	for n := range g.notes {
		g.res.Notes = append(g.res.Notes, n)
	}
	sort.Strings(g.res.Notes)
	return g.res, nil
}

func (g *gatherer) note(s string) { g.notes[s] = true }

// candidate says whether p is an agent-config path, and the spelling
// Claude Code reads it as when p is a case variant of one ("" when p is
// spelled canonically).
func (g *gatherer) candidate(p string) (as string, ok bool) {
	if as := g.agentDirFile(p); as != "" {
		return as, true
	}
	if as := g.pluginAs(p); as != "" {
		return as, true
	}
	if !g.mayBeConfig(p) {
		return "", false
	}
	k, _ := agentfiles.Classify(p, g.pol)
	if f := fold(p); f != p {
		// A spelling that folds to an agent-config file opens as it (a
		// file of a .claude folder that is not one is a script: the
		// folded reading wins, `.claude/ſettings.json` is settings).
		if kf, _ := agentfiles.Classify(f, g.pol); kf != report.NotAgentConfig && (k == report.NotAgentConfig || k == report.ScriptFile && kf != report.ScriptFile) {
			return f, true
		}
	}
	return "", k != report.NotAgentConfig
}

// mayBeConfig is a quick test that rules out most paths of a large tree:
// without watched paths in the policy, an agent-config path contains one
// of the registered agents' hints (a .claude folder, an .mcp.json, a
// .vscode folder, …), in any case (agentfiles.MayBeAgentPath).
func (g *gatherer) mayBeConfig(p string) bool {
	if g.pol != nil && len(g.pol.Paths.Watch) > 0 {
		return true
	}
	return agentfiles.MayBeAgentPath(p)
}

// canonicalSegments are the path segments the agents look for, by their
// lower-case spelling: on a case-insensitive file system (macOS's
// default, Windows) any spelling opens them. Claude Code's first, then
// the other adapters' (agentfiles/agent_*.go): a .VSCode/Settings.json opens
// as .vscode/settings.json.
var canonicalSegments = map[string]string{
	".claude": ".claude", "settings.json": "settings.json", "settings.local.json": "settings.local.json",
	".mcp.json": ".mcp.json", "skills": "skills", "commands": "commands", "agents": "agents",
	"skill.md": "SKILL.md", "hooks": "hooks",
	".vscode": ".vscode", "mcp.json": "mcp.json", ".cursor": ".cursor", "cli.json": "cli.json",
	"opencode.json": "opencode.json", "opencode.jsonc": "opencode.jsonc", ".opencode": ".opencode",
	".github": ".github", "copilot": "copilot",
	".codex": ".codex", "config.toml": "config.toml", "rules": "rules", ".gemini": ".gemini",
}

// fold respells the segments of p that name agent configuration
// canonically (.CLAUDE/Settings.json → .claude/settings.json), and a .MD
// extension under a .claude folder as .md.
func fold(p string) string {
	segs := strings.Split(p, "/")
	inClaude := false
	for i, s := range segs {
		if c, ok := canonicalSegments[agentfiles.FoldName(s)]; ok {
			segs[i] = c
		} else if f := agentfiles.FoldName(s); inClaude && strings.HasSuffix(f, ".md") && i == len(segs)-1 {
			segs[i] = s[:len(s)-len(s[strings.LastIndexByte(s, '.'):])] + ".md"
		}
		if segs[i] == ".claude" {
			inClaude = true
		}
	}
	return strings.Join(segs, "/")
}

// hasClaudeSegment reports whether p is, or lies under, a folder named
// .claude in any case.
func hasClaudeSegment(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if strings.EqualFold(s, ".claude") {
			return true
		}
	}
	return false
}

// hides reports whether a symlink or submodule at p could stand for
// agent configuration: p is an agent-config path, a .claude folder or
// something inside one, or in, at or above a folder of Copilot CLI
// custom agents (inAgentDirTree).
func (g *gatherer) hides(p string) bool {
	if _, ok := g.candidate(p); ok {
		return true
	}
	return hasClaudeSegment(p) || g.inAgentDirTree(p)
}

// backingPaths are the repository paths the base's relevant symlinks
// point at: a change to one is a change to the agent configuration seen
// through the link.
func (g *gatherer) backingPaths(ctx context.Context) []string {
	var out []string
	for _, e := range g.base {
		if e.Kind != Symlink || !g.hides(e.Path) {
			continue
		}
		t := g.target(ctx, baseSide, e)
		if r, ok := resolveLink(e.Path, t); ok {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// target returns a symlink's text, reading it when a listing left it out
// (a read error leaves it empty: the link is then unreadable).
func (g *gatherer) target(ctx context.Context, s side, e Entry) string {
	if e.Target != "" || e.Kind != Symlink {
		return e.Target
	}
	got, err := g.rev(s).Read(ctx, e.Path)
	if err == nil && got.Kind == Symlink {
		e.Target = got.Target
		if s == baseSide {
			g.base[e.Path] = e
		}
	}
	return e.Target
}

// resolveLink resolves a symlink's target from its directory; ok is false
// when it leaves the repository (absolute, or above the root).
func resolveLink(link, target string) (string, bool) {
	if target == "" || strings.HasPrefix(link, "/") || strings.HasPrefix(target, "/") || strings.Contains(target, "\\") || (len(target) > 1 && target[1] == ':') {
		return "", false
	}
	r := path.Clean(path.Join(path.Dir(link), target))
	if r == "." || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return r, true
}

// pathspecs are git pathspecs covering Match: every agent-config pattern
// in any case, anything in a .claude folder, the policy file and the
// targets of the base's symlinks.
func (g *gatherer) pathspecs(backing []string) []string {
	var out []string
	for _, s := range agentfiles.Pathspecs(g.pol) {
		if rest, ok := strings.CutPrefix(s, ":(glob)"); ok {
			out = append(out, ":(glob,icase)"+rest)
		} else {
			out = append(out, s)
		}
	}
	out = append(out, ":(glob,icase).claude", ":(glob,icase)**/.claude", ":(glob,icase).claude/**", ":(glob,icase)**/.claude/**",
		":(literal)"+g.o.PolicyPath)
	for _, b := range backing {
		out = append(out, ":(literal)"+b)
	}
	return out
}

func (g *gatherer) rev(s side) Revision {
	if s == baseSide {
		return g.src.Base()
	}
	return g.src.Head()
}

// entry says what p is on a side, reading as little as it can: the base
// from its listing (a file's content is read by version), the head from
// the base's listing unless the change touches p or the path was reached
// through a link the change touches (force).
func (g *gatherer) entry(ctx context.Context, s side, p string, force bool) (Entry, error) {
	if e, ok := g.read[s][p]; ok {
		return e, nil
	}
	if s == headSide {
		st, touched := g.changed[p]
		switch {
		case touched && st == Deleted:
			return Entry{Path: p, Kind: Missing}, nil
		case touched || force:
			if g.spent() {
				return Entry{Path: p, Kind: notRead}, nil
			}
			e, err := g.src.Head().Read(ctx, p)
			if err != nil {
				return Entry{}, err
			}
			g.read[s][p] = e
			g.use(s, p, e)
			return e, nil
		}
	}
	if e, ok := g.base[p]; ok {
		return e, nil
	}
	if g.complete && g.sparse == nil {
		return Entry{Path: p, Kind: Missing}, nil
	}
	if g.spent() {
		return Entry{Path: p, Kind: notRead}, nil
	}
	e, err := g.src.Base().Read(ctx, p)
	if err != nil {
		return Entry{}, err
	}
	g.read[baseSide][p] = e
	g.use(baseSide, p, e)
	return e, nil
}

// peek says what a changed path is at the head: every changed
// agent-config path is looked at to find the symlinks the change makes,
// but only the files compared count against the input bound (version
// meters them, in path order). So a peek keeps the content it read only
// while what peeks kept is under the bound (version reads the others
// again, if it gets to them).
func (g *gatherer) peek(ctx context.Context, p string) (Entry, error) {
	if e, ok := g.read[headSide][p]; ok {
		return e, nil
	}
	e, err := g.src.Head().Read(ctx, p)
	if err != nil {
		return Entry{}, err
	}
	if g.peeked+int64(len(e.Data)) > g.o.MaxInputBytes {
		e.Data = nil
	}
	g.peeked += int64(len(e.Data))
	g.read[headSide][p] = e
	return e, nil
}

// resolved is where a path leads on one side.
type resolved struct {
	real       string   // the path read, after symlinks
	unreadable string   // why it cannot be read ("" when it can)
	notRead    bool     // unreadable because the input passed the bound
	touched    bool     // the change touches a path on the way
	force      bool     // reached through a link the change touches
	links      []string // symlinks followed
}

// resolve follows symlinks (the path's own and its parents') inside the
// repository on one side. A link leaving the repository, a submodule on
// the way, or a link loop make the path unreadable.
func (g *gatherer) resolve(ctx context.Context, s side, p string) (resolved, error) {
	r := resolved{real: p}
	hops := 0
restart:
	segs := strings.Split(r.real, "/")
	for i := 1; i <= len(segs); i++ {
		q := strings.Join(segs[:i], "/")
		if _, ok := g.changed[q]; ok {
			r.touched = true
		}
		e, err := g.entry(ctx, s, q, r.force)
		if err != nil {
			return r, err
		}
		if e.Path != "" && e.Path != q && strings.HasPrefix(q, e.Path+"/") {
			// The host says a parent hides q (a symlink or submodule it met).
			g.read[s][e.Path] = e
			r.real = q
			goto restart
		}
		switch e.Kind {
		case notRead:
			r.unreadable, r.notRead = notReadMsg, true
			return r, nil
		case Symlink:
			hops++
			if hops > maxHops {
				r.unreadable = fmt.Sprintf("%s passes through more than %d symlinks (a loop?); Shipgate could not tell what Claude Code reads", p, maxHops)
				return r, nil
			}
			t := g.target(ctx, s, e)
			to, ok := resolveLink(q, t)
			if !ok {
				r.unreadable = fmt.Sprintf("%s is a symlink to %q, outside the repository: Claude Code follows it to a file Shipgate cannot see", q, t)
				if q != p {
					r.unreadable = fmt.Sprintf("%s lies under %s, a symlink to %q outside the repository: Claude Code follows it to files Shipgate cannot see", p, q, t)
					if t != "" && !strings.HasPrefix(t, "/") && path.Clean(path.Join(path.Dir(q), t)) == "." {
						r.unreadable = fmt.Sprintf("%s lies under %s, a symlink to %q, the repository's root: Claude Code sees the whole repository again there, and Shipgate does not follow a link to the root", p, q, t)
					}
				}
				return r, nil
			}
			if _, ok := g.changed[q]; ok {
				r.force = true
			}
			r.links = append(r.links, q)
			r.real = path.Join(append([]string{to}, segs[i:]...)...)
			goto restart
		case Submodule:
			what := q + " is a git submodule"
			if q != p {
				what = p + " lies inside " + q + ", a git submodule"
			}
			r.unreadable = fmt.Sprintf("%s (pinned at %s): its files belong to another repository and were not read", what, short(e.Commit))
			return r, nil
		case File:
			if i < len(segs) {
				r.real = "" // a file where a directory would be: p cannot exist
				return r, nil
			}
		}
	}
	return r, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "an unknown commit"
	}
	return sha
}

// version reads the file a resolved path leads to on one side.
func (g *gatherer) version(ctx context.Context, s side, r resolved) (report.Version, error) {
	if r.unreadable != "" {
		return report.Version{Exists: true, Unreadable: r.unreadable, NotRead: r.notRead}, nil
	}
	if r.real == "" {
		return report.Version{}, nil
	}
	e, err := g.entry(ctx, s, r.real, r.force)
	if err != nil {
		return report.Version{}, err
	}
	switch e.Kind {
	case Missing:
		return report.Version{}, nil
	case notRead:
		return report.Version{Exists: true, Unreadable: notReadMsg, NotRead: true}, nil
	case Dir:
		return report.Version{Exists: true, Unreadable: r.real + " is a directory, not a file"}, nil
	case Other:
		return report.Version{Exists: true, Unreadable: r.real + " is not a regular file"}, nil
	case File:
	default:
		return report.Version{Exists: true, Unreadable: r.real + " could not be resolved"}, nil
	}
	if e.TooLarge || e.Size > report.MaxFileSize {
		return report.Version{Exists: true, TooLarge: true, Unreadable: fmt.Sprintf("%s is %d bytes, over the %d-byte limit; it was not read", r.real, e.Size, report.MaxFileSize)}, nil
	}
	src := s // the side the content is read from
	if e.Data == nil {
		// A listing entry: read the content (the base, or an unchanged head
		// path, whose content is the base's).
		rs := s
		if s == headSide {
			if _, touched := g.changed[r.real]; !touched && !r.force {
				rs = baseSide
			}
		}
		if got, ok := g.read[rs][r.real]; ok && got.Data != nil {
			e = got
		} else {
			if g.spent() {
				return report.Version{Exists: true, Unreadable: notReadMsg, NotRead: true}, nil
			}
			got, err := g.rev(rs).Read(ctx, r.real)
			if err != nil {
				return report.Version{}, err
			}
			g.read[rs][r.real] = got
			if got.Kind != File {
				// The listing and the read disagree (the host followed or
				// replaced something): resolve again from what was read.
				return report.Version{Exists: true, Unreadable: fmt.Sprintf("%s changed kind while it was read (%s); read it again", r.real, got.Kind)}, nil
			}
			e = got
		}
		if e.TooLarge {
			return report.Version{Exists: true, TooLarge: true, Unreadable: fmt.Sprintf("%s is over the %d-byte limit; it was not read", r.real, report.MaxFileSize)}, nil
		}
		src = rs
	}
	if g.spent() && e.Data != nil && !g.counted[src][r.real] {
		// Content kept from before (a peek, the base's hooks), past the
		// bound: not for the engine either.
		return report.Version{Exists: true, Unreadable: notReadMsg, NotRead: true}, nil
	}
	g.use(src, r.real, e)
	data := e.Data
	if data == nil {
		data = []byte{}
	}
	return report.Version{Exists: true, Data: data}, nil
}

// basePolicy reads the policy in force: the override, else the base's
// file merged over the organisation default.
func (g *gatherer) basePolicy(ctx context.Context) error {
	if g.o.HasOverride {
		g.pol = g.o.Override
		e, listed, err := g.baseEntry(ctx, g.o.PolicyPath)
		if err != nil {
			return err
		}
		if listed && e.Kind != Missing {
			g.res.BasePolicyExists = true
		}
		return nil
	}
	r, err := g.resolve(ctx, baseSide, g.o.PolicyPath)
	if err != nil {
		return err
	}
	v, err := g.version(ctx, baseSide, r)
	if err != nil {
		return err
	}
	var repo *policy.Policy
	if v.Exists {
		g.res.BasePolicyExists = true
		if v.Unreadable != "" {
			g.res.PolicyErrs = append(g.res.PolicyErrs, &policy.Error{Path: g.o.PolicyPath, Msg: v.Unreadable})
		} else {
			p, errs := parsePolicy(g.o.PolicyPath, v.Data)
			g.res.PolicyErrs = append(g.res.PolicyErrs, errs...)
			repo = p
		}
	}
	if len(g.res.PolicyErrs) == 0 && !g.o.OrgBroken {
		g.pol = policy.Merge(g.o.Org, repo)
	}
	return nil
}

// parsePolicy parses a policy file, returning its errors with positions.
func parsePolicy(p string, data []byte) (*policy.Policy, []*policy.Error) {
	pol, err := policy.Parse(p, data, agentfiles.PolicyOptions())
	if err == nil {
		return pol, nil
	}
	var es policy.Errors
	if errors.As(err, &es) {
		return nil, es
	}
	return nil, []*policy.Error{{Path: p, Msg: err.Error()}}
}

// headPolicy judges a change to the policy file: a proposed file that
// lets more through is held for review (report.PolicyChange), one with
// errors is reported. A read error fails the gather: a policy change
// Shipgate could not read must not pass as no change.
func (g *gatherer) headPolicy(ctx context.Context) error {
	p := g.o.PolicyPath
	rb, err := g.resolve(ctx, baseSide, p)
	if err != nil {
		return err
	}
	rh, err := g.resolve(ctx, headSide, p)
	if err != nil {
		return err
	}
	if !rh.touched && !rb.touched {
		return nil
	}
	hv, err := g.version(ctx, headSide, rh)
	if err != nil {
		return err
	}
	bv, err := g.version(ctx, baseSide, rb)
	if err != nil {
		return err
	}
	var base *policy.Policy
	if bv.Exists && bv.Unreadable == "" {
		base, _ = parsePolicy(p, bv.Data)
	}
	switch {
	case !hv.Exists:
		g.res.Input.PolicyChange = &report.PolicyChange{Path: p, Base: base}
	case hv.Unreadable != "":
		g.res.HeadPolicyErrs = append(g.res.HeadPolicyErrs, &policy.Error{Path: p, Msg: "proposed policy: " + hv.Unreadable})
	default:
		head, errs := parsePolicy(p, hv.Data)
		if len(errs) > 0 {
			for _, e := range errs {
				e.Msg = "proposed policy: " + e.Msg
			}
			g.res.HeadPolicyErrs = append(g.res.HeadPolicyErrs, errs...)
			return nil
		}
		g.res.Input.PolicyChange = &report.PolicyChange{Path: p, Base: base, Head: head}
	}
	return nil
}

// cand is one agent-config path to consider: its spelling in the
// repository (or through a symlinked folder) and the canonical spelling
// Claude Code reads it as.
type cand struct {
	path, as string
}

func (c cand) key() string {
	if c.as != "" {
		return c.as
	}
	return c.path
}

// files finds the agent-config files the change touches and reads them
// at base and head, with the unchanged settings files of their projects.
func (g *gatherer) files(ctx context.Context) error {
	cands := map[string]cand{}
	add := func(p string) {
		if as, ok := g.candidate(p); ok {
			cands[p] = cand{path: p, as: as}
		}
	}
	type link struct{ link, to string }
	var baseLinks []link
	for p, e := range g.base {
		add(p)
		if (e.Kind == Symlink || e.Kind == Submodule) && g.hides(p) {
			if err := g.linkChildren(ctx, e, add); err != nil {
				return err
			}
			if e.Kind == Symlink {
				if to, ok := resolveLink(p, g.target(ctx, baseSide, e)); ok {
					baseLinks = append(baseLinks, link{p, to})
				}
			}
		}
	}
	for _, p := range g.pluginCommandFiles() {
		add(p)
	}
	// A file the change adds under a folder a base symlink points at is a
	// file under the link.
	for p, st := range g.changed {
		for _, l := range baseLinks {
			if rest, ok := strings.CutPrefix(p, l.to+"/"); ok && st != Deleted {
				add(path.Join(l.link, rest))
			}
		}
	}
	var newLinks []Entry
	for p := range g.changed {
		add(p)
		if hasClaudeSegment(p) && strings.EqualFold(path.Base(p), ".claude") {
			for _, n := range []string{"settings.json", "settings.local.json"} {
				add(path.Join(p, n))
			}
		}
		if g.hides(p) && g.changed[p] != Deleted {
			e, err := g.peek(ctx, p)
			if err != nil {
				return err
			}
			if e.Kind == Symlink && e.Path == p {
				newLinks = append(newLinks, e)
			}
		}
	}
	if err := g.headLinkChildren(ctx, newLinks, add); err != nil {
		return err
	}
	if err := g.folderLinks(ctx, add); err != nil {
		return err
	}
	if err := g.pluginFiles(ctx, add); err != nil {
		return err
	}
	// Group the spellings of one file: on a case-insensitive file system
	// only one of them is checked out, and which one is undefined.
	groups := map[string][]cand{}
	for _, c := range cands {
		groups[c.key()] = append(groups[c.key()], c)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	have := map[string]bool{}
	for _, k := range keys {
		grp := groups[k]
		sort.Slice(grp, func(i, j int) bool { return grp[i].path < grp[j].path })
		type read struct {
			c      cand
			f      report.File
			rb, rh resolved
		}
		var rs []read
		touched := false
		for _, c := range grp {
			rb, err := g.resolve(ctx, baseSide, c.path)
			if err != nil {
				return err
			}
			rh, err := g.resolve(ctx, headSide, c.path)
			if err != nil {
				return err
			}
			if rb.touched || rh.touched || g.touchedReal(rb) || g.touchedReal(rh) || g.forced[c.path] {
				touched = true
			}
			if g.pluginMoved(c.path) {
				// A manifest newly names it (or no longer does): read its
				// head though the change's listing may not hold it.
				touched, rh.force = true, true
			}
			rs = append(rs, read{c: c, rb: rb, rh: rh})
		}
		if !touched {
			continue
		}
		for i := range rs {
			f := report.File{Path: rs[i].c.path, As: rs[i].c.as}
			var err error
			if f.Base, err = g.version(ctx, baseSide, rs[i].rb); err != nil {
				return err
			}
			if f.Head, err = g.version(ctx, headSide, rs[i].rh); err != nil {
				return err
			}
			g.markEdited(&f, g.edits(rs[i].c.path, rs[i].rb, rs[i].rh))
			g.linkNotes(f.Path, rs[i].rb, rs[i].rh)
			switch {
			case f.As != "" && f.As == g.pluginAs(f.Path):
				g.pluginSide(&f)
				g.pluginNew(&f)
			case f.As == "":
				g.pluginNew(&f)
			case isAgentDirAs(f) && (f.Base.Exists || f.Head.Exists):
				g.note(fmt.Sprintf("`%s` is read as a Copilot CLI custom agent: it lies in a folder the settings' agentDirectories name.", f.Path))
			case f.As != "" && (f.Base.Exists || f.Head.Exists):
				g.note(fmt.Sprintf("`%s` is read as `%s`: Claude Code opens it under that name on a case-insensitive file system (macOS, Windows).", f.Path, f.As))
			}
			rs[i].f = f
		}
		// More than one spelling present on a side: none can be trusted.
		for _, sd := range []side{baseSide, headSide} {
			present := 0
			for _, r := range rs {
				if ver(&r.f, sd).Exists {
					present++
				}
			}
			if present < 2 {
				continue
			}
			var names []string
			for _, r := range rs {
				if ver(&r.f, sd).Exists {
					names = append(names, r.c.path)
				}
			}
			for i := range rs {
				v := ver(&rs[i].f, sd)
				if v.Exists && rs[i].c.as != "" {
					*v = report.Version{Exists: true, Unreadable: fmt.Sprintf("%s all exist: on a case-insensitive file system (macOS, Windows) only one is checked out as %s, and which one is undefined", strings.Join(names, ", "), k)}
				}
			}
		}
		over := false
		for _, r := range rs {
			over = over || isNotRead(r.f.Base) || isNotRead(r.f.Head)
		}
		for _, r := range rs {
			switch {
			case over:
				// Past the bound: not read, named (and blocking) instead.
				g.res.Input.Unread = append(g.res.Input.Unread, r.f.Path)
				have[r.f.Path] = true
				have[r.c.key()] = true
			case r.f.Base.Exists || r.f.Head.Exists:
				g.res.Input.Files = append(g.res.Input.Files, r.f)
				have[r.f.Path] = true
				have[r.c.key()] = true
			}
		}
	}
	if err := g.siblings(ctx, have); err != nil {
		return err
	}
	return g.extraPaths(ctx, have)
}

// extraPaths adds the repository files the agent-config files make part
// of the agent's surface (hookscript.ExtraPaths: the scripts hooks, helpers and
// stdio servers run, the subagent the settings key agent names), named by
// either version, at base and head. Their head is read whether or not the
// change lists them (the change's listing was selected before they were
// known), except where the host knows the change leaves them alone.
func (g *gatherer) extraPaths(ctx context.Context, have map[string]bool) error {
	// want: the path → whether a file the change changes names it (the
	// files an unchanged file runs matter only where the change touches
	// them: an unchanged hook script changes nothing).
	want := map[string]bool{}
	for _, f := range g.res.Input.Files {
		p := f.Path
		if f.As != "" {
			p = f.As
		}
		changed := f.Base.Exists != f.Head.Exists || f.Base.Unreadable != f.Head.Unreadable || !bytes.Equal(f.Base.Data, f.Head.Data)
		for _, v := range []report.Version{f.Base, f.Head} {
			if v.Exists && v.Unreadable == "" {
				for _, x := range hookscript.ExtraPaths(p, v.Data) {
					if !have[x] {
						want[x] = want[x] || changed
					}
				}
			}
		}
	}
	// A changed file that a command Shipgate cannot resolve names may be
	// what it runs: the engine decides (hookscript.Mentions) and fails closed.
	if dyn := dynamicCommands(g.res.Input.Files); len(dyn) > 0 {
		for p := range g.changed {
			if have[p] || want[p] {
				continue
			}
			for _, t := range dyn {
				if hookscript.Mentions(t, p) {
					want[p] = false // touched: read below
					break
				}
			}
		}
	}
	// A changed file a script of the base loads (or may load: its
	// folder), and the scripts on the way to the one a command runs,
	// which the engine reads to know it (hookscript.LoadsOf); those are read
	// even when the change leaves them alone.
	need := map[string]bool{}
	for p := range g.changed {
		ch := g.hooks.chain(p)
		if have[p] || len(ch) == 0 {
			continue
		}
		if _, ok := want[p]; !ok {
			want[p] = false
		}
		for _, x := range ch {
			if !have[x] {
				if _, ok := want[x]; !ok {
					want[x] = false
				}
				need[x] = true
			}
		}
	}
	var list []string
	for x := range want {
		list = append(list, x)
	}
	sort.Strings(list)
	for _, x := range list {
		rb, err := g.resolve(ctx, baseSide, x)
		if err != nil {
			return err
		}
		rh, err := g.resolve(ctx, headSide, x)
		if err != nil {
			return err
		}
		untouched := !want[x] && !rb.touched && !rh.touched && !g.touchedReal(rb) && !g.touchedReal(rh)
		if untouched && !need[x] {
			continue // run by unchanged files only, and untouched
		}
		rh.force = !untouched
		f := report.File{Path: x}
		if f.Base, err = g.version(ctx, baseSide, rb); err != nil {
			return err
		}
		if f.Head, err = g.version(ctx, headSide, rh); err != nil {
			return err
		}
		g.markEdited(&f, g.edits(x, rb, rh))
		if why := g.hooks.unread[x]; why != "" && untouched {
			// Its loads were not read: the engine must not read them
			// either, and treats its folder as loaded (fail closed).
			f.Base = report.Version{Exists: f.Base.Exists, Unreadable: why}
			f.Head = f.Base
		}
		if isNotRead(f.Base) || isNotRead(f.Head) {
			g.res.Input.Unread = append(g.res.Input.Unread, x)
			have[x] = true
			continue
		}
		if f.Base.Exists || f.Head.Exists {
			g.res.Input.Files = append(g.res.Input.Files, f)
			have[x] = true
		}
	}
	return nil
}

// edits reports whether the change edits the file at p itself (its
// path, a link on the way, or the file a link leads to), as opposed to
// reading it because something beside it changed.
func (g *gatherer) edits(p string, rb, rh resolved) bool {
	_, ok := g.changed[p]
	return ok || rb.touched || rh.touched || g.touchedReal(rb) || g.touchedReal(rh)
}

// markEdited keeps an edited file whose two versions Shipgate could read
// on neither side (both over the limit, both out of the repository) from
// reading as unchanged: the same message on both sides would say "no
// change" while Claude Code reads new content that may grant anything.
func (g *gatherer) markEdited(f *report.File, edited bool) {
	if edited && f.Base.Exists && f.Head.Exists && f.Base.Unreadable != "" && f.Base.Unreadable == f.Head.Unreadable {
		f.Head.Unreadable += " (the pull request changes it, and neither version could be read to compare them)"
	}
}

func ver(f *report.File, s side) *report.Version {
	if s == baseSide {
		return &f.Base
	}
	return &f.Head
}

// touchedReal reports whether the change touches the path a resolution
// ends at (the target of a symlink the change does not touch).
func (g *gatherer) touchedReal(r resolved) bool {
	_, ok := g.changed[r.real]
	return ok && r.real != ""
}

// linkNotes records the symlinks a file was read through.
func (g *gatherer) linkNotes(p string, rs ...resolved) {
	for _, r := range rs {
		if len(r.links) > 0 && r.unreadable == "" && r.real != "" {
			g.note(fmt.Sprintf("`%s` is read through the symlink %s (to `%s`), as Claude Code follows it.", p, "`"+strings.Join(r.links, "`, `")+"`", r.real))
		}
	}
}

// linkChildren adds the agent-config paths a symlinked or submodule
// folder stands for: the files under the link's target that would be
// agent configuration at the link's place, and a .claude folder's
// settings files.
func (g *gatherer) linkChildren(ctx context.Context, e Entry, add func(string)) error {
	if strings.EqualFold(path.Base(e.Path), ".claude") {
		for _, n := range []string{"settings.json", "settings.local.json"} {
			add(path.Join(e.Path, n))
		}
	}
	if e.Kind != Symlink {
		return nil
	}
	to, ok := resolveLink(e.Path, g.target(ctx, baseSide, e))
	if !ok {
		return nil
	}
	if err := g.fill(ctx, to); err != nil {
		return err
	}
	for p := range g.base {
		if rest, ok := strings.CutPrefix(p, to+"/"); ok {
			add(path.Join(e.Path, rest))
		}
	}
	return nil
}

// sparseBase is a host whose ListBase lists, of the base's files, only
// those agentfiles.MayBeAgentPath accepts, and every symlink and submodule
// whatever its name (the local Git sources: a large repository's tree is
// not held whole). Revision.Read answers for any other path, and
// ListBaseUnder lists a folder whole.
type sparseBase interface {
	ListBaseUnder(ctx context.Context, dir string) ([]Entry, error)
}

// fill completes a sparse base listing under the folder dir (once): what
// a folder symlink to dir shows under its own name is every file there,
// whatever its name at dir.
func (g *gatherer) fill(ctx context.Context, dir string) error {
	if g.sparse == nil || g.filled[dir] {
		return nil
	}
	g.filled[dir] = true
	es, err := g.sparse.ListBaseUnder(ctx, dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		if _, ok := g.base[e.Path]; !ok {
			g.base[e.Path] = e
		}
	}
	return nil
}

// baseEntry says what p is at the base for the loops that asked the
// listing alone: from the listing, or, when it is sparse, by reading p;
// listed is false when nothing is there.
func (g *gatherer) baseEntry(ctx context.Context, p string) (e Entry, listed bool, err error) {
	if e, ok := g.base[p]; ok || g.sparse == nil {
		return e, ok, nil
	}
	e, err = g.entry(ctx, baseSide, p, false)
	if err != nil {
		return Entry{}, false, err
	}
	return e, e.Kind != Missing && e.Path == p, nil
}

// headLinkChildren adds the agent-config paths a folder symlink the change
// makes or retargets stands for: the files under its new target, those
// the base has and those the change adds there (listed again, narrowly:
// the first listing was selected before the target was known).
func (g *gatherer) headLinkChildren(ctx context.Context, links []Entry, add func(string)) error {
	type target struct{ link, to string }
	var ts []target
	var specs []string
	for _, e := range links {
		if to, ok := resolveLink(e.Path, e.Target); ok {
			ts = append(ts, target{e.Path, to})
			specs = append(specs, ":(literal)"+to)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	under := func(p string) bool {
		for _, t := range ts {
			if strings.HasPrefix(p, t.to+"/") {
				return true
			}
		}
		return false
	}
	more, truncated, err := g.src.Changed(ctx, Selector{Pathspecs: specs, Match: under})
	if err != nil {
		return err
	}
	g.res.Truncated = g.res.Truncated || truncated
	for _, c := range more {
		g.changed[c.Path] = c.Status
	}
	for _, t := range ts {
		if err := g.fill(ctx, t.to); err != nil {
			return err
		}
		for p := range g.base {
			if rest, ok := strings.CutPrefix(p, t.to+"/"); ok {
				add(path.Join(t.link, rest))
			}
		}
		for _, c := range more {
			if rest, ok := strings.CutPrefix(c.Path, t.to+"/"); ok && c.Status != Deleted {
				add(path.Join(t.link, rest))
			}
		}
	}
	return nil
}

// siblings adds the settings files of the projects whose settings the
// change touches, unchanged, for the effective view (a deny rule in
// settings.local.json shadows an allow rule added to settings.json).
// Both front ends read them always, whatever the policy.
func (g *gatherer) siblings(ctx context.Context, have map[string]bool) error {
	scopes := map[string]bool{}
	for _, f := range g.res.Input.Files {
		p := f.Path
		if f.As != "" {
			p = f.As
		}
		if k, scope := agentfiles.Classify(p, g.pol); (k == report.SettingsFile || k == report.ScriptFile) && !strings.HasPrefix(scope, "watched:") {
			scopes[scope] = true
		}
	}
	var extra []string
	for _, f := range g.res.Input.Files {
		// Other agents' scopes: the files their adapter reads together.
		for _, p := range agentfiles.SiblingPaths(f.Path, g.pol) {
			if !have[p] {
				have[p] = true
				extra = append(extra, p)
			}
		}
		// Folders the agent reads whole (Codex's rules files): the base's
		// files there of the same agent and scope.
		if dirs := agentfiles.SiblingDirs(f.Path, g.pol); len(dirs) > 0 {
			name, _, scope := agentfiles.ClassifyAgent(f.Path, g.pol)
			for p := range g.base {
				if have[p] || !slices.Contains(dirs, path.Dir(p)) {
					continue
				}
				if n, _, s := agentfiles.ClassifyAgent(p, g.pol); n == name && s == scope {
					have[p] = true
					extra = append(extra, p)
				}
			}
		}
	}
	for scope := range scopes {
		for _, n := range []string{".claude/settings.json", ".claude/settings.local.json"} {
			if p := path.Join(scope, n); !have[p] {
				extra = append(extra, p)
			}
		}
	}
	sort.Strings(extra)
	for _, p := range extra {
		r, err := g.resolve(ctx, headSide, p)
		if err != nil {
			return err
		}
		v, err := g.version(ctx, headSide, r)
		if err != nil {
			return err
		}
		if isNotRead(v) {
			g.res.Input.Unread = append(g.res.Input.Unread, p)
			continue
		}
		if v.Exists {
			g.linkNotes(p, r)
			g.res.Input.Files = append(g.res.Input.Files, report.File{Path: p, Base: v, Head: v})
		}
	}
	return nil
}
