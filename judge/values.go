package judge

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// compareValues compares every non-rule setting that changes what runs.
func (e *engine) compareValues(f *fileState) {
	e.compareMode(f)
	e.compareSwitches(f)
	e.compareNameLists(f)
	e.compareDirectories(f)
	e.compareHooks(f)
	e.compareEnv(f)
	e.compareHelpers(f)
	e.compareSandbox(f)
	e.comparePlugins(f)
	e.compareAgentKey(f)
	e.compareLocks(f)
	e.misplacedKeys(f)
	e.unresolvedCommands(f)
}

// row appends a settings row.
func (e *engine) row(f *fileState, kind, dir, before, after string, expands bool, rt rating.Rating, line, headLine int, why string) {
	e.changes = append(e.changes, report.Change{Path: f.Path, Kind: kind, Direction: dir, Before: before, After: after, Expands: expands,
		Access: rt.Access, Risk: rt.Risk, Line: line, HeadLine: headLine, Witnesses: []string{}, Why: why})
}

// side renders one side of a setting row: "" when absent.
func side(key string, s claude.Setting) string {
	if !s.Present() {
		return ""
	}
	return key + ": " + claude.Display(s)
}

func direction(b, h claude.Setting) string {
	switch {
	case !b.Present():
		return report.DirAdded
	case !h.Present():
		return report.DirRemoved
	}
	return report.DirChanged
}

// lineOf returns the head line when present, else the base line.
func lineOf(b, h claude.Setting) (line, headLine int) {
	if h.Present() {
		return h.Line, h.Line
	}
	return b.Line, 1
}

// compareMode compares defaultMode: a change to a more permissive mode is
// a grant (rated as the new mode), a change to a stricter one narrows.
func (e *engine) compareMode(f *fileState) {
	b, h := claude.Lookup(f.base, "defaultMode", true), claude.Lookup(f.head, "defaultMode", true)
	ms, changed := e.modeShift(f, b, h)
	if !changed {
		return
	}
	bm, hm, rt, expands, witnesses := ms.base, ms.head, ms.rating, ms.expands, ms.witnesses
	line, headLine := lineOf(b, h)
	why := "the permission mode becomes " + hm + ": " + rt.Basis
	why += ms.witnessWords("the agent")
	if !expands {
		why = "a stricter permission mode: " + rt.Basis
	}
	e.row(f, report.KindMode, direction(b, h), side("defaultMode", b), side("defaultMode", h), expands, rt, line, headLine, why)
	if len(witnesses) > 0 {
		e.changes[len(e.changes)-1].Witnesses = witnesses
	}
	if expands {
		check := report.CheckAllowExpanded
		if rt.Risk == rating.RiskCritical {
			check = report.CheckWildcardAllow
		}
		e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: !h.Present(),
			Evidence: "mode=" + claude.Sanitize(hm), Title: "defaultMode " + hm, Witnesses: witnesses,
			Message: fmt.Sprintf("%s sets defaultMode to %s (was %s): %s%s.", f.Path, claude.Display(h), bm, rt.Basis, ms.witnessWords("the agent")),
			Key:     check + "|" + f.Path + "|defaultMode|" + hm})
	}
}

// anyRead is every Read call, anywhere on the filesystem.
var anyRead = lattice.Parse("Read(//**)")

// modeShift is a change of permission mode, read the same way for a
// settings file's defaultMode and a subagent's permissionMode.
type modeShift struct {
	base, head string
	rating     rating.Rating
	expands    bool
	// witnesses are the calls the new mode may newly run (plan mode: the
	// Bash commands its classifier may approve, then the files it reads).
	witnesses []string
	// reads are the files among witnesses.
	reads []string
}

