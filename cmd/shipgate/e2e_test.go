package main

// End-to-end tests: the real App server (startServer on loopback, real
// HTTP, real HMAC signatures, real go-github and ghinstallation clients)
// against githubtest, the stateful fake GitHub, which sends the signed
// webhook deliveries itself. Every wait polls with a deadline; nothing
// sleeps a fixed time hoping the App is done.

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
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/testwait"
)

// Every wait of the end-to-end tests for something that must happen is
// bounded by the test binary's deadline (testwait.Deadline), not by a
// figure of wall time: 3,000 rules under -race on a machine running
// something else take as long as they take. e2eJobTimeout is the App's
// job timeout in them for the same reason (a case about the timeout sets
// its own).
const e2eJobTimeout = 10 * time.Minute

// e2eOwner is the organisation every test repository belongs to; the App
// is installed on all of its repositories.
const e2eOwner = "acme"

// Routes of the fake, for counting requests and injecting faults.
const (
	routePull      = "/repos/{owner}/{repo}/pulls/{pull_number}"
	routePullFiles = "/repos/{owner}/{repo}/pulls/{pull_number}/files"
	routeContents  = "/repos/{owner}/{repo}/contents/{path}"
	routeCheckRuns = "/repos/{owner}/{repo}/check-runs"
	routeCheckRun  = "/repos/{owner}/{repo}/check-runs/{check_run_id}"
)

// e2eEnv is one App server wired to one fake GitHub.
type e2eEnv struct {
	t    *testing.T
	gh   *githubtest.Server
	srv  *server
	logs *lockedBuffer

	mu    sync.Mutex
	waits []time.Duration // the transport's retry waits, as asked for
}

// e2eSetup is what an option may change before the pair starts.
type e2eSetup struct {
	fake githubtest.Options
	cfg  serveConfig
	// wrongKey starts the App with a private key GitHub does not know.
	wrongKey bool
}

// newE2E starts a fake GitHub and the App server on loopback with a fresh
// App key and a random webhook secret, points the fake's webhook at the
// App and installs the App on every repository of e2eOwner. Both stop when
// the test ends; the App's logs are printed if it failed.
func newE2E(t *testing.T, opts ...func(*e2eSetup)) *e2eEnv {
	t.Helper()
	key, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatalf("generating the App key: %v", err)
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	secret := hex.EncodeToString(raw)
	env := &e2eEnv{t: t, logs: &lockedBuffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("App logs:\n%s", env.logs.String())
		}
	})
	st := &e2eSetup{
		fake: githubtest.Options{AppID: 1, AppSlug: "shipgate", AppPublicKey: &key.PublicKey},
		cfg: serveConfig{Listen: "127.0.0.1:0", OpsListen: "127.0.0.1:0", AppID: 1, PrivateKey: pemKey, WebhookSecrets: []string{secret},
			Workers: 4, QueueSize: 100, JobTimeout: e2eJobTimeout,
			Logger:           slog.New(slog.NewTextHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			QueueMaxAttempts: 3, QueueBackoff: func(int) time.Duration { return 20 * time.Millisecond },
			RetrySleep: env.recordSleep},
	}
	for _, o := range opts {
		o(st)
	}
	if st.wrongKey {
		_, other, err := githubtest.GenerateAppKey()
		if err != nil {
			t.Fatal(err)
		}
		st.cfg.PrivateKey = other
	}
	env.gh = githubtest.New(st.fake)
	if err := env.gh.Err(); err != nil {
		t.Fatalf("starting the fake GitHub: %v", err)
	}
	t.Cleanup(env.gh.Close)
	st.cfg.GitHubURL = env.gh.URL() + "/"
	env.srv, err = startServer(context.Background(), st.cfg)
	if err != nil {
		t.Fatalf("starting the App: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithDeadline(context.Background(), testwait.Deadline(t))
		defer cancel()
		if err := env.srv.shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	if err := env.gh.SetWebhook(1, env.srv.URL()+"/webhook", secret); err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.gh.Install(githubtest.InstallationOptions{Account: e2eOwner, AllRepositories: true}); err != nil {
		t.Fatal(err)
	}
	return env
}

// recordSleep is the transport's retry wait: it records what was asked
// and waits at most a few milliseconds, so Retry-After: 60 costs nothing.
func (e *e2eEnv) recordSleep(ctx context.Context, d time.Duration) error {
	e.mu.Lock()
	e.waits = append(e.waits, d)
	e.mu.Unlock()
	return sleepCtx(ctx, min(d, 5*time.Millisecond))
}

func (e *e2eEnv) retryWaits() []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]time.Duration(nil), e.waits...)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// repo creates e2eOwner/name with files on main.
func (e *e2eEnv) repo(name string, files map[string]string) {
	e.t.Helper()
	if _, err := e.gh.CreateRepo(githubtest.RepoOptions{Owner: e2eOwner, Name: name, Private: true, Files: files}); err != nil {
		e.t.Fatal(err)
	}
}

// openPR pushes files to a new branch of e2eOwner/repo and opens a pull
// request from it (the fake delivers pull_request.opened before returning).
func (e *e2eEnv) openPR(repo, branch string, files map[string]string) githubtest.PullRequest {
	e.t.Helper()
	if _, err := e.gh.CreateBranch(e2eOwner, repo, branch, "main"); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.gh.PushCommit(e2eOwner, repo, branch, files, "change "+branch); err != nil {
		e.t.Fatal(err)
	}
	pr, _, err := e.gh.OpenPR(githubtest.PROptions{Owner: e2eOwner, Repo: repo, Head: branch, Title: branch})
	if err != nil {
		e.t.Fatal(err)
	}
	return pr
}

