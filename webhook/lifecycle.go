package webhook

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipgate-app/shipgate/app"
)

// Defaults of the lease fields of QueueOptions.
const (
	DefaultLeaseTTL     = 30 * time.Second
	DefaultPollInterval = time.Second
	// storeTimeout bounds one store call.
	storeTimeout = 5 * time.Second
	// settleTries is how often recording an attempt's outcome is tried
	// while the store is unreachable before the lease is left to expire.
	settleTries = 4
)

// StoreQueue is the job queue: one lifecycle over a Store (MemoryStore in
// process; the Redis store of webhook/redisqueue for several replicas).
//
//   - Enqueue and EnqueueDelivery admit a batch all-or-nothing against the
//     capacity (ErrQueueFull: the handler answers 503, and the refusal is
//     counted); the delivery ID is recorded in the same step
//     (ErrDuplicateDelivery for one accepted within the TTL).
//   - One pending job per app.Job.Key: a newer job replaces the pending one
//     in place (for a pull request the newest head wins); at most one job per
//     key runs at a time, across every queue sharing the store.
//   - A worker leases a job (Store.Claim) and extends the lease by a
//     heartbeat; a lease that expires (its process died or stalled) is
//     reclaimed by any queue sharing the store and the job runs again, the
//     interrupted attempt counted.
//   - An attempt is bounded by JobTimeout; a panic is recovered, logged with
//     its stack and counted as a failure. A failed attempt is retried after
//     Backoff unless a newer job for the key is pending (which supersedes
//     it); after MaxAttempts the job is dropped: FailureReporter.JobFailed
//     and OnDropped are called while the lease is still held, and, with
//     RedeliverFailed, the delivery is forgotten so a manual redelivery runs.
//   - Follow-up jobs are added in the same step that ends their parent (a
//     follow-up batch refused for capacity fails the parent attempt, which
//     is retried, so nothing is lost silently).
//   - Shutdown: with a durable store, the queue keeps accepting (the jobs
//     are stored for the others), stops taking jobs, finishes its running
//     ones and hands back those it cannot finish in time. With a memory
//     store, it refuses new jobs (ErrQueueClosed), drains pending and
//     running jobs, and at its deadline abandons them, logged by key.
type StoreQueue struct {
	store           Store
	workers         int
	timeout         time.Duration
	maxAttempts     int
	backoff         func(int) time.Duration
	lease           time.Duration
	redeliverFailed bool
	onDropped       func(app.Job, error)
	poll            time.Duration
	replica         string
	m               *Metrics
	runningGauge    prometheus.Gauge
	recovered       prometheus.Counter
	log             *slog.Logger

	seq     atomic.Uint64
	wake    chan struct{} // poked when work may be available
	stopped chan struct{} // closed by Shutdown: take no new jobs (durable), or drain (memory)
	closed  atomic.Bool   // Shutdown called: a non-durable queue refuses jobs

	hooks sync.WaitGroup // JobSuperseded calls in flight

	mu          sync.Mutex
	active      map[string]*activeJob // key → job this queue runs
	proc        app.Processor
	hookCtx     context.Context
	hooksClosed bool
	started     bool
	hardStop    bool // a non-durable queue's shutdown deadline passed: results are discarded
	stopOnce    sync.Once
	idle        chan struct{} // closed when Run's workers have all returned
}

// activeJob is a job this queue holds the lease of.
type activeJob struct {
	key, token string
	job        app.Job
	cancel     context.CancelCauseFunc
}

// Causes with which a running job's context is cancelled.
var (
	errLeaseLost = errors.New("webhook: lease lost: another replica owns the job now")
	errHandBack  = errors.New("webhook: shutdown deadline reached: job handed back to the queue")
	errAbandon   = errors.New("webhook: shutdown deadline reached: job abandoned")
)

var (
	_ Queue         = (*StoreQueue)(nil)
	_ DeliveryQueue = (*StoreQueue)(nil)
	_ DurableQueue  = (*StoreQueue)(nil)
	_ ReadyChecker  = (*StoreQueue)(nil)
)

