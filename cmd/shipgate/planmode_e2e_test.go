package main

// Plan mode's auto-mode classifier, end to end (issue 19): measured on
// Claude Code 2.1.328 with the conformance harness's fake classifier, plan
// mode hands every Bash call no rule decides to a model on Anthropic's
// server, whose approval runs it without a prompt (`npm publish`, `curl …`,
// `rm -rf build` ran). A change that turns plan mode on, from any file
// Claude Code honours it in, is a grant rated like auto mode, with the
// commands it may now run as witnesses, and never a narrowing: through
// the App and the CLI, every case here passed as "a stricter permission
// mode" before.

import (
	"fmt"
	"strings"
	"testing"
)

func TestE2EPlanModeAppAndCLI(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	mode := func(m string, allow ...string) string {
		rules := ""
		if len(allow) > 0 {
			rules = ", \"allow\": [\"" + strings.Join(allow, "\", \"") + "\"]"
		}
		return "{\"permissions\": {\"defaultMode\": \"" + m + "\"" + rules + "}}\n"
	}
	reads := "{\"permissions\": {\"allow\": [\"Read\"]}}\n" // every read already runs: plan's reads add nothing
	planner := "---\nname: planner\ndescription: plans\npermissionMode: plan\n---\nPlan.\n"
	cases := []struct {
		name       string
		base, head map[string]string
		witness    string // a command the classifier may now run, in both reports
	}{
		{"a project that allows every read turns plan mode on",
			map[string]string{".claude/settings.json": reads},
			map[string]string{".claude/settings.json": mode("plan", "Read")}, "npm publish"},
		{"acceptEdits becomes plan",
			map[string]string{".claude/settings.json": mode("acceptEdits", "Read")},
			map[string]string{".claude/settings.json": mode("plan", "Read")}, "npm publish"},
		{"a project bypassPermissions (ignored there) becomes plan",
			map[string]string{".claude/settings.json": mode("bypassPermissions")},
			map[string]string{".claude/settings.json": mode("plan")}, "npm publish"},
		{"a settings.local.json sets plan mode",
			map[string]string{".claude/settings.json": reads},
			map[string]string{".claude/settings.local.json": mode("plan")}, "npm publish"},
		{"the local default that kept a project's plan mode off is removed",
			map[string]string{".claude/settings.json": mode("plan", "Read"), ".claude/settings.local.json": mode("default")},
			map[string]string{".claude/settings.local.json": "{}\n"}, "npm publish"},
		{"a subagent runs in plan mode",
			map[string]string{".claude/settings.json": reads},
			map[string]string{".claude/agents/planner.md": planner}, "npm publish"},
	}
	for i, c := range cases {
		name := fmt.Sprintf("plan%d", i)
		t.Run(c.name, func(t *testing.T) {
			env.repo(name, c.base)
			pr := env.openPR(name, "change", c.head)
			run := env.waitCompleted(name, pr.HeadSHA, 1)
			rep := cliReport(t, c.base, c.head)
			if rep.Decision != "require_review" {
				t.Errorf("CLI: %s, want require_review: %v", rep.Decision, findingIDs(rep))
			}
			if want := conclusionOf("require_review"); run.Conclusion != want {
				t.Errorf("App: %s %q, want %s\n%s", run.Conclusion, run.Title, want, run.Summary)
			}
			found := false
			for _, f := range rep.Findings {
				found = found || f.CheckID == "SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"
			}
			if !found || !strings.Contains(run.Summary, "PERMISSION-ALLOW-EXPANDED") {
				t.Errorf("no PERMISSION-ALLOW-EXPANDED finding: CLI %v; App:\n%s", findingIDs(rep), run.Summary)
			}
			if !strings.Contains(string(rep.Changes), "classifier approves tool calls") || !strings.Contains(run.Summary, "classifier approves tool calls") {
				t.Errorf("the change is not rated as a classifier's approval:\nCLI %s\nApp %s", rep.Changes, run.Summary)
			}
			if !strings.Contains(string(rep.Changes), c.witness) || !strings.Contains(run.Summary, c.witness) {
				t.Errorf("witness %q missing:\nCLI %s\nApp %s", c.witness, rep.Changes, run.Summary)
			}
		})
	}
}

