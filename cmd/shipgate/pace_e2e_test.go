package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// TestE2ERedisReplicasShareTheWritePace: two replicas on one Redis queue
// and one fake GitHub that enforces a scaled-down content-creation limit
// per installation. GitHub counts an installation's writes whichever
// replica sends them: paced per replica, the two together pass the limit
// (each may send 3 where the fake allows 4 a minute); paced in Redis, they
// share one pace (4 per 3 s against the fake's 6, where two unshared paces
// would send 8) and none is refused. As in TestE2EWritesArePaced, neither
// half's pass depends on the machine's speed.
func TestE2ERedisReplicasShareTheWritePace(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			srv := redistest.Start(t)
			limit := []githubtest.ContentLimit{{Window: time.Minute, Max: 4}}
			pace := []app.WritePace{{Per: time.Minute, N: 3}}
			if shared {
				// Shared, 4 per 3 s against 6 (a margin for writes the App
				// counts when it sends them and GitHub when they arrive);
				// per replica the same pace would let 8 through.
				limit = []githubtest.ContentLimit{{Window: 3 * time.Second, Max: 6}}
				pace = []app.WritePace{{Per: 3 * time.Second, N: 4}}
			}
			env := newE2E(t, func(s *e2eSetup) {
				s.fake.ContentLimits = limit
				s.cfg.WritePace, s.cfg.UnsharedPace = pace, !shared
				s.cfg.Workers = 1
				s.cfg.Redis = redisConfig{URL: srv.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
					DedupTTL: redisqueue.DefaultDedupTTL}
			})
			// The second replica: same configuration, same Redis; GitHub
			// delivers to the first, both run the shared queue's jobs.
			second := startReplica(t, env)
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			var heads []string
			for i := range 10 {
				heads = append(heads, env.openPR("svc", fmt.Sprintf("b%d", i), map[string]string{"docs/x.md": "x\n"}).HeadSHA)
			}
			if !shared {
				// One replica's pace lets 3 writes through and then holds its
				// only worker; the other takes the next jobs and lets 3 more
				// through: 6 in the minute where GitHub allows 4.
				env.eventually("the fake to refuse a write", func() (bool, string) {
					return env.gh.SecondaryLimitHits() > 0, fmt.Sprint(env.gh.SecondaryLimitHits())
				})
				// Jobs wait out their replica's minute: stop both now (the
				// waits end with their contexts; the jobs go back to Redis).
				for _, s := range []*server{env.srv, second} {
					ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
					_ = s.shutdown(ctx)
					cancel()
				}
				return
			}
			for _, h := range heads {
				if r := env.waitCompleted("svc", h, 1); r.Conclusion != "success" {
					t.Errorf("%.8s: %s %q", h, r.Conclusion, r.Title)
				}
			}
			if hits := env.gh.SecondaryLimitHits(); hits != 0 {
				t.Fatalf("%d writes refused by the secondary limit although the replicas share one pace", hits)
			}
			// Both replicas did part of the work (else the test shows nothing).
			a, b := env.metric("shipgate_jobs_total", `outcome="succeeded"`), metricOf(t, second, "shipgate_jobs_total", `outcome="succeeded"`)
			t.Logf("replica 1 ran %v jobs, replica 2 ran %v", a, b)
			if a == 0 || b == 0 {
				t.Errorf("replica jobs %v and %v: both must write for the shared pace to be tested", a, b)
			}
			env.noneInProgress("svc")
		})
	}
}

// metricOf reads a metric from another App server of the test.
func metricOf(t *testing.T, s *server, name, match string) float64 {
	return (&e2eEnv{t: t, srv: s}).metric(name, match)
}
