package diff

import (
	"strings"
	"testing"
)

// TestSettingPlaces: each key is read where Claude Code reads it, and a
// lock moved to a place Claude Code does not read is lifted.
func TestSettingPlaces(t *testing.T) {
	cases := []struct {
		name, base, head string
		decision         Decision
		check            string // a check that must fire ("" = none may hold the merge)
	}{
		{"bypass lock moved to the top level", `{"permissions":{"disableBypassPermissionsMode":"disable"}}`, `{"disableBypassPermissionsMode":"disable"}`, DecisionRequireReview, CheckAllowExpanded},
		{"bypass lock moved into permissions", `{"disableBypassPermissionsMode":"disable"}`, `{"permissions":{"disableBypassPermissionsMode":"disable"}}`, DecisionAllow, ""},
		{"auto lock moved between its two places", `{"disableAutoMode":"disable"}`, `{"permissions":{"disableAutoMode":"disable"}}`, DecisionAllow, ""},
		{"auto lock removed from the top level", `{"disableAutoMode":"disable"}`, `{}`, DecisionRequireReview, CheckAllowExpanded},
		{"read block lifted", `{"permissions":{"blockReadsOutsideWorkingDirectories":true}}`, `{"permissions":{"blockReadsOutsideWorkingDirectories":false}}`, DecisionRequireReview, CheckAllowExpanded},
		{"denyInsteadOfPrompting lifted", `{"permissions":{"denyInsteadOfPrompting":true}}`, `{}`, DecisionRequireReview, CheckAllowExpanded},
		{"defaultMode bypass moved out of permissions", `{"permissions":{"defaultMode":"bypassPermissions"}}`, `{"defaultMode":"bypassPermissions"}`, DecisionAllow, ""},
		{"defaultMode bypass moved into permissions", `{"defaultMode":"bypassPermissions"}`, `{"permissions":{"defaultMode":"bypassPermissions"}}`, DecisionBlock, CheckWildcardAllow},
		{"enableAllProjectMcpServers moved to the top level", `{"permissions":{"enableAllProjectMcpServers":true}}`, `{"enableAllProjectMcpServers":true}`, DecisionBlock, CheckWildcardAllow},
		{"disableAllHooks switched on", `{}`, `{"disableAllHooks":true}`, DecisionRequireReview, CheckHookChanged},
		{"disableAllHooks switched off", `{"disableAllHooks":true}`, `{}`, DecisionRequireReview, CheckHookChanged},
		{"disableAllHooks inside permissions is not read", `{}`, `{"permissions":{"disableAllHooks":true}}`, DecisionAllow, CheckUnknownKey},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(Input{Files: []File{{Path: ".claude/settings.json", Base: Version{Exists: true, Data: []byte(c.base)}, Head: Version{Exists: true, Data: []byte(c.head)}}}})
			if r.Decision != c.decision {
				t.Errorf("decision %s, want %s: %+v", r.Decision, c.decision, r.Findings)
			}
			var ids []string
			for _, f := range r.Findings {
				ids = append(ids, f.CheckID)
			}
			if c.check != "" && !strings.Contains(strings.Join(ids, " "), c.check) {
				t.Errorf("no %s among %v", c.check, ids)
			}
		})
	}
}
