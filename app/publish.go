package app

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/diff"
	"github.com/shipgate-app/shipgate/policy"
)

// GitHub's check-run limits.
const (
	maxAnnotationsPerRequest = 50
	maxAnnotationTitle       = 255
	maxAnnotationMessage     = 60 << 10 // under GitHub's 64 KB
)

func (p *Worker) runKey(ev *evaluation) string { return ev.owner + "/" + ev.repo + "@" + ev.head }

// startRun creates the check run in progress (or reuses the one a failed
// attempt of this job created), so the check shows at once.
func (p *Worker) startRun(ctx context.Context, cl *github.Client, ev *evaluation) error {
	p.runsMu.Lock()
	id, ok := p.runs[p.runKey(ev)]
	p.runsMu.Unlock()
	if ok {
		ev.runID = id
		return nil
	}
	run, _, err := cl.Checks.CreateCheckRun(ctx, ev.owner, ev.repo, github.CreateCheckRunOptions{
		Name: p.cfg.CheckName, HeadSHA: ev.head, Status: github.String("in_progress"),
		ExternalID: github.String(externalID(ev.pr.GetNumber())), DetailsURL: detailsURL(ev),
		StartedAt: &github.Timestamp{Time: p.cfg.Now()},
		Output: &github.CheckRunOutput{Title: github.String("Reviewing agent permission changes"),
			Summary: github.String("Shipgate is reading the agent-config files this pull request changes.")},
	})
	if err != nil {
		return fmt.Errorf("creating the check run: %w", err)
	}
	ev.runID = run.GetID()
	p.runsMu.Lock()
	p.runs[p.runKey(ev)] = ev.runID
	p.runsMu.Unlock()
	return nil
}

func detailsURL(ev *evaluation) *string {
	if u := ev.pr.GetHTMLURL(); u != "" {
		return github.String(u)
	}
	return nil
}

