package main

// The load harness: thousands of signed pull_request deliveries, sent by
// this test's own HTTP client at high concurrency, to the real App server
// backed by the fake GitHub. It is not part of the default run; see
// docs/scaling.md:
//
//	SHIPGATE_LOAD=1 go test -run '^TestLoad$' -v -count=1 ./cmd/shipgate

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/webhook"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// loadConfig is the shape of a load run; every field has an environment
// variable (see loadConfigFromEnv).
type loadConfig struct {
	Deliveries  int           // signed deliveries sent in all (SHIPGATE_LOAD_DELIVERIES, 2000)
	PRs         int           // pull requests they are about (SHIPGATE_LOAD_PRS, 400)
	Repos       int           // repositories the PRs spread over (SHIPGATE_LOAD_REPOS, 10)
	Concurrency int           // concurrent client connections (SHIPGATE_LOAD_CONCURRENCY, 200)
	Workers     int           // the App's evaluation workers (SHIPGATE_LOAD_WORKERS, 4 = serve's default)
	DupPercent  int           // share of deliveries that repeat an earlier GUID (SHIPGATE_LOAD_DUP_PERCENT, 10)
	PushGap     time.Duration // longest random pause between a PR's pushes (SHIPGATE_LOAD_PUSH_GAP, 5ms)
	Timeout     time.Duration // for everything to complete (SHIPGATE_LOAD_TIMEOUT, 5m)
}

func loadConfigFromEnv(t *testing.T) loadConfig {
	num := func(k string, def int) int {
		if v := os.Getenv(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				t.Fatalf("%s=%q: want a non-negative number", k, v)
			}
			return n
		}
		return def
	}
	dur := func(k string, def time.Duration) time.Duration {
		if v := os.Getenv(k); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				t.Fatalf("%s=%q: %v", k, v, err)
			}
			return d
		}
		return def
	}
	c := loadConfig{
		Deliveries: num("SHIPGATE_LOAD_DELIVERIES", 2000), PRs: num("SHIPGATE_LOAD_PRS", 400),
		Repos: num("SHIPGATE_LOAD_REPOS", 10), Concurrency: num("SHIPGATE_LOAD_CONCURRENCY", 200),
		Workers: num("SHIPGATE_LOAD_WORKERS", 4), DupPercent: num("SHIPGATE_LOAD_DUP_PERCENT", 10),
		PushGap: dur("SHIPGATE_LOAD_PUSH_GAP", 5*time.Millisecond), Timeout: dur("SHIPGATE_LOAD_TIMEOUT", 5*time.Minute),
	}
	if c.PRs < 1 || c.Repos < 1 || c.Concurrency < 1 || c.Deliveries < c.PRs {
		t.Fatalf("load config %+v: need PRs, repos and concurrency ≥ 1 and at least one delivery per PR", c)
	}
	return c
}

// loadPR is one pull request of the run and what is sent about it.
type loadPR struct {
	repo       string
	number     int
	kind       string // what its settings change does
	conclusion string // the check's expected conclusion
	opened     map[string]any
	syncs      int // synchronize deliveries to send
	dups       int // duplicate deliveries to send
	finalHead  string
	sentAt     map[string]time.Time // head SHA → when its delivery was sent
}

// loadKinds are the PR kinds, in rotation: what the head's settings are
// and the conclusion they must get.
var loadKinds = []struct {
	name, conclusion string
	files            func() map[string]string
}{
	{"docs", "success", func() map[string]string { return map[string]string{"docs/guide.md": "# guide\n"} }},
	{"widen", "action_required", func() map[string]string {
		return map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)}
	}},
	{"narrow", "success", func() map[string]string {
		return map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test)"), baseDeny)}
	}},
	{"block", "failure", func() map[string]string {
		return map[string]string{".claude/settings.json": settingsJSON(append(baseAllow, "Bash(npx:*)"), baseDeny)}
	}},
	{"respell", "success", func() map[string]string {
		return map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test *)"), baseDeny)}
	}},
}

// completions records when the App learnt that a check run completed, by
// head SHA, from GitHub's answers to its create and update requests.
type completions struct {
	base http.RoundTripper
	mu   sync.Mutex
	at   map[string]time.Time
}

