package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
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

// QueueOptions configures a StoreQueue (NewMemoryQueue, and the Redis queue
// through webhook/redisqueue). Zero values take the defaults.
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
	// RedeliverFailed forgets the delivery of a job dropped after its last
	// attempt, so an operator's manual redelivery (same GUID) runs.
	RedeliverFailed bool
	// LeaseTTL is how long a running job stays owned without a heartbeat
	// (default 30 s; heartbeats every third of it). With a shared store, a
	// killed replica's jobs run again elsewhere after about LeaseTTL.
	LeaseTTL time.Duration
	// PollInterval is how often an idle queue looks for work when nothing
	// woke it (default 1 s).
	PollInterval time.Duration
	// ReplicaID names this queue in lease tokens and logs (default
	// hostname, process ID and a random suffix).
	ReplicaID string
	// Metrics receives queue_depth, queue_full_total, jobs_total,
	// job_duration_seconds, job_panics_total, job_retries_total,
	// queue_running, jobs_recovered_total; pass the server's Metrics. Nil
	// uses a private registry.
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

// MemoryQueue is the in-process queue: the one lifecycle (StoreQueue) over
// a MemoryStore. Jobs live in memory only: a crash or a restart loses the
// pending ones (the periodic sweep of open pull requests, app.Sweeper,
// finds their heads without a check run and queues them again), which is
// why Shutdown drains; webhook/redisqueue is the durable, multi-replica
// store.
type MemoryQueue = StoreQueue

// NewMemoryQueue builds the in-process queue (a MemoryStore of
// opts.Capacity pending jobs, delivery IDs remembered for DefaultDedupTTL);
// call Run to start its workers.
func NewMemoryQueue(opts QueueOptions) (*StoreQueue, error) {
	if opts.Capacity < 0 || opts.Workers < 0 || opts.JobTimeout < 0 || opts.MaxAttempts < 0 {
		return nil, fmt.Errorf("webhook: queue options: negative value in %+v", opts)
	}
	st, err := NewMemoryStore(MemoryStoreOptions{Capacity: opts.Capacity})
	if err != nil {
		return nil, err
	}
	return NewStoreQueue(st, opts)
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
