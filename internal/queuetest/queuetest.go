// Package queuetest is the one test suite of Shipgate's job queue: the
// lifecycle (webhook.StoreQueue) over each storage backend must pass it —
// the in-process webhook.MemoryStore (webhook's tests) and the Redis store
// of webhook/redisqueue (its tests, against a real redis-server). A
// behaviour one backend has and the other lacks fails here, so the two
// cannot drift apart again.
//
// Run(t, backend) runs every case as a subtest. A Backend makes, per case,
// one fresh store and any number of queues over it (replicas sharing the
// store); the cases that simulate a dead replica lease jobs through the
// store directly (webhook.Store.Claim), as a process killed mid-job leaves
// them.
package queuetest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/testwait"
	"github.com/shipgate-app/shipgate/webhook"
)

// Every wait for something that must happen is bounded by the test
// binary's deadline (testwait), not by a figure of wall time: cases poll
// state or receive events, they never sleep hoping.
//
// Leases are independent of scheduling delay. A live replica's lease
// (liveLease) is minutes long, so a heartbeat that a loaded machine runs
// late never lets it expire and no case depends on the heartbeat's
// timing; a dead replica's lease (deadLease, taken through the store by
// leaseDirect and never renewed) is short, and a case that needs it expired
// calls Reclaim until the recovery is counted (waitReclaimed) instead of
// waiting for a background reaper, which with liveLease runs only every
// minute or two.
const (
	liveLease = 5 * time.Minute
	deadLease = 100 * time.Millisecond
)

// StoreOptions are the store-level settings a case needs.
type StoreOptions struct {
	// Capacity bounds pending jobs (0: the default).
	Capacity int
}

// Backend is one storage backend under test.
type Backend struct {
	// Durable is what the store's Durable reports.
	Durable bool
	// Fresh makes one new, empty store for a case and returns a function
	// that builds queues over it (each call: another replica). The opts it
	// receives have Metrics, Logger and a zero Backoff filled in.
	Fresh func(t *testing.T, so StoreOptions) func(opts webhook.QueueOptions) (*webhook.StoreQueue, error)
}

// Run runs every case of the suite against b.
func Run(t *testing.T, b Backend) {
	cases := []struct {
		name string
		f    func(*testing.T, Backend)
	}{
		{"NewestPendingJobWinsAndKeepsItsPlace", newestWins},
		{"AtMostOneJobPerKeyAcrossReplicas", onePerKey},
		{"CapacityIsAllOrNothingAndReplacementsFit", capacity},
		{"DeliveriesAreDeduplicatedAcrossReplicas", dedup},
		{"HeadAlreadyQueuedOrRunIsNotQueuedAgain", headMarks},
		{"RetriesWithBackoffThenGivesUpAndReports", retries},
		{"BackoffDelaysTheRetry", backoffDelays},
		{"NewerJobSupersedesARetry", supersedesRetry},
		{"PanicsAreRecoveredAndRetried", panics},
		{"FollowUpsAreStoredWithTheParentsEnd", followUps},
		{"FollowUpsRefusedForCapacityRetryTheParent", followUpsFull},
		{"JobTimeoutEndsTheAttempt", jobTimeout},
		{"ExpiredLeaseIsRecoveredByAnotherReplica", recovered},
		{"JobInterruptedTooOftenIsDropped", interruptedTooOften},
		{"SupersededAfterStartIsReported", supersededReported},
		{"ShutdownFinishesRunningJobs", shutdown},
		{"ShutdownDeadline", shutdownDeadline},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.f(t, b) })
	}
}

// env is one case's store and its replicas.
type env struct {
	t    *testing.T
	b    Backend
	make func(webhook.QueueOptions) (*webhook.StoreQueue, error)
}

// replica is one queue with its own metrics, as one App process has.
type replica struct {
	q    *webhook.StoreQueue
	reg  *prometheus.Registry
	done chan struct{}
	err  error
}

func newEnv(t *testing.T, b Backend, so StoreOptions) *env {
	return &env{t: t, b: b, make: b.Fresh(t, so)}
}

func (e *env) replica(edit func(*webhook.QueueOptions)) *replica {
	e.t.Helper()
	reg := prometheus.NewRegistry()
	m, err := webhook.NewMetrics(reg)
	if err != nil {
		e.t.Fatal(err)
	}
	opts := webhook.QueueOptions{Workers: 2, LeaseTTL: liveLease, PollInterval: 50 * time.Millisecond,
		Backoff: func(int) time.Duration { return 0 }, Metrics: m, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&opts)
	}
	q, err := e.make(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return &replica{q: q, reg: reg}
}

