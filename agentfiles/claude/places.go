package claude

import (
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
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
	PlacePermissions
	placeBoth
)

// SettingPlaces lists the keys not read at the top level only.
var SettingPlaces = map[string]place{
	"defaultMode":                          PlacePermissions,
	"disableBypassPermissionsMode":         PlacePermissions,
	"disableAutoMode":                      placeBoth,
	"additionalDirectories":                placeBoth,
	"blockReadsOutsideWorkingDirectories":  PlacePermissions,
	"blockWritesOutsideWorkingDirectories": PlacePermissions,
	"denyInsteadOfPrompting":               PlacePermissions,
}

// settingPlace says where Claude Code reads a key.
func settingPlace(key string) place { return SettingPlaces[key] }

// Lock is a setting that forbids something while it holds its restrictive
// value at its path; lifting it (removing it, moving it where Claude Code
// does not read it, another value) lets the forbidden thing happen again.
type Lock struct {
	Path  []string
	value string // "disable", or "true" for JSON true
	What  string
}

// Locks are the restrictive settings Claude Code 2.1.328 honours from a
// project file (its list of restrictive settings, less the managed-only
// ones and those user or managed settings alone may set).
var Locks = []Lock{
	{[]string{"permissions", "disableBypassPermissionsMode"}, "disable", "bypassPermissions mode (--dangerously-skip-permissions, a subagent's permissionMode: bypassPermissions) is refused"},
	{[]string{"permissions", "disableAutoMode"}, "disable", "auto mode is removed"},
	{[]string{"disableAutoMode"}, "disable", "auto mode is removed"},
	{[]string{"permissions", "blockReadsOutsideWorkingDirectories"}, "true", "reads outside the working directories are refused"},
	{[]string{"permissions", "blockWritesOutsideWorkingDirectories"}, "true", "writes outside the working directories are refused"},
	{[]string{"permissions", "denyInsteadOfPrompting"}, "true", "what would prompt is denied instead"},
	{[]string{"disableSkillShellExecution"}, "true", "skills cannot run shell commands inline"},
}

// At reads a value by path.
func At(d *Doc, p []string) Setting {
	if d == nil {
		return Setting{}
	}
	v := d.Root
	var line int
	for _, k := range p {
		m, ok := v.Lookup(k)
		if !ok {
			return Setting{}
		}
		v, line = m.Value, m.KeyStart.Line
	}
	return Setting{Value: v, Line: line}
}

func (l Lock) Holds(s Setting) bool {
	if !s.Present() {
		return false
	}
	if l.value == "true" {
		return s.Value.Kind() == jsonpos.Bool && s.Value.Bool()
	}
	return s.Value.Kind() == jsonpos.String && s.Value.Text() == l.value
}

// HeldElsewhere reports whether the document holds the same lock at
// another path Claude Code reads it at (disableAutoMode, read inside
// permissions and at the top level).
func HeldElsewhere(d *Doc, l Lock) bool {
	name := l.Path[len(l.Path)-1]
	for _, o := range Locks {
		if o.Path[len(o.Path)-1] == name && strings.Join(o.Path, ".") != strings.Join(l.Path, ".") && o.Holds(At(d, o.Path)) {
			return true
		}
	}
	return false
}

// SettingReadAt reports whether Claude Code reads a key at this path.
func SettingReadAt(p []string) bool {
	name := p[len(p)-1]
	pl := settingPlace(name)
	switch len(p) {
	case 1:
		return pl != PlacePermissions
	case 2:
		return p[0] == "permissions" && (pl == PlacePermissions || pl == placeBoth || isKnownKey("permissions", name))
	}
	return false
}
