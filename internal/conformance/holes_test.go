package conformance

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/shipgate-app/shipgate/lattice"
	"testing"
)

// TestReadResults holds the harness to what a tool result measures: a call
// with no result is never a deny, and a "No such tool available" for a tool
// the binary offers in no session is not a deny either.
func TestReadResults(t *testing.T) {
	calls := []Call{{Tool: "Bash", Arg: "npm test"}, {Tool: "Read", Arg: "/etc/hostname"}, {Tool: "Glob"}, {Tool: "WebSearch"}, {Tool: "Write", Arg: "$PROJ/x"}}
	uses := make([]ToolUse, len(calls))
	for i := range calls {
		uses[i] = ToolUse{ID: "u" + string(rune('0'+i))}
	}
	noSuch := func(tool string) string {
		return "<tool_use_error>Error: No such tool available: " + tool + ". " + tool + " is disabled for this session</tool_use_error>"
	}
	results := map[string]string{"u0": "SHIPGATE-STUB-RAN npm test", "u2": noSuch("Glob"), "u3": noSuch("WebSearch")}
	errs := map[string]bool{"u2": true, "u3": true}
	asked := 0
	unruled := func() (map[string]bool, error) {
		asked++
		return map[string]bool{"Bash": true, "Read": true, "WebSearch": true, "Write": true}, nil
	}
	// Offered: Bash and Write; Read is out of the list and has no result.
	got, missing, err := readResults(calls, uses, results, errs, []string{"Bash", "Write"}, unruled)
	if err != nil {
		t.Fatal(err)
	}
	want := []Decision{Allow, Unclassified, Unclassified, Deny, Unclassified}
	for i, w := range want {
		if got[i].Decision != w {
			t.Errorf("%s: %s (%s), want %s", calls[i], got[i].Decision, got[i].Text, w)
		}
	}
	if missing != 2 {
		t.Errorf("missing = %d, want 2 (Read and Write have no result)", missing)
	}
	if asked != 1 {
		t.Errorf("the tool list with no rule was asked %d times, want once", asked)
	}
	if !strings.Contains(got[2].Text, "not offered even with no rule") {
		t.Errorf("Glob's note: %q", got[2].Text)
	}
}

// fakeRunner answers every call with allow and cancels the run after the
// first session, as an interrupt would.
type fakeRunner struct {
	cancel   context.CancelFunc
	sessions atomic.Int32
}

func (f *fakeRunner) Run(ctx context.Context, s Session) (SessionResult, error) {
	if f.sessions.Add(1) == 1 {
		defer f.cancel()
	}
	r := SessionResult{Tools: []string{"Bash"}}
	for range s.Calls {
		r.Results = append(r.Results, Result{Decision: Allow, Text: stubMarker})
	}
	return r, nil
}

