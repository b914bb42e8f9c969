package conformance

import (
	"context"
	"slices"
	"testing"
)

// TestQuotedCommandNames measures how allow and deny rules read a command
// word written with a backslash or quotes (\git, 'git', g"it"): both read
// it unquoted, so `\git push x` runs under Bash(git *) — also beside a
// deny Bash(git push), which matches only `git push` itself — and the
// exact Bash(npm test) runs `\npm test`. A directory is not dropped for an
// allow rule (`./git push x` and `/usr/bin/git push x` ask under
// Bash(git *)), while a deny rule sees through it. A quoted wrapper is
// read unquoted and set aside as the plain one (`'timeout' 5 git push x`
// and `\nice git push x` ran under Bash(git *)). Each row is one
// session on the pinned binary; the engine's effective view must agree.
func TestQuotedCommandNames(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	calls := []string{`\git push x`, `'git' push x`, `g"it" push x`, `\git push`, `'git' push`, `"git" status x`,
		`\npm test`, `'npm' publish`, `./git push x`, `/usr/bin/git push x`, `'timeout' 5 git push x`, `\nice git push x`}
	rows := []struct {
		allow, deny []string
		want        string // per call: A allow, Q ask, D deny
	}{
		{[]string{"Bash(git *)"}, nil, "AAAAAAQQQQAA"},
		{[]string{"Bash(git *)"}, []string{"Bash(git push)"}, "AAADDAQQQQAA"},
		{[]string{"Bash(git push *)"}, nil, "AAAAAAQQQQAA"},
		{[]string{"Bash(git:*)"}, nil, "AAAAAAQQQQAA"},
		{[]string{"Bash(npm test)", "Bash(npm publish)"}, nil, "QQQQQAAAQQQQ"},
		{[]string{"Bash(*)"}, []string{"Bash(git push)", "Bash(npm publish)"}, "AAADDAADAAAA"},
		{[]string{"Bash(*)"}, []string{"Bash(git push *)"}, "DDDDDAAADDDD"},
	}
	letter := map[Decision]byte{Allow: 'A', Ask: 'Q', Deny: 'D'}
	var batches []Batch
	for _, r := range rows {
		var cs []Case
		for _, c := range calls {
			cs = append(cs, Case{Class: "bash-match", Label: "quoted", Call: Call{Tool: "Bash", Arg: c}})
		}
		batches = append(batches, Batch{Class: "bash-match", Settings: Settings{Allow: r.allow, Deny: r.deny}, Cases: cs})
	}
	run := Execute(ctx, Driver{Binary: bin}, batches, 1, nil, nil)
	for _, err := range run.Errors {
		t.Error(err)
	}
	if len(run.Outcomes) != len(rows)*len(calls) {
		t.Fatalf("%d outcomes for %d calls", len(run.Outcomes), len(rows)*len(calls))
	}
	for _, o := range run.Outcomes {
		r, j := rows[o.Batch], slices.Index(calls, o.Case.Call.Arg)
		if letter[o.Claude] != r.want[j] {
			t.Errorf("allow %v deny %v, %s: Claude Code %s (%s), want %c", r.allow, r.deny, o.Case.Call.Arg, o.Claude, clip(o.ClaudeText, 120), r.want[j])
		}
		if !o.Agrees() {
			t.Errorf("allow %v deny %v, %s: Shipgate %s (%s), Claude Code %s", r.allow, r.deny, o.Case.Call.Arg, o.Shipgate, o.Why, o.Claude)
		}
	}
}
