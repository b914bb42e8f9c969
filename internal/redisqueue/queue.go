// Package redisqueue is Shipgate's shared job queue for running several App
// replicas: a webhook.Queue kept in Redis (through go-redis), so that
//
//   - a delivery's jobs are stored in Redis before the webhook answers 202,
//     de-duplicated by X-GitHub-Delivery across replicas in the same atomic
//     step (webhook.DeliveryQueue);
//   - there is one pending job per app.Job.Key: a newer job replaces the
//     pending one (for a pull request the newest head wins) and keeps its
//     place in line;
//   - at most one job per key runs at a time across all replicas: a worker
//     holds a lease (expiry in Redis, extended by a heartbeat) while it runs
//     the job;
//   - a replica killed mid-job loses nothing: its leases expire, and any
//     replica (the restarted one included) puts the job back and runs it;
//   - failed attempts are retried with backoff, the next attempt time kept
//     in Redis, so retries survive restarts; follow-up jobs are stored in
//     the same step that ends their parent;
//   - Shutdown finishes this replica's running jobs and hands back, at once,
//     those it cannot finish in time.
//
// Delivery is at least once: a job whose replica dies after its effect but
// before recording it runs again. That is safe because evaluating a pull
// request is idempotent (the App reads the pull request's current state and
// publishes the same check run). The design, the keys and the failure modes
// are described in docs/scaling-redis.md; the scripts in scripts.go.
package redisqueue

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
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
	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/webhook"
)

// Defaults for Options.
const (
	DefaultPrefix       = "shipgate:{queue}:"
	DefaultLeaseTTL     = 30 * time.Second
	DefaultDedupTTL     = 24 * time.Hour
	DefaultPollInterval = time.Second
	// redisTimeout bounds one script call.
	redisTimeout = 5 * time.Second
	// settleTries is how often recording an attempt's outcome is tried
	// while Redis is unreachable before the lease is left to expire.
	settleTries = 4
	// reclaimBatch bounds the expired leases reclaimed per script call.
	reclaimBatch = 100
)