// publishNothing completes a run for a pull request that touches no
// agent-config file, in a single call.
func (p *Worker) publishNothing(ctx context.Context, cl *github.Client, ev *evaluation) error {
	summary := fmt.Sprintf("This pull request changes no agent-config file (`.claude/settings.json`, `.claude/settings.local.json`, `.mcp.json` in any directory). Nothing that changes what an AI coding agent may do was found.\n\nPolicy: %s. Head `%s`, base `%s`. Shipgate %s.",
		ev.policySrc, shortSHA(ev.head), shortSHA(ev.base), p.cfg.Version)
	_, _, err := cl.Checks.CreateCheckRun(ctx, ev.owner, ev.repo, github.CreateCheckRunOptions{
		Name: p.cfg.CheckName, HeadSHA: ev.head, Status: github.String("completed"), Conclusion: github.String("success"),
		ExternalID: github.String(externalID(ev.pr.GetNumber())), DetailsURL: detailsURL(ev),
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
func conclusion(d diff.Decision, policyBroken bool) string {
	switch {
	case d == diff.DecisionBlock:
		return "failure"
	case d == diff.DecisionRequireReview || policyBroken:
		return "action_required"
	}
	return "success"
}

// title says the verdict in one line.
func title(r diff.Report, policyBroken bool) string {
	expanding := 0
	for _, c := range r.Changes {
		if c.Expands {
			expanding++
		}
	}
	var t string
	switch r.Decision {
	case diff.DecisionBlock:
		first := ""
		for _, f := range r.Findings {
			if f.Action == string(policy.Block) {
				first = f.Title
				break
			}
		}
		t = "Blocked: " + first
	case diff.DecisionRequireReview:
		t = fmt.Sprintf("Review required: %s widen what the agent may do", countOf(expanding, "change"))
		if expanding == 0 {
			t = fmt.Sprintf("Review required: %s", countOf(len(r.Findings), "finding"))
		}
	default:
		switch {
		case len(r.Changes) == 0:
			t = "No permission change"
		default:
			t = fmt.Sprintf("No expansion: %s narrow, respell or add nothing", countOf(len(r.Changes), "change"))
		}
	}
	if policyBroken {
		if r.Decision == diff.DecisionAllow {
			t = "Policy file has errors"
		} else {
			t += "; the policy file has errors"
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
func (p *Worker) publish(ctx context.Context, cl *github.Client, ev *evaluation, r diff.Report) error {
	broken := len(ev.policyErrs) > 0
	var head strings.Builder
	fmt.Fprintf(&head, "Policy: %s. Base `%s` → head `%s`.\n\n", ev.policySrc, shortSHA(ev.base), shortSHA(ev.head))
	if broken {
		head.WriteString("**The policy file has errors** (the defaults apply until it is fixed):\n\n")
		for _, e := range ev.policyErrs {
			fmt.Fprintf(&head, "- `%s`\n", strings.ReplaceAll(e.Error(), "`", "'"))
		}
		head.WriteString("\n")
	}
	if ev.truncated {
		fmt.Fprintf(&head, "**GitHub lists at most %d files of a pull request**: agent-config files beyond them were not read. Split the pull request or run `shipgate diff` locally.\n\n", p.cfg.MaxFiles)
	}
	summary := head.String() + r.Markdown(diff.RenderOptions{Version: p.cfg.Version, MaxBytes: p.cfg.SummaryBytes - head.Len()})
	anns := annotations(ev, r)
	concl := conclusion(r.Decision, broken || ev.truncated)
	t := title(r, broken)
	out := func(batch []*github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String(t), Summary: github.String(summary), Annotations: batch}
	}
	for len(anns) > maxAnnotationsPerRequest {
		if _, _, err := cl.Checks.UpdateCheckRun(ctx, ev.owner, ev.repo, ev.runID, github.UpdateCheckRunOptions{
			Name: p.cfg.CheckName, Output: out(anns[:maxAnnotationsPerRequest])}); err != nil {
			return fmt.Errorf("adding annotations to check run %d: %w", ev.runID, err)
		}
		anns = anns[maxAnnotationsPerRequest:]
	}
	_, _, err := cl.Checks.UpdateCheckRun(ctx, ev.owner, ev.repo, ev.runID, github.UpdateCheckRunOptions{
		Name: p.cfg.CheckName, Status: github.String("completed"), Conclusion: github.String(concl),
		CompletedAt: &github.Timestamp{Time: p.cfg.Now()}, Output: out(anns), DetailsURL: detailsURL(ev)})
	if err != nil {
		return fmt.Errorf("completing check run %d: %w", ev.runID, err)
	}
	p.runsMu.Lock()
	delete(p.runs, p.runKey(ev))
	p.runsMu.Unlock()
	return nil
}

// annotations turns findings into annotations on the head files' lines:
// failure for block, warning for review, notice for advisory. Findings on
// a file the head no longer has stay in the summary only.
func annotations(ev *evaluation, r diff.Report) []*github.CheckRunAnnotation {
	atHead := map[string]bool{}
	for _, f := range ev.files {
		if f.Head.Exists {
			atHead[f.Path] = true
		}
	}
	var out []*github.CheckRunAnnotation
	for _, f := range r.Findings {
		if !atHead[f.Path] {
			continue
		}
		line := max(f.HeadLine, 1)
		level := "notice"
		switch f.Action {
		case string(policy.Block):
			level = "failure"
		case string(policy.RequireReview):
			level = "warning"
		}
		a := &github.CheckRunAnnotation{
			Path: github.String(f.Path), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String(level),
			Title:           github.String(truncateRunes(strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-")+": "+f.Title, maxAnnotationTitle)),
			Message:         github.String(truncateBytes(f.Message, maxAnnotationMessage)),
		}
		if len(f.Witnesses) > 0 || f.Suggestion != "" {
			var d strings.Builder
			for _, w := range f.Witnesses {
				fmt.Fprintf(&d, "now runs without a prompt: %s\n", w)
			}
			if f.Suggestion != "" {
				fmt.Fprintf(&d, "narrower rule to keep: %s\n", f.Suggestion)
			}
			a.RawDetails = github.String(truncateBytes(d.String(), maxAnnotationMessage))
		}
		out = append(out, a)
	}
	for _, e := range ev.policyErrs {
		line := max(e.Line, 1)
		out = append(out, &github.CheckRunAnnotation{
			Path: github.String(e.Path), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String("failure"), Title: github.String("Shipgate policy error"),
			Message: github.String(truncateBytes(e.Msg, maxAnnotationMessage)),
		})
	}
	return out
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
