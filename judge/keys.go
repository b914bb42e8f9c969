package judge

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// compareLocks reports each lock the base held at its path and the head no
// longer holds there. A lock that only moved (permissions.disableBypassPermissionsMode
// to the top level, where Claude Code does not read it) is lifted.
func (e *engine) compareLocks(f *fileState) {
	for _, l := range claude.Locks {
		key := strings.Join(l.Path, ".")
		b, h := claude.At(f.base, l.Path), claude.At(f.head, l.Path)
		if b.Present() == h.Present() && (!b.Present() || claude.Canon(b.Value) == claude.Canon(h.Value)) {
			continue
		}
		line, headLine := lineOf(b, h)
		if !l.Holds(b) || l.Holds(h) || claude.HeldElsewhere(f.head, l) || e.heldInScope(f, l) {
			e.row(f, report.KindSetting, direction(b, h), side(key, b), side(key, h), false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, line, headLine, "a lock: "+l.What)
			continue
		}
		rt := rating.Rating{Access: rating.AccessAdmin, Risk: rating.RiskHigh, Basis: "the lock is lifted (while it held, " + l.What + ")"}
		why := rt.Basis
		if moved := e.movedTo(f.head, l); moved != "" {
			why += "; the head writes it at " + moved + ", where Claude Code does not read it"
			headLine = max(headLine, 1)
		}
		e.row(f, report.KindSetting, direction(b, h), side(key, b), side(key, h), true, rt, line, headLine, why)
		e.finding(report.Finding{CheckID: report.CheckAllowExpanded, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: !h.Present(),
			Evidence: "setting=" + key + " value=" + claude.Display(h), Title: key + " lifted",
			Message: fmt.Sprintf("%s %s: %s.", f.Path, switchChange(key, b, h), why),
			Key:     report.CheckAllowExpanded + "|" + f.Path + "|" + key})
	}
}

// movedTo names another place of the document that holds the lock's
// value under the lock's last key (where Claude Code does not read it).
func (e *engine) movedTo(d *claude.Doc, l claude.Lock) string {
	if d == nil {
		return ""
	}
	name := l.Path[len(l.Path)-1]
	cands := [][]string{{name}, {"permissions", name}}
	for _, c := range cands {
		if strings.Join(c, ".") == strings.Join(l.Path, ".") || claude.SettingReadAt(c) {
			continue
		}
		if l.Holds(claude.At(d, c)) {
			return strings.Join(c, ".")
		}
	}
	return ""
}

// misplacedKeys notes, as an advisory, a security key written where Claude
// Code does not read it (new at the head): the reader believes it applies.
func (e *engine) misplacedKeys(f *fileState) {
	if f.head == nil {
		return
	}
	check := func(p []string, where string) {
		h := claude.At(f.head, p)
		if !h.Present() || claude.At(f.base, p).Present() {
			return
		}
		key := strings.Join(p, ".")
		e.finding(report.Finding{CheckID: report.CheckUnknownKey, Path: f.Path, Line: h.Line, HeadLine: h.Line, Evidence: key,
			Title:   key + " is not read there",
			Message: fmt.Sprintf("%s: Claude Code does not read %s %s, so it has no effect there; write it %s.", f.Path, p[len(p)-1], placeWords(len(p) == 1), where),
			Key:     report.CheckUnknownKey + "|" + f.Path + "|misplaced|" + key})
	}
	for name, pl := range claude.SettingPlaces {
		if pl == claude.PlacePermissions && name != "additionalDirectories" {
			check([]string{name}, "inside \"permissions\"")
		}
	}
	for _, name := range []string{"disableAllHooks", "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "hooks", "env", "sandbox", "agent", "enabledPlugins", "extraKnownMarketplaces", "statusLine", "apiKeyHelper"} {
		check([]string{"permissions", name}, "at the top level")
	}
}

func placeWords(top bool) string {
	if top {
		return "at the top level"
	}
	return "inside \"permissions\""
}

// guardHooksNote names, for disableAllHooks switched on, the hooks of the
// project's settings at the head it switches off.
func (e *engine) guardHooksNote(scope string) string {
	n := 0
	events := map[string]bool{}
	for _, g := range e.scopes[scope] {
		if g.kind != report.SettingsFile || g.head == nil {
			continue
		}
		for ev, hs := range claude.HookHandlers(g.head) {
			n += len(hs)
			events[ev] = true
		}
	}
	if n == 0 {
		return " (no hook of this project's settings is affected; the user's own hooks are)"
	}
	return fmt.Sprintf(" (%s of this project: %s)", report.Plural(n, "hook handler"), strings.Join(sortedKeys(events), ", "))
}

// heldInScope reports whether another settings file of the scope that
// Claude Code surely reads holds the lock at the head, and none of higher
// precedence overrides it there: the merged settings still hold it, so
// removing it from this file lifts nothing (effective.go).
func (e *engine) heldInScope(f *fileState, l claude.Lock) bool {
	if !surelyRead(f, f.scope) {
		return false
	}
	files := e.effectiveFiles(f.scope)
	return l.Holds(effectiveAt(files, true, func(d *claude.Doc) claude.Setting { return claude.At(d, l.Path) }).Setting)
}