// modeShift reads a mode change (absent: default). Modes are ranked by
// rating.ModeRank, but plan is not below the others for reads: Claude Code
// 2.1.328 reads any file in it without a prompt (~/.ssh/id_rsa,
// /etc/passwd), measured, while every other mode but bypassPermissions
// asks outside the project. So a switch to plan widens what the agent
// reads unless the rules already allowed every read. changed is false when
// the mode did not change.
func (e *engine) modeShift(f *fileState, b, h claude.Setting) (ms modeShift, changed bool) {
	if b.Present() == h.Present() && (!b.Present() || claude.Canon(b.Value) == claude.Canon(h.Value)) {
		return ms, false
	}
	modeOf := func(s claude.Setting) (string, bool) {
		if !s.Present() {
			return "default", true
		}
		return s.Value.Text(), s.Value.Kind() == jsonpos.String
	}
	bm, _ := modeOf(b)
	hm, hs := modeOf(h)
	br, _ := rating.ModeRank(bm)
	hr, known := rating.ModeRank(hm)
	ms = modeShift{base: bm, head: hm, rating: rating.Mode(hm, hs), expands: !hs || !known || hr > br}
	if hs && hm == "plan" && bm != "plan" {
		// Whatever the base mode (a project's bypassPermissions is
		// ignored, so it too is default), plan mode is never a narrowing:
		// the classifier may run the Bash calls no rule decides.
		ms.expands, ms.rating = true, rating.PlanMode
		none := append(append([]lattice.Rule(nil), e.scopeRules(f.scope, true, lattice.Deny, lattice.Ask)...), e.scopeRules(f.scope, false, lattice.Allow)...)
		none = append(none, implicitFor("Bash")...)
		if calls, ans := lattice.FindNContext(e.ctx, []lattice.Rule{anyBash}, none, maxWitnesses); ans != lattice.No {
			ms.witnesses = callStrings(calls)
		}
		if bm != "bypassPermissions" {
			if calls, ans := lattice.FindNContext(e.ctx, []lattice.Rule{anyRead}, none, maxWitnesses); ans != lattice.No {
				ms.reads = callStrings(calls)
				ms.witnesses = append(ms.witnesses, ms.reads...)
			}
		}
	}
	return ms, true
}

// witnessWords words a mode shift's witnesses for a row's reason: the
// commands the classifier may now run, then the files who can now read.
func (ms modeShift) witnessWords(who string) string {
	runs := ms.witnesses[:len(ms.witnesses)-len(ms.reads)]
	var out string
	if len(runs) > 0 {
		out += "; its auto-mode classifier may now run " + quoteList(runs) + " without a prompt"
	}
	if len(ms.reads) > 0 {
		out += "; " + who + " can now read " + quoteList(ms.reads)
	}
	return out
}

// anyBash is every Bash command.
var anyBash = lattice.Parse("Bash")

// switchKeys are boolean-like settings rated by rating.Switch.
// (The mode locks disableBypassPermissionsMode and disableAutoMode are
// compared by compareLocks, at each place Claude Code reads them.)
var switchKeys = []string{"skipDangerousModePermissionPrompt", "enableAllProjectMcpServers",
	"allowManagedPermissionRulesOnly", "allowManagedHooksOnly", "disableAllHooks"}

// compareSwitches compares the permission switches.
func (e *engine) compareSwitches(f *fileState) {
	for _, k := range switchKeys {
		b, h := claude.Lookup(f.base, k, true), claude.Lookup(f.head, k, true)
		if b.Present() == h.Present() && (!b.Present() || claude.Canon(b.Value) == claude.Canon(h.Value)) {
			continue
		}
		line, headLine := lineOf(b, h)
		var expands bool
		var rt rating.Rating
		check := report.CheckAllowExpanded
		why := ""
		switch k {
		case "skipDangerousModePermissionPrompt", "enableAllProjectMcpServers":
			rt = rating.Switch(k, claude.Truthy(h.Value), h.Value.Kind() == jsonpos.Bool && h.Value.Bool())
			expands = claude.Truthy(h.Value) && !claude.Truthy(b.Value)
			why = rt.Basis
		case "disableBypassPermissionsMode", "disableAutoMode":
			rt = rating.Switch(k, false, false)
			locked := func(s claude.Setting) bool {
				return s.Present() && s.Value.Kind() == jsonpos.String && s.Value.Text() == "disable"
			}
			expands = locked(b) && !locked(h)
			why = "a mode lock"
			if expands {
				why = "the lock is lifted: the mode it disabled can be used again"
			}
		case "disableAllHooks":
			rt = rating.Hook("")
			// Either way round the hooks that run change: switched off, a
			// guard hook (a PreToolUse hook that exits 2) stops nothing
			// (measured on Claude Code 2.1.328); switched on, hooks run again.
			expands = claude.Truthy(b.Value) != claude.Truthy(h.Value)
			check = report.CheckHookChanged
			why = "hooks are switched on or off"
			if expands && claude.Truthy(h.Value) {
				why = "every hook of the project and of the user's own settings (not managed hooks) is switched off, so a guard hook stops nothing" + e.guardHooksNote(f.scope)
			} else if expands {
				why = "hooks of this project run again"
			}
		default:
			rt = rating.Switch(k, false, false)
			why = "a managed-only setting: Claude Code ignores it in a project file"
		}
		e.row(f, report.KindSetting, direction(b, h), side(k, b), side(k, h), expands, rt, line, headLine, why)
		if expands {
			if rt.Risk == rating.RiskCritical {
				check = report.CheckWildcardAllow
			}
			e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: !h.Present(),
				Evidence: "setting=" + k + " value=" + claude.Display(h), Title: k + " " + claude.Display(h),
				Message: fmt.Sprintf("%s %s: %s.", f.Path, switchChange(k, b, h), why),
				Key:     check + "|" + f.Path + "|" + k})
		}
	}
}