// run starts r's workers; the case's cleanup stops them.
func (r *replica) run(t *testing.T, p app.Processor) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r.done = make(chan struct{})
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

// stop shuts r down cleanly and waits for Run.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	if err := r.q.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("Run: %v", r.err)
		}
	case <-testwait.After(t):
		t.Fatal("Run did not return after Shutdown")
	}
}

func (r *replica) metric(name string, labels map[string]string) float64 {
	return Metric(r.reg, name, labels)
}

// Metric sums the series of name (counters and gauges) whose labels
// include labels; -1 when the registry cannot be gathered. The backends'
// own tests read their metrics with it too.
func Metric(reg *prometheus.Registry, name string, labels map[string]string) float64 {
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
			if !match {
				continue
			}
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

func stats(t *testing.T, q *webhook.StoreQueue) webhook.QueueStats {
	t.Helper()
	s, err := q.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func idle(t *testing.T, q *webhook.StoreQueue) bool {
	s := stats(t, q)
	return s.Pending == 0 && s.Running == 0
}

// procFunc adapts a function to app.Processor.
type procFunc func(ctx context.Context, j app.Job) ([]app.Job, error)

func (f procFunc) Process(ctx context.Context, j app.Job) ([]app.Job, error) { return f(ctx, j) }

// reporter is a processor that also records JobFailed and JobSuperseded.
type reporter struct {
	procFunc
	mu         sync.Mutex
	failed     []app.Job
	causes     []error
	superseded []app.Job
}

func (r *reporter) JobFailed(_ context.Context, j app.Job, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed, r.causes = append(r.failed, j), append(r.causes, err)
}

func (r *reporter) JobSuperseded(_ context.Context, j app.Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.superseded = append(r.superseded, j)
}

func (r *reporter) failures() ([]app.Job, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.failed), slices.Clone(r.causes)
}

func (r *reporter) supersededHeads() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return heads(r.superseded)
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
	return slices.Clone(r.jobs)
}

func heads(js []app.Job) []string {
	out := make([]string, 0, len(js))
	for _, j := range js {
		out = append(out, j.HeadSHA)
	}
	return out
}

func prJob(pr int, head string) app.Job {
	return app.Job{Kind: app.KindEvaluatePR, DeliveryID: fmt.Sprintf("d-%d-%s", pr, head), Event: "pull_request", Action: "synchronize",
		InstallationID: 7, Owner: "acme", Repo: "web", PRNumber: pr, HeadSHA: head, ReceivedAt: time.Now()}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, what, cond)
}

