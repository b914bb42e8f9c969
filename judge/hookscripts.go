package judge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// scriptUse is one command that runs a script file.
type scriptUse struct {
	owner string // the agent-config file whose command runs it
	key   string
	event string
	line  int
	head  bool // the head version of the owner runs it (else only the base)
	// dynamic, when set, says why the command could not be resolved: it
	// may run the file (its text names the file: Mentions), or may not.
	dynamic string
	// via is the chain of scripts that load the file ("scripts/guard.py"
	// when the hook runs guard.py and guard.py imports it), outermost
	// first; empty when the command runs the file itself.
	via []string
}

// ownerScope is the project folder a file's commands run in.
func ownerScope(f *fileState) string {
	s := strings.TrimPrefix(f.scope, skillPoolPrefix)
	if strings.HasPrefix(s, "watched:") {
		return ""
	}
	return s
}

// loadScripts finds, among the input files that are not agent-config files,
// those a command of an agent-config file of the input runs (at base or
// head) — ExtraPaths names them for the gatherer — and loads them as
// script files: a change to one is a change to the hook that runs it.
func (e *engine) loadScripts(others []report.File) {
	uses := map[string][]scriptUse{}
	var dyn []scriptUse // commands that cannot be resolved, with their text in dynamic
	var dynText []string
	for _, f := range e.files {
		for _, side := range []struct {
			d    *claude.Doc
			v    report.Version
			head bool
		}{{f.base, f.Base, false}, {f.head, f.Head, true}} {
			refs, bad := hookscript.CommandRefs(side.d, f.kind, f.Path, ownerScope(f))
			bad = append(bad, hookscript.RootGuesses(side.d, f.kind)...)
			if f.kind == agentfiles.AgentFile && side.v.Exists && side.v.Unreadable == "" {
				// A plugin's hooks or servers file, .codex/hooks.json:
				// held whole, but the scripts its commands run are read.
				as := f.Path
				if f.As != "" {
					as = f.As
				}
				refs, bad = hookscript.OpaqueRefs(as, side.v.Data)
			}
			for _, r := range refs {
				uses[r.Path] = append(uses[r.Path], scriptUse{owner: f.Path, key: r.Key, event: r.Event, line: r.Line, head: side.head})
			}
			for _, b := range bad {
				dyn = append(dyn, scriptUse{owner: f.Path, key: b.Key, event: b.Event, line: b.Line, head: side.head, dynamic: b.Reason})
				dynText = append(dynText, b.Command)
			}
		}
	}
	if len(uses) == 0 && len(dyn) == 0 {
		return
	}
	followLoads(others, uses)
	seen := map[string]bool{}
	for _, f := range others {
		p := hookscript.CleanPath(f.Path)
		us := uses[p]
		if len(us) == 0 {
			us = uses[loadedIn+path.Dir(p)]
			for d := path.Dir(p); len(us) == 0 && d != "." && d != "/"; {
				d = path.Dir(d)
				us = uses[loadedIn+d]
			}
		}
		if len(us) == 0 {
			// A command Shipgate cannot resolve whose text names the file
			// may run it: fail closed.
			for i, u := range dyn {
				if hookscript.Mentions(dynText[i], p) {
					us = append(us, u)
				}
			}
		}
		if len(us) == 0 || seen[p] {
			continue
		}
		seen[p] = true
		fs := &fileState{File: f, kind: report.ScriptFile}
		fs.changed = f.Base.Exists != f.Head.Exists || f.Base.Unreadable != f.Head.Unreadable || !bytes.Equal(f.Base.Data, f.Head.Data)
		e.files = append(e.files, fs)
		if e.scripts == nil {
			e.scripts = map[string][]scriptUse{}
		}
		e.scripts[f.Path] = us
	}
}

// loadedIn prefixes, in the uses of loadScripts, a folder any file of
// which a script may load (it loads a file Shipgate cannot resolve, or
// its loads were not followed past MaxLoadDepth or MaxLoadFiles).
const loadedIn = "\x00dir:"