// switchChange words a setting's change: "sets k to v (was w)" or
// "removes k (was w)".
func switchChange(k string, b, h claude.Setting) string {
	was := "not set"
	if b.Present() {
		was = claude.Display(b)
	}
	if !h.Present() {
		return fmt.Sprintf("removes %s (was %s)", k, was)
	}
	return fmt.Sprintf("sets %s to %s (was %s)", k, claude.Display(h), was)
}

// missingFrom lists, sorted and sanitized for messages, the strings of a
// that b lacks.
func missingFrom(a, b map[string]int) []string {
	var out []string
	for _, x := range sortedKeys(a) {
		if _, ok := b[x]; !ok {
			out = append(out, claude.Sanitize(x))
		}
	}
	return out
}

// stringSet reads an array of strings with the line of each, noting
// non-string entries under a placeholder name.
func stringSet(v *jsonpos.Value) map[string]int {
	out := map[string]int{}
	for i, x := range v.Elements() {
		name := x.Text()
		if x.Kind() != jsonpos.String {
			name = fmt.Sprintf("<entry %d: %s>", i, x.Kind())
		}
		if _, ok := out[name]; !ok {
			out[name] = x.Start().Line
		}
	}
	return out
}

// compareNameLists compares enabledMcpjsonServers (a new name connects
// without approval) and disabledMcpjsonServers (a removed name does).
func (e *engine) compareNameLists(f *fileState) {
	for _, k := range []string{"enabledMcpjsonServers", "disabledMcpjsonServers"} {
		b, h := claude.Lookup(f.base, k, false), claude.Lookup(f.head, k, false)
		bs, hs := stringSet(b.Value), stringSet(h.Value)
		grant := func(name string, line, headLine int, dir string) {
			rt := rating.MCPServerApproval()
			why := "the .mcp.json server " + name + " connects without asking for approval"
			e.row(f, report.KindMCPApprove, dir, beforeIf(dir, k+": "+name), afterIf(dir, k+": "+name), true, rt, line, headLine, why)
			e.finding(report.Finding{CheckID: report.CheckAllowExpanded, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: dir == report.DirRemoved,
				Evidence: "setting=" + k + " value=" + claude.Sanitize(name), Title: "MCP server " + name + " approved",
				Message: fmt.Sprintf("%s: %s %s %s: %s.", f.Path, map[string]string{report.DirAdded: "adds", report.DirRemoved: "removes"}[dir], name, map[string]string{report.DirAdded: "to", report.DirRemoved: "from"}[dir]+" "+k, why),
				Key:     report.CheckAllowExpanded + "|" + f.Path + "|" + k + "|" + name})
		}
		for _, n := range sortedKeys(hs) {
			if _, ok := bs[n]; ok {
				continue
			}
			if k == "enabledMcpjsonServers" {
				grant(n, hs[n], hs[n], report.DirAdded)
			} else {
				e.row(f, report.KindMCPApprove, report.DirAdded, "", k+": "+n, false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, hs[n], hs[n], "the server is rejected")
			}
		}
		for _, n := range sortedKeys(bs) {
			if _, ok := hs[n]; ok {
				continue
			}
			headLine := max(h.Line, 1)
			if k == "disabledMcpjsonServers" {
				grant(n, bs[n], headLine, report.DirRemoved)
			} else {
				e.row(f, report.KindMCPApprove, report.DirRemoved, k+": "+n, "", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, bs[n], headLine, "the server needs approval again")
			}
		}
	}
}

func beforeIf(dir, s string) string {
	if dir == report.DirRemoved {
		return s
	}
	return ""
}

