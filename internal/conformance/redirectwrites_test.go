package conformance

import (
	"context"
	"testing"
)

// TestRedirectWrites measures when a Bash line that writes a file by
// redirection runs (judge's writable and writeDenied; seed 2's full
// corpus found `npm test > out.txt` running under Bash(npm *) in
// acceptEdits while Shipgate said the redirection asked). Claude Code
// 2.1.328 checks the file as an Edit call: an Edit allow rule approves it
// (a Write rule does not), acceptEdits approves a file inside the working
// directories (an ask rule on it does not stop that), a sensitive file
// (.claude, .git, .vscode) and a file outside the working directories
// ask (a sensitive file under the whole tool too), and an Edit deny rule
// on it denies the line, whatever allows it.
// Each row is checked against the binary and against Shipgate.
func TestRedirectWrites(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	type want struct {
		cmd string
		d   Decision
	}
	npm := []string{"Bash(npm *)"}
	for _, c := range []struct {
		name     string
		settings Settings
		want     []want
	}{
		{"acceptEdits, Bash(npm *)", Settings{DefaultMode: "acceptEdits", Allow: npm}, []want{
			{"npm test > out.txt", Allow}, {"npm test >> out.txt", Allow}, {"npm test 2> err.txt", Allow}, {"npm test &> all.txt", Allow},
			{"npm test &>> all.txt", Allow}, {"npm test >| out.txt", Allow}, {"npm test > .env", Allow},
			{"npm test > /tmp/sg-out.txt", Ask}, {"npm test > ../out.txt", Ask}, {"npm test > .claude/x.txt", Ask},
			{"npm test > .git/x.txt", Ask}, {"npm test > .vscode/x.txt", Ask}, {"npm test > $HOME/x.txt", Ask}, {"npm test | tee out.txt", Ask}}},
		{"acceptEdits, Bash(npm test:*)", Settings{DefaultMode: "acceptEdits", Allow: []string{"Bash(npm test:*)"}}, []want{
			{"npm test > out.txt", Allow}, {"npm test > ../out.txt", Ask}}},
		{"Bash(npm *)", Settings{Allow: npm}, []want{{"npm test > out.txt", Ask}, {"npm test 2> err.txt", Ask}}},
		{"Bash(npm *), Edit(out.txt)", Settings{Allow: []string{"Bash(npm *)", "Edit(out.txt)"}}, []want{
			{"npm test > out.txt", Allow}, {"npm test >> out.txt", Allow}, {"npm test 2> err.txt", Ask}, {"npm test > /tmp/sg-out.txt", Ask}}},
		{"Bash(npm *), Edit(**)", Settings{Allow: []string{"Bash(npm *)", "Edit(**)"}}, []want{
			{"npm test > out.txt", Allow}, {"npm test &> all.txt", Allow}, {"npm test > ../out.txt", Ask}, {"npm test > .claude/x.txt", Ask}}},
		// A whole-tool Edit allow (Edit, Edit(*)) approves no write by
		// redirection (the class two-readings at seeds 1, 4 and 5: `echo
		// hi > out.txt` asked under allow Read, Edit, Write).
		{"Edit", Settings{Allow: []string{"Edit"}}, []want{{"echo x > out.txt", Ask}}},
		{"Bash(npm *), Edit", Settings{Allow: []string{"Bash(npm *)", "Edit"}}, []want{{"npm test > out.txt", Ask}}},
		{"Bash(npm *), Edit(*)", Settings{Allow: []string{"Bash(npm *)", "Edit(*)"}}, []want{{"npm test > out.txt", Ask}, {"npm test > src/out.txt", Ask}}},
		{"acceptEdits, deny Edit(**)", Settings{DefaultMode: "acceptEdits", Allow: npm, Deny: []string{"Edit(**)"}}, []want{{"npm test > out.txt", Deny}, {"npm test > /tmp/sg-out.txt", Ask}}},
		// Nor does a whole-tool Edit deny stop one.
		{"acceptEdits, deny Edit", Settings{DefaultMode: "acceptEdits", Allow: npm, Deny: []string{"Edit"}}, []want{{"npm test > out.txt", Allow}, {"echo x > out.txt", Allow}}},
		{"acceptEdits, deny Edit(*)", Settings{DefaultMode: "acceptEdits", Allow: npm, Deny: []string{"Edit(*)"}}, []want{{"npm test > out.txt", Allow}, {"echo x > out.txt", Allow}}},
		{"Bash(npm *), Write(out.txt)", Settings{Allow: []string{"Bash(npm *)", "Write(out.txt)"}}, []want{
			{"npm test > out.txt", Ask}, {"echo x > out.txt", Ask}}},
		{"acceptEdits, Edit(//tmp/**)", Settings{DefaultMode: "acceptEdits", Allow: []string{"Bash(make *)", "Edit(//tmp/**)"}}, []want{
			{"echo x > /tmp/sg-out.txt", Allow}, {"git status > /tmp/sg-out.txt", Allow}}},
		{"Edit(out.txt)", Settings{Allow: []string{"Edit(out.txt)"}}, []want{
			{"echo x > out.txt", Allow}, {"cat package.json > out.txt", Allow}, {"npm test > out.txt", Ask}, {"echo x > .env", Ask}}},
		{"acceptEdits, deny Edit(out.txt)", Settings{DefaultMode: "acceptEdits", Allow: npm, Deny: []string{"Edit(out.txt)"}}, []want{
			{"npm test > out.txt", Deny}, {"npm test >| out.txt", Deny}, {"echo x > out.txt", Deny}, {"npm test > .env", Allow}}},
		{"deny Edit(out.txt)", Settings{Allow: npm, Deny: []string{"Edit(out.txt)"}}, []want{
			{"npm test > out.txt", Deny}, {"echo x > out.txt", Deny}, {"npm test", Allow}}},
		{"Bash(*)", Settings{Allow: []string{"Bash(*)"}}, []want{
			{"npm test > .claude/x.txt", Ask}, {"npm test > .git/x.txt", Ask}, {"npm test > /tmp/sg-out.txt", Allow}, {"npm test > ../out.txt", Allow}}},
		{"acceptEdits, Bash", Settings{DefaultMode: "acceptEdits", Allow: []string{"Bash"}}, []want{
			{"npm test > .claude/x.txt", Ask}, {"npm test > out.txt", Allow}}},
		{"acceptEdits, no rule", Settings{DefaultMode: "acceptEdits"}, []want{
			{"echo x &> all.txt", Allow}, {"echo x >| out.txt", Allow}, {"cat package.json &>> all.txt", Allow}, {"echo x > .claude/x.txt", Ask},
			{"echo x > .vscode/x.txt", Ask}, {"mkdir .claude/d", Ask}, {"touch .vscode/x", Ask}, {"npm test > out.txt", Ask}}},
		// (${HOME} is not read as the home: the line runs. $HOME is not
		// asked here: the harness spells the session's home in full.)
		{"deny Edit(~/**)", Settings{Allow: []string{"Bash(*)"}, Deny: []string{"Edit(~/**)"}}, []want{
			{"npm test > ~/x.txt", Deny}, {"echo x > ${HOME}/x.txt", Allow}, {"npm test > out.txt", Allow}}},
		{"acceptEdits, ask Edit(out.txt)", Settings{DefaultMode: "acceptEdits", Allow: npm, Ask: []string{"Edit(out.txt)"}}, []want{
			{"npm test > out.txt", Allow}, {"echo x > out.txt", Allow}}},
	} {
		b := Batch{Class: "redirect-writes", Settings: c.settings}
		for _, w := range c.want {
			b.Cases = append(b.Cases, Case{Class: "redirect-writes", Label: c.name, Call: Call{Tool: "Bash", Arg: w.cmd}})
		}
		out, _, err := runBatch(context.Background(), Driver{Binary: bin}, 0, b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for j, o := range out {
			if w := c.want[j].d; o.Claude != w {
				t.Errorf("%s: %s: Claude Code %s %s, pinned %s (%s)", c.name, o.Call, ClaudeCodeVersion, o.Claude, w, clip(o.ClaudeText, 200))
			}
			if !o.Agrees() {
				t.Errorf("%s: %s: Claude Code %s, Shipgate %s (%s)", c.name, o.Call, o.Claude, o.Shipgate, o.Why)
			}
		}
	}
}