// followLoads adds to uses the files the scripts of the input that
// commands run load (LoadsOf of either version), MaxLoadDepth levels
// deep and over at most MaxLoadFiles scripts, as the gatherer does
// (gather/hooks.go): a loaded file is used as the script that
// loads it is, via that script. A script with a load Shipgate cannot
// resolve, or whose loads are past the bounds, makes its folder's files
// used (loadedIn), with the reason.
func followLoads(others []report.File, uses map[string][]scriptUse) {
	byPath := map[string]report.File{}
	for _, f := range others {
		byPath[hookscript.CleanPath(f.Path)] = f
	}
	var start []string
	for p := range uses {
		if _, ok := byPath[p]; ok {
			start = append(start, p)
		}
	}
	_ = hookscript.WalkLoads(start, func(p string, _ int, past bool) ([]string, bool, error) {
		f := byPath[p]
		var parents []scriptUse
		for _, u := range uses[p] {
			if u.dynamic == "" || len(u.via) > 0 {
				parents = append(parents, u)
			}
		}
		if len(parents) == 0 {
			return nil, false, nil
		}
		derive := func(reason string) []scriptUse {
			out := make([]scriptUse, 0, len(parents))
			for _, u := range parents {
				u.via = append(append([]string(nil), u.via...), p)
				u.dynamic = reason
				out = append(out, u)
			}
			return out
		}
		d := loadedIn + path.Dir(p)
		if past {
			uses[d] = append(uses[d], derive(fmt.Sprintf("Shipgate follows what hook scripts load %d levels deep and over %d scripts, and %s is past that", hookscript.MaxLoadDepth, hookscript.MaxLoadFiles, p))...)
			return nil, false, nil
		}
		if why := unreadScript(f); why != "" {
			uses[d] = append(uses[d], derive(fmt.Sprintf("what %s loads was not read (%s)", p, strings.TrimSuffix(why, ".")))...)
			return nil, true, nil
		}
		var next []string
		for _, v := range []report.Version{f.Base, f.Head} {
			if !v.Exists || v.Unreadable != "" {
				continue
			}
			l := hookscript.LoadsOf(p, v.Data)
			for _, x := range l.Paths {
				uses[x] = append(uses[x], derive("")...)
				if _, ok := byPath[x]; ok {
					next = append(next, x)
				}
			}
			if len(l.Dynamic) > 0 {
				uses[d] = append(uses[d], derive(fmt.Sprintf("%s loads a file Shipgate cannot resolve (%s)", p, strings.Join(l.Dynamic, "; ")))...)
			}
		}
		return next, true, nil
	})
}

// unreadScript says why no version of a script a command runs could be
// read for its loads (both unreadable: too large, past the gatherer's
// MaxLoadFiles), or "" when one could.
func unreadScript(f report.File) string {
	for _, v := range []report.Version{f.Base, f.Head} {
		if v.Exists && v.Unreadable == "" {
			return ""
		}
	}
	if f.Base.Unreadable != "" {
		return f.Base.Unreadable
	}
	return f.Head.Unreadable
}

// digest is a short SHA-256 prefix of a version.
func digest(v report.Version) string {
	if !v.Exists {
		return "absent"
	}
	if v.Unreadable != "" {
		return "unreadable"
	}
	sum := sha256.Sum256(v.Data)
	return "sha256 " + hex.EncodeToString(sum[:4])
}

