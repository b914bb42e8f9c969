package conformance

import (
	"context"
	"testing"
)

// TestSearchToolRules measures what Grep and Glob allow rules let run
// (judge's searchWitnesses and unconsultedSearchRule, issue 22). 2.1.328
// offers the two tools only when --tools or --allowedTools names them, so
// the sessions pass --tools. With no rule a search of a folder outside
// the project asks and one inside runs; a bare Grep or Glob allow lets
// the outside search run (a Read deny still stops it); a rule with a
// pattern — Grep(//etc/**), Grep(~/**), Grep(*), and the same for Glob —
// changes nothing.
func TestSearchToolRules(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	calls := []Call{{Tool: "Grep", Arg: "/etc"}, {Tool: "Grep", Arg: "$HOME/.ssh"}, {Tool: "Glob", Arg: "/etc"}, {Tool: "Glob", Arg: "$HOME/.ssh"},
		{Tool: "Grep", Arg: "$PROJ"}, {Tool: "Glob", Arg: "$PROJ"}}
	files := map[string]string{"../home/.ssh/id_rsa": "x\n"}
	run := func(settings string) []Decision {
		t.Helper()
		r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: settings, Args: []string{"--tools", "Bash,Read,Grep,Glob"}, Calls: calls, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		var out []Decision
		for _, x := range r.Results {
			out = append(out, x.Decision)
		}
		return out
	}
	const A, Q, D = Allow, Ask, Deny
	for _, c := range []struct {
		allow, deny string
		want        []Decision
	}{
		{"", "", []Decision{Q, Q, Q, Q, A, A}},
		{`"Grep"`, "", []Decision{A, A, Q, Q, A, A}},
		{`"Glob"`, "", []Decision{Q, Q, A, A, A, A}},
		{`"Grep", "Glob"`, `"Read(~/.ssh/**)"`, []Decision{A, D, A, D, A, A}},
		{`"Read"`, "", []Decision{Q, Q, Q, Q, A, A}},
		{`"Grep(//etc/**)", "Glob(//etc/**)"`, "", []Decision{Q, Q, Q, Q, A, A}},
		{`"Grep(~/**)", "Glob(~/**)"`, "", []Decision{Q, Q, Q, Q, A, A}},
		{`"Grep(*)", "Glob(*)"`, "", []Decision{Q, Q, Q, Q, A, A}},
	} {
		got := run(`{"permissions": {"allow": [` + c.allow + `], "deny": [` + c.deny + `]}}` + "\n")
		for i := range calls {
			if got[i] != c.want[i] {
				t.Errorf("allow [%s] deny [%s]: %s is %s, want %s", c.allow, c.deny, calls[i], got[i], c.want[i])
			}
		}
	}
}
