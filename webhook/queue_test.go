package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipgate-app/shipgate/app"
)

type queueEnv struct {
	q    *MemoryQueue
	reg  *prometheus.Registry
	logs *syncBuffer
	runE chan error
}

// newQueue builds a MemoryQueue with fast, recorded backoff unless opts sets one.
func newQueue(t *testing.T, opts QueueOptions) *queueEnv {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	log, buf := newTestLogger()
	opts.Metrics, opts.Logger = m, log
	if opts.Backoff == nil {
		opts.Backoff = func(int) time.Duration { return 0 }
	}
	q, err := NewMemoryQueue(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &queueEnv{q: q, reg: reg, logs: buf, runE: make(chan error, 1)}
}

func (e *queueEnv) run(p app.Processor) {
	go func() { e.runE <- e.q.Run(context.Background(), p) }()
}

// stop drains the queue and checks Run returned cleanly.
func (e *queueEnv) stop(t *testing.T) {
	t.Helper()
	if err := e.q.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := wait(t, e.runE, "Run to return"); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func (e *queueEnv) metric(t *testing.T, name string, labels map[string]string) float64 {
	return metricValue(t, e.reg, name, labels)
}

func TestQueueCoalescesNewestHeadWins(t *testing.T) {
	e := newQueue(t, QueueOptions{Workers: 1})
	ctx := context.Background()
	for _, j := range []app.Job{prJob(1, "a"), prJob(2, "x"), prJob(1, "b"), prJob(1, "c")} {
		if err := e.q.Enqueue(ctx, []app.Job{j}); err != nil {
			t.Fatal(err)
		}
	}
	if e.q.Depth() != 2 {
		t.Fatalf("depth %d, want 2 (one pending job per PR)", e.q.Depth())
	}
	got := make(chan app.Job, 4)
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { got <- j; return nil, nil }))
	first, second := wait(t, got, "first job"), wait(t, got, "second job")
	e.stop(t)
	if first.PRNumber != 1 || first.HeadSHA != "c" {
		t.Fatalf("first ran %d@%s, want PR 1 at its newest head c, in PR 1's original place", first.PRNumber, first.HeadSHA)
	}
	if second.PRNumber != 2 || len(got) != 0 {
		t.Fatalf("second ran %+v; %d extra", second, len(got))
	}
	if n := e.metric(t, "shipgate_jobs_total", map[string]string{"kind": "evaluate_pr", "outcome": "superseded"}); n != 2 {
		t.Fatalf("superseded = %v, want 2", n)
	}
}

func TestQueueOneRunningPerKey(t *testing.T) {
	e := newQueue(t, QueueOptions{Workers: 4})
	started := make(chan app.Job, 8)
	release := make(chan struct{})
	var running sync.Map // key → *atomic.Int32
	var overlap atomic.Bool
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		c, _ := running.LoadOrStore(j.Key(), new(atomic.Int32))
		if c.(*atomic.Int32).Add(1) > 1 {
			overlap.Store(true)
		}
		defer c.(*atomic.Int32).Add(-1)
		started <- j
		if j.HeadSHA == "a" {
			<-release
		}
		return nil, nil
	}))
	ctx := context.Background()
	mustEnqueue := func(j app.Job) {
		if err := e.q.Enqueue(ctx, []app.Job{j}); err != nil {
			t.Fatal(err)
		}
	}
	mustEnqueue(prJob(1, "a"))
	if j := wait(t, started, "a"); j.HeadSHA != "a" {
		t.Fatalf("started %s", j.HeadSHA)
	}
	mustEnqueue(prJob(1, "b")) // waits: key busy
	mustEnqueue(prJob(1, "c")) // replaces b
	mustEnqueue(prJob(2, "x")) // another key: runs now, past the waiting one
	if j := wait(t, started, "x"); j.HeadSHA != "x" {
		t.Fatalf("started %s while PR 1 was running, want x", j.HeadSHA)
	}
	if e.q.Depth() != 1 {
		t.Fatalf("depth %d, want 1 (c waiting for a)", e.q.Depth())
	}
	close(release)
	if j := wait(t, started, "c"); j.HeadSHA != "c" {
		t.Fatalf("after a, started %s, want c (b coalesced away)", j.HeadSHA)
	}
	e.stop(t)
	if overlap.Load() {
		t.Fatal("two jobs for one key ran at the same time")
	}
	if len(started) != 0 {
		t.Fatalf("unexpected extra job %+v", <-started)
	}
}