func (c *completions) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil || (req.Method != http.MethodPost && req.Method != http.MethodPatch) ||
		!strings.Contains(req.URL.Path, "/check-runs") || resp.StatusCode >= 300 {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	var run struct {
		HeadSHA string `json:"head_sha"`
		Status  string `json:"status"`
	}
	if json.Unmarshal(body, &run) == nil && run.Status == "completed" {
		now := time.Now()
		c.mu.Lock()
		if _, ok := c.at[run.HeadSHA]; !ok {
			c.at[run.HeadSHA] = now
		}
		c.mu.Unlock()
	}
	return resp, nil
}

func (c *completions) get(sha string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.at[sha]
	return t, ok
}

// memPeak samples the process's memory while the load runs.
type memPeak struct {
	mu                 sync.Mutex
	heapInuse, sys     uint64
	goroutines, sample int
}

func (m *memPeak) run(ctx context.Context) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m.mu.Lock()
		m.heapInuse, m.sys = max(m.heapInuse, ms.HeapInuse), max(m.sys, ms.Sys)
		m.goroutines = max(m.goroutines, runtime.NumGoroutine())
		m.sample++
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// vmHWM is the process's peak resident set size from /proc/self/status
// ("" where there is no /proc).
func vmHWM() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}

func writeHeapProfile(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		t.Fatal(err)
	}
}

// ackQuantiles reads the server-side acknowledgement histogram
// (shipgate_webhook_ack_seconds, all codes) from /metrics and returns its
// p50 and p99, interpolated linearly inside the bucket (as Prometheus'
// histogram_quantile does), and the number of answers.
func ackQuantiles(t *testing.T, env *e2eEnv) (p50, p99 time.Duration, count int) {
	body := env.get("/metrics", http.StatusOK)
	buckets := map[float64]float64{}
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "shipgate_webhook_ack_seconds_bucket{") {
			continue
		}
		i := strings.Index(line, `le="`)
		j := strings.Index(line[i+4:], `"`)
		le, err := strconv.ParseFloat(line[i+4:i+4+j], 64)
		if err != nil { // +Inf
			le = 1e9
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		buckets[le] += v
	}
	les := make([]float64, 0, len(buckets))
	for le := range buckets {
		les = append(les, le)
	}
	slices.Sort(les)
	if len(les) == 0 {
		return 0, 0, 0
	}
	total := buckets[les[len(les)-1]]
	q := func(q float64) time.Duration {
		rank := q * total
		prevLE, prevN := 0.0, 0.0
		for _, le := range les {
			if n := buckets[le]; n >= rank {
				if le == 1e9 {
					le = prevLE
				}
				frac := 0.0
				if n > prevN {
					frac = (rank - prevN) / (n - prevN)
				}
				return time.Duration((prevLE + (le-prevLE)*frac) * float64(time.Second))
			} else {
				prevLE, prevN = le, n
			}
		}
		return 0
	}
	return q(.50), q(.99), int(total)
}