// eventually polls cond until it holds, failing the test at the binary's
// deadline (testwait).
func (e *e2eEnv) eventually(what string, cond func() (bool, string)) {
	e.t.Helper()
	testwait.Until(e.t, what, cond)
}

// runs returns the shipgate check runs of a commit, oldest first.
func (e *e2eEnv) runs(repo, sha string) []githubtest.CheckRun {
	return e.gh.CheckRuns(e2eOwner, repo, githubtest.CheckRunFilter{HeadSHA: sha, Name: "shipgate"})
}

// waitCompleted waits until the commit has n completed shipgate runs and
// returns the newest.
func (e *e2eEnv) waitCompleted(repo, sha string, n int) githubtest.CheckRun {
	e.t.Helper()
	var last githubtest.CheckRun
	e.eventually(fmt.Sprintf("%d completed check runs on %s/%s@%.8s", n, e2eOwner, repo, sha), func() (bool, string) {
		done := 0
		var states []string
		for _, r := range e.runs(repo, sha) {
			states = append(states, r.Status+"/"+r.Conclusion)
			if r.Status == "completed" {
				done++
				last = r
			}
		}
		return done >= n, fmt.Sprint(states)
	})
	return last
}

// waitJobs waits until the queue has settled n jobs (succeeded, failed,
// superseded or abandoned: each admitted job is counted exactly once), so a
// test can assert that nothing more happens.
func (e *e2eEnv) waitJobs(n int) {
	e.t.Helper()
	e.eventually(fmt.Sprintf("%d settled jobs", n), func() (bool, string) {
		got := e.metric("shipgate_jobs_total", "")
		return int(got) >= n && e.srv.queue.Depth() == 0, fmt.Sprintf("%v settled, depth %d", got, e.srv.queue.Depth())
	})
}

// metric sums the samples of a metric on /metrics whose labels contain
// every part of match ("" matches all).
func (e *e2eEnv) metric(name, match string) float64 {
	e.t.Helper()
	body := e.get("/metrics", http.StatusOK)
	sum := 0.0
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if match != "" && !strings.Contains(line, match) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			e.t.Fatalf("metric line %q: %v", line, err)
		}
		sum += v
	}
	return sum
}

// get fetches a path of the App server (health and metrics from their own
// listener) and checks the status.
func (e *e2eEnv) get(path string, want int) string {
	e.t.Helper()
	base := e.srv.URL()
	if p, _, _ := strings.Cut(path, "?"); p == "/healthz" || p == "/readyz" || p == "/metrics" {
		base = e.srv.OpsURL()
	}
	resp, err := http.Get(base + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		e.t.Fatalf("GET %s: %d, want %d: %s", path, resp.StatusCode, want, b)
	}
	return string(b)
}

// apiCalls is the number of GitHub requests the fake served since the last
// ResetCounts, and a breakdown for logs.
func (e *e2eEnv) apiCalls() (int, string) {
	total := 0
	var parts []string
	for _, rc := range e.gh.Requests() {
		total += rc.Count
		parts = append(parts, fmt.Sprintf("%s %s ×%d", rc.Method, rc.Route, rc.Count))
	}
	return total, strings.Join(parts, "; ")
}

// noneInProgress fails the test if any shipgate run of the repository is
// not completed.
func (e *e2eEnv) noneInProgress(repo string) {
	e.t.Helper()
	for _, r := range e.gh.CheckRuns(e2eOwner, repo, githubtest.CheckRunFilter{Name: "shipgate"}) {
		if r.Status != "completed" {
			e.t.Errorf("check run %d on %.8s is %s (%q): a run must never be left unfinished", r.ID, r.HeadSHA, r.Status, r.Title)
		}
	}
}

// lockedBuffer is a goroutine-safe log sink.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// settingsJSON renders Claude Code settings with one rule a line, so tests
// can find a rule's line with lineOf.
func settingsJSON(allow, deny []string, extra ...string) string {
	var b strings.Builder
	b.WriteString("{\n  \"permissions\": {\n")
	list := func(name string, rules []string, last bool) {
		fmt.Fprintf(&b, "    %q: [\n", name)
		for i, r := range rules {
			sep := ","
			if i == len(rules)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "      %q%s\n", r, sep)
		}
		if last {
			b.WriteString("    ]\n")
		} else {
			b.WriteString("    ],\n")
		}
	}
	list("allow", allow, false)
	list("deny", deny, true)
	b.WriteString("  }\n")
	for _, x := range extra {
		b.WriteString(x)
	}
	b.WriteString("}\n")
	return b.String()
}

// lineOf is the 1-based line of the first line of content containing s.
func lineOf(t *testing.T, content, s string) int {
	t.Helper()
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%q not found in\n%s", s, content)
	return 0
}

var (
	baseAllow = []string{"Bash(npm test:*)", "Bash(git status)", "Read(src/**)"}
	baseDeny  = []string{"Read(.env)", "Bash(curl:*)"}
	// baseSettings is main's .claude/settings.json in every test repository.
	baseSettings = settingsJSON(baseAllow, baseDeny)
)

// replaced returns rules with old replaced by repl (several rules, or none).
func replaced(rules []string, old string, repl ...string) []string {
	var out []string
	for _, r := range rules {
		if r == old {
			out = append(out, repl...)
			continue
		}
		out = append(out, r)
	}
	return out
}

// wantAnnotation is an annotation a run must carry.
type wantAnnotation struct {
	path  string
	line  int
	level string
	title string // a substring of the title
}