func TestQueueCapacity(t *testing.T) {
	e := newQueue(t, QueueOptions{Capacity: 2})
	ctx := context.Background()
	steps := []struct {
		jobs []app.Job
		want error
	}{
		{[]app.Job{prJob(1, "a")}, nil},
		{[]app.Job{prJob(2, "a"), prJob(2, "b")}, nil}, // same key twice in a batch: one slot
		{[]app.Job{prJob(3, "a")}, ErrQueueFull},
		{[]app.Job{prJob(1, "new"), prJob(3, "a")}, ErrQueueFull}, // all-or-nothing
		{[]app.Job{prJob(1, "b")}, nil},                           // replacement needs no slot
		{nil, nil},
	}
	for i, st := range steps {
		if err := e.q.Enqueue(ctx, st.jobs); !errors.Is(err, st.want) {
			t.Fatalf("step %d: err %v, want %v", i, err, st.want)
		}
	}
	got := make(chan app.Job, 4)
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) { got <- j; return nil, nil }))
	heads := map[int]string{}
	for range 2 {
		j := wait(t, got, "job")
		heads[j.PRNumber] = j.HeadSHA
	}
	e.stop(t)
	if heads[1] != "b" || heads[2] != "b" {
		t.Fatalf("heads %v: the refused batch must not have replaced PR 1", heads)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.q.Enqueue(cctx, []app.Job{prJob(9, "z")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("enqueue with cancelled ctx: %v", err)
	}
}

func TestQueueJobTimeout(t *testing.T) {
	dropped := make(chan error, 1)
	e := newQueue(t, QueueOptions{JobTimeout: 20 * time.Millisecond, MaxAttempts: 1,
		OnDropped: func(_ app.Job, err error) { dropped <- err }})
	e.run(processorFunc(func(ctx context.Context, _ app.Job) ([]app.Job, error) {
		if _, ok := ctx.Deadline(); !ok {
			return nil, errors.New("no deadline")
		}
		<-ctx.Done()
		return nil, fmt.Errorf("list files: %w", ctx.Err())
	}))
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a")}); err != nil {
		t.Fatal(err)
	}
	err := wait(t, dropped, "the timed-out job to be dropped")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 20ms") {
		t.Fatalf("err = %v", err)
	}
	e.stop(t)
	if n := e.metric(t, "shipgate_jobs_total", map[string]string{"kind": "evaluate_pr", "outcome": "failed"}); n != 1 {
		t.Fatalf("failed = %v", n)
	}
}

func TestQueuePanicRecovery(t *testing.T) {
	dropped := make(chan error, 1)
	e := newQueue(t, QueueOptions{Workers: 1, MaxAttempts: 1, OnDropped: func(_ app.Job, err error) { dropped <- err }})
	done := make(chan app.Job, 1)
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		if j.PRNumber == 1 {
			var m map[string]int
			//lint:ignore SA5000 the test needs a real runtime panic
			m["boom"]++ // nil map write: a real runtime panic
		}
		done <- j
		return nil, nil
	}))
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a"), prJob(2, "b")}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, dropped, "the panicking job to be dropped"); !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("err = %v", err)
	}
	if j := wait(t, done, "the next job on the same worker"); j.PRNumber != 2 {
		t.Fatalf("ran %+v", j)
	}
	e.stop(t)
	if n := e.metric(t, "shipgate_job_panics_total", nil); n != 1 {
		t.Fatalf("panics = %v", n)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, `"msg":"job panicked"`) || !strings.Contains(logs, "goroutine") || !strings.Contains(logs, `"key":"1/o/r#1"`) {
		t.Fatalf("panic log lacks message, stack or key: %s", logs)
	}
}

// failureRecorder is a Processor that also implements FailureReporter.
type failureRecorder struct {
	process func(ctx context.Context, job app.Job) ([]app.Job, error)
	failed  chan error
}

func (f *failureRecorder) Process(ctx context.Context, job app.Job) ([]app.Job, error) {
	return f.process(ctx, job)
}

func (f *failureRecorder) JobFailed(ctx context.Context, _ app.Job, err error) {
	if _, ok := ctx.Deadline(); !ok {
		err = errors.New("JobFailed called without a deadline")
	}
	f.failed <- err
}

