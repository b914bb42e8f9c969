package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/internal/testwait"
	"github.com/shipgate-app/shipgate/webhook"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// sweptPR is one pull request of a sweep test and its head.
type sweptPR struct {
	owner string // "" is e2eOwner
	repo  string
	num   int
	head  string
}

// completedRuns counts the completed shipgate runs on p's head.
func completedRuns(env *e2eEnv, p sweptPR) int {
	owner := cmp.Or(p.owner, e2eOwner)
	done := 0
	for _, r := range env.gh.CheckRuns(owner, p.repo, githubtest.CheckRunFilter{HeadSHA: p.head, Name: "shipgate"}) {
		if r.Status == "completed" {
			done++
		}
	}
	return done
}

// withoutRun lists the PRs whose head has no completed shipgate run.
func withoutRun(env *e2eEnv, prs []sweptPR) []sweptPR {
	var out []sweptPR
	for _, p := range prs {
		if completedRuns(env, p) == 0 {
			out = append(out, p)
		}
	}
	return out
}

// waitQueueIdle waits until srv's queue (in process or Redis) has no job
// pending or running.
func (e *e2eEnv) waitQueueIdle(srv *server) {
	e.t.Helper()
	st := srv.queue.(interface {
		Stats(context.Context) (webhook.QueueStats, error)
	})
	e.eventually("the queue idle", func() (bool, string) {
		s, err := st.Stats(context.Background())
		return err == nil && s.Pending == 0 && s.Running == 0, fmt.Sprintf("%+v %v", s, err)
	})
}