// checkRun asserts a completed run's conclusion, title, summary and
// annotations (exactly those wanted, in any order).
func checkRun(t *testing.T, r githubtest.CheckRun, conclusion, titlePrefix string, summary []string, anns []wantAnnotation) {
	t.Helper()
	if r.Status != "completed" || r.Conclusion != conclusion {
		t.Errorf("run %d: %s/%s, want completed/%s (title %q)", r.ID, r.Status, r.Conclusion, conclusion, r.Title)
	}
	if !strings.HasPrefix(r.Title, titlePrefix) {
		t.Errorf("run %d: title %q, want it to start with %q", r.ID, r.Title, titlePrefix)
	}
	for _, s := range summary {
		if !strings.Contains(r.Summary, s) {
			t.Errorf("run %d: summary lacks %q:\n%s", r.ID, s, r.Summary)
		}
	}
	if len(r.Annotations) != len(anns) {
		t.Errorf("run %d: %d annotations, want %d: %+v", r.ID, len(r.Annotations), len(anns), r.Annotations)
	}
	for _, w := range anns {
		found := false
		for _, a := range r.Annotations {
			if a.Path == w.path && a.StartLine == w.line && a.EndLine == w.line && a.AnnotationLevel == w.level && strings.Contains(a.Title, w.title) {
				found = true
			}
		}
		if !found {
			t.Errorf("run %d: no %s annotation %q at %s:%d among %+v", r.ID, w.level, w.title, w.path, w.line, r.Annotations)
		}
	}
}

// TestE2EVerdicts opens one pull request per kind of change and checks the
// run each gets: conclusion, title, summary and annotations on the head's
// lines.
func TestE2EVerdicts(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	env.repo("webapp", map[string]string{".claude/settings.json": baseSettings, "README.md": "# webapp\n"})

	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	narrow := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test)"), append(baseDeny, "Read(.env.*)"))
	respell := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test *)"), baseDeny)
	block := settingsJSON(replaced(baseAllow, "Bash(git status)", "Bash(git status)", "Bash(npx:*)"), baseDeny)
	comment := strings.Replace(baseSettings, `"Read(src/**)"`, `"Read(src/**)" // sources`, 1)
	const path = ".claude/settings.json"

	cases := []struct {
		name       string
		head       string
		conclusion string
		title      string
		summary    []string
		anns       []wantAnnotation
	}{
		{"widening", widen, "action_required", "Review required: 1 change widens",
			[]string{"Decision: require_review", "`allow: Bash(npm test:*)` → `allow: Bash(npm *)`", "npm publish"},
			[]wantAnnotation{{path, lineOf(t, widen, "Bash(npm *)"), "warning", "PERMISSION-ALLOW-EXPANDED"}}},
		{"narrowing", narrow, "success", "No expansion",
			[]string{"Decision: allow", "`Bash(npm test:*)` → `Bash(npm test)`", "narrowed", "`Read(.env.*)`"}, nil},
		{"respelling", respell, "success", "No expansion: 1 change",
			[]string{"Decision: allow", "respelled", "`Bash(npm test:*)` → `Bash(npm test *)`"}, nil},
		{"block", block, "failure", "Blocked: allow Bash(npx:*)",
			[]string{"Decision: block", "PERMISSION-WILDCARD-ALLOW", "npx"},
			[]wantAnnotation{{path, lineOf(t, block, "Bash(npx:*)"), "failure", "PERMISSION-WILDCARD-ALLOW"}}},
		{"parse failure", comment, "action_required", "Review required",
			[]string{"Decision: require_review", "at line " + strconv.Itoa(lineOf(t, comment, "// sources")), "comments", "2 deny rules"},
			[]wantAnnotation{{path, lineOf(t, comment, "// sources"), "warning", "CONFIG-PARSE-FAILED"}}},
	}
	prs := make([]githubtest.PullRequest, len(cases))
	for i, c := range cases {
		prs[i] = env.openPR("webapp", strings.ReplaceAll(c.name, " ", "-"), map[string]string{path: c.head})
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := env.waitCompleted("webapp", prs[i].HeadSHA, 1)
			checkRun(t, r, c.conclusion, c.title, c.summary, c.anns)
			if r.ExternalID != "pr:"+strconv.Itoa(prs[i].Number) {
				t.Errorf("external_id %q, want pr:%d", r.ExternalID, prs[i].Number)
			}
		})
	}
	env.waitJobs(len(cases))
	env.noneInProgress("webapp")
}

// policyRaise raises ALLOW-EXPANDED to block; line 4 is its action.
const policyRaise = `version: 1
checks:
  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:
    action: block
`

// policyBroken does not load: line 4 gives a list where an action goes.
const policyBroken = `version: 1
checks:
  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:
    action: [block]
`

