package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/lattice"
)

// Outcome is one decision asked of both sides.
type Outcome struct {
	Case
	Batch      int      // index of the batch in the corpus
	Claude     Decision // what Claude Code did
	ClaudeText string   // its tool_result text
	Shipgate   Decision // what the engine's effective view says
	Why        string   // the engine's reason
	Known      *Known   // the known-disagreement entry that covers it, if any
}

// Agrees reports whether both sides decided the same.
func (o Outcome) Agrees() bool { return o.Claude != Unclassified && o.Claude == o.Shipgate }

// ShipgateCall turns a harness call into the call the engine judges: a
// path in the project becomes project-relative ("src/app.go"), one in the
// home "~/…", any other one (the extra folder, /etc) absolute.
func ShipgateCall(lay Layout, c Call) lattice.Call {
	out := shipgateCall(lay, c)
	if c.Param != "" && c.Param != "none" {
		out.Param, out.Value = c.Param, c.Value
	}
	return out
}

func shipgateCall(lay Layout, c Call) lattice.Call {
	switch c.Tool {
	case "Read", "Edit", "Write", "NotebookEdit":
		p := c.Path()
		switch {
		case strings.HasPrefix(p, "$PROJ/"):
			p = strings.TrimPrefix(p, "$PROJ/")
		case strings.HasPrefix(p, "$HOME/"):
			p = "~/" + strings.TrimPrefix(p, "$HOME/")
		default:
			p = lay.Expand(p)
		}
		return lattice.Call{Tool: c.Tool, Arg: p}
	}
	return lattice.Call{Tool: c.Tool, Arg: lay.Expand(c.Arg)}
}

// ShipgateDecide asks the engine's effective view about every case of a
// batch, with the settings files expanded for the session's layout.
func ShipgateDecide(lay Layout, b Batch) []judge.CallOutcome {
	files := map[string][]byte{".claude/settings.json": []byte(lay.Expand(b.Settings.JSON()))}
	if b.Local != nil {
		files[".claude/settings.local.json"] = []byte(lay.Expand(b.Local.JSON()))
	}
	eff := judge.NewEffective(files).WithUserMode(b.UserMode)
	out := make([]judge.CallOutcome, len(b.Cases))
	for i, c := range b.Cases {
		out[i] = eff.Decide(ShipgateCall(lay, c.Call))
	}
	return out
}

// Runner runs one session of Claude Code: Driver runs the real binary.
type Runner interface {
	Run(ctx context.Context, s Session) (SessionResult, error)
}

// Run is a whole conformance run: the corpus, both sides' answers and the
// figures.
type Run struct {
	Version  string
	Seed     uint64
	Batches  []Batch
	Outcomes []Outcome
	Sessions []SessionStat
	Errors   []error
	Elapsed  time.Duration
	Known    []Known // the known-disagreement list the run was judged with
}

// SessionStat is one session's size and time.
type SessionStat struct {
	Class   string
	Calls   int
	Elapsed time.Duration
}