// sweepUntilCovered sweeps (as the App's timer does, but now) until every
// PR has a completed run, checking each sweep's API calls against the
// budget; it returns the sweeps made.
func sweepUntilCovered(t *testing.T, env *e2eEnv, srv *server, prs []sweptPR, budget int) []app.SweepResult {
	t.Helper()
	var results []app.SweepResult
	deadline := testwait.Deadline(t)
	for len(withoutRun(env, prs)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d PRs still without a run after %d sweeps: %+v", len(withoutRun(env, prs)), len(results), results)
		}
		// Sweep when the queue is idle (the App's timer does not wait; the
		// test does, so that its figures count no head queued twice).
		if st, ok := srv.queue.(*webhook.StoreQueue); !ok {
			t.Fatalf("queue %T is not the StoreQueue", srv.queue)
		} else {
			if s, err := st.Stats(context.Background()); err == nil && s.Pending == 0 && s.Running == 0 {
				res, err := srv.sweeper.Sweep(context.Background())
				if err != nil {
					t.Fatalf("sweep: %v", err)
				}
				// The budget grows with the backlog a sweep finds, up to 4×.
				if res.Calls > res.Budget || res.Budget > 4*budget {
					t.Fatalf("a sweep made %d API calls, budget %d (base %d)", res.Calls, res.Budget, budget)
				}
				results = append(results, res)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return results
}

// TestE2ESweepLeavesNoPRWithoutARun: deliveries the App never evaluates —
// refused by a full queue (with the redelivery scan off, so only the sweep
// can help), or lost with the in-process queue when the App restarts — leave
// pull requests without a check run; after the sweep (with a small API-call
// budget and small pages, so it paginates and resumes across sweeps) every
// one has a completed run, and nothing is left in progress.
func TestE2ESweepLeavesNoPRWithoutARun(t *testing.T) {
	const budget = 9
	t.Run("queue-full burst", func(t *testing.T) {
		env := newE2E(t, func(s *e2eSetup) {
			s.cfg.QueueSize, s.cfg.Workers = 4, 1
			s.cfg.RedeliverInterval = -1
			s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1 // swept by the test only
			s.cfg.SweepBudget, s.cfg.SweepPerPage = budget, 3
		})
		var prs []sweptPR
		for r := range 2 {
			env.repo(fmt.Sprintf("svc-%d", r), map[string]string{".claude/settings.json": baseSettings})
		}
		env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: 100 * time.Millisecond, Times: 1 << 20})
		for r := range 2 {
			repo := fmt.Sprintf("svc-%d", r)
			for i := range 7 {
				p := env.openPR(repo, fmt.Sprintf("b%d", i), map[string]string{"docs/x.md": "x\n"})
				prs = append(prs, sweptPR{repo: repo, num: p.Number, head: p.HeadSHA})
			}
		}
		refused := 0
		for _, d := range env.gh.Deliveries() {
			if d.Event == "pull_request" && d.StatusCode == http.StatusServiceUnavailable {
				refused++
			}
		}
		// What was queued is evaluated; what was refused is not.
		env.eventually("the queue drained", func() (bool, string) {
			return env.srv.queue.Depth() == 0 && env.metric("shipgate_jobs_total", "") >= float64(len(prs)-refused),
				fmt.Sprintf("depth %d", env.srv.queue.Depth())
		})
		missing := withoutRun(env, prs)
		if refused == 0 || len(missing) == 0 {
			t.Fatalf("%d deliveries refused, %d PRs without a run: the burst did not leave any PR without a run, the test tests nothing", refused, len(missing))
		}
		results := sweepUntilCovered(t, env, env.srv, prs, budget)
		queued := 0
		for _, r := range results {
			queued += r.Queued
		}
		t.Logf("%d PRs, %d deliveries refused, %d PRs without a run; %d sweeps (budget %d calls each) queued %d: %+v",
			len(prs), refused, len(missing), len(results), budget, queued, results)
		if queued < len(missing) {
			t.Errorf("sweeps queued %d, but %d PRs had no run", queued, len(missing))
		}
		if len(results) < 2 {
			t.Errorf("%d sweeps: with a budget of %d calls, covering 2 repositories of 7 PRs must resume across sweeps", len(results), budget)
		}
		// Once every head has a completed run, a sweep queues nothing and,
		// the heads being remembered, costs only the listings (the first
		// may still look up a head whose run was in progress last time).
		env.waitJobs(len(prs) - refused + queued)
		var after []app.SweepResult
		for len(after) < 4 {
			res, err := env.srv.sweeper.Sweep(context.Background())
			if err != nil || res.Queued != 0 {
				t.Fatalf("sweep after everything is covered: %+v %v, want nothing queued", res, err)
			}
			after = append(after, res)
			if res.Complete && res.Checked == 0 {
				break
			}
		}
		if last := after[len(after)-1]; !last.Complete || last.Checked != 0 || last.Calls != 8 {
			t.Errorf("sweeps after everything is covered %+v: want one that completes with only its 8 listings", after)
		}
		for r := range 2 {
			env.noneInProgress(fmt.Sprintf("svc-%d", r))
		}
	})

	t.Run("restart loses the in-process queue", func(t *testing.T) {
		env := newE2E(t, func(s *e2eSetup) {
			s.cfg.Workers = 1
			s.cfg.RedeliverInterval = -1
			s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1
			s.cfg.SweepBudget, s.cfg.SweepPerPage = budget, 3
		})
		env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
		// The first evaluation hangs in its first call, before it creates a
		// run, while the others wait in the in-process queue.
		env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: time.Minute, Times: 1})
		var prs []sweptPR
		for i := range 5 {
			p := env.openPR("svc", fmt.Sprintf("b%d", i), map[string]string{"docs/x.md": "x\n"})
			prs = append(prs, sweptPR{repo: "svc", num: p.Number, head: p.HeadSHA})
		}
		for _, d := range env.gh.Deliveries() {
			if d.Event == "pull_request" && d.StatusCode != http.StatusAccepted {
				t.Fatalf("delivery %s answered %d, want every one queued", d.GUID, d.StatusCode)
			}
		}
		// The App stops (a deploy, a crash) before it evaluated any: the
		// in-process queue's jobs are gone.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_ = env.srv.shutdown(ctx)
		cancel()
		if n := len(withoutRun(env, prs)); n != len(prs) {
			t.Fatalf("%d of %d PRs without a run after the restart, want all", n, len(prs))
		}
		cfg := env.srv.cfg
		srv, err := startServer(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		env.srv = srv // the test's cleanup stops this one
		results := sweepUntilCovered(t, env, srv, prs, budget)
		t.Logf("%d PRs lost with the queue; %d sweeps: %+v", len(prs), len(results), results)
		env.noneInProgress("svc")
	})
}

