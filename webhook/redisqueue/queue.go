// Package redisqueue is Shipgate's shared job queue for running several App
// replicas: the one queue lifecycle (webhook.StoreQueue) over a
// webhook.Store kept in Redis (through go-redis), so that
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
// are described in docs/scaling-redis.md; the scripts in scripts.go. The
// lifecycle (workers, attempts, leases and heartbeats, retries, reports,
// shutdown) is webhook's, shared with the in-process queue; this package is
// only the storage, and internal/queuetest is the suite both must pass.
package redisqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/webhook"
)

// Defaults for Options.
const (
	DefaultPrefix       = "shipgate:{queue}:"
	DefaultLeaseTTL     = webhook.DefaultLeaseTTL
	DefaultDedupTTL     = 24 * time.Hour
	DefaultPollInterval = webhook.DefaultPollInterval
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
	// beyond it deliveries get 503. Retries may exceed it, so admitted
	// work is never lost to the bound.
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
	// Metrics receives the webhook queue series plus redis_errors_total.
	// Nil: a private registry.
	Metrics *webhook.Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// keys are the Redis keys of one queue.
type keys struct {
	pending, ready, running, leases, wake, seenPrefix string
	// headPrefix starts the head marks' keys (app.Job.HeadMark; a
	// string holding the marking delivery, with the dedup TTL).
	headPrefix string
	// depthSeq is a counter every read of the pending count increments,
	// so that of two reads the later one is known (Store.Depth).
	depthSeq string
}

func (k keys) seen(deliveryID string) string { return k.seenPrefix + deliveryID }

// Stats is a snapshot of the shared queue.
type Stats = webhook.QueueStats

// Queue is the shared job queue: webhook.StoreQueue over a Store in Redis
// (so a webhook.Queue, webhook.DeliveryQueue, webhook.DurableQueue and
// webhook.ReadyChecker). Build it with New.
type Queue struct {
	*webhook.StoreQueue
	store *Store
}

// Store is the webhook.Store kept in Redis: every method is one Lua script
// (scripts.go), atomic on the server, timed by the server's clock.
type Store struct {
	rdb redis.UniversalClient
	// adds sends concurrent enqueues together (batch.go).
	adds     *enqueueBatcher
	k        keys
	capacity int
	dedupTTL time.Duration
	// depth is the pending count of the newest read (by seq): Stats,
	// and the replies of this replica's enqueues and claims, each read
	// it in Redis with a number from one counter. Replies arrive in any
	// order (a Stats poll overlapping an enqueue may be answered after
	// it), so an older read never overwrites a newer one.
	depthMu   sync.Mutex
	depth     int64
	depthSeq  int64
	redisErrs *prometheus.CounterVec
	log       *slog.Logger
}

var _ webhook.Store = (*Store)(nil)

// New builds a Queue; call Run to start this replica's workers. It does not
// contact Redis (Ready does).
func New(opts Options) (*Queue, error) {
	if opts.Client == nil {
		return nil, errors.New("redisqueue: no Redis client")
	}
	if opts.Capacity < 0 || opts.DedupTTL < 0 {
		return nil, fmt.Errorf("redisqueue: options: negative capacity %d or dedup TTL %s", opts.Capacity, opts.DedupTTL)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Capacity == 0 {
		opts.Capacity = webhook.DefaultQueueCapacity
	}
	if opts.DedupTTL == 0 {
		opts.DedupTTL = DefaultDedupTTL
	}
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
	st := &Store{
		rdb: opts.Client, adds: &enqueueBatcher{rdb: opts.Client},
		k: keys{
			pending: opts.Prefix + "pending", ready: opts.Prefix + "ready", running: opts.Prefix + "running",
			leases: opts.Prefix + "leases", wake: opts.Prefix + "wake", seenPrefix: opts.Prefix + "seen:", headPrefix: opts.Prefix + "head:",
			depthSeq: opts.Prefix + "depthseq",
		},
		capacity: opts.Capacity, dedupTTL: opts.DedupTTL,
		redisErrs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "shipgate", Name: "redis_errors_total",
			Help: "Failed Redis operations of the job queue, by operation."}, []string{"op"}),
		log: opts.Logger,
	}
	if err := m.Registerer().Register(st.redisErrs); err != nil {
		return nil, fmt.Errorf("redisqueue: register metrics: %w", err)
	}
	sq, err := webhook.NewStoreQueue(st, webhook.QueueOptions{
		Capacity: opts.Capacity, Workers: opts.Workers, JobTimeout: opts.JobTimeout, MaxAttempts: opts.MaxAttempts,
		Backoff: opts.Backoff, OnDropped: opts.OnDropped, RedeliverFailed: opts.RedeliverFailed,
		LeaseTTL: opts.LeaseTTL, PollInterval: opts.PollInterval, ReplicaID: opts.ReplicaID,
		Metrics: m, Logger: opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("redisqueue: %w", err)
	}
	return &Queue{StoreQueue: sq, store: st}, nil
}

// Store is the queue's Redis store.
func (q *Queue) Store() *Store { return q.store }

// Durable reports true: jobs are kept in Redis.
func (s *Store) Durable() bool { return true }

// Ready reports whether Redis answers (for /readyz).
func (s *Store) Ready(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("the Redis job queue is unreachable: %w", err)
	}
	return nil
}

