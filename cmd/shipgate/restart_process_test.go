package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/internal/testwait"
)

// TestProcessRestartMidBurst measures the restart with real
// processes: `shipgate serve` (the binary as users run it) on loopback
// against the fake GitHub, with the single-process default (the queue on
// disk), with Redis (a real redis-server), and with --queue-dir memory for
// the figure before; a burst of pull requests from several senders;
// SIGTERM (1 s grace) a third of the way in, and a start again on the same
// port once half of them have been sent. The redelivery scan and the sweep
// are off, so only the queue can keep what was accepted. With the queue in
// memory, pull requests whose delivery was answered 202 are left without a
// run (the figure is logged); on disk and in Redis every accepted
// delivery's pull request gets exactly one completed run. Deliveries made
// while no process listened fail at GitHub's end (the redelivery scan's
// business, not counted here).
func TestProcessRestartMidBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("process test: two bursts of 150 pull requests through a restarting process")
	}
	const prCount, senders = 150, 6
	dir := t.TempDir()
	bin := buildShipgate(t, dir)
	creds := writeAppCredentials(t, dir)
	for _, mode := range []string{"memory", "disk", "redis"} {
		t.Run(mode, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			gh := githubtest.New(githubtest.Options{AppID: 1, AppSlug: "shipgate", AppPublicKey: creds.publicKey,
				WebhookURL: "http://" + addr + "/webhook", WebhookSecret: creds.secret})
			if gh.Err() != nil {
				t.Fatal(gh.Err())
			}
			defer gh.Close()
			// The first process's evaluations wait in their first read of
			// the pull request until it stops, so every delivery it accepted
			// is pending or running when the signal comes, however fast the
			// machine; the restart clears the hold.
			gh.Inject(githubtest.Fault{Method: "GET", PathPattern: "/repos/{owner}/{repo}/pulls/{pull_number}", Latency: time.Hour, Times: 1 << 30})
			queue := []string{"--queue-dir", "memory"}
			switch mode {
			case "disk":
				queue = []string{"--queue-dir", filepath.Join(dir, "queue")}
			case "redis":
				queue = []string{"--redis-url", redistest.Start(t).URL()}
			}
			r := &replicaProc{name: "shipgate-" + mode, addr: addr, bin: bin, dir: dir, args: append([]string{
				"--app-id", "1", "--app-slug", "shipgate", "--private-key-file", creds.keyFile, "--webhook-secret-file", creds.secretFile,
				"--github-url", gh.URL() + "/", "--workers", "4", "--queue-size", "1000",
				"--shutdown-grace", "1s", "--sweep-interval", "0", "--redeliver-interval", "0", "--write-pace", "off",
				"--log-format", "json"}, queue...)}
			if err := r.start(); err != nil {
				t.Fatal(err)
			}
			defer r.stop()
			if err := waitReady(addr, testwait.Deadline(t)); err != nil {
				t.Fatalf("%v\n%s", err, r.tail(20))
			}
			const owner, repo = "acme", "svc"
			if _, err := gh.CreateRepo(githubtest.RepoOptions{Owner: owner, Name: repo, Private: true,
				Files: map[string]string{".claude/settings.json": settingsAt(0, 0, 0)}}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := gh.Install(githubtest.InstallationOptions{Account: owner, Repositories: []string{repo}}); err != nil {
				t.Fatal(err)
			}
			for p := range prCount {
				branch := fmt.Sprintf("change-%d", p)
				if _, err := gh.CreateBranch(owner, repo, branch, "main"); err != nil {
					t.Fatal(err)
				}
				if _, err := gh.PushCommit(owner, repo, branch, map[string]string{".claude/settings.json": settingsAt(0, p, 1)}, "widen"); err != nil {
					t.Fatal(err)
				}
			}
			// The stop comes when a third of the burst is sent, the start
			// again when half is (the deliveries between fail at GitHub's
			// end); a sender that reaches a mark says so.
			var sent atomic.Int64
			third, half := make(chan struct{}), make(chan struct{})
			var thirdOnce, halfOnce sync.Once
			var restart sync.WaitGroup
			restart.Go(func() {
				<-third
				r.stop() // SIGTERM; returns once the process is gone
				gh.ClearFaults()
				<-half
				if err := r.start(); err != nil {
					t.Error(err)
				}
			})
			var wg sync.WaitGroup
			for s := range senders {
				wg.Go(func() {
					for p := s; p < prCount; p += senders {
						branch := fmt.Sprintf("change-%d", p)
						if _, _, err := gh.OpenPR(githubtest.PROptions{Owner: owner, Repo: repo, Head: branch, Title: branch}); err != nil {
							t.Error(err)
							return
						}
						switch n := sent.Add(1); {
						case n >= prCount/2:
							halfOnce.Do(func() { close(half) })
							fallthrough
						case n >= prCount/3:
							thirdOnce.Do(func() { close(third) })
						}
					}
				})
			}
			wg.Wait()
			thirdOnce.Do(func() { close(third) })
			halfOnce.Do(func() { close(half) })
			restart.Wait()
			if err := waitReady(addr, testwait.Deadline(t)); err != nil {
				t.Fatalf("%v\n%s", err, r.tail(20))
			}
			// The heads whose delivery was accepted (202 "queued").
			accepted := map[string]bool{}
			for _, d := range gh.Deliveries() {
				if d.Event == "pull_request" && d.StatusCode == http.StatusAccepted && strings.Contains(d.ResponseBody, "queued") {
					if h := headOf(d); h != "" {
						accepted[h] = true
					}
				}
			}
			counts := func() (noRun, twice int) {
				for h := range accepted {
					done := 0
					for _, run := range gh.CheckRuns(owner, repo, githubtest.CheckRunFilter{HeadSHA: h, Name: "shipgate"}) {
						if run.Status == "completed" {
							done++
						}
					}
					if done == 0 {
						noRun++
					}
					if done > 1 {
						twice++
					}
				}
				return noRun, twice
			}
			// Until the process's queue holds nothing pending or running
			// (every sender is done: nothing more arrives).
			if err := waitQueueIdle(addr, testwait.Deadline(t)); err != nil {
				t.Fatalf("%v\n%s", err, r.tail(20))
			}
			noRun, twice := counts()
			// The queue's depth gauge is the pending count as last read,
			// and a job handed back at the SIGTERM may be waiting out a
			// retry's backoff: an idle reading can come before the last
			// run is posted (seen once on a loaded 2-core machine: 1 of
			// 150 without a run at the first reading). What the test holds
			// is that every accepted PR gets its run: wait for that event
			// (a PR lost for good still fails, once two minutes pass: far
			// past any retry's backoff).
			deadline := testwait.Deadline(t)
			if d := time.Now().Add(2 * time.Minute); d.Before(deadline) {
				deadline = d
			}
			for mode != "memory" && noRun > 0 && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
				if err := waitQueueIdle(addr, deadline); err != nil {
					t.Fatalf("%v\n%s", err, r.tail(20))
				}
				noRun, twice = counts()
			}
			abandoned := r.count(`"job abandoned`)
			t.Logf("%s: %d PRs, %d deliveries accepted (202), SIGTERM after %d; after the restart %d accepted PRs without a run, %d with two runs; %d jobs logged abandoned",
				mode, prCount, len(accepted), prCount/3, noRun, twice, abandoned)
			switch mode {
			case "memory":
				if noRun == 0 {
					t.Errorf("the memory queue lost nothing: the test does not stop the App mid-burst")
				}
			default:
				if noRun != 0 || twice != 0 {
					t.Errorf("queue %s: %d accepted PRs without a run, %d with two; want 0 and 0\n%s", mode, noRun, twice, r.tail(30))
				}
			}
		})
	}
}

// headOf is the head SHA in a pull_request delivery's payload.
func headOf(d githubtest.Delivery) string {
	var p struct {
		PullRequest struct {
			Head struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	if json.Unmarshal(d.Payload, &p) != nil {
		return ""
	}
	return p.PullRequest.Head.SHA
}

// waitQueueIdle polls the process's /metrics (on addr, --ops-listen same)
// until its queue has no job pending or running, or deadline passes.
func waitQueueIdle(addr string, deadline time.Time) error {
	last := ""
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			depth, running := -1.0, -1.0
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "shipgate_queue_depth "); ok {
					depth, _ = strconv.ParseFloat(v, 64)
				}
				if v, ok := strings.CutPrefix(line, "shipgate_queue_running "); ok {
					running, _ = strconv.ParseFloat(v, 64)
				}
			}
			if depth == 0 && running == 0 {
				return nil
			}
			last = fmt.Sprintf("depth %v, running %v", depth, running)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s: the queue did not go idle (%s)", addr, last)
}