// TestE2ERedisSweepResumesAcrossReplicas: three installations of 2
// repositories with 4 open pull requests each (24 heads), none of which
// ever reached the App (GitHub could not deliver: the App had no webhook
// URL yet). Two replicas share one Redis and sweep in turn, with a budget
// of 9 API calls and pages of 3, and the first is restarted halfway: every
// head gets a completed run, no sweep passes the budget, and — the cursor
// being Redis's, not a replica's — no head is looked up twice (a replica
// that started over would look up again every head the other one had
// reached: 24 lookups would not be enough).
func TestE2ERedisSweepResumesAcrossReplicas(t *testing.T) {
	const budget = 9
	rs := redistest.Start(t)
	env := newE2E(t, func(s *e2eSetup) {
		s.cfg.Workers = 2
		s.cfg.RedeliverInterval = -1
		s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1 // swept by the test only
		s.cfg.SweepBudget, s.cfg.SweepPerPage = budget, 3
		s.cfg.Redis = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
			DedupTTL: redisqueue.DefaultDedupTTL}
	})
	second := startReplica(t, env)
	// GitHub cannot deliver while the App has no webhook URL.
	if err := env.gh.SetWebhook(1, "", ""); err != nil {
		t.Fatal(err)
	}
	var heads []sweptPR
	for _, owner := range []string{e2eOwner, "beta", "gamma"} {
		heads = append(heads, sweepInstallationPRs(t, env, owner, []string{"svc-0", "svc-1"}, 4)...)
	}
	missing := func() int { return len(withoutRun(env, heads)) }
	if n := missing(); n != len(heads) {
		t.Fatalf("%d of %d heads without a run before the sweeps, want all", n, len(heads))
	}
	replicas := []*server{env.srv, second}
	idle := func() bool {
		st, err := env.srv.queue.(*redisqueue.Queue).Stats(context.Background())
		return err == nil && st.Pending == 0 && st.Running == 0
	}
	var results []app.SweepResult
	checked := 0
	deadline := testwait.Deadline(t)
	for i := 0; ; i++ {
		// Sweep when the shared queue is idle, so no head is in progress
		// (and what the last sweep queued has its run).
		for !idle() {
			if time.Now().After(deadline) {
				t.Fatal("the shared queue never went idle")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if missing() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d heads still without a run after %d sweeps: %+v", missing(), len(results), results)
		}
		if i == 3 {
			// The first replica restarts: a new process, nothing in memory.
			ctx, cancel := context.WithDeadline(context.Background(), testwait.Deadline(t))
			_ = env.srv.shutdown(ctx)
			cancel()
			restarted, err := startServer(context.Background(), env.srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			env.srv, replicas[0] = restarted, restarted
		}
		res, err := replicas[i%2].sweeper.Sweep(context.Background())
		if err != nil {
			t.Fatalf("sweep %d: %v", i, err)
		}
		if res.Calls > res.Budget || res.Budget > 4*budget {
			t.Fatalf("sweep %d made %d API calls, budget %d (base %d)", i, res.Calls, res.Budget, budget)
		}
		results = append(results, res)
		checked += res.Checked
	}
	t.Logf("%d heads; %d sweeps alternating between two replicas (the first restarted before the fourth), %d lookups: %+v",
		len(heads), len(results), checked, results)
	if checked != len(heads) {
		t.Errorf("%d head lookups for %d heads: a sweep did not resume where the previous one (of the other replica) stopped", checked, len(heads))
	}
	grew := false
	for _, r := range results {
		grew = grew || r.Budget > budget
	}
	if !grew {
		t.Errorf("no sweep's budget grew past %d although each stopped early with heads still without a run: %+v", budget, results)
	}
	for _, owner := range []string{e2eOwner, "beta", "gamma"} {
		for r := range 2 {
			repo := fmt.Sprintf("svc-%d", r)
			for _, run := range env.gh.CheckRuns(owner, repo, githubtest.CheckRunFilter{Name: "shipgate"}) {
				if run.Status != "completed" {
					t.Errorf("%s/%s: run %d on %.8s left %s", owner, repo, run.ID, run.HeadSHA, run.Status)
				}
			}
		}
	}
}

// TestE2ESweepSharesItsBudgetAcrossInstallations: two installations, the
// first with 40 open pull requests without a run, the second with 3, none
// of which ever reached the App (no webhook URL). One sweep with a budget of
// 30 API calls covers part of each: every head of the second installation
// is queued by the first sweep. Before, a sweep spent its whole budget on
// the first installation and the second waited until the first was done
// (the next sweep here; after an issue-20 restart, 233 PRs were without a
// run ten minutes on, each sweep covering one installation). And an installation
// GitHub fails to list does not stop the sweep of the others.
func TestE2ESweepSharesItsBudgetAcrossInstallations(t *testing.T) {
	const budget = 30
	for _, tc := range []struct {
		name string
		// fault is injected before the sweep (nil: none).
		fault *githubtest.Fault
	}{
		{"budget shared", nil},
		// The first installation's repositories cannot be listed (a 404
		// is not retried in place).
		{"an installation failing", &githubtest.Fault{Method: "GET", PathPattern: "/installation/repositories", Status: http.StatusNotFound, Times: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.Workers, s.cfg.QueueSize = 2, 400
				s.cfg.RedeliverInterval = -1
				s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1 // swept by the test only
				s.cfg.SweepBudget = budget
			})
			// GitHub cannot deliver while the App has no webhook URL.
			if err := env.gh.SetWebhook(1, "", ""); err != nil {
				t.Fatal(err)
			}
			big := sweepInstallationPRs(t, env, e2eOwner, []string{"big"}, 40)
			small := sweepInstallationPRs(t, env, "beta", []string{"small"}, 3)
			if tc.fault != nil {
				env.gh.Inject(*tc.fault)
			}
			res, err := env.srv.sweeper.Sweep(context.Background())
			if tc.fault == nil && err != nil {
				t.Fatalf("sweep: %v", err)
			}
			if tc.fault != nil && (err == nil || !strings.Contains(err.Error(), "listing the repositories of installation")) {
				t.Fatalf("sweep error %v, want the failing installation's", err)
			}
			if res.Calls > res.Budget || res.Complete {
				t.Fatalf("sweep %+v: want at most its budget of calls, and not complete", res)
			}
			env.waitQueueIdle(env.srv)
			bigLeft, smallLeft := len(withoutRun(env, big)), len(withoutRun(env, small))
			t.Logf("one sweep of %d calls (%+v): %d of %d heads of the first installation and %d of %d of the second still without a run",
				budget, res, bigLeft, len(big), smallLeft, len(small))
			if smallLeft != 0 {
				t.Errorf("%d of %d heads of the second installation without a run after the first sweep: the first installation took the whole budget", smallLeft, len(small))
			}
			if tc.fault == nil && bigLeft == len(big) {
				t.Errorf("no head of the first installation was queued")
			}
			// The next sweeps resume each installation where it stopped:
			// the rest is covered, each head looked up once.
			checked := res.Checked
			for range 10 {
				if len(withoutRun(env, big)) == 0 {
					break
				}
				res, err := env.srv.sweeper.Sweep(context.Background())
				if err != nil {
					t.Fatalf("sweep: %v", err)
				}
				checked += res.Checked
				env.waitQueueIdle(env.srv)
			}
			if n := len(withoutRun(env, big)); n != 0 {
				t.Fatalf("%d heads of the first installation still without a run after 10 sweeps", n)
			}
			if tc.fault == nil && checked != len(big)+len(small) {
				t.Errorf("%d lookups for %d heads: a sweep looked a head up again", checked, len(big)+len(small))
			}
			env.noneInProgress("big")
		})
	}
}