// NewStoreQueue builds the queue over store; call Run to start its workers.
// opts.Capacity is the store's business (give it to the store's
// constructor); the other fields apply here.
func NewStoreQueue(store Store, opts QueueOptions) (*StoreQueue, error) {
	if store == nil {
		return nil, errors.New("webhook: queue: no store")
	}
	if opts.Capacity < 0 || opts.Workers < 0 || opts.JobTimeout < 0 || opts.MaxAttempts < 0 ||
		opts.LeaseTTL < 0 || opts.PollInterval < 0 {
		return nil, fmt.Errorf("webhook: queue options: negative value in workers %d, job timeout %s, max attempts %d, lease %s or poll interval %s",
			opts.Workers, opts.JobTimeout, opts.MaxAttempts, opts.LeaseTTL, opts.PollInterval)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.JobTimeout == 0 {
		opts.JobTimeout = DefaultJobTimeout
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.Backoff == nil {
		opts.Backoff = ExponentialBackoff(DefaultBackoffBase, DefaultBackoffMax, nil)
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.LeaseTTL < 300*time.Millisecond {
		return nil, fmt.Errorf("webhook: queue: lease TTL %s is too short (minimum 300ms)", opts.LeaseTTL)
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.ReplicaID == "" {
		opts.ReplicaID = defaultReplicaID()
	}
	opts.ReplicaID = strings.NewReplacer("|", "-", " ", "-").Replace(opts.ReplicaID)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m, err := orPrivateMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if store.Durable() {
		log = log.With("replica", opts.ReplicaID)
	}
	q := &StoreQueue{
		store: store, workers: opts.Workers, timeout: opts.JobTimeout, maxAttempts: opts.MaxAttempts,
		backoff: opts.Backoff, lease: opts.LeaseTTL, redeliverFailed: opts.RedeliverFailed,
		onDropped: opts.OnDropped, poll: opts.PollInterval, replica: opts.ReplicaID, m: m,
		runningGauge: m.queueRunning, recovered: m.jobsRecovered,
		log: log, wake: make(chan struct{}, 1), stopped: make(chan struct{}),
		active: make(map[string]*activeJob), idle: make(chan struct{}),
	}
	return q, nil
}

func defaultReplicaID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "shipgate"
	}
	var b [3]byte
	_, _ = crand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Store is the queue's store.
func (q *StoreQueue) Store() Store { return q.store }

// Replica is this queue's ID, as it appears in lease tokens and logs.
func (q *StoreQueue) Replica() string { return q.replica }

// Durable reports whether the store outlives the process (DurableQueue).
func (q *StoreQueue) Durable() bool { return q.store.Durable() }

// Ready reports whether the store answers (ReadyChecker).
func (q *StoreQueue) Ready(ctx context.Context) error { return q.store.Ready(ctx) }

// Depth reports pending jobs (running ones excluded); for a shared store,
// as last read.
func (q *StoreQueue) Depth() int { return q.store.Depth() }

// Stats reads the queue's size from the store and refreshes the gauges.
func (q *StoreQueue) Stats(ctx context.Context) (QueueStats, error) {
	s, err := q.store.Stats(ctx)
	if err != nil {
		return s, err
	}
	q.m.SetQueueDepth(s.Pending)
	q.runningGauge.Set(float64(s.Running))
	return s, nil
}

// Enqueue stores jobs atomically: all of them or none, ErrQueueFull when
// their new keys would exceed the capacity, ErrQueueClosed after Shutdown
// when the store is not durable.
func (q *StoreQueue) Enqueue(ctx context.Context, jobs []app.Job) error {
	return q.enqueue(ctx, "", jobs)
}

// EnqueueDelivery stores a delivery's jobs and records its ID in one atomic
// step; it returns ErrDuplicateDelivery for an ID accepted within the
// store's TTL (by any queue sharing the store).
func (q *StoreQueue) EnqueueDelivery(ctx context.Context, deliveryID string, jobs []app.Job) error {
	if deliveryID == "" {
		return errors.New("webhook: enqueue: empty delivery ID")
	}
	return q.enqueue(ctx, deliveryID, jobs)
}

func (q *StoreQueue) enqueue(ctx context.Context, deliveryID string, jobs []app.Job) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("webhook: enqueue: %w", err)
	}
	if q.closed.Load() && !q.store.Durable() {
		return ErrQueueClosed
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	res, err := q.store.Add(ctx, deliveryID, jobs)
	if err != nil {
		return fmt.Errorf("webhook: storing %d jobs: %w", len(jobs), err)
	}
	switch res.Status {
	case AddDuplicate:
		return ErrDuplicateDelivery
	case AddFull:
		return ErrQueueFull
	}
	if res.Replaced > 0 && len(jobs) > 0 {
		for range res.Replaced {
			q.m.CountJob(jobs[0], "superseded")
		}
		q.log.Debug("pending jobs replaced by newer ones for the same key", "replaced", res.Replaced, "delivery_id", deliveryID)
	}
	for _, j := range res.Skipped {
		q.m.CountJob(j, "duplicate_head")
		q.log.Info("job not queued: its head is already queued, running or evaluated by another delivery's job", j.LogAttrs()...)
	}
	q.reportStarted(res.Started)
	q.m.SetQueueDepth(q.store.Depth())
	q.poke()
	return nil
}

// poke wakes the fetch loop without blocking.
func (q *StoreQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run starts the workers, heartbeat, lease reaper and depth poller, and
// blocks until Shutdown has let the jobs finish (nil) or ctx ends (ctx's
// error: a durable queue hands its running jobs back; a memory queue
// abandons its pending ones, logged). Job contexts derive from ctx. Run may
// be called once.
func (q *StoreQueue) Run(ctx context.Context, p app.Processor) error {
	if p == nil {
		return errors.New("webhook: queue run: nil processor")
	}
	q.mu.Lock()
	if q.started {
		q.mu.Unlock()
		return errors.New("webhook: queue run: already running")
	}
	q.started = true
	q.proc = p
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	bgCtx, stopBG := context.WithCancel(context.Background())
	q.hookCtx = bgCtx
	q.mu.Unlock()

	var bg sync.WaitGroup
	bg.Go(func() { q.store.Watch(bgCtx, q.poke) })
	bg.Go(func() { q.heartbeats(bgCtx) })
	bg.Go(func() { q.reaper(bgCtx) })
	bg.Go(func() { q.depthPoller(bgCtx) })

	// Leases already expired when the queue starts (a durable store's jobs
	// whose process died mid-run) are taken back before the first claim,
	// not a reaper's interval later.
	if _, err := q.Reclaim(runCtx); err != nil && runCtx.Err() == nil {
		q.log.Error("could not reclaim expired job leases", "error", err)
	}
	var jobs sync.WaitGroup
	q.fetch(runCtx, p, &jobs)
	jobs.Wait()
	close(q.idle)
	stopBG()
	bg.Wait()
	q.mu.Lock()
	q.hooksClosed = true
	q.mu.Unlock()
	q.hooks.Wait()
	if err := ctx.Err(); err != nil {
		if q.store.Durable() {
			return fmt.Errorf("webhook: queue run stopped, running jobs handed back: %w", err)
		}
		q.closed.Store(true)
		n := q.abandonPending("queue context ended before the job ran")
		return fmt.Errorf("webhook: queue stopped, %d pending jobs abandoned: %w", n, err)
	}
	return nil
}

// abandonPending logs and discards every pending job of a non-durable store.
func (q *StoreQueue) abandonPending(reason string) int {
	pend := q.store.TakePending(context.Background())
	for _, j := range pend {
		q.m.CountJob(j, "abandoned")
		q.log.Warn("job abandoned: it never ran", append(j.LogAttrs(), "reason", reason)...)
	}
	q.m.SetQueueDepth(q.store.Depth())
	return len(pend)
}

// Shutdown stops taking new jobs and waits for this queue's running jobs
// to finish (a memory queue also drains its pending jobs, retries
// included). If ctx expires first: a durable queue cancels its running
// jobs and hands each back, ready at once and its attempt not counted; a
// memory queue logs every pending job (never started) and running job (its
// context is cancelled) by key and discards them. Either returns an error
// wrapping ctx's then. Calling it again is harmless.
func (q *StoreQueue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() {
		q.closed.Store(true)
		close(q.stopped)
		q.mu.Lock()
		n := len(q.active)
		q.mu.Unlock()
		if q.store.Durable() {
			q.log.Info("job queue: this replica stops taking jobs; pending jobs stay in the shared store", "running_here", n)
		} else {
			q.log.Info("job queue draining", "pending", q.store.Depth(), "running", n)
		}
		q.poke()
	})
	q.mu.Lock()
	started := q.started
	q.mu.Unlock()
	if !started {
		if !q.store.Durable() {
			if n := q.abandonPending("the queue was shut down before it ran"); n > 0 {
				return fmt.Errorf("webhook: queue drain incomplete, abandoned %d pending and 0 running jobs: the queue never ran", n)
			}
		}
		return nil
	}
	select {
	case <-q.idle:
		return nil
	case <-ctx.Done():
	}
	cause := errHandBack
	pending := 0
	if !q.store.Durable() {
		cause = errAbandon
		q.mu.Lock()
		q.hardStop = true
		q.mu.Unlock()
		pending = q.abandonPending("shutdown deadline reached before the job ran")
	}
	q.mu.Lock()
	var running []*activeJob
	for _, a := range q.active {
		running = append(running, a)
		a.cancel(cause)
	}
	q.mu.Unlock()
	for _, a := range running {
		if cause == errHandBack {
			q.log.Warn("job handed back at shutdown: still running when the deadline passed; another replica runs it", "key", a.key)
		} else {
			q.log.Warn("job abandoned at shutdown: still running, its context is cancelled",
				append(a.job.LogAttrs(), "reason", "shutdown deadline reached")...)
		}
	}
	q.poke()
	// The cancelled jobs settle quickly if their processor honours ctx;
	// wait a little for that so the hand-back is recorded.
	select {
	case <-q.idle:
	case <-time.After(storeTimeout):
	}
	if cause == errHandBack {
		return fmt.Errorf("webhook: queue shutdown: %d running jobs handed back: %w", len(running), ctx.Err())
	}
	return fmt.Errorf("webhook: queue drain incomplete, abandoned %d pending and %d running jobs: %w", pending, len(running), ctx.Err())
}

// drained reports whether a non-durable queue has nothing left to do: its
// store holds no pending or running job (a job being claimed counts as
// running in the store), or its shutdown deadline passed.
func (q *StoreQueue) drained(ctx context.Context) bool {
	if q.isHardStopped() {
		return true
	}
	s, err := q.store.Stats(ctx)
	return err == nil && s.Pending == 0 && s.Running == 0
}

// fetch leases jobs while a worker slot is free, until Shutdown (a durable
// queue) or the drain (memory), or ctx.
func (q *StoreQueue) fetch(ctx context.Context, p app.Processor, jobs *sync.WaitGroup) {
	slots := make(chan struct{}, q.workers)
	errDelay := 100 * time.Millisecond
	durable := q.store.Durable()
	stopped := q.stopped
	if !durable {
		stopped = nil // a memory queue drains: Shutdown does not stop the fetching
	}
	for {
		select {
		case slots <- struct{}{}:
		case <-stopped:
			return
		case <-ctx.Done():
			return
		}
		for {
			if ctx.Err() != nil || (q.isStopped() && (durable || q.drained(ctx))) {
				<-slots
				return
			}
			c, wait, err := q.claim(ctx)
			if err != nil {
				if ctx.Err() != nil {
					<-slots
					return
				}
				q.log.Error("could not take a job from the queue's store; retrying", "error", err, "retry_in", errDelay)
				q.sleep(ctx, errDelay, false)
				errDelay = min(2*errDelay, 5*time.Second)
				continue
			}
			errDelay = 100 * time.Millisecond
			if c != nil {
				jobs.Go(func() {
					defer func() { <-slots; q.poke() }()
					q.execute(ctx, p, c)
				})
				break
			}
			if wait < 0 || wait > q.poll {
				wait = q.poll
			}
			q.sleep(ctx, wait, true)
		}
	}
}

func (q *StoreQueue) isStopped() bool {
	select {
	case <-q.stopped:
		return true
	default:
		return false
	}
}

// sleep waits d, or less when woken (if wakeable), stopped or ctx ends.
func (q *StoreQueue) sleep(ctx context.Context, d time.Duration, wakeable bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	var wake <-chan struct{}
	var stopped <-chan struct{}
	if wakeable {
		wake = q.wake
	}
	if q.store.Durable() {
		stopped = q.stopped
	}
	select {
	case <-t.C:
	case <-wake:
	case <-stopped:
	case <-ctx.Done():
	}
}

// claim leases the first runnable job.
func (q *StoreQueue) claim(ctx context.Context) (*Claim, time.Duration, error) {
	token := q.replica + "." + strconv.FormatUint(q.seq.Add(1), 10)
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	c, wait, err := q.store.Claim(ctx, token, q.lease)
	if err == nil && c != nil {
		q.m.SetQueueDepth(q.store.Depth())
	}
	return c, wait, err
}

// execute runs one leased job and settles its outcome in the store.
func (q *StoreQueue) execute(runCtx context.Context, p app.Processor, c *Claim) {
	job := c.Job
	if c.Unreadable != nil {
		q.log.Error("job in the queue's store is unreadable; dropped", "key", c.Key, "error", c.Unreadable)
		q.finish(c, app.Job{}, nil, false)
		q.m.CountJob(app.Job{}, "failed")
		return
	}
	log := q.log.With(append(job.LogAttrs(), "attempt", c.Attempt)...)
	jctx, cancel := context.WithCancelCause(runCtx)
	defer cancel(nil)
	a := &activeJob{key: c.Key, token: c.Token, job: job, cancel: cancel}
	q.mu.Lock()
	q.active[c.Key] = a
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		if q.active[c.Key] == a {
			delete(q.active, c.Key)
		}
		q.mu.Unlock()
	}()

	if c.Attempt > q.maxAttempts {
		// Earlier attempts were interrupted (their process died): the job
		// has had its tries.
		err := fmt.Errorf("job was interrupted %d times (its replica stopped or lost its lease mid-run)", c.Attempt-1)
		q.fail(jctx, p, c, job, err, log)
		return
	}
	if c.Attempt > 1 {
		log.Info("job attempt starting", "previous_attempts", c.Attempt-1)
	}
	followUps, err := q.attempt(app.WithAttempt(jctx, c.Attempt), p, job, log)
	cause := context.Cause(jctx)
	switch {
	case errors.Is(cause, errLeaseLost):
		q.m.CountJob(job, "abandoned")
		log.Warn("job's lease was lost mid-run (this replica stalled or the store was unreachable); another replica runs it", "error", err)
		return
	case errors.Is(cause, errAbandon) || q.isHardStopped() || (!q.store.Durable() && runCtx.Err() != nil):
		// A memory queue stopped: the result is discarded.
		outcome := "abandoned"
		if err == nil {
			outcome = "succeeded"
		}
		q.m.CountJob(job, outcome)
		q.finish(c, job, nil, false)
		if err != nil {
			log.Warn("job abandoned: queue stopped before it could finish or retry", "error", err)
		}
		if len(followUps) > 0 {
			log.Warn("follow-up jobs abandoned: queue stopped", "follow_ups", len(followUps), "follow_up_keys", jobKeys(followUps))
		}
		return
	case (errors.Is(cause, errHandBack) || runCtx.Err() != nil) && err != nil:
		// Interrupted: another replica, or this one restarted, runs it.
		// (A job that succeeded just as its context ended is done: it is
		// finished below, not handed back to run a second time.)
		q.release(c, job, cause, ReleaseHandBack, 0, log)
		return
	}
	if err == nil {
		app.Inherit(job, followUps)
		switch q.finish(c, job, followUps, false) {
		case FinishOK:
			q.m.CountJob(job, "succeeded")
			q.m.ObserveJobDuration(job)
			log.Info("job succeeded", "follow_ups", len(followUps), "since_receipt", time.Since(job.ReceivedAt).Round(time.Millisecond))
			return
		case FinishFull:
			q.m.CountQueueFull()
			err = fmt.Errorf("enqueue %d follow-up jobs: %w", len(followUps), ErrQueueFull)
		default:
			return // lost, or the store unreachable: logged; the lease expires and the job runs again
		}
	}
	if c.Attempt < q.maxAttempts {
		delay := q.backoff(c.Attempt)
		if q.release(c, job, err, ReleaseRetry, delay, log) == ReleaseStatus(ReleaseRetry) {
			q.m.CountRetry()
			log.Warn("job failed; retrying", "error", err, "retry_in", delay, "max_attempts", q.maxAttempts)
		}
		return
	}
	q.fail(jctx, p, c, job, err, log)
}

func (q *StoreQueue) isHardStopped() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.hardStop
}

