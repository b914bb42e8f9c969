package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/internal/testwait"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// TestE2ERevokedTokenIsRefreshed: GitHub revokes the installation token the
// App has cached. The next evaluation's first request gets 401; the App
// mints a new token once, sends the request again, and the PR gets its
// check run (before, every attempt failed with 401 and the job was dropped
// with no run).
func TestE2ERevokedTokenIsRefreshed(t *testing.T) {
	env := newE2E(t)
	env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
	first := env.openPR("svc", "first", map[string]string{"docs/a.md": "a\n"})
	if r := env.waitCompleted("svc", first.HeadSHA, 1); r.Conclusion != "success" {
		t.Fatalf("first PR: %s %q", r.Conclusion, r.Title)
	}
	if n := env.gh.RevokeInstallationTokens(40001); n != 1 { // the fake numbers installations from 40001
		t.Fatalf("revoked %d tokens, want the App's one", n)
	}
	env.gh.ResetCounts()
	second := env.openPR("svc", "second", map[string]string{"docs/b.md": "b\n"})
	if r := env.waitCompleted("svc", second.HeadSHA, 1); r.Conclusion != "success" {
		t.Fatalf("second PR after the revocation: %s %q", r.Conclusion, r.Title)
	}
	mints, unauthorized := 0, 0
	for _, rc := range env.gh.Requests() {
		if strings.Contains(rc.Route, "access_tokens") {
			mints += rc.Count
		}
	}
	unauthorized = int(env.metric("shipgate_github_requests_total", `code="401"`))
	if mints != 1 || unauthorized != 1 {
		t.Fatalf("after the revocation: %d tokens minted and %d requests answered 401, want 1 and 1", mints, unauthorized)
	}
	if !strings.Contains(env.logs.String(), "rejected a cached installation token") {
		t.Fatal("no log line about the refreshed token")
	}
	env.noneInProgress("svc")
}

