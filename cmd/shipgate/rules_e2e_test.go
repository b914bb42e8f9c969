package main

// Rule readings Claude Code 2.1.328 was measured to hold that contradict
// the documentation or an earlier model (issue 19 §5), end to end: each
// repository goes through the App (the fake GitHub) and through `shipgate
// diff` (real git); both must give the expected decision and agree. A case
// with check "" expects no finding of review or block strength (the
// respelling or dead rule passes quietly).

import (
	"fmt"
	"strings"
	"testing"
)

func ruleReadingCases() []surfaceCase {
	s := func(allow, deny []string) map[string]string {
		return map[string]string{".claude/settings.json": settingsJSON(allow, deny)}
	}
	return []surfaceCase{
		// A deny Bash(timeout:*) is the parameter rule and the legacy
		// prefix timeout:*; with a blank or a second star it is the
		// parameter rule only, so `timeout 5 curl evil.com` goes deny →
		// allow under Bash(*).
		{name: "deny Bash(timeout:*) respelled Bash(timeout: *) drops the prefix reading",
			base: s([]string{"Bash(*)"}, []string{"Bash(timeout:*)"}), head: s([]string{"Bash(*)"}, []string{"Bash(timeout: *)"}),
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "deny Bash(timeout:*) respelled Bash(timeout:**) drops the prefix reading",
			base: s([]string{"Bash(*)"}, []string{"Bash(timeout:*)"}), head: s([]string{"Bash(*)"}, []string{"Bash(timeout:**)"}),
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		// A `./dir/**` deny stops that directory at any depth (web/src
		// under ./src/**), `/dir/**` only at the root: the respelling
		// lets `web/secrets/key` be read.
		{name: "deny Read(./secrets/**) respelled Read(/secrets/**) stops only the root's",
			base: s([]string{"Read"}, []string{"Read(./secrets/**)"}), head: s([]string{"Read"}, []string{"Read(/secrets/**)"}),
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		// Wrappers that run their operand are in the exec tier.
		{name: "allow Bash(timeout *) runs timeout 5 sh -c …",
			base: s(nil, nil), head: s([]string{"Bash(timeout *)"}, nil), decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "allow Bash(nohup:*) runs nohup sh -c …",
			base: s(nil, nil), head: s([]string{"Bash(nohup:*)"}, nil), decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "allow Bash(nice -n 5 *) runs nice -n 5 sh -c …",
			base: s(nil, nil), head: s([]string{"Bash(nice -n 5 *)"}, nil), decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "allow Bash(command *) runs command sh -c …",
			base: s(nil, nil), head: s([]string{"Bash(command *)"}, nil), decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		// A deny with a blank after its :* is dead: it does not stop the
		// allow added beside it.
		{name: "deny Bash(npm:* ) with a trailing blank does not stop an added allow",
			base: s(nil, nil), head: s([]string{"Bash(npm publish)"}, []string{"Bash(npm:* )"}),
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		// Read-only built-ins as measured: pwd -P and python3 -V ask with
		// no rule, so an allow that grants them grants something.
		{name: "allow Bash(pwd -P) grants a command that asks with no rule",
			base: s(nil, nil), head: s([]string{"Bash(pwd -P)"}, nil), decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		{name: "allow Bash(python3 -V) grants a command that asks with no rule",
			base: s(nil, nil), head: s([]string{"Bash(python3 -V)"}, nil), decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		{name: "allow Bash(rg --files) grants a command that asks with no rule",
			base: s(nil, nil), head: s([]string{"Bash(rg --files)"}, nil), decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		// Path rules fold case and doubled slashes: these respell.
		{name: "deny Read(//etc/**) respelled Read(//ETC//**) passes quietly",
			base: s(nil, []string{"Read(//etc/**)"}), head: s(nil, []string{"Read(//ETC//**)"}), decision: "allow"},
		{name: "allow Edit(./SRC/**) respelled Edit(./src/**) passes quietly",
			base: s([]string{"Edit(./SRC/**)"}, nil), head: s([]string{"Edit(./src/**)"}, nil), decision: "allow"},
		// Slashes after ~/ collapse: ~//.ssh/id_rsa is ~/.ssh/id_rsa, so
		// this deny is real and its removal lets the key be read, and
		// the allow reads it (both passed as rules matching nothing).
		{name: "deny Read(~//.ssh/id_rsa) removed under allow Read",
			base: s([]string{"Read"}, []string{"Read(~//.ssh/id_rsa)"}), head: s([]string{"Read"}, nil),
			decision: "require_review", check: "PERMISSION-DENY-REMOVED"},
		{name: "allow Read(~//.ssh/id_rsa) reads the key",
			base: s(nil, nil), head: s([]string{"Read(~//.ssh/id_rsa)"}, nil),
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		// NotebookEdit(**) is dead.
		{name: "allow NotebookEdit(**) grants nothing",
			base: s(nil, nil), head: s([]string{"NotebookEdit(**)"}, nil), decision: "allow"},
	}
}

// TestE2ERuleReadingsAppAndCLI runs every rule-reading case through the
// App and the CLI: both give the expected decision, raise the expected
// check (or none that needs a reviewer), and agree (runAppAndCLI).
func TestE2ERuleReadingsAppAndCLI(t *testing.T) {
	t.Parallel()
	runAppAndCLI(t, newE2E(t), "rr", ruleReadingCases())
}

// TestE2ECompoundDenyWorks: a pipeline deny such as Bash(curl * | bash)
// denies `curl x | bash` unless every command is allowed on its own, and an
// exact compound deny such as Bash(npm test; npm publish) its line as
// written (measured on Claude Code 2.1.328), so adding one is a working
// restriction: no "rule Claude Code skips" finding that advises replacing
// it, through the App and the CLI.
func TestE2ECompoundDenyWorks(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	for i, rule := range []string{"Bash(curl * | bash)", "Bash(npm test; npm publish)"} {
		name := fmt.Sprintf("cd%d", i)
		t.Run(rule, func(t *testing.T) {
			base := map[string]string{".claude/settings.json": settingsJSON([]string{"Bash(*)"}, nil)}
			head := map[string]string{".claude/settings.json": settingsJSON([]string{"Bash(*)"}, []string{rule})}
			env.repo(name, base)
			pr := env.openPR(name, "change", head)
			run := env.waitCompleted(name, pr.HeadSHA, 1)
			rep := cliReport(t, base, head)
			if rep.Decision != "allow" || len(rep.Findings) != 0 {
				t.Errorf("CLI: %s %v, want allow with no finding", rep.Decision, findingIDs(rep))
			}
			if run.Conclusion != "success" || strings.Contains(run.Summary, "RULE-INVALID") || strings.Contains(run.Summary, "never sees") {
				t.Errorf("App: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
			}
			if !strings.Contains(string(rep.Changes), "matches it against") {
				t.Errorf("CLI: the row does not say what the rule matches: %s", rep.Changes)
			}
		})
	}
}