// blocker is a processor whose jobs with a head in block wait for release
// (or for their context to end, so that a case that fails before releasing
// them still lets its queue stop).
func blocker(rec *recorder, block string, release <-chan struct{}) procFunc {
	return func(ctx context.Context, j app.Job) ([]app.Job, error) {
		rec.add(j)
		if j.HeadSHA == block {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return nil, nil
	}
}

func newestWins(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	r := e.replica(func(o *webhook.QueueOptions) { o.Workers = 1 })
	ctx := context.Background()
	release := make(chan struct{})
	rec := &recorder{}
	// PR 1 occupies the only worker; PR 2 and PR 3 wait, and each gets newer
	// heads while waiting: the newest wins and keeps its key's place.
	if err := r.q.Enqueue(ctx, []app.Job{prJob(1, "busy")}); err != nil {
		t.Fatal(err)
	}
	r.run(t, blocker(rec, "busy", release))
	waitFor(t, "PR 1 running", func() bool { return len(rec.all()) == 1 })
	for _, j := range []app.Job{prJob(2, "a1"), prJob(3, "b1"), prJob(2, "a2"), prJob(3, "b2"), prJob(2, "a3")} {
		if err := r.q.Enqueue(ctx, []app.Job{j}); err != nil {
			t.Fatal(err)
		}
	}
	if d := r.q.Depth(); d != 2 {
		t.Errorf("depth %d with two keys pending, want 2", d)
	}
	close(release)
	waitFor(t, "three jobs run", func() bool { return len(rec.all()) == 3 && idle(t, r.q) })
	if got := strings.Join(heads(rec.all()), ","); got != "busy,a3,b2" {
		t.Errorf("ran %s, want busy,a3,b2 (newest head per key, PR 2 first)", got)
	}
	if n := r.metric("shipgate_jobs_total", map[string]string{"outcome": "superseded"}); n != 3 {
		t.Errorf("jobs_total{superseded} = %v, want 3", n)
	}
}

func onePerKey(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	var mu sync.Mutex
	runningPerKey := map[int]int{}
	maxPerKey, maxAll, all := 0, 0, 0
	var done atomic.Int32
	p := procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		mu.Lock()
		runningPerKey[j.PRNumber]++
		all++
		maxPerKey, maxAll = max(maxPerKey, runningPerKey[j.PRNumber]), max(maxAll, all)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		runningPerKey[j.PRNumber]--
		all--
		mu.Unlock()
		done.Add(1)
		return nil, nil
	})
	reps := []*replica{e.replica(nil), e.replica(nil)}
	for _, r := range reps {
		r.run(t, p)
	}
	ctx := context.Background()
	for i := range 40 {
		// Four keys, ten pushes each, through alternating replicas.
		if err := reps[i%2].q.Enqueue(ctx, []app.Job{prJob(i%4, fmt.Sprintf("h%d", i))}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	waitFor(t, "the queue drained", func() bool { return idle(t, reps[0].q) && done.Load() > 0 })
	mu.Lock()
	defer mu.Unlock()
	if maxPerKey != 1 {
		t.Errorf("%d jobs of one key ran at once, want 1", maxPerKey)
	}
	if maxAll < 2 {
		t.Logf("note: distinct keys never overlapped (max %d)", maxAll)
	}
}

func capacity(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{Capacity: 2})
	r := e.replica(nil)
	ctx := context.Background()
	if err := r.q.Enqueue(ctx, []app.Job{prJob(1, "a"), prJob(2, "a"), prJob(3, "a")}); !errors.Is(err, webhook.ErrQueueFull) {
		t.Fatalf("3 new keys into capacity 2: %v, want ErrQueueFull", err)
	}
	if d := stats(t, r.q).Pending; d != 0 {
		t.Fatalf("a refused batch left %d jobs (all-or-nothing)", d)
	}
	if err := r.q.Enqueue(ctx, []app.Job{prJob(1, "a"), prJob(2, "a")}); err != nil {
		t.Fatal(err)
	}
	// Full: a new key is refused, a newer job for a pending key is not.
	if err := r.q.EnqueueDelivery(ctx, "g-full", []app.Job{prJob(3, "a")}); !errors.Is(err, webhook.ErrQueueFull) {
		t.Errorf("new key at capacity: %v, want ErrQueueFull", err)
	}
	if err := r.q.Enqueue(ctx, []app.Job{prJob(1, "b")}); err != nil {
		t.Errorf("replacement at capacity: %v", err)
	}
	// A delivery refused for capacity is not remembered: once there is
	// room, its redelivery (same ID) is accepted.
	rec := &recorder{}
	r.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	waitFor(t, "the queue drained", func() bool { return len(rec.all()) == 2 && idle(t, r.q) })
	if err := r.q.EnqueueDelivery(ctx, "g-full", []app.Job{prJob(3, "a")}); err != nil {
		t.Errorf("redelivery of a refused delivery: %v, want accepted", err)
	}
	waitFor(t, "the redelivered job", func() bool { return len(rec.all()) == 3 })
}