func afterIf(dir, s string) string {
	if dir == report.DirAdded {
		return s
	}
	return ""
}

// compareDirectories compares additionalDirectories (in permissions and
// at the top level): each new directory is file access beyond the project.
func (e *engine) compareDirectories(f *fileState) {
	collect := func(d *claude.Doc) map[string]int {
		out := map[string]int{}
		for _, s := range []claude.Setting{claude.LookupOnly(d, "permissions", "additionalDirectories"), claude.LookupOnly(d, "", "additionalDirectories")} {
			for k, v := range stringSet(s.Value) {
				out[k] = v
			}
		}
		return out
	}
	bs, hs := collect(f.base), collect(f.head)
	for _, dir := range sortedKeys(hs) {
		if _, ok := bs[dir]; ok {
			continue
		}
		rt := rating.AdditionalDirectory(dir)
		e.row(f, report.KindDirectory, report.DirAdded, "", dir, true, rt, hs[dir], hs[dir], rt.Basis)
		e.finding(report.Finding{CheckID: report.CheckDirectoryAdded, Risk: rt.Risk, Path: f.Path, Line: hs[dir], HeadLine: hs[dir],
			Evidence: "directory=" + claude.Sanitize(dir), Title: "additional directory " + dir,
			Message: fmt.Sprintf("%s adds the additional directory %s: %s.", f.Path, dir, rt.Basis),
			Key:     report.CheckDirectoryAdded + "|" + f.Path + "|" + dir})
	}
	for _, dir := range sortedKeys(bs) {
		if _, ok := hs[dir]; !ok {
			e.row(f, report.KindDirectory, report.DirRemoved, dir, "", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, bs[dir], 1,
				"removes file access to a directory outside the project")
		}
	}
}

// compareEnv compares the env block by name; values are compared but
// never shown.
func (e *engine) compareEnv(f *fileState) {
	get := func(d *claude.Doc) map[string]claude.Setting {
		out := map[string]claude.Setting{}
		if d == nil {
			return out
		}
		for _, m := range d.Root.Get("env").Members() {
			out[m.Key] = claude.Setting{Value: m.Value, Line: m.KeyStart.Line}
		}
		return out
	}
	bs, hs := get(f.base), get(f.head)
	for _, k := range sortedKeys(hs) {
		h := hs[k]
		b, ok := bs[k]
		if ok && claude.Canon(b.Value) == claude.Canon(h.Value) {
			continue
		}
		rt, _ := rating.Env(k)
		dir := report.DirAdded
		if ok {
			dir = report.DirChanged
		}
		why := "sets an environment variable for the session and every subprocess"
		if ok {
			why = "changes an environment variable for the session and every subprocess (values are not shown)"
		}
		if rt.Risk == rating.RiskHigh || rt.Access == rating.AccessNone {
			why += ": " + rt.Basis
		}
		e.row(f, report.KindEnv, dir, envLabel(k, ok), envLabel(k, true), rt.Access != rating.AccessNone, rt, h.Line, h.Line, why)
		var action policy.Action
		if rt.Access == rating.AccessNone {
			// Claude Code's own tuning (rating.ClaudeTuningEnv): said,
			// not put up for review.
			action = policy.Advisory
		}
		e.finding(report.Finding{CheckID: report.CheckEnvChanged, Action: action, Risk: rt.Risk, Path: f.Path, Line: h.Line, HeadLine: h.Line,
			Evidence: "env=" + k, Title: "env " + k,
			Message: fmt.Sprintf("%s %s the environment variable %s: %s.", f.Path, map[string]string{report.DirAdded: "sets", report.DirChanged: "changes"}[dir], k, rt.Basis),
			Key:     report.CheckEnvChanged + "|" + f.Path + "|" + k})
	}
	for _, k := range sortedKeys(bs) {
		if _, ok := hs[k]; !ok {
			e.row(f, report.KindEnv, report.DirRemoved, envLabel(k, true), "", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, bs[k].Line, 1, "no longer sets this environment variable")
		}
	}
}

func envLabel(k string, set bool) string {
	if !set {
		return ""
	}
	return k + "=<value not shown>"
}

// helperSummary names what a helper runs.
func helperSummary(v *jsonpos.Value) string {
	switch v.Kind() {
	case jsonpos.String:
		return claude.CommandSummary(v.Text())
	case jsonpos.Object:
		if c := v.Get("command"); c.Kind() == jsonpos.String {
			return claude.CommandSummary(c.Text())
		}
		return "an object without a command"
	}
	return "a JSON " + v.Kind().String()
}