// TestE2EPolicy checks that the policy is read from the base, never the
// head: a broken base policy is reported on its own file; a head that
// lowers the base's raise stays blocked; a head that only edits the policy
// is validated and its errors annotated.
func TestE2EPolicy(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path, pol = ".claude/settings.json", ".github/shipgate.yml"
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	narrow := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test)"), baseDeny)

	t.Run("broken base policy", func(t *testing.T) {
		env.repo("broken-policy", map[string]string{path: baseSettings, pol: policyBroken})
		pr := env.openPR("broken-policy", "narrow", map[string]string{path: narrow})
		r := env.waitCompleted("broken-policy", pr.HeadSHA, 1)
		checkRun(t, r, "action_required", "Policy file has errors",
			[]string{"policy file on the base branch has errors", "the defaults apply", pol + ":4"},
			[]wantAnnotation{{pol, 4, "failure", "policy error"}})
	})
	t.Run("base policy is enforced, not the head's", func(t *testing.T) {
		env.repo("raised", map[string]string{path: baseSettings, pol: policyRaise})
		pr := env.openPR("raised", "lower-and-widen", map[string]string{path: widen, pol: "version: 1\n"})
		r := env.waitCompleted("raised", pr.HeadSHA, 1)
		checkRun(t, r, "failure", "Blocked: ",
			[]string{"Decision: block", "acme/raised@", ":" + pol},
			// The loosened policy is annotated on the policy file too:
			// every finding kind is annotated where the head has its file.
			[]wantAnnotation{{path, lineOf(t, widen, "Bash(npm *)"), "failure", "PERMISSION-ALLOW-EXPANDED"}, {pol, 1, "warning", "POLICY-LOOSENED"}})
	})
	t.Run("a policy-only change is validated", func(t *testing.T) {
		pr := env.openPR("raised", "break-policy", map[string]string{pol: "version: 2\n"})
		r := env.waitCompleted("raised", pr.HeadSHA, 1)
		checkRun(t, r, "action_required", "Proposed policy file has errors",
			[]string{"proposes has errors", "not enforced here", "is not supported"},
			[]wantAnnotation{{pol, 1, "failure", "policy error"}})
		if m := r.Annotations[0].Message; !strings.Contains(m, "proposed policy") {
			t.Errorf("annotation message %q does not say the policy is the proposed one", m)
		}
	})
	env.noneInProgress("raised")
}