// sweepInstallationPRs makes the repositories of owner, installs the App
// on them (unless owner is e2eOwner, installed already) and opens n pull
// requests in each.
func sweepInstallationPRs(t *testing.T, env *e2eEnv, owner string, repos []string, n int) []sweptPR {
	t.Helper()
	for _, repo := range repos {
		if _, err := env.gh.CreateRepo(githubtest.RepoOptions{Owner: owner, Name: repo, Private: true,
			Files: map[string]string{".claude/settings.json": baseSettings}}); err != nil {
			t.Fatal(err)
		}
	}
	if owner != e2eOwner {
		if _, _, err := env.gh.Install(githubtest.InstallationOptions{Account: owner, Repositories: repos}); err != nil {
			t.Fatal(err)
		}
	}
	var prs []sweptPR
	for i := range n * len(repos) {
		repo := repos[i%len(repos)]
		branch := fmt.Sprintf("b%d", i/len(repos))
		if _, err := env.gh.CreateBranch(owner, repo, branch, "main"); err != nil {
			t.Fatal(err)
		}
		if _, err := env.gh.PushCommit(owner, repo, branch, map[string]string{"docs/x.md": branch + "\n"}, "docs"); err != nil {
			t.Fatal(err)
		}
		pr, _, err := env.gh.OpenPR(githubtest.PROptions{Owner: owner, Repo: repo, Head: branch, Title: branch})
		if err != nil {
			t.Fatal(err)
		}
		prs = append(prs, sweptPR{owner: owner, repo: repo, num: pr.Number, head: pr.HeadSHA})
	}
	return prs
}

