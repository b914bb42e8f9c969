package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestE2EQuietManySkillsAppAndCLI: a pull request that edits the prose of
// thirty Copilot CLI skills of 16 KB each is read whole (issue 22: 11
// pairs of TanStack/router and wshobson/agents blocked with
// CONFIG-PARSE-FAILED "the comparison's work budget was spent" when a
// skill's Markdown was charged as rules), and a grant in the last of them
// in path order is still found.
func TestE2EQuietManySkillsAppAndCLI(t *testing.T) {
	t.Parallel()
	runQuietCases(t, "skills", quietManySkillsCases())
}

func quietManySkillsCases() []quietCase {
	prose := strings.Repeat("The router loads each route's data before it renders; see `loader` and `beforeLoad`.\n", 190)
	skills := func(edit string, last string) map[string]string {
		m := map[string]string{}
		for i := 0; i < 30; i++ {
			tools := "shell(npm test), read"
			if i == 29 && last != "" {
				tools = last
			}
			m[fmt.Sprintf(".github/skills/s%02d/SKILL.md", i)] = fmt.Sprintf("---\nname: s%02d\ndescription: skill %d\nallowed-tools: %s\n---\n%s%s", i, i, tools, prose, edit)
		}
		return m
	}
	return []quietCase{
		{name: "thirty skills' prose edited",
			base: skills("", ""), head: skills("One more line.\n", ""), decision: "allow"},
		{name: "thirty skills, the last one allowing git push",
			base: skills("", ""), head: skills("One more line.\n", "shell(npm test), shell(git push), read"), decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED", contains: "git push"},
	}
}

// TestE2EQuietRedirectedTailAppAndCLI: an allowed-tools entry whose text
// after its last star redirects to a file grants nothing (measured on
// Claude Code 2.1.328: internal/conformance TestRedirectedTailRules), so
// it is an advisory saying why, not a review (issue 22: the
// carlrannaberg/claudekit spec/decompose command); a similar entry with
// no redirection is still judged a grant.
func TestE2EQuietRedirectedTailAppAndCLI(t *testing.T) {
	t.Parallel()
	command := func(tools string) string {
		return "---\ndescription: Decompose a specification into tasks\nallowed-tools: " + tools + "\n---\nDecompose $ARGUMENTS.\n"
	}
	base := map[string]string{".claude/commands/spec/decompose.md": command("Read, Task")}
	runQuietCases(t, "tail", []quietCase{
		{name: "a tail that redirects to a file",
			base:     base,
			head:     map[string]string{".claude/commands/spec/decompose.md": command("Read, Task, Bash(task-master:*, npm install -g task-master-ai, mkdir -p, cat >, grep, echo, basename, date)")},
			decision: "allow", check: "PERMISSION-RULE-INVALID", contains: "redirects output to a file", lacks: "can now run"},
		{name: "the same entry without the redirection",
			base:     base,
			head:     map[string]string{".claude/commands/spec/decompose.md": command("Read, Task, Bash(task-master:*, npm install -g task-master-ai, mkdir -p, grep, echo, basename, date)")},
			decision: "require_review", check: "PERMISSION-ALLOW-EXPANDED"},
	})
}

// TestE2EQuietNoSuchToolAppAndCLI: an allow of a tool Claude Code 2.1.328
// does not have (TodoRead, AgentTool: carlrannaberg/claudekit's commands
// and settings) grants nothing, so it is an advisory saying so, not a
// WILDCARD-ALLOW block (issue 22; measured: internal/conformance
// TestToolNamesOnTheBinary). A name the binary does spell — an alias it
// keeps (Brief), a tool Shipgate does not model — or one it reads as a
// possible MCP tool (with "_") still blocks as before.
func TestE2EQuietNoSuchToolAppAndCLI(t *testing.T) {
	t.Parallel()
	allow := func(rules ...string) string {
		return "{\n  \"permissions\": {\"allow\": [\"Bash(npm test:*)\"" + strings.Repeat(", %q", len(rules)) + "]}\n}\n"
	}
	settings := func(rules ...string) map[string]string {
		args := make([]any, len(rules))
		for i, r := range rules {
			args[i] = r
		}
		return map[string]string{".claude/settings.json": fmt.Sprintf(allow(rules...), args...)}
	}
	command := func(tools string) map[string]string {
		return map[string]string{".claude/commands/spec/create.md": "---\ndescription: Write a specification\nallowed-tools: " + tools + "\n---\nWrite it.\n"}
	}
	runQuietCases(t, "nosuch", []quietCase{
		{name: "a bare TodoRead allow in settings",
			base: settings(), head: settings("TodoRead"),
			decision: "allow", check: "PERMISSION-RULE-INVALID", contains: "has no tool TodoRead", lacks: "can now use"},
		{name: "TodoRead and AgentTool in a command's allowed-tools",
			base: command("Read, Write"), head: command("Read, Write, TodoWrite, TodoRead, AgentTool"),
			decision: "allow", check: "PERMISSION-RULE-INVALID", contains: "has no tool AgentTool", lacks: "can now use"},
		{name: "an alias the binary keeps still blocks",
			base: settings(), head: settings("Brief"),
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
		{name: "a name the binary may read as an MCP tool still blocks",
			base: settings(), head: settings("Todo_read"),
			decision: "block", check: "PERMISSION-WILDCARD-ALLOW"},
	})
}
