package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/render"
	"github.com/shipgate-app/shipgate/report"
)

// GitHub's check-run limits.
const (
	maxAnnotationsPerRequest = 50
	// maxAnnotationsPerRun caps the annotations of one run (3 requests):
	// GitHub allows an App 80 content-creating requests a minute and 500 an
	// hour, and a PR adding thousands of rules must not spend them. The most
	// severe are kept; the summary says how many more there are.
	maxAnnotationsPerRun = 150
	maxAnnotationTitle   = 255
	maxAnnotationMessage = 60 << 10 // under GitHub's 64 KB
)

// runPrefix is the key prefix of a pull request's open runs; runKey adds
// the head. Two pull requests with the same head (one branch into two
// bases) each get their own run.
func runPrefix(owner, repo string, n int) string { return fmt.Sprintf("%s/%s#%d@", owner, repo, n) }

func (p *Worker) runKey(ev *evaluation) string {
	return runPrefix(ev.owner, ev.repo, ev.pr.GetNumber()) + ev.head
}

// startRun creates the check run in progress (or reuses the one a failed
// attempt of this job created), so the check shows at once.
func (p *Worker) startRun(ctx context.Context, cl *github.Client, ev *evaluation) error {
	key := p.runKey(ev)
	p.runsMu.Lock()
	r, ok := p.runs[key]
	p.runsMu.Unlock()
	if ok {
		ev.runID = r.id
		return nil
	}
	{
		// Not a run this process knows: another replica may have started it
		// and died, our own create failed after GitHub made the run, a write
		// outage left it in progress, the job crossed a restart or a
		// shutdown (Job.Resumed) — or another job about this head did, in a
		// process before this one: a redelivery after a restart of the
		// in-memory queue, a review. Adopt it rather than leave it in
		// progress next to a new one. One lookup, paid only by the runs
		// created in progress (more than 50 annotations: the run costs
		// several writes anyway), and their same head's evaluation has as
		// many annotations, so an orphan in progress is always found here.
		if id, found, err := p.openRunOnGitHub(ctx, cl, ev.owner, ev.repo, ev.head, ev.pr.GetNumber()); err != nil {
			return err
		} else if found {
			p.adopt(ev, key, id)
			return nil
		}
	}
	run, _, err := cl.Checks.CreateCheckRun(ctx, ev.owner, ev.repo, github.CreateCheckRunOptions{
		Name: p.cfg.CheckName, HeadSHA: ev.head, Status: github.String("in_progress"),
		ExternalID: github.String(report.CheckRun{PR: ev.pr.GetNumber()}.ExternalID()), DetailsURL: detailsURL(ev, nil),
		StartedAt: &github.Timestamp{Time: p.cfg.Now()},
		Output: &github.CheckRunOutput{Title: github.String("Reviewing agent permission changes"),
			Summary: github.String("Shipgate is reading the agent-config files this pull request changes.")},
	})
	if err != nil {
		if mayHaveApplied(err) {
			p.runsMu.Lock()
			p.unsure[key] = true
			p.runsMu.Unlock()
		}
		return fmt.Errorf("creating the check run: %w", err)
	}
	ev.runID = run.GetID()
	p.runsMu.Lock()
	p.runs[key] = &openRun{id: ev.runID}
	delete(p.unsure, key)
	p.runsMu.Unlock()
	return nil
}

// adopt makes the run id, found on GitHub, the evaluation's: publish
// appends to it (counting first what it already holds) and completes it.
func (p *Worker) adopt(ev *evaluation, key string, id int64) {
	ev.runID = id
	p.runsMu.Lock()
	p.runs[key] = &openRun{id: id, recount: true}
	delete(p.unsure, key)
	p.runsMu.Unlock()
}

// mayHaveApplied reports whether a failed write may still have landed on
// GitHub: a server error or no answer at all. A 4xx (validation,
// permission, rate limit) was refused before anything was written.
func mayHaveApplied(err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	return !errors.As(err, &rl) && !errors.As(err, &abuse)
}