// fail handles a job whose last attempt failed: unless a newer job for the
// key supersedes it, the failure is reported (while the lease is held, so a
// newer job cannot race the App marking its check run failed) and the job is
// dropped.
func (q *StoreQueue) fail(ctx context.Context, p app.Processor, c *Claim, job app.Job, err error, log *slog.Logger) {
	if q.release(c, job, err, ReleaseFinal, 0, log) != ReleaseStatus(ReleaseFinal) {
		return
	}
	log.Error("job failed permanently; dropped", "error", err, "attempts", c.Attempt)
	q.reportFailure(ctx, p, job, err, log)
	if q.finish(c, job, nil, q.redeliverFailed) == FinishOK {
		q.m.CountJob(job, "failed")
		q.m.ObserveJobDuration(job)
	}
}

// attempt calls the processor with the per-job timeout, turning a panic
// into an error (logged with its stack and counted).
func (q *StoreQueue) attempt(ctx context.Context, p app.Processor, job app.Job, log *slog.Logger) (followUps []app.Job, err error) {
	// The job's time limit does not count its writes' waits for the
	// installation's write pace (app.WithJobTimeout).
	jctx, cancel := app.WithJobTimeout(ctx, q.timeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			q.m.CountPanic()
			log.Error("job panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			followUps, err = nil, fmt.Errorf("job %s panicked: %v", job.Key(), v)
		}
	}()
	followUps, err = p.Process(jctx, job)
	if err != nil && ctx.Err() == nil && errors.Is(jctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("job timed out after %s: %w", q.timeout, err)
	}
	return followUps, err
}