// compareHelpers compares command helpers: a new or changed command runs
// on every session, in claude -p even before trust.
func (e *engine) compareHelpers(f *fileState) {
	for _, k := range claude.HelperKeys {
		b, h := claude.Lookup(f.base, k, false), claude.Lookup(f.head, k, false)
		if b.Present() == h.Present() && (!b.Present() || claude.Canon(b.Value) == claude.Canon(h.Value)) {
			continue
		}
		rt := rating.Helper(k)
		line, headLine := lineOf(b, h)
		before, after := "", ""
		if b.Present() {
			before = k + ": " + helperSummary(b.Value)
		}
		if h.Present() {
			after = k + ": " + helperSummary(h.Value)
		}
		expands := h.Present() && rt.Risk != rating.RiskLow
		e.row(f, report.KindHelper, direction(b, h), before, after, expands, rt, line, headLine, rt.Basis)
		if expands {
			e.finding(report.Finding{CheckID: report.CheckHelperChanged, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: !h.Present(),
				Evidence: "setting=" + k, Title: k + " changed",
				Message: fmt.Sprintf("%s %s %s to run %s: %s.", f.Path, map[string]string{report.DirAdded: "sets", report.DirChanged: "changes"}[direction(b, h)], k, helperSummary(h.Value), rt.Basis),
				Key:     report.CheckHelperChanged + "|" + f.Path + "|" + k})
		}
	}
}

// flatten turns an object into dotted keys with canonical values.
func flatten(prefix string, v *jsonpos.Value, out map[string]claude.Setting) {
	if v.Kind() != jsonpos.Object {
		if v != nil {
			out[prefix] = claude.Setting{Value: v, Line: v.Start().Line}
		}
		return
	}
	for _, m := range v.Members() {
		key := m.Key
		if prefix != "" {
			key = prefix + "." + m.Key
		}
		if m.Value.Kind() == jsonpos.Object {
			flatten(key, m.Value, out)
			continue
		}
		out[key] = claude.Setting{Value: m.Value, Line: m.KeyStart.Line}
	}
}

// Sandbox keys by how they loosen: arrays that widen when entries are added,
// arrays that widen when entries are removed, switches that widen when
// turned on, and switches that widen when turned off (with their defaults).
var (
	sandboxGrowLists   = map[string]bool{"excludedCommands": true, "network.allowedDomains": true, "network.allowUnixSockets": true, "filesystem.allowWrite": true, "filesystem.allowRead": true, "network.allowMachLookup": true}
	sandboxShrinkLists = map[string]bool{"filesystem.denyWrite": true, "filesystem.denyRead": true, "network.deniedDomains": true}
	sandboxOnLoosens   = map[string]bool{"allowUnsandboxedCommands": true, "enableWeakerNestedSandbox": true, "enableWeakerNetworkIsolation": true, "network.allowAllUnixSockets": true, "network.allowLocalBinding": true, "ignoreViolations": true, "filesystem.disabled": true}
	sandboxOffLoosens  = map[string]bool{"enabled": true, "failIfUnavailable": true, "network.strictAllowlist": true}
	// Switches that are on unless set. autoAllowBashIfSandboxed is not one:
	// its default is false (Claude Code 2.1.328, measured), and whether it
	// grants anything depends on sandbox.enabled in the scope's effective
	// settings, so it is judged there (compareSandboxGrant).
	sandboxDefaultOn = map[string]bool{"allowUnsandboxedCommands": true}
)