// Options configures a Queue. Client is required; zero values take the
// defaults (those of webhook.QueueOptions for the shared fields).
type Options struct {
	// Client is the Redis connection (a *redis.Client, or a cluster or
	// failover client). The Queue does not close it.
	Client redis.UniversalClient
	// Prefix starts every key (default "shipgate:{queue}:"). Keep one
	// {hash tag} in it so Redis Cluster puts all keys in one slot; give
	// two Shipgate installations sharing a Redis different prefixes.
	Prefix string
	// Capacity bounds pending jobs across all replicas (distinct keys);
	// beyond it deliveries get 503. Retries may exceed it, as in
	// webhook.MemoryQueue, so admitted work is never lost to the bound.
	Capacity int
	// Workers is how many jobs this replica runs concurrently.
	Workers int
	// JobTimeout bounds one attempt through its context.
	JobTimeout time.Duration
	// MaxAttempts is the number of tries, first included, before a failing
	// job is dropped and reported. An attempt interrupted by a crash
	// counts, so a job that kills its replica every time ends too.
	MaxAttempts int
	// Backoff returns the delay before retry number attempt.
	Backoff func(attempt int) time.Duration
	// LeaseTTL is how long a running job stays owned without a heartbeat
	// (default 30 s; heartbeats every third of it). A killed replica's
	// jobs run again elsewhere after at most about LeaseTTL.
	LeaseTTL time.Duration
	// DedupTTL is how long a delivery ID is remembered (default 24 h).
	DedupTTL time.Duration
	// RedeliverFailed forgets a delivery whose job was dropped after its
	// last attempt, so an operator's manual redelivery (same GUID) runs.
	RedeliverFailed bool
	// OnDropped, when set, is called once for each job dropped for good.
	OnDropped func(job app.Job, err error)
	// PollInterval is how often an idle replica looks for work when no
	// wake-up message arrives (default 1 s); messages normally wake it at
	// once.
	PollInterval time.Duration
	// ReplicaID names this replica in lease tokens and logs (default
	// hostname, process ID and a random suffix).
	ReplicaID string
	// Metrics receives the webhook queue series plus queue_running,
	// jobs_recovered_total and redis_errors_total. Nil: a private registry.
	Metrics *webhook.Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// keys are the Redis keys of one queue.
type keys struct {
	pending, ready, running, leases, wake, seenPrefix string
}

func (k keys) seen(deliveryID string) string { return k.seenPrefix + deliveryID }

// Queue is a webhook.Queue (and webhook.DeliveryQueue, webhook.DurableQueue,
// webhook.ReadyChecker) kept in Redis. Build it with New.
type Queue struct {
	rdb             redis.UniversalClient
	k               keys
	capacity        int
	workers         int
	timeout         time.Duration
	maxAttempts     int
	backoff         func(int) time.Duration
	lease           time.Duration
	dedupTTL        time.Duration
	redeliverFailed bool
	onDropped       func(app.Job, error)
	poll            time.Duration
	replica         string
	m               *webhook.Metrics
	running         prometheus.Gauge
	recovered       prometheus.Counter
	redisErrs       *prometheus.CounterVec
	log             *slog.Logger

	depth   atomic.Int64
	seq     atomic.Uint64
	wake    chan struct{} // poked when work may be available
	stopped chan struct{} // closed by Shutdown: take no new jobs

	hooks sync.WaitGroup // JobSuperseded calls in flight

	mu      sync.Mutex
	active  map[string]*activeJob // key → job this replica runs
	proc    app.Processor         // the processor Run was given
	hookCtx context.Context       // JobSuperseded calls' parent; ends when Run stops
	// hooksClosed is set when Run waits for the JobSuperseded calls; no
	// new one starts after.
	hooksClosed bool
	started     bool
	stopOnce    sync.Once
	idle        chan struct{} // closed when Run's workers have all returned
	cancelRun   context.CancelFunc
}

// activeJob is a job this replica holds the lease of.
type activeJob struct {
	key, token string
	job        app.Job
	cancel     context.CancelCauseFunc
}

// Causes with which a running job's context is cancelled.
var (
	errLeaseLost = errors.New("redisqueue: lease lost: another replica owns the job now")
	errHandBack  = errors.New("redisqueue: shutdown deadline reached: job handed back to the queue")
)

var (
	_ webhook.Queue         = (*Queue)(nil)
	_ webhook.DeliveryQueue = (*Queue)(nil)
	_ webhook.DurableQueue  = (*Queue)(nil)
	_ webhook.ReadyChecker  = (*Queue)(nil)
)

// New builds a Queue; call Run to start this replica's workers. It does not
// contact Redis (Ready does).
func New(opts Options) (*Queue, error) {
	if opts.Client == nil {
		return nil, errors.New("redisqueue: no Redis client")
	}
	if opts.Capacity < 0 || opts.Workers < 0 || opts.JobTimeout < 0 || opts.MaxAttempts < 0 ||
		opts.LeaseTTL < 0 || opts.DedupTTL < 0 || opts.PollInterval < 0 {
		return nil, fmt.Errorf("redisqueue: options: negative value in capacity %d, workers %d, job timeout %s, max attempts %d, lease %s, dedup TTL %s or poll interval %s",
			opts.Capacity, opts.Workers, opts.JobTimeout, opts.MaxAttempts, opts.LeaseTTL, opts.DedupTTL, opts.PollInterval)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Capacity == 0 {
		opts.Capacity = webhook.DefaultQueueCapacity
	}
	if opts.Workers == 0 {
		opts.Workers = webhook.DefaultWorkers
	}
	if opts.JobTimeout == 0 {
		opts.JobTimeout = webhook.DefaultJobTimeout
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = webhook.DefaultMaxAttempts
	}
	if opts.Backoff == nil {
		opts.Backoff = webhook.ExponentialBackoff(webhook.DefaultBackoffBase, webhook.DefaultBackoffMax, nil)
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.LeaseTTL < 300*time.Millisecond {
		return nil, fmt.Errorf("redisqueue: lease TTL %s is too short (minimum 300ms)", opts.LeaseTTL)
	}
	if opts.DedupTTL == 0 {
		opts.DedupTTL = DefaultDedupTTL
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
	m := opts.Metrics
	if m == nil {
		var err error
		if m, err = webhook.NewMetrics(prometheus.NewRegistry()); err != nil {
			return nil, err
		}
	}
	q := &Queue{
		rdb: opts.Client,
		k: keys{
			pending: opts.Prefix + "pending", ready: opts.Prefix + "ready", running: opts.Prefix + "running",
			leases: opts.Prefix + "leases", wake: opts.Prefix + "wake", seenPrefix: opts.Prefix + "seen:",
		},
		capacity: opts.Capacity, workers: opts.Workers, timeout: opts.JobTimeout, maxAttempts: opts.MaxAttempts,
		backoff: opts.Backoff, lease: opts.LeaseTTL, dedupTTL: opts.DedupTTL, redeliverFailed: opts.RedeliverFailed,
		onDropped: opts.OnDropped, poll: opts.PollInterval, replica: opts.ReplicaID, m: m,
		running: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "shipgate", Name: "queue_running",
			Help: "Jobs running (holding a lease) across all replicas sharing the Redis queue."}),
		recovered: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "shipgate", Name: "jobs_recovered_total",
			Help: "Jobs put back in the Redis queue by this replica after their lease expired (a replica died or stalled)."}),
		redisErrs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "shipgate", Name: "redis_errors_total",
			Help: "Failed Redis operations of the job queue, by operation."}, []string{"op"}),
		log:     opts.Logger.With("replica", opts.ReplicaID),
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		active:  make(map[string]*activeJob),
		idle:    make(chan struct{}),
	}
	for _, c := range []prometheus.Collector{q.running, q.recovered, q.redisErrs} {
		if err := m.Registerer().Register(c); err != nil {
			return nil, fmt.Errorf("redisqueue: register metrics: %w", err)
		}
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

// Replica is this replica's ID, as it appears in lease tokens and logs.
func (q *Queue) Replica() string { return q.replica }

// Durable reports true: jobs are kept in Redis, so the webhook server keeps
// accepting deliveries while this replica shuts down.
func (q *Queue) Durable() bool { return true }

// Ready reports whether Redis answers (for /readyz).
func (q *Queue) Ready(ctx context.Context) error {
	if err := q.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("the Redis job queue is unreachable: %w", err)
	}
	return nil
}