func dedup(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	a, c := e.replica(nil), e.replica(nil)
	ctx := context.Background()
	if err := a.q.EnqueueDelivery(ctx, "g-1", []app.Job{prJob(1, "a")}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*replica{a, c} {
		if err := r.q.EnqueueDelivery(ctx, "g-1", []app.Job{prJob(1, "a")}); !errors.Is(err, webhook.ErrDuplicateDelivery) {
			t.Errorf("second delivery of g-1: %v, want ErrDuplicateDelivery", err)
		}
	}
	if err := a.q.EnqueueDelivery(ctx, "", nil); err == nil {
		t.Error("an empty delivery ID was accepted")
	}
	// Concurrent duplicates: exactly one wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r := []*replica{a, c}[i%2]
			if err := r.q.EnqueueDelivery(ctx, "g-race", []app.Job{prJob(2, "x")}); err == nil {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d concurrent deliveries of one ID accepted, want 1", wins.Load())
	}
	if s := stats(t, a.q); s.Pending != 2 {
		t.Errorf("pending %d, want 2", s.Pending)
	}
}

func headMarks(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	a, c := e.replica(nil), e.replica(nil)
	rec := &recorder{}
	a.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	ctx := context.Background()
	job := func(pr int, head, delivery, event, action string) app.Job {
		j := prJob(pr, head)
		j.DeliveryID, j.Event, j.Action = delivery, event, action
		return j
	}
	ran := 0
	step := func(what string, via *replica, j app.Job, runs bool) {
		t.Helper()
		if err := via.q.EnqueueDelivery(ctx, j.DeliveryID, []app.Job{j}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if runs {
			ran++
		}
		waitFor(t, what, func() bool { return len(rec.all()) == ran && idle(t, a.q) })
	}
	// After a restart the sweep queued PR 1's head, and it ran; then
	// GitHub redelivers the delivery that was refused for it, through the
	// other replica: not queued again.
	step("the sweep's job", a, job(1, "h", "sweep-1", app.SweepEvent, ""), true)
	step("the redelivery of a refused synchronize", c, job(1, "h", "g-refused", "pull_request", "synchronize"), false)
	step("ready_for_review of the same head", a, job(1, "h", "g-ready", "pull_request", "ready_for_review"), false)
	// What must be evaluated again still is.
	step("a re-run asked for", c, job(1, "h", "g-rerun", "check_run", "rerequested"), true)
	step("reopened", a, job(1, "h", "g-reopened", "pull_request", "reopened"), true)
	step("the next sweep (it checks GitHub itself)", a, job(1, "h", "sweep-2", app.SweepEvent, ""), true)
	step("a new head", c, job(1, "h2", "g-push", "pull_request", "synchronize"), true)
	// The delivery that marked a head may come again (a manual redelivery
	// after its job failed, RedeliverFailed): it runs.
	step("the marking delivery again", a, job(2, "x", "g-x", "pull_request", "opened"), true)
	if err := a.q.Enqueue(ctx, []app.Job{job(2, "x", "g-x", "pull_request", "opened")}); err != nil {
		t.Fatal(err)
	}
	ran++
	waitFor(t, "the marking delivery's job again", func() bool { return len(rec.all()) == ran && idle(t, a.q) })
	n := a.metric("shipgate_jobs_total", map[string]string{"outcome": "duplicate_head"}) +
		c.metric("shipgate_jobs_total", map[string]string{"outcome": "duplicate_head"})
	if n != 2 {
		t.Errorf("jobs_total{duplicate_head} = %v, want 2", n)
	}
}

func retries(t *testing.T, b Backend) {
	for _, redeliver := range []bool{false, true} {
		t.Run(fmt.Sprintf("RedeliverFailed=%v", redeliver), func(t *testing.T) {
			e := newEnv(t, b, StoreOptions{})
			var mu sync.Mutex
			var backoffs []int
			var dropped atomic.Int32
			r := e.replica(func(o *webhook.QueueOptions) {
				o.MaxAttempts, o.RedeliverFailed = 3, redeliver
				o.Backoff = func(n int) time.Duration { mu.Lock(); backoffs = append(backoffs, n); mu.Unlock(); return 0 }
				o.OnDropped = func(app.Job, error) { dropped.Add(1) }
			})
			var calls atomic.Int32
			p := &reporter{procFunc: func(context.Context, app.Job) ([]app.Job, error) {
				calls.Add(1)
				return nil, errors.New("GitHub 502")
			}}
			r.run(t, p)
			ctx := context.Background()
			job := prJob(1, "a")
			job.DeliveryID = "g-fail"
			if err := r.q.EnqueueDelivery(ctx, "g-fail", []app.Job{job}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the failure reported", func() bool { f, _ := p.failures(); return len(f) == 1 && idle(t, r.q) })
			waitFor(t, "jobs_total{failed} 1", func() bool {
				return r.metric("shipgate_jobs_total", map[string]string{"outcome": "failed"}) == 1
			})
			if calls.Load() != 3 {
				t.Errorf("%d attempts, want 3", calls.Load())
			}
			mu.Lock()
			if !slices.Equal(backoffs, []int{1, 2}) {
				t.Errorf("backoff asked for %v, want [1 2]", backoffs)
			}
			mu.Unlock()
			if n := r.metric("shipgate_job_retries_total", nil); n != 2 {
				t.Errorf("job_retries_total %v, want 2", n)
			}
			if dropped.Load() != 1 {
				t.Errorf("OnDropped called %d times, want 1", dropped.Load())
			}
			if _, causes := p.failures(); !strings.Contains(causes[0].Error(), "GitHub 502") {
				t.Errorf("reported cause %v", causes[0])
			}
			err := r.q.EnqueueDelivery(ctx, "g-fail", []app.Job{job})
			if redeliver && err != nil {
				t.Errorf("manual redelivery of a failed delivery: %v, want accepted", err)
			}
			if !redeliver && !errors.Is(err, webhook.ErrDuplicateDelivery) {
				t.Errorf("redelivery without RedeliverFailed: %v, want duplicate", err)
			}
		})
	}
}

func backoffDelays(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	const delay = 300 * time.Millisecond
	r := e.replica(func(o *webhook.QueueOptions) {
		o.MaxAttempts = 2
		o.Backoff = func(int) time.Duration { return delay }
	})
	var mu sync.Mutex
	var at []time.Time
	r.run(t, procFunc(func(context.Context, app.Job) ([]app.Job, error) {
		mu.Lock()
		defer mu.Unlock()
		at = append(at, time.Now())
		if len(at) == 1 {
			return nil, errors.New("transient")
		}
		return nil, nil
	}))
	if err := r.q.Enqueue(context.Background(), []app.Job{prJob(1, "a")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the retry", func() bool { mu.Lock(); defer mu.Unlock(); return len(at) == 2 })
	mu.Lock()
	defer mu.Unlock()
	// A lower bound only: the retry never runs before its backoff.
	if d := at[1].Sub(at[0]); d < delay-20*time.Millisecond {
		t.Errorf("retried after %s, want at least %s", d, delay)
	}
}

func supersedesRetry(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	r := e.replica(func(o *webhook.QueueOptions) { o.MaxAttempts = 5 })
	release := make(chan struct{})
	rec := &recorder{}
	p := &reporter{procFunc: func(_ context.Context, j app.Job) ([]app.Job, error) {
		rec.add(j)
		if j.HeadSHA == "a" {
			<-release
			return nil, errors.New("transient")
		}
		return nil, nil
	}}
	r.run(t, p)
	ctx := context.Background()
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "a")})
	waitFor(t, "a running", func() bool { return len(rec.all()) == 1 })
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "b")})
	close(release)
	waitFor(t, "b run", func() bool { return len(rec.all()) == 2 && idle(t, r.q) })
	if got := strings.Join(heads(rec.all()), ","); got != "a,b" {
		t.Errorf("ran %s, want a,b (no retry of a)", got)
	}
	if n := r.metric("shipgate_job_retries_total", nil); n != 0 {
		t.Errorf("job_retries_total %v, want 0", n)
	}
	// a had started: its replacement is reported so its check run closes.
	waitFor(t, "a reported superseded", func() bool { return slices.Equal(p.supersededHeads(), []string{"a"}) })
}

