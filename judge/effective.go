package judge

import (
	"fmt"
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// Claude Code merges the settings files of a project before it reads a
// setting (measured in the binary's own merge: a later source's scalar
// replaces an earlier one's, arrays are concatenated, objects merged key
// by key; the order is user < project < local < flag < managed). So a
// scalar in .claude/settings.local.json overrides the same key in
// .claude/settings.json: removing a local `defaultMode: "default"` over a
// project `acceptEdits`, or deleting the local file, switches acceptEdits
// on, though neither file's own diff says so. compareEffective compares
// the effective value of each scalar the engine rates, across the files
// of a scope that Claude Code surely reads, and reports an effective
// widening the file-by-file rows did not.

// effective is a scalar's effective value in a scope on one side, and
// the file that sets it.
type effective struct {
	claude.Setting
	file *fileState
}

// effectiveFiles are the settings files of a scope Claude Code surely
// reads, highest precedence first (settings.local.json over
// settings.json).
func (e *engine) effectiveFiles(scope string) []*fileState {
	var local, project []*fileState
	for _, f := range e.scopes[scope] {
		if !surelyRead(f, scope) {
			continue
		}
		if path.Base(f.Path) == "settings.local.json" {
			local = append(local, f)
		} else {
			project = append(project, f)
		}
	}
	return append(local, project...)
}

// effectiveAt reads a setting where Claude Code reads it, from the file of
// highest precedence that sets it.
func effectiveAt(files []*fileState, head bool, read func(*claude.Doc) claude.Setting) effective {
	for _, f := range files {
		d := f.base
		if head {
			d = f.head
		}
		if s := read(d); s.Present() {
			return effective{s, f}
		}
	}
	return effective{}
}

// compareEffective reports, for every scope of more than one surely-read
// settings file, the scalars whose effective value widens while no file's
// own row says so.
func (e *engine) compareEffective() {
	for _, scope := range sortedKeys(e.scopes) {
		files := e.effectiveFiles(scope)
		if len(files) < 2 {
			continue
		}
		changed := false
		for _, f := range files {
			changed = changed || f.changed
		}
		if !changed {
			continue
		}
		e.effectiveMode(scope, files)
		e.effectiveSwitches(scope, files)
		e.effectiveLocks(scope, files)
		e.effectiveSandbox(files)
	}
}

// flagged reports whether a finding with this key prefix exists for one
// of the files (the file-by-file comparison already said it).
func (e *engine) flagged(files []*fileState, key func(*fileState) string) bool {
	for _, fd := range e.findings {
		for _, f := range files {
			if strings.HasPrefix(fd.Key, key(f)) {
				return true
			}
		}
	}
	return false
}

// cause is the file of the scope whose change moved the effective value:
// the one that sets it on either side, preferring a changed file.
func cause(b, h effective, files []*fileState) *fileState {
	for _, c := range []*fileState{b.file, h.file} {
		if c != nil && c.changed {
			return c
		}
	}
	for _, f := range files {
		if f.changed {
			return f
		}
	}
	return files[0]
}

// overrideWords explains an effective change: which file set the value
// on each side.
func overrideWords(key string, b, h effective) string {
	from := func(x effective) string {
		if x.file == nil {
			return "not set in any settings file of the project"
		}
		return "from " + x.file.Path
	}
	return fmt.Sprintf("the effective %s was %s (%s) and is %s (%s): Claude Code merges the project's settings files, a settings.local.json value overriding settings.json's", key, effDisplay(b), from(b), effDisplay(h), from(h))
}

func effDisplay(x effective) string {
	if !x.Present() {
		return "unset"
	}
	return claude.Display(x.Setting)
}

// effectiveMode compares the effective defaultMode.
func (e *engine) effectiveMode(scope string, files []*fileState) {
	read := func(d *claude.Doc) claude.Setting { return claude.Lookup(d, "defaultMode", true) }
	b, h := effectiveAt(files, false, read), effectiveAt(files, true, read)
	f := cause(b, h, files)
	ms, changed := e.modeShift(f, b.Setting, h.Setting)
	if !changed || !ms.expands {
		return
	}
	if e.flagged(files, func(g *fileState) string { return report.CheckAllowExpanded + "|" + g.Path + "|defaultMode|" }) ||
		e.flagged(files, func(g *fileState) string { return report.CheckWildcardAllow + "|" + g.Path + "|defaultMode|" }) {
		return
	}
	line, headLine := lineOf(b.Setting, h.Setting)
	why := overrideWords("defaultMode", b, h) + "; the permission mode becomes " + ms.head + ": " + ms.rating.Basis
	why += ms.witnessWords("the agent")
	e.row(f, report.KindMode, report.DirChanged, "effective defaultMode: "+ms.base, "effective defaultMode: "+ms.head, true, ms.rating, line, headLine, why)
	if len(ms.witnesses) > 0 {
		e.changes[len(e.changes)-1].Witnesses = ms.witnesses
	}
	check := report.CheckAllowExpanded
	if ms.rating.Risk == rating.RiskCritical {
		check = report.CheckWildcardAllow
	}
	e.finding(report.Finding{CheckID: check, Risk: ms.rating.Risk, Path: f.Path, Line: line, HeadLine: max(headLine, 1), Base: !h.Present(),
		Evidence: "effective mode=" + claude.Sanitize(ms.head), Title: "effective defaultMode " + ms.head, Witnesses: ms.witnesses,
		Message: fmt.Sprintf("%s: the permission mode becomes %s: %s%s; %s.", f.Path, ms.head, ms.rating.Basis, ms.witnessWords("the agent"), overrideWords("defaultMode", b, h)),
		Key:     check + "|" + f.Path + "|effective|defaultMode"})
}

// effectiveSwitches compares the effective value of the switches that
// widen when they go on (compareSwitches rates the file-by-file change).
func (e *engine) effectiveSwitches(scope string, files []*fileState) {
	for _, k := range []string{"skipDangerousModePermissionPrompt", "enableAllProjectMcpServers", "disableAllHooks"} {
		read := func(d *claude.Doc) claude.Setting { return claude.Lookup(d, k, true) }
		b, h := effectiveAt(files, false, read), effectiveAt(files, true, read)
		if claude.Truthy(b.Value) == claude.Truthy(h.Value) {
			continue
		}
		var check string
		var rt rating.Rating
		switch k {
		case "disableAllHooks":
			// Either way round the hooks that run change.
			check, rt = report.CheckHookChanged, rating.Hook("")
		default:
			if !claude.Truthy(h.Value) {
				continue
			}
			check, rt = report.CheckAllowExpanded, rating.Switch(k, true, h.Value.Kind() == jsonpos.Bool && h.Value.Bool())
		}
		if e.flagged(files, func(g *fileState) string { return check + "|" + g.Path + "|" + k }) {
			continue
		}
		f := cause(b, h, files)
		line, headLine := lineOf(b.Setting, h.Setting)
		why := overrideWords(k, b, h) + "; " + rt.Basis
		e.row(f, report.KindSetting, report.DirChanged, "effective "+k+": "+effDisplay(b), "effective "+k+": "+effDisplay(h), true, rt, line, headLine, why)
		if rt.Risk == rating.RiskCritical {
			check = report.CheckWildcardAllow
		}
		e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: max(headLine, 1), Base: !h.Present(),
			Evidence: "effective setting=" + k + " value=" + effDisplay(h), Title: "effective " + k + " " + effDisplay(h),
			Message: fmt.Sprintf("%s: %s.", f.Path, why),
			Key:     check + "|" + f.Path + "|effective|" + k})
	}
}