// Depth reports pending jobs (running ones excluded) across all replicas,
// as last read from Redis (refreshed every second while Run runs, and by
// every enqueue).
func (q *Queue) Depth() int { return int(q.depth.Load()) }

// Stats is a snapshot of the shared queue.
type Stats struct {
	Pending int // jobs waiting (one per key), retries in backoff included
	Running int // jobs holding a lease, on any replica
}

// Stats reads the queue's size from Redis and refreshes the depth gauges.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	pipe := q.rdb.Pipeline()
	p := pipe.HLen(ctx, q.k.pending)
	r := pipe.ZCard(ctx, q.k.leases)
	if _, err := pipe.Exec(ctx); err != nil {
		q.redisErrs.WithLabelValues("stats").Inc()
		return Stats{}, fmt.Errorf("redisqueue: reading queue size: %w", err)
	}
	s := Stats{Pending: int(p.Val()), Running: int(r.Val())}
	q.depth.Store(int64(s.Pending))
	q.m.SetQueueDepth(s.Pending)
	q.running.Set(float64(s.Running))
	return s, nil
}

// Enqueue stores jobs atomically: all of them or none, ErrQueueFull when
// their new keys would exceed Capacity. It keeps working after Shutdown
// (the jobs are shared; other replicas run them).
func (q *Queue) Enqueue(ctx context.Context, jobs []app.Job) error {
	return q.enqueue(ctx, "", jobs)
}

