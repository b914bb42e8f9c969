package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/internal/testwait"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
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
		ctx, cancel := context.WithDeadline(context.Background(), testwait.Deadline(t))
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

// TestE2ERefusedDeliveryListedLateIsRedelivered is issue 20 §4: GitHub's
// delivery list is not ordered by arrival, so a refused delivery can be
// listed only after a newer one (higher ID) was seen by a scan. Before,
// the scan's cursor stopped at IDs at or below the newest it had seen, and
// that refusal was never redelivered (its PR waited for the sweep: 623 s).
// Now a scan lists again the deliveries of the Settle window behind the
// newest it saw: the late one is redelivered and its PR gets its run.
// With the in-process queue and with Redis (the cursor kept there).
func TestE2ERefusedDeliveryListedLateIsRedelivered(t *testing.T) {
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			var rc redisConfig
			if backend == "redis" {
				rs := redistest.Start(t)
				rc = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
					DedupTTL: redisqueue.DefaultDedupTTL}
			}
			env := newE2E(t, func(s *e2eSetup) {
				// Two pending jobs fill the queue; a scan asks for at most
				// half of it (one).
				s.cfg.QueueSize, s.cfg.Workers = 2, 1
				s.cfg.RedeliverInterval, s.cfg.RedeliverByTest = time.Hour, true // scanned by the test only
				s.cfg.Redis = rc
			})
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			// The first job holds the only worker, the next two fill the queue.
			env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: 2 * time.Second, Times: 1})
			first := env.openPR("svc", "first", map[string]string{"docs/x.md": "x\n"})
			env.eventually("the first job running", func() (bool, string) {
				n := env.metric("shipgate_queue_running", "")
				return n == 1 && env.srv.queue.Depth() == 0, fmt.Sprint(n, " running, depth ", env.srv.queue.Depth())
			})
			second := env.openPR("svc", "second", map[string]string{"docs/x.md": "x\n"})
			third := env.openPR("svc", "third", map[string]string{"docs/x.md": "x\n"})
			// The third PR's delivery is refused, and GitHub lists it late.
			env.gh.HideDeliveryAttempts(func(d githubtest.Delivery) bool { return d.Event == "pull_request" && d.StatusCode == 503 })
			late := env.openPR("svc", "late", map[string]string{"docs/x.md": "late\n"})
			env.gh.HideDeliveryAttempts(nil)
			refused := 0
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" && d.StatusCode == http.StatusServiceUnavailable {
					refused++
				}
			}
			if refused != 1 {
				t.Fatalf("%d deliveries refused, want the one about #%d", refused, late.Number)
			}
			env.waitCompleted("svc", first.HeadSHA, 1)
			env.waitCompleted("svc", second.HeadSHA, 1)
			env.waitCompleted("svc", third.HeadSHA, 1)
			// A newer delivery is queued and listed by a scan while the
			// refused one is not listed yet.
			newer := env.openPR("svc", "newer", map[string]string{"docs/x.md": "newer\n"})
			env.waitCompleted("svc", newer.HeadSHA, 1)
			env.eventually("the queue idle", func() (bool, string) { return env.srv.queue.Depth() == 0, fmt.Sprint(env.srv.queue.Depth()) })
			if n, err := env.srv.redeliver.Scan(context.Background()); err != nil || n != 0 {
				t.Fatalf("scan with the refused delivery not listed: %d asked, %v; want 0", n, err)
			}
			if n := env.gh.RevealDeliveryAttempts(); n != 1 {
				t.Fatalf("revealed %d attempts, want the refused one", n)
			}
			asked, err := env.srv.redeliver.Scan(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("a refused delivery listed after a newer one was scanned: %d redelivery asked by the next scan", asked)
			if asked != 1 {
				t.Fatalf("the scan after the refused delivery appeared asked %d redeliveries, want 1", asked)
			}
			if r := env.waitCompleted("svc", late.HeadSHA, 1); r.Conclusion != "success" {
				t.Fatalf("#%d: %s %q", late.Number, r.Conclusion, r.Title)
			}
			env.noneInProgress("svc")
		})
	}
}