// TestE2EQueueFullBurstIsRedelivered: a burst of deliveries far larger than
// the queue. Many are answered 503 "queue full" (GitHub records them as
// failed and never redelivers on its own); the App remembers the refused
// pull requests, and once the queue has room asks GitHub to redeliver the
// newest refused delivery of each (GET /app/hook/deliveries, POST
// .../attempts). Every PR ends with exactly one completed run on its final
// head. Run with the in-process queue and with the Redis queue.
//
// Larger runs for figures (docs/scaling.md), e.g. the 10,000
// deliveries over 2,000 PRs into the default queue of 1,000:
//
//	SHIPGATE_BURST_REPOS=10 SHIPGATE_BURST_PRS=200 SHIPGATE_BURST_PUSHES=4 SHIPGATE_BURST_QUEUE=1000 \
//	SHIPGATE_BURST_WORKERS=4 SHIPGATE_BURST_LATENCY=50 SHIPGATE_BURST_INTERVAL_MS=1000 SHIPGATE_BURST_BACKENDS=memory \
//	  go test -run TestE2EQueueFullBurstIsRedelivered -v -count=1 ./cmd/shipgate
func TestE2EQueueFullBurstIsRedelivered(t *testing.T) {
	num := func(k string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n >= 0 {
			return n
		}
		return def
	}
	repos, prsPerRepo, pushes := num("SHIPGATE_BURST_REPOS", 2), num("SHIPGATE_BURST_PRS", 15), num("SHIPGATE_BURST_PUSHES", 2)
	queueSize, workers := num("SHIPGATE_BURST_QUEUE", 4), num("SHIPGATE_BURST_WORKERS", 1)
	latency := time.Duration(num("SHIPGATE_BURST_LATENCY", 20)) * time.Millisecond
	interval := time.Duration(num("SHIPGATE_BURST_INTERVAL_MS", 50)) * time.Millisecond
	backends := []string{"memory", "redis"}
	if b := os.Getenv("SHIPGATE_BURST_BACKENDS"); b != "" {
		backends = strings.Split(b, ",")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			var rc redisConfig
			if backend == "redis" {
				srv := redistest.Start(t)
				rc = redisConfig{URL: srv.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL,
					DedupTTL: redisqueue.DefaultDedupTTL}
			}
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.QueueSize, s.cfg.Workers = queueSize, workers
				// Large bursts would spend GitHub's 5,000 requests an hour per
				// installation (as TestLoad, lift it; the figures say how far it goes).
				s.fake.RateLimit = 100_000_000
				s.cfg.RedeliverInterval = interval
				s.cfg.Redis = rc
			})
			for r := range repos {
				env.repo(fmt.Sprintf("svc-%d", r), map[string]string{".claude/settings.json": baseSettings})
			}
			// Every evaluation is slow, so the burst outruns the single worker.
			if latency > 0 {
				env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePull, Latency: latency, Times: 1 << 20})
			}
			start := time.Now()
			type pr struct {
				repo string
				pr   githubtest.PullRequest
				head string
			}
			var all []*pr
			for r := range repos {
				repo := fmt.Sprintf("svc-%d", r)
				for i := range prsPerRepo {
					p := env.openPR(repo, fmt.Sprintf("b%d", i), map[string]string{"docs/x.md": "x\n"})
					all = append(all, &pr{repo: repo, pr: p, head: p.HeadSHA})
				}
			}
			for k := range pushes {
				for _, p := range all {
					sha, _, err := env.gh.Synchronize(e2eOwner, p.repo, p.pr.Number, map[string]string{"docs/x.md": fmt.Sprintf("push %d\n", k)}, "push")
					if err != nil {
						t.Fatal(err)
					}
					p.head = sha
				}
			}
			refused := 0
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" && !d.Redelivery && d.StatusCode == http.StatusServiceUnavailable {
					refused++
				}
			}
			if refused == 0 {
				t.Fatal("the burst never filled the queue: the test does not test anything")
			}
			// Every final head gets its completed run, however long a large
			// burst takes to drain.
			deadline := testwait.Deadline(t)
			for {
				missing := 0
				for _, p := range all {
					done := false
					for _, r := range env.runs(p.repo, p.head) {
						if r.Status == "completed" {
							done = true
							if r.Conclusion != "success" {
								t.Fatalf("%s#%d: %s %q", p.repo, p.pr.Number, r.Conclusion, r.Title)
							}
						}
					}
					if !done {
						missing++
					}
				}
				if missing == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d PRs have no completed run on their final head; depth %d; redeliveries asked %v",
						missing, len(all), env.srv.queue.Depth(), env.metric("shipgate_redeliveries_total", `outcome="asked"`))
				}
				time.Sleep(100 * time.Millisecond)
			}
			asked := env.metric("shipgate_redeliveries_total", `outcome="asked"`)
			coalesced := env.metric("shipgate_redeliveries_total", `outcome="coalesced"`)
			without := 0 // PRs none of whose first deliveries was queued: before, they never got a run
			firstOK := map[string]bool{}
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" && !d.Redelivery && d.StatusCode == http.StatusAccepted {
					firstOK[prOfPayload(t, d.Payload)] = true
				}
			}
			for _, p := range all {
				if !firstOK[fmt.Sprintf("%s#%d", p.repo, p.pr.Number)] {
					without++
				}
			}
			t.Logf("%d PRs, %d deliveries about them, queue %d, %d workers: %d answered 503 queue full, leaving %d PRs with no delivery queued; "+
				"%v redeliveries asked, %v refused deliveries coalesced into a newer one; every PR's final head completed after %s",
				len(all), len(all)*(1+pushes), queueSize, workers, refused, without, asked, coalesced, time.Since(start).Round(time.Millisecond))
			if asked == 0 || int(asked) > refused {
				t.Fatalf("%v redeliveries for %d refused deliveries", asked, refused)
			}
			for r := range repos {
				env.noneInProgress(fmt.Sprintf("svc-%d", r))
			}
		})
	}
}