func panics(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	r := e.replica(func(o *webhook.QueueOptions) { o.MaxAttempts = 3 })
	var calls atomic.Int32
	r.run(t, procFunc(func(context.Context, app.Job) ([]app.Job, error) {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return nil, nil
	}))
	_ = r.q.Enqueue(context.Background(), []app.Job{prJob(1, "a")})
	waitFor(t, "the retry to succeed", func() bool {
		return r.metric("shipgate_jobs_total", map[string]string{"outcome": "succeeded"}) == 1
	})
	if n := r.metric("shipgate_job_panics_total", nil); n != 1 {
		t.Errorf("job_panics_total %v, want 1", n)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2", calls.Load())
	}
}

func followUps(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	r := e.replica(nil)
	rec := &recorder{}
	r.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		rec.add(j)
		if j.Kind == app.KindReevaluateRepo {
			x, y := prJob(1, "x"), prJob(2, "y")
			x.DeliveryID, y.DeliveryID = "", ""
			return []app.Job{x, y}, nil
		}
		return nil, nil
	}))
	parent := app.Job{Kind: app.KindReevaluateRepo, DeliveryID: "g-push", InstallationID: 7, Owner: "acme", Repo: "web"}
	if err := r.q.Enqueue(context.Background(), []app.Job{parent}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the follow-ups", func() bool { return len(rec.all()) == 3 && idle(t, r.q) })
	for _, j := range rec.all()[1:] {
		if j.DeliveryID != "g-push" {
			t.Errorf("follow-up %s has delivery %q, want the parent's (app.Inherit)", j.Key(), j.DeliveryID)
		}
	}
}

func followUpsFull(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{Capacity: 1})
	r := e.replica(func(o *webhook.QueueOptions) { o.Workers, o.MaxAttempts = 1, 3 })
	var parents atomic.Int32
	rec := &recorder{}
	r.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		if j.Kind == app.KindReevaluateRepo {
			parents.Add(1)
			return []app.Job{prJob(1, "x"), prJob(2, "y")}, nil // two new keys, capacity one
		}
		rec.add(j)
		return nil, nil
	}))
	parent := app.Job{Kind: app.KindReevaluateRepo, DeliveryID: "g-push", InstallationID: 7, Owner: "acme", Repo: "web"}
	if err := r.q.Enqueue(context.Background(), []app.Job{parent}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the parent given up", func() bool {
		return r.metric("shipgate_jobs_total", map[string]string{"outcome": "failed"}) == 1
	})
	if parents.Load() != 3 {
		t.Errorf("parent ran %d times, want 3 (each refusal fails the attempt)", parents.Load())
	}
	if n := r.metric("shipgate_queue_full_total", nil); n != 3 {
		t.Errorf("queue_full_total %v, want 3 (the refusals are visible)", n)
	}
	if len(rec.all()) != 0 {
		t.Errorf("%d follow-ups ran from refused batches", len(rec.all()))
	}
}

