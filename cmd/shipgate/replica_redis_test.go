package main

// The fault test of the shared Redis queue: three real `shipgate serve
// --redis-url` processes behind a small round-robin load balancer, one fake
// GitHub, one real redis-server, 1,000 deliveries; one replica is killed
// with SIGKILL mid-run and restarted. Every pull request must end with
// exactly one completed check run on its final head and none in progress.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/internal/testwait"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// Shape of the fault test: 4 repositories × 25 pull requests, each opened
// and then pushed to 9 times: 100 + 900 = 1,000 deliveries.
const (
	faultRepos    = 4
	faultPRs      = 25 // per repository
	faultPushes   = 9  // synchronize deliveries per pull request
	faultSenders  = 8  // goroutines driving the fake GitHub
	faultReplicas = 3
	// faultLease is the replicas' lease: short, so the killed replica's
	// jobs come back within seconds, and long enough that a live replica's
	// heartbeat (every third of it) run late on a loaded machine keeps it.
	faultLease = 5 * time.Second
)

// buildShipgate compiles this command once into dir, exactly as users run
// it, so that a replica can be killed with a real SIGKILL.
func buildShipgate(t *testing.T, dir string) string {
	t.Helper()
	if src, err := os.ReadFile("serve.go"); err == nil && !bytes.Contains(src, []byte("addRedisFlags(")) {
		msg := "shipgate serve has no --redis-url flag yet: serve.go lacks the wiring to addRedisFlags and newQueueAndDedup (serve_redis.go)"
		if os.Getenv(redistest.RequireEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := filepath.Join(dir, "shipgate")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	help, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	if !bytes.Contains(help, []byte("-redis-url")) {
		msg := "shipgate serve has no --redis-url flag yet: serve.go lacks the wiring to newQueueAndDedup (serve_redis.go)"
		if os.Getenv(redistest.RequireEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// replicaProc is one `shipgate serve` process (one incarnation per start).
type replicaProc struct {
	name string
	addr string
	args []string
	bin  string
	dir  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs []string // log files, one per incarnation
	done chan struct{}
}

func (r *replicaProc) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	logPath := filepath.Join(r.dir, fmt.Sprintf("%s-%d.log", r.name, len(r.logs)+1))
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	// One listener for the webhook and the probes: the load balancer and
	// waitReady both use r.addr.
	cmd := exec.Command(r.bin, append([]string{"serve", "--listen", r.addr, "--ops-listen", "same"}, r.args...)...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = cleanEnv()
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("starting %s: %w", r.name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	r.cmd, r.done = cmd, done
	r.logs = append(r.logs, logPath)
	return nil
}

// kill sends SIGKILL and waits for the process to be gone.
func (r *replicaProc) kill() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// stop sends SIGTERM (graceful drain) and waits, killing after 20 s.
func (r *replicaProc) stop() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// count returns how many log lines of every incarnation contain s.
func (r *replicaProc) count(s string) int {
	r.mu.Lock()
	logs := append([]string(nil), r.logs...)
	r.mu.Unlock()
	n := 0
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		n += bytes.Count(b, []byte(s))
	}
	return n
}

// tail returns the last lines of the replica's logs, for failure messages.
func (r *replicaProc) tail(lines int) string {
	r.mu.Lock()
	logs := append([]string(nil), r.logs...)
	r.mu.Unlock()
	var out []string
	for _, p := range logs {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var all []string
		for sc.Scan() {
			all = append(all, sc.Text())
		}
		f.Close()
		if len(all) > lines {
			all = all[len(all)-lines:]
		}
		out = append(out, "== "+filepath.Base(p))
		out = append(out, all...)
	}
	return strings.Join(out, "\n")
}

// cleanEnv is the environment without SHIPGATE_* settings of the caller, so
// only the flags the test passes configure a replica.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SHIPGATE_") {
			env = append(env, kv)
		}
	}
	return env
}

func waitReady(addr string, deadline time.Time) error {
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready", addr)
}

// balancer forwards deliveries round-robin to the replicas. A replica that
// cannot be reached, or drops the connection (it was killed), is skipped
// and the delivery goes to the next one, as a load balancer with passive
// health checks does; that is safe because the queue de-duplicates by
// X-GitHub-Delivery (a delivery the dead replica had stored is answered
// "duplicate").
type balancer struct {
	targets []string
	next    atomic.Uint64
	retried atomic.Int64 // deliveries that needed another replica
	client  *http.Client
}

func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	first := int(b.next.Add(1))
	for i := range 2 * len(b.targets) {
		target := b.targets[(first+i)%len(b.targets)]
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, "http://"+target+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := b.client.Do(req)
		if err != nil {
			if i == 0 {
				b.retried.Add(1)
			}
			continue
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && i < 2*len(b.targets)-1 {
			continue // a replica shutting down or restarting: try the next
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(rb)
		return
	}
	http.Error(w, "no replica answered", http.StatusBadGateway)
}

// settingsAt is the agent settings file of a pull request's n-th commit:
// each push changes what the agent may run, so every head is evaluated for
// real (a check run created in progress, then completed).
func settingsAt(repo, pr, n int) string {
	return fmt.Sprintf(`{
  "permissions": {
    "allow": ["Bash(npm test:*)", "Bash(make target-%d-%d-%d)"],
    "deny": ["Read(.env)"]
  }
}
`, repo, pr, n)
}

// appCredentials are an App's credentials as `shipgate register` writes
// them, for the process tests.
type appCredentials struct {
	publicKey           *rsa.PublicKey
	keyFile, secretFile string
	secret              string
}

// writeAppCredentials makes a fresh App key and webhook secret and writes
// them to files in dir (mode 0600).
func writeAppCredentials(t *testing.T, dir string) appCredentials {
	t.Helper()
	key, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 20)
	_, _ = rand.Read(raw)
	c := appCredentials{publicKey: &key.PublicKey, keyFile: filepath.Join(dir, "private-key.pem"),
		secretFile: filepath.Join(dir, "webhook-secret"), secret: hex.EncodeToString(raw)}
	if err := os.WriteFile(c.keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.secretFile, []byte(c.secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRedisReplicasSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: 1,000 deliveries through three processes")
	}
	rs := redistest.Start(t)
	dir := t.TempDir()
	bin := buildShipgate(t, dir)

	creds := writeAppCredentials(t, dir)
	keyFile, secretFile, secret := creds.keyFile, creds.secretFile, creds.secret

	// Three replicas on fixed loopback ports (a restart reuses its port).
	lb := &balancer{client: &http.Client{Timeout: 10 * time.Second}}
	front := httptest.NewServer(lb)
	defer front.Close()
	gh := githubtest.New(githubtest.Options{AppID: 1, AppSlug: "shipgate", AppPublicKey: creds.publicKey,
		WebhookURL: front.URL + "/webhook", WebhookSecret: secret})
	if gh.Err() != nil {
		t.Fatal(gh.Err())
	}
	defer gh.Close()
	// Every job lists the pull request's files slowly, so each replica
	// always has jobs in flight: the kill lands mid-job.
	gh.Inject(githubtest.Fault{Method: "GET", PathPattern: "/repos/{owner}/{repo}/pulls/{pull_number}/files", Latency: 25 * time.Millisecond, Times: 1 << 30})

	common := []string{"--app-id", "1", "--app-slug", "shipgate", "--private-key-file", keyFile,
		"--webhook-secret-file", secretFile, "--github-url", gh.URL() + "/", "--redis-url", rs.URL(),
		"--redis-lease", faultLease.String(), "--workers", "4", "--queue-size", "5000",
		"--job-timeout", "30s", "--shutdown-grace", "10s", "--log-format", "json",
		// The sweep would queue heads whose delivery's job is still in the
		// queue; this test counts what the deliveries alone produce.
		"--sweep-interval", "0",
		// 1,000 deliveries about one installation in seconds: GitHub's
		// content limit (shared by the replicas) would spread them over
		// minutes; this test is about recovery, not pace.
		"--write-pace", "off"}
	var replicas []*replicaProc
	for i := range faultReplicas {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		r := &replicaProc{name: fmt.Sprintf("replica-%d", i+1), addr: addr, args: common, bin: bin, dir: dir}
		replicas = append(replicas, r)
		lb.targets = append(lb.targets, addr)
		if err := r.start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, r := range replicas {
			r.stop()
		}
		if t.Failed() {
			for _, r := range replicas {
				t.Logf("%s logs:\n%s", r.name, r.tail(30))
			}
		}
	}()
	for _, r := range replicas {
		if err := waitReady(r.addr, testwait.Deadline(t)); err != nil {
			t.Fatalf("%v\n%s", err, r.tail(20))
		}
	}

	// The organisation: repositories with agent settings, the App installed.
	const owner = "acme"
	var repos []string
	for i := range faultRepos {
		name := fmt.Sprintf("svc-%d", i+1)
		repos = append(repos, name)
		if _, err := gh.CreateRepo(githubtest.RepoOptions{Owner: owner, Name: name, Private: true,
			Files: map[string]string{".claude/settings.json": settingsAt(i, 0, 0), "README.md": "# " + name + "\n"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := gh.Install(githubtest.InstallationOptions{Account: owner, Repositories: repos}); err != nil {
		t.Fatal(err)
	}
	type prRef struct {
		repo, branch string
		ri, idx, num int
	}
	var prs []*prRef
	for ri, repo := range repos {
		for p := range faultPRs {
			branch := fmt.Sprintf("change-%d", p+1)
			if _, err := gh.CreateBranch(owner, repo, branch, "main"); err != nil {
				t.Fatal(err)
			}
			if _, err := gh.PushCommit(owner, repo, branch, map[string]string{".claude/settings.json": settingsAt(ri, p, 1)}, "widen"); err != nil {
				t.Fatal(err)
			}
			prs = append(prs, &prRef{repo: repo, branch: branch, ri: ri, idx: p})
		}
	}

	// 1,000 deliveries from several senders; at 40 % one replica is killed
	// with SIGKILL, and restarted a second later.
	total := len(prs) * (1 + faultPushes)
	var sent atomic.Int64
	killAt := int64(total * 2 / 5)
	victim := replicas[1]
	killed := make(chan time.Time, 1)
	var restartedAt time.Time
	var restartErr error
	var killWG sync.WaitGroup
	killWG.Go(func() {
		for sent.Load() < killAt {
			time.Sleep(time.Millisecond)
		}
		victim.kill()
		killed <- time.Now()
		time.Sleep(time.Second)
		restartErr = victim.start()
		restartedAt = time.Now()
	})

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, faultSenders)
	for s := range faultSenders {
		wg.Go(func() {
			for i := s; i < len(prs); i += faultSenders {
				p := prs[i]
				pr, _, err := gh.OpenPR(githubtest.PROptions{Owner: owner, Repo: p.repo, Head: p.branch, Title: "change " + p.branch})
				if err != nil {
					errs <- err
					return
				}
				p.num = pr.Number
				sent.Add(1)
			}
			for n := 2; n <= faultPushes+1; n++ {
				for i := s; i < len(prs); i += faultSenders {
					p := prs[i]
					if _, _, err := gh.Synchronize(owner, p.repo, p.num, map[string]string{".claude/settings.json": settingsAt(p.ri, p.idx, n)}, "push"); err != nil {
						errs <- err
						return
					}
					sent.Add(1)
				}
			}
		})
	}
	wg.Wait()
	sendDur := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	killWG.Wait()
	if restartErr != nil {
		t.Fatal(restartErr)
	}
	killTime := <-killed
	if err := waitReady(victim.addr, testwait.Deadline(t)); err != nil {
		t.Fatalf("restarted replica: %v\n%s", err, victim.tail(20))
	}

	// GitHub never redelivers by itself; an operator (or a sweeper) would
	// redeliver the deliveries that failed. Count them: with the balancer
	// skipping the dead replica, there should be none.
	redelivered := 0
	for _, d := range gh.Deliveries() {
		if d.StatusCode < 200 || d.StatusCode > 299 {
			if _, err := gh.Redeliver(d.GUID); err != nil {
				t.Fatal(err)
			}
			redelivered++
		}
	}

	// Wait until the queue is empty and every final head has its run.
	rdbOpts, _ := redis.ParseURL(rs.URL())
	rdb := redis.NewClient(rdbOpts)
	defer rdb.Close()
	ctx := context.Background()
	p := redisqueue.DefaultPrefix
	deadline := testwait.Deadline(t)
	settled := func() (bool, string) {
		pending, _ := rdb.HLen(ctx, p+"pending").Result()
		running, _ := rdb.ZCard(ctx, p+"leases").Result()
		if pending+running > 0 {
			return false, fmt.Sprintf("%d pending, %d running", pending, running)
		}
		for _, pr := range prs {
			head := mustPR(t, gh, owner, pr.repo, pr.num).HeadSHA
			runs := gh.CheckRuns(owner, pr.repo, githubtest.CheckRunFilter{HeadSHA: head, Name: "shipgate"})
			if len(runs) == 0 || runs[len(runs)-1].Status != "completed" {
				return false, fmt.Sprintf("%s#%d: no completed run on its head yet", pr.repo, pr.num)
			}
		}
		return true, ""
	}
	for {
		ok, why := settled()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not settled: %s", why)
		}
		time.Sleep(100 * time.Millisecond)
	}
	settleDur := time.Since(start)

	// Every delivery was accepted in the end (2xx on its last attempt).
	last := map[string]int{}
	for _, d := range gh.Deliveries() {
		last[d.GUID] = d.StatusCode
	}
	for guid, code := range last {
		if code < 200 || code > 299 {
			t.Errorf("delivery %s last answered %d", guid, code)
		}
	}

	// The verdict, per pull request: exactly one run on the final head,
	// completed; no run in progress anywhere, except on a superseded head
	// where the killed replica had created one (see below).
	recovered := 0
	for _, r := range replicas {
		recovered += r.count("job recovered from an expired lease")
	}
	// A run left in progress on a superseded head comes from a job that
	// started and was replaced by a newer push: its attempt failed, the kill
	// interrupted it, or it was recovered and replaced before it ran again.
	// The queue reports each such job to the App (JobSuperseded), on
	// whichever replica, and the App closes the run as cancelled. Only a
	// report the kill itself interrupted on the victim can leave one open.
	// Reports run in the background after the queue settles: wait for them.
	victimLog := func(s string) int {
		victim.mu.Lock()
		first := victim.logs[0]
		victim.mu.Unlock()
		b, _ := os.ReadFile(first)
		return bytes.Count(b, []byte(s))
	}
	interrupted := victimLog("superseded job: closing what its attempt left open") - victimLog("superseded job: done")
	var orphans, totalRuns int
	count := func(report bool) {
		orphans, totalRuns = 0, 0
		for _, pr := range prs {
			final := mustPR(t, gh, owner, pr.repo, pr.num).HeadSHA
			if report {
				onFinal := gh.CheckRuns(owner, pr.repo, githubtest.CheckRunFilter{HeadSHA: final, Name: "shipgate"})
				switch {
				case len(onFinal) != 1:
					t.Errorf("%s#%d: %d runs on its final head %s, want exactly 1", pr.repo, pr.num, len(onFinal), short(final))
				case onFinal[0].Status != "completed" || onFinal[0].Conclusion == "":
					t.Errorf("%s#%d: the run on its final head is %s", pr.repo, pr.num, onFinal[0].Status)
				}
			}
			for _, r := range gh.CheckRuns(owner, pr.repo, githubtest.CheckRunFilter{Name: "shipgate"}) {
				if r.ExternalID != "pr:"+strconv.Itoa(pr.num) {
					continue
				}
				totalRuns++
				if r.Status != "completed" && r.HeadSHA != final {
					orphans++
					if report {
						t.Logf("%s#%d: run %d on superseded head %s left %s", pr.repo, pr.num, r.ID, short(r.HeadSHA), r.Status)
					}
				}
			}
		}
	}
	for wait := testwait.Deadline(t); ; time.Sleep(100 * time.Millisecond) {
		if count(false); orphans <= max(interrupted, 0) || time.Now().After(wait) {
			break
		}
	}
	count(true)
	if orphans > max(interrupted, 0) {
		t.Errorf("%d runs left in progress on superseded heads; the killed replica interrupted %d superseded-job reports", orphans, max(interrupted, 0))
	}
	superseded := 0
	for _, r := range replicas {
		superseded += r.count("superseded job: closing what its attempt left open")
	}
	dups := 0
	for _, r := range replicas {
		dups += r.count(`"webhook delivery is a duplicate"`)
	}
	if recovered == 0 {
		t.Errorf("no job was recovered from the killed replica's leases: the kill did not land mid-job")
	}
	t.Logf("fault test: %d deliveries to %d replicas in %s (%.0f deliveries/s); killed %s at delivery %d (%s in), restarted %s later",
		total, faultReplicas, sendDur.Round(time.Millisecond), float64(total)/sendDur.Seconds(), victim.name, killAt,
		killTime.Sub(start).Round(time.Millisecond), restartedAt.Sub(killTime).Round(time.Millisecond))
	t.Logf("fault test: settled %s after the first delivery; %d jobs recovered from expired leases; %d deliveries re-sent to another replica by the balancer, %d redelivered, %d answered duplicate; %d check runs for %d pull requests, each with exactly one completed run on its final head; %d started jobs superseded and their runs closed; %d runs left in progress on superseded heads",
		settleDur.Round(time.Millisecond), recovered, lb.retried.Load(), redelivered, dups, totalRuns, len(prs), superseded, orphans)
}

func mustPR(t *testing.T, gh *githubtest.Server, owner, repo string, n int) githubtest.PullRequest {
	t.Helper()
	pr, ok := gh.PR(owner, repo, n)
	if !ok {
		t.Fatalf("no pull request %s/%s#%d", owner, repo, n)
	}
	return pr
}

func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}