// finish ends a job in the store (with its follow-ups), retrying briefly
// while the store is unreachable. It returns the store's verdict, or -1
// when the store could not be reached.
func (q *StoreQueue) finish(c *Claim, job app.Job, followUps []app.Job, forget bool) FinishStatus {
	forgetID := ""
	if forget {
		forgetID = job.DeliveryID
	}
	var res FinishResult
	err := q.settle(func(ctx context.Context) error {
		var err error
		res, err = q.store.Finish(ctx, c.Key, c.Token, followUps, forgetID)
		return err
	})
	if err != nil {
		q.log.Error("could not record a finished job in the queue's store; its lease will expire and it will run again", "key", c.Key, "error", err)
		return -1
	}
	switch res.Status {
	case FinishLost:
		q.m.CountJob(job, "abandoned")
		q.log.Warn("job finished after its lease expired; another replica may have run it too", "key", c.Key)
	case FinishOK:
		q.reportStarted(res.Started)
	}
	q.m.SetQueueDepth(q.store.Depth())
	q.poke()
	return res.Status
}

// release records a failed or interrupted attempt and returns the store's
// verdict, or "error".
func (q *StoreQueue) release(c *Claim, job app.Job, cause error, mode ReleaseMode, delay time.Duration, log *slog.Logger) ReleaseStatus {
	var st ReleaseStatus
	err := q.settle(func(ctx context.Context) error {
		var err error
		st, err = q.store.Release(ctx, c.Key, c.Token, mode, delay)
		return err
	})
	if err != nil {
		log.Error("could not record a failed attempt in the queue's store; its lease will expire and it will run again", "error", err, "cause", cause)
		return "error"
	}
	switch st {
	case ReleaseSuperseded:
		q.m.CountJob(job, "superseded")
		log.Warn("job failed or was interrupted; a newer pending job for the same key replaces it", "error", cause)
		q.reportSuperseded(job, log)
	case ReleaseLost:
		q.m.CountJob(job, "abandoned")
		log.Warn("job's lease expired before its outcome was recorded; another replica runs it", "error", cause)
	case ReleaseStatus(ReleaseHandBack):
		log.Warn("job handed back to the queue: this replica is stopping", "error", cause)
	}
	q.m.SetQueueDepth(q.store.Depth())
	q.poke()
	return st
}