func jobTimeout(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	r := e.replica(func(o *webhook.QueueOptions) { o.MaxAttempts, o.JobTimeout = 1, 50*time.Millisecond })
	p := &reporter{procFunc: func(ctx context.Context, _ app.Job) ([]app.Job, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	r.run(t, p)
	_ = r.q.Enqueue(context.Background(), []app.Job{prJob(1, "a")})
	waitFor(t, "the failure", func() bool { f, _ := p.failures(); return len(f) == 1 })
	_, causes := p.failures()
	if !errors.Is(causes[0], context.DeadlineExceeded) || !strings.Contains(causes[0].Error(), "timed out after 50ms") {
		t.Errorf("cause %v, want a job timeout", causes[0])
	}
}

// leaseDirect leases the next job through the store, as a replica that is
// then killed does (no heartbeat, no settlement).
func leaseDirect(t *testing.T, q *webhook.StoreQueue, token string) *webhook.Claim {
	t.Helper()
	c, _, err := q.Store().Claim(context.Background(), token, deadLease)
	if err != nil || c == nil {
		t.Fatalf("claim: %v %v", c, err)
	}
	return c
}

// waitReclaimed calls r's Reclaim until r has recovered n expired leases in
// all (its own reaper's recoveries count too: whichever runs first after the
// dead lease expires takes it back, and both are r recovering it).
func waitReclaimed(t *testing.T, r *replica, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d expired leases reclaimed", n), func() bool {
		if _, err := r.q.Reclaim(context.Background()); err != nil {
			t.Fatalf("Reclaim: %v", err)
		}
		return r.metric("shipgate_jobs_recovered_total", nil) >= float64(n)
	})
}

func recovered(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	dead := e.replica(func(o *webhook.QueueOptions) { o.ReplicaID = "dead" })
	ctx := context.Background()
	if err := dead.q.Enqueue(ctx, []app.Job{prJob(9, "abc")}); err != nil {
		t.Fatal(err)
	}
	c := leaseDirect(t, dead.q, "dead.1")
	if s := stats(t, dead.q); s.Running != 1 || s.Pending != 0 {
		t.Fatalf("stats %+v, want 1 running", s)
	}
	alive := e.replica(func(o *webhook.QueueOptions) { o.ReplicaID = "alive" })
	rec := &recorder{}
	alive.run(t, procFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }))
	waitReclaimed(t, alive, 1)
	waitFor(t, "the recovered job", func() bool { return len(rec.all()) == 1 })
	if got := rec.all()[0]; got.PRNumber != 9 || got.HeadSHA != "abc" {
		t.Errorf("recovered %+v", got)
	}
	waitFor(t, "jobs_recovered_total 1", func() bool { return alive.metric("shipgate_jobs_recovered_total", nil) == 1 })
	waitFor(t, "queue empty", func() bool { return idle(t, alive.q) })
	// The dead replica's late settlement (it had only stalled) is refused.
	if res, err := dead.q.Store().Finish(ctx, c.Key, c.Token, nil, ""); err != nil || res.Status != webhook.FinishLost {
		t.Errorf("late finish = %v %v, want FinishLost", res.Status, err)
	}
}

func interruptedTooOften(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	ctx := context.Background()
	crash := e.replica(func(o *webhook.QueueOptions) { o.MaxAttempts = 2 })
	_ = crash.q.Enqueue(ctx, []app.Job{prJob(8, "poison")})
	for i := range 2 { // two replicas die running it
		leaseDirect(t, crash.q, fmt.Sprintf("crash.%d", i))
		waitFor(t, "lease expiry", func() bool {
			n, err := crash.q.Reclaim(ctx)
			return err == nil && n == 1
		})
	}
	r := e.replica(func(o *webhook.QueueOptions) { o.MaxAttempts = 2 })
	var calls atomic.Int32
	p := &reporter{procFunc: func(context.Context, app.Job) ([]app.Job, error) { calls.Add(1); return nil, nil }}
	r.run(t, p)
	waitFor(t, "failure reported", func() bool { f, _ := p.failures(); return len(f) == 1 })
	if calls.Load() != 0 {
		t.Errorf("the poison job ran %d more times", calls.Load())
	}
}

