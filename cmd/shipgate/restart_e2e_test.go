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

// restartQueue is a queue a restart test runs on.
type restartQueue struct {
	name  string
	setup func(t *testing.T, s *e2eSetup)
	// durable: what it accepted survives a restart (the disk, Redis).
	durable bool
	// store is the queue's shipgate_queue_info{store} label.
	store string
}

// restartQueues are the single-process default (the queue on disk) and
// Redis, and, withMemory, --queue-dir memory (the figure before).
func restartQueues(withMemory bool) []restartQueue {
	qs := []restartQueue{
		{"in-process queue on disk", func(t *testing.T, s *e2eSetup) { s.cfg.QueueDir = t.TempDir() }, true, "disk"},
		{"Redis", func(t *testing.T, s *e2eSetup) {
			rs := redistest.Start(t)
			s.cfg.Redis = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
				DedupTTL: redisqueue.DefaultDedupTTL}
		}, true, "redis"},
	}
	if withMemory {
		qs = append([]restartQueue{{"in-process queue in memory", func(*testing.T, *e2eSetup) {}, false, "memory"}}, qs...)
	}
	return qs
}

// holdEvaluations makes every evaluation wait in its first read of the
// pull request until the App gives up on it (a shutdown cancels it): the
// jobs are still pending or running when the App stops, however fast the
// machine. stopAndRestart lets GitHub answer normally again.
func holdEvaluations(env *e2eEnv) {
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: time.Hour, Times: 1 << 20})
}

// stopAndRestart stops env's App with its grace already over (running
// jobs handed back, or in memory abandoned with the pending ones), lets
// GitHub answer normally again, and starts a new process with the same
// configuration, GitHub's webhook pointing at it.
func stopAndRestart(t *testing.T, env *e2eEnv) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = env.srv.shutdown(ctx)
	env.gh.ClearFaults()
	srv, err := startServer(context.Background(), env.srv.cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.srv = srv // the test's cleanup stops this one
	if err := env.gh.SetWebhook(1, srv.URL()+"/webhook", srv.cfg.WebhookSecrets[0]); err != nil {
		t.Fatal(err)
	}
	return srv
}

// startReplica starts another App process with env's configuration (the
// same Redis: a second replica), stopped when the test ends.
func startReplica(t *testing.T, env *e2eEnv) *server {
	t.Helper()
	srv, err := startServer(context.Background(), env.srv.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithDeadline(context.Background(), testwait.Deadline(t))
		defer cancel()
		_ = srv.shutdown(ctx)
	})
	return srv
}

// notOneRun counts the pull requests whose head has no completed run, and
// those with more than one (each reported as an error).
func notOneRun(t *testing.T, env *e2eEnv, prs []sweptPR) (none, twice int) {
	t.Helper()
	for _, p := range prs {
		switch n := completedRuns(env, p); {
		case n == 0:
			none++
		case n > 1:
			twice++
			t.Errorf("PR #%d (%.8s) has %d completed runs, want 1", p.num, p.head, n)
		}
	}
	return none, twice
}

// TestE2ERestartMidBurstLosesNothing: a burst of pull requests, every
// delivery answered 202, every evaluation held, then SIGTERM with the
// grace over — jobs pending and running — and a restart. With the default
// single-process setup (the queue kept on disk) and with Redis, every pull
// request gets exactly one completed run and none is left in progress.
// The redelivery scan and the sweep are off: nothing but the queue's
// durability can save an accepted delivery here; with the queue in memory
// (the figure before) every pull request stays without a run.
func TestE2ERestartMidBurstLosesNothing(t *testing.T) {
	const prCount = 40
	for _, q := range restartQueues(true) {
		t.Run(q.name, func(t *testing.T) {
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.Workers, s.cfg.QueueSize = 2, 200
				s.cfg.RedeliverInterval = -1 // neither the redelivery scan nor the sweep may hide a loss
				q.setup(t, s)
			})
			if n := env.metric("shipgate_queue_info", `store="`+q.store+`"`); n != 1 {
				t.Errorf("shipgate_queue_info{store=%q} = %v, want 1", q.store, n)
			}
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			holdEvaluations(env)
			var prs []sweptPR
			for i := range prCount {
				p := env.openPR("svc", fmt.Sprintf("b%d", i), map[string]string{".claude/settings.json": settingsJSON([]string{"Bash(npm test:*)", fmt.Sprintf("Bash(make t%d)", i)}, nil)})
				prs = append(prs, sweptPR{repo: "svc", num: p.Number, head: p.HeadSHA})
			}
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" && d.StatusCode != http.StatusAccepted {
					t.Fatalf("delivery %s answered %d, want every one accepted", d.GUID, d.StatusCode)
				}
			}
			srv := stopAndRestart(t, env)
			env.waitQueueIdle(srv)
			lost, twice := notOneRun(t, env, prs)
			t.Logf("%s: %d PRs accepted, none with a run when the App stopped; after the restart %d without a run, %d with two", q.name, len(prs), lost, twice)
			if !q.durable {
				if lost == 0 {
					t.Error("the memory queue lost nothing: the test does not stop the App mid-burst")
				}
				return
			}
			if lost != 0 {
				t.Errorf("%d of %d accepted PRs without a run after the restart", lost, len(prs))
			}
			env.noneInProgress("svc")
		})
	}
}