// settle runs a settling store call, retrying while the store is
// unreachable (the job's work is done; losing its outcome would only make
// it run again).
func (q *StoreQueue) settle(run func(ctx context.Context) error) error {
	var err error
	delay := 200 * time.Millisecond
	for i := range settleTries {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		err = run(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if i < settleTries-1 {
			time.Sleep(delay)
			delay *= 2
		}
	}
	return err
}

// reportStarted reports replaced jobs that had started (see reportSuperseded).
func (q *StoreQueue) reportStarted(jobs []app.Job) {
	for _, j := range jobs {
		q.reportSuperseded(j, q.log)
	}
}

// reportSuperseded tells the processor (when it is a SupersededReporter)
// that a job which had started was replaced by a newer one, so it can close
// what the attempt left open. It runs in the background, bounded by the job
// timeout and guarded against panics.
func (q *StoreQueue) reportSuperseded(job app.Job, log *slog.Logger) {
	q.mu.Lock()
	sr, ok := q.proc.(SupersededReporter)
	hctx := q.hookCtx
	if !ok || hctx == nil || q.hooksClosed {
		q.mu.Unlock()
		return
	}
	q.hooks.Add(1) // under q.mu: never after Run has begun to wait
	q.mu.Unlock()
	go func() {
		defer q.hooks.Done()
		defer func() {
			if v := recover(); v != nil {
				q.m.CountPanic()
				log.Error("superseded hook panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
		}()
		rctx, cancel := app.WithJobTimeout(hctx, q.timeout)
		defer cancel()
		sr.JobSuperseded(rctx, job)
	}()
}

// reportFailure calls OnDropped and the processor's FailureReporter, each
// guarded against panics.
func (q *StoreQueue) reportFailure(ctx context.Context, p app.Processor, job app.Job, err error, log *slog.Logger) {
	guard := func(hook string, f func()) {
		defer func() {
			if v := recover(); v != nil {
				q.m.CountPanic()
				log.Error("failure hook panicked", "hook", hook, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
		}()
		f()
	}
	if q.onDropped != nil {
		guard("OnDropped", func() { q.onDropped(job, err) })
	}
	if fr, ok := p.(FailureReporter); ok {
		rctx, cancel := app.WithJobTimeout(context.WithoutCancel(ctx), q.timeout)
		defer cancel()
		guard("JobFailed", func() { fr.JobFailed(rctx, job, err) })
	}
}

// heartbeats extends this queue's leases every third of the lease TTL; a
// job whose lease is lost (or cannot be renewed for a whole TTL) is
// cancelled, because another replica may be running it.
func (q *StoreQueue) heartbeats(ctx context.Context) {
	tick := time.NewTicker(q.lease / 3)
	defer tick.Stop()
	lastOK := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		q.mu.Lock()
		held := make(map[string]string, len(q.active))
		for k, a := range q.active {
			held[k] = a.token
		}
		q.mu.Unlock()
		if len(held) == 0 {
			lastOK = time.Now()
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, storeTimeout)
		lost, err := q.store.Heartbeat(rctx, q.lease, held)
		cancel()
		if err != nil {
			q.log.Error("could not renew job leases", "error", err, "since_last_renewal", time.Since(lastOK).Round(time.Millisecond))
			if time.Since(lastOK) >= q.lease {
				q.cancelActive(held, errLeaseLost)
			}
			continue
		}
		lastOK = time.Now()
		if len(lost) > 0 {
			gone := make(map[string]string, len(lost))
			for _, k := range lost {
				gone[k] = held[k]
			}
			q.cancelActive(gone, errLeaseLost)
		}
	}
}

// cancelActive cancels the running jobs named by key → lease token; a job
// of the same key leased since (another token) is left alone.
func (q *StoreQueue) cancelActive(jobs map[string]string, cause error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, token := range jobs {
		if a := q.active[k]; a != nil && a.token == token {
			a.cancel(cause)
		}
	}
}

// reaper returns the jobs of expired leases to the queue, every quarter to
// half lease TTL (jittered, so replicas spread out).
func (q *StoreQueue) reaper(ctx context.Context) {
	for {
		d := q.lease/4 + time.Duration(rand.Int64N(int64(q.lease/4)+1))
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if _, err := q.Reclaim(ctx); err != nil && ctx.Err() == nil {
			q.log.Error("could not reclaim expired job leases", "error", err)
		}
	}
}

// Reclaim puts the jobs of expired leases back in the queue now and returns
// how many it put back. The reaper calls it periodically; tests call it to
// avoid waiting.
func (q *StoreQueue) Reclaim(ctx context.Context) (int, error) {
	rctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	rs, err := q.store.Reclaim(rctx)
	if err != nil {
		return 0, fmt.Errorf("webhook: reclaiming expired leases: %w", err)
	}
	for _, r := range rs {
		owner := r.Token
		if i := strings.LastIndexByte(owner, '.'); i > 0 {
			owner = owner[:i]
		}
		q.recovered.Inc()
		what := "requeued"
		if r.Superseded {
			what = "superseded"
		}
		q.log.Warn("job recovered from an expired lease: its replica stopped or stalled mid-run",
			"key", r.Key, "previous_owner", owner, "attempt", r.Attempt, "outcome", what)
		if r.Superseded {
			q.reportSuperseded(r.Job, q.log)
		}
	}
	if len(rs) > 0 {
		q.poke()
	}
	return len(rs), nil
}

// depthPoller refreshes the depth gauges from the store every second.
func (q *StoreQueue) depthPoller(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if _, err := q.Stats(ctx); err != nil && ctx.Err() == nil {
			q.log.Debug("could not read the queue size", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
