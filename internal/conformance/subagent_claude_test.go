package conformance

import (
	"context"
	"encoding/json"
	"testing"
)

// TestSubagentPlanModeOnTheBinary measures what a subagent started by the
// Agent tool may do, by the calls the fake model makes in the subagent's
// own conversation (Session.SubCalls). Claude Code 2.1.328, measured:
//
//   - In plan mode the Agent call itself goes to the auto-mode classifier,
//     with no rule and under allow Agent(general-purpose) alike.
//   - Started (the classifier approving), the subagent runs in plan mode:
//     its Bash calls go to the classifier (and run, approved), Read reads
//     anywhere, Edit and Write are refused, `rm -rf /` asks — whatever
//     permissionMode its agent file sets (acceptEdits, bypassPermissions,
//     default). The session's plan wins over the subagent's own mode.
//   - In default mode the agent file's permissionMode applies (acceptEdits:
//     its Write and Edit run); in acceptEdits the session's mode wins over
//     the agent's plan. A call the subagent would be asked about is
//     refused (a background subagent has no one to ask).
//
// So a subagent does no more than a session in the mode it runs in: each
// of its calls must decide as the effective view decides the same call in
// that mode (a classifier call runs, the classifier approving; an ask may
// be a refusal).
func TestSubagentPlanModeOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	sub := []Call{{Tool: "Bash", Arg: "npm publish"}, {Tool: "Bash", Arg: "echo hi"}, {Tool: "Write", Arg: "$PROJ/w.txt"},
		{Tool: "Read", Arg: "/etc/passwd"}, {Tool: "Edit", Arg: "$PROJ/e.txt"}, {Tool: "Bash", Arg: "rm -rf /"}}
	writer := func(mode string) map[string]string {
		return map[string]string{".claude/agents/writer.md": "---\nname: writer\ndescription: writes files\npermissionMode: " + mode + "\n---\nDo what you are told.\n"}
	}
	inPlan := []Decision{Allow, Allow, Deny, Allow, Deny, Ask}
	for _, c := range []struct {
		name     string
		settings Settings
		files    map[string]string
		kind     string // the subagent_type ("" general-purpose)
		approve  bool   // the classifier approves every call
		agent    Decision
		runsIn   string     // the mode the subagent runs in, "" for not started
		want     []Decision // its calls', when started
	}{
		{"plan, no rule", Settings{DefaultMode: "plan"}, nil, "", false, Classifier, "", nil},
		{"plan, allow Agent(general-purpose)", Settings{DefaultMode: "plan", Allow: []string{"Agent(general-purpose)"}}, nil, "", false, Classifier, "", nil},
		{"plan, the classifier approving", Settings{DefaultMode: "plan"}, nil, "", true, Allow, "plan", inPlan},
		{"plan, agent permissionMode acceptEdits", Settings{DefaultMode: "plan"}, writer("acceptEdits"), "writer", true, Allow, "plan", inPlan},
		{"plan, agent permissionMode bypassPermissions", Settings{DefaultMode: "plan"}, writer("bypassPermissions"), "writer", true, Allow, "plan", inPlan},
		{"default, the classifier approving", Settings{}, nil, "", true, Allow, "default", []Decision{Deny, Allow, Deny, Deny, Deny, Deny}},
		{"default, agent permissionMode acceptEdits", Settings{}, writer("acceptEdits"), "writer", false, Allow, "acceptEdits", []Decision{Deny, Allow, Allow, Deny, Allow, Deny}},
		{"acceptEdits, agent permissionMode plan", Settings{DefaultMode: "acceptEdits"}, writer("plan"), "writer", true, Allow, "acceptEdits", []Decision{Deny, Allow, Allow, Deny, Allow, Deny}},
	} {
		s := Batch{Settings: c.settings}.Session()
		s.Files, s.Calls, s.SubCalls = c.files, []Call{{Tool: "Agent", Arg: c.kind}}, sub
		if c.approve {
			s.Classifier = ClassifierApproves
		}
		r, err := Driver{Binary: bin}.Run(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := r.Results[0].Decision; got != c.agent {
			t.Errorf("%s: the Agent call: Claude Code %s %s, pinned %s (%s)", c.name, ClaudeCodeVersion, got, c.agent, clip(r.Results[0].Text, 200))
		}
		if c.runsIn == "" {
			if sg := Decision(ShipgateDecide(r.Layout, Batch{Settings: c.settings, Cases: []Case{{Call: Call{Tool: "Agent"}}}})[0].Decision); sg != c.agent {
				t.Errorf("%s: the Agent call: Claude Code %s, Shipgate %s", c.name, c.agent, sg)
			}
			continue
		}
		view := c.settings
		view.DefaultMode = c.runsIn
		var cases []Case
		for _, call := range sub {
			cases = append(cases, Case{Call: call})
		}
		sg := ShipgateDecide(r.Layout, Batch{Settings: view, Cases: cases})
		for j, call := range sub {
			got := r.SubResults[j].Decision
			if got != c.want[j] {
				t.Errorf("%s: the subagent's %s: Claude Code %s %s, pinned %s (%s)", c.name, call, ClaudeCodeVersion, got, c.want[j], clip(r.SubResults[j].Text, 200))
			}
			switch v := Decision(sg[j].Decision); {
			case got == v, v == Classifier && got == Allow, v == Ask && got == Deny:
			default:
				t.Errorf("%s: the subagent's %s: Claude Code %s, Shipgate (mode %s) %s: %s", c.name, call, got, c.runsIn, v, sg[j].Why)
			}
		}
	}
}

// TestSubagentRequest: the fake tells a subagent's conversation by its
// first message, the Agent call's prompt, not by the session's own
// messages that carry that call.
func TestSubagentRequest(t *testing.T) {
	msg := func(role string, content any) struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} {
		data, _ := json.Marshal(content)
		return struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}{role, data}
	}
	var sub, own request
	sub.Messages = append(sub.Messages, msg("user", []map[string]any{{"type": "text", "text": subagentMarker + ": reply with the word done."}}))
	own.Messages = append(own.Messages, msg("user", "go"),
		msg("assistant", []map[string]any{{"type": "tool_use", "id": "t", "name": "Agent", "input": map[string]any{"prompt": subagentMarker}}}))
	if !subagentRequest(sub) {
		t.Error("the subagent's first request is not told as one")
	}
	if subagentRequest(own) {
		t.Error("the session's own request, which carries the Agent call, is told as a subagent's")
	}
}
