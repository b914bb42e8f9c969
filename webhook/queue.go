package webhook

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/shipgate-app/shipgate/app"
)

// Queue accepts jobs from the webhook handler and runs them with a
// Processor. It is deliberately small and transport-neutral so that a shared
// implementation (Redis, for several replicas) can replace MemoryQueue
// without touching the handler.
//
// Contract every implementation keeps:
//   - Enqueue is all-or-nothing for its batch (one delivery can yield several
//     jobs) and fast; it returns ErrQueueFull at capacity and ErrQueueClosed
//     after Shutdown, so the handler can answer 503 and GitHub's delivery log
//     shows the failure.
//   - Run blocks, calling the Processor from workers, until Shutdown has
//     drained the queue (nil) or ctx ends (ctx's error).
//   - Shutdown stops accepting, lets pending and running jobs finish until
//     its ctx expires, and logs by key every job it abandons.
//   - Depth reports pending (not running) jobs.
type Queue interface {
	Enqueue(ctx context.Context, jobs []app.Job) error
	Run(ctx context.Context, p app.Processor) error
	Shutdown(ctx context.Context) error
	Depth() int
}

// Errors Enqueue returns; the handler maps both to 503.
var (
	ErrQueueFull   = errors.New("webhook: job queue full")
	ErrQueueClosed = errors.New("webhook: job queue shut down")
)

// ErrDuplicateDelivery is what DeliveryQueue.EnqueueDelivery returns for a
// delivery ID it has already accepted; the handler answers 202 "duplicate".
var ErrDuplicateDelivery = errors.New("webhook: delivery already accepted")

// DeliveryQueue is an optional interface of a Queue that de-duplicates
// deliveries itself. EnqueueDelivery stores the jobs of one delivery and
// records its ID in one atomic step (both or neither), returning
// ErrDuplicateDelivery when the ID was already accepted, and otherwise what
// Enqueue returns. When the Server's Queue implements it, the Server's
// Deduplicator is not used: with a shared store, a replica that died
// between "delivery seen" and "jobs stored" would otherwise make GitHub's
// redelivery look like a duplicate and lose it.
type DeliveryQueue interface {
	EnqueueDelivery(ctx context.Context, deliveryID string, jobs []app.Job) error
}

// DurableQueue is an optional interface of a Queue whose jobs outlive the
// process (a shared store such as Redis). When Durable reports true, the
// Server keeps accepting deliveries while it shuts down (readiness still
// reports 503 so the load balancer moves on): Enqueue keeps working after
// Shutdown, and another replica, or this one restarted, runs the jobs.
// Shutdown then only finishes (or hands back) this replica's running jobs.
type DurableQueue interface {
	Durable() bool
}

// ReadyChecker is an optional interface of a Queue whose backing store can
// be unreachable; /readyz reports 503 while Ready returns an error.
type ReadyChecker interface {
	Ready(ctx context.Context) error
}

// FailureReporter is an optional interface of an app.Processor. When a job
// is dropped for good (retries exhausted, or it kept panicking), the queue
// calls JobFailed once, with a fresh bounded context, so the App can complete
// the job's check run as failed instead of leaving it in progress. The app
// package implements it structurally, without importing this package.
type FailureReporter interface {
	JobFailed(ctx context.Context, job app.Job, err error)
}

// SupersededReporter is an optional interface of an app.Processor for a
// queue shared by replicas. When a job that had started (and may have
// left a check run in progress) is replaced by a newer job for the same key
// instead of being retried — its attempt failed, or its replica died — the
// queue calls JobSuperseded once, with a fresh bounded context, so the App
// can close what that attempt left open. The replica running the newer job
// may not be the one that started the old run.
type SupersededReporter interface {
	JobSuperseded(ctx context.Context, job app.Job)
}

// Defaults for QueueOptions.
const (
	DefaultQueueCapacity = 1000
	DefaultWorkers       = 4
	DefaultJobTimeout    = 2 * time.Minute
	DefaultMaxAttempts   = 4
	DefaultBackoffBase   = 2 * time.Second
	DefaultBackoffMax    = time.Minute
)