// Execute runs every batch through Claude Code (workers sessions at a
// time) and the engine, and marks the disagreements the known list
// covers. progress, when set, is called after each session.
func Execute(ctx context.Context, d Runner, batches []Batch, workers int, known []Known, progress func(done, total int)) *Run {
	if workers < 1 {
		workers = 1
	}
	run := &Run{Version: ClaudeCodeVersion, Batches: batches, Known: known}
	if err := sandboxTools(batches); err != nil {
		run.Errors = append(run.Errors, err)
		return run
	}
	start := time.Now()
	type res struct {
		i   int
		out []Outcome
		st  SessionStat
		err error
	}
	jobs := make(chan int)
	results := make(chan res)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out, st, err := runBatch(ctx, d, i, batches[i])
				results <- res{i, out, st, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range batches {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	byBatch := make([][]Outcome, len(batches))
	done := 0
	for r := range results {
		done++
		if r.err != nil {
			run.Errors = append(run.Errors, fmt.Errorf("batch %d (%s): %w", r.i, batches[r.i].Class, r.err))
		} else {
			byBatch[r.i] = r.out
			run.Sessions = append(run.Sessions, r.st)
		}
		if progress != nil {
			progress(done, len(batches))
		}
	}
	// A run stopped before every batch was asked (a cancelled context, an
	// interrupt) has not agreed on the batches it never ran: it fails.
	if missed := len(batches) - done; missed > 0 || ctx.Err() != nil {
		run.Errors = append(run.Errors, fmt.Errorf("the run was stopped (%v): %d of %d sessions never ran, and a session cut short measured nothing", ctx.Err(), missed, len(batches)))
	}
	for _, out := range byBatch {
		for i := range out {
			if !out[i].Agrees() {
				out[i].Known = matchKnown(known, out[i])
			}
		}
		run.Outcomes = append(run.Outcomes, out...)
	}
	run.Elapsed = time.Since(start)
	return run
}

// runBatch asks both sides about one batch.
func runBatch(ctx context.Context, d Runner, i int, b Batch) ([]Outcome, SessionStat, error) {
	if b.Base != nil {
		return runWitnessBatch(ctx, d, i, b)
	}
	sr, err := d.Run(ctx, b.Session())
	if err != nil {
		return nil, SessionStat{}, err
	}
	st := SessionStat{Class: b.Class, Calls: len(b.Cases), Elapsed: sr.Elapsed}
	sg := ShipgateDecide(sr.Layout, b)
	retried := retryAsks(ctx, d, b.Session(), sr.Results, func(j int) bool { return Decision(sg[j].Decision) == Allow })
	if needsClassifier(b, sr) {
		s := b.Session()
		s.Classifier = ClassifierApproves
		on, err := d.Run(ctx, s)
		if err != nil {
			return nil, SessionStat{}, fmt.Errorf("with the fake classifier approving: %w", err)
		}
		// (A call that ran without a verdict and asked with the classifier
		// approving is the parser's missed deadline too: asked again.)
		for j := range retryAsks(ctx, d, s, on.Results, func(j int) bool { return sr.Results[j].Decision == Allow }) {
			retried[j] = true
		}
		for j := range sr.Results {
			sr.Results[j] = withClassifier(sr.Results[j], on.Results[j])
		}
		st.Calls += len(b.Cases)
		st.Elapsed += on.Elapsed
	}
	out := make([]Outcome, len(b.Cases))
	for j, c := range b.Cases {
		out[j] = Outcome{Case: c, Batch: i, Claude: sr.Results[j].Decision, ClaudeText: sr.Results[j].Text,
			Shipgate: Decision(sg[j].Decision), Why: sg[j].Why}
		if sr.Results[j].Decision == Classifier {
			out[j].Label += AutoClassifierSuffix
		}
		if retried[j] {
			out[j].ClaudeText = "(asked once, ran when asked again: " + retryNote + ") " + out[j].ClaudeText
		}
	}
	if b.MatchRule != "" {
		out = append(out, matchOutcomes(sr.Layout, i, b, out)...)
	}
	return out, st, nil
}

// needsClassifier reports whether a batch is asked a second time with the
// fake server's auto-mode classifier approving every call: when Claude
// Code handed a call to the classifier offline, or when any settings file
// of the session names plan mode (in which Claude Code 2.1.328 consults
// it), so that a call the classifier could let run is found even where
// the offline answer looked like a prompt.
func needsClassifier(b Batch, off SessionResult) bool {
	for _, r := range off.Results {
		if r.Decision == Classifier {
			return true
		}
	}
	s := b.Session()
	return strings.Contains(s.Settings+s.Local+s.User, `"plan"`)
}

// withClassifier is a call's decision from two sessions: off without a
// classifier verdict (as offline) and on with the classifier approving
// every call. A call that runs only when the classifier approves is
// Classifier; one the classifier was asked about offline but that does not
// run when it approves is what the approving session says; any other call
// must decide the same in both, or it is Unclassified (and fails the run).
func withClassifier(off, on Result) Result {
	switch {
	case on.Decision == Unclassified:
		return Result{Decision: Unclassified, Text: "with the classifier approving: " + on.Text}
	case off.Decision == Classifier && on.Decision == Allow, off.Decision != Allow && off.Decision != Unclassified && on.Decision == Allow:
		return Result{Decision: Classifier, Text: off.Text + " | with the classifier approving it runs: " + on.Text}
	case off.Decision == Classifier:
		return Result{Decision: on.Decision, Text: on.Text + " (also with the classifier approving)"}
	case off.Decision == on.Decision:
		return off
	}
	return Result{Decision: Unclassified, Text: "without a classifier verdict " + string(off.Decision) + " (" + clip(off.Text, 200) + "); with the classifier approving " + string(on.Decision) + " (" + clip(on.Text, 200) + ")"}
}

// retryAttempts is how many more times retryAsks runs a session.
const retryAttempts = 2

// retryNote says why a call was asked again.
const retryNote = "Claude Code's bash parser has a 50 ms wall-clock deadline and asks when it is missed"

// retryAsks runs session s again, up to retryAttempts times, while a call
// of a tool whose command Claude Code parses (parsedCommand: Bash, and
// Monitor, whose command goes through the same parser) that Claude Code
// asked about (results[j]) is one want(j) expects to run, and takes a
// later run's allow for that call. Claude Code 2.1.328 parses a command
// against a 50 ms wall-clock deadline and asks when the parser misses it,
// so on a loaded machine a command it runs on an idle one is asked about;
// the reverse cannot happen (a missed deadline never lets a call run), so
// an allow in any run is the binary's own answer. Only that direction is
// asked again: a call Claude Code ran, or one the engine says asks, keeps
// its first answer. It returns the calls whose answer a later run
// changed. A session that fails keeps the first answers.
func retryAsks(ctx context.Context, d Runner, s Session, results []Result, want func(j int) bool) map[int]bool {
	pending := func() []int {
		var js []int
		for j, r := range results {
			if j < len(s.Calls) && parsedCommand[s.Calls[j].Tool] && r.Decision == Ask && want(j) {
				js = append(js, j)
			}
		}
		return js
	}
	changed := map[int]bool{}
	for attempt := 0; attempt < retryAttempts; attempt++ {
		js := pending()
		if len(js) == 0 || ctx.Err() != nil {
			break
		}
		again, err := d.Run(ctx, s)
		if err != nil || len(again.Results) != len(results) {
			break
		}
		for _, j := range js {
			if again.Results[j].Decision == Allow {
				results[j] = again.Results[j]
				changed[j] = true
			}
		}
	}
	return changed
}

// parsedCommand are the tools whose command Claude Code 2.1.328 puts
// through its bash parser, and so through its 50 ms deadline: Bash and
// Monitor (measured: a 12,005-character command is refused "Parser
// aborted (timeout, resource limit, or over-length)" as a Bash and as a
// Monitor call alike, TestParserDeadlineTools). No other tool the harness
// calls takes a command.
var parsedCommand = map[string]bool{"Bash": true, "Monitor": true}

// AutoClassifierSuffix marks the label of a call Claude Code handed to
// the auto-mode classifier (plan mode sends Bash there), which cannot run
// offline: its decision is an artefact of the harness, not of the rules.
const AutoClassifierSuffix = " (auto classifier)"

// autoModeMarker is the refusal of a call the classifier would decide.
const autoModeMarker = "Auto mode is unavailable"

// MatchesSuffix marks the class of the outcomes lattice.Match decides.
const MatchesSuffix = " (Matches)"

// matchOutcomes puts the single-rule question to lattice.Match for every
// call of the batch's deny rule's tool: Claude Code denied it exactly when
// the rule matches it (the allow rules let every other call run).
func matchOutcomes(lay Layout, i int, b Batch, eff []Outcome) []Outcome {
	r := lattice.ParseIn(lattice.Deny, lay.Expand(b.MatchRule))
	var out []Outcome
	for j, c := range b.Cases {
		if c.Call.Tool != r.Tool {
			continue
		}
		if cmd, err := lattice.ParseCommand(c.Call.Arg); c.Call.Tool == "Bash" && (err != nil || cmd.Compound()) {
			continue // Match reads one subcommand; Claude Code splits the line first
		}
		d := Allow
		switch lattice.Match(r, ShipgateCall(lay, c.Call)) {
		case lattice.Yes:
			d = Deny
		case lattice.Unknown:
			d = "unknown"
		}
		if _, asks := lattice.AlwaysAsks(lay.Expand(c.Call.Arg), true); d == Allow && c.Call.Tool == "Bash" && asks {
			// A command check no rule lifts (`rm -rf /`, `rm ./...`):
			// Claude Code asks whatever the one deny rule says.
			d = Ask
		}
		o := eff[j]
		o.Class += MatchesSuffix
		o.Shipgate = d
		o.Why = "lattice.Match(" + b.MatchRule + ") = " + string(d)
		out = append(out, o)
	}
	return out
}