// effectiveLocks compares the effective value of each lock: a lock the
// scope held at the base and no longer holds is lifted, whichever file
// held it.
func (e *engine) effectiveLocks(scope string, files []*fileState) {
	for _, l := range claude.Locks {
		read := func(d *claude.Doc) claude.Setting { return claude.At(d, l.Path) }
		b, h := effectiveAt(files, false, read), effectiveAt(files, true, read)
		if !l.Holds(b.Setting) || l.Holds(h.Setting) {
			continue
		}
		key := strings.Join(l.Path, ".")
		if e.flagged(files, func(g *fileState) string { return report.CheckAllowExpanded + "|" + g.Path + "|" + key }) {
			continue
		}
		f := cause(b, h, files)
		line, headLine := lineOf(b.Setting, h.Setting)
		rt := rating.Rating{Access: rating.AccessAdmin, Risk: rating.RiskHigh, Basis: "the lock is lifted (while it held, " + l.What + ")"}
		why := overrideWords(key, b, h) + "; " + rt.Basis
		e.row(f, report.KindSetting, report.DirChanged, "effective "+key+": "+effDisplay(b), "effective "+key+": "+effDisplay(h), true, rt, line, headLine, why)
		e.finding(report.Finding{CheckID: report.CheckAllowExpanded, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: max(headLine, 1), Base: !h.Present(),
			Evidence: "effective setting=" + key + " value=" + effDisplay(h), Title: "effective " + key + " lifted",
			Message: fmt.Sprintf("%s: %s.", f.Path, why),
			Key:     report.CheckAllowExpanded + "|" + f.Path + "|effective|" + key})
	}
}