func supersededReported(t *testing.T, b Backend) {
	ctx := context.Background()
	t.Run("its replica died while a newer push waited", func(t *testing.T) {
		e := newEnv(t, b, StoreOptions{})
		dead := e.replica(nil)
		_ = dead.q.Enqueue(ctx, []app.Job{prJob(2, "h1")})
		leaseDirect(t, dead.q, "dead.1")
		_ = dead.q.Enqueue(ctx, []app.Job{prJob(2, "h2")})
		if s := stats(t, dead.q); s.Pending != 1 || s.Running != 1 {
			t.Fatalf("stats %+v, want 1 pending behind 1 running", s)
		}
		alive := e.replica(nil)
		rec := &recorder{}
		p := &reporter{procFunc: func(_ context.Context, j app.Job) ([]app.Job, error) { rec.add(j); return nil, nil }}
		alive.run(t, p)
		waitReclaimed(t, alive, 1)
		waitFor(t, "h1 reported", func() bool { return len(p.supersededHeads()) == 1 })
		waitFor(t, "h2 ran", func() bool { return len(rec.all()) == 1 && idle(t, alive.q) })
		if got := p.supersededHeads(); got[0] != "h1" || rec.all()[0].HeadSHA != "h2" {
			t.Errorf("reported %v and ran %v, want h1 reported and only h2 run", got, heads(rec.all()))
		}
	})
	t.Run("it was recovered, then replaced before it ran again", func(t *testing.T) {
		e := newEnv(t, b, StoreOptions{})
		dead := e.replica(nil)
		_ = dead.q.Enqueue(ctx, []app.Job{prJob(3, "h1")})
		leaseDirect(t, dead.q, "dead.1")
		// The other replica's only worker is busy on another key, so the
		// recovered h1 waits in line until h2 replaces it.
		other := e.replica(func(o *webhook.QueueOptions) { o.Workers = 1 })
		release := make(chan struct{})
		rec := &recorder{}
		p := &reporter{procFunc: blocker(rec, "busy", release)}
		_ = other.q.Enqueue(ctx, []app.Job{prJob(4, "busy")})
		other.run(t, p)
		waitFor(t, "the busy job", func() bool { return len(rec.all()) == 1 })
		waitReclaimed(t, other, 1)
		_ = other.q.Enqueue(ctx, []app.Job{prJob(3, "h2")})
		waitFor(t, "h1 reported", func() bool { return slices.Equal(p.supersededHeads(), []string{"h1"}) })
		close(release)
		waitFor(t, "h2 ran", func() bool { return len(rec.all()) == 2 && idle(t, other.q) })
		if got := heads(rec.all()); got[1] != "h2" {
			t.Errorf("ran %v, want busy then h2", got)
		}
	})
	t.Run("a job replaced before it ran is not reported", func(t *testing.T) {
		e := newEnv(t, b, StoreOptions{})
		r := e.replica(func(o *webhook.QueueOptions) { o.Workers = 1 })
		release := make(chan struct{})
		rec := &recorder{}
		p := &reporter{procFunc: blocker(rec, "busy", release)}
		_ = r.q.Enqueue(ctx, []app.Job{prJob(9, "busy")})
		r.run(t, p)
		waitFor(t, "the busy job", func() bool { return len(rec.all()) == 1 })
		for _, h := range []string{"h1", "h2", "h3"} {
			_ = r.q.Enqueue(ctx, []app.Job{prJob(4, h)})
		}
		close(release)
		waitFor(t, "h3 ran", func() bool { return len(rec.all()) == 2 && idle(t, r.q) })
		r.stop(t) // Run waits for the reports in flight
		if got := p.supersededHeads(); len(got) != 0 {
			t.Errorf("reported %v, want none", got)
		}
	})
}