// QueueOptions configures a MemoryQueue. Zero values take the defaults.
type QueueOptions struct {
	// Capacity bounds pending jobs (distinct keys; a replaced job does not
	// count twice). Retries of already admitted jobs may exceed it by at
	// most Workers, so admitted work is never lost to the bound.
	Capacity int
	// Workers is how many jobs run concurrently (distinct keys only).
	Workers int
	// JobTimeout bounds one attempt through its context. Processors must
	// honour ctx: a worker cannot reclaim a job that ignores it.
	JobTimeout time.Duration
	// MaxAttempts is the number of tries, first included, before a failing
	// job is dropped (logged at error, counted, reported).
	MaxAttempts int
	// Backoff returns the delay before retry number attempt (1 after the
	// first failure). Default: ExponentialBackoff(2s, 1m, nil). Tests
	// inject a zero or recording function.
	Backoff func(attempt int) time.Duration
	// OnDropped, when set, is called once for each job dropped after its
	// last attempt; wire DeliveryCache.JobFailed here.
	OnDropped func(job app.Job, err error)
	// Metrics receives queue_depth, queue_full_total, jobs_total,
	// job_duration_seconds, job_panics_total, job_retries_total; pass the
	// server's Metrics. Nil uses a private registry.
	Metrics *Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// ExponentialBackoff returns a backoff function: base doubled per attempt,
// capped at max, with "equal jitter" (a uniformly random delay between half
// the step and the full step), so retries from a burst spread out but always
// wait. random returns a value in [0, 1); nil means math/rand/v2.Float64.
func ExponentialBackoff(base, max time.Duration, random func() float64) func(attempt int) time.Duration {
	if random == nil {
		random = rand.Float64
	}
	return func(attempt int) time.Duration {
		if base <= 0 {
			return 0
		}
		d := base
		for i := 1; i < attempt && d < max; i++ {
			d *= 2
		}
		if d > max {
			d = max
		}
		half := d / 2
		return half + time.Duration(random()*float64(d-half))
	}
}

// MemoryQueue is the in-process Queue. It keeps ONE pending job per
// app.Job.Key: a newer job for a key replaces the pending one in place (so for
// a pull request the newest head wins and keeps the older job's place in
// line). At most one job per key runs at a time; a job arriving for a running
// key waits, coalesced with any later ones, and runs after it. Failed
// attempts are retried with backoff unless a newer job for the key is already
// pending (which supersedes the retry); panics are recovered, logged with
// their stack and treated as failures. Follow-up jobs a Processor returns are
// enqueued (a follow-up batch refused for capacity fails the parent attempt,
// which is retried, so nothing is lost silently).
//
// Jobs live in memory only: a crash loses pending work (GitHub does not
// redeliver), which is why Shutdown drains; internal/redisqueue is the
// durable, multi-replica Queue.
type MemoryQueue struct {
	capacity    int
	workers     int
	timeout     time.Duration
	maxAttempts int
	backoff     func(int) time.Duration
	onDropped   func(app.Job, error)
	m           *Metrics
	log         *slog.Logger

	mu         sync.Mutex
	order      *list.List               // of *item, in run order
	pending    map[string]*list.Element // key → element of order
	running    map[string]app.Job       // key → running job
	wake       chan struct{}            // closed and replaced on every state change
	done       chan struct{}            // closed once drained (or stopped)
	doneClosed bool
	closed     bool // Shutdown called (or Run ended): Enqueue refuses
	stopped    bool // hard stop: nothing more starts, results are discarded
	started    bool
	cancelRun  context.CancelFunc
}

// item is one pending job with its retry state.
type item struct {
	key       string
	job       app.Job
	attempts  int       // attempts already made
	notBefore time.Time // earliest start (backoff)
}

// NewMemoryQueue builds a MemoryQueue; call Run to start its workers.
func NewMemoryQueue(opts QueueOptions) (*MemoryQueue, error) {
	if opts.Capacity < 0 || opts.Workers < 0 || opts.JobTimeout < 0 || opts.MaxAttempts < 0 {
		return nil, fmt.Errorf("webhook: queue options: negative value in %+v", opts)
	}
	if opts.Capacity == 0 {
		opts.Capacity = DefaultQueueCapacity
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
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m, err := orPrivateMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	return &MemoryQueue{
		capacity:    opts.Capacity,
		workers:     opts.Workers,
		timeout:     opts.JobTimeout,
		maxAttempts: opts.MaxAttempts,
		backoff:     opts.Backoff,
		onDropped:   opts.OnDropped,
		m:           m,
		log:         opts.Logger,
		order:       list.New(),
		pending:     make(map[string]*list.Element),
		running:     make(map[string]app.Job),
		wake:        make(chan struct{}),
		done:        make(chan struct{}),
	}, nil
}

// Enqueue adds jobs atomically: either every job is admitted (new keys
// appended, existing pending keys replaced in place) or none is, with
// ErrQueueFull when the new keys would exceed Capacity, or ErrQueueClosed
// after Shutdown.
func (q *MemoryQueue) Enqueue(ctx context.Context, jobs []app.Job) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("webhook: enqueue: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrQueueClosed
	}
	return q.addLocked(jobs)
}

// Depth reports the number of pending jobs.
func (q *MemoryQueue) Depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.order.Len()
}

