package app

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/report"
)

// A job runs at least once: a replica that dies (or stalls past its lease)
// after publishing a job's check run but before the queue recorded the job
// as done leaves the job to run again elsewhere. Evaluating again would
// publish a second completed run on the head — the same verdict, but two
// runs where there should be one. So each run carries the delivery that
// produced it (report.DeliveryMarker, an HTML comment in its summary), and an
// attempt after the first (WithAttempt) looks for a completed run of its
// own delivery on the head before evaluating: one found means an earlier
// attempt finished the job. The first attempt pays nothing for this,
// unless the job is Resumed (an attempt may have started before a
// shutdown or a restart without counting).

type attemptKey struct{}

// WithAttempt returns a context that tells the worker which attempt of
// its job this is (1 = first). The queue sets it.
func WithAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}

// attemptOf is the attempt ctx carries (1 when none).
func attemptOf(ctx context.Context) int {
	if n, ok := ctx.Value(attemptKey{}).(int); ok && n > 0 {
		return n
	}
	return 1
}

// publishedBefore reports whether an earlier attempt of job completed a
// run of this App on head (its summary names the job's delivery). Only
// attempts after the first ask; an error reads as "no": evaluating again
// costs a second run, not a wrong verdict.
func (p *Worker) publishedBefore(ctx context.Context, cl *github.Client, job Job, ev *evaluation) bool {
	m := report.DeliveryMarker{ID: job.DeliveryID}
	if (attemptOf(ctx) <= 1 && !job.Resumed) || m.String() == "" {
		return false
	}
	runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, ev.owner, ev.repo, ev.head, &github.ListCheckRunsOptions{
		CheckName: github.String(p.cfg.CheckName), AppID: github.Int64(p.clients.appID), Status: github.String("completed"),
		Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return false
	}
	for _, r := range runs.CheckRuns {
		if d := report.ParseMarkers(r.GetOutput().GetSummary()).Delivery; isRunOf(r, ev.pr.GetNumber()) && d != nil && *d == m {
			return true
		}
	}
	return false
}