// TestE2ESweepClosesAnOrphanBesideACompletedRun: a head with a completed
// run and, newer, one of the App's runs left in progress (an evaluation
// interrupted before the adoption of orphans: made here through the App's
// own client). The newest run is the one branch protection reads, so the
// pull request shows "in progress" for good. Before, the sweep saw the
// completed run and looked no further; now it completes the orphan with the
// completed run's conclusion, and queues nothing.
func TestE2ESweepClosesAnOrphanBesideACompletedRun(t *testing.T) {
	env := newE2E(t, func(s *e2eSetup) {
		s.cfg.RedeliverInterval = -1
		s.cfg.SweepInterval, s.cfg.SweepStart = time.Hour, -1 // swept by the test only
		s.cfg.SweepStaleAfter = time.Nanosecond               // the orphan is stale at once
	})
	env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
	pr := env.openPR("svc", "change", map[string]string{".claude/settings.json": settingsJSON(append(append([]string(nil), baseAllow...), "Bash(make *)"), baseDeny)})
	done := env.waitCompleted("svc", pr.HeadSHA, 1)
	env.waitQueueIdle(env.srv)
	cl, err := env.srv.ready.clients.Installation(done.InstallationID)
	if err != nil {
		t.Fatal(err)
	}
	orphan, _, err := cl.Checks.CreateCheckRun(context.Background(), e2eOwner, "svc", github.CreateCheckRunOptions{
		Name: "shipgate", HeadSHA: pr.HeadSHA, Status: github.String("in_progress"), ExternalID: github.String(fmt.Sprintf("pr:%d", pr.Number)),
		StartedAt: &github.Timestamp{Time: time.Now().Add(-time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.srv.sweeper.Sweep(context.Background())
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	got, _ := env.gh.CheckRunByID(orphan.GetID())
	t.Logf("sweep %+v; the orphan is %s/%s", res, got.Status, got.Conclusion)
	if got.Status != "completed" || got.Conclusion != done.Conclusion {
		t.Errorf("the orphan is %s/%s, want completed with the completed run's %s", got.Status, got.Conclusion, done.Conclusion)
	}
	if res.Queued != 0 {
		t.Errorf("the sweep queued %d jobs for a head with a completed run", res.Queued)
	}
	env.noneInProgress("svc")
}