// TestE2EAnnotationsAreCapped: a PR adding 400 rules, each a finding, with
// the fake enforcing GitHub's content-creation limits (80 writes a minute).
// Before, every finding became an annotation, 50 per PATCH: 4,000 rules
// made 81 writes in half a second, past the limit. Now a run carries at
// most 150 annotations, the most severe, and says how many more there are.
func TestE2EAnnotationsAreCapped(t *testing.T) {
	env := newE2E(t, func(s *e2eSetup) { s.fake.ContentLimits = githubtest.GitHubContentLimits })
	env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
	allow := append([]string(nil), baseAllow...)
	for i := range 400 {
		allow = append(allow, fmt.Sprintf("Bash(tool%03d:*)", i))
	}
	allow = append(allow, "Bash(*)") // one block among the reviews: it must be annotated
	env.gh.ResetCounts()
	pr := env.openPR("svc", "many", map[string]string{".claude/settings.json": settingsJSON(allow, baseDeny)})
	r := env.waitCompleted("svc", pr.HeadSHA, 1)
	if r.Conclusion != "failure" {
		t.Fatalf("conclusion %s %q, want failure (Bash(*) blocks)", r.Conclusion, r.Title)
	}
	if len(r.Annotations) != 150 {
		t.Fatalf("%d annotations, want the cap of 150", len(r.Annotations))
	}
	if r.Annotations[0].AnnotationLevel != "failure" {
		t.Errorf("first annotation %+v: the block must be kept first", r.Annotations[0])
	}
	if !strings.Contains(r.Summary, "more findings are not annotated") {
		t.Errorf("the summary does not say annotations were left out:\n%.600s", r.Summary)
	}
	writes := 0
	for _, rc := range env.gh.Requests() {
		if strings.Contains(rc.Route, "check-runs") && (rc.Method == "POST" || rc.Method == "PATCH") {
			writes += rc.Count
		}
	}
	if writes > 4 || env.gh.SecondaryLimitHits() != 0 {
		t.Fatalf("%d check-run writes, %d refused by the secondary limit; want at most 4 and none", writes, env.gh.SecondaryLimitHits())
	}
}

// TestE2EWritesArePaced: a burst of PRs on one installation with the fake
// enforcing a scaled-down content-creation limit (4 writes a minute
// unpaced, 4 per 2 s paced). Unpaced, the App's writes run into it (the fake
// refuses them with 403 and Retry-After, as GitHub does); paced at half of
// it, none is refused and every PR gets its run.
func TestE2EWritesArePaced(t *testing.T) {
	// Neither half may depend on how fast a loaded machine runs: unpaced, ten
	// writes meet a limit of four a minute however slowly the PRs open;
	// paced at half the limit, a write would have to arrive seconds late to
	// be counted with the ones after it (the App counts a write when it sends
	// it, GitHub when it arrives).
	for _, paced := range []bool{false, true} {
		t.Run(fmt.Sprintf("paced=%v", paced), func(t *testing.T) {
			limit := []githubtest.ContentLimit{{Window: time.Minute, Max: 4}}
			if paced {
				limit = []githubtest.ContentLimit{{Window: 2 * time.Second, Max: 4}}
			}
			env := newE2E(t, func(s *e2eSetup) {
				s.fake.ContentLimits = limit
				if paced {
					s.cfg.WritePace = []app.WritePace{{Per: limit[0].Window, N: limit[0].Max / 2}}
				}
			})
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			var heads []string
			for i := range 10 {
				heads = append(heads, env.openPR("svc", fmt.Sprintf("b%d", i), map[string]string{"docs/x.md": "x\n"}).HeadSHA)
			}
			if !paced {
				env.eventually("the fake to refuse a write", func() (bool, string) {
					return env.gh.SecondaryLimitHits() > 0, fmt.Sprint(env.gh.SecondaryLimitHits())
				})
				return
			}
			for _, h := range heads {
				if r := env.waitCompleted("svc", h, 1); r.Conclusion != "success" {
					t.Errorf("%.8s: %s %q", h, r.Conclusion, r.Title)
				}
			}
			if hits := env.gh.SecondaryLimitHits(); hits != 0 {
				t.Fatalf("%d writes refused by the secondary limit although paced", hits)
			}
			env.noneInProgress("svc")
		})
	}
}

// prOfPayload is "repo#number" of a pull_request payload.
func prOfPayload(t *testing.T, payload []byte) string {
	var p struct {
		Number int
		Repo   struct{ Name string } `json:"repository"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s#%d", p.Repo.Name, p.Number)
}
