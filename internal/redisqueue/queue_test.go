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
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/webhook"
)

// guard bounds every wait; tests poll state, they never sleep hoping.
const guard = 15 * time.Second

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
	opts := Options{Client: e.rdb, Prefix: "test:{q}:", Workers: 2, LeaseTTL: time.Second, PollInterval: 50 * time.Millisecond,
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
		case <-time.After(guard):
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
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
	mfs, err := reg.Gather()
	if err != nil {
		return -1
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			match := true
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					match = false
				}
			}
			if match && m.GetCounter() != nil {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
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

func TestConcurrentDuplicateDeliveriesQueueOnce(t *testing.T) {
	e := newEnv(t)
	qs := []*replica{e.queue(nil), e.queue(nil), e.queue(nil)}
	var ok, dup atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			err := qs[i%3].q.EnqueueDelivery(context.Background(), "same-guid", []app.Job{prJob(1, "aaa")})
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, webhook.ErrDuplicateDelivery):
				dup.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || dup.Load() != 29 {
		t.Fatalf("accepted %d, duplicates %d; want 1 and 29", ok.Load(), dup.Load())
	}
}

func TestNewestPendingJobWinsAndKeepsItsPlace(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.Workers = 1 })
	ctx := context.Background()
	for _, j := range []app.Job{prJob(1, "h1"), prJob(2, "x1"), prJob(1, "h2"), prJob(1, "h3")} {
		if err := r.q.Enqueue(ctx, []app.Job{j}); err != nil {
			t.Fatal(err)
		}
	}
	if s := stats(t, r.q); s.Pending != 2 {
		t.Fatalf("pending %d, want 2 (one per pull request)", s.Pending)
	}
	rec := &recorder{}
	r.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	waitFor(t, "two jobs", func() bool { return len(rec.all()) == 2 })
	got := rec.all()
	if got[0].PRNumber != 1 || got[0].HeadSHA != "h3" || got[1].PRNumber != 2 {
		t.Errorf("ran %+v, want PR 1 at h3 (first, in its original place) then PR 2", got)
	}
	if n := jobsTotal(r, "evaluate_pr", "superseded"); n != 2 {
		t.Errorf("superseded %v, want 2", n)
	}
}