// Run starts Workers workers calling p and blocks until the queue is drained
// after Shutdown (returns nil), Shutdown's deadline stops it (nil: Shutdown
// reports), or ctx ends (returns ctx's error after logging the pending jobs it
// abandons). Job contexts derive from ctx. Run may be called once.
func (q *MemoryQueue) Run(ctx context.Context, p app.Processor) error {
	if p == nil {
		return errors.New("webhook: queue run: nil processor")
	}
	q.mu.Lock()
	if q.started {
		q.mu.Unlock()
		return errors.New("webhook: queue run: already running")
	}
	q.started = true
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	q.cancelRun = cancel
	q.mu.Unlock()

	var wg sync.WaitGroup
	for range q.workers {
		wg.Go(func() { q.worker(runCtx, p) })
	}
	wg.Wait()
	if ctx.Err() == nil {
		return nil
	}
	q.mu.Lock()
	q.closed = true
	n := q.abandonPendingLocked("queue context ended before the job ran")
	q.stopped = true
	q.closeDoneLocked()
	q.mu.Unlock()
	return fmt.Errorf("webhook: queue stopped, %d pending jobs abandoned: %w", n, ctx.Err())
}

// Shutdown stops accepting jobs and waits for pending and running jobs
// (retries included) to finish; Run must be running for a non-empty queue to
// drain. If ctx expires first, it logs every pending job (never started) and
// running job (its context is cancelled) by key, discards them, and returns
// an error wrapping ctx's. Calling it again after it returned is a no-op.
func (q *MemoryQueue) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		q.log.Info("job queue draining", "pending", q.order.Len(), "running", len(q.running))
	}
	q.changedLocked()
	done := q.done
	q.mu.Unlock()

	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}

	q.mu.Lock()
	if q.doneClosed {
		q.mu.Unlock()
		return nil
	}
	q.stopped = true
	pending := q.abandonPendingLocked("shutdown deadline reached before the job ran")
	keys := make([]string, 0, len(q.running))
	for k := range q.running {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q.log.Warn("job abandoned at shutdown: still running, its context is cancelled",
			append(q.running[k].LogAttrs(), "reason", "shutdown deadline reached")...)
	}
	q.closeDoneLocked()
	q.changedLocked()
	cancel := q.cancelRun
	q.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return fmt.Errorf("webhook: queue drain incomplete, abandoned %d pending and %d running jobs: %w",
		pending, len(keys), ctx.Err())
}

// addLocked admits jobs all-or-nothing; see Enqueue.
func (q *MemoryQueue) addLocked(jobs []app.Job) error {
	seen := make(map[string]struct{}, len(jobs))
	newKeys := 0
	for _, j := range jobs {
		k := j.Key()
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		if _, ok := q.pending[k]; !ok {
			newKeys++
		}
	}
	if q.order.Len()+newKeys > q.capacity {
		return ErrQueueFull
	}
	for _, j := range jobs {
		k := j.Key()
		if el, ok := q.pending[k]; ok {
			old := el.Value.(*item).job
			q.m.jobs.WithLabelValues(kindLabel(old), "superseded").Inc()
			q.log.Debug("pending job replaced by a newer one for the same key",
				append(old.LogAttrs(), "new_delivery_id", j.DeliveryID, "new_head_sha", j.HeadSHA)...)
			el.Value = &item{key: k, job: j}
			continue
		}
		q.pending[k] = q.order.PushBack(&item{key: k, job: j})
	}
	q.changedLocked()
	return nil
}