// closeSuperseded completes the runs this worker left in progress on other
// heads of a pull request (all of them when it is no longer open): a
// failed attempt whose retry a newer push replaced would otherwise stay
// "in progress" for ever. They end "cancelled", which never satisfies a
// required check, should the branch return to that commit.
func (p *Worker) closeSuperseded(ctx context.Context, cl *github.Client, owner, repo string, n int, head string, open bool) {
	prefix := runPrefix(owner, repo, n)
	type stale struct {
		key string
		run *openRun
	}
	var list []stale
	var unsureHeads []string
	p.runsMu.Lock()
	for k, r := range p.runs {
		if strings.HasPrefix(k, prefix) && (!open || k != prefix+head) {
			list = append(list, stale{k, r})
			delete(p.runs, k)
		}
	}
	for k := range p.unsure {
		if strings.HasPrefix(k, prefix) && (!open || k != prefix+head) {
			unsureHeads = append(unsureHeads, strings.TrimPrefix(k, prefix))
			delete(p.unsure, k)
		}
	}
	p.runsMu.Unlock()
	for _, h := range unsureHeads {
		// A create that failed there may have made a run: find and close it.
		p.cancelStaleOnGitHub(ctx, cl, owner, repo, h, head, n, open)
	}
	for _, st := range list {
		summary := fmt.Sprintf("The pull request moved on to `%s` before this check finished; the check on that commit is the one that counts.", shortSHA(head))
		if !open {
			summary = "The pull request was closed before this check finished."
		}
		_, _, err := cl.Checks.UpdateCheckRun(ctx, owner, repo, st.run.id, github.UpdateCheckRunOptions{
			Name: p.cfg.CheckName, Status: github.String("completed"), Conclusion: github.String("cancelled"),
			CompletedAt: &github.Timestamp{Time: p.cfg.Now()},
			Output:      &github.CheckRunOutput{Title: github.String("Superseded"), Summary: github.String(summary)},
		})
		if err != nil {
			p.log(ctx).Warn("could not close a superseded check run; will retry", "repo", owner+"/"+repo, "check_run_id", st.run.id, "error", err)
			p.runsMu.Lock()
			if _, taken := p.runs[st.key]; !taken {
				p.runs[st.key] = st.run
			}
			p.runsMu.Unlock()
		}
	}
}

// forgetRuns drops the open runs of pull request n (any PR when n is 0)
// of owner/repo on the given heads (any head when none is given): their job
// failed for good and JobFailed completed them, so a re-run must create a
// new run rather than reuse a finished one.
func (p *Worker) forgetRuns(owner, repo string, n int, heads ...string) {
	prefix := owner + "/" + repo + "#"
	if n > 0 {
		prefix = runPrefix(owner, repo, n)
	}
	matches := func(k string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		match := len(heads) == 0
		for _, h := range heads {
			match = match || strings.HasSuffix(k, "@"+h)
		}
		return match
	}
	p.runsMu.Lock()
	defer p.runsMu.Unlock()
	for k := range p.runs {
		if matches(k) {
			delete(p.runs, k)
		}
	}
	for k := range p.unsure {
		if matches(k) {
			delete(p.unsure, k)
		}
	}
}

// postedAnnotations is how many annotations earlier attempts appended to
// the evaluation's run. When an earlier append may have landed without our
// knowing (see openRun.recount), it asks GitHub: annotations are appended
// in order, so the count says which of ours are there.
func (p *Worker) postedAnnotations(ctx context.Context, cl *github.Client, ev *evaluation) (int, error) {
	p.runsMu.Lock()
	r := p.runs[p.runKey(ev)]
	if r == nil || r.id != ev.runID {
		p.runsMu.Unlock()
		return 0, nil
	}
	posted, recount := r.posted, r.recount
	p.runsMu.Unlock()
	if !recount {
		return posted, nil
	}
	n := 0
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := cl.Checks.ListCheckRunAnnotations(ctx, ev.owner, ev.repo, ev.runID, opts)
		if err != nil {
			return 0, fmt.Errorf("counting the annotations of check run %d: %w", ev.runID, err)
		}
		n += len(page)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	p.runsMu.Lock()
	if r := p.runs[p.runKey(ev)]; r != nil && r.id == ev.runID {
		r.posted, r.recount = n, false
	}
	p.runsMu.Unlock()
	return n, nil
}

