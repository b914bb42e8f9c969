package conformance

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRedirectedTailRules measures what a Bash pattern rule whose fixed
// text after its last star redirects to a file lets run (judge's
// redirectedTail, issue 22: the allowed-tools entry `Bash(task-master:*,
// npm install -g task-master-ai, mkdir -p, cat >, grep, echo, basename,
// date)` of carlrannaberg/claudekit's spec/decompose command). Claude Code
// 2.1.328 reads it as one rule (allowed-tools split on commas and blanks
// outside parentheses only): `task-master list`, `npm install -g
// task-master-ai` and `mkdir -p x/y` ask with it as without it. Each probe
// is a line the rule matches, with a star's text that tries to turn the
// tail's redirection into something else; with the rule live (in a running
// command's allowed-tools, and as a settings allow rule) no probe runs a
// program: each asks or is refused, or bash cannot parse it (a quote that
// never closes: Claude Code lets it through, bash exits with "unexpected
// EOF").
func TestRedirectedTailRules(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	const tail = ", npm install -g task-master-ai, mkdir -p, cat >, grep, echo, basename, date"
	const rule = "Bash(task-master:*" + tail + ")"
	probes := []Call{
		{Tool: "Bash", Arg: "task-master:x" + tail},
		{Tool: "Bash", Arg: "task-master:" + tail},
		{Tool: "Bash", Arg: "task-master:x 'q" + tail},
		{Tool: "Bash", Arg: "task-master:x \"q" + tail},
		{Tool: "Bash", Arg: "task-master:x #" + tail},
		{Tool: "Bash", Arg: "task-master:x" + tail + " #" + tail},
		{Tool: "Bash", Arg: "task-master:x; npm publish; 'q" + tail},
		{Tool: "Bash", Arg: "task-master:x && npm publish" + tail},
		{Tool: "Bash", Arg: "task-master:x\nnpm publish" + tail},
		{Tool: "Bash", Arg: "task-master:x $(npm publish)" + tail},
		{Tool: "Bash", Arg: "task-master:x `npm publish`" + tail},
		{Tool: "Bash", Arg: "task-master:x() { npm publish" + tail},
		{Tool: "Bash", Arg: "task-master:x [[ a" + tail},
		{Tool: "Bash", Arg: "task-master:x <<EOF" + tail},
	}
	asksAnyway := []Call{
		{Tool: "Bash", Arg: "task-master list"},
		{Tool: "Bash", Arg: "npm install -g task-master-ai"},
		{Tool: "Bash", Arg: "mkdir -p x/y"},
	}
	check := func(where string, rs []Result, calls []Call) {
		t.Helper()
		for i, r := range rs {
			ran := strings.Contains(r.Text, stubMarker)
			parseFailed := strings.Contains(r.Text, "unexpected EOF")
			if ran || r.Decision == Allow && !parseFailed {
				t.Errorf("%s: %q ran under %s: %s %q", where, calls[i].Arg, rule, r.Decision, clip(r.Text, 200))
			}
		}
	}
	front := "---\ndescription: d\nallowed-tools: Read, Task, Bash(npm test:*), " + rule + "\n---\nGo.\n"
	calls := append(append([]Call{{Tool: "Skill", Arg: "g"}, {Tool: "Bash", Arg: "npm test"}}, probes...), asksAnyway...)
	r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: `{"permissions": {"allow": ["Skill(g)"]}}` + "\n",
		Files: map[string]string{".claude/commands/g.md": front}, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	if r.Results[0].Decision != Allow || r.Results[1].Decision != Allow {
		t.Fatalf("the command's own grant is not live (Skill: %s %q; npm test: %s %q): nothing is measured",
			r.Results[0].Decision, r.Results[0].Text, r.Results[1].Decision, r.Results[1].Text)
	}
	check("command allowed-tools", r.Results[2:], calls[2:])
	for i, c := range asksAnyway {
		if d := r.Results[2+len(probes)+i].Decision; d != Ask {
			t.Errorf("command allowed-tools: %q is %s, want ask (the entry is one rule, not split on its commas)", c.Arg, d)
		}
	}
	must := func(b []byte, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	settings := string(must(json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{rule, "Bash(npm run * > out.txt)"}}}))) + "\n"
	more := []Call{{Tool: "Bash", Arg: "npm run x > out.txt"}, {Tool: "Bash", Arg: "npm run x 'q > out.txt"}, {Tool: "Bash", Arg: "npm run x # > out.txt"}}
	r, err = Driver{Binary: bin}.Run(ctx, Session{Settings: settings, Calls: append(probes, more...)})
	if err != nil {
		t.Fatal(err)
	}
	check("settings", r.Results, append(probes, more...))
}
