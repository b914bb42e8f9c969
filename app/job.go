// Package app is the GitHub App: installation clients, pull-request context,
// policy loading and check-run publishing. It turns a Job (what a webhook
// delivery asked for) into a completed check run, using the pure review
// engine in package diff.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// JobKind says what a Job asks the worker to do.
type JobKind string

const (
	// KindEvaluatePR evaluates one pull request at its current head and
	// publishes a check run for it.
	KindEvaluatePR JobKind = "evaluate_pr"
	// KindEvaluateSHA evaluates every open pull request whose head is HeadSHA
	// (check_suite rerequested for fork PRs, where pull_requests is empty).
	KindEvaluateSHA JobKind = "evaluate_sha"
	// KindReevaluateRepo re-evaluates every open pull request of a repository
	// (the policy on its default branch changed).
	KindReevaluateRepo JobKind = "reevaluate_repo"
	// KindReevaluateOrg re-evaluates the open pull requests of every repository
	// of an installation (the org default policy in the .github repository changed).
	KindReevaluateOrg JobKind = "reevaluate_org"
)

// Job is one unit of work accepted from a webhook delivery. It carries only
// identifiers, never file contents, so it can be queued, logged and persisted.
type Job struct {
	Kind           JobKind   `json:"kind"`
	DeliveryID     string    `json:"delivery_id"`
	Event          string    `json:"event"`
	Action         string    `json:"action"`
	InstallationID int64     `json:"installation_id"`
	Owner          string    `json:"owner"`
	Repo           string    `json:"repo"`
	PRNumber       int       `json:"pr_number,omitempty"`
	HeadSHA        string    `json:"head_sha,omitempty"`
	CheckRunID     int64     `json:"check_run_id,omitempty"`
	Sender         string    `json:"sender,omitempty"`
	ReceivedAt     time.Time `json:"received_at"`
	// Resumed is set on a job an attempt of which may have started
	// without its outcome being recorded: read back from a queue kept on
	// disk after its process stopped, or handed back at a shutdown. That
	// attempt may have published the check run, or left it in progress, so
	// the worker looks on GitHub first (publishedBefore; the run to adopt),
	// as it does for an attempt after the first.
	Resumed bool `json:"resumed,omitempty"`
}

// Key identifies what a job is about, so a queue can keep one pending job per
// pull request (the newest wins) and run at most one job per key at a time.
func (j Job) Key() string {
	switch j.Kind {
	case KindEvaluatePR:
		return fmt.Sprintf("%d/%s/%s#%d", j.InstallationID, j.Owner, j.Repo, j.PRNumber)
	case KindEvaluateSHA:
		return fmt.Sprintf("%d/%s/%s@%s", j.InstallationID, j.Owner, j.Repo, j.HeadSHA)
	case KindReevaluateOrg:
		return fmt.Sprintf("%d/%s/*", j.InstallationID, j.Owner)
	default:
		return fmt.Sprintf("%d/%s/%s", j.InstallationID, j.Owner, j.Repo)
	}
}

// HeadMark names the head a job evaluates, so that a queue runs each head of
// a pull request once however many deliveries ask for it: "<Key>@<HeadSHA>"
// for an evaluation of a pull request's new head (pull_request opened,
// synchronize, ready_for_review or reopened, or a sweep's job), "" for
// every other job (a re-run asked for, a review, a base change, a policy
// change: each must be evaluated again). skippable says whether the job is
// dropped when a job of another delivery already marked the head: opened,
// synchronize and ready_for_review repeat what that job evaluates (GitHub's
// redelivery of a delivery refused while the sweep queued its head is the
// case that ran heads twice). A sweep's job only marks (it checks GitHub
// for a completed run itself, and a stale run must be redone), and so does
// reopened (the pull request may have been closed for a long time).
func (j Job) HeadMark() (mark string, skippable bool) {
	if j.Kind != KindEvaluatePR || j.HeadSHA == "" {
		return "", false
	}
	switch {
	case j.Event == SweepEvent:
		return j.Key() + "@" + j.HeadSHA, false
	case j.Event != "pull_request":
		return "", false
	}
	switch j.Action {
	case "opened", "synchronize", "ready_for_review":
		return j.Key() + "@" + j.HeadSHA, true
	case "reopened":
		return j.Key() + "@" + j.HeadSHA, false
	}
	return "", false
}

// LogAttrs are the structured-log attributes that identify a job, the same
// in every queue so one grep follows a delivery from webhook to check run.
func (j Job) LogAttrs() []any {
	a := []any{
		"kind", string(j.Kind), "key", j.Key(),
		"delivery_id", j.DeliveryID, "event", j.Event, "action", j.Action,
		"installation_id", j.InstallationID, "repo", j.Owner + "/" + j.Repo,
	}
	if j.PRNumber != 0 {
		a = append(a, "pr", j.PRNumber)
	}
	if j.HeadSHA != "" {
		a = append(a, "head_sha", j.HeadSHA)
	}
	return a
}

// Inherit gives follow-up jobs their parent's delivery fields where the
// processor left them empty, so logs and end-to-end durations of a
// re-evaluation stay traceable to the delivery that caused it.
func Inherit(parent Job, followUps []Job) {
	for i := range followUps {
		f := &followUps[i]
		if f.DeliveryID == "" {
			f.DeliveryID = parent.DeliveryID
		}
		if f.Event == "" {
			f.Event = parent.Event
		}
		if f.ReceivedAt.IsZero() {
			f.ReceivedAt = parent.ReceivedAt
		}
	}
}

// Processor runs jobs. Process returns follow-up jobs (for example one
// KindEvaluatePR per open pull request of a re-evaluated repository) that the
// caller enqueues, and an error when the job should be retried.
type Processor interface {
	Process(ctx context.Context, job Job) (followUps []Job, err error)
}

type loggerKey struct{}

// WithLogger returns a context carrying a job's logger (one with the job's
// LogAttrs), so every line about the job — delivery, queue, gather, judge,
// publish — can be followed with one grep.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// loggerFrom returns the logger a context carries (nil when none).
func loggerFrom(ctx context.Context) *slog.Logger {
	l, _ := ctx.Value(loggerKey{}).(*slog.Logger)
	return l
}