// compareScript reports a changed script file as a change to every hook,
// helper or server that runs it.
func (e *engine) compareScript(f *fileState) {
	us := e.scripts[f.Path]
	if len(us) == 0 || e.movedScript(f) {
		return
	}
	if f.Base.Exists && f.Head.Exists && f.Base.Unreadable == "" && f.Head.Unreadable == "" && hookscript.SameShellCode(f.Path, f.Base.Data, f.Head.Data) {
		// Only comments or layout changed: the hooks that run it run the
		// same code.
		e.row(f, report.KindHook, report.DirRespelled, "script "+f.Path+" ("+digest(f.Base)+")", "script "+f.Path+" ("+digest(f.Head)+")", false,
			quietHook, 1, 1, "only its comments or layout changed (both versions parse as the same shell code, #! line included), so the hooks that run it run the same code")
		return
	}
	// The strongest use decides the check and the rating: a PreToolUse or
	// PermissionRequest hook may approve tool calls.
	sort.SliceStable(us, func(i, j int) bool { return useRank(us[i]) > useRank(us[j]) })
	u := us[0]
	check, rt := report.CheckHookChanged, rating.Hook(u.event)
	what := "the " + u.event + " hook"
	switch {
	case strings.HasPrefix(u.key, "mcpServers."):
		check, rt = report.CheckMCPServerChange, rating.MCPServer()
		what = "the MCP server " + strings.TrimSuffix(strings.TrimPrefix(u.key, "mcpServers."), ".command")
	case strings.HasPrefix(u.key, "lspServers."):
		name := strings.TrimSuffix(strings.TrimPrefix(u.key, "lspServers."), ".command")
		check = report.CheckHelperChanged
		rt = rating.Rating{Access: rating.AccessExecute, Risk: rating.RiskHigh, Basis: "a language server a plugin starts by itself once it is enabled"}
		what = "the language server " + name
	case !strings.HasPrefix(u.key, "hooks."):
		k := strings.TrimSuffix(u.key, ".command")
		check, rt = report.CheckHelperChanged, rating.Helper(k)
		what = k
	}
	var owners []string
	seen := map[string]bool{}
	for _, x := range us {
		w := fmt.Sprintf("%s:%d (%s)", x.owner, x.line, x.key)
		if !seen[w] {
			seen[w] = true
			owners = append(owners, w)
		}
	}
	change := "changes"
	dir := report.DirChanged
	switch {
	case !f.Base.Exists:
		change, dir = "is created", report.DirAdded
	case !f.Head.Exists:
		change, dir = "is deleted (the command that runs it fails, so a guard it was stops nothing)", report.DirRemoved
	case f.Head.Unreadable != "":
		change = "cannot be read at the head (" + strings.TrimSuffix(f.Head.Unreadable, ".") + "), so what it now runs was not reviewed"
	}
	before, after := "", ""
	if f.Base.Exists {
		before = "script " + f.Path + " (" + digest(f.Base) + ")"
	}
	if f.Head.Exists {
		after = "script " + f.Path + " (" + digest(f.Head) + ")"
	}
	headLine := 0
	if f.Head.Exists {
		headLine = 1
	}
	why := "a file " + what + " runs: a change to it is a change to the hook; " + rt.Basis
	msg := fmt.Sprintf("%s %s. It is run by %s: %s, so a change to it changes what that command does (%s).",
		f.Path, change, strings.Join(owners, ", "), rt.Basis, digest(f.Base)+" → "+digest(f.Head))
	if len(u.via) > 0 {
		chain := strings.Join(u.via, ", which loads ")
		why = "a file " + what + " loads (through " + chain + "): a change to it is a change to the hook; " + rt.Basis
		msg = fmt.Sprintf("%s %s. %s, run by %s, loads it: %s, so a change to it changes what that command does (%s).",
			f.Path, change, chain, strings.Join(owners, ", "), rt.Basis, digest(f.Base)+" → "+digest(f.Head))
		if u.dynamic != "" {
			why = "a file " + what + " may load (through " + chain + "; Shipgate cannot resolve all it loads): " + rt.Basis
			msg = fmt.Sprintf("%s %s. %s, run by %s, may load it: %s, so any file in its folder is held for review: %s (%s). Load files by a literal path relative to the script so Shipgate can follow them.",
				f.Path, change, chain, strings.Join(owners, ", "), strings.TrimSuffix(u.dynamic, "."), rt.Basis, digest(f.Base)+" → "+digest(f.Head))
		}
	} else if u.dynamic != "" {
		why = "a file " + what + " may run (Shipgate cannot resolve its command, whose text names the file): " + rt.Basis
		advice := "Name the script by a path (\"$CLAUDE_PROJECT_DIR\"/scripts/x.sh) so Shipgate can follow it."
		if hookscript.PluginFolderReason(u.dynamic) {
			advice = "A plugin's own hooks/hooks.json and .mcp.json are read at its folder; a file its manifest names elsewhere is followed by the names its commands hold."
		}
		msg = fmt.Sprintf("%s %s. Shipgate cannot tell which files %s runs (%s), and the command's text names %s, so it may run this file: %s; held for review (%s). %s",
			f.Path, change, strings.Join(owners, ", "), strings.TrimSuffix(u.dynamic, "."), path.Base(f.Path), rt.Basis, digest(f.Base)+" → "+digest(f.Head), advice)
	}
	// Judged by effect: a script only hooks of events that cannot decide
	// a permission run (a formatter, a notifier) is the team's own code,
	// reviewed as code: advisory. A package.json a runner reads (`npm run
	// lint`) whose scripts are unchanged runs the same commands: a
	// dependency bump is quiet. Anything a deciding hook, a helper or a
	// server runs stays held for review (fail closed: what the edit does
	// cannot be known).
	var action policy.Action
	expands := true
	switch {
	case check == report.CheckHookChanged && sameRunnerScripts(f, us):
		e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindHook, Direction: report.DirChanged, Before: before, After: after, Expands: false,
			Access: rt.Access, Risk: rating.RiskLow, Line: 1, HeadLine: max(headLine, 1), Witnesses: []string{},
			Why: "a file " + what + " reads through a script runner; its scripts are unchanged (a dependency or metadata change), so the hook runs the same commands"})
		return
	case check == report.CheckHookChanged && !anyDeciding(us):
		action, expands = policy.Advisory, false
		rt = rating.Rating{Access: rt.Access, Risk: rating.RiskLow, Basis: "hooks on " + hookEvents(us) + " cannot decide a permission, so the edit is reviewed as the code it is"}
		why = "a file " + what + " runs: " + rt.Basis
		msg = fmt.Sprintf("%s %s. It is run by %s: %s (%s).", f.Path, change, strings.Join(owners, ", "), rt.Basis, digest(f.Base)+" → "+digest(f.Head))
	case check == report.CheckHookChanged && !f.Head.Exists:
		why = "a file the " + u.event + " hook runs is deleted: the command fails, so the hook no longer stops what it stopped"
		msg = fmt.Sprintf("%s is deleted. It is run by %s, a hook that can deny calls: the command now fails, so it no longer stops what it stopped; those calls follow the permission rules alone (%s).",
			f.Path, strings.Join(owners, ", "), digest(f.Base)+" → "+digest(f.Head))
	}
	e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindHook, Direction: dir, Before: before, After: after, Expands: expands,
		Access: rt.Access, Risk: rt.Risk, Line: 1, HeadLine: max(headLine, 1), Witnesses: []string{}, Why: why})
	e.finding(report.Finding{CheckID: check, Action: action, Risk: rt.Risk, Path: f.Path, Line: 1, HeadLine: 1, Base: !f.Head.Exists,
		Evidence: "script=" + claude.Sanitize(f.Path), Title: f.Path + " (run by " + what + ") changed",
		Message: msg,
		Key:     check + "|" + f.Path + "|script"})
}