// TestCancelledRunFails: a run stopped before every batch ran has not
// agreed on what it never asked, even when everything it asked agreed.
func TestCancelledRunFails(t *testing.T) {
	var batches []Batch
	for i := 0; i < 20; i++ {
		batches = append(batches, Batch{Class: "bash-shapes", Settings: Settings{Allow: []string{"Bash(*)"}},
			Cases: []Case{{Class: "bash-shapes", Label: "x", Call: Call{Tool: "Bash", Arg: "npm test"}}}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeRunner{cancel: cancel}
	r := Execute(ctx, f, batches, 1, nil, nil)
	if n := int(f.sessions.Load()); n >= len(batches) {
		t.Fatalf("the fake ran all %d sessions; the test needs the run cut short", n)
	}
	_, total := r.Stats()
	if total.Agree == 0 || total.Agree != total.Decisions {
		t.Fatalf("the sessions that ran should agree: %+v", total)
	}
	if !r.Failed() {
		t.Fatalf("a run cancelled after %d of %d sessions passed", f.sessions.Load(), len(batches))
	}

	// The same run not cancelled passes.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	full := Execute(ctx2, &fakeRunner{cancel: func() {}}, batches, 2, nil, nil)
	if full.Failed() {
		var b strings.Builder
		full.Write(&b, 1)
		t.Fatalf("an uncancelled run of agreeing sessions failed:\n%s", b.String())
	}
}

// TestWitnessNeverEditsAnExistingFile: an Edit or Write of a file the
// session holds is refused by the tool's input check, so no witness pair
// asks one.
func TestWitnessNeverEditsAnExistingFile(t *testing.T) {
	got := withoutExistingTargets([]Call{{Tool: "Edit", Arg: "$PROJ/README.md"}, {Tool: "Write", Arg: "$PROJ/src"},
		{Tool: "Read", Arg: "$PROJ/a.txt"}, {Tool: "Edit", Arg: "$PROJ/a.txt"}, {Tool: "Edit", Arg: "$PROJ/new.txt"}})
	want := []Call{{Tool: "Read", Arg: "$PROJ/a.txt"}, {Tool: "Edit", Arg: "$PROJ/new.txt"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestToolTableIsMeasured: every tool the engine says Claude Code runs with
// no rule (lattice.ToolsWithoutRule) is called by the tools class, so the
// pinned binary checks the table in every conformance run; only a tool
// print mode never offers may rest on its documentation.
func TestToolTableIsMeasured(t *testing.T) {
	called := map[string]bool{}
	for _, set := range toolsOffered {
		for _, tool := range set.tools {
			called[tool] = true
		}
	}
	for tool, how := range lattice.ToolsWithoutRule() {
		switch {
		case strings.HasPrefix(how, "measured") && !called[tool]:
			t.Errorf("%s is in the table as measured, but the tools class never calls it", tool)
		case !strings.HasPrefix(how, "measured") && !strings.HasPrefix(how, "documented"):
			t.Errorf("%s: %q says neither measured nor documented", tool, how)
		}
		if _, ok := toolInputs[tool]; !ok && called[tool] {
			t.Errorf("%s has no input (toolInputs)", tool)
		}
	}
}

// scriptedRunner answers session n (from 0) with answers[n], call by call;
// sessions past the script repeat its last answers.
type scriptedRunner struct {
	answers  [][]Decision
	sessions atomic.Int32
}

func (f *scriptedRunner) Run(_ context.Context, s Session) (SessionResult, error) {
	n := int(f.sessions.Add(1)) - 1
	ans := f.answers[min(n, len(f.answers)-1)]
	r := SessionResult{Tools: []string{"Bash", "Read"}}
	for i := range s.Calls {
		text := stubMarker
		if ans[i] != Allow {
			text = "This command requires approval"
		}
		r.Results = append(r.Results, Result{Decision: ans[i], Text: text})
	}
	return r, nil
}

// TestRetryAsks: Claude Code's bash parser asks when it misses its 50 ms
// wall-clock deadline, so a Bash or Monitor call (both commands go through
// that parser) asked about where the engine says it runs is asked again,
// and an allow in a later session is taken; nothing else is: not a call
// the engine says asks (an allow there is the unsafe direction, and must
// stay visible as the first answer's agreement or not), not a call that
// ran, not another tool. A call that keeps asking stays a disagreement.
func TestRetryAsks(t *testing.T) {
	calls := []Call{{Tool: "Bash", Arg: "git status"}, {Tool: "Bash", Arg: "npm publish"}, {Tool: "Read", Arg: "$PROJ/a"},
		{Tool: "Bash", Arg: "ls"}, {Tool: "Bash", Arg: "make"}, {Tool: "Monitor", Arg: "git log"}}
	engineAllows := []bool{true, false, true, true, true, true}
	f := &scriptedRunner{answers: [][]Decision{
		{Ask, Ask, Ask, Allow, Ask, Ask},         // first session: a loaded machine
		{Allow, Allow, Allow, Ask, Ask, Ask},     // second: git status runs
		{Allow, Allow, Allow, Ask, Allow, Allow}, // third: so do make and the Monitor call
	}}
	s := Session{Calls: calls}
	first, _ := f.Run(context.Background(), s)
	changed := retryAsks(context.Background(), f, s, first.Results, func(j int) bool { return engineAllows[j] })
	want := []Decision{Allow, Ask, Ask, Allow, Allow, Allow}
	for j, w := range want {
		if first.Results[j].Decision != w {
			t.Errorf("%s: %s after the retries, want %s", calls[j], first.Results[j].Decision, w)
		}
	}
	if len(changed) != 3 || !changed[0] || !changed[4] || !changed[5] {
		t.Errorf("changed = %v, want git status, make and the Monitor call", changed)
	}
	if n := f.sessions.Load(); n != 1+retryAttempts {
		t.Errorf("%d sessions, want %d", n, 1+retryAttempts)
	}

	// Nothing to ask again: no second session.
	g := &scriptedRunner{answers: [][]Decision{{Allow, Ask, Ask, Allow, Allow, Allow}}}
	first, _ = g.Run(context.Background(), s)
	if changed := retryAsks(context.Background(), g, s, first.Results, func(j int) bool { return engineAllows[j] }); len(changed) != 0 || g.sessions.Load() != 1 {
		t.Errorf("retried %v in %d sessions with nothing to ask again", changed, g.sessions.Load())
	}
}

// TestParseAbortedIsAsk: a command the bash parser gave up on is refused
// with the parser's reason, and Claude Code asks about it.
func TestParseAbortedIsAsk(t *testing.T) {
	for _, text := range []string{"Parser aborted (timeout, resource limit, or over-length)",
		"This command contains 300 command substitutions — too many to analyze for catastrophic removals. This requires explicit approval."} {
		for _, tool := range []string{"Bash", "Monitor"} {
			if d := classify(Call{Tool: tool, Arg: "echo a"}, text, true); d != Ask {
				t.Errorf("%s %q: %s, want ask", tool, text, d)
			}
		}
	}
}

// TestParsedCommandTools: every tool the harness calls with a command
// (a "command" input) is one whose asks retryAsks asks again, so a tool
// added to the corpus with a command is not left out of the retries.
func TestParsedCommandTools(t *testing.T) {
	for tool, in := range toolInputs {
		if _, ok := in(Layout{}, Call{Tool: tool})["command"]; ok && !parsedCommand[tool] {
			t.Errorf("%s takes a command but is not in parsedCommand (measure it as TestParserDeadlineTools does)", tool)
		}
	}
	if !parsedCommand["Bash"] {
		t.Error("Bash is not in parsedCommand")
	}
}