func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// TestLoad sends Deliveries signed pull_request deliveries (opened, then
// several synchronize per PR, some repeated with the same GUID) at
// Concurrency connections to the App backed by the fake GitHub, and
// reports acceptance and end-to-end latency, peak memory and GitHub API
// calls per evaluation. It asserts that every PR ends with exactly one
// completed check run on its final head, with the conclusion its change
// deserves, and that no run is left in progress.
// SHIPGATE_LOAD_HEAP_PROFILE=FILE also writes a heap profile when the last
// delivery has been sent (go tool pprof -sample_index=inuse_space FILE).
// SHIPGATE_LOAD_REDIS=1 runs the App on the shared Redis queue (a private
// redis-server, internal/redistest) instead of the in-process one.
func TestLoad(t *testing.T) {
	if os.Getenv("SHIPGATE_LOAD") == "" {
		t.Skip("load harness: set SHIPGATE_LOAD=1 to run it (see docs/scaling.md)")
	}
	cfg := loadConfigFromEnv(t)
	t.Logf("load config: %+v", cfg)

	key, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	secret := hex.EncodeToString(raw)
	// GitHub's primary limit (5,000 requests an hour per installation)
	// would stop this run after a few hundred evaluations: lift it in the
	// fake. The figures below say how far the real limit goes. No
	// webhook URL: the fake records its own deliveries without sending
	// them; this test is the only sender.
	gh := githubtest.New(githubtest.Options{AppID: 1, AppSlug: "shipgate", AppPublicKey: &key.PublicKey, RateLimit: 100_000_000})
	if gh.Err() != nil {
		t.Fatal(gh.Err())
	}
	defer gh.Close()
	toGitHub := http.DefaultTransport.(*http.Transport).Clone()
	toGitHub.MaxIdleConnsPerHost = 256
	done := &completions{base: toGitHub, at: map[string]time.Time{}}
	logs := &lockedBuffer{}
	var rc redisConfig
	if os.Getenv("SHIPGATE_LOAD_REDIS") != "" {
		rs := redistest.Start(t)
		rc = redisConfig{URL: rs.URL(), Prefix: redisqueue.DefaultPrefix, LeaseTTL: redisqueue.DefaultLeaseTTL, DedupTTL: redisqueue.DefaultDedupTTL}
		t.Logf("job queue: Redis at %s", rs.Addr)
	}
	srv, err := startServer(context.Background(), serveConfig{Listen: "127.0.0.1:0", AppID: 1, PrivateKey: pemKey,
		WebhookSecrets: []string{secret}, GitHubURL: gh.URL() + "/", Workers: cfg.Workers, QueueSize: max(1000, cfg.PRs+100),
		JobTimeout: time.Minute, HTTPTransport: done, Redis: rc,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.shutdown(ctx)
		if t.Failed() {
			t.Logf("App warnings and errors:\n%s", logs.String())
		}
	}()
	env := &e2eEnv{t: t, gh: gh, srv: srv, logs: logs}

	// Set up: repositories, the installation, and the pull requests with
	// their opened deliveries (recorded by the fake, not sent).
	setupStart := time.Now()
	if _, _, err := gh.Install(githubtest.InstallationOptions{Account: e2eOwner, AllRepositories: true}); err != nil {
		t.Fatal(err)
	}
	for r := range cfg.Repos {
		env.repo(fmt.Sprintf("svc-%02d", r), map[string]string{".claude/settings.json": baseSettings, "README.md": "# svc\n"})
	}
	prs := make([]*loadPR, cfg.PRs)
	for i := range prs {
		k := loadKinds[i%len(loadKinds)]
		repo := fmt.Sprintf("svc-%02d", i%cfg.Repos)
		pr := env.openPR(repo, fmt.Sprintf("change-%d", i), k.files())
		prs[i] = &loadPR{repo: repo, number: pr.Number, kind: k.name, conclusion: k.conclusion, finalHead: pr.HeadSHA,
			sentAt: map[string]time.Time{}}
	}
	opened := map[string][]byte{}
	for _, d := range gh.Deliveries() {
		if d.Event == "pull_request" && d.Action == "opened" {
			var p struct {
				Number int
				Repo   struct{ Name string } `json:"repository"`
			}
			if err := json.Unmarshal(d.Payload, &p); err != nil {
				t.Fatal(err)
			}
			opened[fmt.Sprintf("%s#%d", p.Repo.Name, p.Number)] = d.Payload
		}
	}
	for _, p := range prs {
		body := opened[fmt.Sprintf("%s#%d", p.repo, p.number)]
		if body == nil {
			t.Fatalf("no opened delivery recorded for %s#%d", p.repo, p.number)
		}
		if err := json.Unmarshal(body, &p.opened); err != nil {
			t.Fatal(err)
		}
	}
	// Spread the deliveries beyond one opened per PR: DupPercent of all
	// repeat an earlier GUID, the rest are synchronize.
	extra := cfg.Deliveries - cfg.PRs
	dups := cfg.Deliveries * cfg.DupPercent / 100
	dups = min(dups, extra)
	for i := range extra - dups {
		prs[i%len(prs)].syncs++
	}
	for i := range dups {
		prs[(i*7)%len(prs)].dups++
	}
	t.Logf("set up %d repositories, %d pull requests in %s", cfg.Repos, cfg.PRs, time.Since(setupStart).Round(time.Millisecond))

	// The timed run.
	gh.ResetCounts()
	var heapBefore runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapBefore)
	memCtx, stopMem := context.WithCancel(context.Background())
	peak := &memPeak{}
	memDone := make(chan struct{})
	go func() { defer close(memDone); peak.run(memCtx) }()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency, MaxConnsPerHost: cfg.Concurrency},
		Timeout: 30 * time.Second}
	var (
		mu       sync.Mutex
		accept   []time.Duration
		outcomes = map[string]int{}
		failures []string
	)
	send := func(guid string, body []byte) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/webhook", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", guid)
		req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(secret), body))
		start := time.Now()
		resp, err := client.Do(req)
		lat := time.Since(start)
		outcome := "error"
		if err == nil {
			var r struct{ Status string }
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			_ = json.Unmarshal(b, &r)
			outcome = fmt.Sprintf("%d %s", resp.StatusCode, r.Status)
		}
		mu.Lock()
		defer mu.Unlock()
		accept = append(accept, lat)
		outcomes[outcome]++
		if err != nil {
			failures = append(failures, err.Error())
		}
	}
	newGUID := func() string {
		var b [16]byte
		_, _ = rand.Read(b[:])
		h := hex.EncodeToString(b[:])
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	}
	// One PR's deliveries go out in order (as GitHub sends one per push);
	// PRs run concurrently.
	sendPR := func(p *loadPR, rng *mrand.Rand) {
		type sent struct {
			guid string
			body []byte
		}
		var history []sent
		emit := func(action, head, before string) {
			pl := make(map[string]any, len(p.opened))
			for k, v := range p.opened {
				pl[k] = v
			}
			pr := make(map[string]any)
			for k, v := range p.opened["pull_request"].(map[string]any) {
				pr[k] = v
			}
			h := make(map[string]any)
			for k, v := range pr["head"].(map[string]any) {
				h[k] = v
			}
			h["sha"] = head
			pr["head"] = h
			pl["pull_request"], pl["action"] = pr, action
			if action == "synchronize" {
				pl["before"], pl["after"] = before, head
			}
			body, err := json.Marshal(pl)
			if err != nil {
				t.Error(err)
				return
			}
			s := sent{newGUID(), body}
			history = append(history, s)
			mu.Lock()
			p.sentAt[head] = time.Now()
			mu.Unlock()
			send(s.guid, s.body)
		}
		emit("opened", p.finalHead, "")
		dupsLeft := p.dups
		for k := range p.syncs {
			if cfg.PushGap > 0 {
				time.Sleep(time.Duration(rng.Int64N(int64(cfg.PushGap))))
			}
			before := p.finalHead
			sha, _, err := gh.Synchronize(e2eOwner, p.repo, p.number, map[string]string{"notes/push.txt": fmt.Sprintf("push %d\n", k)}, "push")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			p.finalHead = sha
			mu.Unlock()
			emit("synchronize", sha, before)
			if dupsLeft > 0 && rng.IntN(2) == 0 {
				d := history[rng.IntN(len(history))]
				send(d.guid, d.body)
				dupsLeft--
			}
		}
		for ; dupsLeft > 0; dupsLeft-- {
			d := history[rng.IntN(len(history))]
			send(d.guid, d.body)
		}
	}

	start := time.Now()
	queue := make(chan *loadPR)
	var wg sync.WaitGroup
	for c := range cfg.Concurrency {
		wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(uint64(c), 42))
			for p := range queue {
				sendPR(p, rng)
			}
		})
	}
	for _, p := range prs {
		queue <- p
	}
	close(queue)
	wg.Wait()
	sendDur := time.Since(start)
	if path := os.Getenv("SHIPGATE_LOAD_HEAP_PROFILE"); path != "" {
		writeHeapProfile(t, path)
	}

	// Wait for every queued job to settle and every final head's run.
	queued := outcomes["202 queued"]
	deadline := time.Now().Add(cfg.Timeout)
	for {
		settled := env.metric("shipgate_jobs_total", "")
		missing := 0
		for _, p := range prs {
			if _, ok := done.get(p.finalHead); !ok {
				missing++
			}
		}
		if int(settled) >= queued && srv.queue.Depth() == 0 && missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v of %d jobs settled, depth %d, %d PRs without a completed run on their final head",
				cfg.Timeout, settled, queued, srv.queue.Depth(), missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
	total := time.Since(start)
	stopMem()
	<-memDone

	// Correctness: one completed run per final head, the right conclusion,
	// nothing in progress anywhere.
	runs, completed := 0, 0
	for r := range cfg.Repos {
		for _, run := range gh.CheckRuns(e2eOwner, fmt.Sprintf("svc-%02d", r), githubtest.CheckRunFilter{Name: "shipgate"}) {
			runs++
			if run.Status != "completed" {
				t.Errorf("run %d on %.8s left %s", run.ID, run.HeadSHA, run.Status)
				continue
			}
			completed++
		}
	}
	var e2e []time.Duration
	for _, p := range prs {
		got := env.runs(p.repo, p.finalHead)
		if len(got) != 1 {
			t.Errorf("%s#%d: %d runs on its final head, want exactly 1", p.repo, p.number, len(got))
			continue
		}
		if got[0].Conclusion != p.conclusion {
			t.Errorf("%s#%d (%s): %s %q, want %s", p.repo, p.number, p.kind, got[0].Conclusion, got[0].Title, p.conclusion)
		}
		for head, sentAt := range p.sentAt {
			if at, ok := done.get(head); ok {
				e2e = append(e2e, at.Sub(sentAt))
			}
		}
	}
	if n := outcomes["202 queued"] + outcomes["202 duplicate"]; n != cfg.Deliveries {
		t.Errorf("outcomes %v: %d of %d deliveries accepted", outcomes, n, cfg.Deliveries)
	}
	if len(failures) > 0 {
		t.Errorf("%d client errors, first: %s", len(failures), failures[0])
	}

	// Figures.
	calls, routes := 0, map[string]int{}
	for _, rc := range gh.Requests() {
		calls += rc.Count
		routes[rc.Method+" "+rc.Route] += rc.Count
	}
	var routeList []string
	for r, n := range routes {
		routeList = append(routeList, fmt.Sprintf("%s ×%d", r, n))
	}
	slices.Sort(routeList)
	succeeded := env.metric("shipgate_jobs_total", `outcome="succeeded"`)
	superseded := env.metric("shipgate_jobs_total", `outcome="superseded"`)
	mb := func(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	t.Logf("deliveries: %d sent in %s at %d connections (%.0f/s accepted); outcomes %v",
		len(accept), sendDur.Round(time.Millisecond), cfg.Concurrency, float64(len(accept))/sendDur.Seconds(), outcomes)
	t.Logf("acceptance latency (to the 202): p50 %s, p99 %s, max %s",
		percentile(accept, .50).Round(time.Microsecond), percentile(accept, .99).Round(time.Microsecond), slices.Max(accept).Round(time.Microsecond))
	p50, p99, n := ackQuantiles(t, env)
	t.Logf("acceptance latency server-side (shipgate_webhook_ack_seconds, %d answers, bucket-interpolated): p50 %s, p99 %s",
		n, p50.Round(time.Microsecond), p99.Round(time.Microsecond))
	t.Logf("end-to-end (delivery sent → its head's run completed, %d heads): p50 %s, p99 %s, max %s",
		len(e2e), percentile(e2e, .50).Round(time.Millisecond), percentile(e2e, .99).Round(time.Millisecond), slices.Max(e2e).Round(time.Millisecond))
	t.Logf("all %d PRs final in %s (%.0f PRs/s); jobs: %d queued, %.0f run to the end, %.0f superseded in the queue",
		cfg.PRs, total.Round(time.Millisecond), float64(cfg.PRs)/total.Seconds(), queued, succeeded, superseded)
	t.Logf("check runs: %d (all completed: %d); GitHub API calls: %d = %.2f per PR, %.2f per check run published",
		runs, completed, calls, float64(calls)/float64(cfg.PRs), float64(calls)/float64(runs))
	t.Logf("API calls by route: %s", strings.Join(routeList, "; "))
	t.Logf("memory (whole test process: App, fake GitHub and load client): HeapInuse before %s, peak %s; Sys peak %s; VmHWM %s; goroutines peak %d (%d samples)",
		mb(heapBefore.HeapInuse), mb(peak.heapInuse), mb(peak.sys), vmHWM(), peak.goroutines, peak.sample)
}