// Depth is the pending jobs of all replicas as last read.
func (s *Store) Depth() int {
	s.depthMu.Lock()
	defer s.depthMu.Unlock()
	return int(s.depth)
}

// sawDepth records a read of the pending count numbered seq, unless a
// newer read was recorded already.
func (s *Store) sawDepth(seq, pending int64) {
	s.depthMu.Lock()
	defer s.depthMu.Unlock()
	if seq > s.depthSeq {
		s.depthSeq, s.depth = seq, pending
	}
}

// fail counts a failed Redis operation and wraps its error.
func (s *Store) fail(op string, err error) error {
	s.redisErrs.WithLabelValues(op).Inc()
	return fmt.Errorf("redisqueue: %s: %w", op, err)
}

// Stats reads the queue's size from Redis.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	pipe := s.rdb.TxPipeline() // MULTI: the count and its number in one step
	seq := pipe.Incr(ctx, s.k.depthSeq)
	p := pipe.HLen(ctx, s.k.pending)
	r := pipe.ZCard(ctx, s.k.leases)
	if _, err := pipe.Exec(ctx); err != nil {
		return Stats{}, s.fail("stats", err)
	}
	st := Stats{Pending: int(p.Val()), Running: int(r.Val())}
	s.sawDepth(seq.Val(), p.Val())
	return st, nil
}

