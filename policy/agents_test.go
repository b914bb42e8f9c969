package policy

import (
	"strings"
	"testing"
)

var agentNames = []string{"claude-code", "codex", "gemini-cli", "copilot-cli", "cursor", "vscode", "opencode"}

const scoped = `version: 1
checks:
  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:
    action: block
    agents: [vscode, cursor]
intent:
  denied: ["rm -rf /"]
  agents: [claude-code, opencode]
`

// TestAgentsScope holds a check raise to the agents it names, and intents
// to theirs.
func TestAgentsScope(t *testing.T) {
	p, err := Parse("p.yml", []byte(scoped), Options{Checks: known, Agents: agentNames})
	if err != nil {
		t.Fatal(err)
	}
	const id = "SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"
	for _, c := range []struct {
		agent string
		want  Action
	}{{"vscode", Block}, {"cursor", Block}, {"claude-code", RequireReview}, {"codex", RequireReview}, {"", RequireReview}} {
		if got := p.ActionForAgent(id, c.agent, RequireReview); got != c.want {
			t.Errorf("ActionForAgent(%s) = %s, want %s", c.agent, got, c.want)
		}
	}
	if got := strings.Join(p.IntentAgents(), ","); got != "claude-code,opencode" {
		t.Errorf("IntentAgents = %s", got)
	}
	if got := strings.Join((*Policy)(nil).IntentAgents(), ","); got != "claude-code" {
		t.Errorf("default IntentAgents = %s", got)
	}
}

func TestAgentsErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"unknown", "version: 1\nintent:\n  agents: [vscodee]\n", `p.yml:3:12: intent.agents: unknown agent "vscodee"`},
		{"suggestion", "version: 1\nintent:\n  agents: [cursr]\n", `did you mean "cursor"?`},
		{"empty", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    agents: []\n", "is empty"},
		{"twice", "version: 1\nintent:\n  agents: [codex, codex]\n", `names "codex" twice`},
		{"not a list", "version: 1\nintent:\n  agents: codex\n", "must be a list of strings"},
	}
	for _, c := range cases {
		_, err := Parse("p.yml", []byte(c.body), Options{Checks: known, Agents: agentNames})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestAgentsMergeAndLoosen(t *testing.T) {
	const id = "SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"
	parse := func(s string) *Policy {
		p, err := Parse("p.yml", []byte(s), Options{Checks: known, Agents: agentNames})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	org := parse("version: 1\nchecks:\n  " + id + ":\n    action: block\n    agents: [codex]\n")
	repo := parse("version: 1\nchecks:\n  " + id + ":\n    action: block\n    agents: [vscode]\n")
	m := Merge(org, repo)
	for _, a := range []string{"codex", "vscode"} {
		if m.ActionForAgent(id, a, RequireReview) != Block {
			t.Errorf("merged: %s should block", a)
		}
	}
	if m.ActionForAgent(id, "cursor", RequireReview) != RequireReview {
		t.Errorf("merged: cursor is in neither scope")
	}
	all := parse("version: 1\nchecks:\n  " + id + ":\n    action: block\n")
	if Merge(all, repo).ActionForAgent(id, "cursor", RequireReview) != Block {
		t.Errorf("an unscoped org raise stays unscoped")
	}
	loose := Loosenings(all, repo)
	if len(loose) != 1 || !strings.Contains(loose[0], "scoped to agents vscode") {
		t.Errorf("scoping an unscoped raise loosens: %v", loose)
	}
	if l := Loosenings(org, repo); len(l) != 1 || !strings.Contains(l[0], "no longer names codex") {
		t.Errorf("dropping codex loosens: %v", l)
	}
	if l := Loosenings(repo, all); len(l) != 0 {
		t.Errorf("unscoping only raises: %v", l)
	}
	in := parse("version: 1\nintent:\n  denied: [\"rm -rf /\"]\n  agents: [claude-code, opencode]\n")
	out := parse("version: 1\nintent:\n  denied: [\"rm -rf /\"]\n")
	if l := Loosenings(in, out); len(l) != 1 || !strings.Contains(l[0], "intent.agents no longer names opencode") {
		t.Errorf("intent scope loosened: %v", l)
	}
}
