package redisqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/queuetest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/internal/testwait"
	"github.com/shipgate-app/shipgate/webhook"
)

// Every wait for something that must happen is bounded by the test
// binary's deadline (testwait), not by a figure of wall time: tests poll
// state or receive events, they never sleep hoping.

// liveLease is a running replica's lease: minutes long, so a heartbeat
// that a loaded machine runs late never lets a live job's lease expire (a
// test that wants a lease lost or expired says so itself).
const liveLease = 5 * time.Minute

// env is one Redis server and the queues (replicas) of a test.
type env struct {
	t   *testing.T
	srv *redistest.Server
	rdb *redis.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := redistest.Start(t)
	opts, err := redis.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	return &env{t: t, srv: srv, rdb: rdb}
}

// replica is one queue with its own metrics, as one App process has.
type replica struct {
	q    *Queue
	m    *webhook.Metrics
	reg  *prometheus.Registry
	done chan struct{} // closed when Run returns
	err  error         // Run's result, once done is closed
	stop context.CancelFunc
}

func (e *env) queue(edit func(*Options)) *replica {
	e.t.Helper()
	reg := prometheus.NewRegistry()
	m, err := webhook.NewMetrics(reg)
	if err != nil {
		e.t.Fatal(err)
	}
	opts := Options{Client: e.rdb, Prefix: "test:{q}:", Workers: 2, LeaseTTL: liveLease, PollInterval: 50 * time.Millisecond,
		Backoff: func(int) time.Duration { return 0 }, Metrics: m, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&opts)
	}
	q, err := New(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return &replica{q: q, m: m, reg: reg}
}

// run starts r's workers; the test's cleanup stops them.
func (r *replica) run(t *testing.T, p app.Processor) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r.stop, r.done = cancel, make(chan struct{})
	go func() {
		r.err = r.q.Run(ctx, p)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-testwait.After(t):
			t.Error("queue did not stop")
		}
	})
}

// procFunc adapts a function to app.Processor.
type procFunc func(ctx context.Context, j app.Job) ([]app.Job, error)

func (f procFunc) Process(ctx context.Context, j app.Job) ([]app.Job, error) { return f(ctx, j) }

// reporter is a processor that also implements webhook.FailureReporter.
type reporter struct {
	procFunc
	mu     sync.Mutex
	failed []app.Job
}

func (r *reporter) JobFailed(_ context.Context, j app.Job, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, j)
}

func (r *reporter) failures() []app.Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]app.Job(nil), r.failed...)
}

// recorder records processed jobs.
type recorder struct {
	mu   sync.Mutex
	jobs []app.Job
}

func (r *recorder) add(j app.Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, j)
}

func (r *recorder) all() []app.Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]app.Job(nil), r.jobs...)
}

func prJob(pr int, head string) app.Job {
	return app.Job{Kind: app.KindEvaluatePR, DeliveryID: fmt.Sprintf("d-%d-%s", pr, head), Event: "pull_request", Action: "synchronize",
		InstallationID: 7, Owner: "acme", Repo: "web", PRNumber: pr, HeadSHA: head, ReceivedAt: time.Now()}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, what, cond)
}

