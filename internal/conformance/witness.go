package conformance

import (
	"context"
	"strings"

	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// WitnessClass is the class of the printed-witness checks: every call a
// report says "now runs" must run in Claude Code under the head settings
// and not under the base settings ("no witness printed anywhere is a call
// the pinned Claude Code would not newly run").
const WitnessClass = "witness"

// witnessLayout names the session folders while the witnesses are
// computed, before a session has folders of its own.
var witnessLayout = Layout{Proj: "/SHIPGATE-PROJ", Home: "/SHIPGATE-HOME", Extra: "/SHIPGATE-EXTRA"}

// WitnessBatches turns corpus batches into witness pairs: the batch's
// settings are the head, the same settings without their last allow rule
// (or, with none, without their mode) the base. The engine compares the
// two; every witness it prints for a widening becomes a case, asked of
// Claude Code under both settings files. At most max pairs are made.
func WitnessBatches(batches []Batch, max int) []Batch {
	var out []Batch
	for _, b := range batches {
		if len(out) >= max {
			break
		}
		if b.Local != nil || b.UserMode != "" || b.Unprivileged || b.Class == WitnessClass {
			continue
		}
		base := b.Settings
		switch {
		case len(base.Allow) > 0:
			base.Allow = append([]string(nil), base.Allow[:len(base.Allow)-1]...)
		case base.DefaultMode != "":
			base.DefaultMode = ""
		default:
			continue
		}
		calls, afterPlan := witnessCalls(base, b.Settings)
		if w, ok := witnessBatch(b.Settings, base, calls, "witness:"); ok {
			out = append(out, w)
		}
		// A rule plan mode sets aside applies once the session leaves
		// plan mode (ExitPlanMode restores it, in 2.1.328's bundle): its
		// witnesses are asked in the mode the session then has.
		head, planBase := b.Settings, base
		head.DefaultMode, planBase.DefaultMode = "", ""
		if w, ok := witnessBatch(head, planBase, afterPlan, "witness-after-plan:"); ok {
			out = append(out, w)
		}
	}
	return out
}

// witnessBatch is the witness pair of the calls under head and base, or
// false when no call is left to ask.
func witnessBatch(head, base Settings, calls []Call, label string) (Batch, bool) {
	calls = withoutExistingTargets(calls)
	if len(calls) == 0 {
		return Batch{}, false
	}
	w := Batch{Class: WitnessClass, Settings: head, Base: &base}
	for _, c := range calls {
		w.Cases = append(w.Cases, Case{Class: WitnessClass, Label: label + c.Tool, Call: c})
	}
	w.Cases = orderCases(dedupeCases(w.Cases))
	return w, true
}

// withoutExistingTargets drops the Edit and Write calls of a file that will
// exist when the session runs (a file every project holds, a folder, a file
// a Read of the batch creates): Claude Code refuses those in the tool's own
// input check ("file already exists", "has not been read yet") before any
// permission is decided, so they measure nothing.
func withoutExistingTargets(calls []Call) []Call {
	exists := map[string]bool{}
	for name := range projectFiles {
		exists["$PROJ/"+name] = true
	}
	for _, d := range projectDirs {
		exists["$PROJ/"+d] = true
	}
	for _, c := range calls {
		if c.Tool == "Read" {
			exists[c.Arg] = true
		}
	}
	var out []Call
	for _, c := range calls {
		if (c.Tool == "Edit" || c.Tool == "Write") && exists[strings.TrimSuffix(c.Arg, "/")] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// witnessCalls compares base and head with the engine and returns the
// witnesses of the widenings it reports as harness calls: those that run
// under the head as written, and afterPlan, those of an allow rule plan
// mode sets aside (lattice.PlanStripped), or a Read allow, whose reads
// plan mode allows anyway (lattice.PlanReadsAnyway), under a head in plan
// mode: they newly run once the session leaves plan mode.
func witnessCalls(base, head Settings) (calls, afterPlan []Call) {
	lay := witnessLayout
	rep := judge.Compare(report.Input{Files: []report.File{{Path: ".claude/settings.json",
		Base: report.Version{Exists: true, Data: []byte(lay.Expand(base.JSON()))},
		Head: report.Version{Exists: true, Data: []byte(lay.Expand(head.JSON()))}}}})
	for _, ch := range rep.Changes {
		if !ch.Expands || len(ch.Witnesses) == 0 {
			continue
		}
		out := &calls
		if r := lattice.Parse(ch.After); ch.Kind == report.KindRule && head.DefaultMode == "plan" && (lattice.PlanStripped(r) || lattice.PlanReadsAnyway(r)) {
			out = &afterPlan
		}
		tool := lattice.Parse(ch.After).Canonical
		if ch.Kind != report.KindRule || tool == "" {
			tool = ""
		}
		for i, w := range ch.Witnesses {
			if i >= 6 {
				break
			}
			if w == tool {
				continue // the whole tool, no argument to call it with
			}
			t := tool
			if ch.Kind == report.KindMode && ch.After == "defaultMode: plan" {
				// Plan mode's witnesses: the commands its classifier may
				// now run, then the files it reads.
				t = "Bash"
				if strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "/") {
					t = "Read"
				}
			}
			if c, ok := harnessCall(t, w); ok {
				*out = append(*out, c)
			}
		}
	}
	return calls, afterPlan
}

// harnessCall turns a printed witness back into a call the harness can
// make safely, or false: a command whose first word names a file (it
// could run a real program) or that expands anything is left out.
func harnessCall(tool, w string) (Call, bool) {
	switch tool {
	case "Bash":
		f := strings.Fields(w)
		if len(f) == 0 || strings.Contains(f[0], "/") || strings.ContainsAny(w, "$`<>(){}") {
			return Call{}, false
		}
		return Call{Tool: "Bash", Arg: w}, true
	case "Read", "Edit", "Write":
		p := w
		switch {
		case strings.HasPrefix(p, "~/"):
			p = "$HOME/" + p[2:]
		case strings.HasPrefix(p, witnessLayout.Extra+"/"):
			p = "$EXTRA/" + strings.TrimPrefix(p, witnessLayout.Extra+"/")
		case strings.HasPrefix(p, witnessLayout.Home+"/"):
			p = "$HOME/" + strings.TrimPrefix(p, witnessLayout.Home+"/")
		case strings.HasPrefix(p, witnessLayout.Proj+"/"):
			p = "$PROJ/" + strings.TrimPrefix(p, witnessLayout.Proj+"/")
		case strings.HasPrefix(p, "/"):
			// Outside the session's folders: no write, and no read of a
			// file the harness cannot create.
			return Call{}, false
		default:
			p = "$PROJ/" + strings.TrimPrefix(p, "./")
		}
		if strings.Contains(p, "..") || strings.ContainsAny(p, "*?[\n") {
			return Call{}, false
		}
		return Call{Tool: tool, Arg: p}, true
	case "WebFetch":
		if strings.ContainsAny(w, "/ *") || w == "" {
			return Call{}, false
		}
		return Call{Tool: "WebFetch", Arg: w}, true
	}
	return Call{}, false
}

// runWitnessBatch asks Claude Code about a witness pair: the calls under
// the base settings and under the head settings. A witness is true
// (Claude "allow", as the report claims) when the head runs it and the
// base does not.
func runWitnessBatch(ctx context.Context, d Runner, i int, b Batch) ([]Outcome, SessionStat, error) {
	hs := b.Session()
	if needsClassifier(b, SessionResult{}) {
		// A witness of plan mode runs when its classifier approves: the
		// fake server's classifier approves every call of the head.
		hs.Classifier = ClassifierApproves
	}
	head, err := d.Run(ctx, hs)
	if err != nil {
		return nil, SessionStat{}, err
	}
	bb := b
	bb.Settings = *b.Base
	if b.BaseLocal != nil {
		bb.Local = b.BaseLocal
	}
	baseSession := bb.Session()
	if needsClassifier(bb, SessionResult{}) {
		// A base in plan mode may already run the call when the
		// classifier approves: then it is not newly run.
		baseSession.Classifier = ClassifierApproves
	}
	base, err := d.Run(ctx, baseSession)
	if err != nil {
		return nil, SessionStat{}, err
	}
	// A missed parser deadline makes a call ask (retryAsks): asked again,
	// a head's ask may be the witness running, and a base's ask under a
	// head that runs the call may be the call running at the base too.
	retryAsks(ctx, d, hs, head.Results, func(int) bool { return true })
	retryAsks(ctx, d, baseSession, base.Results, func(j int) bool { return head.Results[j].Decision == Allow })
	out := make([]Outcome, len(b.Cases))
	for j, c := range b.Cases {
		h, bs := head.Results[j], base.Results[j]
		o := Outcome{Case: c, Batch: i, Shipgate: Allow, Why: "printed as a witness: it now runs without a prompt"}
		switch {
		case h.Decision == Unclassified || bs.Decision == Unclassified:
			o.Claude = Unclassified
		case h.Decision == Allow && bs.Decision != Allow:
			o.Claude = Allow
		default:
			o.Claude = Ask // not newly run
		}
		o.ClaudeText = "base: " + string(bs.Decision) + " (" + clip(bs.Text, 120) + "); head: " + string(h.Decision) + " (" + clip(h.Text, 120) + ")"
		out[j] = o
	}
	return out, SessionStat{Class: b.Class, Calls: 2 * len(b.Cases), Elapsed: head.Elapsed + base.Elapsed}, nil
}