func TestQueueRetries(t *testing.T) {
	transient := errors.New("github: 502 bad gateway")
	cases := []struct {
		name        string
		maxAttempts int
		failures    int // calls that fail before success
		wantCalls   int
		wantBackoff []int
		wantOutcome string
	}{
		{"succeeds on third attempt", 5, 2, 3, []int{1, 2}, "succeeded"},
		{"dropped after max attempts", 3, 100, 3, []int{1, 2}, "failed"},
		{"single attempt", 1, 100, 1, nil, "failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var backoffs []int
			var calls atomic.Int32
			dropped := make(chan error, 1)
			e := newQueue(t, QueueOptions{
				MaxAttempts: tc.maxAttempts,
				Backoff: func(attempt int) time.Duration {
					mu.Lock()
					defer mu.Unlock()
					backoffs = append(backoffs, attempt)
					return 0
				},
				OnDropped: func(_ app.Job, err error) { dropped <- err },
			})
			succeeded := make(chan struct{}, 1)
			p := &failureRecorder{failed: make(chan error, 1), process: func(context.Context, app.Job) ([]app.Job, error) {
				if int(calls.Add(1)) <= tc.failures {
					return nil, transient
				}
				succeeded <- struct{}{}
				return nil, nil
			}}
			e.run(p)
			if err := e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a")}); err != nil {
				t.Fatal(err)
			}
			if tc.wantOutcome == "succeeded" {
				wait(t, succeeded, "success")
			} else {
				if err := wait(t, dropped, "OnDropped"); !errors.Is(err, transient) {
					t.Fatalf("OnDropped err = %v", err)
				}
				if err := wait(t, p.failed, "FailureReporter.JobFailed"); !errors.Is(err, transient) {
					t.Fatalf("JobFailed err = %v", err)
				}
			}
			e.stop(t) // drains: no further attempt may follow
			if int(calls.Load()) != tc.wantCalls {
				t.Fatalf("calls = %d, want %d", calls.Load(), tc.wantCalls)
			}
			mu.Lock()
			defer mu.Unlock()
			if fmt.Sprint(backoffs) != fmt.Sprint(tc.wantBackoff) {
				t.Fatalf("backoff attempts %v, want %v", backoffs, tc.wantBackoff)
			}
			if n := e.metric(t, "shipgate_job_retries_total", nil); int(n) != len(tc.wantBackoff) {
				t.Fatalf("retries = %v", n)
			}
			if n := e.metric(t, "shipgate_jobs_total", map[string]string{"kind": "evaluate_pr", "outcome": tc.wantOutcome}); n != 1 {
				t.Fatalf("jobs{%s} = %v", tc.wantOutcome, n)
			}
			if n := e.metric(t, "shipgate_job_duration_seconds", map[string]string{"kind": "evaluate_pr"}); n != 1 {
				t.Fatalf("duration samples = %v", n)
			}
			if len(dropped) != 0 || len(p.failed) != 0 {
				t.Fatal("failure reported twice")
			}
		})
	}
}

func TestQueueBackoffDelaysRetry(t *testing.T) {
	const delay = 30 * time.Millisecond
	e := newQueue(t, QueueOptions{MaxAttempts: 2, Backoff: func(int) time.Duration { return delay }})
	times := make(chan time.Time, 2)
	var calls atomic.Int32
	e.run(processorFunc(func(context.Context, app.Job) ([]app.Job, error) {
		times <- time.Now()
		if calls.Add(1) == 1 {
			return nil, errors.New("transient")
		}
		return nil, nil
	}))
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a")}); err != nil {
		t.Fatal(err)
	}
	first, second := wait(t, times, "attempt 1"), wait(t, times, "attempt 2")
	e.stop(t)
	if gap := second.Sub(first); gap < delay {
		t.Fatalf("retry after %s, want ≥ %s", gap, delay)
	}
}

func TestQueueNewerJobSupersedesRetry(t *testing.T) {
	var backoffCalls atomic.Int32
	e := newQueue(t, QueueOptions{MaxAttempts: 5, Backoff: func(int) time.Duration { backoffCalls.Add(1); return 0 }})
	started := make(chan string, 4)
	release := make(chan struct{})
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		started <- j.HeadSHA
		if j.HeadSHA == "a" {
			<-release
			return nil, errors.New("transient")
		}
		return nil, nil
	}))
	ctx := context.Background()
	_ = e.q.Enqueue(ctx, []app.Job{prJob(1, "a")})
	wait(t, started, "a")
	_ = e.q.Enqueue(ctx, []app.Job{prJob(1, "b")})
	close(release)
	if h := wait(t, started, "b"); h != "b" {
		t.Fatalf("ran %s after a failed, want the newer b (no retry of a)", h)
	}
	e.stop(t)
	// The backoff may be computed before the store finds the newer job
	// (one atomic step decides); what matters is that a never ran again.
	if r := e.metric(t, "shipgate_job_retries_total", nil); r != 0 || len(started) != 0 {
		t.Fatalf("a was retried (retries %v, backoff calls %d, extra %d)", r, backoffCalls.Load(), len(started))
	}
}

