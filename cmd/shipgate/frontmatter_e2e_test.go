package main

import "testing"

// frontmatterRetryCases are skills, commands and subagents whose
// frontmatter is not YAML as written but is once Claude Code has quoted
// its plain values (agentfiles/claude retryBlock): the subagent format
// Claude Code's /agents writes, a description holding "Examples:
// <example>Context: …" on one line. Claude Code reads them, so Shipgate
// judges what they grant, not that they failed to parse.
func frontmatterRetryCases() []quietCase {
	const desc = "description: Use this agent when reviewing code. Examples: <example>Context: the user wrote a change. user: 'review it' assistant: 'I will use the reviewer'</example>\n"
	base := map[string]string{"README.md": "# r\n"}
	return []quietCase{
		{name: "a subagent in the /agents format with read-only tools passes", base: base,
			head:     map[string]string{".claude/agents/reviewer.md": "---\nname: reviewer\n" + desc + "tools: Read, Grep, Glob\ncolor: green\n---\nYou review code.\n"},
			decision: "allow"},
		{name: "a command whose description holds colons and allows Bash(*) blocks", base: base,
			head:     map[string]string{".claude/commands/ship.md": "---\n" + desc + "allowed-tools: Bash(*)\n---\nShip it.\n"},
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "a skill whose description holds colons and allows npm test is a review of the rule", base: base,
			head:     map[string]string{".claude/skills/t/SKILL.md": "---\nname: t\n" + desc + "allowed-tools: Bash(npm test:*)\n---\nTest.\n"},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED", contains: "npm test"},
		{name: "a command whose argument-hint is [issue-id] [reason] and allows Bash(*) blocks", base: base,
			head:     map[string]string{".claude/commands/close.md": "---\ndescription: Close an issue\nargument-hint: [issue-id] [reason]\nallowed-tools: Bash(*)\n---\nClose it.\n"},
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "a skill whose frontmatter does not parse even quoted is still a finding", base: base,
			head:     map[string]string{".claude/skills/u/SKILL.md": "---\nname: u\n" + desc + "allowed-tools: Read\nfoo: bar\n  baz: qux\n---\nU.\n"},
			decision: "require_review", check: "CONFIG-PARSE-FAILED"},
	}
}

// TestE2EFrontmatterRetryAppAndCLI runs the retried-frontmatter cases
// through the App and the CLI.
func TestE2EFrontmatterRetryAppAndCLI(t *testing.T) {
	t.Parallel()
	runQuietCases(t, "fm", frontmatterRetryCases())
}

// writeWitnessCases: a bare Write allow is witnessed by a file it now
// writes, not by the tool's name (the seventh round printed "the agent
// can now write `Write`").
func writeWitnessCases() []quietCase {
	base := map[string]string{"README.md": "# r\n"}
	return []quietCase{
		{name: "a command allowing bare Write names a file it now writes", base: base,
			head:     map[string]string{".claude/commands/gen.md": "---\ndescription: Generate\nallowed-tools: Write\n---\nGenerate.\n"},
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW", contains: "write `.env`", lacks: "write `Write`"},
		// Bash(sed:*) was witnessed by a bare `sed` (the seventh round's
		// sample): `sed -i` of a file asks with no rule and runs under it
		// (TestSedWitnessOnTheBinary).
		{name: "a settings allow of Bash(sed:*) names an in-place edit it now runs", base: base,
			head:     map[string]string{".claude/settings.json": "{\"permissions\": {\"allow\": [\"Bash(sed:*)\"]}}\n"},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED", contains: "sed -i s/a/b/ .env"},
		// Bash(*:--help) was witnessed by `:--help`, which runs no
		// program: the leading * takes any command before the tail
		// (TestLeadingWildcardWitnessOnTheBinary: whoami runs).
		{name: "a settings allow of Bash(*:--help) names a command its leading * now runs", base: base,
			head:     map[string]string{".claude/settings.json": "{\"permissions\": {\"allow\": [\"Bash(*:--help)\"]}}\n"},
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW", contains: "bash -c whoami :--help", lacks: "run `:--help`"},
	}
}

// TestE2EWriteWitnessAppAndCLI runs the Write witness case through the
// App and the CLI.
func TestE2EWriteWitnessAppAndCLI(t *testing.T) {
	t.Parallel()
	runQuietCases(t, "ww", writeWitnessCases())
}
