package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/shipgate-app/shipgate/app"
)

// sharedQueue imitates, in memory, the contract of a queue kept in a shared
// store (the Redis queue): it de-duplicates deliveries itself
// (DeliveryQueue), outlives the process (DurableQueue) and can be
// unreachable (ReadyChecker). The Redis queue's own tests run against a
// real Redis; this one only pins the Server's side of the interfaces.
type sharedQueue struct {
	recordingQueue
	mu       sync.Mutex
	seen     map[string]bool
	down     error
	shutdown bool
}

func (q *sharedQueue) EnqueueDelivery(ctx context.Context, id string, jobs []app.Job) error {
	q.mu.Lock()
	if q.down != nil {
		q.mu.Unlock()
		return q.down
	}
	if q.seen[id] {
		q.mu.Unlock()
		return ErrDuplicateDelivery
	}
	q.seen[id] = true
	q.mu.Unlock()
	return q.Enqueue(ctx, jobs)
}

func (q *sharedQueue) Durable() bool { return true }

func (q *sharedQueue) Ready(context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.down
}

func (q *sharedQueue) Shutdown(context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutdown = true
	return nil
}

// refusingDedup fails every reservation, as an unreachable store would.
type refusingDedup struct{}

func (refusingDedup) Reserve(context.Context, string) (bool, error) {
	return false, errors.New("store unreachable")
}
func (refusingDedup) Release(context.Context, string) {}

func TestDeliveryQueueDeduplicatesInsteadOfTheServer(t *testing.T) {
	q := &sharedQueue{seen: map[string]bool{}}
	// The Server's own Deduplicator would fail every delivery: it must not
	// be consulted when the queue de-duplicates.
	env := newTestEnv(t, func(o *Options) { o.Queue = q; o.Deliveries = refusingDedup{} })
	body := mustJSON(t, fixture(t, "pull_request.opened"))
	for i, want := range []string{"queued", "duplicate"} {
		w := serve(env.srv, request("pull_request", "g-1", body))
		if w.Code != http.StatusAccepted || decodeResponse(t, w).Status != want {
			t.Fatalf("delivery %d: %d %s, want 202 %s", i, w.Code, w.Body, want)
		}
	}
	if n := len(q.all()); n != 1 {
		t.Errorf("%d batches, want 1", n)
	}
	q.mu.Lock()
	q.down = errors.New("connection refused")
	q.mu.Unlock()
	if w := serve(env.srv, request("pull_request", "g-2", body)); w.Code != http.StatusServiceUnavailable {
		t.Errorf("store down: %d, want 503", w.Code)
	}
	if w := serve(env.srv, httptestGet("/readyz")); w.Code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the store down: %d, want 503", w.Code)
	}
}

func TestDeduplicatorErrorAnswers503(t *testing.T) {
	env := newTestEnv(t, func(o *Options) { o.Deliveries = refusingDedup{} })
	body := mustJSON(t, fixture(t, "pull_request.opened"))
	if w := serve(env.srv, request("pull_request", "g-1", body)); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", w.Code)
	}
	if len(env.rec.all()) != 0 {
		t.Error("a job was queued without de-duplication")
	}
}

func TestDurableQueueKeepsAcceptingDuringShutdown(t *testing.T) {
	q := &sharedQueue{seen: map[string]bool{}}
	env := newTestEnv(t, func(o *Options) { o.Queue = q })
	if err := env.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w := serve(env.srv, httptestGet("/readyz")); w.Code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while shutting down: %d, want 503", w.Code)
	}
	body := mustJSON(t, fixture(t, "pull_request.opened"))
	w := serve(env.srv, request("pull_request", "g-late", body))
	if w.Code != http.StatusAccepted {
		t.Fatalf("delivery during shutdown: %d %s, want 202 (the shared store keeps it)", w.Code, w.Body)
	}
	if !q.shutdown || len(q.all()) != 1 {
		t.Errorf("shutdown %v, batches %d", q.shutdown, len(q.all()))
	}
	// An in-process queue refuses instead (the job would die with the process).
	mem := newTestEnv(t, nil)
	_ = mem.srv.Shutdown(context.Background())
	if w := serve(mem.srv, request("pull_request", "g-late", body)); w.Code != http.StatusServiceUnavailable {
		t.Errorf("in-process queue during shutdown: %d, want 503", w.Code)
	}
}

func httptestGet(path string) *http.Request { return httptest.NewRequest(http.MethodGet, path, nil) }
