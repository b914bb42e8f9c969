package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/report"
)

// TestSettingPlaces: each key is read where Claude Code reads it, and a
// lock moved to a place Claude Code does not read is lifted.
func TestSettingPlaces(t *testing.T) {
	cases := []struct {
		name, base, head string
		decision         report.Decision
		check            string // a check that must fire ("" = none may hold the merge)
	}{
		{"bypass lock moved to the top level", `{"permissions":{"disableBypassPermissionsMode":"disable"}}`, `{"disableBypassPermissionsMode":"disable"}`, report.DecisionRequireReview, report.CheckAllowExpanded},
		{"bypass lock moved into permissions", `{"disableBypassPermissionsMode":"disable"}`, `{"permissions":{"disableBypassPermissionsMode":"disable"}}`, report.DecisionAllow, ""},
		{"auto lock moved between its two places", `{"disableAutoMode":"disable"}`, `{"permissions":{"disableAutoMode":"disable"}}`, report.DecisionAllow, ""},
		{"auto lock removed from the top level", `{"disableAutoMode":"disable"}`, `{}`, report.DecisionRequireReview, report.CheckAllowExpanded},
		{"read block lifted", `{"permissions":{"blockReadsOutsideWorkingDirectories":true}}`, `{"permissions":{"blockReadsOutsideWorkingDirectories":false}}`, report.DecisionRequireReview, report.CheckAllowExpanded},
		{"denyInsteadOfPrompting lifted", `{"permissions":{"denyInsteadOfPrompting":true}}`, `{}`, report.DecisionRequireReview, report.CheckAllowExpanded},
		{"defaultMode bypass moved out of permissions", `{"permissions":{"defaultMode":"bypassPermissions"}}`, `{"defaultMode":"bypassPermissions"}`, report.DecisionAllow, ""},
		{"defaultMode bypass moved into permissions", `{"defaultMode":"bypassPermissions"}`, `{"permissions":{"defaultMode":"bypassPermissions"}}`, report.DecisionBlock, report.CheckWildcardAllow},
		{"enableAllProjectMcpServers moved to the top level", `{"permissions":{"enableAllProjectMcpServers":true}}`, `{"enableAllProjectMcpServers":true}`, report.DecisionBlock, report.CheckWildcardAllow},
		{"disableAllHooks switched on", `{}`, `{"disableAllHooks":true}`, report.DecisionRequireReview, report.CheckHookChanged},
		{"disableAllHooks switched off", `{"disableAllHooks":true}`, `{}`, report.DecisionRequireReview, report.CheckHookChanged},
		{"disableAllHooks inside permissions is not read", `{}`, `{"permissions":{"disableAllHooks":true}}`, report.DecisionAllow, report.CheckUnknownKey},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(report.Input{Files: []report.File{{Path: ".claude/settings.json", Base: report.Version{Exists: true, Data: []byte(c.base)}, Head: report.Version{Exists: true, Data: []byte(c.head)}}}})
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

// TestKnownKeysFromSchema: the keys Claude Code 2.1.328 defines (its
// settings schema, read from the binary) are not "unknown keys Claude Code
// ignores"; a key it does not define still is, with a suggestion.
func TestKnownKeysFromSchema(t *testing.T) {
	for _, k := range []string{"effortLevel", "skipAutoPermissionPrompt", "teammateMode", "tui", "advisorModel", "minimumVersion", "skillOverrides", "includeGitInstructions", "prefersReducedMotion", "spinnerTipsOverride", "voiceEnabled"} {
		if !claudeschema.Pinned().Has(k) {
			t.Errorf("the pinned schema lacks %s", k)
			continue
		}
		r := Compare(settingsPair("{}", fmt.Sprintf("{%q: %s}", k, sampleFor(t, k))))
		for _, f := range r.Findings {
			if f.CheckID == report.CheckUnknownKey {
				t.Errorf("%s: %s", k, f.Message)
			}
		}
	}
	r := Compare(settingsPair("{}", `{"effortLevle": "high", "permissions": {"denyy": []}}`))
	var msgs []string
	for _, f := range r.Findings {
		if f.CheckID == report.CheckUnknownKey {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) != 2 || !strings.Contains(strings.Join(msgs, " "), `did you mean "effortLevel"?`) || !strings.Contains(strings.Join(msgs, " "), `did you mean "deny"?`) {
		t.Errorf("misspelt keys: %v", msgs)
	}
}

// sampleFor is a value of the key's type that the schema accepts.
func sampleFor(t *testing.T, key string) string {
	t.Helper()
	for _, v := range []string{`"high"`, `true`, `"auto"`, `"default"`, `{}`, `"1.0.0"`, `"x"`, `5`, `[]`} {
		doc, _, err := jsonpos.Parse([]byte(fmt.Sprintf("{%q: %s}", key, v)))
		if err == nil && claudeschema.Pinned().Validate(doc) == nil {
			return v
		}
	}
	t.Fatalf("no sample value for %s", key)
	return ""
}