func stats(t *testing.T, q *Queue) Stats {
	t.Helper()
	s, err := q.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jobsTotal(r *replica, kind, outcome string) float64 {
	return counter(r.reg, "shipgate_jobs_total", map[string]string{"kind": kind, "outcome": outcome})
}

// counter reads one counter series (the sum over series matching labels)
// from a registry.
func counter(reg *prometheus.Registry, name string, labels map[string]string) float64 {
	return queuetest.Metric(reg, name, labels)
}

func TestEnqueueStoresBeforeReturningAndDeduplicatesAcrossReplicas(t *testing.T) {
	e := newEnv(t)
	a, b := e.queue(nil), e.queue(nil)
	ctx := context.Background()
	j := prJob(1, "aaa")
	if err := a.q.EnqueueDelivery(ctx, "guid-1", []app.Job{j}); err != nil {
		t.Fatal(err)
	}
	// Stored in Redis when EnqueueDelivery returns: another replica sees it.
	if s := stats(t, b.q); s.Pending != 1 || s.Running != 0 {
		t.Fatalf("stats %+v, want 1 pending", s)
	}
	if got := b.q.Depth(); got != 1 {
		t.Errorf("Depth %d after Stats, want 1", got)
	}
	// The same delivery on the other replica is a duplicate.
	if err := b.q.EnqueueDelivery(ctx, "guid-1", []app.Job{j}); !errors.Is(err, webhook.ErrDuplicateDelivery) {
		t.Fatalf("second delivery: %v, want ErrDuplicateDelivery", err)
	}
	ttl, err := e.rdb.PTTL(ctx, "test:{q}:seen:guid-1").Result()
	if err != nil || ttl < 23*time.Hour {
		t.Errorf("seen key TTL %s (%v), want about 24h", ttl, err)
	}
	if err := a.q.EnqueueDelivery(ctx, "", []app.Job{j}); err == nil {
		t.Error("empty delivery ID accepted")
	}
}

func TestRetryBackoffIsStoredAndSurvivesARestart(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	first := e.queue(func(o *Options) {
		o.Backoff = func(int) time.Duration { return 1500 * time.Millisecond }
	})
	var calls atomic.Int32
	failing := procFunc(func(context.Context, app.Job) ([]app.Job, error) {
		calls.Add(1)
		return nil, errors.New("GitHub answered 502")
	})
	first.run(t, failing)
	// Redis's clock before the attempt: the retry is due at least the
	// backoff after it, however late a loaded machine runs the attempt.
	before, err := e.rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	_ = first.q.Enqueue(ctx, []app.Job{prJob(4, "h")})
	waitFor(t, "first attempt", func() bool { return calls.Load() == 1 })
	waitFor(t, "the retry stored", func() bool { s := stats(t, first.q); return s.Pending == 1 && s.Running == 0 })
	// The replica restarts: a new process, nothing in memory.
	sctx, cancel := context.WithDeadline(ctx, testwait.Deadline(t))
	defer cancel()
	if err := first.q.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	v, err := e.rdb.HGet(ctx, "test:{q}:pending", prJob(4, "h").Key()).Result()
	if err != nil || !strings.HasPrefix(v, "1|") {
		t.Fatalf("pending record %q (%v), want 1 attempt recorded", v, err)
	}
	due, err := e.rdb.ZScore(ctx, "test:{q}:ready", prJob(4, "h").Key()).Result()
	if err != nil {
		t.Fatal(err)
	}
	if after := time.Duration(int64(due)-before.UnixMilli()) * time.Millisecond; after < 1500*time.Millisecond {
		t.Errorf("next attempt due %s after the first began, want at least the backoff (1.5s)", after)
	}
	second := e.queue(nil)
	rec := &recorder{}
	var ranAt atomic.Int64 // Redis's clock when the retry ran, in ms
	second.run(t, procFunc(func(ctx context.Context, j app.Job) ([]app.Job, error) {
		if now, err := e.rdb.Time(ctx).Result(); err == nil {
			ranAt.Store(now.UnixMilli())
		}
		rec.add(j)
		return nil, nil
	}))
	waitFor(t, "the retry", func() bool { return len(rec.all()) == 1 })
	if ran := ranAt.Load(); ran < int64(due) {
		t.Errorf("the retry ran %d ms before it was due: the backoff stored in Redis was not honoured", int64(due)-ran)
	}
	if n := counter(first.reg, "shipgate_job_retries_total", nil); n != 1 {
		t.Errorf("job_retries_total %v, want 1", n)
	}
}

func TestFinalFailureIsReportedAndForgetsTheDelivery(t *testing.T) {
	e := newEnv(t)
	var dropped atomic.Int32
	r := e.queue(func(o *Options) {
		o.MaxAttempts = 2
		o.RedeliverFailed = true
		o.OnDropped = func(app.Job, error) { dropped.Add(1) }
	})
	var calls atomic.Int32
	p := &reporter{procFunc: func(context.Context, app.Job) ([]app.Job, error) {
		calls.Add(1)
		return nil, errors.New("boom")
	}}
	r.run(t, p)
	ctx := context.Background()
	j := prJob(5, "h")
	j.DeliveryID = "g-fail" // the webhook server sets it from X-GitHub-Delivery
	if err := r.q.EnqueueDelivery(ctx, "g-fail", []app.Job{j}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "failure reported", func() bool { return len(p.failures()) == 1 })
	waitFor(t, "queue empty", func() bool { s := stats(t, r.q); return s.Pending == 0 && s.Running == 0 })
	if calls.Load() != 2 || dropped.Load() != 1 {
		t.Errorf("calls %d, dropped %d; want 2 and 1", calls.Load(), dropped.Load())
	}
	// The job leaves Redis before the worker counts it; wait for the count
	// rather than read it at the instant the queue empties.
	waitFor(t, "failure counted", func() bool { return jobsTotal(r, "evaluate_pr", "failed") == 1 })
	// RedeliverFailed: the manual redelivery (same GUID) is accepted.
	if err := r.q.EnqueueDelivery(ctx, "g-fail", []app.Job{j}); err != nil {
		t.Errorf("redelivery after a failure: %v, want accepted", err)
	}
}

func TestShutdownFinishesRunningJobsAndKeepsPendingOnes(t *testing.T) {
	e := newEnv(t)
	begun := queuetest.NewLogSignal("job queue: this replica stops taking jobs")
	r := e.queue(func(o *Options) { o.Workers = 1; o.Logger = slog.New(begun) })
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Int32
	r.run(t, procFunc(func(context.Context, app.Job) ([]app.Job, error) {
		close(started)
		<-release
		finished.Add(1)
		return nil, nil
	}))
	ctx := context.Background()
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "a")})
	<-started
	_ = r.q.Enqueue(ctx, []app.Job{prJob(2, "a")})
	errc := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithDeadline(ctx, testwait.Deadline(t))
		defer cancel()
		errc <- r.q.Shutdown(sctx)
	}()
	select { // the job is released only once Shutdown has stopped the fetching
	case <-begun.Seen():
	case <-testwait.After(t):
		t.Fatal("Shutdown did not begin")
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if finished.Load() != 1 {
		t.Errorf("finished %d, want the running job finished", finished.Load())
	}
	if s := stats(t, r.q); s.Pending != 1 || s.Running != 0 {
		t.Errorf("stats %+v: the pending job must stay in Redis for the other replicas", s)
	}
	// Still accepting: the store is shared.
	if err := r.q.Enqueue(ctx, []app.Job{prJob(3, "a")}); err != nil {
		t.Errorf("Enqueue after Shutdown: %v", err)
	}
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("Run returned %v after Shutdown, want nil", r.err)
		}
	case <-testwait.After(t):
		t.Fatal("Run did not return after Shutdown")
	}
}