func TestAtMostOneJobPerKeyRunsAcrossReplicas(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	running := map[string]int{}
	maxSeen := 0
	var done atomic.Int32
	proc := procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		mu.Lock()
		running[j.Key()]++
		maxSeen = max(maxSeen, running[j.Key()])
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		running[j.Key()]--
		mu.Unlock()
		done.Add(1)
		return nil, nil
	})
	reps := []*replica{e.queue(func(o *Options) { o.Workers = 4 }), e.queue(func(o *Options) { o.Workers = 4 }), e.queue(func(o *Options) { o.Workers = 4 })}
	for _, r := range reps {
		r.run(t, proc)
	}
	// 300 jobs on 5 keys, enqueued through all replicas while they run.
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Go(func() {
			if err := reps[i%3].q.Enqueue(context.Background(), []app.Job{prJob(i%5, fmt.Sprint(i))}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	waitFor(t, "queue empty", func() bool {
		s := stats(t, reps[0].q)
		return s.Pending == 0 && s.Running == 0
	})
	mu.Lock()
	defer mu.Unlock()
	if maxSeen != 1 {
		t.Fatalf("a key ran %d jobs at once, want at most 1", maxSeen)
	}
	if done.Load() < 5 {
		t.Fatalf("only %d jobs ran", done.Load())
	}
}

func TestKilledReplicasJobIsRecoveredByAnother(t *testing.T) {
	e := newEnv(t)
	dead := e.queue(func(o *Options) { o.ReplicaID = "dead" })
	ctx := context.Background()
	if err := dead.q.Enqueue(ctx, []app.Job{prJob(9, "abc")}); err != nil {
		t.Fatal(err)
	}
	// The "dead" replica leases the job and then never heartbeats nor
	// settles it: what SIGKILL leaves behind.
	d, _, err := dead.q.dequeue(ctx)
	if err != nil || d == nil {
		t.Fatalf("dequeue: %v %v", d, err)
	}
	if s := stats(t, dead.q); s.Running != 1 || s.Pending != 0 {
		t.Fatalf("stats %+v, want 1 running", s)
	}
	// A newer delivery for another key is unaffected; one for the same key
	// waits for the lease.
	alive := e.queue(func(o *Options) { o.ReplicaID = "alive" })
	rec := &recorder{}
	alive.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	waitFor(t, "the recovered job", func() bool { return len(rec.all()) == 1 })
	if got := rec.all()[0]; got.PRNumber != 9 || got.HeadSHA != "abc" {
		t.Errorf("recovered %+v", got)
	}
	// The reaper counts after its script has put the job back, so the job
	// can run before the count: wait for it.
	waitFor(t, "jobs_recovered_total 1", func() bool { return counter(alive.reg, "shipgate_jobs_recovered_total", nil) == 1 })
	waitFor(t, "queue empty", func() bool { s := stats(t, alive.q); return s.Pending == 0 && s.Running == 0 })
	// The dead replica's late settlement (it was only stalled) is refused.
	if got := dead.q.finish(d, prJob(9, "abc"), nil, false); got != "lost" {
		t.Errorf("late finish = %q, want lost", got)
	}
}

func TestNewerJobSupersedesAnInterruptedOne(t *testing.T) {
	e := newEnv(t)
	dead := e.queue(nil)
	ctx := context.Background()
	_ = dead.q.Enqueue(ctx, []app.Job{prJob(3, "old")})
	if d, _, err := dead.q.dequeue(ctx); err != nil || d == nil {
		t.Fatalf("dequeue: %v", err)
	}
	// A newer push arrives while the dead replica "runs" the old head.
	_ = dead.q.Enqueue(ctx, []app.Job{prJob(3, "new")})
	if s := stats(t, dead.q); s.Pending != 1 || s.Running != 1 {
		t.Fatalf("stats %+v, want 1 pending behind 1 running", s)
	}
	alive := e.queue(nil)
	rec := &recorder{}
	alive.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	waitFor(t, "queue empty", func() bool { s := stats(t, alive.q); return s.Pending == 0 && s.Running == 0 && len(rec.all()) > 0 })
	if got := rec.all(); len(got) != 1 || got[0].HeadSHA != "new" {
		t.Errorf("ran %+v, want only the new head", got)
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
	_ = first.q.Enqueue(ctx, []app.Job{prJob(4, "h")})
	waitFor(t, "first attempt", func() bool { return calls.Load() == 1 })
	waitFor(t, "the retry stored", func() bool { s := stats(t, first.q); return s.Pending == 1 && s.Running == 0 })
	// The replica restarts: a new process, nothing in memory.
	sctx, cancel := context.WithTimeout(ctx, guard)
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
	tm, _ := e.rdb.Time(ctx).Result()
	if wait := time.Duration(int64(due)-tm.UnixMilli()) * time.Millisecond; wait < 500*time.Millisecond {
		t.Errorf("next attempt in %s, want the stored backoff (~1.5s)", wait)
	}
	second := e.queue(nil)
	rec := &recorder{}
	start := time.Now()
	second.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	waitFor(t, "the retry", func() bool { return len(rec.all()) == 1 })
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("retry ran after %s: the backoff stored in Redis was not honoured", el)
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

func TestPanicsAreRecoveredAndRetried(t *testing.T) {
	e := newEnv(t)
	r := e.queue(nil)
	var calls atomic.Int32
	rec := &recorder{}
	r.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		if calls.Add(1) == 1 {
			panic("nil map")
		}
		rec.add(j)
		return nil, nil
	}))
	_ = r.q.Enqueue(context.Background(), []app.Job{prJob(6, "h")})
	waitFor(t, "the retry", func() bool { return len(rec.all()) == 1 })
	if n := counter(r.reg, "shipgate_job_panics_total", nil); n != 1 {
		t.Errorf("panics %v, want 1", n)
	}
}

func TestFollowUpsAreStoredWithTheParentsEnd(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.Capacity = 3 })
	rec := &recorder{}
	var parentCalls atomic.Int32
	r.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		rec.add(j)
		if j.Kind == app.KindReevaluateRepo {
			n := parentCalls.Add(1)
			if n == 1 {
				// Four follow-ups do not fit a capacity of 3: the parent is retried.
				return []app.Job{prJob(1, "a"), prJob(2, "b"), prJob(3, "c"), prJob(4, "d")}, nil
			}
			return []app.Job{{Kind: app.KindEvaluatePR, InstallationID: 7, Owner: "acme", Repo: "web", PRNumber: 1},
				{Kind: app.KindEvaluatePR, InstallationID: 7, Owner: "acme", Repo: "web", PRNumber: 2}}, nil
		}
		return nil, nil
	}))
	parent := app.Job{Kind: app.KindReevaluateRepo, DeliveryID: "push-1", Event: "push", InstallationID: 7, Owner: "acme", Repo: "web", ReceivedAt: time.Now()}
	if err := r.q.Enqueue(context.Background(), []app.Job{parent}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "follow-ups", func() bool { return len(rec.all()) == 4 })
	got := rec.all()
	if got[2].DeliveryID != "push-1" || got[3].DeliveryID != "push-1" {
		t.Errorf("follow-ups did not inherit the delivery: %+v", got[2:])
	}
	if n := counter(r.reg, "shipgate_queue_full_total", nil); n != 1 {
		t.Errorf("queue_full_total %v, want 1", n)
	}
}

