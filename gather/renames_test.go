package gather

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestRenames: which deleted and added agent-config files the gatherer
// pairs as one moved (the same grant), and why the others are not.
func TestRenames(t *testing.T) {
	skill := "---\ndescription: lint\nallowed-tools: Bash(npm run lint:*)\n---\nRun scripts/check.sh.\n"
	sh := "#!/bin/sh\nnpm run lint\n"
	cmd := "---\nallowed-tools: Bash(ln:*)\n---\nLink.\n"
	manifest := `{"name": "ctx", "mcpServers": "./.mcp.json"}`
	market := func(src string) string {
		return `{"name": "m", "plugins": [{"name": "ctx", "source": "` + src + `"}]}`
	}
	for _, c := range []struct {
		name       string
		base, head map[string]string // head: changes to base ("" deletes)
		want       string            // "from→to" pairs, comma-separated
		note       string            // a note's substring when not paired
	}{
		{name: "skill folder renamed",
			base: map[string]string{".claude/skills/a/SKILL.md": skill, ".claude/skills/a/scripts/check.sh": sh},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/a/scripts/check.sh": "", ".claude/skills/b/SKILL.md": skill, ".claude/skills/b/scripts/check.sh": sh},
			want: ".claude/skills/a/SKILL.md→.claude/skills/b/SKILL.md"},
		{name: "skill folder renamed, SKILL.md edited on the way (compared by the engine)",
			base: map[string]string{".claude/skills/a/SKILL.md": skill},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/b/SKILL.md": skill + "More.\n"},
			want: ".claude/skills/a/SKILL.md→.claude/skills/b/SKILL.md"},
		{name: "skill folder renamed, script changed",
			base: map[string]string{".claude/skills/a/SKILL.md": skill, ".claude/skills/a/scripts/check.sh": sh},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/a/scripts/check.sh": "", ".claude/skills/b/SKILL.md": skill, ".claude/skills/b/scripts/check.sh": sh + "rm -rf /\n"},
			note: "changed on the way"},
		{name: "skill folder renamed, script left behind",
			base: map[string]string{".claude/skills/a/SKILL.md": skill, ".claude/skills/a/scripts/check.sh": sh},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/b/SKILL.md": skill},
			note: "holds 2 files at the base"},
		{name: "skill script reaching above its folder",
			base: map[string]string{".claude/skills/a/SKILL.md": skill, ".claude/skills/a/run.sh": "#!/bin/sh\n. ../common.sh\n"},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/a/run.sh": "", ".claude/skills/b/SKILL.md": skill, ".claude/skills/b/run.sh": "#!/bin/sh\n. ../common.sh\n"},
			note: "above its folder"},
		{name: "skill moved from a nested project to the root",
			base: map[string]string{"pkg/.claude/skills/a/SKILL.md": skill},
			head: map[string]string{"pkg/.claude/skills/a/SKILL.md": "", ".claude/skills/a/SKILL.md": skill},
			note: "another skills folder"},
		{name: "skill moved from an example folder into .github/skills",
			base: map[string]string{"examples/skills/a/SKILL.md": skill},
			head: map[string]string{"examples/skills/a/SKILL.md": "", ".github/skills/a/SKILL.md": skill},
			note: "another skills folder"},
		{name: "skill renamed under a Skill(…) rule",
			base: map[string]string{".claude/skills/a/SKILL.md": skill, ".claude/settings.json": `{"permissions":{"deny":["Skill(b)"]}}`},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/b/SKILL.md": skill},
			note: "rule on a Skill name"},
		{name: "skill renamed to a command's name",
			base: map[string]string{".claude/skills/a/SKILL.md": skill, ".claude/commands/b.md": "Say hi.\n"},
			head: map[string]string{".claude/skills/a/SKILL.md": "", ".claude/skills/b/SKILL.md": skill},
			note: "answers b too"},
		{name: "command moved to another folder",
			base: map[string]string{".claude/commands/link.md": cmd},
			head: map[string]string{".claude/commands/link.md": "", ".claude/commands/tools/link.md": cmd + "Edited.\n"},
			want: ".claude/commands/link.md→.claude/commands/tools/link.md"},
		{name: "command renamed with the same bytes",
			base: map[string]string{".claude/commands/link.md": cmd},
			head: map[string]string{".claude/commands/link.md": "", ".claude/commands/migrate.md": cmd},
			want: ".claude/commands/link.md→.claude/commands/migrate.md"},
		{name: "command moved to another project",
			base: map[string]string{".claude/commands/link.md": cmd},
			head: map[string]string{".claude/commands/link.md": "", "pkg/.claude/commands/link.md": cmd},
			note: "another project"},
		{name: "two deleted commands that could be the moved one",
			base: map[string]string{".claude/commands/a/link.md": cmd, ".claude/commands/b/link.md": cmd},
			head: map[string]string{".claude/commands/a/link.md": "", ".claude/commands/b/link.md": "", ".claude/commands/link.md": cmd},
			note: "more than one deleted file"},
		{name: "plugin folder renamed, marketplace re-pointed",
			base: map[string]string{"plugins/ctx/.claude-plugin/plugin.json": manifest, "plugins/ctx/.mcp.json": `{"mcpServers":{}}`, ".claude-plugin/marketplace.json": market("./plugins/ctx")},
			head: map[string]string{"plugins/ctx/.claude-plugin/plugin.json": "", "plugins/ctx/.mcp.json": "", "plugins/ctx-plugin/.claude-plugin/plugin.json": manifest, "plugins/ctx-plugin/.mcp.json": `{"mcpServers":{}}`, ".claude-plugin/marketplace.json": market("./plugins/ctx-plugin")},
			want: "plugins/ctx/.claude-plugin/plugin.json→plugins/ctx-plugin/.claude-plugin/plugin.json,plugins/ctx/.mcp.json→plugins/ctx-plugin/.mcp.json"},
		{name: "plugin folder renamed, marketplace still naming the old folder",
			base: map[string]string{"plugins/ctx/.claude-plugin/plugin.json": manifest, ".claude-plugin/marketplace.json": market("./plugins/ctx")},
			head: map[string]string{"plugins/ctx/.claude-plugin/plugin.json": "", "plugins/ctx-plugin/.claude-plugin/plugin.json": manifest},
			note: "still names the old folder"},
		{name: "plugin moved to another parent with no marketplace",
			base: map[string]string{"plugins/ctx/.claude-plugin/plugin.json": manifest},
			head: map[string]string{"plugins/ctx/.claude-plugin/plugin.json": "", "vendor/ctx/.claude-plugin/plugin.json": manifest},
			note: "no marketplace"},
		{name: "project folder with a .env renamed",
			base: map[string]string{"pythonFiles/.env": "PYTHONPATH=./lib\n", "pythonFiles/lib/x.py": "print(1)\n"},
			head: map[string]string{"pythonFiles/.env": "", "pythonFiles/lib/x.py": "", "python_files/.env": "PYTHONPATH=./lib\n", "python_files/lib/x.py": "print(1)\n"},
			want: "pythonFiles/.env→python_files/.env"},
		{name: "project folder with a .env renamed, the folder it names changed",
			base: map[string]string{"pythonFiles/.env": "PYTHONPATH=./lib\n", "pythonFiles/lib/x.py": "print(1)\n"},
			head: map[string]string{"pythonFiles/.env": "", "pythonFiles/lib/x.py": "", "python_files/.env": "PYTHONPATH=./lib\n", "python_files/lib/x.py": "import os\n"},
			note: "changed on the way"},
		{name: "a .env moved under another folder",
			base: map[string]string{"pythonFiles/.env": "PYTHONPATH=./lib\n"},
			head: map[string]string{"pythonFiles/.env": "", "src/python_files/.env": "PYTHONPATH=./lib\n"},
			note: "moved to another folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &memSource{base: c.base, head: with(c.base, c.head)}
			res, err := Gather(context.Background(), src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res.Input.Renames {
				got = append(got, r.From+"→"+r.To)
			}
			if strings.Join(got, ",") != c.want {
				t.Errorf("renames %q, want %q (notes %q)", strings.Join(got, ","), c.want, res.Notes)
			}
			if c.note != "" && !strings.Contains(fmt.Sprint(res.Notes), c.note) {
				t.Errorf("notes %q, want one saying %q", res.Notes, c.note)
			}
		})
	}
}