// TestE2EPlanModeBroadAllowsApplyAgain: Claude Code 2.1.328 sets broad
// allow rules aside in plan mode (measured: under a settings.local.json
// defaultMode plan, allow Bash(*) and Bash(python3 *) hand their calls to
// the auto-mode classifier; Bash(git *) still runs git push). A change
// that takes the project out of plan mode lets each such rule run what it
// matches again without a prompt, though no rule changed. Before, the
// first two cases were a medium "documented, prompting mode" row only.
func TestE2EPlanModeBroadAllowsApplyAgain(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	settings := func(mode string, allow string) string {
		m := ""
		if mode != "" {
			m = ", \"defaultMode\": \"" + mode + "\""
		}
		return "{\"permissions\": {\"allow\": [\"" + allow + "\"]" + m + "}}\n"
	}
	plan := "{\"permissions\": {\"defaultMode\": \"plan\"}}\n"
	cases := []struct {
		name       string
		base, head map[string]string
		decision   string
		wildcard   bool // a WILDCARD-ALLOW finding on the rule that applies again
		witness    string
	}{
		{"the local plan over a project's Bash(*) is deleted",
			map[string]string{".claude/settings.json": settings("default", "Bash(*)"), ".claude/settings.local.json": plan},
			map[string]string{".claude/settings.local.json": ""}, "block", true, "npm publish"},
		{"the project's plan beside Bash(python3 *) becomes dontAsk",
			map[string]string{".claude/settings.json": settings("plan", "Bash(python3 *)")},
			map[string]string{".claude/settings.json": settings("dontAsk", "Bash(python3 *)")}, "block", true, "python3"},
		{"the local plan over a project's Bash(git *) is deleted (plan kept the rule)",
			map[string]string{".claude/settings.json": settings("default", "Bash(git *)"), ".claude/settings.local.json": plan},
			map[string]string{".claude/settings.local.json": ""}, "require_review", false, ""},
	}
	for i, c := range cases {
		name := fmt.Sprintf("planback%d", i)
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
			wildcard := false
			for _, f := range rep.Findings {
				wildcard = wildcard || f.CheckID == "SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW" && f.Path == ".claude/settings.json"
			}
			if wildcard != c.wildcard {
				t.Errorf("CLI: a WILDCARD-ALLOW finding on .claude/settings.json: %v, want %v: %v", wildcard, c.wildcard, findingIDs(rep))
			}
			const mark = "set aside by plan mode"
			if cli, app := strings.Contains(string(rep.Changes), mark), strings.Contains(run.Summary, mark); cli != c.wildcard || app != cli {
				t.Errorf("a row for the rule that applies again: CLI %v, App %v, want %v\nCLI %s\nApp %s", cli, app, c.wildcard, rep.Changes, run.Summary)
			}
			if c.witness != "" && (!strings.Contains(string(rep.Changes), c.witness) || !strings.Contains(run.Summary, c.witness)) {
				t.Errorf("witness %q missing:\nCLI %s\nApp %s", c.witness, rep.Changes, run.Summary)
			}
		})
	}
}

// TestE2EPlanModeAddedBroadAllow: an allow rule plan mode sets aside,
// added while the project is in plan mode, still blocks — Claude Code
// 2.1.328 restores the rule when the session leaves plan mode
// (ExitPlanMode calls restoreDangerousPermissions in its bundle), so the
// grant is real once the plan is approved — and both reports say why the
// witness does not run while the session plans (the conformance witness
// class at seed 1 asked `python` under plan mode and it ran at the base
// too, the classifier approving). A rule plan mode keeps says nothing of
// the kind.
func TestE2EPlanModeAddedBroadAllow(t *testing.T) {
	t.Parallel()
	settings := func(allow ...string) map[string]string {
		return map[string]string{".claude/settings.json": "{\"permissions\": {\"defaultMode\": \"plan\", \"allow\": [\"" + strings.Join(allow, "\", \"") + "\"]}}\n"}
	}
	const mark = "it applies once the session leaves plan mode"
	runQuietCases(t, "planadd", []quietCase{
		{name: "Bash(python:*) added under plan mode", base: settings("Bash(npm run build:*)"), head: settings("Bash(npm run build:*)", "Bash(python:*)"),
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW", contains: mark},
		{name: "Bash(git *) added under plan mode", base: settings("Bash(npm run build:*)"), head: settings("Bash(npm run build:*)", "Bash(git *)"),
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED", lacks: mark},
		// Plan mode reads any file without a prompt (seed 4's witness
		// class: ~/.ssh/id_rsa ran at the plan base too): the rule is
		// still the grant it is once the session leaves plan mode.
		{name: "Read(~/**) added under plan mode", base: settings("Bash(npm run build:*)"), head: settings("Bash(npm run build:*)", "Read(~/**)"),
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED", contains: "reads any file without a prompt, rule or not; this rule applies once the session leaves plan mode"},
		{name: "Read(~/**) added outside plan mode", base: map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(npm run build:*)"]}}` + "\n"},
			head:     map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(npm run build:*)", "Read(~/**)"]}}` + "\n"},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED", lacks: "rule or not"},
	})
}
