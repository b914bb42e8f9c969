package webhook

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipgate-app/shipgate/app"
)

// fileQueue is a queue over a FileStore in dir, as one App process has.
type fileQueue struct {
	st  *FileStore
	q   *StoreQueue
	reg *prometheus.Registry
}

func openFileQueue(t *testing.T, dir string, opts QueueOptions) *fileQueue {
	t.Helper()
	st, err := OpenFileStore(FileStoreOptions{Dir: dir, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	opts.Metrics, opts.Logger = m, nopLogger()
	if opts.Backoff == nil {
		opts.Backoff = func(int) time.Duration { return 0 }
	}
	q, err := NewStoreQueue(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &fileQueue{st: st, q: q, reg: reg}
}

// TestFileStoreSurvivesARestart: what one process accepted — pending jobs,
// a job it was running when it died, the delivery IDs — is what the next
// process opening the directory finds and runs; the directory is locked
// while a process holds it.
func TestFileStoreSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first := openFileQueue(t, dir, QueueOptions{})
	for i, d := range []string{"g-1", "g-2", "g-3"} {
		if err := first.q.EnqueueDelivery(ctx, d, []app.Job{prJob(i+1, "h1")}); err != nil {
			t.Fatal(err)
		}
	}
	// The process dies while running PR 1's job: its lease is on disk,
	// never settled.
	c, _, err := first.st.Claim(ctx, "dead.1", time.Minute)
	if err != nil || c == nil || c.Job.PRNumber != 1 {
		t.Fatalf("claim: %+v %v", c, err)
	}
	if err := first.st.Close(); err != nil {
		t.Fatal(err)
	}

	second := openFileQueue(t, dir, QueueOptions{Workers: 2})
	defer second.st.Close()
	if got, want := second.st.Loaded, (FileStoreLoad{Pending: 2, Running: 1, Deliveries: 3}); got != want {
		t.Errorf("loaded %+v, want %+v", got, want)
	}
	if _, err := OpenFileStore(FileStoreOptions{Dir: dir, LockTimeout: 50 * time.Millisecond}); err == nil ||
		!strings.Contains(err.Error(), "held by another process") {
		t.Errorf("a second process opening the directory: %v, want refused while it is held", err)
	}
	// GitHub redelivering an accepted delivery is still a duplicate.
	if err := second.q.EnqueueDelivery(ctx, "g-2", []app.Job{prJob(2, "h1")}); !errors.Is(err, ErrDuplicateDelivery) {
		t.Errorf("redelivery of a delivery the last process accepted: %v, want ErrDuplicateDelivery", err)
	}
	var mu sync.Mutex
	var ran []int
	done := make(chan struct{}, 3)
	runE := make(chan error, 1)
	go func() {
		runE <- second.q.Run(ctx, processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
			mu.Lock()
			ran = append(ran, j.PRNumber)
			mu.Unlock()
			done <- struct{}{}
			return nil, nil
		}))
	}()
	for range 3 {
		wait(t, done, "the jobs the last process left")
	}
	if err := second.q.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, runE, "Run to return"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	slices.Sort(ran)
	if !slices.Equal(ran, []int{1, 2, 3}) {
		t.Errorf("ran PRs %v, want 1, 2 and 3 once each", ran)
	}
	mu.Unlock()
	if n := metricValue(t, second.reg, "shipgate_jobs_recovered_total", nil); n != 1 {
		t.Errorf("jobs_recovered_total %v, want 1 (the job running when the process died)", n)
	}
	if err := second.st.Close(); err != nil {
		t.Fatal(err)
	}
	third := openFileQueue(t, dir, QueueOptions{})
	defer third.st.Close()
	if l := third.st.Loaded; l.Pending != 0 || l.Running != 0 {
		t.Errorf("after a clean run the directory still holds %+v", l)
	}
}

// TestFileStoreShutdownHandsBackToTheNextProcess: SIGTERM with a job still
// running at the end of the grace hands it back on disk, its attempt not
// counted, with the pending job behind it; both run in the next process.
func TestFileStoreShutdownHandsBackToTheNextProcess(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first := openFileQueue(t, dir, QueueOptions{Workers: 1})
	started := make(chan struct{}, 1)
	runE := make(chan error, 1)
	go func() {
		runE <- first.q.Run(ctx, processorFunc(func(ctx context.Context, _ app.Job) ([]app.Job, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}))
	}()
	if err := first.q.EnqueueDelivery(ctx, "g-1", []app.Job{prJob(1, "slow")}); err != nil {
		t.Fatal(err)
	}
	wait(t, started, "the slow job")
	if err := first.q.EnqueueDelivery(ctx, "g-2", []app.Job{prJob(2, "next")}); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := first.q.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown past its grace: %v, want the deadline", err)
	}
	// Still accepting while it stops: the jobs are on disk for the next one.
	if err := first.q.EnqueueDelivery(ctx, "g-3", []app.Job{prJob(3, "late")}); err != nil {
		t.Errorf("a delivery during shutdown: %v, want stored", err)
	}
	wait(t, runE, "Run to return")
	if err := first.st.Close(); err != nil {
		t.Fatal(err)
	}
	second := openFileQueue(t, dir, QueueOptions{})
	defer second.st.Close()
	if l := second.st.Loaded; l.Pending != 3 || l.Running != 0 {
		t.Fatalf("loaded %+v, want the handed-back job and the two pending", l)
	}
	var attempts []int
	for i := range 3 {
		c, _, err := second.st.Claim(ctx, "next."+string(rune('a'+i)), time.Minute)
		if err != nil || c == nil {
			t.Fatalf("claim %d: %+v %v", i, c, err)
		}
		attempts = append(attempts, c.Attempt)
	}
	if !slices.Equal(attempts, []int{1, 1, 1}) {
		t.Errorf("attempts %v, want [1 1 1] (a hand-back is not counted)", attempts)
	}
}

// TestFileStoreKeepsTheSweepCursor: the sweep's cursor — where each
// installation resumes, those done in the cycle, the next to serve — is
// what the next process reads; a complete sweep's zero cursor too.
func TestFileStoreKeepsTheSweepCursor(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	want := app.SweepCursor{Next: 3, Done: []int64{1}, Installations: map[int64]app.InstallationCursor{
		2: {Repo: "acme/web", RepoPage: 2, PRPage: 3, PR: 41}, 3: {}}}
	for i, save := range []app.SweepCursor{want, {}} {
		st, err := OpenFileStore(FileStoreOptions{Dir: dir, LockTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SaveSweepCursor(ctx, save); err != nil {
			t.Fatal(err)
		}
		st.Close()
		st, err = OpenFileStore(FileStoreOptions{Dir: dir, LockTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.LoadSweepCursor(ctx)
		st.Close()
		if err != nil || !reflect.DeepEqual(got, save) {
			t.Errorf("save %d: after a restart %+v %v, want %+v", i, got, err, save)
		}
	}
}
