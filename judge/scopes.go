package judge

import (
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// Which settings files Claude Code reads for a project, and so which rules
// Shipgate lets shadow, cover or stop one another (the pool of a scope):
//
//   - `<dir>/.claude/settings.json` is read when Claude Code starts in
//     <dir>, and only then: there is no parent-directory fallback
//     (code.claude.com/docs/en/settings, "Settings files").
//   - `.claude/settings.local.json` is read at the git repository root
//     even when Claude Code starts in a subdirectory or a worktree (since
//     2.1.211, docs/en/settings; changelog 2.1.211), except outside git,
//     when the repository root is the home directory, on Windows, or when
//     the owner differs — where the starting folder's local file is read.
//
// So for the repository root both files surely apply. For a nested project
// <dir> only <dir>/.claude/settings.json surely applies: which local file
// Claude Code reads (the root's or <dir>'s) depends on the machine. A rule
// that may not apply must not be trusted to shadow, stop or already cover
// anything, so the pool of a nested project holds its settings.json only;
// every local file is still compared on its own rows (its grants may
// apply).

// surelyRead reports whether a settings file of the given scope is surely
// read by Claude Code started in that scope.
func surelyRead(f *fileState, scope string) bool {
	if f.kind != report.SettingsFile {
		return false
	}
	if strings.HasPrefix(scope, "watched:") || scope == "" {
		return true
	}
	return path.Base(f.Path) != "settings.local.json"
}

// poolRules gathers the rules of one pool: the rules of the given lists of
// the settings files surely read in the scope (see above), on one side. A
// skill's or command's pool (skillPoolPrefix) is its project's deny rules
// only. A file that does not parse contributes nothing (Claude Code drops
// it whole). On a side whose mode is plan the allow rules Claude Code sets
// aside there (lattice.PlanStripped: Bash(*), Bash(python *), Agent, …)
// are not in the pool: the calls they match go to the auto-mode
// classifier (measured on 2.1.328).
func (e *engine) poolRules(scope string, head bool, ls []lattice.List) []lattice.Rule {
	if s, ok := strings.CutPrefix(scope, skillPoolPrefix); ok {
		var keep []lattice.List
		for _, l := range ls {
			if l != lattice.Ask {
				keep = append(keep, l)
			}
		}
		scope, ls = s, keep
	}
	var out []lattice.Rule
	plan := e.sideMode(scope, head) == "plan"
	for _, f := range e.scopes[scope] {
		if !surelyRead(f, scope) {
			continue
		}
		d := f.base
		if head {
			d = f.head
		}
		if d == nil {
			continue
		}
		for _, r := range d.Rules {
			for _, l := range ls {
				if r.Rule.List == l && !(plan && lattice.PlanStripped(r.Rule)) {
					out = append(out, r.Rule)
				}
			}
		}
	}
	return out
}

// sideMode is the permission mode of a project on one side: the head's
// (with the user's own mode where the project sets none, for the
// effective view) or the base's.
func (e *engine) sideMode(scope string, head bool) string {
	if !head {
		return e.baseMode(scope)
	}
	mode := e.headMode(scope)
	if mode == "default" && e.userMode != "" {
		mode = e.userMode
	}
	return mode
}
