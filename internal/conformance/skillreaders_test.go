package conformance

import (
	"context"
	"testing"
)

// readerProbes are the calls that would newly run if an allowed-tools
// rule over grep or find granted more than reads of the project: paths
// outside the working directories (as an operand, through -f and
// --exclude-from) and find's actions that run a program or write.
// The last two read the project and run with no rule.
var readerProbes = []Call{
	{Tool: "Bash", Arg: "grep -r x /etc/hostname"},
	{Tool: "Bash", Arg: "grep -f /etc/hostname README.md"},
	{Tool: "Bash", Arg: "grep --exclude-from=/etc/hostname -r x ."},
	{Tool: "Bash", Arg: "find /etc -name x"},
	{Tool: "Bash", Arg: "find . -name x -delete"},
	{Tool: "Bash", Arg: "find . -exec rm {} ;"},
	{Tool: "Bash", Arg: "find . -execdir rm {} ;"},
	{Tool: "Bash", Arg: "find . -fprint out.txt"},
	{Tool: "Bash", Arg: "find . -fls out.txt"},
	{Tool: "Bash", Arg: "grep x README.md"},
	{Tool: "Bash", Arg: "find . -name x"},
}

// TestSkillReaderRules measures what Bash(grep:*), Bash(grep *),
// Bash(find:*) and Bash(find *) add in a skill's or a command's
// allowed-tools (judge's pathCheckedReaders argument, issue 22): the
// fake model invokes the skill (Skill, allowed by the project's settings)
// and then, in the same message, makes every probe. `npm test`, allowed
// by the same allowed-tools line, must run — the skill's grants are live
// — and every probe must be decided as it is under the same skill without
// the reader rule. Measured on 2.1.328: they are (paths outside the
// project still ask, find's -delete/-exec/-fprint/-fls still ask), so in
// allowed-tools as in settings these rules add nothing.
func TestSkillReaderRules(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	files := func(kind, tools string) map[string]string {
		front := "---\ndescription: search the code\nallowed-tools: Bash(npm test:*)" + tools + "\n---\nSearch.\n"
		if kind == "skill" {
			return map[string]string{".claude/skills/g/SKILL.md": "---\nname: g" + front[3:]}
		}
		return map[string]string{".claude/commands/g.md": front}
	}
	calls := append([]Call{{Tool: "Skill", Arg: "g"}, {Tool: "Bash", Arg: "npm test"}}, readerProbes...)
	run := func(kind, tools string) []Result {
		t.Helper()
		r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: `{"permissions": {"allow": ["Skill(g)"]}}` + "\n", Files: files(kind, tools), Calls: calls})
		if err != nil {
			t.Fatal(err)
		}
		if r.Results[0].Decision != Allow || r.Results[1].Decision != Allow {
			t.Fatalf("%s %q: the skill's own grant is not live (Skill: %s %q; npm test: %s %q): nothing is measured",
				kind, tools, r.Results[0].Decision, r.Results[0].Text, r.Results[1].Decision, r.Results[1].Text)
		}
		return r.Results[2:]
	}
	for _, kind := range []string{"skill", "command"} {
		base := run(kind, "")
		for _, rule := range []string{"Bash(grep:*)", "Bash(grep *)", "Bash(find:*)", "Bash(find *)"} {
			got := run(kind, ", "+rule)
			for i, p := range readerProbes {
				if got[i].Decision != base[i].Decision {
					t.Errorf("%s allowed-tools %s: %s is %s (%q), without the rule %s: the rule grants it", kind, rule, p, got[i].Decision, clip(got[i].Text, 160), base[i].Decision)
				}
				if i < len(readerProbes)-2 && got[i].Decision == Allow {
					t.Errorf("%s allowed-tools %s: %s runs (%q)", kind, rule, p, clip(got[i].Text, 160))
				}
			}
		}
	}
}
