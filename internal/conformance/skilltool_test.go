package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSkillToolOnTheBinary pins what the Skill tool asks for on 2.1.328
// (issue 22: rate a bare Skill allow by what the skills grant while they
// run). With no rule a skill without allowed-tools launches and one with
// allowed-tools asks ("Execute skill: y"); a bare allow Skill, like
// Skill(y), launches it without a prompt, and its allowed-tools then let
// `npm test` run. So a bare Skill allow grants the allowed-tools of every
// skill the model can invoke: the project's and the user's own, which
// Shipgate cannot see (why it stays a block).
func TestSkillToolOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	files := map[string]string{
		".claude/skills/x/SKILL.md": "---\nname: x\ndescription: says hi\n---\nSay hi.\n",
		".claude/skills/y/SKILL.md": "---\nname: y\ndescription: runs the tests\nallowed-tools: Bash(npm test:*)\n---\nTest.\n",
	}
	calls := []Call{{Tool: "Skill", Arg: "y"}, {Tool: "Bash", Arg: "npm test"}, {Tool: "Skill", Arg: "x"}}
	for _, c := range []struct {
		settings string
		want     []Decision
	}{
		{`{}`, []Decision{Ask, Ask, Allow}},
		{`{"permissions": {"allow": ["Skill"]}}`, []Decision{Allow, Allow, Allow}},
		{`{"permissions": {"allow": ["Skill(y)"]}}`, []Decision{Allow, Allow, Allow}},
		{`{"permissions": {"ask": ["Skill"]}}`, []Decision{Ask, Ask, Ask}},
	} {
		r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: c.settings + "\n", Files: files, Calls: calls})
		if err != nil {
			t.Fatal(err)
		}
		var got []Decision
		for _, x := range r.Results {
			got = append(got, x.Decision)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: Claude Code decided %v on %v, want %v (%v)", c.settings, got, calls, c.want, r.Results)
		}
	}
}

// TestExitPlanModeNotInPrintMode pins why lattice lists ExitPlanMode by
// what the binary says of it rather than by a measurement: 2.1.328 does
// not offer the tool in print mode, in the default mode or in plan mode,
// with or without an allow rule, so no session of the harness can call it.
func TestExitPlanModeNotInPrintMode(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	if err := CheckVersion(ctx, bin); err != nil {
		t.Fatal(err)
	}
	for _, settings := range []string{`{}`, `{"permissions": {"allow": ["ExitPlanMode"]}}`, `{"permissions": {"defaultMode": "plan", "allow": ["ExitPlanMode"]}}`} {
		r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: settings + "\n", Calls: []Call{{Tool: "ExitPlanMode"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) != 1 || !strings.Contains(r.Results[0].Text, "ExitPlanMode is disabled for this session") {
			t.Errorf("%s: ExitPlanMode gave %v; want it not offered in print mode (then measure it, and move it to the measured tools)", settings, r.Results)
		}
	}
}
