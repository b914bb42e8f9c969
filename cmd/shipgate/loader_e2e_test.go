package main

// How Claude Code loads its settings files, end to end (issue 19): a file
// with a byte order mark is read. Each case goes through the App (the
// fake GitHub) and `shipgate diff` (real git), which must agree.

import (
	"testing"
)

func loaderCases() []surfaceCase {
	denials := settingsJSON(nil, []string{"Read(./.env)", "Bash(curl *)"})
	return []surfaceCase{
		{name: "a base with a byte order mark and denials, a head {}",
			base:     map[string]string{".claude/settings.json": "\ufeff" + denials},
			head:     map[string]string{".claude/settings.json": "{}\n"},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "a local file with a byte order mark and denials is deleted",
			base:     map[string]string{".claude/settings.json": "{}\n", ".claude/settings.local.json": "\ufeff" + denials},
			head:     map[string]string{".claude/settings.local.json": ""},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
	}
}

// TestE2ELoaderAppAndCLI runs every loader case through the App and the
// CLI.
func TestE2ELoaderAppAndCLI(t *testing.T) {
	t.Parallel()
	runAppAndCLI(t, newE2E(t), "l", loaderCases())
}