// TestE2EForkPR checks a pull request from a fork: the check is posted on
// the fork's head commit in the base repository, files are read through the
// base repository, and "Re-run" works although GitHub leaves the run's
// pull_requests empty (the App finds the PR from the run's external_id).
func TestE2EForkPR(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	env.repo("upstream", map[string]string{path: baseSettings})
	if _, err := env.gh.ForkRepo(e2eOwner, "upstream", "outsider"); err != nil {
		t.Fatal(err)
	}
	block := settingsJSON(append(baseAllow, "Bash(npx:*)"), baseDeny)
	if _, err := env.gh.PushCommit("outsider", "upstream", "feature", map[string]string{path: block}, "let the agent run npx"); err != nil {
		t.Fatal(err)
	}
	env.gh.ResetCounts()
	pr, _, err := env.gh.OpenPR(githubtest.PROptions{Owner: e2eOwner, Repo: "upstream", Head: "feature", HeadOwner: "outsider"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.HeadOwner != "outsider" {
		t.Fatalf("not a fork PR: %+v", pr)
	}
	first := env.waitCompleted("upstream", pr.HeadSHA, 1)
	want := []wantAnnotation{{path, lineOf(t, block, "Bash(npx:*)"), "failure", "PERMISSION-WILDCARD-ALLOW"}}
	checkRun(t, first, "failure", "Blocked: allow Bash(npx:*)", []string{"Decision: block"}, want)
	for _, rec := range env.gh.RequestLog() {
		if strings.Contains(rec.Path, "/outsider/") {
			t.Errorf("%s %s: the App must read through the base repository, not the fork", rec.Method, rec.Path)
		}
	}

	guid, err := env.gh.RerequestCheckRun(first.ID, "maintainer")
	if err != nil {
		t.Fatal(err)
	}
	var payload struct {
		CheckRun struct {
			PullRequests []json.RawMessage `json:"pull_requests"`
		} `json:"check_run"`
	}
	if err := json.Unmarshal(env.gh.DeliveryAttempts(guid)[0].Payload, &payload); err != nil {
		t.Fatal(err)
	}
	if len(payload.CheckRun.PullRequests) != 0 {
		t.Fatalf("the fake listed pull_requests for a fork head: %s", payload.CheckRun.PullRequests)
	}
	again := env.waitCompleted("upstream", pr.HeadSHA, 2)
	if again.ID == first.ID {
		t.Fatalf("re-run reused run %d; want a new run", first.ID)
	}
	checkRun(t, again, "failure", "Blocked: allow Bash(npx:*)", []string{"Decision: block"}, want)
	env.waitJobs(2)

	// "Re-run all checks": the suite lists no pull request either; the App
	// finds the open PRs whose head is the suite's commit (one job for the
	// commit, one follow-up for the PR).
	if _, err := env.gh.RerequestCheckSuite(e2eOwner, "upstream", pr.HeadSHA, "maintainer"); err != nil {
		t.Fatal(err)
	}
	third := env.waitCompleted("upstream", pr.HeadSHA, 3)
	checkRun(t, third, "failure", "Blocked: allow Bash(npx:*)", []string{"Decision: block"}, want)
	env.waitJobs(4)
	if n := len(env.runs("upstream", pr.HeadSHA)); n != 3 {
		t.Errorf("%d runs on the fork head, want 3", n)
	}
	env.noneInProgress("upstream")
}

// TestE2EReruns checks "Re-run" (check_run rerequested), "Re-run all
// checks" (check_suite rerequested) and a base-branch change: each makes a
// new completed run.
func TestE2EReruns(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	env.repo("reruns", map[string]string{path: baseSettings})
	pr := env.openPR("reruns", "widen", map[string]string{path: widen})
	want := []wantAnnotation{{path, lineOf(t, widen, "Bash(npm *)"), "warning", "ALLOW-EXPANDED"}}
	first := env.waitCompleted("reruns", pr.HeadSHA, 1)
	checkRun(t, first, "action_required", "Review required", nil, want)

	if _, err := env.gh.RerequestCheckRun(first.ID, "maintainer"); err != nil {
		t.Fatal(err)
	}
	second := env.waitCompleted("reruns", pr.HeadSHA, 2)
	if second.ID == first.ID {
		t.Fatalf("re-run reused run %d", first.ID)
	}
	checkRun(t, second, "action_required", "Review required", nil, want)

	if _, err := env.gh.RerequestCheckSuite(e2eOwner, "reruns", pr.HeadSHA, "maintainer"); err != nil {
		t.Fatal(err)
	}
	third := env.waitCompleted("reruns", pr.HeadSHA, 3)
	checkRun(t, third, "action_required", "Review required", nil, want)

	// Retarget the PR at a branch that already has the widened settings:
	// re-evaluated against the new base, nothing changes.
	if _, err := env.gh.CreateBranch(e2eOwner, "reruns", "release", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.gh.PushCommit(e2eOwner, "reruns", "release", map[string]string{path: widen, "NOTES.md": "release\n"}, "release"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.gh.ChangeBase(e2eOwner, "reruns", pr.Number, "release"); err != nil {
		t.Fatal(err)
	}
	fourth := env.waitCompleted("reruns", pr.HeadSHA, 4)
	if fourth.Conclusion != "success" {
		t.Errorf("after retargeting at a base with the same settings: %s %q, want success", fourth.Conclusion, fourth.Title)
	}
	env.waitJobs(4)
	if n := len(env.runs("reruns", pr.HeadSHA)); n != 4 {
		t.Errorf("%d runs on the head, want 4", n)
	}
	env.noneInProgress("reruns")
}

// TestE2EStaleHead pushes twice in quick succession to several pull
// requests at once: each ends with exactly one completed run on its final
// head and none in progress, whatever the interleaving.
func TestE2EStaleHead(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path, prs = ".claude/settings.json", 6
	env.repo("stale", map[string]string{path: baseSettings})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	var opened []githubtest.PullRequest
	for i := range prs {
		opened = append(opened, env.openPR("stale", fmt.Sprintf("pr-%d", i), map[string]string{path: widen}))
	}
	final := make([]string, prs)
	var wg sync.WaitGroup
	for i, pr := range opened {
		wg.Go(func() {
			for k := range 2 {
				sha, _, err := env.gh.Synchronize(e2eOwner, "stale", pr.Number,
					map[string]string{"notes.txt": fmt.Sprintf("push %d\n", k)}, "push")
				if err != nil {
					t.Error(err)
					return
				}
				final[i] = sha
			}
		})
	}
	wg.Wait()
	env.waitJobs(3 * prs)
	for i := range opened {
		env.waitCompleted("stale", final[i], 1)
		if runs := env.runs("stale", final[i]); len(runs) != 1 {
			t.Errorf("PR #%d: %d runs on its final head, want exactly 1", opened[i].Number, len(runs))
		}
	}
	env.noneInProgress("stale")
}

// TestE2EStaleAfterFailedAttempt: an attempt fails after creating its run;
// before its retry, a push supersedes it. The old run must not stay in
// progress.
func TestE2EStaleAfterFailedAttempt(t *testing.T) {
	t.Parallel()
	env := newE2E(t, func(s *e2eSetup) {
		s.cfg.QueueBackoff = func(int) time.Duration { return 3 * time.Second }
	})
	const path = ".claude/settings.json"
	env.repo("superseded", map[string]string{path: baseSettings})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR("superseded", "widen", map[string]string{path: widen})
	env.waitCompleted("superseded", pr.HeadSHA, 1) // the policy and base file are cached now

	// Every transport attempt of the next contents read fails: the job
	// fails after its run is in progress, and waits to retry.
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routeContents, Status: 500, Times: 4})
	sha1, _, err := env.gh.Synchronize(e2eOwner, "superseded", pr.Number, map[string]string{path: widen + " "}, "one")
	if err != nil {
		t.Fatal(err)
	}
	env.eventually("the failing attempt", func() (bool, string) {
		runs := env.runs("superseded", sha1)
		return len(env.gh.PendingFaults()) == 0 && len(runs) == 1, fmt.Sprintf("%d faults left, %d runs", len(env.gh.PendingFaults()), len(runs))
	})
	sha2, _, err := env.gh.Synchronize(e2eOwner, "superseded", pr.Number, map[string]string{path: widen + "  "}, "two")
	if err != nil {
		t.Fatal(err)
	}
	r := env.waitCompleted("superseded", sha2, 1)
	checkRun(t, r, "action_required", "Review required", nil,
		[]wantAnnotation{{path, lineOf(t, widen, "Bash(npm *)"), "warning", "ALLOW-EXPANDED"}})
	env.waitJobs(3)
	old := env.runs("superseded", sha1)
	if len(old) != 1 || old[0].Status != "completed" || old[0].Conclusion == "success" {
		t.Errorf("the superseded attempt's run: %+v; want one, completed, not success", old)
	}
	env.noneInProgress("superseded")
}

// TestE2EDuplicateDelivery redelivers a delivery (same GUID): answered 202
// "duplicate", and nothing is evaluated again.
func TestE2EDuplicateDelivery(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	env.repo("dup", map[string]string{".claude/settings.json": baseSettings})
	pr := env.openPR("dup", "docs", map[string]string{"README.md": "# docs\n"})
	env.waitCompleted("dup", pr.HeadSHA, 1)
	env.waitJobs(1)
	var guid string
	for _, d := range env.gh.Deliveries() {
		if d.Event == "pull_request" && d.Action == "opened" {
			guid = d.GUID
		}
	}
	env.gh.ResetCounts()
	d, err := env.gh.Redeliver(guid)
	if err != nil {
		t.Fatal(err)
	}
	if d.StatusCode != http.StatusAccepted || !strings.Contains(d.ResponseBody, `"duplicate"`) || !d.Redelivery {
		t.Fatalf("redelivery answered %d %q (redelivery %v), want 202 duplicate", d.StatusCode, d.ResponseBody, d.Redelivery)
	}
	if got := env.metric("shipgate_deliveries_total", `outcome="duplicate"`); got != 1 {
		t.Errorf("deliveries_total{outcome=duplicate} = %v, want 1", got)
	}
	// A later push is evaluated: by then a queued duplicate would have run.
	sha, _, err := env.gh.Synchronize(e2eOwner, "dup", pr.Number, map[string]string{"README.md": "# docs 2\n"}, "more docs")
	if err != nil {
		t.Fatal(err)
	}
	env.waitCompleted("dup", sha, 1)
	env.waitJobs(2)
	if got := env.metric("shipgate_jobs_total", ""); got != 2 {
		t.Errorf("%v jobs settled, want 2 (the duplicate must not be queued)", got)
	}
	if n := env.gh.RequestCount("GET", routePull); n != 1 {
		t.Errorf("GET pull request: %d since the redelivery, want 1 (the push's evaluation only)", n)
	}
	if runs := env.runs("dup", pr.HeadSHA); len(runs) != 1 {
		t.Errorf("%d runs on the first head, want 1", len(runs))
	}
}

// TestE2EFaultsRecovered injects a 502 on the files list, a 429 with
// Retry-After: 1 on creating the run and a secondary rate limit on the
// contents API: the transport retries each and the run completes as if
// nothing had happened.
func TestE2EFaultsRecovered(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	env.repo("faults", map[string]string{path: baseSettings})
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePullFiles, Status: http.StatusBadGateway})
	env.gh.Inject(githubtest.Fault{Method: "POST", PathPattern: routeCheckRuns, Status: http.StatusTooManyRequests, RetryAfter: time.Second})
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routeContents, SecondaryLimit: true})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR("faults", "widen", map[string]string{path: widen})
	r := env.waitCompleted("faults", pr.HeadSHA, 1)
	checkRun(t, r, "action_required", "Review required: 1 change widens", []string{"Decision: require_review"},
		[]wantAnnotation{{path, lineOf(t, widen, "Bash(npm *)"), "warning", "ALLOW-EXPANDED"}})
	env.waitJobs(1)
	if f := env.gh.PendingFaults(); len(f) != 0 {
		t.Errorf("faults not reached: %+v", f)
	}
	if runs := env.runs("faults", pr.HeadSHA); len(runs) != 1 {
		t.Errorf("%d runs, want 1 (a retried POST must not create two)", len(runs))
	}
	waits := env.retryWaits()
	has := func(d time.Duration) bool {
		for _, w := range waits {
			if w == d {
				return true
			}
		}
		return false
	}
	if len(waits) != 3 || !has(time.Second) || !has(time.Minute) {
		t.Errorf("retry waits %v: want 3, with Retry-After 1 s (429) and 60 s (secondary limit)", waits)
	}
	for reason, want := range map[string]float64{"5xx": 1, "429": 1, "secondary_limit": 1} {
		if got := env.metric("shipgate_github_retries_total", `reason="`+reason+`"`); got != want {
			t.Errorf("retries{reason=%s} = %v, want %v", reason, got, want)
		}
	}
	if got := env.metric("shipgate_jobs_total", `outcome="succeeded"`); got != 1 {
		t.Errorf("jobs succeeded = %v, want 1 (no job-level retry needed)", got)
	}
}

