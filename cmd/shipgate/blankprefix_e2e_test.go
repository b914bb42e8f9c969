package main

// A blank before a legacy :* suffix (issue 19): Claude Code 2.1.328 matches
// nothing with Bash(npm :*), as an allow, ask or deny rule (measured:
// internal/conformance TestBlankBeforeLegacyPrefix). Adding the allow
// grants nothing, and is advisory; respelling a deny that way removes
// it. Before, the allow was read two ways and reviewed as a grant.

import "testing"

func TestE2EBlankBeforeLegacyPrefixAppAndCLI(t *testing.T) {
	t.Parallel()
	settings := func(allow, deny string) map[string]string {
		return map[string]string{".claude/settings.json": "{\"permissions\": {\"allow\": [" + allow + "], \"deny\": [" + deny + "]}}\n"}
	}
	runQuietCases(t, "blankprefix", []quietCase{
		{name: "an allow Bash(npm :*) is added", base: settings(`"Bash(git *)"`, ""), head: settings(`"Bash(git *)", "Bash(npm :*)"`, ""),
			decision: "allow", check: "PERMISSION-RULE-INVALID"},
		{name: "a deny Bash(npm publish:*) is respelt Bash(npm publish :*)", base: settings(`"Bash(npm *)"`, `"Bash(npm publish:*)"`), head: settings(`"Bash(npm *)"`, `"Bash(npm publish :*)"`),
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
	})
}
