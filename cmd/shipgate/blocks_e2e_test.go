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