// TestE2EPersistentFailure makes the contents API fail on every attempt:
// the run ends "failure" asking for a re-run — whether the job failed
// before its run existed or after — and never stays in progress; once
// GitHub recovers, "Re-run" gives the real verdict in a new run.
func TestE2EPersistentFailure(t *testing.T) {
	t.Parallel()
	const path = ".claude/settings.json"
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	for _, c := range []struct {
		name string
		warm bool // an earlier PR cached the policy and base file: the run exists when reads fail
	}{{"before the run exists", false}, {"after the run started", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newE2E(t, func(s *e2eSetup) { s.cfg.QueueMaxAttempts = 2 })
			env.repo("down", map[string]string{path: baseSettings})
			jobs := 0
			if c.warm {
				warm := env.openPR("down", "warm", map[string]string{path: widen + "\n"})
				env.waitCompleted("down", warm.HeadSHA, 1)
				jobs++
			}
			env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routeContents, Status: 500, Times: 1000})
			pr := env.openPR("down", "widen", map[string]string{path: widen})
			r := env.waitCompleted("down", pr.HeadSHA, 1)
			jobs++
			checkRun(t, r, "failure", "Could not complete the check: press Re-run", []string{"Press **Re-run**", "500"}, nil)
			env.waitJobs(jobs)
			env.noneInProgress("down")
			if got := env.metric("shipgate_jobs_total", `outcome="failed"`); got != 1 {
				t.Errorf("jobs failed = %v, want 1", got)
			}

			env.gh.ClearFaults()
			if _, err := env.gh.RerequestCheckRun(r.ID, "maintainer"); err != nil {
				t.Fatal(err)
			}
			again := env.waitCompleted("down", pr.HeadSHA, 2)
			if again.ID == r.ID {
				t.Fatalf("re-run reused the failed run %d", r.ID)
			}
			checkRun(t, again, "action_required", "Review required", nil,
				[]wantAnnotation{{path, lineOf(t, widen, "Bash(npm *)"), "warning", "ALLOW-EXPANDED"}})
			env.waitJobs(jobs + 1)
			env.noneInProgress("down")
		})
	}
}