func TestCapacityRefusesNewKeysButNotReplacements(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.Capacity = 2 })
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.q.Enqueue(ctx, []app.Job{prJob(1, "a"), prJob(2, "a")}))
	if err := r.q.Enqueue(ctx, []app.Job{prJob(3, "a")}); !errors.Is(err, webhook.ErrQueueFull) {
		t.Fatalf("third key: %v, want ErrQueueFull", err)
	}
	must(r.q.Enqueue(ctx, []app.Job{prJob(1, "b")})) // a replacement needs no room
	if err := r.q.Enqueue(ctx, []app.Job{prJob(2, "c"), prJob(3, "c")}); !errors.Is(err, webhook.ErrQueueFull) {
		t.Fatalf("batch over capacity: %v, want ErrQueueFull (all or nothing)", err)
	}
	v, _ := e.rdb.HGet(ctx, "test:{q}:pending", prJob(2, "").Key()).Result()
	if !strings.Contains(v, `"head_sha":"a"`) {
		t.Errorf("a refused batch changed PR 2's pending job: %s", v)
	}
}

func TestShutdownFinishesRunningJobsAndKeepsPendingOnes(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.Workers = 1 })
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
		sctx, cancel := context.WithTimeout(ctx, guard)
		defer cancel()
		errc <- r.q.Shutdown(sctx)
	}()
	time.Sleep(50 * time.Millisecond)
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
	case <-time.After(guard):
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

func TestJobInterruptedTooOftenIsDropped(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	crash := e.queue(func(o *Options) { o.MaxAttempts = 2 })
	_ = crash.q.Enqueue(ctx, []app.Job{prJob(8, "poison")})
	for range 2 { // two replicas die running it
		if d, _, err := crash.q.dequeue(ctx); err != nil || d == nil {
			t.Fatalf("dequeue: %v", err)
		}
		waitFor(t, "lease expiry", func() bool {
			n, err := crash.q.Reclaim(ctx)
			return err == nil && n == 1
		})
	}
	r := e.queue(func(o *Options) { o.MaxAttempts = 2 })
	var calls atomic.Int32
	p := &reporter{procFunc: func(context.Context, app.Job) ([]app.Job, error) { calls.Add(1); return nil, nil }}
	r.run(t, p)
	waitFor(t, "failure reported", func() bool { return len(p.failures()) == 1 })
	if calls.Load() != 0 {
		t.Errorf("the poison job ran %d more times", calls.Load())
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
		if !errors.Is(cause, errLeaseLost) {
			t.Errorf("cancelled with %v, want errLeaseLost", cause)
		}
	case <-time.After(guard):
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

// superseder records the jobs the queue reports superseded after they had
// started.
type superseder struct {
	procFunc
	mu   sync.Mutex
	jobs []app.Job
}

func (s *superseder) JobSuperseded(_ context.Context, j app.Job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs = append(s.jobs, j)
}

func (s *superseder) superseded() []app.Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]app.Job(nil), s.jobs...)
}

