package conformance

import (
	"context"
	"testing"
)

// TestPlanModeStripsBroadAllows measures which allow rules plan mode sets
// aside (Claude Code's stripDangerousPermissionsForAutoMode, applied when
// the session starts in plan mode with its auto-mode classifier): a call
// such a rule matches goes to the classifier instead of running. Each row
// is one session (project settings with the rule, a settings.local.json
// with defaultMode plan), asked without a verdict and with the fake
// classifier approving; the engine's effective view must agree.
func TestPlanModeStripsBroadAllows(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	const A, C, Q = Allow, Classifier, Ask
	bash := func(s string) Call { return Call{Tool: "Bash", Arg: s} }
	rows := []struct {
		project string // the project's defaultMode ("" for none)
		allow   []string
		call    Call
		want    Decision
	}{
		{"default", []string{"Bash(*)"}, bash("npm publish x"), C},
		{"dontAsk", []string{"Bash(*)"}, bash("npm publish x"), C},
		{"default", []string{"Bash"}, bash("npm publish x"), C},
		{"default", []string{"Bash(**)"}, bash("npm publish x"), C},
		{"default", []string{"Bash(* *)"}, bash("npm publish x"), C},
		{"default", []string{"Bash(python3 *)"}, bash("python3 x.py"), C},
		{"default", []string{"Bash(python:*)"}, bash("python x.py"), C},
		{"default", []string{"Bash(node *)"}, bash("node x.js"), C},
		{"default", []string{"Bash(npm run *)"}, bash("npm run build"), C},
		{"default", []string{"Bash(npm run build:*)"}, bash("npm run build"), A},
		{"default", []string{"Bash(npx *)"}, bash("npx x"), C},
		{"default", []string{"Bash(env *)"}, bash("env FOO=1 make"), C},
		{"default", []string{"Bash(sudo *)"}, bash("sudo make"), C},
		{"default", []string{"Bash(bash *)"}, bash("bash x.sh"), C},
		{"default", []string{"Bash(python3 -m pytest *)"}, bash("python3 -m pytest x"), C},
		{"default", []string{"Bash(n*)"}, bash("npm publish x"), C},
		{"default", []string{"Bash(* --version)"}, bash("npm --version"), C},
		{"default", []string{"Bash(git *)"}, bash("git push x"), A},
		{"default", []string{"Bash(npm *)"}, bash("npm publish x"), A},
		{"default", []string{"Bash(curl *)"}, bash("curl x"), A},
		{"default", []string{"Bash(make *)"}, bash("make x"), A},
		{"default", []string{"Bash(*)", "Bash(git *)"}, bash("git push x"), A},
		{"default", []string{"Agent"}, Call{Tool: "Agent"}, C},
		// The removal check of plan mode: `rm -rf /` asks, the `...` path
		// check does not (seed 5, settings-local: `rm ./...` under a
		// stripped Bash(*) went to the classifier; Shipgate said ask).
		{"default", []string{"Bash(*)"}, bash("rm ./..."), C},
		{"default", nil, bash("rm ./..."), C},
		{"default", []string{"Bash(*)"}, bash("rm -rf /"), Q},
	}
	var batches []Batch
	for _, r := range rows {
		batches = append(batches, Batch{Class: "modes", Settings: Settings{Allow: r.allow, DefaultMode: r.project},
			Local: &Settings{DefaultMode: "plan"}, Cases: []Case{{Class: "modes", Label: "plan-strip", Call: r.call}}})
	}
	run := Execute(ctx, Driver{Binary: bin}, batches, 1, nil, nil)
	for _, err := range run.Errors {
		t.Error(err)
	}
	for _, o := range run.Outcomes {
		r := rows[o.Batch]
		if o.Claude != r.want {
			t.Errorf("allow %v, %s + local plan, %s: Claude Code %s (%s), want %s", r.allow, r.project, r.call, o.Claude, clip(o.ClaudeText, 200), r.want)
		}
		if !o.Agrees() {
			t.Errorf("allow %v, %s + local plan, %s: Shipgate %s (%s), Claude Code %s", r.allow, r.project, r.call, o.Shipgate, o.Why, o.Claude)
		}
	}
	if len(run.Outcomes) != len(rows) {
		t.Fatalf("%d outcomes for %d rows", len(run.Outcomes), len(rows))
	}
}