func shutdown(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	// Shutdown's first step logs that the replica stops taking jobs: the
	// observable sign that it has begun (a durable queue keeps accepting
	// jobs while it stops, so an Enqueue cannot tell).
	msg := "job queue: this replica stops taking jobs"
	if !b.Durable {
		msg = "job queue draining"
	}
	begun := NewLogSignal(msg)
	r := e.replica(func(o *webhook.QueueOptions) { o.Workers = 1; o.Logger = slog.New(begun) })
	ctx := context.Background()
	release := make(chan struct{})
	rec := &recorder{}
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "running")})
	r.run(t, blocker(rec, "running", release))
	waitFor(t, "the job running", func() bool { return len(rec.all()) == 1 })
	_ = r.q.Enqueue(ctx, []app.Job{prJob(2, "pending")})
	shut := make(chan error, 1)
	go func() { shut <- r.q.Shutdown(ctx) }()
	select {
	case <-begun.Seen():
	case <-testwait.After(t):
		t.Fatal("Shutdown did not begin")
	}
	// While shutting down: a durable store keeps accepting (the jobs are
	// stored for the other replicas); the in-process one refuses.
	waitFor(t, "shutdown begun", func() bool {
		err := r.q.Enqueue(ctx, []app.Job{prJob(3, "late")})
		if b.Durable {
			if err != nil {
				t.Fatalf("durable queue refused a job while shutting down: %v", err)
			}
			return true
		}
		return errors.Is(err, webhook.ErrQueueClosed)
	})
	close(release)
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-testwait.After(t):
		t.Fatal("Shutdown did not return")
	}
	<-r.done
	got := heads(rec.all())
	s := stats(t, r.q)
	if b.Durable {
		// The running job finished; pending ones stay for the others.
		if !slices.Equal(got, []string{"running"}) || s.Pending < 1 || s.Running != 0 {
			t.Errorf("ran %v, stats %+v: want only the running job run, the pending kept", got, s)
		}
	} else {
		// The in-process queue drains before it stops (a "late" job
		// accepted before the refusals began runs too).
		if len(got) < 2 || got[0] != "running" || !slices.Contains(got, "pending") || s.Pending != 0 || s.Running != 0 {
			t.Errorf("ran %v, stats %+v: want the running and the pending job run", got, s)
		}
	}
}

func shutdownDeadline(t *testing.T, b Backend) {
	e := newEnv(t, b, StoreOptions{})
	r := e.replica(func(o *webhook.QueueOptions) { o.Workers = 1 })
	ctx := context.Background()
	started := make(chan struct{}, 1)
	r.run(t, procFunc(func(ctx context.Context, _ app.Job) ([]app.Job, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	_ = r.q.Enqueue(ctx, []app.Job{prJob(1, "stuck")})
	<-started
	_ = r.q.Enqueue(ctx, []app.Job{prJob(2, "never")})
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := r.q.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown past its deadline: %v, want DeadlineExceeded", err)
	}
	select {
	case <-r.done:
	case <-testwait.After(t):
		t.Fatal("Run did not return")
	}
	s := stats(t, r.q)
	if b.Durable {
		// Handed back, not counted: both jobs wait for another replica.
		if s.Pending != 2 || s.Running != 0 {
			t.Errorf("stats %+v, want both jobs pending again", s)
		}
		next := e.replica(nil)
		var attempts []int
		var mu sync.Mutex
		c, _, err := next.q.Store().Claim(ctx, "next.1", time.Second)
		for ; err == nil && c != nil; c, _, err = next.q.Store().Claim(ctx, fmt.Sprintf("next.%d", len(attempts)+2), time.Second) {
			mu.Lock()
			attempts = append(attempts, c.Attempt)
			mu.Unlock()
		}
		if !slices.Equal(attempts, []int{1, 1}) {
			t.Errorf("attempts after the hand-back %v, want [1 1] (not counted)", attempts)
		}
	} else {
		if s.Pending != 0 || s.Running != 0 {
			t.Errorf("stats %+v, want everything abandoned", s)
		}
		if n := r.metric("shipgate_jobs_total", map[string]string{"outcome": "abandoned"}); n != 2 {
			t.Errorf("jobs_total{abandoned} %v, want 2", n)
		}
	}
}

// LogSignal is a slog.Handler that closes Seen the first time a record
// whose message starts with its prefix is logged (and discards every
// record): a case waits on the queue's own account of a step (Shutdown has
// begun) instead of sleeping until it probably has.
type LogSignal struct {
	msg  string
	ch   chan struct{}
	once *sync.Once
}

// NewLogSignal returns a LogSignal for messages starting with prefix.
func NewLogSignal(prefix string) LogSignal {
	return LogSignal{msg: prefix, ch: make(chan struct{}), once: &sync.Once{}}
}

// Seen is closed once a matching record was logged.
func (l LogSignal) Seen() <-chan struct{} { return l.ch }

// Enabled implements slog.Handler.
func (l LogSignal) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (l LogSignal) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, l.msg) {
		l.once.Do(func() { close(l.ch) })
	}
	return nil
}

// WithAttrs implements slog.Handler.
func (l LogSignal) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup implements slog.Handler.
func (l LogSignal) WithGroup(string) slog.Handler { return l }
