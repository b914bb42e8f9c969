package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
)

// TestProcessRestartMidBurst measures the restart with real
// processes: `shipgate serve` (the binary as users run it, the
// single-process default) on loopback against the fake GitHub; a burst of
// pull requests from several senders; SIGTERM (1 s grace) a third of the
// way in, and a start again on the same port a second later. The
// redelivery scan and the sweep are off, so only the queue can keep what
// was accepted. With --queue-dir memory, pull requests whose delivery was
// answered 202 are left without a run (the figure is logged); with the
// queue on disk every accepted delivery's pull request gets exactly one
// completed run. Deliveries made while no process listened fail at
// GitHub's end (the redelivery scan's business, not counted here).
func TestProcessRestartMidBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("process test: two bursts of 150 pull requests through a restarting process")
	}
	const prCount, senders = 150, 6
	dir := t.TempDir()
	bin := buildShipgate(t, dir)
	key, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 20)
	_, _ = rand.Read(raw)
	secret := hex.EncodeToString(raw)
	keyFile, secretFile := filepath.Join(dir, "private-key.pem"), filepath.Join(dir, "webhook-secret")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"memory", "disk"} {
		t.Run(mode, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			gh := githubtest.New(githubtest.Options{AppID: 1, AppSlug: "shipgate", AppPublicKey: &key.PublicKey,
				WebhookURL: "http://" + addr + "/webhook", WebhookSecret: secret})
			if gh.Err() != nil {
				t.Fatal(gh.Err())
			}
			defer gh.Close()
			// Evaluations slower than the burst, so the queue holds a
			// backlog when the signal comes.
			gh.Inject(githubtest.Fault{Method: "GET", PathPattern: "/repos/{owner}/{repo}/pulls/{pull_number}/files", Latency: 30 * time.Millisecond, Times: 1 << 30})
			queueDir := "memory"
			if mode == "disk" {
				queueDir = filepath.Join(dir, "queue")
			}
			r := &replicaProc{name: "shipgate-" + mode, addr: addr, bin: bin, dir: dir, args: []string{
				"--app-id", "1", "--app-slug", "shipgate", "--private-key-file", keyFile, "--webhook-secret-file", secretFile,
				"--github-url", gh.URL() + "/", "--queue-dir", queueDir, "--workers", "4", "--queue-size", "1000",
				"--shutdown-grace", "1s", "--sweep-interval", "0", "--redeliver-interval", "0", "--write-pace", "off",
				"--log-format", "json"}}
			if err := r.start(); err != nil {
				t.Fatal(err)
			}
			defer r.stop()
			if err := waitReady(addr, time.Now().Add(30*time.Second)); err != nil {
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
			var sent atomic.Int64
			var restart sync.WaitGroup
			restart.Go(func() {
				for sent.Load() < prCount/3 {
					time.Sleep(time.Millisecond)
				}
				r.stop() // SIGTERM
				time.Sleep(time.Second)
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
						sent.Add(1)
					}
				})
			}
			wg.Wait()
			restart.Wait()
			if err := waitReady(addr, time.Now().Add(30*time.Second)); err != nil {
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
			// Until every accepted head has a run, or (the memory queue lost
			// some) nothing has changed for 5 s.
			deadline := time.Now().Add(90 * time.Second)
			last, stable := -1, time.Now()
			for time.Now().Before(deadline) {
				n, _ := counts()
				if n == 0 {
					break
				}
				if n != last {
					last, stable = n, time.Now()
				} else if time.Since(stable) > 5*time.Second {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			noRun, twice := counts()
			abandoned := r.count(`"job abandoned`)
			t.Logf("%s: %d PRs, %d deliveries accepted (202), SIGTERM after %d; after the restart %d accepted PRs without a run, %d with two runs; %d jobs logged abandoned",
				mode, prCount, len(accepted), prCount/3, noRun, twice, abandoned)
			switch mode {
			case "memory":
				if noRun == 0 {
					t.Logf("note: the memory queue lost nothing this time (the burst was drained within the grace)")
				}
			case "disk":
				if noRun != 0 || twice != 0 {
					t.Errorf("queue on disk: %d accepted PRs without a run, %d with two; want 0 and 0\n%s", noRun, twice, r.tail(30))
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
