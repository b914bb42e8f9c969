package app

import (
	"context"
	"errors"
	"time"

	"github.com/google/go-github/v62/github"
)

// DefaultWriteOutage is how long a check-run write is tried again in place
// while GitHub answers it with a server error or not at all.
const DefaultWriteOutage = 15 * time.Minute

// Waits between tries of a failed check-run write: 5 s, doubling, at most
// 30 s, so a write outage costs at most 30 s more than it lasts.
const (
	writeRetryFirst = 5 * time.Second
	writeRetryMax   = 30 * time.Second
)

// retryWrites runs publish (the step that writes the check run: create,
// append, complete) and, while it fails with an error GitHub may recover
// from — a 5xx or no answer — runs it again after a wait, for at most
// Config.WriteOutage. Issue 20 §5: a persistent 500 on creating the run
// left the PR with no run until the sweep (487 s), and on updating it left
// the run in progress until the sweep saw it stale (1,220 s), beside the
// new run the sweep's job made. The job's attempts and JobFailed ran into
// the same outage within a minute or two; retrying the write itself, with
// the job's clock stopped while it waits (paceWait: the wait is not the
// evaluation's work), completes the same run as soon as GitHub takes
// writes again. publish is safe to run again: what an earlier try may
// have written is found and reused (unsure runs are looked up, appended
// annotations recounted), and every try's writes go through the
// installation's write pace.
func (p *Worker) retryWrites(ctx context.Context, publish func(ctx context.Context) error) error {
	// The budget counts the waits asked for, not a clock: the same number
	// of tries however fast the waits really pass (tests skip them).
	var waited time.Duration
	wait := writeRetryFirst
	for try := 1; ; try++ {
		err := publish(ctx)
		if err == nil || ctx.Err() != nil || !writeOutage(err) {
			return err
		}
		if waited+wait > p.cfg.WriteOutage {
			p.log(ctx).Error("check-run writes kept failing; giving the job back to the queue", "tries", try,
				"waited", waited.String(), "error", err)
			return err
		}
		waited += wait
		p.log(ctx).Warn("a check-run write failed on GitHub's side; trying it again", "try", try, "wait", wait.String(), "error", err)
		if err := paceWait(ctx, wait+time.Minute, func(wctx context.Context) error { return p.cfg.Sleep(wctx, wait) }); err != nil {
			return err
		}
		wait = min(2*wait, writeRetryMax)
	}
}

// writeOutage reports whether err is GitHub failing a request on its side
// (5xx) or not answering, as opposed to refusing it (4xx, rate limits) or
// the job's own context ending.
func writeOutage(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errPaceTooLong) {
		return false
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	return mayHaveApplied(err)
}
