package githubtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"
)

// TestConcurrentUse drives the fake from many goroutines at once, as the
// App server's workers do, while the test changes state; run with -race.
func TestConcurrentUse(t *testing.T) {
	f, rc := newReceiverFixture(t)
	ctx := context.Background()
	c := f.instClient(f.inst.ID, false)
	_, err := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{"a": "1\n"}, "a")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "feature"})
	must(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				cur, _ := f.srv.PR("acme", "widgets", pr.Number)
				if _, _, err := c.PullRequests.ListFiles(ctx, "acme", "widgets", pr.Number, nil); err != nil {
					errs <- err
				}
				run, _, err := c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: fmt.Sprintf("w%d", w), HeadSHA: cur.HeadSHA})
				if err != nil {
					errs <- err
					continue
				}
				if _, _, err := c.Checks.UpdateCheckRun(ctx, "acme", "widgets", run.GetID(), github.UpdateCheckRunOptions{Name: run.GetName(), Conclusion: github.String("success")}); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	for i := 0; i < 5; i++ {
		if _, _, err := f.srv.Synchronize("acme", "widgets", pr.Number, map[string]string{fmt.Sprintf("f%d", i): "x\n"}, "sync"); err != nil {
			t.Error(err)
		}
		_ = f.srv.Requests()
		_ = f.srv.CheckRuns("acme", "widgets", CheckRunFilter{})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(f.srv.CheckRuns("acme", "widgets", CheckRunFilter{})); n != 40 {
		t.Errorf("%d check runs, want 40", n)
	}
	_ = rc.deliveries()
}

func TestStartOnListenerAndHandler(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	s := NewUnstarted(Options{})
	s.Start(l)
	defer s.Close()
	if s.URL() != "http://"+l.Addr().String() {
		t.Errorf("URL %s", s.URL())
	}
	resp, err := http.Get(s.URL() + "/api/v3/rate_limit")
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Limit") != "60" {
		t.Errorf("anonymous rate_limit: %d %v", resp.StatusCode, resp.Header)
	}
	s.Close() // idempotent with the deferred Close

	// Mounted in someone else's server.
	h := NewUnstarted(Options{})
	ts := httptest.NewServer(h.Handler())
	defer ts.Close()
	h.SetURL(ts.URL)
	_, err = h.CreateRepo(RepoOptions{Owner: "o", Name: "r", Files: map[string]string{"a": "b\n"}})
	must(t, err)
	resp, err = http.Get(ts.URL + "/repos/o/r")
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("mounted handler: %d", resp.StatusCode)
	}
}