// markPosted records n more annotations appended, or, when an append
// failed in a way GitHub may have applied (mayHaveApplied), that the count
// must be taken from GitHub before the next one.
func (p *Worker) markPosted(ev *evaluation, n int, unsure bool) {
	p.runsMu.Lock()
	defer p.runsMu.Unlock()
	if r := p.runs[p.runKey(ev)]; r != nil && r.id == ev.runID {
		r.posted += n
		r.recount = r.recount || unsure
	}
}

// publishNothing completes a run for a pull request that touches no
// agent-config file, in a single call.
func (p *Worker) publishNothing(ctx context.Context, cl *github.Client, ev *evaluation) error {
	summary := fmt.Sprintf("This pull request changes no agent-config file (Claude Code's settings, `.mcp.json`, skills, commands, subagents and the files their hooks run, in any directory, in any case spelling, or through a symlink), nor the Shipgate policy. Nothing that changes what an AI coding agent may do was found.\n\nPolicy: %s. Head `%s`, base `%s`. Shipgate %s.",
		ev.policySrc, shortSHA(ev.head), shortSHA(ev.base), p.cfg.Version)
	summary += report.Trailer(report.DeliveryMarker{ID: ev.delivery})
	_, _, err := cl.Checks.CreateCheckRun(ctx, ev.owner, ev.repo, github.CreateCheckRunOptions{
		Name: p.cfg.CheckName, HeadSHA: ev.head, Status: github.String("completed"), Conclusion: github.String("success"),
		ExternalID: github.String(report.CheckRun{PR: ev.pr.GetNumber()}.ExternalID()), DetailsURL: detailsURL(ev, nil),
		StartedAt: &github.Timestamp{Time: p.cfg.Now()}, CompletedAt: &github.Timestamp{Time: p.cfg.Now()},
		Output: &github.CheckRunOutput{Title: github.String("No agent-config file changed"), Summary: github.String(summary)},
	})
	if err != nil {
		return fmt.Errorf("creating the check run: %w", err)
	}
	return nil
}

// conclusion maps a decision to a check-run conclusion: block fails,
// require_review asks for action, allow succeeds.
func conclusion(d report.Decision, policyBroken bool) string {
	switch {
	case d == report.DecisionBlock:
		return "failure"
	case d == report.DecisionRequireReview || policyBroken:
		return "action_required"
	}
	return "success"
}