// anyDeciding reports whether a hook of a permission-deciding event runs
// (or may run, or loads) the script; a use that is not a hook counts too.
func anyDeciding(us []scriptUse) bool {
	for _, u := range us {
		if !strings.HasPrefix(u.key, "hooks.") || hookscript.DecidingEvent(u.event) {
			return true
		}
	}
	return false
}

// hookEvents lists the events of the hooks that run a script.
func hookEvents(us []scriptUse) string {
	seen := map[string]bool{}
	var out []string
	for _, u := range us {
		if !seen[u.event] {
			seen[u.event] = true
			out = append(out, u.event)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// sameRunnerScripts reports whether f is a package.json that hooks read
// only through a script runner (`npm run x`, `pnpm x`, `yarn x`: no
// script loads it) and whose "scripts" object is the same at base and
// head: a dependency bump changes no command the hook runs. Both
// versions must parse; anything else is a change (fail closed).
func sameRunnerScripts(f *fileState, us []scriptUse) bool {
	if path.Base(hookscript.CleanPath(f.Path)) != "package.json" || !f.Base.Exists || !f.Head.Exists || f.Base.Unreadable != "" || f.Head.Unreadable != "" {
		return false
	}
	for _, u := range us {
		if len(u.via) > 0 || u.dynamic != "" || !strings.HasPrefix(u.key, "hooks.") {
			return false
		}
	}
	scripts := func(data []byte) (any, bool) {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, false
		}
		return m["scripts"], true
	}
	b, ok1 := scripts(f.Base.Data)
	h, ok2 := scripts(f.Head.Data)
	return ok1 && ok2 && reflect.DeepEqual(b, h)
}

// useRank orders script uses by how much they can grant.
func useRank(u scriptUse) int {
	switch {
	case u.event == "PreToolUse" || u.event == "PermissionRequest":
		return 3
	case strings.HasPrefix(u.key, "hooks."):
		return 2
	}
	return 1
}

// unresolvedCommands reports, for a changed file, each command of its head
// version that Shipgate cannot map to the repository files it runs and
// that the base did not already run: a later change to those files would
// pass unseen, so the command is held for review now (fail closed).
func (e *engine) unresolvedCommands(f *fileState) {
	if !f.changed || f.head == nil {
		return
	}
	_, hb := hookscript.CommandRefs(f.head, f.kind, f.Path, ownerScope(f))
	if len(hb) == 0 {
		return
	}
	_, bb := hookscript.CommandRefs(f.base, f.kind, f.Path, ownerScope(f))
	// A hook's key holds its position (hooks.PreToolUse[0].hooks[1]):
	// the same command on the same event, reordered, is not new.
	id := func(u hookscript.UnresolvedCommand) string {
		if u.Event != "" && strings.HasPrefix(u.Key, "hooks.") {
			return "hooks." + u.Event + "\x00" + u.Command
		}
		return u.Key + "\x00" + u.Command
	}
	had := map[string]bool{}
	for _, u := range bb {
		had[id(u)] = true
	}
	for _, u := range hb {
		if had[id(u)] {
			continue
		}
		rt := rating.Hook(u.Event)
		check := report.CheckHookChanged
		if u.Event == "" {
			check, rt = report.CheckHelperChanged, rating.Helper(strings.TrimSuffix(u.Key, ".command"))
		}
		e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: u.Line, HeadLine: u.Line,
			Evidence: "unresolved=" + u.Key, Title: "cannot tell what " + u.Key + " runs",
			Message: fmt.Sprintf("%s: Shipgate cannot tell which repository files %s runs (%s): %s, and a later change to the files it runs would not be seen. Review what it runs, or name the script by a path (\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh).",
				f.Path, u.Key, strings.TrimSuffix(u.Reason, "."), rt.Basis),
			Key: check + "|" + f.Path + "|unresolved|" + u.Key + "|" + u.Command})
	}
}
