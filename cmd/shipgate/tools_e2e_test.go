package main

// Bare allows of tools, rated by what the tool reaches (issue 22, "Blocks
// on tools that reach nothing"): Claude Code 2.1.328 runs AskUserQuestion's
// question, TodoWrite, the task tools, Agent and the cron and messaging
// tools with no rule (measured), so a bare allow of one grants nothing;
// WebSearch asks with no rule and reaches the provider's search (a review,
// not a block); Skill grants what the repository's skills pre-approve
// while they run. Each case goes through the App (the fake GitHub) and
// `shipgate diff` (real git), which must agree.

import (
	"testing"
)

func toolCases() []surfaceCase {
	allow := func(rules ...string) map[string]string {
		return map[string]string{".claude/settings.json": settingsJSON(rules, nil)}
	}
	none := allow("Bash(npm test)")
	skill := func(tools string) string {
		return "---\nname: release\ndescription: cuts a release\nallowed-tools: " + tools + "\n---\nRelease it.\n"
	}
	withSkill := func(tools string, rules ...string) map[string]string {
		m := allow(rules...)
		m[".claude/skills/release/SKILL.md"] = skill(tools)
		return m
	}
	return []surfaceCase{
		{name: "AskUserQuestion", base: none, head: allow("Bash(npm test)", "AskUserQuestion"), decision: "allow"},
		{name: "TodoWrite and the task tools", base: none,
			head: allow("Bash(npm test)", "TodoWrite", "TaskList", "TaskGet", "TaskCreate", "TaskUpdate"), decision: "allow"},
		{name: "WebSearch is a review, not a block", base: none, head: allow("Bash(npm test)", "WebSearch"),
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		{name: "Skill with the repository's skill that reads only", base: none,
			head: withSkill("Read(./docs/**)", "Bash(npm test)", "Skill"), decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		{name: "Skill with the repository's skill that runs npm", base: none,
			head: withSkill("Bash(npm run release:*)", "Bash(npm test)", "Skill"), decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
		{name: "Skill with no skill in the comparison fails closed", base: none, head: allow("Bash(npm test)", "Skill"),
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "Monitor runs any command, as Bash", base: none, head: allow("Bash(npm test)", "Monitor"),
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
	}
}

// TestE2EBareToolAppAndCLI runs every bare-tool case through the App and
// the CLI.
func TestE2EBareToolAppAndCLI(t *testing.T) {
	t.Parallel()
	runAppAndCLI(t, newE2E(t), "bt", toolCases())
}