// title says the verdict in one line; policyNote ("the policy file has
// errors") is appended, or is the title when nothing else is to say.
func title(r report.Report, policyNote string) string {
	expanding := 0
	for _, c := range r.Changes {
		if c.Expands {
			expanding++
		}
	}
	var t string
	switch r.Decision {
	case report.DecisionBlock:
		first := ""
		for _, f := range r.Findings {
			if f.Action == policy.Block {
				first = f.Title
				break
			}
		}
		t = "Blocked: " + first
	case report.DecisionRequireReview:
		verb := "widen"
		if expanding == 1 {
			verb = "widens"
		}
		t = fmt.Sprintf("Review required: %s %s what the agent may do", countOf(expanding, "change"), verb)
		if expanding == 0 {
			t = fmt.Sprintf("Review required: %s", countOf(len(r.Findings), "finding"))
		}
	default:
		cleared := 0
		for _, f := range r.Findings {
			if f.Cleared != "" {
				cleared++
			}
		}
		switch {
		case cleared > 0:
			t = fmt.Sprintf("Approved: %s cleared by a reviewer team", countOf(cleared, "finding"))
		case len(r.Changes) == 0:
			t = "No permission change"
		default:
			t = fmt.Sprintf("No expansion: %s narrow, respell or add nothing", countOf(len(r.Changes), "change"))
		}
	}
	if policyNote != "" {
		if r.Decision == report.DecisionAllow {
			n := strings.TrimPrefix(policyNote, "the ")
			t = strings.ToUpper(n[:1]) + n[1:]
		} else {
			t += "; " + policyNote
		}
	}
	return truncateRunes(t, 200)
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// publish completes the run: conclusion, title, the Markdown summary and
// annotations on the head files' lines, 50 per request (each request
// appends); the last request completes the run.
func (p *Worker) publish(ctx context.Context, cl *github.Client, ev *evaluation, r report.Report, approvals report.ApprovalResult) error {
	broken, proposed := len(ev.policyErrs) > 0, len(ev.headPolicyErrs) > 0
	var head strings.Builder
	fmt.Fprintf(&head, "Policy: %s. Base `%s` → head `%s`.\n\n", ev.policySrc, shortSHA(ev.base), shortSHA(ev.head))
	clear := clearing(ev, r, approvals, p.cfg.PolicyPath)
	listErrs := func(es []*policy.Error) {
		for _, e := range es {
			fmt.Fprintf(&head, "- `%s`\n", strings.ReplaceAll(e.Error(), "`", "'"))
		}
		head.WriteString("\n")
	}
	note := ""
	if broken {
		head.WriteString("**The policy file on the base branch has errors** (the defaults apply until it is fixed):\n\n")
		listErrs(ev.policyErrs)
		note = "the policy file has errors"
	}
	if proposed {
		head.WriteString("**The policy file this pull request proposes has errors.** It is not enforced here (the base branch's policy is); merged as it is, it would not load and the defaults would apply:\n\n")
		listErrs(ev.headPolicyErrs)
		if note == "" {
			note = "the proposed policy file has errors"
		}
	}
	for _, n := range ev.notes {
		head.WriteString("- " + n + "\n")
	}
	if len(ev.notes) > 0 {
		head.WriteString("\n")
	}
	if ev.truncated {
		fmt.Fprintf(&head, "**GitHub lists at most %d files of a pull request**: agent-config files beyond them were not read. Split the pull request or run `shipgate diff` locally.\n\n", p.cfg.MaxFiles)
	}
	head.WriteString(approvalSummary(approvals))
	anns, unannotated := capAnnotations(p.annotations(ev, r), maxAnnotationsPerRun)
	if unannotated > 0 {
		fmt.Fprintf(&head, "**%d more findings are not annotated on the files**: a run carries at most %d annotations (the most severe are shown; GitHub limits how much an App may write). The table below lists the findings as far as the summary's size allows; `shipgate diff` prints them all.\n\n",
			unannotated, maxAnnotationsPerRun)
	}
	// The markers are what later runs and the ledger read back: the delta
	// approvals bind to, and the decision with its findings by check ID.
	// They go in the trailer, last: ParseMarkers reads nothing else.
	marker := report.Trailer(report.DeltaMarker{Digest: approvals.Digest}, recordOf(r), report.DeliveryMarker{ID: ev.delivery})
	// The verdict, then who clears it and how, then the run's context
	// (policy, approvals, notes), then the findings.
	summary := render.Markdown(r, render.Options{Version: p.cfg.Version, MaxBytes: max(p.cfg.SummaryBytes-len(marker), 4096),
		Clearing: clear, Preamble: head.String()}) + marker
	concl := conclusion(r.Decision, broken || proposed || ev.truncated)
	t := title(r, note)
	out := func(batch []*github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String(t), Summary: github.String(summary), Annotations: batch}
	}
	// Suggestions go out before the run completes: completing it is the
	// job's last write, so a job that dies and runs again never finds its
	// run completed with work left (it would make a second run); a comment
	// already posted is found by its marker and not posted twice.
	p.postSuggestions(ctx, cl, ev, r)
	if ev.runID == 0 {
		done, err := p.createRun(ctx, cl, ev, anns, out(anns), concl, detailsURL(ev, &r))
		if err != nil || done {
			return err
		}
	}
	// Each request appends: skip what an earlier attempt already posted to
	// this run. An append is never retried in place (appending marks it):
	// the job's retry counts what landed first.
	posted, err := p.postedAnnotations(ctx, cl, ev)
	if err != nil {
		return err
	}
	anns = anns[min(posted, len(anns)):]
	for len(anns) > maxAnnotationsPerRequest {
		if _, _, err := cl.Checks.UpdateCheckRun(appending(ctx), ev.owner, ev.repo, ev.runID, github.UpdateCheckRunOptions{
			Name: p.cfg.CheckName, Output: out(anns[:maxAnnotationsPerRequest])}); err != nil {
			p.markPosted(ev, 0, mayHaveApplied(err))
			return fmt.Errorf("adding annotations to check run %d: %w", ev.runID, err)
		}
		p.markPosted(ev, maxAnnotationsPerRequest, false)
		anns = anns[maxAnnotationsPerRequest:]
	}
	last := ctx
	if len(anns) > 0 {
		last = appending(ctx)
	}
	_, _, err = cl.Checks.UpdateCheckRun(last, ev.owner, ev.repo, ev.runID, github.UpdateCheckRunOptions{
		Name: p.cfg.CheckName, Status: github.String("completed"), Conclusion: github.String(concl),
		CompletedAt: &github.Timestamp{Time: p.cfg.Now()}, Output: out(anns), DetailsURL: detailsURL(ev, &r)})
	if err != nil {
		p.markPosted(ev, 0, len(anns) > 0 && mayHaveApplied(err))
		return fmt.Errorf("completing check run %d: %w", ev.runID, err)
	}
	p.runsMu.Lock()
	delete(p.runs, p.runKey(ev))
	p.runsMu.Unlock()
	return nil
}

