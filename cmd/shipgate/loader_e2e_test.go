package main

// How Claude Code loads its settings files, end to end (issue 19): a file
// with a byte order mark is read. Each case goes through the App (the
// fake GitHub) and `shipgate diff` (real git), which must agree; and a
// file with one value its settings schema refuses is ignored whole.

import (
	"fmt"
	"strings"
	"testing"
)

func loaderCases() []surfaceCase {
	denials := settingsJSON(nil, []string{"Read(./.env)", "Bash(curl *)"})
	mode := func(m string) string { return "{\"permissions\": {\"defaultMode\": \"" + m + "\"}}\n" }
	return []surfaceCase{
		{name: "a base with a byte order mark and denials, a head {}",
			base:     map[string]string{".claude/settings.json": "\ufeff" + denials},
			head:     map[string]string{".claude/settings.json": "{}\n"},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "a local file with a byte order mark and denials is deleted",
			base:     map[string]string{".claude/settings.json": "{}\n", ".claude/settings.local.json": "\ufeff" + denials},
			head:     map[string]string{".claude/settings.local.json": ""},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		// Claude Code ignores a whole file whose value fails its schema.
		{name: "a head that sets model to 5 drops the file's denials",
			base:     map[string]string{".claude/settings.json": denials},
			head:     map[string]string{".claude/settings.json": settingsJSON(nil, []string{"Read(./.env)", "Bash(curl *)"}, ",\n  \"model\": 5\n")},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "a local file whose ask list becomes an object",
			base:     map[string]string{".claude/settings.json": "{}\n", ".claude/settings.local.json": denials},
			head:     map[string]string{".claude/settings.local.json": "{\"permissions\": {\"deny\": [\"Read(./.env)\", \"Bash(curl *)\"], \"ask\": {\"Bash(git push *)\": true}}}\n"},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "fixing cleanupPeriodDays \"30\" to 30 switches on a dormant Bash(npm *)",
			base:     map[string]string{".claude/settings.json": settingsJSON([]string{"Bash(npm *)"}, nil, ",\n  \"cleanupPeriodDays\": \"30\"\n")},
			head:     map[string]string{".claude/settings.json": settingsJSON([]string{"Bash(npm *)"}, nil, ",\n  \"cleanupPeriodDays\": 30\n")},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		// Checks zod runs that JSON Schema cannot state (refinements):
		// each drops the file on Claude Code 2.1.328 (its loader's verdict
		// in agentfiles/claude/claudeschema's loads file); Shipgate kept such files.
		{name: "a head whose inline marketplace plugin has no source drops the file's denials",
			base:     map[string]string{".claude/settings.json": denials},
			head:     map[string]string{".claude/settings.json": settingsJSON(nil, []string{"Read(./.env)", "Bash(curl *)"}, ",\n  \"strictKnownMarketplaces\": [{\"source\": \"settings\", \"name\": \"x\", \"plugins\": [{\"name\": \"x\"}]}]\n")},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "a head whose AWS credential pair names one variable twice drops the file's denials",
			base:     map[string]string{".claude/settings.json": denials},
			head:     map[string]string{".claude/settings.json": settingsJSON(nil, []string{"Read(./.env)", "Bash(curl *)"}, ",\n  \"sandbox\": {\"credentials\": {\"awsPairs\": [{\"accessKeyIdVar\": \"K\", \"secretAccessKeyVar\": \"K\"}]}}\n")},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "a local file whose Mach lookup has an inner wildcard drops its denials",
			base:     map[string]string{".claude/settings.json": "{}\n", ".claude/settings.local.json": denials},
			head:     map[string]string{".claude/settings.local.json": settingsJSON(nil, []string{"Read(./.env)", "Bash(curl *)"}, ",\n  \"sandbox\": {\"network\": {\"allowMachLookup\": [\"com.*.x\"]}}\n")},
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		// A base Shipgate could not read (over 1 MiB) but Claude Code
		// would: read as empty, what the change removes was invisible
		// and these passed as "no changes".
		{name: "a base over 1 MiB of denials becomes {}",
			base:     map[string]string{".claude/settings.json": bigDenials()},
			head:     map[string]string{".claude/settings.json": "{}\n"},
			decision: "require_review", check: "CONFIG-PARSE-FAILED"},
		{name: "a base over 1 MiB of denials is deleted",
			base:     map[string]string{".claude/settings.json": bigDenials()},
			head:     map[string]string{".claude/settings.json": ""},
			decision: "require_review", check: "CONFIG-PARSE-FAILED"},
		{name: "an opencode.json over 1 MiB that asks about bash becomes {}",
			base:     map[string]string{"opencode.json": bigOpenCodeAsks()},
			head:     map[string]string{"opencode.json": "{}\n"},
			decision: "require_review", check: "CONFIG-PARSE-FAILED"},
		// settings.local.json overrides settings.json's scalars.
		{name: "a local defaultMode default over a project acceptEdits is removed",
			base:     map[string]string{".claude/settings.json": mode("acceptEdits"), ".claude/settings.local.json": mode("default")},
			head:     map[string]string{".claude/settings.local.json": "{}\n"},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		{name: "the local file that kept a project plan mode at default is deleted",
			base:     map[string]string{".claude/settings.json": mode("plan"), ".claude/settings.local.json": mode("default")},
			head:     map[string]string{".claude/settings.local.json": ""},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
	}
}

// TestE2ELoaderAppAndCLI runs every loader case through the App and the
// CLI.
func TestE2ELoaderAppAndCLI(t *testing.T) {
	t.Parallel()
	runAppAndCLI(t, newE2E(t), "l", loaderCases())
}

// TestE2EKnownKeysAppAndCLI: keys Claude Code 2.1.328 defines (its
// settings schema, from the binary) are no "unknown key" through the App
// or the CLI; a misspelt one still is.
func TestE2EKnownKeysAppAndCLI(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	cases := []struct {
		name, head string
		unknown    bool
	}{
		{"keys the binary defines", "{\"effortLevel\": \"high\", \"teammateMode\": \"auto\", \"skipAutoPermissionPrompt\": true, \"tui\": \"default\"}\n", false},
		{"a misspelt key", "{\"effortLevle\": \"high\"}\n", true},
	}
	for i, c := range cases {
		name := fmt.Sprintf("k%d", i)
		t.Run(c.name, func(t *testing.T) {
			base := map[string]string{".claude/settings.json": "{}\n"}
			head := map[string]string{".claude/settings.json": c.head}
			env.repo(name, base)
			pr := env.openPR(name, "change", head)
			run := env.waitCompleted(name, pr.HeadSHA, 1)
			rep := cliReport(t, base, head)
			cli := false
			for _, f := range rep.Findings {
				cli = cli || f.CheckID == "SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY"
			}
			app := strings.Contains(run.Summary, "CONFIG-UNKNOWN-KEY")
			if cli != c.unknown || app != c.unknown {
				t.Errorf("unknown-key finding: CLI %v, App %v, want %v\n%v\n%s", cli, app, c.unknown, findingIDs(rep), run.Summary)
			}
		})
	}
}

// bigDenials is a settings file of deny rules over Shipgate's 1 MiB read
// limit (Claude Code reads it).
func bigDenials() string {
	deny := []string{"Bash(curl *)"}
	for i := 0; len(deny)*24 < 1<<20+4096; i++ {
		deny = append(deny, fmt.Sprintf("Read(./secret-%06d)", i))
	}
	return settingsJSON(nil, deny)
}

// bigOpenCodeAsks is an opencode.json over 1 MiB whose bash permission
// asks (without it, OpenCode's built-in first rule allows everything).
func bigOpenCodeAsks() string {
	var b strings.Builder
	b.WriteString("{\"permission\": {\"bash\": {\"*\": \"ask\"")
	for i := 0; b.Len() < 1<<20+4096; i++ {
		fmt.Fprintf(&b, ", \"cmd-%06d *\": \"ask\"", i)
	}
	b.WriteString("}}}\n")
	return b.String()
}
