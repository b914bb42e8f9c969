package main

// The sandbox's grant of the whole Bash tool, end to end (issue 19 §4):
// with sandbox.enabled and sandbox.autoAllowBashIfSandboxed both in effect,
// Claude Code 2.1.328 runs every Bash command no deny or ask rule stops
// without a prompt inside the sandbox (measured; the default of
// autoAllowBashIfSandboxed is false). Switching the grant on is rated by
// the walls: an open network blocks. Each case goes through the App (the
// fake GitHub) and `shipgate diff` (real git), which must agree.

import (
	"testing"
)

func sandboxCases() []surfaceCase {
	const (
		enabled = "{\"sandbox\": {\"enabled\": true}}\n"
		grant   = "{\"sandbox\": {\"enabled\": true, \"autoAllowBashIfSandboxed\": true}}\n"
		off     = "{\"sandbox\": {\"autoAllowBashIfSandboxed\": false}}\n"
	)
	return []surfaceCase{
		{name: "auto-allow added beside an enabled sandbox (its default is false)",
			base:     map[string]string{".claude/settings.json": enabled},
			head:     map[string]string{".claude/settings.json": grant},
			decision: "require_review", check: "SANDBOX-LOOSENED"},
		{name: "both halves added at once",
			base:     map[string]string{".claude/settings.json": "{}\n"},
			head:     map[string]string{".claude/settings.json": grant},
			decision: "require_review", check: "SANDBOX-LOOSENED"},
		{name: "the grant with an open network blocks",
			base:     map[string]string{".claude/settings.json": enabled},
			head:     map[string]string{".claude/settings.json": "{\"sandbox\": {\"enabled\": true, \"autoAllowBashIfSandboxed\": true, \"network\": {\"allowedDomains\": [\"*\"]}}}\n"},
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "the auto-allow half in the local file over a project's enabled sandbox",
			base:     map[string]string{".claude/settings.json": enabled},
			head:     map[string]string{".claude/settings.local.json": "{\"sandbox\": {\"autoAllowBashIfSandboxed\": true}}\n"},
			decision: "require_review", check: "SANDBOX-LOOSENED"},
		{name: "the local override that kept auto-allow off is deleted",
			base:     map[string]string{".claude/settings.json": grant, ".claude/settings.local.json": off},
			head:     map[string]string{".claude/settings.local.json": ""},
			decision: "require_review", check: "SANDBOX-LOOSENED"},
		// The sandbox's other switches are compared by their effective
		// value too: settings.local.json over settings.json.
		{name: "the local override that kept allowLocalBinding off is deleted",
			base:     map[string]string{".claude/settings.json": "{\"sandbox\": {\"network\": {\"allowLocalBinding\": true}}}\n", ".claude/settings.local.json": "{\"sandbox\": {\"network\": {\"allowLocalBinding\": false}}}\n"},
			head:     map[string]string{".claude/settings.local.json": ""},
			decision: "require_review", check: "SANDBOX-LOOSENED"},
		{name: "enabling the sandbox alone grants nothing",
			base:     map[string]string{".claude/settings.json": "{}\n"},
			head:     map[string]string{".claude/settings.json": enabled},
			decision: "allow"},
		{name: "auto-allow without an enabled sandbox grants nothing",
			base:     map[string]string{".claude/settings.json": "{}\n"},
			head:     map[string]string{".claude/settings.json": "{\"sandbox\": {\"autoAllowBashIfSandboxed\": true}}\n"},
			decision: "allow"},
	}
}

// TestE2ESandboxAppAndCLI runs every sandbox case through the App and the
// CLI.
func TestE2ESandboxAppAndCLI(t *testing.T) {
	t.Parallel()
	runAppAndCLI(t, newE2E(t), "sb", sandboxCases())
}