// abandonPendingLocked logs and discards every pending job.
func (q *MemoryQueue) abandonPendingLocked(reason string) int {
	n := 0
	for el := q.order.Front(); el != nil; el = el.Next() {
		it := el.Value.(*item)
		q.m.jobs.WithLabelValues(kindLabel(it.job), "abandoned").Inc()
		q.log.Warn("job abandoned: it never ran", append(it.job.LogAttrs(), "reason", reason, "attempts", it.attempts)...)
		n++
	}
	q.order.Init()
	clear(q.pending)
	q.changedLocked()
	return n
}

// changedLocked publishes a state change: depth gauge, waiting workers, and
// the drained signal.
func (q *MemoryQueue) changedLocked() {
	q.m.queueDepth.Set(float64(q.order.Len()))
	close(q.wake)
	q.wake = make(chan struct{})
	if q.closed && q.order.Len() == 0 && len(q.running) == 0 {
		q.closeDoneLocked()
	}
}

func (q *MemoryQueue) closeDoneLocked() {
	if !q.doneClosed {
		q.doneClosed = true
		close(q.done)
	}
}

func (q *MemoryQueue) worker(ctx context.Context, p app.Processor) {
	for {
		it, ok := q.next(ctx)
		if !ok {
			return
		}
		q.execute(ctx, p, it)
	}
}