// Add implements webhook.Store (enqueueScript).
func (s *Store) Add(ctx context.Context, deliveryID string, jobs []app.Job) (webhook.AddResult, error) {
	args := []any{s.capacity, "0", s.dedupTTL.Milliseconds(), s.k.wake}
	seen := s.k.seen("")
	if deliveryID != "" {
		args[1], seen = "1", s.k.seen(deliveryID)
	}
	for _, j := range jobs {
		b, err := json.Marshal(j)
		if err != nil {
			return webhook.AddResult{}, fmt.Errorf("redisqueue: encoding job %s: %w", j.Key(), err)
		}
		mark, skippable := j.HeadMark()
		if mark != "" {
			mark = s.k.headPrefix + mark
		}
		args = append(args, j.Key(), mark, map[bool]string{true: "1", false: "0"}[skippable], j.DeliveryID, string(b))
	}
	res, err := s.adds.run(ctx, []string{s.k.pending, s.k.ready, s.k.running, seen, s.k.depthSeq}, args)
	if err != nil {
		return webhook.AddResult{}, s.fail("enqueue", err)
	}
	switch status(res) {
	case "dup":
		return webhook.AddResult{Status: webhook.AddDuplicate}, nil
	case "full":
		return webhook.AddResult{Status: webhook.AddFull}, nil
	case "ok":
		s.sawDepth(int64(toInt(res, 2)), int64(toInt(res, 3)))
		rest := res[min(5, len(res)):]
		nStarted := min(toInt(res, 4), len(rest))
		return webhook.AddResult{Status: webhook.AddOK, Replaced: toInt(res, 1), Started: s.decodeJobs(rest[:nStarted]),
			Skipped: s.decodeJobs(rest[nStarted:])}, nil
	}
	return webhook.AddResult{}, fmt.Errorf("redisqueue: enqueue: unexpected reply %v", res)
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

// decodeJobs reads the job JSONs a script returned; unreadable ones are
// logged and skipped.
func (s *Store) decodeJobs(raw []any) []app.Job {
	var out []app.Job
	for _, r := range raw {
		str, ok := r.(string)
		if !ok {
			continue
		}
		var j app.Job
		if err := json.Unmarshal([]byte(str), &j); err != nil {
			s.log.Warn("a replaced job in Redis is unreadable; not reported", "error", err)
			continue
		}
		out = append(out, j)
	}
	return out
}

// Claim implements webhook.Store (dequeueScript).
func (s *Store) Claim(ctx context.Context, token string, lease time.Duration) (*webhook.Claim, time.Duration, error) {
	res, err := dequeueScript.Run(ctx, s.rdb, []string{s.k.pending, s.k.ready, s.k.running, s.k.leases, s.k.depthSeq},
		token, lease.Milliseconds()).Slice()
	if err != nil {
		return nil, 0, s.fail("dequeue", err)
	}
	if status(res) == "job" && len(res) == 6 {
		s.sawDepth(int64(toInt(res, 4)), int64(toInt(res, 5)))
		c := &webhook.Claim{Key: toString(res, 1), Token: token, Attempt: toInt(res, 3)}
		if err := json.Unmarshal([]byte(toString(res, 2)), &c.Job); err != nil {
			c.Unreadable = err
		}
		return c, 0, nil
	}
	ms := toInt(res, 1)
	if ms < 0 {
		return nil, -1, nil
	}
	return nil, time.Duration(ms) * time.Millisecond, nil
}

// Finish implements webhook.Store (finishScript).
func (s *Store) Finish(ctx context.Context, key, token string, followUps []app.Job, forgetDelivery string) (webhook.FinishResult, error) {
	pairs, err := encodeJobs(followUps)
	if err != nil {
		s.log.Error("follow-up jobs cannot be encoded; dropped", "key", key, "error", err)
		pairs = nil
	}
	forgetArg, seen := "0", s.k.seen("")
	if forgetDelivery != "" {
		forgetArg, seen = "1", s.k.seen(forgetDelivery)
	}
	args := append([]any{key, token, s.capacity, s.k.wake, forgetArg}, pairs...)
	res, err := finishScript.Run(ctx, s.rdb, []string{s.k.pending, s.k.ready, s.k.running, s.k.leases, seen}, args...).Slice()
	if err != nil {
		return webhook.FinishResult{}, s.fail("finish", err)
	}
	switch status(res) {
	case "lost":
		return webhook.FinishResult{Status: webhook.FinishLost}, nil
	case "full":
		return webhook.FinishResult{Status: webhook.FinishFull}, nil
	case "ok":
		return webhook.FinishResult{Status: webhook.FinishOK, Started: s.decodeJobs(res[1:])}, nil
	}
	return webhook.FinishResult{}, fmt.Errorf("redisqueue: finish: unexpected reply %v", res)
}

// Release implements webhook.Store (retryScript).
func (s *Store) Release(ctx context.Context, key, token string, mode webhook.ReleaseMode, delay time.Duration) (webhook.ReleaseStatus, error) {
	res, err := retryScript.Run(ctx, s.rdb, []string{s.k.pending, s.k.ready, s.k.running, s.k.leases},
		key, token, delay.Milliseconds(), s.k.wake, string(mode)).Slice()
	if err != nil {
		return "", s.fail(string(mode), err)
	}
	return webhook.ReleaseStatus(status(res)), nil
}

// Heartbeat implements webhook.Store (heartbeatScript).
func (s *Store) Heartbeat(ctx context.Context, lease time.Duration, held map[string]string) ([]string, error) {
	args := make([]any, 0, 1+2*len(held))
	args = append(args, lease.Milliseconds())
	for k, token := range held {
		args = append(args, k, token)
	}
	lost, err := heartbeatScript.Run(ctx, s.rdb, []string{s.k.running, s.k.leases}, args...).StringSlice()
	if err != nil {
		return nil, s.fail("heartbeat", err)
	}
	return lost, nil
}

// Reclaim implements webhook.Store (reclaimScript).
func (s *Store) Reclaim(ctx context.Context) ([]webhook.Reclaimed, error) {
	res, err := reclaimScript.Run(ctx, s.rdb, []string{s.k.pending, s.k.ready, s.k.running, s.k.leases},
		s.k.wake, reclaimBatch).Slice()
	if err != nil {
		return nil, s.fail("reclaim", err)
	}
	var out []webhook.Reclaimed
	for _, r := range res {
		row, ok := r.([]any)
		if !ok || len(row) < 4 {
			continue
		}
		rc := webhook.Reclaimed{Key: toString(row, 0), Token: toString(row, 1), Attempt: toInt(row, 2),
			Superseded: toString(row, 3) == "superseded"}
		if rc.Superseded {
			if js := s.decodeJobs(row[4:]); len(js) == 1 {
				rc.Job = js[0]
			}
		}
		out = append(out, rc)
	}
	return out, nil
}

// Watch implements webhook.Store: wake-up messages on the wake channel
// (published by every script that makes a job runnable) poke the queue.
func (s *Store) Watch(ctx context.Context, poke func()) {
	sub := s.rdb.Subscribe(ctx, s.k.wake)
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
			poke()
		}
	}
}

// TakePending implements webhook.Store: pending jobs in Redis stay there
// for the other replicas.
func (s *Store) TakePending(context.Context) []app.Job { return nil }

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
