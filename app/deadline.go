package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// A job's time limit (--job-timeout) bounds the work an evaluation does:
// reading the pull request, the comparison, writing the check run. It must
// not count the time a write waits for its installation's write pace
// (PaceWrites, ShareWritePace): a burst of pull requests in one
// installation makes later jobs wait their turn to write, and a job that
// did its work in time must then publish its real verdict, not time out,
// be retried from the start, and end as a failed run whose own report
// waits for the same pace. WithJobTimeout is that limit: its clock stops
// while a write of the job waits for the pace, and that wait has its own
// bound (the longest window of the pace, plus a minute: a write always
// fits once a whole window has passed, unless other replicas keep taking
// the room).

// WithJobTimeout returns a context that ends (context.DeadlineExceeded)
// once timeout of the job's own time has passed, not counting the time
// spent waiting for the write pace inside it, or when parent ends. Call
// cancel when the job is done. The queue runs every attempt and report
// under one. Its Deadline moves while a write waits; context.Cause of it
// is its parent's cause (its own Err says why it ended).
func WithJobTimeout(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	c := &jobCtx{Context: parent, done: make(chan struct{}), left: timeout, deadline: time.Now().Add(timeout)}
	c.mu.Lock() // the timer may fire before it is stored
	c.timer = time.AfterFunc(timeout, func() { c.end(context.DeadlineExceeded) })
	c.mu.Unlock()
	stop := context.AfterFunc(parent, func() { c.end(context.Cause(parent)) })
	return c, func() {
		stop()
		c.end(context.Canceled)
	}
}

// PaceWaited returns how long writes of the job ctx belongs to (a
// WithJobTimeout context or one derived from it) waited for the write pace
// so far; 0 outside a job.
func PaceWaited(ctx context.Context) time.Duration {
	c, _ := ctx.Value(jobCtxKey{}).(*jobCtx)
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.waited
	if c.paused > 0 {
		w += time.Since(c.pausedAt)
	}
	return w
}

type jobCtxKey struct{}

// errPaceTooLong ends a write that waited for its installation's write
// pace longer than the pace's own bound: a transient fault (the job is
// retried), not the job's time running out.
var errPaceTooLong = errors.New("waited longer than the write pace's longest window for room to write (other writers of the installation keep taking it); retrying later")

// paceWaitLimit is the bound of one write's wait for the pace: a write
// always fits once the longest window has passed.
func paceWaitLimit(limits []WritePace) time.Duration {
	longest := time.Hour // the shared pace's default windows
	if len(limits) > 0 {
		longest = 0
		for _, l := range limits {
			longest = max(longest, l.Per)
		}
	}
	return longest + time.Minute
}

// jobCtx is the context of WithJobTimeout: a deadline that pause and
// resume move.
type jobCtx struct {
	context.Context // the parent, for Value
	done            chan struct{}
	timer           *time.Timer

	errp atomic.Pointer[error] // err, for Err

	mu       sync.Mutex
	err      error
	deadline time.Time     // while running
	left     time.Duration // while paused: the job's time left
	paused   int           // writes waiting for the pace now
	pausedAt time.Time
	waited   time.Duration // pace waits that have ended
}

func (c *jobCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused > 0 {
		return time.Now().Add(c.left), true
	}
	return c.deadline, true
}

func (c *jobCtx) Done() <-chan struct{} { return c.done }

// Err is lock-free: the engine polls it in its loops.
func (c *jobCtx) Err() error {
	if e := c.errp.Load(); e != nil {
		return *e
	}
	return nil
}

func (c *jobCtx) Value(key any) any {
	if key == (jobCtxKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// end ends the context with err (the first call wins).
func (c *jobCtx) end(err error) {
	if err == nil {
		err = context.Canceled
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.errp.Store(&err)
	c.timer.Stop()
	close(c.done)
}

// pause stops the job's clock while a write waits for the pace (nested
// waits of concurrent writes stop it once).
func (c *jobCtx) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if c.paused == 0 {
		now := time.Now()
		c.pausedAt = now
		c.left = max(c.deadline.Sub(now), 0)
		c.timer.Stop()
	}
	c.paused++
}

// resume starts the job's clock again with the time it had left.
func (c *jobCtx) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 {
		return
	}
	c.paused--
	if c.paused > 0 || c.err != nil {
		if c.paused == 0 {
			c.waited += time.Since(c.pausedAt)
		}
		return
	}
	now := time.Now()
	c.waited += now.Sub(c.pausedAt)
	c.deadline = now.Add(c.left)
	c.timer.Reset(c.left)
}

// paceWait runs wait (a write waiting for the installation's write pace)
// with the job's clock stopped, bounded by limit instead.
func paceWait(ctx context.Context, limit time.Duration, wait func(ctx context.Context) error) error {
	c, _ := ctx.Value(jobCtxKey{}).(*jobCtx)
	if c == nil {
		return wait(ctx)
	}
	// The wait must outlive the job's deadline (which is stopped, but a
	// context derived from the job's before the pause keeps the deadline
	// it copied) yet end with the job otherwise: the pace wait gets the
	// job's values and cancellation, and its own limit.
	wctx, cancel := context.WithTimeoutCause(context.WithoutCancel(ctx), limit, errPaceTooLong)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	c.pause()
	defer c.resume()
	err := wait(wctx)
	if err != nil && ctx.Err() == nil && context.Cause(wctx) == errPaceTooLong {
		return errPaceTooLong
	}
	return err
}