// TestSupersededAfterStartIsReported: a job that had started (and may have
// left a check run open) and is replaced by a newer one for its key is
// reported once, whichever way it was replaced; a job replaced before it
// ever ran is not.
func TestSupersededAfterStartIsReported(t *testing.T) {
	ctx := context.Background()
	heads := func(js []app.Job) []string {
		var out []string
		for _, j := range js {
			out = append(out, j.HeadSHA)
		}
		return out
	}

	t.Run("its attempt failed while a newer push waited", func(t *testing.T) {
		e := newEnv(t)
		r := e.queue(nil)
		release := make(chan struct{})
		s := &superseder{}
		s.procFunc = func(_ context.Context, j app.Job) ([]app.Job, error) {
			if j.HeadSHA == "h1" {
				<-release
				return nil, errors.New("GitHub 502")
			}
			return nil, nil
		}
		r.run(t, s)
		if err := r.q.Enqueue(ctx, []app.Job{prJob(1, "h1")}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "h1 running", func() bool { return stats(t, r.q).Running == 1 })
		if err := r.q.Enqueue(ctx, []app.Job{prJob(1, "h2")}); err != nil {
			t.Fatal(err)
		}
		close(release)
		waitFor(t, "h1 reported", func() bool { return len(s.superseded()) == 1 })
		if got := heads(s.superseded()); got[0] != "h1" {
			t.Errorf("reported %v, want h1", got)
		}
	})

	t.Run("its replica died while a newer push waited", func(t *testing.T) {
		e := newEnv(t)
		dead := e.queue(func(o *Options) { o.ReplicaID = "dead" })
		if err := dead.q.Enqueue(ctx, []app.Job{prJob(2, "h1")}); err != nil {
			t.Fatal(err)
		}
		if d, _, err := dead.q.dequeue(ctx); err != nil || d == nil {
			t.Fatalf("dequeue: %v %v", d, err)
		}
		if err := dead.q.Enqueue(ctx, []app.Job{prJob(2, "h2")}); err != nil {
			t.Fatal(err)
		}
		alive := e.queue(func(o *Options) { o.ReplicaID = "alive" })
		s := &superseder{}
		rec := &recorder{}
		s.procFunc = func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }
		alive.run(t, s)
		waitFor(t, "h1 reported", func() bool { return len(s.superseded()) == 1 })
		waitFor(t, "h2 ran", func() bool { return len(rec.all()) == 1 })
		if got := heads(s.superseded()); got[0] != "h1" || rec.all()[0].HeadSHA != "h2" {
			t.Errorf("reported %v and ran %v, want h1 reported and h2 run", got, heads(rec.all()))
		}
	})

	t.Run("it was recovered, then replaced before it ran again", func(t *testing.T) {
		e := newEnv(t)
		dead := e.queue(func(o *Options) { o.ReplicaID = "dead" })
		if err := dead.q.Enqueue(ctx, []app.Job{prJob(3, "h1")}); err != nil {
			t.Fatal(err)
		}
		if d, _, err := dead.q.dequeue(ctx); err != nil || d == nil {
			t.Fatalf("dequeue: %v %v", d, err)
		}
		other := e.queue(func(o *Options) { o.ReplicaID = "other" })
		s := &superseder{procFunc: func(context.Context, app.Job) ([]app.Job, error) { return nil, nil }}
		other.q.mu.Lock()
		other.q.proc, other.q.hookCtx = s, ctx // as Run sets them, without running jobs
		other.q.mu.Unlock()
		// The lease (1 s) expires; the job goes back to pending, started once.
		waitFor(t, "the expired lease reclaimed", func() bool {
			n, err := other.q.Reclaim(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n == 1
		})
		if err := other.q.Enqueue(ctx, []app.Job{prJob(3, "h2")}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "h1 reported", func() bool { return len(s.superseded()) == 1 })
		if got := heads(s.superseded()); got[0] != "h1" {
			t.Errorf("reported %v, want h1", got)
		}
	})

	t.Run("a job replaced before it ran is not reported", func(t *testing.T) {
		e := newEnv(t)
		r := e.queue(func(o *Options) { o.Workers = 1 })
		s := &superseder{procFunc: func(context.Context, app.Job) ([]app.Job, error) { return nil, nil }}
		r.q.mu.Lock()
		r.q.proc, r.q.hookCtx = s, ctx
		r.q.mu.Unlock()
		for _, h := range []string{"h1", "h2", "h3"} {
			if err := r.q.Enqueue(ctx, []app.Job{prJob(4, h)}); err != nil {
				t.Fatal(err)
			}
		}
		r.q.hooks.Wait()
		if got := s.superseded(); len(got) != 0 {
			t.Errorf("reported %v, want none", heads(got))
		}
	})
}