// TestE2ERestartSweepAndRedeliveryRunEachHeadOnce: a burst larger than the
// queue (some deliveries refused 503), SIGTERM, a restart; then, as after
// a real restart, the startup sweep queues every head without a run and the
// redelivery scan asks GitHub for the refused deliveries again. Every head
// gets exactly one completed run: a redelivered delivery whose head the
// sweep already queued (or ran) is not run a second time.
func TestE2ERestartSweepAndRedeliveryRunEachHeadOnce(t *testing.T) {
	const prCount = 12
	for _, q := range restartQueues(false) {
		t.Run(q.name, func(t *testing.T) {
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.Workers, s.cfg.QueueSize = 1, 3
				s.cfg.RedeliverInterval, s.cfg.RedeliverByTest = time.Hour, true // scanned by the test
				s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1            // swept by the test
				s.cfg.SweepBudget = 100
				q.setup(t, s)
			})
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			holdEvaluations(env) // the queue fills
			var prs []sweptPR
			for i := range prCount {
				p := env.openPR("svc", fmt.Sprintf("b%d", i), map[string]string{"docs/x.md": fmt.Sprintf("%d\n", i)})
				prs = append(prs, sweptPR{repo: "svc", num: p.Number, head: p.HeadSHA})
			}
			refused := 0
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" && d.StatusCode == http.StatusServiceUnavailable {
					refused++
				}
			}
			if refused == 0 {
				t.Fatal("no delivery was refused: the test tests nothing")
			}
			srv := stopAndRestart(t, env)
			// The startup sweep, until every head has a run.
			for range 10 {
				env.waitQueueIdle(srv)
				if len(withoutRun(env, prs)) == 0 {
					break
				}
				if _, err := srv.sweeper.Sweep(context.Background()); err != nil {
					t.Fatalf("sweep: %v", err)
				}
			}
			env.waitQueueIdle(srv)
			if n := len(withoutRun(env, prs)); n != 0 {
				t.Fatalf("%d PRs without a run after the sweeps", n)
			}
			// Then the redelivery scans: GitHub redelivers what was refused
			// (a scan asks for at most half the queue's room).
			asked := 0
			for range 10 {
				n, err := srv.redeliver.Scan(context.Background())
				if err != nil {
					t.Fatalf("redelivery scan: %v", err)
				}
				if n == 0 {
					break
				}
				asked += n
				env.eventually("the redeliveries answered", func() (bool, string) {
					n := 0
					for _, d := range env.gh.Deliveries() {
						if d.Event == "pull_request" && d.Redelivery && d.StatusCode == http.StatusAccepted {
							n++
						}
					}
					return n >= asked, fmt.Sprintf("%d of %d redeliveries answered 202", n, asked)
				})
				env.waitQueueIdle(srv)
			}
			if asked == 0 {
				t.Fatal("the redelivery scan asked for nothing: the test tests nothing")
			}
			env.waitQueueIdle(srv)
			none, twice := notOneRun(t, env, prs)
			if none != 0 {
				t.Errorf("%d PRs without a run", none)
			}
			env.noneInProgress("svc")
			t.Logf("%d PRs, %d deliveries refused, %d redeliveries asked after the restart: %d heads with two completed runs",
				len(prs), refused, asked, twice)
		})
	}
}

// TestE2ERedeliveryAfterRestartReusesTheRun: a pull request of 60 findings
// (its run is created in progress, then appended to); the App stops while
// the run is in progress (GitHub holding the append) and starts again;
// then GitHub redelivers the pull request's delivery (a manual redelivery,
// or one the scan asks for). The head ends with one run, completed: the
// one in progress is adopted, never a second one made beside it. With the
// queue on disk or in Redis the interrupted job itself comes back
// (resumed) and the redelivery is a duplicate; with the queue in memory
// the job died with the process and the redelivery is a new job: before,
// it created a second run and left the first in progress for good (the
// sweep, finding a completed run on the head, looks no further).
func TestE2ERedeliveryAfterRestartReusesTheRun(t *testing.T) {
	many := append([]string(nil), baseAllow...)
	for i := range 60 {
		many = append(many, fmt.Sprintf("Bash(tool%02d *)", i)) // 60 annotations: created in progress, then appended
	}
	for _, q := range restartQueues(true) {
		t.Run(q.name, func(t *testing.T) {
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.Workers = 1
				s.cfg.RedeliverInterval = -1
				q.setup(t, s)
			})
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			// The first append to the run is held until the App gives up.
			env.gh.Inject(githubtest.Fault{Method: "PATCH", PathPattern: routeCheckRun, Latency: time.Hour, Times: 1})
			pr := env.openPR("svc", "change", map[string]string{".claude/settings.json": settingsJSON(many, baseDeny)})
			env.eventually("the run in progress, its append held", func() (bool, string) {
				runs := env.runs("svc", pr.HeadSHA)
				held := len(env.gh.PendingFaults()) == 0
				return len(runs) == 1 && runs[0].Status == "in_progress" && held, fmt.Sprintf("%d runs, append held %v", len(runs), held)
			})
			srv := stopAndRestart(t, env)
			var guid string
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" {
					guid = d.GUID
				}
			}
			d, err := env.gh.Redeliver(guid)
			if err != nil || d.StatusCode != http.StatusAccepted {
				t.Fatalf("redelivery answered %d (%q), %v; want 202", d.StatusCode, d.ResponseBody, err)
			}
			env.waitQueueIdle(srv)
			r := env.waitCompleted("svc", pr.HeadSHA, 1)
			runs := env.runs("svc", pr.HeadSHA)
			t.Logf("%s: the redelivery answered %q; %d runs on the head", q.name, d.ResponseBody, len(runs))
			if len(runs) != 1 {
				t.Errorf("%d runs on the head, want the one that was in progress, completed: %+v", len(runs), runs)
			}
			if r.Conclusion != "action_required" {
				t.Errorf("conclusion %s, want action_required", r.Conclusion)
			}
			env.noneInProgress("svc")
		})
	}
}
