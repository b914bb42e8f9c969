package redisqueue

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/webhook"
)

// hookLog is GitHub's delivery log of the App, newest first on listing.
type hookLog struct {
	mu         sync.Mutex
	ds         []webhook.HookDelivery
	lists      int
	redelivers []int64
}

func (h *hookLog) List(_ context.Context, _ string, _ int) ([]webhook.HookDelivery, string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lists++
	out := slices.Clone(h.ds)
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, "", nil
}

func (h *hookLog) Redeliver(_ context.Context, id int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.redelivers = append(h.redelivers, id)
	return nil
}

func (h *hookLog) asked() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.redelivers)
}

// TestRedeliveryMemorySurvivesARestart: what a Redeliverer learnt — the
// deliveries the queue refused and their pull requests, the failures not
// yet redelivered, the scan cursor — is in Redis, so the replica that
// starts next resumes: it lists only deliveries newer than the cursor,
// redelivers the failure the last one had no room for, and still knows
// that an older refusal about the same pull request is covered by it. With
// the memory in process only, the restarted one would redeliver that older
// one too.
func TestRedeliveryMemorySurvivesARestart(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	log := &hookLog{ds: []webhook.HookDelivery{
		{ID: 1, GUID: "g1", DeliveredAt: now.Add(-3 * time.Minute), StatusCode: 503, Event: "pull_request"},
		{ID: 2, GUID: "g2", DeliveredAt: now.Add(-2 * time.Minute), StatusCode: 503, Event: "pull_request"},
		{ID: 3, GUID: "g3", DeliveredAt: now.Add(-time.Minute), StatusCode: 503, Event: "pull_request"},
	}}
	pr := func(n int) []app.Job {
		return []app.Job{{Kind: app.KindEvaluatePR, InstallationID: 7, Owner: "acme", Repo: "web", PRNumber: n}}
	}
	room := 1
	start := func(mem webhook.RedeliveryMemory) *webhook.Redeliverer {
		r, err := webhook.NewRedeliverer(webhook.RedelivererOptions{Deliveries: log, Memory: mem, Room: func() int { return room },
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Restore(context.Background()); err != nil {
			t.Fatal(err)
		}
		return r
	}
	ctx := context.Background()
	first := start(NewRedeliveryMemory(e.rdb, "t:{q}:"))
	first.Refused("g1", pr(1))
	first.Refused("g2", pr(1)) // newer, same pull request: g1 needs no redelivery
	first.Refused("g3", pr(2))
	if n, err := first.Scan(ctx); err != nil || n != 1 {
		t.Fatalf("first scan asked %d (%v), want 1 (room for one)", n, err)
	}
	if got := log.asked(); !slices.Equal(got, []int64{3}) {
		t.Fatalf("first scan redelivered %v, want [3] (newest first)", got)
	}
	// g3's redelivery succeeded; then the replica restarts.
	log.mu.Lock()
	log.ds = append(log.ds, webhook.HookDelivery{ID: 4, GUID: "g3", DeliveredAt: now, StatusCode: 202, Redelivery: true, Event: "pull_request"})
	log.mu.Unlock()
	room = 100

	second := start(NewRedeliveryMemory(e.rdb, "t:{q}:"))
	if n, err := second.Scan(ctx); err != nil || n != 1 {
		t.Fatalf("scan after the restart asked %d (%v), want 1", n, err)
	}
	if got := log.asked(); !slices.Equal(got, []int64{3, 2}) {
		t.Errorf("redelivered %v, want [3 2]: g2 (no room before the restart), not g1 (covered by g2)", got)
	}
	// Without the memory in Redis the restarted replica knows none of it.
	log.mu.Lock()
	log.redelivers = nil
	log.mu.Unlock()
	forgetful := start(nil)
	if _, err := forgetful.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if got := log.asked(); !slices.Contains(got, 1) {
		t.Errorf("without the memory, redelivered %v; the test expects g1 (ID 1) among them, which the memory avoids", got)
	}
}

// TestRedeliveryScanLease: one replica scans at a time; the lease is free
// again once released (only by its holder) or expired; with Redis
// unreachable a replica scans anyway.
func TestRedeliveryScanLease(t *testing.T) {
	e := newEnv(t)
	log := slog.New(slog.DiscardHandler)
	a := RedeliveryScanLease(e.rdb, "s:{q}:", "a", time.Minute, log)
	b := RedeliveryScanLease(e.rdb, "s:{q}:", "b", 300*time.Millisecond, log)
	ctx := context.Background()
	releaseA, ok := a(ctx)
	if !ok {
		t.Fatal("the first scan did not get the lease")
	}
	if _, ok := b(ctx); ok {
		t.Fatal("a second replica got the lease while the first scans")
	}
	releaseA()
	releaseB, ok := b(ctx)
	if !ok {
		t.Fatal("the lease was not free after its holder released it")
	}
	releaseA() // a stale release must not free b's lease
	if _, ok := a(ctx); ok {
		t.Fatal("a release by a former holder freed the current holder's lease")
	}
	releaseB()
	// Expiry: b holds it with a short TTL and never releases.
	if _, ok := b(ctx); !ok {
		t.Fatal("b could not take the free lease")
	}
	waitFor(t, "the lease to expire", func() bool {
		rel, ok := a(ctx)
		if ok {
			rel()
		}
		return ok
	})
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer dead.Close()
	if rel, ok := RedeliveryScanLease(dead, "s:{q}:", "c", time.Minute, log)(ctx); !ok {
		t.Error("with Redis unreachable the replica must scan anyway")
	} else {
		rel()
	}
}

// TestRedeliveryCursorTime: the scan cursor's time (TopAt, issue 20 §4) is
// kept in Redis to the millisecond, and an older one never replaces it:
// replicas scanning in turn keep the latest.
func TestRedeliveryCursorTime(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := NewRedeliveryMemory(e.rdb, "c:{q}:")
	at := time.UnixMilli(1_800_000_000_123)
	for _, c := range []webhook.RedeliveryChange{{Top: 7, TopAt: at}, {Top: 5, TopAt: at.Add(-time.Minute)}} {
		if err := m.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	st, err := m.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Top != 7 || !st.TopAt.Equal(at) {
		t.Fatalf("cursor %d at %s, want 7 at %s", st.Top, st.TopAt, at)
	}
}