// TestE2ECallBudget counts GitHub API calls per evaluation: a pull request
// that touches no agent-config file costs at most 3, one that touches a
// settings file at most 6, once the base's policy is cached.
func TestE2ECallBudget(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	env.repo("budget", map[string]string{path: baseSettings, "README.md": "# budget\n"})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	narrow := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test)"), baseDeny)

	cases := []struct {
		name  string
		files map[string]string
		max   int
	}{
		{"first PR (cold: token, policy, org default)", map[string]string{"docs/a.md": "a\n"}, 0},
		{"no agent-config file", map[string]string{"docs/b.md": "b\n"}, 3},
		// +2: the widening's proven narrower rule, posted as a review
		// comment (the PR's comments listed once, so a re-run does not
		// post it twice, and the comment itself).
		{"one settings file, with a suggestion", map[string]string{path: widen}, 8},
		{"one settings file, base file cached", map[string]string{path: narrow}, 6},
	}
	for i, c := range cases {
		env.gh.ResetCounts()
		pr := env.openPR("budget", fmt.Sprintf("b%d", i), c.files)
		env.waitCompleted("budget", pr.HeadSHA, 1)
		env.waitJobs(i + 1)
		n, detail := env.apiCalls()
		t.Logf("%s: %d GitHub API calls: %s", c.name, n, detail)
		if c.max > 0 && n > c.max {
			t.Errorf("%s: %d GitHub API calls, want at most %d: %s", c.name, n, c.max, detail)
		}
	}
}

// TestE2EManyAnnotations checks GitHub's limits end to end: 120 findings
// go out in batches of at most 50 annotations (the fake answers 422 past
// that), and 3,000 rules give a summary cut to fit 65,535 characters with
// the first 150 annotations (the per-run cap; the summary says how many
// more there are).
func TestE2EManyAnnotations(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	env.repo("big", map[string]string{path: baseSettings})
	for _, n := range []int{120, 3000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			allow := append([]string(nil), baseAllow...)
			for i := range n {
				allow = append(allow, fmt.Sprintf("Bash(tool%d *)", i))
			}
			head := settingsJSON(allow, baseDeny)
			env.gh.ResetCounts()
			pr := env.openPR("big", fmt.Sprintf("rules-%d", n), map[string]string{path: head})
			r := env.waitCompleted("big", pr.HeadSHA, 1)
			if r.Conclusion != "action_required" || !strings.HasPrefix(r.Title, fmt.Sprintf("Review required: %d changes widen", n)) {
				t.Errorf("%s %q", r.Conclusion, r.Title)
			}
			want := min(n, 150) // the per-run cap (app.maxAnnotationsPerRun)
			if len(r.Annotations) != want {
				t.Fatalf("%d annotations, want %d", len(r.Annotations), want)
			}
			if more := fmt.Sprintf("%d more findings are not annotated", n-want); n > want && !strings.Contains(r.Summary, more) {
				t.Errorf("the summary does not say %q", more)
			}
			seen := map[int]bool{}
			for _, a := range r.Annotations {
				if a.Path != path || a.AnnotationLevel != "warning" || seen[a.StartLine] {
					t.Fatalf("bad or repeated annotation %+v", a)
				}
				seen[a.StartLine] = true
			}
			for i := range want {
				if l := lineOf(t, head, fmt.Sprintf(`"Bash(tool%d *)"`, i)); !seen[l] {
					t.Fatalf("no annotation on line %d (rule %d)", l, i)
				}
			}
			batches := (want + 49) / 50
			if r.Requests != 1+batches {
				t.Errorf("%d create/update requests, want 1 + %d batches of ≤50", r.Requests, batches)
			}
			if c := len([]rune(r.Summary)); c > 65535 {
				t.Errorf("summary of %d characters", c)
			}
			for _, rec := range env.gh.RequestLog() {
				if rec.Status == http.StatusUnprocessableEntity || rec.Status >= 500 {
					t.Errorf("%s %s answered %d", rec.Method, rec.Path, rec.Status)
				}
			}
			t.Logf("%d rules: summary %d bytes, %d annotations in %d requests", n, len(r.Summary), len(r.Annotations), r.Requests)
		})
	}
	env.noneInProgress("big")
}

// TestE2EAnnotationBatchFails fails the second annotation batch of a run
// with 120 annotations, once: GitHub either did not apply it, or applied it
// and then answered 502 (a gateway timeout after the write). An append is
// never retried blind by the transport; the write's retry (in place, issue
// 20 §5) must post every annotation exactly once — after counting, on
// GitHub, what the try that failed may have appended.
func TestE2EAnnotationBatchFails(t *testing.T) {
	t.Parallel()
	for _, applied := range []bool{false, true} {
		t.Run(fmt.Sprintf("applied=%v", applied), func(t *testing.T) {
			t.Parallel()
			var patches atomic.Int32
			var env *e2eEnv
			env = newE2E(t, func(s *e2eSetup) {
				// Just before the second PATCH (the second batch) reaches
				// the fake, make it fail.
				s.cfg.HTTPTransport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
					if req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/check-runs/") && patches.Add(1) == 2 {
						env.gh.Inject(githubtest.Fault{Method: "PATCH", PathPattern: routeCheckRun, Status: http.StatusBadGateway, AfterApply: applied})
					}
					return http.DefaultTransport.RoundTrip(req)
				})
			})
			const path = ".claude/settings.json"
			env.repo("batch", map[string]string{path: baseSettings})
			allow := append([]string(nil), baseAllow...)
			for i := range 120 {
				allow = append(allow, fmt.Sprintf("Bash(tool%d *)", i))
			}
			pr := env.openPR("batch", "many", map[string]string{path: settingsJSON(allow, baseDeny)})
			r := env.waitCompleted("batch", pr.HeadSHA, 1)
			env.waitJobs(1)
			seen := map[string]int{}
			for _, a := range r.Annotations {
				seen[fmt.Sprintf("%s:%d:%s", a.Path, a.StartLine, a.Title)]++
			}
			if len(r.Annotations) != 120 || len(seen) != 120 {
				t.Errorf("%d annotations (%d distinct) after a failed batch, want 120 once each", len(r.Annotations), len(seen))
			}
			// The failed write is tried again in place (issue 20 §5), not
			// by failing the job's attempt.
			if n := strings.Count(env.logs.String(), "trying it again"); n != 1 {
				t.Errorf("the write was tried again in place %d times, want 1 (the 502 must have failed the first try)", n)
			}
			if got := env.metric("shipgate_job_retries_total", ""); got != 0 {
				t.Errorf("job retries = %v, want 0 (the write is retried, not the job)", got)
			}
			lists := 0
			for _, rec := range env.gh.RequestLog() {
				if rec.Method == http.MethodGet && strings.HasSuffix(rec.Path, "/annotations") {
					lists++
				}
			}
			if lists == 0 {
				t.Error("the retry did not count the run's annotations on GitHub before appending")
			}
			env.noneInProgress("batch")
		})
	}
}