// EnqueueDelivery stores a delivery's jobs and records its ID in one atomic
// step; it returns webhook.ErrDuplicateDelivery for an ID accepted within
// DedupTTL, on any replica.
func (q *Queue) EnqueueDelivery(ctx context.Context, deliveryID string, jobs []app.Job) error {
	if deliveryID == "" {
		return errors.New("redisqueue: enqueue: empty delivery ID")
	}
	return q.enqueue(ctx, deliveryID, jobs)
}

func (q *Queue) enqueue(ctx context.Context, deliveryID string, jobs []app.Job) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redisqueue: enqueue: %w", err)
	}
	args := []any{q.capacity, "0", q.dedupTTL.Milliseconds(), q.k.wake}
	seen := q.k.seen("")
	if deliveryID != "" {
		args[1], seen = "1", q.k.seen(deliveryID)
	}
	pairs, err := encodeJobs(jobs)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := enqueueScript.Run(ctx, q.rdb, []string{q.k.pending, q.k.ready, q.k.running, seen}, append(args, pairs...)...).Slice()
	if err != nil {
		q.redisErrs.WithLabelValues("enqueue").Inc()
		return fmt.Errorf("redisqueue: storing %d jobs in Redis: %w", len(jobs), err)
	}
	switch status(res) {
	case "dup":
		return webhook.ErrDuplicateDelivery
	case "full":
		return webhook.ErrQueueFull
	case "ok":
		if n := toInt(res, 1); n > 0 && len(jobs) > 0 {
			for range n {
				q.m.CountJob(jobs[0], "superseded")
			}
			q.log.Debug("pending jobs replaced by newer ones for the same key", "replaced", n, "delivery_id", deliveryID)
		}
		q.startedSuperseded(res[min(2, len(res)):])
		q.depth.Add(int64(len(jobs)))
		q.poke()
		return nil
	}
	return fmt.Errorf("redisqueue: enqueue: unexpected reply %v", res)
}

// encodeJobs turns jobs into (key, JSON) script arguments.
func encodeJobs(jobs []app.Job) ([]any, error) {
	out := make([]any, 0, 2*len(jobs))
	for _, j := range jobs {
		b, err := json.Marshal(j)
		if err != nil {
			return nil, fmt.Errorf("redisqueue: encoding job %s: %w", j.Key(), err)
		}
		out = append(out, j.Key(), string(b))
	}
	return out, nil
}

// poke wakes the fetch loop without blocking.
func (q *Queue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run starts this replica's workers, heartbeat, lease reaper and depth
// poller, and blocks until Shutdown has let the running jobs finish (nil)
// or ctx ends (ctx's error, after handing the running jobs back). Job
// contexts derive from ctx. Run may be called once.
func (q *Queue) Run(ctx context.Context, p app.Processor) error {
	if p == nil {
		return errors.New("redisqueue: run: nil processor")
	}
	q.mu.Lock()
	if q.started {
		q.mu.Unlock()
		return errors.New("redisqueue: run: already running")
	}
	q.started = true
	q.proc = p
	runCtx, cancel := context.WithCancel(ctx)
	q.cancelRun = cancel
	q.mu.Unlock()
	defer cancel()

	bgCtx, stopBG := context.WithCancel(context.Background())
	q.mu.Lock()
	q.hookCtx = bgCtx
	q.mu.Unlock()
	var bg sync.WaitGroup
	bg.Go(func() { q.subscribe(bgCtx) })
	bg.Go(func() { q.heartbeats(bgCtx) })
	bg.Go(func() { q.reaper(bgCtx) })
	bg.Go(func() { q.depthPoller(bgCtx) })

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
		return fmt.Errorf("redisqueue: run stopped, running jobs handed back: %w", err)
	}
	return nil
}