// compareSandbox compares sandbox settings key by key and decides which
// changes loosen the OS boundary around Bash.
func (e *engine) compareSandbox(f *fileState) {
	bs, hs := map[string]claude.Setting{}, map[string]claude.Setting{}
	if f.base != nil {
		flatten("", f.base.Root.Get("sandbox"), bs)
	}
	if f.head != nil {
		flatten("", f.head.Root.Get("sandbox"), hs)
	}
	keys := map[string]bool{}
	for k := range bs {
		keys[k] = true
	}
	for k := range hs {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		b, h := bs[k], hs[k]
		if b.Present() && h.Present() && claude.Canon(b.Value) == claude.Canon(h.Value) {
			continue
		}
		on := func(s claude.Setting) bool {
			if !s.Present() {
				return sandboxDefaultOn[k]
			}
			return claude.Truthy(s.Value)
		}
		var loosens bool
		what := ""
		switch {
		case sandboxGrowLists[k]:
			added := missingFrom(stringSet(h.Value), stringSet(b.Value))
			loosens = len(added) > 0
			what = "adds " + strings.Join(added, ", ")
		case sandboxShrinkLists[k]:
			removed := missingFrom(stringSet(b.Value), stringSet(h.Value))
			loosens = len(removed) > 0
			what = "removes " + strings.Join(removed, ", ")
		case sandboxOnLoosens[k]:
			loosens = on(h) && !on(b)
			what = "turns it on"
		case sandboxOffLoosens[k]:
			loosens = on(b) && !on(h)
			what = "turns it off"
		case k == "autoAllowBashIfSandboxed":
			// The grant of the whole Bash tool it is half of is judged on
			// the scope's effective settings (compareSandboxGrant).
			loosens = false
			what = "changes the auto-allow half of the sandbox grant"
		default:
			loosens = h.Present()
			what = "changes a sandbox setting whose direction Shipgate does not model"
		}
		rt := rating.Sandbox(k)
		line, headLine := lineOf(b, h)
		why := "tightens or keeps the sandbox"
		if loosens {
			why = rt.Basis + ": sandbox." + k + " " + what
		}
		e.row(f, report.KindSandbox, direction(b, h), side("sandbox."+k, b), side("sandbox."+k, h), loosens, rt, line, headLine, why)
		if loosens {
			e.finding(report.Finding{CheckID: report.CheckSandboxLoosened, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: !h.Present(),
				Evidence: "setting=sandbox." + k, Title: "sandbox." + k,
				Message: fmt.Sprintf("%s: sandbox.%s %s (was %s, now %s): %s.", f.Path, k, what, claude.Display(b), claude.Display(h), rt.Basis),
				Key:     report.CheckSandboxLoosened + "|" + f.Path + "|" + k})
		}
	}
	e.compareSandboxGrant(f)
}

// comparePlugins compares enabledPlugins and extraKnownMarketplaces.
func (e *engine) comparePlugins(f *fileState) {
	for _, key := range []string{"enabledPlugins", "extraKnownMarketplaces"} {
		get := func(d *claude.Doc) map[string]claude.Setting {
			out := map[string]claude.Setting{}
			if d == nil {
				return out
			}
			for _, m := range d.Root.Get(key).Members() {
				out[m.Key] = claude.Setting{Value: m.Value, Line: m.KeyStart.Line}
			}
			return out
		}
		bs, hs := get(f.base), get(f.head)
		rt := rating.Plugin()
		for _, name := range sortedKeys(hs) {
			h := hs[name]
			b, ok := bs[name]
			if ok && claude.Canon(b.Value) == claude.Canon(h.Value) {
				continue
			}
			enables := key == "extraKnownMarketplaces" || claude.Truthy(h.Value)
			if key == "enabledPlugins" && ok && claude.Truthy(b.Value) && claude.Truthy(h.Value) {
				enables = true // re-pointed
			}
			dir := report.DirAdded
			if ok {
				dir = report.DirChanged
			}
			before := ""
			if ok {
				before = key + ": " + name + " = " + claude.Display(b)
			}
			basis := rt.Basis
			if key == "extraKnownMarketplaces" {
				basis = "a plugin marketplace: plugins from it can be enabled, and they bring hooks, MCP servers and agents"
			}
			e.row(f, report.KindPlugin, dir, before, key+": "+name+" = "+claude.Display(h), enables, rt, h.Line, h.Line, basis)
			if enables {
				e.finding(report.Finding{CheckID: report.CheckPluginAdded, Risk: rt.Risk, Path: f.Path, Line: h.Line, HeadLine: h.Line,
					Evidence: key + "=" + claude.Sanitize(name), Title: key + " " + name,
					Message: fmt.Sprintf("%s %s %s %s: %s.", f.Path, map[string]string{report.DirAdded: "adds", report.DirChanged: "changes"}[dir], key, name, basis),
					Key:     report.CheckPluginAdded + "|" + f.Path + "|" + key + "|" + name})
			}
		}
		for _, name := range sortedKeys(bs) {
			if _, ok := hs[name]; !ok {
				e.row(f, report.KindPlugin, report.DirRemoved, key+": "+name, "", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, bs[name].Line, 1, "removes a plugin or marketplace")
			}
		}
	}
}