func TestExponentialBackoff(t *testing.T) {
	low := ExponentialBackoff(time.Second, 10*time.Second, func() float64 { return 0 })
	high := ExponentialBackoff(time.Second, 10*time.Second, func() float64 { return 0.999999 })
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, step := range want {
		attempt := i + 1
		if got := low(attempt); got != step/2 {
			t.Errorf("attempt %d low = %s, want %s", attempt, got, step/2)
		}
		if got := high(attempt); got <= step*9/10 || got > step {
			t.Errorf("attempt %d high = %s, want just under %s", attempt, got, step)
		}
	}
	if d := ExponentialBackoff(0, time.Second, nil)(3); d != 0 {
		t.Errorf("zero base = %s", d)
	}
	def := ExponentialBackoff(DefaultBackoffBase, DefaultBackoffMax, nil)
	for attempt := 1; attempt < 40; attempt++ {
		if d := def(attempt); d < DefaultBackoffBase/2 || d > DefaultBackoffMax {
			t.Fatalf("attempt %d default = %s out of bounds", attempt, d)
		}
	}
}

func TestQueueFollowUps(t *testing.T) {
	e := newQueue(t, QueueOptions{Workers: 2})
	got := make(chan app.Job, 4)
	parent := app.Job{Kind: app.KindReevaluateRepo, DeliveryID: "push-1", Event: "push", InstallationID: 1,
		Owner: "o", Repo: "r", ReceivedAt: time.Now()}
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		if j.Kind == app.KindReevaluateRepo {
			return []app.Job{
				{Kind: app.KindEvaluatePR, InstallationID: 1, Owner: "o", Repo: "r", PRNumber: 7},
				{Kind: app.KindEvaluatePR, InstallationID: 1, Owner: "o", Repo: "r", PRNumber: 8},
			}, nil
		}
		got <- j
		return nil, nil
	}))
	if err := e.q.Enqueue(context.Background(), []app.Job{parent}); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for range 2 {
		j := wait(t, got, "follow-up")
		seen[j.PRNumber] = true
		if j.DeliveryID != "push-1" || j.Event != "push" || !j.ReceivedAt.Equal(parent.ReceivedAt) {
			t.Errorf("follow-up did not inherit delivery fields: %+v", j)
		}
	}
	e.stop(t)
	if !seen[7] || !seen[8] {
		t.Fatalf("follow-ups run: %v", seen)
	}
}

func TestQueueFollowUpsRefusedRetryParent(t *testing.T) {
	e := newQueue(t, QueueOptions{Capacity: 1, Workers: 1, MaxAttempts: 3})
	got := make(chan app.Job, 4)
	var parentCalls atomic.Int32
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		if j.Kind != app.KindReevaluateRepo {
			got <- j
			return nil, nil
		}
		if parentCalls.Add(1) == 1 { // two new keys do not fit a capacity of one
			return []app.Job{prJob(7, "x"), prJob(8, "y")}, nil
		}
		return []app.Job{prJob(7, "x")}, nil
	}))
	err := e.q.Enqueue(context.Background(), []app.Job{{Kind: app.KindReevaluateRepo, InstallationID: 1, Owner: "o", Repo: "r"}})
	if err != nil {
		t.Fatal(err)
	}
	if j := wait(t, got, "follow-up after the parent's retry"); j.PRNumber != 7 {
		t.Fatalf("ran %+v", j)
	}
	e.stop(t)
	if parentCalls.Load() != 2 {
		t.Fatalf("parent ran %d times, want 2", parentCalls.Load())
	}
	if n := e.metric(t, "shipgate_queue_full_total", nil); n != 1 {
		t.Fatalf("queue_full = %v", n)
	}
	if n := e.metric(t, "shipgate_job_retries_total", nil); n != 1 {
		t.Fatalf("retries = %v", n)
	}
}