// next blocks until a job is runnable (its key idle, its backoff elapsed) and
// marks its key running; false means the worker should exit.
func (q *MemoryQueue) next(ctx context.Context) (*item, bool) {
	for {
		if ctx.Err() != nil {
			return nil, false
		}
		q.mu.Lock()
		if q.stopped || (q.closed && q.order.Len() == 0 && len(q.running) == 0) {
			q.mu.Unlock()
			return nil, false
		}
		it, wait := q.pickLocked(time.Now())
		if it != nil {
			q.running[it.key] = it.job
			q.changedLocked()
			q.mu.Unlock()
			return it, true
		}
		wake := q.wake
		q.mu.Unlock()

		var timer *time.Timer
		var due <-chan time.Time
		if wait >= 0 {
			timer = time.NewTimer(wait)
			due = timer.C
		}
		select {
		case <-wake:
		case <-due:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// pickLocked removes and returns the first pending job whose key is not
// running and whose backoff has elapsed; otherwise it returns the time until
// the earliest backoff ends (-1 when no timer is needed).
func (q *MemoryQueue) pickLocked(now time.Time) (*item, time.Duration) {
	wait := time.Duration(-1)
	for el := q.order.Front(); el != nil; el = el.Next() {
		it := el.Value.(*item)
		if _, busy := q.running[it.key]; busy {
			continue
		}
		if d := it.notBefore.Sub(now); d > 0 {
			if wait < 0 || d < wait {
				wait = d
			}
			continue
		}
		q.order.Remove(el)
		delete(q.pending, it.key)
		return it, 0
	}
	return nil, wait
}

// execute runs one attempt and settles its outcome.
func (q *MemoryQueue) execute(ctx context.Context, p app.Processor, it *item) {
	attempt := it.attempts + 1
	log := q.log.With(append(it.job.LogAttrs(), "attempt", attempt)...)
	followUps, err := q.attempt(ctx, p, it.job, log)
	q.settle(ctx, p, it, attempt, followUps, err, log)
}

// attempt calls the processor with the per-job timeout, turning a panic into
// an error (logged with its stack and counted) so the worker survives.
func (q *MemoryQueue) attempt(ctx context.Context, p app.Processor, job app.Job, log *slog.Logger) (followUps []app.Job, err error) {
	jctx, cancel := context.WithTimeout(ctx, q.timeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			q.m.jobPanics.Inc()
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

// settle records an attempt's outcome: success (follow-ups enqueued), retry
// with backoff, supersession by a newer pending job, or a final drop.
func (q *MemoryQueue) settle(ctx context.Context, p app.Processor, it *item, attempt int, followUps []app.Job, err error, log *slog.Logger) {
	job, key := it.job, it.key
	q.mu.Lock()
	if q.stopped || ctx.Err() != nil {
		delete(q.running, key)
		outcome := "abandoned"
		if err == nil {
			outcome = "succeeded"
		}
		q.m.jobs.WithLabelValues(kindLabel(job), outcome).Inc()
		q.changedLocked()
		q.mu.Unlock()
		if err != nil {
			log.Warn("job abandoned: queue stopped before it could finish or retry", "error", err)
		}
		if len(followUps) > 0 {
			log.Warn("follow-up jobs abandoned: queue stopped", "follow_ups", len(followUps), "follow_up_keys", jobKeys(followUps))
		}
		return
	}
	if err == nil && len(followUps) > 0 {
		app.Inherit(job, followUps)
		if ferr := q.addLocked(followUps); ferr != nil {
			if errors.Is(ferr, ErrQueueFull) {
				q.m.queueFull.Inc()
			}
			err = fmt.Errorf("enqueue %d follow-up jobs: %w", len(followUps), ferr)
		}
	}
	switch {
	case err == nil:
		delete(q.running, key)
		q.finishedLocked(job, "succeeded")
		q.mu.Unlock()
		log.Info("job succeeded", "follow_ups", len(followUps), "since_receipt", time.Since(job.ReceivedAt).Round(time.Millisecond))
		return
	case q.pending[key] != nil:
		delete(q.running, key)
		q.m.jobs.WithLabelValues(kindLabel(job), "superseded").Inc()
		q.changedLocked()
		q.mu.Unlock()
		log.Warn("job failed; a newer pending job for the same key replaces its retry", "error", err)
		return
	case attempt < q.maxAttempts:
		delay := q.backoff(attempt)
		delete(q.running, key)
		q.pending[key] = q.order.PushBack(&item{key: key, job: job, attempts: attempt, notBefore: time.Now().Add(delay)})
		q.m.jobRetries.Inc()
		q.changedLocked()
		q.mu.Unlock()
		log.Warn("job failed; retrying", "error", err, "retry_in", delay, "max_attempts", q.maxAttempts)
		return
	}
	// Final failure. The key stays running while the failure is reported, so
	// a newer job for it cannot race the App marking its check run failed.
	q.mu.Unlock()
	log.Error("job failed permanently; dropped", "error", err, "attempts", attempt)
	q.reportFailure(ctx, p, job, err, log)
	q.mu.Lock()
	delete(q.running, key)
	q.finishedLocked(job, "failed")
	q.mu.Unlock()
}

// finishedLocked counts a job's final outcome and its end-to-end duration.
func (q *MemoryQueue) finishedLocked(job app.Job, outcome string) {
	q.m.jobs.WithLabelValues(kindLabel(job), outcome).Inc()
	if !job.ReceivedAt.IsZero() {
		q.m.jobDuration.WithLabelValues(kindLabel(job)).Observe(time.Since(job.ReceivedAt).Seconds())
	}
	q.changedLocked()
}

// reportFailure calls OnDropped and the processor's FailureReporter, each
// guarded against panics.
func (q *MemoryQueue) reportFailure(ctx context.Context, p app.Processor, job app.Job, err error, log *slog.Logger) {
	guard := func(hook string, f func()) {
		defer func() {
			if v := recover(); v != nil {
				q.m.jobPanics.Inc()
				log.Error("failure hook panicked", "hook", hook, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
		}()
		f()
	}
	if q.onDropped != nil {
		guard("OnDropped", func() { q.onDropped(job, err) })
	}
	if fr, ok := p.(FailureReporter); ok {
		rctx, cancel := context.WithTimeout(ctx, q.timeout)
		defer cancel()
		guard("JobFailed", func() { fr.JobFailed(rctx, job, err) })
	}
}

func kindLabel(j app.Job) string {
	if j.Kind == "" {
		return "unknown"
	}
	return string(j.Kind)
}

func jobKeys(jobs []app.Job) []string {
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = j.Key()
	}
	return keys
}
