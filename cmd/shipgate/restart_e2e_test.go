package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/webhook"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// TestE2ERestartMidBurstLosesNothing: a burst of pull requests, every
// delivery answered 202, then SIGTERM with a grace far too short for the
// backlog — jobs pending and running — and a restart. With the default
// single-process setup (the queue kept on disk) and with Redis, every pull
// request gets exactly one completed run and none is left in progress. The
// redelivery scan and the sweep are off: nothing but the queue's
// durability can save an accepted delivery here (with the in-memory queue
// the pull requests whose jobs had not run stay without a run).
func TestE2ERestartMidBurstLosesNothing(t *testing.T) {
	const prCount = 40
	for _, tc := range []struct {
		name  string
		queue func(t *testing.T, s *e2eSetup)
	}{
		{"in-process queue on disk", func(t *testing.T, s *e2eSetup) { s.cfg.QueueDir = t.TempDir() }},
		{"Redis", func(t *testing.T, s *e2eSetup) {
			rs := redistest.Start(t)
			s.cfg.Redis = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
				DedupTTL: redisqueue.DefaultDedupTTL}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.Workers, s.cfg.QueueSize = 2, 200
				s.cfg.RedeliverInterval = -1 // neither the redelivery scan nor the sweep may hide a loss
				tc.queue(t, s)
			})
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			// Every evaluation waits in its first read, so the burst
			// outlasts the App's grace.
			env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: 150 * time.Millisecond, Times: 1 << 20})
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
			// SIGTERM: a grace far shorter than the backlog.
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_ = env.srv.shutdown(ctx)
			cancel()
			lost := len(withoutRun(env, prs))
			if lost == 0 {
				t.Fatal("every PR had its run before the App stopped: the test tests nothing")
			}
			srv, err := startServer(context.Background(), env.srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			env.srv = srv // the test's cleanup stops this one
			env.eventually("every PR with a completed run", func() (bool, string) {
				n := len(withoutRun(env, prs))
				return n == 0, fmt.Sprintf("%d of %d PRs without a completed run", n, len(prs))
			})
			st := srv.queue.(interface {
				Stats(context.Context) (webhook.QueueStats, error)
			})
			env.eventually("the queue idle", func() (bool, string) {
				s, err := st.Stats(context.Background())
				return err == nil && s.Pending == 0 && s.Running == 0, fmt.Sprintf("%+v %v", s, err)
			})
			twice := 0
			for _, p := range prs {
				done := 0
				for _, r := range env.runs(p.repo, p.head) {
					if r.Status == "completed" {
						done++
					}
				}
				if done > 1 {
					twice++
					t.Errorf("PR #%d (%.8s) has %d completed runs, want 1", p.num, p.head, done)
				}
			}
			env.noneInProgress("svc")
			t.Logf("%d PRs accepted; %d without a run when the App stopped; after the restart 0 without a run, %d with two", len(prs), lost, twice)
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
	for _, tc := range []struct {
		name  string
		queue func(t *testing.T, s *e2eSetup)
	}{
		{"in-process queue on disk", func(t *testing.T, s *e2eSetup) { s.cfg.QueueDir = t.TempDir() }},
		{"Redis", func(t *testing.T, s *e2eSetup) {
			rs := redistest.Start(t)
			s.cfg.Redis = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
				DedupTTL: redisqueue.DefaultDedupTTL}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.Workers, s.cfg.QueueSize = 1, 3
				s.cfg.RedeliverInterval, s.cfg.RedeliverByTest = time.Hour, true // scanned by the test
				s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1            // swept by the test
				s.cfg.SweepBudget = 100
				tc.queue(t, s)
			})
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			// Evaluations slower than the burst: the queue fills.
			env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: 150 * time.Millisecond, Times: 1 << 20})
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
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_ = env.srv.shutdown(ctx)
			cancel()
			srv, err := startServer(context.Background(), env.srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			env.srv = srv
			// GitHub's webhook points at the App's (new) address.
			if err := env.gh.SetWebhook(1, srv.URL()+"/webhook", srv.cfg.WebhookSecrets[0]); err != nil {
				t.Fatal(err)
			}
			st := srv.queue.(interface {
				Stats(context.Context) (webhook.QueueStats, error)
			})
			idle := func() {
				env.eventually("the queue idle", func() (bool, string) {
					s, err := st.Stats(context.Background())
					return err == nil && s.Pending == 0 && s.Running == 0, fmt.Sprintf("%+v %v", s, err)
				})
			}
			// The startup sweep, until every head has a run.
			for range 10 {
				idle()
				if len(withoutRun(env, prs)) == 0 {
					break
				}
				if _, err := srv.sweeper.Sweep(context.Background()); err != nil {
					t.Fatalf("sweep: %v", err)
				}
			}
			idle()
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
				idle()
			}
			if asked == 0 {
				t.Fatal("the redelivery scan asked for nothing: the test tests nothing")
			}
			idle()
			twice := 0
			for _, p := range prs {
				done := 0
				for _, r := range env.runs(p.repo, p.head) {
					if r.Status == "completed" {
						done++
					}
				}
				if done != 1 {
					twice++
					t.Errorf("PR #%d (%.8s) has %d completed runs, want 1", p.num, p.head, done)
				}
			}
			env.noneInProgress("svc")
			t.Logf("%d PRs, %d deliveries refused, %d redeliveries asked after the restart: %d heads with other than one completed run",
				len(prs), refused, asked, twice)
		})
	}
}