// Shutdown stops taking new jobs and waits for this replica's running jobs
// to finish. Pending jobs stay in Redis for the other replicas (or this one
// restarted): nothing is abandoned. If ctx expires first, the running jobs'
// contexts are cancelled and each job is handed back, ready at once and its
// attempt not counted, and Shutdown returns an error wrapping ctx's. Calling
// it again is harmless.
func (q *Queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() {
		close(q.stopped)
		q.mu.Lock()
		n := len(q.active)
		q.mu.Unlock()
		q.log.Info("job queue: this replica stops taking jobs; pending jobs stay in Redis", "running_here", n)
	})
	q.mu.Lock()
	started := q.started
	q.mu.Unlock()
	if !started {
		return nil
	}
	select {
	case <-q.idle:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	var keys []string
	for k, a := range q.active {
		keys = append(keys, k)
		a.cancel(errHandBack)
	}
	q.mu.Unlock()
	for _, k := range keys {
		q.log.Warn("job handed back at shutdown: still running when the deadline passed; another replica runs it", "key", k)
	}
	// The cancelled jobs settle (hand back) quickly if their processor
	// honours ctx; wait a little for that so the hand-back is recorded.
	select {
	case <-q.idle:
	case <-time.After(redisTimeout):
	}
	return fmt.Errorf("redisqueue: shutdown: %d running jobs handed back: %w", len(keys), ctx.Err())
}

