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
	"github.com/shipgate-app/shipgate/webhook"
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
			env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: 40 * time.Millisecond, Times: 1 << 20})
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