// effectiveSandbox compares the effective value of the sandbox's on/off
// settings (compareSandbox rates each file's own change; the grant of the
// whole Bash tool, enabled with autoAllowBashIfSandboxed, is judged by
// compareSandboxGrant). A local `network.allowLocalBinding: false` over a
// project `true` removed switches the project's value on, though neither
// file's own diff loosens anything.
func (e *engine) effectiveSandbox(files []*fileState) {
	keys := map[string]bool{}
	for k := range sandboxOnLoosens {
		keys[k] = true
	}
	for k := range sandboxOffLoosens {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		read := func(d *claude.Doc) claude.Setting {
			if d == nil {
				return claude.Setting{}
			}
			v := d.Root.Get("sandbox")
			parts := strings.Split(k, ".")
			for i, p := range parts {
				if v == nil || v.Kind() != jsonpos.Object {
					return claude.Setting{}
				}
				m, ok := v.Lookup(p)
				if !ok {
					return claude.Setting{}
				}
				if i == len(parts)-1 {
					return claude.Setting{Value: m.Value, Line: m.KeyStart.Line}
				}
				v = m.Value
			}
			return claude.Setting{}
		}
		b, h := effectiveAt(files, false, read), effectiveAt(files, true, read)
		on := func(x effective) bool {
			if !x.Present() {
				return sandboxDefaultOn[k]
			}
			return claude.Truthy(x.Value)
		}
		loosens := sandboxOnLoosens[k] && on(h) && !on(b) || sandboxOffLoosens[k] && on(b) && !on(h)
		if !loosens || e.flagged(files, func(g *fileState) string { return report.CheckSandboxLoosened + "|" + g.Path + "|" + k }) {
			continue
		}
		f := cause(b, h, files)
		rt := rating.Sandbox(k)
		line, headLine := lineOf(b.Setting, h.Setting)
		why := overrideWords("sandbox."+k, b, h) + "; " + rt.Basis
		e.row(f, report.KindSandbox, report.DirChanged, "effective sandbox."+k+": "+effDisplay(b), "effective sandbox."+k+": "+effDisplay(h), true, rt, line, headLine, why)
		e.finding(report.Finding{CheckID: report.CheckSandboxLoosened, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: max(headLine, 1), Base: !h.Present(),
			Evidence: "effective setting=sandbox." + k + " value=" + effDisplay(h), Title: "effective sandbox." + k + " " + effDisplay(h),
			Message: fmt.Sprintf("%s: %s.", f.Path, why),
			Key:     report.CheckSandboxLoosened + "|" + f.Path + "|effective|" + k})
	}
}