// fetch leases jobs while a worker slot is free, until Shutdown or ctx.
func (q *Queue) fetch(ctx context.Context, p app.Processor, jobs *sync.WaitGroup) {
	slots := make(chan struct{}, q.workers)
	errDelay := 100 * time.Millisecond
	for {
		select {
		case slots <- struct{}{}:
		case <-q.stopped:
			return
		case <-ctx.Done():
			return
		}
		for {
			if q.stopping(ctx) {
				<-slots
				return
			}
			d, wait, err := q.dequeue(ctx)
			if err != nil {
				if ctx.Err() != nil {
					<-slots
					return
				}
				q.redisErrs.WithLabelValues("dequeue").Inc()
				q.log.Error("could not take a job from Redis; retrying", "error", err, "retry_in", errDelay)
				q.sleep(ctx, errDelay, false)
				errDelay = min(2*errDelay, 5*time.Second)
				continue
			}
			errDelay = 100 * time.Millisecond
			if d != nil {
				jobs.Go(func() {
					defer func() { <-slots }()
					q.execute(ctx, p, d)
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

func (q *Queue) stopping(ctx context.Context) bool {
	select {
	case <-q.stopped:
		return true
	default:
		return ctx.Err() != nil
	}
}

// sleep waits d, or less when woken (if wakeable), stopped or ctx ends.
func (q *Queue) sleep(ctx context.Context, d time.Duration, wakeable bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	var wake <-chan struct{}
	if wakeable {
		wake = q.wake
	}
	select {
	case <-t.C:
	case <-wake:
	case <-q.stopped:
	case <-ctx.Done():
	}
}

// dequeued is a job this replica has leased.
type dequeued struct {
	key, token, raw string
	attempt         int
}

// dequeue leases the first runnable job; with none, it returns how long
// until one is due (-1: none pending).
func (q *Queue) dequeue(ctx context.Context) (*dequeued, time.Duration, error) {
	token := q.replica + "." + strconv.FormatUint(q.seq.Add(1), 10)
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := dequeueScript.Run(ctx, q.rdb, []string{q.k.pending, q.k.ready, q.k.running, q.k.leases},
		token, q.lease.Milliseconds()).Slice()
	if err != nil {
		return nil, 0, err
	}
	if status(res) == "job" && len(res) == 4 {
		return &dequeued{key: toString(res, 1), token: token, raw: toString(res, 2), attempt: toInt(res, 3)}, 0, nil
	}
	ms := toInt(res, 1)
	if ms < 0 {
		return nil, -1, nil
	}
	return nil, time.Duration(ms) * time.Millisecond, nil
}

// execute runs one leased job and settles its outcome in Redis.
func (q *Queue) execute(runCtx context.Context, p app.Processor, d *dequeued) {
	var job app.Job
	if err := json.Unmarshal([]byte(d.raw), &job); err != nil {
		// Unreadable (written by an incompatible version): drop it, loudly.
		q.log.Error("job in Redis is unreadable; dropped", "key", d.key, "error", err)
		q.finish(d, app.Job{}, nil, false)
		q.m.CountJob(app.Job{}, "failed")
		return
	}
	log := q.log.With(append(job.LogAttrs(), "attempt", d.attempt)...)
	jctx, cancel := context.WithCancelCause(runCtx)
	defer cancel(nil)
	a := &activeJob{key: d.key, token: d.token, job: job, cancel: cancel}
	q.mu.Lock()
	q.active[d.key] = a
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		if q.active[d.key] == a {
			delete(q.active, d.key)
		}
		q.mu.Unlock()
	}()

	if d.attempt > q.maxAttempts {
		// Earlier attempts were interrupted (their replica died): the job
		// has had its tries.
		err := fmt.Errorf("job was interrupted %d times (its replica stopped or lost its lease mid-run)", d.attempt-1)
		q.fail(jctx, p, d, job, err, log)
		return
	}
	if d.attempt > 1 {
		log.Info("job attempt starting", "previous_attempts", d.attempt-1)
	}
	followUps, err := q.attempt(jctx, p, job, log)
	switch cause := context.Cause(jctx); {
	case errors.Is(cause, errLeaseLost):
		q.m.CountJob(job, "abandoned")
		log.Warn("job's lease was lost mid-run (this replica stalled or Redis was unreachable); another replica runs it", "error", err)
		return
	case errors.Is(cause, errHandBack) || runCtx.Err() != nil:
		q.settleFailure(d, job, cause, "handback", 0, log)
		return
	}
	if err == nil {
		app.Inherit(job, followUps)
		switch q.finish(d, job, followUps, false) {
		case "ok":
			q.m.CountJob(job, "succeeded")
			q.m.ObserveJobDuration(job)
			log.Info("job succeeded", "follow_ups", len(followUps), "since_receipt", time.Since(job.ReceivedAt).Round(time.Millisecond))
			return
		case "full":
			q.m.CountQueueFull()
			err = fmt.Errorf("enqueue %d follow-up jobs: %w", len(followUps), webhook.ErrQueueFull)
		default:
			return // lost, or Redis unreachable: logged; the lease expires and the job runs again
		}
	}
	if d.attempt < q.maxAttempts {
		delay := q.backoff(d.attempt)
		if q.settleFailure(d, job, err, "retry", delay, log) == "retry" {
			q.m.CountRetry()
			log.Warn("job failed; retrying", "error", err, "retry_in", delay, "max_attempts", q.maxAttempts)
		}
		return
	}
	q.fail(jctx, p, d, job, err, log)
}

// fail handles a job whose last attempt failed: unless a newer job for the
// key supersedes it, the failure is reported (while the lease is held, so
// a newer job cannot race the App marking its check run failed) and the job
// is dropped.
func (q *Queue) fail(ctx context.Context, p app.Processor, d *dequeued, job app.Job, err error, log *slog.Logger) {
	if q.settleFailure(d, job, err, "final", 0, log) != "final" {
		return
	}
	log.Error("job failed permanently; dropped", "error", err, "attempts", d.attempt)
	q.reportFailure(ctx, p, job, err, log)
	if q.finish(d, job, nil, q.redeliverFailed) == "ok" {
		q.m.CountJob(job, "failed")
		q.m.ObserveJobDuration(job)
	}
}

// attempt calls the processor with the per-job timeout, turning a panic
// into an error (logged with its stack and counted).
func (q *Queue) attempt(ctx context.Context, p app.Processor, job app.Job, log *slog.Logger) (followUps []app.Job, err error) {
	jctx, cancel := context.WithTimeout(ctx, q.timeout)
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

// finish ends a job in Redis (with its follow-ups), retrying briefly while
// Redis is unreachable. It returns "ok", "full", "lost" or "error".
func (q *Queue) finish(d *dequeued, job app.Job, followUps []app.Job, forget bool) string {
	pairs, err := encodeJobs(followUps)
	if err != nil {
		q.log.Error("follow-up jobs cannot be encoded; dropped", "key", d.key, "error", err)
		pairs = nil
	}
	forgetArg, seen := "0", q.k.seen("")
	if forget && job.DeliveryID != "" {
		forgetArg, seen = "1", q.k.seen(job.DeliveryID)
	}
	args := append([]any{d.key, d.token, q.capacity, q.k.wake, forgetArg}, pairs...)
	res, err := q.settle("finish", func(ctx context.Context) ([]any, error) {
		return finishScript.Run(ctx, q.rdb, []string{q.k.pending, q.k.ready, q.k.running, q.k.leases, seen}, args...).Slice()
	})
	if err != nil {
		q.log.Error("could not record a finished job in Redis; its lease will expire and it will run again", "key", d.key, "error", err)
		return "error"
	}
	st := status(res)
	if st == "lost" {
		q.m.CountJob(job, "abandoned")
		q.log.Warn("job finished after its lease expired; another replica may have run it too", "key", d.key)
	}
	if st == "ok" {
		q.startedSuperseded(res[1:])
	}
	q.poke()
	return st
}

// settleFailure records a failed or interrupted attempt (mode "retry",
// "final" or "handback") and returns the script's verdict, or "error".
func (q *Queue) settleFailure(d *dequeued, job app.Job, cause error, mode string, delay time.Duration, log *slog.Logger) string {
	res, err := q.settle(mode, func(ctx context.Context) ([]any, error) {
		return retryScript.Run(ctx, q.rdb, []string{q.k.pending, q.k.ready, q.k.running, q.k.leases},
			d.key, d.token, delay.Milliseconds(), q.k.wake, mode).Slice()
	})
	if err != nil {
		log.Error("could not record a failed attempt in Redis; its lease will expire and it will run again", "error", err, "cause", cause)
		return "error"
	}
	st := status(res)
	switch st {
	case "superseded":
		q.m.CountJob(job, "superseded")
		log.Warn("job failed or was interrupted; a newer pending job for the same key replaces it", "error", cause)
		q.reportSuperseded(job, log)
	case "lost":
		q.m.CountJob(job, "abandoned")
		log.Warn("job's lease expired before its outcome was recorded; another replica runs it", "error", cause)
	case "handback":
		log.Warn("job handed back to the queue: this replica is stopping", "error", cause)
	}
	q.poke()
	return st
}

// settle runs a settling script, retrying while Redis is unreachable (the
// job's work is done; losing its outcome would only make it run again).
func (q *Queue) settle(op string, run func(ctx context.Context) ([]any, error)) ([]any, error) {
	var err error
	delay := 200 * time.Millisecond
	for i := range settleTries {
		ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
		var res []any
		res, err = run(ctx)
		cancel()
		if err == nil {
			return res, nil
		}
		q.redisErrs.WithLabelValues(op).Inc()
		if i < settleTries-1 {
			time.Sleep(delay)
			delay *= 2
		}
	}
	return nil, err
}

// startedSuperseded reports the jobs (as JSON) a script returned because
// they had started before a newer job for their key replaced them (see
// reportSuperseded).
func (q *Queue) startedSuperseded(raw []any) {
	for _, r := range raw {
		s, ok := r.(string)
		if !ok {
			continue
		}
		var old app.Job
		if err := json.Unmarshal([]byte(s), &old); err == nil {
			q.reportSuperseded(old, q.log)
		}
	}
}

// reportSuperseded tells the processor (when it is a SupersededReporter)
// that a job which had started was replaced by a newer one, so it can
// close what the attempt left open. It runs in the background, bounded by
// the job timeout and guarded against panics: the caller is a worker
// settling a job or the reaper.
func (q *Queue) reportSuperseded(job app.Job, log *slog.Logger) {
	q.mu.Lock()
	sr, ok := q.proc.(webhook.SupersededReporter)
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
		// Bounded by the job timeout, and cut short once Run has drained
		// its jobs and is returning: the clean-up is best effort.
		rctx, cancel := context.WithTimeout(hctx, q.timeout)
		defer cancel()
		sr.JobSuperseded(rctx, job)
	}()
}

// reportFailure calls OnDropped and the processor's FailureReporter, each
// guarded against panics.
func (q *Queue) reportFailure(ctx context.Context, p app.Processor, job app.Job, err error, log *slog.Logger) {
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
	if fr, ok := p.(webhook.FailureReporter); ok {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.timeout)
		defer cancel()
		guard("JobFailed", func() { fr.JobFailed(rctx, job, err) })
	}
}

// subscribe turns wake-up messages into pokes of the fetch loop.
func (q *Queue) subscribe(ctx context.Context) {
	sub := q.rdb.Subscribe(ctx, q.k.wake)
	defer sub.Close()
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-ch:
			if !ok {
				return
			}
			q.poke()
		}
	}
}

// heartbeats extends this replica's leases every third of the lease TTL;
// a job whose lease is lost (or cannot be renewed for a whole TTL) is
// cancelled, because another replica may be running it.
func (q *Queue) heartbeats(ctx context.Context) {
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
		args := []any{q.lease.Milliseconds()}
		held := make(map[string]string, len(q.active))
		for k, a := range q.active {
			args = append(args, k, a.token)
			held[k] = a.token
		}
		q.mu.Unlock()
		if len(held) == 0 {
			lastOK = time.Now()
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, redisTimeout)
		lost, err := heartbeatScript.Run(rctx, q.rdb, []string{q.k.running, q.k.leases}, args...).StringSlice()
		cancel()
		if err != nil {
			q.redisErrs.WithLabelValues("heartbeat").Inc()
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
func (q *Queue) cancelActive(jobs map[string]string, cause error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, token := range jobs {
		if a := q.active[k]; a != nil && a.token == token {
			a.cancel(cause)
		}
	}
}

// reaper returns the jobs of expired leases to the queue, every quarter to
// half lease TTL (jittered, so replicas spread out). Any replica may reclaim any
// lease; the script makes each expired lease reclaimed once.
func (q *Queue) reaper(ctx context.Context) {
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
func (q *Queue) Reclaim(ctx context.Context) (int, error) {
	rctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := reclaimScript.Run(rctx, q.rdb, []string{q.k.pending, q.k.ready, q.k.running, q.k.leases},
		q.k.wake, reclaimBatch).Slice()
	if err != nil {
		q.redisErrs.WithLabelValues("reclaim").Inc()
		return 0, fmt.Errorf("redisqueue: reclaiming expired leases: %w", err)
	}
	n := 0
	for _, r := range res {
		row, ok := r.([]any)
		if !ok || len(row) < 4 {
			continue
		}
		key, token, attempt, what := toString(row, 0), toString(row, 1), toString(row, 2), toString(row, 3)
		owner := token
		if i := strings.LastIndexByte(token, '.'); i > 0 {
			owner = token[:i]
		}
		q.recovered.Inc()
		n++
		q.log.Warn("job recovered from an expired lease: its replica stopped or stalled mid-run",
			"key", key, "previous_owner", owner, "attempt", attempt, "outcome", what)
		if what == "superseded" {
			q.startedSuperseded(row[4:])
		}
	}
	if n > 0 {
		q.poke()
	}
	return n, nil
}

// depthPoller refreshes the depth gauges from Redis every second.
func (q *Queue) depthPoller(ctx context.Context) {
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

// status is a script reply's first element.
func status(res []any) string { return toString(res, 0) }

func toString(res []any, i int) string {
	if i >= len(res) {
		return ""
	}
	switch v := res[i].(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(res[i])
}

func toInt(res []any, i int) int {
	if i >= len(res) {
		return 0
	}
	switch v := res[i].(type) {
	case int64:
		return int(v)
	case string:
		n, _ := strconv.Atoi(v)
		return n
	}
	return 0
}