func TestQueueGracefulDrain(t *testing.T) {
	e := newQueue(t, QueueOptions{Workers: 2})
	started := make(chan app.Job, 4)
	gate := make(chan struct{})
	var finished atomic.Int32
	e.run(processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
		started <- j
		<-gate
		finished.Add(1)
		return nil, nil
	}))
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a"), prJob(2, "b"), prJob(3, "c")}); err != nil {
		t.Fatal(err)
	}
	wait(t, started, "job 1")
	wait(t, started, "job 2")
	shut := make(chan error, 1)
	go func() { shut <- e.q.Shutdown(context.Background()) }()
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while jobs were still running", err)
	default:
	}
	close(gate)
	if err := wait(t, shut, "Shutdown"); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if finished.Load() != 3 {
		t.Fatalf("Shutdown returned after %d of 3 jobs finished", finished.Load())
	}
	if err := wait(t, e.runE, "Run"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(4, "d")}); !errors.Is(err, ErrQueueClosed) {
		t.Fatalf("enqueue after shutdown: %v", err)
	}
	if err := e.q.Shutdown(context.Background()); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
}

func TestQueueShutdownDeadlineReportsAbandoned(t *testing.T) {
	e := newQueue(t, QueueOptions{Workers: 1})
	started := make(chan app.Job, 2)
	e.run(processorFunc(func(ctx context.Context, j app.Job) ([]app.Job, error) {
		started <- j
		<-ctx.Done() // a slow job that honours cancellation
		return nil, ctx.Err()
	}))
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a"), prJob(2, "b")}); err != nil {
		t.Fatal(err)
	}
	wait(t, started, "job 1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has already passed
	err := e.q.Shutdown(ctx)
	if err == nil || !strings.Contains(err.Error(), "abandoned 1 pending and 1 running") || !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown err = %v", err)
	}
	if err := wait(t, e.runE, "Run"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	logs := e.logs.String()
	for _, want := range []string{`"msg":"job abandoned: it never ran"`, `"key":"1/o/r#2"`,
		`"msg":"job abandoned at shutdown: still running, its context is cancelled"`, `"key":"1/o/r#1"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s", want)
		}
	}
	if len(started) != 0 {
		t.Fatal("the pending job ran after the deadline")
	}
	if n := e.metric(t, "shipgate_jobs_total", map[string]string{"kind": "evaluate_pr", "outcome": "abandoned"}); n != 2 {
		t.Fatalf("abandoned = %v, want 2", n)
	}
}

func TestQueueRunContextCancelled(t *testing.T) {
	e := newQueue(t, QueueOptions{Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 1)
	go func() {
		e.runE <- e.q.Run(ctx, processorFunc(func(jctx context.Context, _ app.Job) ([]app.Job, error) {
			started <- struct{}{}
			<-jctx.Done()
			return nil, jctx.Err()
		}))
	}()
	_ = e.q.Enqueue(context.Background(), []app.Job{prJob(1, "a"), prJob(2, "b")})
	wait(t, started, "job 1")
	cancel()
	err := wait(t, e.runE, "Run")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "1 pending jobs abandoned") {
		t.Fatalf("Run err = %v", err)
	}
	if !strings.Contains(e.logs.String(), `"key":"1/o/r#2"`) {
		t.Fatal("abandoned pending job not logged by key")
	}
	if err := e.q.Enqueue(context.Background(), []app.Job{prJob(3, "c")}); !errors.Is(err, ErrQueueClosed) {
		t.Fatalf("enqueue after Run ended: %v", err)
	}
	if err := e.q.Run(context.Background(), processorFunc(nil)); err == nil {
		t.Fatal("second Run accepted")
	}
}

func TestNewMemoryQueueValidates(t *testing.T) {
	if _, err := NewMemoryQueue(QueueOptions{Workers: -1}); err == nil {
		t.Fatal("negative workers accepted")
	}
	q, err := NewMemoryQueue(QueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q.store.(*MemoryStore).capacity != DefaultQueueCapacity || q.workers != DefaultWorkers || q.timeout != DefaultJobTimeout || q.maxAttempts != DefaultMaxAttempts {
		t.Fatalf("defaults not applied: %+v", q)
	}
	if err := q.Run(context.Background(), nil); err == nil {
		t.Fatal("nil processor accepted")
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown of an empty, never-run queue: %v", err)
	}
}