// createRun makes the evaluation's check run. When every annotation fits
// in one request and no run of ours may already be open on the head (an
// earlier attempt's, or another replica's), the run is created completed
// in that one call (done); otherwise it is created in progress (or the
// open one adopted) for publish to append to and complete.
func (p *Worker) createRun(ctx context.Context, cl *github.Client, ev *evaluation, anns []*github.CheckRunAnnotation, output *github.CheckRunOutput, concl string, details *string) (done bool, err error) {
	key := p.runKey(ev)
	p.runsMu.Lock()
	_, open := p.runs[key]
	unsure := p.unsure[key]
	p.runsMu.Unlock()
	if unsure && !open {
		// Our create failed in a way GitHub may have applied, completed or
		// in progress: find that run and update it rather than add one.
		id, found, err := p.findRunOnGitHub(ctx, cl, ev.owner, ev.repo, ev.head, ev.pr.GetNumber(), "")
		if err != nil {
			return false, err
		}
		if found {
			p.adopt(ev, key, id)
			return false, nil
		}
	}
	if open || len(anns) > maxAnnotationsPerRequest {
		return false, p.startRun(ctx, cl, ev)
	}
	if p.cfg.SharedQueue || ev.swept {
		// Another replica may have started this run and died, or a write
		// outage or a restart left it in progress (the sweep found the
		// head without a completed run): adopt it.
		id, found, err := p.openRunOnGitHub(ctx, cl, ev.owner, ev.repo, ev.head, ev.pr.GetNumber())
		if err != nil {
			return false, err
		}
		if found {
			p.adopt(ev, key, id)
			return false, nil
		}
	}
	now := &github.Timestamp{Time: p.cfg.Now()}
	_, _, err = cl.Checks.CreateCheckRun(ctx, ev.owner, ev.repo, github.CreateCheckRunOptions{
		Name: p.cfg.CheckName, HeadSHA: ev.head, Status: github.String("completed"), Conclusion: github.String(concl),
		ExternalID: github.String(report.CheckRun{PR: ev.pr.GetNumber()}.ExternalID()), DetailsURL: details,
		StartedAt: now, CompletedAt: now, Output: output,
	})
	if err != nil {
		if mayHaveApplied(err) {
			p.runsMu.Lock()
			p.unsure[key] = true
			p.runsMu.Unlock()
		}
		return false, fmt.Errorf("creating the check run: %w", err)
	}
	p.runsMu.Lock()
	delete(p.unsure, key)
	p.runsMu.Unlock()
	p.log(ctx).Debug("check run created completed in one call", "annotations", len(anns))
	return true, nil
}

