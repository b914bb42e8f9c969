package conformance

import (
	"context"
	"strings"
	"testing"
)

// TestSkillNameOnTheBinary pins what a skill and a command answer to,
// which is what a rename changes (gather/renames.go): a skill is invoked by
// the name its frontmatter gives, its folder's name when it gives none;
// a command by its file's path under .claude/commands.
func TestSkillNameOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	files := map[string]string{
		".claude/skills/folder-a/SKILL.md": "---\nname: named-a\ndescription: a\nallowed-tools: Bash(npm test:*)\n---\nA.\n",
		".claude/skills/folder-b/SKILL.md": "---\ndescription: b\nallowed-tools: Bash(npm test:*)\n---\nB.\n",
		".claude/commands/grp/cmd-c.md":    "---\ndescription: c\nallowed-tools: Bash(npm test:*)\n---\nC.\n",
		".claude/commands/cmd-d.md":        "---\nname: named-d\ndescription: d\nallowed-tools: Bash(npm test:*)\n---\nD.\n",
	}
	calls := []struct {
		name    string
		answers bool
	}{
		{"named-a", true}, {"folder-a", true}, {"folder-b", true}, // a skill: its frontmatter's name and its folder's
		{"grp:cmd-c", true}, {"cmd-c", false}, // a command in a folder: grp:name, not name
		{"cmd-d", true}, {"named-d", false}, // a command's frontmatter name is not a name it answers
	}
	var cs []Call
	for _, c := range calls {
		cs = append(cs, Call{Tool: "Skill", Arg: c.name})
	}
	r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: `{"permissions": {"allow": ["Skill"]}}` + "\n", Files: files, Calls: cs})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != len(calls) {
		t.Fatalf("%d results for %d calls: %v", len(r.Results), len(calls), r.Results)
	}
	for i, c := range calls {
		launched := strings.HasPrefix(r.Results[i].Text, "Launching skill: "+c.name)
		unknown := strings.Contains(r.Results[i].Text, "Unknown skill: "+c.name)
		if launched != c.answers || launched == unknown {
			t.Errorf("Skill(%s): %v %q; want answered %v", c.name, r.Results[i].Decision, r.Results[i].Text, c.answers)
		}
	}
}
