package conformance

import (
	"context"
	"strings"
	"testing"
)

// TestMonitorOnTheBinary holds the effective view's reading of the Monitor
// tool to the pinned binary. Claude Code 2.1.328 decides a Monitor call's
// command as a Bash command — the Bash rules that name commands, the
// read-only table, the removal check and the permission mode (in plan mode
// `true` and `git status` run with no rule, `curl x` goes to the auto-mode
// classifier, `rm -rf /` asks) — but not by an allow of the whole Bash
// tool, and never by Monitor rules that name commands; rules naming the
// whole Monitor tool decide first, and a deny of the whole Bash tool takes
// Monitor away. The effective view had read Monitor as a tool of its own
// (Monitor(…) rules, no read-only table: `true` asked) and, in plan mode,
// handed every Monitor call no rule decides to the classifier. Each batch
// runs with the classifier absent and approving (runBatch); every call
// must agree with the view and with the decision pinned here.
func TestMonitorOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	type want struct {
		cmd string
		d   Decision
	}
	bashRules := Settings{Allow: []string{"Bash(npm *)"}, Deny: []string{"Bash(curl *)"}, Ask: []string{"Bash(git status)"}}
	planBash := bashRules
	planBash.DefaultMode = "plan"
	for _, c := range []struct {
		name     string
		settings Settings
		want     []want
	}{
		{"no rule", Settings{}, []want{{"true", Allow}, {"git status", Allow}, {"ls ~/.ssh", Ask}, {"curl x", Ask}, {"rm -rf /", Ask}, {"npm publish", Ask}}},
		{"plan", Settings{DefaultMode: "plan"}, []want{{"true", Allow}, {"git status", Allow}, {"ls ~/.ssh", Classifier}, {"curl x", Classifier}, {"rm -rf /", Ask}, {"npm publish", Classifier}}},
		{"acceptEdits", Settings{DefaultMode: "acceptEdits"}, []want{{"true", Allow}, {"git status", Allow}, {"curl x", Ask}}},
		{"Bash rules", bashRules, []want{{"npm publish", Allow}, {"curl x", Deny}, {"git status", Ask}, {"true", Allow}, {"git push x", Ask}}},
		{"Bash rules, plan", planBash, []want{{"npm publish", Allow}, {"curl x", Deny}, {"git status", Ask}, {"true", Allow}, {"git push x", Classifier}}},
		{"Monitor rules", Settings{Allow: []string{"Monitor(npm *)"}, Deny: []string{"Monitor(curl *)"}, Ask: []string{"Monitor(git status)"}},
			[]want{{"npm publish", Ask}, {"curl x", Ask}, {"git status", Allow}}},
		{"allow Monitor", Settings{Allow: []string{"Monitor"}}, []want{{"curl x", Allow}, {"true", Allow}, {"rm -rf /", Ask}}},
		{"allow Monitor(*)", Settings{Allow: []string{"Monitor(*)"}}, []want{{"curl x", Allow}, {"rm -rf /", Ask}}},
		{"ask Monitor", Settings{Ask: []string{"Monitor"}}, []want{{"true", Ask}, {"curl x", Ask}}},
		{"deny Monitor", Settings{Deny: []string{"Monitor"}}, []want{{"true", Deny}, {"curl x", Deny}}},
		{"deny Monitor(*)", Settings{Deny: []string{"Monitor(*)"}}, []want{{"true", Deny}}},
		{"deny Bash", Settings{Deny: []string{"Bash"}}, []want{{"true", Deny}, {"curl x", Deny}}},
		{"deny Bash(*)", Settings{Deny: []string{"Bash(*)"}}, []want{{"true", Deny}, {"curl x", Deny}}},
		{"allow Bash(*)", Settings{Allow: []string{"Bash(*)"}}, []want{{"curl x", Ask}, {"true", Allow}}},
		// A whole-Bash deny takes Monitor away before a Monitor rule is
		// read (the class tools found it at seed 1: Shipgate said ask).
		{"deny Bash, ask Monitor", Settings{Deny: []string{"Bash"}, Ask: []string{"Monitor"}}, []want{{"true", Deny}, {"curl x", Deny}}},
		{"deny Bash, allow Monitor", Settings{Deny: []string{"Bash"}, Allow: []string{"Monitor"}}, []want{{"true", Deny}, {"curl x", Deny}}},
		{"deny Bash(*), allow Monitor(*)", Settings{Deny: []string{"Bash(*)"}, Allow: []string{"Monitor(*)"}}, []want{{"curl x", Deny}}},
		{"deny Monitor, allow Monitor", Settings{Deny: []string{"Monitor"}, Allow: []string{"Monitor"}}, []want{{"curl x", Deny}}},
		// A Bash deny or ask rule decides a Monitor command before a
		// whole-Monitor allow (the class tools found it at seed 2:
		// Shipgate said they ran).
		{"allow Monitor(*), Bash deny and ask", Settings{Allow: []string{"Monitor(*)"}, Deny: []string{"Bash(npm publish:*)", "Bash(rm:*)"}, Ask: []string{"Bash(git status)"}},
			[]want{{"npm publish", Deny}, {"rm -rf build", Deny}, {"rm -rf /", Deny}, {"git status", Ask}, {"curl x", Allow}}},
		{"allow Monitor, Bash deny", Settings{Allow: []string{"Monitor"}, Deny: []string{"Bash(curl *)"}}, []want{{"curl x", Deny}, {"true", Allow}}},
		{"ask Monitor, Bash deny", Settings{Ask: []string{"Monitor"}, Deny: []string{"Bash(curl *)"}}, []want{{"curl x", Deny}, {"true", Ask}}},
		// A pattern Bash allow matching the command reaches Monitor,
		// beside an allow of the whole tool too (seed 3: Shipgate said
		// the whole tool's allow kept it asking).
		{"allow Bash(**) and Bash", Settings{Allow: []string{"Bash(**)", "Bash"}}, []want{{"curl x", Allow}, {"npm test && curl x", Allow}, {"npm test > /tmp/x", Ask}}},
		{"allow Bash(**)", Settings{Allow: []string{"Bash(**)"}}, []want{{"curl x", Allow}}},
		// acceptEdits reaches it under an allow of the whole Bash tool
		// too (seed 4).
		{"acceptEdits, allow Bash", Settings{DefaultMode: "acceptEdits", Allow: []string{"Bash"}, Deny: []string{"Bash(curl *)"}}, []want{{"rm -rf build", Allow}, {"mkdir -p out", Allow}, {"npm publish", Ask}, {"curl x", Deny}}},
		// acceptEdits reaches a Monitor command as it does a Bash one
		// (the class tools found it at seed 1: Shipgate said ask).
		{"acceptEdits rm", Settings{DefaultMode: "acceptEdits", Allow: []string{"Bash(git *)"}}, []want{{"rm -rf build", Allow}, {"mkdir -p out", Allow}, {"rm -rf /", Ask}}},
	} {
		b := Batch{Class: "monitor", Settings: c.settings}
		for _, w := range c.want {
			b.Cases = append(b.Cases, Case{Class: "monitor", Label: c.name, Call: Call{Tool: "Monitor", Arg: w.cmd}})
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

// TestParserDeadlineTools: the tools in parsedCommand put their command
// through Claude Code's bash parser, whose deadline retryAsks allows for:
// a command over its length limit is refused with the parser's own words
// as a Bash and as a Monitor call (Claude Code 2.1.328, measured), and so
// is one nested too deep to check.
func TestParserDeadlineTools(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs a Claude Code session; not in -short")
	}
	long := "echo " + strings.Repeat("a ", 6000)
	deep := "echo " + strings.Repeat("$(echo ", 300) + strings.Repeat(")", 300)
	var s Session
	for tool := range parsedCommand {
		s.Calls = append(s.Calls, Call{Tool: tool, Arg: long}, Call{Tool: tool, Arg: deep})
	}
	r, err := Driver{Binary: bin}.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range s.Calls {
		want := parseAbortedMarker
		if c.Arg == deep {
			want = "too many to analyze"
		}
		if got := r.Results[j]; got.Decision != Ask || !strings.Contains(got.Text, want) {
			t.Errorf("%s with a %d-character command: Claude Code %s %s %q, want ask with %q", c.Tool, len(c.Arg), ClaudeCodeVersion, got.Decision, clip(got.Text, 200), want)
		}
	}
}