// annotations turns findings into annotations on the head files' lines:
// failure for block, warning for review, notice for advisory. Every kind
// of finding is annotated where the head has its file: the settings files,
// and the repository's policy file for intent and must_deny findings (read
// from the base; annotated when the head still has it). Findings on a file
// the head no longer has stay in the summary only. The details under each
// say what the finding means for the calls it names (annotationDetails).
func (p *Worker) annotations(ev *evaluation, r report.Report) []*github.CheckRunAnnotation {
	atHead := map[string]bool{}
	for _, f := range ev.files {
		if f.Head.Exists {
			atHead[f.Path] = true
		}
	}
	if ev.policyChange == nil || ev.policyChange.Head != nil || len(ev.headPolicyErrs) > 0 {
		// The policy file is at the head unless the pull request deletes it.
		atHead[p.cfg.PolicyPath] = atHead[p.cfg.PolicyPath] || ev.policy != nil
	}
	var out []*github.CheckRunAnnotation
	for _, f := range r.Findings {
		if !atHead[f.Path] {
			continue
		}
		line := max(f.HeadLine, 1)
		level := "notice"
		switch f.Action {
		case policy.Block:
			level = "failure"
		case policy.RequireReview:
			level = "warning"
		}
		title, msg := strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-")+": "+f.Title, f.Message
		if f.Base && f.Line > 0 && f.Line != line {
			msg += fmt.Sprintf(" (It was on line %d at the base; this is where its list is now.)", f.Line)
		}
		if f.Cleared != "" {
			level = "notice"
			title = "approved by " + f.Cleared + ": " + title
			msg = "Approved by " + f.Cleared + ". " + msg
		}
		a := &github.CheckRunAnnotation{
			Path: github.String(f.Path), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String(level),
			Title:           github.String(truncateRunes(title, maxAnnotationTitle)),
			Message:         github.String(truncateBytes(msg, maxAnnotationMessage)),
		}
		if d := annotationDetails(f); d != "" {
			a.RawDetails = github.String(truncateBytes(d, maxAnnotationMessage))
		}
		out = append(out, a)
	}
	for _, e := range append(ev.policyErrs[:len(ev.policyErrs):len(ev.policyErrs)], ev.headPolicyErrs...) {
		line := max(e.Line, 1)
		out = append(out, &github.CheckRunAnnotation{
			Path: github.String(e.Path), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String("failure"), Title: github.String("Shipgate policy error"),
			Message: github.String(truncateBytes(e.Msg, maxAnnotationMessage)),
		})
	}
	return out
}

// annotationDetails words a finding's witnesses by what the finding means:
// an added or widened allow rule runs them without a prompt; a removed deny
// rule no longer denies them (the message says whether they now prompt or
// run); a removed ask rule no longer asks; an intent or ceiling finding
// names the call it is about. A suggestion (allow findings only) is named
// with where to apply it.
func annotationDetails(f report.Finding) string {
	label := "example"
	switch f.CheckID {
	case report.CheckWildcardAllow, report.CheckAllowExpanded:
		label = "now runs without a prompt"
	case report.CheckDenyRemoved:
		label = "no longer denied"
	case report.CheckAskRemoved:
		label = "no longer asked by this rule"
	case report.CheckIntent:
		label = "the intent's call"
	case report.CheckCeiling:
		label = "beyond the ceiling"
	}
	var d strings.Builder
	for _, w := range f.Witnesses {
		if strings.Contains(f.Message, "`"+w+"`") {
			// The message above names it already: the summary's row and
			// the annotation's message print each witness once each.
			continue
		}
		fmt.Fprintf(&d, "%s: %s\n", label, w)
	}
	if f.Suggestion != "" && (f.CheckID == report.CheckWildcardAllow || f.CheckID == report.CheckAllowExpanded) {
		fmt.Fprintf(&d, "suggested instead (proved narrower; a review comment on this line applies it): %s\n", f.Suggestion)
	}
	return d.String()
}

