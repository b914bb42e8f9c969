package diff

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// Where Claude Code reads a settings key. Keys Claude Code reads only
// inside `permissions` (defaultMode, disableBypassPermissionsMode), keys it
// reads in both places (disableAutoMode), and every other key at the top
// level only — from the settings reference
// (code.claude.com/docs/en/settings-reference, "permissions" table) and
// checked against Claude Code 2.1.328, whose list of restrictive settings
// names ["permissions","disableBypassPermissionsMode"],
// ["disableAutoMode"] and ["permissions","disableAutoMode"], and which reads
// the starting mode from permissions.defaultMode only.
type place int

const (
	placeTop place = iota
	placePermissions
	placeBoth
)

// settingPlaces lists the keys not read at the top level only.
var settingPlaces = map[string]place{
	"defaultMode":                          placePermissions,
	"disableBypassPermissionsMode":         placePermissions,
	"disableAutoMode":                      placeBoth,
	"additionalDirectories":                placeBoth,
	"blockReadsOutsideWorkingDirectories":  placePermissions,
	"blockWritesOutsideWorkingDirectories": placePermissions,
	"denyInsteadOfPrompting":               placePermissions,
}

// settingPlace says where Claude Code reads a key.
func settingPlace(key string) place { return settingPlaces[key] }

// lock is a setting that forbids something while it holds its restrictive
// value at its path; lifting it (removing it, moving it where Claude Code
// does not read it, another value) lets the forbidden thing happen again.
type lock struct {
	path  []string
	value string // "disable", or "true" for JSON true
	what  string
}

// locks are the restrictive settings Claude Code 2.1.328 honours from a
// project file (its list of restrictive settings, less the managed-only
// ones and those user or managed settings alone may set).
var locks = []lock{
	{[]string{"permissions", "disableBypassPermissionsMode"}, "disable", "bypassPermissions mode (--dangerously-skip-permissions, a subagent's permissionMode: bypassPermissions) is refused"},
	{[]string{"permissions", "disableAutoMode"}, "disable", "auto mode is removed"},
	{[]string{"disableAutoMode"}, "disable", "auto mode is removed"},
	{[]string{"permissions", "blockReadsOutsideWorkingDirectories"}, "true", "reads outside the working directories are refused"},
	{[]string{"permissions", "blockWritesOutsideWorkingDirectories"}, "true", "writes outside the working directories are refused"},
	{[]string{"permissions", "denyInsteadOfPrompting"}, "true", "what would prompt is denied instead"},
	{[]string{"disableSkillShellExecution"}, "true", "skills cannot run shell commands inline"},
}

// at reads a value by path.
func at(d *doc, p []string) setting {
	if d == nil {
		return setting{}
	}
	v := d.root
	var line int
	for _, k := range p {
		m, ok := v.Lookup(k)
		if !ok {
			return setting{}
		}
		v, line = m.Value, m.KeyStart.Line
	}
	return setting{v, line}
}

func (l lock) holds(s setting) bool {
	if !s.present() {
		return false
	}
	if l.value == "true" {
		return s.v.Kind() == jsonpos.Bool && s.v.Bool()
	}
	return s.v.Kind() == jsonpos.String && s.v.Text() == l.value
}

// compareLocks reports each lock the base held at its path and the head no
// longer holds there. A lock that only moved (permissions.disableBypassPermissionsMode
// to the top level, where Claude Code does not read it) is lifted.
func (e *engine) compareLocks(f *fileState) {
	for _, l := range locks {
		key := strings.Join(l.path, ".")
		b, h := at(f.base, l.path), at(f.head, l.path)
		if b.present() == h.present() && (!b.present() || canon(b.v) == canon(h.v)) {
			continue
		}
		line, headLine := lineOf(b, h)
		if !l.holds(b) || l.holds(h) || heldElsewhere(f.head, l) || e.heldInScope(f, l) {
			e.row(f, report.KindSetting, direction(b, h), side(key, b), side(key, h), false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, line, headLine, "a lock: "+l.what)
			continue
		}
		rt := rating.Rating{Access: rating.AccessAdmin, Risk: rating.RiskHigh, Basis: "the lock is lifted (while it held, " + l.what + ")"}
		why := rt.Basis
		if moved := e.movedTo(f.head, l); moved != "" {
			why += "; the head writes it at " + moved + ", where Claude Code does not read it"
			headLine = max(headLine, 1)
		}
		e.row(f, report.KindSetting, direction(b, h), side(key, b), side(key, h), true, rt, line, headLine, why)
		e.finding(report.Finding{CheckID: report.CheckAllowExpanded, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine, Base: !h.present(),
			Evidence: "setting=" + key + " value=" + display(h), Title: key + " lifted",
			Message: fmt.Sprintf("%s %s: %s.", f.Path, switchChange(key, b, h), why),
			Key:     report.CheckAllowExpanded + "|" + f.Path + "|" + key})
	}
}

// heldElsewhere reports whether the document holds the same lock at
// another path Claude Code reads it at (disableAutoMode, read inside
// permissions and at the top level).
func heldElsewhere(d *doc, l lock) bool {
	name := l.path[len(l.path)-1]
	for _, o := range locks {
		if o.path[len(o.path)-1] == name && strings.Join(o.path, ".") != strings.Join(l.path, ".") && o.holds(at(d, o.path)) {
			return true
		}
	}
	return false
}

// movedTo names another place of the document that holds the lock's
// value under the lock's last key (where Claude Code does not read it).
func (e *engine) movedTo(d *doc, l lock) string {
	if d == nil {
		return ""
	}
	name := l.path[len(l.path)-1]
	cands := [][]string{{name}, {"permissions", name}}
	for _, c := range cands {
		if strings.Join(c, ".") == strings.Join(l.path, ".") || settingReadAt(c) {
			continue
		}
		if l.holds(at(d, c)) {
			return strings.Join(c, ".")
		}
	}
	return ""
}

// settingReadAt reports whether Claude Code reads a key at this path.
func settingReadAt(p []string) bool {
	name := p[len(p)-1]
	pl := settingPlace(name)
	switch len(p) {
	case 1:
		return pl != placePermissions
	case 2:
		return p[0] == "permissions" && (pl == placePermissions || pl == placeBoth || isKnownKey("permissions", name))
	}
	return false
}

// misplacedKeys notes, as an advisory, a security key written where Claude
// Code does not read it (new at the head): the reader believes it applies.
func (e *engine) misplacedKeys(f *fileState) {
	if f.head == nil {
		return
	}
	check := func(p []string, where string) {
		h := at(f.head, p)
		if !h.present() || at(f.base, p).present() {
			return
		}
		key := strings.Join(p, ".")
		e.finding(report.Finding{CheckID: report.CheckUnknownKey, Path: f.Path, Line: h.line, HeadLine: h.line, Evidence: key,
			Title:   key + " is not read there",
			Message: fmt.Sprintf("%s: Claude Code does not read %s %s, so it has no effect there; write it %s.", f.Path, p[len(p)-1], placeWords(len(p) == 1), where),
			Key:     report.CheckUnknownKey + "|" + f.Path + "|misplaced|" + key})
	}
	for name, pl := range settingPlaces {
		if pl == placePermissions && name != "additionalDirectories" {
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
		for ev, hs := range hookHandlers(g.head) {
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
func (e *engine) heldInScope(f *fileState, l lock) bool {
	if !surelyRead(f, f.scope) {
		return false
	}
	files := e.effectiveFiles(f.scope)
	return l.holds(effectiveAt(files, true, func(d *doc) setting { return at(d, l.path) }).setting)
}
