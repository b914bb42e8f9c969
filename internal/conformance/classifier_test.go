package conformance

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFakeClassifierVerdicts: with ClassifierApproves the streamed batch's
// message_delta carries one "not_flagged" verdict a tool_use id, in the
// shape Claude Code 2.1.328 reads ("safeguard_results"); with no
// classifier it carries none.
func TestFakeClassifierVerdicts(t *testing.T) {
	uses := []ToolUse{{ID: "toolu_000000", Name: "Bash", Input: map[string]any{"command": "npm publish"}},
		{ID: "toolu_000001", Name: "WebSearch", Input: map[string]any{"query": "x"}}}
	for _, v := range []ClassifierVerdict{NoClassifier, ClassifierApproves} {
		f, err := newFakeAPI(uses, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.setClassifier(v)
		resp, err := http.Post(f.URL()+"/v1/messages", "application/json",
			strings.NewReader(`{"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"text","text":"go"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		var delta map[string]any
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || !strings.Contains(data, `"message_delta"`) {
				continue
			}
			var ev struct {
				Delta map[string]any `json:"delta"`
			}
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatal(err)
			}
			delta = ev.Delta
		}
		resp.Body.Close()
		f.Close()
		if delta == nil {
			t.Fatalf("%q: no message_delta", v)
		}
		raw, has := delta["safeguard_results"]
		if v == NoClassifier {
			if has {
				t.Errorf("no classifier, yet a verdict: %v", raw)
			}
			continue
		}
		data, _ := json.Marshal(raw)
		var got []struct {
			Type   string `json:"type"`
			Status struct {
				Type     string `json:"type"`
				ToolUses map[string]struct {
					Type, Outcome string
				} `json:"tool_uses"`
			} `json:"status"`
		}
		if err := json.Unmarshal(data, &got); err != nil || len(got) != 1 || got[0].Type != "dangerous_tool_use" || got[0].Status.Type != "available" {
			t.Fatalf("safeguard_results %s (%v)", data, err)
		}
		for _, u := range uses {
			if r := got[0].Status.ToolUses[u.ID]; r.Type != "evaluated" || r.Outcome != "not_flagged" {
				t.Errorf("%s: verdict %+v, want evaluated not_flagged", u.ID, r)
			}
		}
	}
}

// TestWithClassifier: a call's decision from the session without a
// classifier verdict and the one with the classifier approving.
func TestWithClassifier(t *testing.T) {
	r := func(d Decision) Result { return Result{Decision: d, Text: string(d)} }
	for _, c := range []struct {
		off, on, want Decision
	}{
		{Classifier, Allow, Classifier},     // refused offline, runs when approved
		{Ask, Allow, Classifier},            // looked like a prompt, runs when approved
		{Deny, Allow, Classifier},           // a deny the classifier lifts: reported as such
		{Classifier, Ask, Ask},              // asked about, still asks when approved (rm -rf /)
		{Classifier, Deny, Deny},            // asked about, still refused
		{Allow, Allow, Allow},               // runs either way (a read-only command)
		{Ask, Ask, Ask},                     // an ask rule
		{Deny, Deny, Deny},                  // plan mode refuses an edit
		{Allow, Ask, Unclassified},          // approval made it stricter: not readable
		{Ask, Deny, Unclassified},           // decides otherwise for no reason
		{Allow, Unclassified, Unclassified}, // the approving session measured nothing
		{Unclassified, Allow, Unclassified},
	} {
		if got := withClassifier(r(c.off), r(c.on)); got.Decision != c.want {
			t.Errorf("withClassifier(%s, %s) = %s (%s), want %s", c.off, c.on, got.Decision, got.Text, c.want)
		}
	}
}

// TestNeedsClassifier: a batch is asked again with the classifier when a
// call went to it offline or a settings file of the session names plan.
func TestNeedsClassifier(t *testing.T) {
	none := SessionResult{Results: []Result{{Decision: Ask}}}
	went := SessionResult{Results: []Result{{Decision: Classifier}}}
	for _, c := range []struct {
		b    Batch
		sr   SessionResult
		want bool
	}{
		{Batch{}, none, false},
		{Batch{}, went, true},
		{Batch{Settings: Settings{DefaultMode: "plan"}}, none, true},
		{Batch{Local: &Settings{DefaultMode: "plan"}}, none, true},
		{Batch{UserMode: "plan"}, none, true},
		{Batch{Settings: Settings{DefaultMode: "acceptEdits"}}, none, false},
	} {
		if got := needsClassifier(c.b, c.sr); got != c.want {
			t.Errorf("needsClassifier(%s) = %v, want %v", c.b.Describe(), got, c.want)
		}
	}
}

// TestGitAboveStopsASession: a .git in a folder above the session's makes
// Claude Code drop every project allow rule (the workspace is not
// trusted), so the driver finds it first.
func TestGitAboveStopsASession(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := gitAbove(filepath.Join(dir, "a", "b", "c")); got != filepath.Join(dir, "a", ".git") {
		t.Errorf("gitAbove = %q, want %s", got, filepath.Join(dir, "a", ".git"))
	}
	if got := gitAbove(filepath.Join(dir, "x")); got == filepath.Join(dir, "a", ".git") {
		t.Errorf("gitAbove(%s) found a sibling's .git", filepath.Join(dir, "x"))
	}
}

// TestPlanWitnessesAreCalls: the witnesses of a change to plan mode become
// harness calls (Bash for a command, Read for a path), asked with the
// fake classifier approving the head's session.
func TestPlanWitnessesAreCalls(t *testing.T) {
	calls, _ := witnessCalls(Settings{}, Settings{DefaultMode: "plan"})
	var bash, read bool
	for _, c := range calls {
		bash = bash || (c.Tool == "Bash" && c.Arg == "npm publish")
		read = read || (c.Tool == "Read" && strings.HasPrefix(c.Arg, "$HOME/"))
	}
	if !bash || !read {
		t.Errorf("plan mode's witnesses as calls: %v, want Bash(npm publish) and a Read under $HOME", calls)
	}
	// A launcher allow added under plan mode is set aside while the
	// session plans: its witnesses are asked after plan mode (seed 1's
	// full corpus: `python` under Bash(python:*) ran at the plan base too,
	// the classifier approving).
	head := Settings{DefaultMode: "plan", Allow: []string{"Bash(npm run build:*)", "Bash(python:*)"}}
	base := Settings{DefaultMode: "plan", Allow: []string{"Bash(npm run build:*)"}}
	if now, after := witnessCalls(base, head); len(now) != 0 || len(after) == 0 {
		t.Errorf("Bash(python:*) added under plan mode: witnesses %v now, %v after plan; want none now, some after", now, after)
	}
	// A Read allow added under plan mode: plan mode reads any file
	// anyway (seed 4: $HOME/.ssh/id_rsa ran at the plan base), so its
	// witnesses are asked after plan mode too.
	readHead := Settings{DefaultMode: "plan", Allow: []string{"Bash(npm run build:*)", "Read(~/**)"}}
	if now, after := witnessCalls(base, readHead); len(now) != 0 || len(after) == 0 {
		t.Errorf("Read(~/**) added under plan mode: witnesses %v now, %v after plan; want none now, some after", now, after)
	}
	ws := WitnessBatches([]Batch{{Class: "modes", Settings: head}}, 5)
	if len(ws) != 1 || ws[0].Settings.DefaultMode != "" || ws[0].Base.DefaultMode != "" || !strings.HasPrefix(ws[0].Cases[0].Label, "witness-after-plan:") {
		t.Errorf("the witness pair of a rule plan mode sets aside: %+v, want one pair asked outside plan mode", ws)
	}
	if !needsClassifier(Batch{Settings: Settings{DefaultMode: "plan"}}, SessionResult{}) {
		t.Error("a witness pair whose head is in plan mode is not asked with the classifier")
	}
}
