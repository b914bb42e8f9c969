package conformance

import (
	"context"
	"testing"
)

// TestFrontmatterRetryOnTheBinary measures what Claude Code does with a
// skill whose frontmatter is not YAML as written (agentfiles/claude
// retryBlock, read from the binary's parser): a description holding
// ": " on one line, as /agents writes it, is quoted and the block read,
// so the skill's allowed-tools are live; a block that is not YAML even
// quoted is ignored, and the same allowed-tools grant nothing. The fake
// model invokes the skill (allowed by the project's settings), then runs
// `npm test`, which asks with no rule.
func TestFrontmatterRetryOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	ctx := context.Background()
	const desc = "description: Use this skill when tests fail. Examples: <example>Context: the user asks. user: 'run it'</example>\n"
	for _, c := range []struct {
		name, front string
		live        bool
	}{
		{"quoted by the retry", "name: g\n" + desc + "allowed-tools: Bash(npm test:*)\n", true},
		{"not YAML even quoted", "name: g\n" + desc + "allowed-tools: Bash(npm test:*)\nfoo: bar\n  baz: qux\n", false},
		// A value that opens and closes a list but has text after it
		// (beads' commands): Bun refuses it as a list, so it is quoted.
		{"a [...] value with text after the list", "name: g\nargument-hint: [issue-id] [reason]\nallowed-tools: Bash(npm test:*)\n", true},
	} {
		files := map[string]string{".claude/skills/g/SKILL.md": "---\n" + c.front + "---\nRun the tests.\n"}
		r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: `{"permissions": {"allow": ["Skill(g)"]}}` + "\n", Files: files,
			Calls: []Call{{Tool: "Skill", Arg: "g"}, {Tool: "Bash", Arg: "npm test"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) != 2 || r.Results[0].Decision != Allow {
			t.Fatalf("%s: the skill did not launch (%v): nothing is measured", c.name, r.Results)
		}
		if got := r.Results[1].Decision == Allow; got != c.live {
			t.Errorf("%s: npm test is %s (%q); want its allowed-tools live %v", c.name, r.Results[1].Decision, clip(r.Results[1].Text, 160), c.live)
		}
	}
}
