package main

// A blank before a legacy :* suffix (issue 19): Claude Code 2.1.328 matches
// nothing with Bash(npm :*), as an allow, ask or deny rule (measured:
// internal/conformance TestBlankBeforeLegacyPrefix). Adding the allow
// grants nothing, and is advisory; respelling a deny that way removes
// it. Before, the allow was read two ways and reviewed as a grant.

import (
	"fmt"
	"testing"
)

func TestE2EBlankBeforeLegacyPrefixAppAndCLI(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	settings := func(allow, deny string) map[string]string {
		return map[string]string{".claude/settings.json": "{\"permissions\": {\"allow\": [" + allow + "], \"deny\": [" + deny + "]}}\n"}
	}
	cases := []struct {
		name       string
		base, head map[string]string
		decision   string
		check      string
	}{
		{"an allow Bash(npm :*) is added", settings(`"Bash(git *)"`, ""), settings(`"Bash(git *)", "Bash(npm :*)"`, ""),
			"allow", "SHIP-HOST-BOUNDARY-PERMISSION-RULE-INVALID"},
		{"a deny Bash(npm publish:*) is respelt Bash(npm publish :*)", settings(`"Bash(npm *)"`, `"Bash(npm publish:*)"`), settings(`"Bash(npm *)"`, `"Bash(npm publish :*)"`),
			"require_review", "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"},
	}
	for i, c := range cases {
		name := fmt.Sprintf("blankprefix%d", i)
		t.Run(c.name, func(t *testing.T) {
			env.repo(name, c.base)
			pr := env.openPR(name, "change", c.head)
			run := env.waitCompleted(name, pr.HeadSHA, 1)
			rep := cliReport(t, c.base, c.head)
			if rep.Decision != c.decision {
				t.Errorf("CLI: %s, want %s: %v", rep.Decision, c.decision, findingIDs(rep))
			}
			if want := conclusionOf(c.decision); run.Conclusion != want {
				t.Errorf("App: %s %q, want %s\n%s", run.Conclusion, run.Title, want, run.Summary)
			}
			found := false
			for _, f := range rep.Findings {
				found = found || f.CheckID == c.check
			}
			if !found {
				t.Errorf("CLI: no %s finding: %v", c.check, findingIDs(rep))
			}
		})
	}
}
