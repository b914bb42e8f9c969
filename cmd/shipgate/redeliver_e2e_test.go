package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redisqueue"
	"github.com/shipgate-app/shipgate/internal/redistest"
)

// TestE2ERedisRedeliveryIsSharedByReplicas: two replicas on one Redis; the
// shared queue is full (both workers held, two jobs pending), and replica A
// — where GitHub delivers — refuses three deliveries about one pull request
// (it is opened, then pushed to twice). Replica B's redelivery pass, which
// never saw those refusals, asks GitHub to redeliver only the newest of
// them (the refusals are in Redis, read by every scan); the passes after it,
// on either replica, ask for nothing more: one redelivery in all, and the
// pull request gets its run on its final head. A replica working from its
// own copy of the memory would redeliver each of the three in turn.
func TestE2ERedisRedeliveryIsSharedByReplicas(t *testing.T) {
	rs := redistest.Start(t)
	env := newE2E(t, func(s *e2eSetup) {
		s.cfg.QueueSize, s.cfg.Workers = 2, 1
		s.cfg.RedeliverInterval, s.cfg.RedeliverByTest = time.Hour, true // scanned by the test only
		s.cfg.Redis = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
			DedupTTL: redisqueue.DefaultDedupTTL}
	})
	a := env.srv
	b, err := startServer(context.Background(), a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = b.shutdown(ctx)
	})
	queue := a.queue.(*redisqueue.Queue)
	stats := func() string {
		st, err := queue.Stats(context.Background())
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%d pending, %d running", st.Pending, st.Running)
	}
	env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
	// The first two jobs hold both replicas' only workers.
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: 5 * time.Second, Times: 2})
	var heads []string
	for i := range 2 {
		heads = append(heads, env.openPR("svc", fmt.Sprintf("run%d", i), map[string]string{"docs/x.md": "x\n"}).HeadSHA)
	}
	env.eventually("both workers busy", func() (bool, string) { return stats() == "0 pending, 2 running", stats() })
	for i := range 2 {
		heads = append(heads, env.openPR("svc", fmt.Sprintf("wait%d", i), map[string]string{"docs/x.md": "x\n"}).HeadSHA)
	}
	if s := stats(); s != "2 pending, 2 running" {
		t.Fatalf("queue %s, want it full (2 pending, 2 running)", s)
	}
	// Now every delivery about the fifth pull request is refused.
	pr := env.openPR("svc", "refused", map[string]string{"docs/x.md": "y\n"})
	final := pr.HeadSHA
	for k := range 2 {
		if final, _, err = env.gh.Synchronize(e2eOwner, "svc", pr.Number, map[string]string{"docs/x.md": fmt.Sprintf("push %d\n", k)}, "push"); err != nil {
			t.Fatal(err)
		}
	}
	refused := 0
	for _, d := range env.gh.Deliveries() {
		if d.Event == "pull_request" && d.StatusCode == http.StatusServiceUnavailable {
			refused++
		}
	}
	if refused != 3 {
		t.Fatalf("%d deliveries refused, want the 3 about #%d (queue %s)", refused, pr.Number, stats())
	}
	for _, h := range heads {
		env.waitCompleted("svc", h, 1)
	}
	idle := func() {
		// Idle in Redis, and as each replica last read it (the room a scan
		// uses: its depth poll runs every second).
		env.eventually("the shared queue idle", func() (bool, string) {
			return stats() == "0 pending, 0 running" && a.queue.Depth() == 0 && b.queue.Depth() == 0,
				fmt.Sprintf("%s; depth as read by A %d, by B %d", stats(), a.queue.Depth(), b.queue.Depth())
		})
	}
	idle()
	asked, err := b.redeliver.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("replica B's pass asked for %d redeliveries, want 1 (the newest of the 3 refused about #%d)", asked, pr.Number)
	}
	env.waitCompleted("svc", final, 1)
	total := asked
	for i, r := range []*server{a, b, a, b} {
		idle()
		n, err := r.redeliver.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("pass %d after B's (replica %s) asked for %d more redeliveries", i+1, map[bool]string{true: "A", false: "B"}[r == a], n)
		}
		total += n
	}
	redeliveries := 0
	for _, d := range env.gh.Deliveries() {
		if d.Redelivery {
			redeliveries++
		}
	}
	t.Logf("%d deliveries refused by replica A; replica B's pass asked %d redeliveries; %d in all on GitHub", refused, asked, redeliveries)
	if redeliveries != 1 || total != 1 {
		t.Errorf("%d redeliveries on GitHub (%d asked), want exactly 1", redeliveries, total)
	}
	if runs := env.runs("svc", final); len(runs) != 1 || runs[0].Status != "completed" {
		t.Errorf("the final head of #%d has runs %+v, want one completed", pr.Number, runs)
	}
	env.noneInProgress("svc")
}