func TestShutdownDeadlineHandsRunningJobsBack(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.Workers = 1 })
	started := make(chan struct{})
	r.run(t, procFunc(func(ctx context.Context, _ app.Job) ([]app.Job, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	ctx := context.Background()
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "a")})
	<-started
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := r.q.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline error", err)
	}
	v, err := e.rdb.HGet(ctx, "test:{q}:pending", prJob(1, "").Key()).Result()
	if err != nil || !strings.HasPrefix(v, "0|") {
		t.Fatalf("handed-back job %q (%v), want pending with its attempt not counted", v, err)
	}
	if s := stats(t, r.q); s.Running != 0 {
		t.Errorf("still %d running", s.Running)
	}
}

func TestLostLeaseCancelsTheJob(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.LeaseTTL = 600 * time.Millisecond })
	cancelled := make(chan error, 1)
	started := make(chan struct{})
	r.run(t, procFunc(func(ctx context.Context, _ app.Job) ([]app.Job, error) {
		close(started)
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
		return nil, ctx.Err()
	}))
	ctx := context.Background()
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "a")})
	<-started
	// Another replica reclaimed it (this one stalled): its entry is gone.
	if err := e.rdb.HDel(ctx, "test:{q}:running", prJob(1, "").Key()).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-cancelled:
		if !strings.Contains(fmt.Sprint(cause), "lease lost") {
			t.Errorf("cancelled with %v, want errLeaseLost", cause)
		}
	case <-testwait.After(t):
		t.Fatal("the job was not cancelled after losing its lease")
	}
}

func TestReadyAndOptions(t *testing.T) {
	e := newEnv(t)
	r := e.queue(nil)
	if err := r.q.Ready(context.Background()); err != nil {
		t.Errorf("Ready: %v", err)
	}
	if !r.q.Durable() {
		t.Error("not durable")
	}
	if _, err := New(Options{}); err == nil {
		t.Error("New without a client succeeded")
	}
	if _, err := New(Options{Client: e.rdb, LeaseTTL: time.Millisecond}); err == nil {
		t.Error("a 1ms lease was accepted")
	}
	if _, err := New(Options{Client: e.rdb, Workers: -1}); err == nil {
		t.Error("negative workers accepted")
	}
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer down.Close()
	q, err := New(Options{Client: down})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Ready(context.Background()); err == nil {
		t.Error("Ready with Redis down succeeded")
	}
	if err := q.Enqueue(context.Background(), []app.Job{prJob(1, "a")}); err == nil || errors.Is(err, webhook.ErrQueueFull) {
		t.Errorf("Enqueue with Redis down: %v, want a store error", err)
	}
}