// capAnnotations keeps at most n annotations, the most severe first
// (failure, warning, notice; in their order otherwise, so every attempt
// keeps the same ones), and returns how many were left out.
func capAnnotations(anns []*github.CheckRunAnnotation, n int) ([]*github.CheckRunAnnotation, int) {
	if len(anns) <= n {
		return anns, 0
	}
	rank := map[string]int{"failure": 0, "warning": 1, "notice": 2}
	kept := slices.Clone(anns)
	slices.SortStableFunc(kept, func(a, b *github.CheckRunAnnotation) int {
		return rank[a.GetAnnotationLevel()] - rank[b.GetAnnotationLevel()]
	})
	return kept[:n], len(anns) - n
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// openRunOnGitHub finds a run of ours left in progress on a commit for a
// pull request (by any replica).
func (p *Worker) openRunOnGitHub(ctx context.Context, cl *github.Client, owner, repo, sha string, n int) (int64, bool, error) {
	return p.findRunOnGitHub(ctx, cl, owner, repo, sha, n, "in_progress")
}

// findRunOnGitHub finds a run of ours for a pull request on a commit, in
// a status ("" for any).
func (p *Worker) findRunOnGitHub(ctx context.Context, cl *github.Client, owner, repo, sha string, n int, status string) (int64, bool, error) {
	// Only this App's runs: a run of the same name and external ID made by
	// another App is not ours to adopt (and GitHub would refuse our update).
	opts := &github.ListCheckRunsOptions{CheckName: github.String(p.cfg.CheckName), Filter: github.String("all")}
	if p.clients != nil {
		opts.AppID = github.Int64(p.clients.appID)
	}
	if status != "" {
		opts.Status = github.String(status)
	}
	runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, opts)
	if err != nil {
		return 0, false, fmt.Errorf("listing the check runs of %s: %w", shortSHA(sha), err)
	}
	for _, r := range runs.CheckRuns {
		if isRunOf(r, n) {
			return r.GetID(), true, nil
		}
	}
	return 0, false, nil
}

// JobSuperseded closes what a replaced attempt left open (the queue calls
// it when a job that had started is superseded by a newer one for the same
// pull request, on whichever replica). If the pull request has moved past
// the job's head, or is closed, a run of ours left in progress there ends
// "cancelled"; when the head is unchanged the newer job adopts the run.
func (p *Worker) JobSuperseded(ctx context.Context, job Job) {
	if job.Kind != KindEvaluatePR || job.HeadSHA == "" {
		return
	}
	log := p.log(ctx)
	if loggerFrom(ctx) == nil {
		log = log.With(job.LogAttrs()...)
	}
	log.Info("superseded job: closing what its attempt left open")
	defer log.Info("superseded job: done")
	cl, err := p.clients.Installation(job.InstallationID)
	if err != nil {
		log.Warn("could not close the runs of a superseded job", "error", err)
		return
	}
	pr, _, err := cl.PullRequests.Get(ctx, job.Owner, job.Repo, job.PRNumber)
	if err != nil {
		log.Warn("could not close the runs of a superseded job", "error", err)
		return
	}
	head := pr.GetHead().GetSHA()
	if pr.GetState() == "open" && head == job.HeadSHA {
		return
	}
	p.forgetRuns(job.Owner, job.Repo, job.PRNumber, job.HeadSHA)
	p.cancelStaleOnGitHub(ctx, cl, job.Owner, job.Repo, job.HeadSHA, head, job.PRNumber, pr.GetState() == "open")
}

// cancelStaleOnGitHub closes, as cancelled, runs of ours left in progress
// on a commit the pull request has moved past (a replica died mid-job).
func (p *Worker) cancelStaleOnGitHub(ctx context.Context, cl *github.Client, owner, repo, sha, head string, n int, open bool) {
	id, found, err := p.openRunOnGitHub(ctx, cl, owner, repo, sha, n)
	if err != nil || !found {
		return
	}
	summary := fmt.Sprintf("The pull request moved on to `%s` before this check finished; the check on that commit is the one that counts.", shortSHA(head))
	if !open {
		summary = "The pull request was closed before this check finished."
	}
	if _, _, err := cl.Checks.UpdateCheckRun(ctx, owner, repo, id, github.UpdateCheckRunOptions{
		Name: p.cfg.CheckName, Status: github.String("completed"), Conclusion: github.String("cancelled"),
		CompletedAt: &github.Timestamp{Time: p.cfg.Now()},
		Output:      &github.CheckRunOutput{Title: github.String("Superseded"), Summary: github.String(summary)},
	}); err != nil {
		p.log(ctx).Warn("could not close a superseded check run", "repo", owner+"/"+repo, "check_run_id", id, "error", err)
	}
}