// TestE2ECreateAppliedThenFailed: GitHub creates the check run and then
// answers 502. The write's retry (in place) must find that run and complete
// it, not create a second one and leave the first in progress on the head.
func TestE2ECreateAppliedThenFailed(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	env.repo("create", map[string]string{path: baseSettings})
	env.gh.Inject(githubtest.Fault{Method: "POST", PathPattern: routeCheckRuns, Status: http.StatusBadGateway, AfterApply: true})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR("create", "widen", map[string]string{path: widen})
	r := env.waitCompleted("create", pr.HeadSHA, 1)
	env.waitJobs(1)
	if runs := env.runs("create", pr.HeadSHA); len(runs) != 1 {
		t.Errorf("%d runs on the head after a create that landed and failed, want 1", len(runs))
	}
	if r.Conclusion != "action_required" {
		t.Errorf("conclusion %s, want action_required", r.Conclusion)
	}
	if n := strings.Count(env.logs.String(), "trying it again"); n != 1 {
		t.Errorf("the create was tried again in place %d times, want 1 (the 502 must have failed the first try)", n)
	}
	if got := env.metric("shipgate_job_retries_total", ""); got != 0 {
		t.Errorf("job retries = %v, want 0 (the write is retried, not the job)", got)
	}
	env.noneInProgress("create")
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestE2EOperations checks /healthz, /readyz (ready once the App JWT works;
// 503 with a reason when GitHub rejects the key) and /metrics.
func TestE2EOperations(t *testing.T) {
	t.Parallel()
	t.Run("healthy", func(t *testing.T) {
		t.Parallel()
		env := newE2E(t)
		env.get("/healthz", http.StatusOK)
		if body := env.get("/readyz", http.StatusOK); !strings.Contains(body, "ready") {
			t.Errorf("/readyz: %s", body)
		}
		env.repo("ops", map[string]string{".claude/settings.json": baseSettings})
		pr := env.openPR("ops", "docs", map[string]string{"README.md": "# ops\n"})
		env.waitCompleted("ops", pr.HeadSHA, 1)
		env.waitJobs(1)
		metrics := env.get("/metrics", http.StatusOK)
		for _, want := range []string{
			`shipgate_deliveries_total{event="pull_request",outcome="queued"} 1`,
			`shipgate_deliveries_total{event="push",outcome="ignored"}`,
			`shipgate_github_requests_total{code="200",endpoint="/repos/{owner}/{repo}/pulls/{number}",method="GET"} 1`,
			`shipgate_github_requests_total{code="200",endpoint="/repos/{owner}/{repo}/pulls/{number}/files",method="GET"} 1`,
			`shipgate_github_requests_total{code="201",endpoint="/repos/{owner}/{repo}/check-runs",method="POST"} 1`,
			`shipgate_github_requests_total{code="201",endpoint="/app/installations/{id}/access_tokens",method="POST"} 1`,
			"shipgate_queue_depth 0",
			`shipgate_jobs_total{kind="evaluate_pr",outcome="succeeded"} 1`,
			"shipgate_github_rate_limit_remaining",
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %q", want)
			}
		}
		if strings.Contains(metrics, "acme") {
			t.Errorf("/metrics names a repository")
		}
	})
	t.Run("wrong webhook secret", func(t *testing.T) {
		t.Parallel()
		env := newE2E(t)
		env.repo("forged", map[string]string{".claude/settings.json": baseSettings})
		if err := env.gh.SetWebhook(1, env.srv.URL()+"/webhook", "not-the-secret"); err != nil {
			t.Fatal(err)
		}
		pr := env.openPR("forged", "docs", map[string]string{"README.md": "# forged\n"})
		for _, d := range env.gh.Deliveries() {
			if d.Event == "pull_request" && d.StatusCode != http.StatusUnauthorized {
				t.Errorf("delivery signed with another secret answered %d %q, want 401", d.StatusCode, d.ResponseBody)
			}
		}
		if got := env.metric("shipgate_webhook_rejections_total", `reason="bad_signature"`); got < 1 {
			t.Errorf("webhook_rejections_total{reason=bad_signature} = %v", got)
		}
		if runs := env.runs("forged", pr.HeadSHA); len(runs) != 0 {
			t.Errorf("a forged delivery made %d runs", len(runs))
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		t.Parallel()
		env := newE2E(t, func(s *e2eSetup) { s.wrongKey = true })
		env.get("/healthz", http.StatusOK)
		body := env.get("/readyz", http.StatusServiceUnavailable)
		var got struct{ Status, Reason string }
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if got.Status != "not ready" || !strings.Contains(got.Reason, "credentials") || !strings.Contains(got.Reason, "401") {
			t.Errorf("/readyz = %+v; want not ready with a reason naming the credentials and GitHub's 401", got)
		}
	})
}
