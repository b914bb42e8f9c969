package githubtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

func TestFaultsConsumedInOrder(t *testing.T) {
	f := newFixture(t)
	_, err := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{"x": "1\n"}, "x")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "feature"})
	must(t, err)
	tok := "token " + f.token()
	files := fmt.Sprintf("/repos/acme/widgets/pulls/%d/files", pr.Number)
	route := "/repos/{owner}/{repo}/pulls/{number}/files"
	f.srv.Inject(Fault{PathPattern: route, Times: 2, Status: 502})
	f.srv.Inject(Fault{Method: "GET", PathPattern: route, Status: 429, RetryAfter: 1500 * time.Millisecond})
	f.srv.Inject(Fault{PathPattern: route, SecondaryLimit: true, RetryAfter: 30 * time.Second})
	f.srv.Inject(Fault{PathPattern: "/repos/{owner}/{repo}", Status: 500})
	f.srv.Inject(Fault{Method: "POST", PathPattern: route, Status: 500}) // never matches: wrong method

	steps := []struct {
		path       string
		status     int
		retryAfter string
		message    string
	}{
		{files, 502, "", "Server Error"},
		{files, 502, "", "Server Error"},
		{files, 429, "2", "API rate limit exceeded for installation ID"},
		{files, 403, "30", "You have exceeded a secondary rate limit"},
		{files, 200, "", ""},
		{"/repos/acme/widgets", 500, "", "Server Error"},
		{"/repos/acme/widgets", 200, "", ""},
	}
	for i, st := range steps {
		resp, body := f.do("GET", st.path, tok, nil, nil)
		if resp.StatusCode != st.status || resp.Header.Get("Retry-After") != st.retryAfter {
			t.Fatalf("step %d: %d Retry-After %q, want %d %q: %s", i, resp.StatusCode, resp.Header.Get("Retry-After"), st.status, st.retryAfter, body)
		}
		if st.message != "" && !strings.HasPrefix(decode(t, body)["message"].(string), st.message) {
			t.Errorf("step %d: body %s", i, body)
		}
		if resp.Header.Get("X-GitHub-Request-Id") == "" || resp.Header.Get("X-RateLimit-Remaining") == "" {
			t.Errorf("step %d: missing GitHub headers %v", i, resp.Header)
		}
	}
	if left := f.srv.PendingFaults(); len(left) != 1 || left[0].Method != "POST" {
		t.Errorf("pending faults %+v", left)
	}
	f.srv.ClearFaults()
	faulted := 0
	for _, rec := range f.srv.RequestLog() {
		if rec.Faulted {
			faulted++
		}
	}
	if faulted != 5 {
		t.Errorf("%d requests logged as faulted, want 5", faulted)
	}
}

func TestFaultsThroughGoGitHub(t *testing.T) {
	f := newFixture(t)
	c := f.instClient(f.inst.ID, false)
	ctx := context.Background()

	f.srv.Inject(Fault{PathPattern: "/repos/{owner}/{repo}", SecondaryLimit: true, RetryAfter: 2 * time.Second})
	_, _, err := c.Repositories.Get(ctx, "acme", "widgets")
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) || abuse.GetRetryAfter() != 2*time.Second {
		t.Fatalf("secondary limit surfaced as %T %v", err, err)
	}

	f.srv.Inject(Fault{PathPattern: "/repos/{owner}/{repo}/contents/{path}", Status: 404})
	c2 := f.instClient(f.inst.ID, false) // go-github remembers the secondary limit per client
	_, _, _, err = c2.Repositories.GetContents(ctx, "acme", "widgets", "README.md", nil)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Fatalf("transient 404 surfaced as %v", err)
	}
	_, _, _, err = c2.Repositories.GetContents(ctx, "acme", "widgets", "README.md", nil)
	must(t, err)

	t.Run("latency", func(t *testing.T) {
		f.srv.Inject(Fault{PathPattern: "/repos/{owner}/{repo}", Latency: 150 * time.Millisecond})
		start := time.Now()
		_, _, err := c2.Repositories.Get(ctx, "acme", "widgets")
		must(t, err)
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("answered after %v, want at least the injected 150ms", d)
		}
	})
	t.Run("latency cut short by the client", func(t *testing.T) {
		f.srv.Inject(Fault{PathPattern: "/repos/{owner}/{repo}", Latency: time.Hour})
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, _, err := c2.Repositories.Get(ctx, "acme", "widgets"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want the client's deadline", err)
		}
	})
}

func TestPrimaryRateLimit(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.RateLimit = 3 })
	tok := "token " + f.token()
	for i := 1; i <= 3; i++ {
		resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil)
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(3-i) ||
			h.Get("X-RateLimit-Used") != strconv.Itoa(i) || h.Get("X-RateLimit-Resource") != "core" {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, h)
		}
		reset, _ := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
		if want := f.clock.Now().Add(time.Hour).Unix(); reset != want {
			t.Errorf("reset %d, want %d", reset, want)
		}
	}
	resp, body := f.do("GET", "/repos/acme/widgets", tok, nil, nil)
	if resp.StatusCode != 403 || resp.Header.Get("X-RateLimit-Remaining") != "0" ||
		decode(t, body)["message"] != fmt.Sprintf("API rate limit exceeded for installation ID %d.", f.inst.ID) {
		t.Fatalf("exhausted: %d %s", resp.StatusCode, body)
	}
	// GET /rate_limit does not count and reports the spent window.
	resp, body = f.do("GET", "/rate_limit", tok, nil, nil)
	core := decode(t, body)["resources"].(map[string]any)["core"].(map[string]any)
	if resp.StatusCode != 200 || core["remaining"] != float64(0) || core["used"] != float64(3) {
		t.Errorf("rate_limit %s", body)
	}
	// go-github reports it as a RateLimitError.
	c := f.instClient(f.inst.ID, false)
	_, _, err := c.Repositories.Get(context.Background(), "acme", "widgets")
	var rl *github.RateLimitError
	if !errors.As(err, &rl) {
		t.Errorf("go-github error %T %v", err, err)
	}
	// Other installations have their own window; the window resets after an hour.
	f.clock.Advance(time.Hour)
	tok = "token " + f.token()
	if resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("after reset: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestRequestCounting(t *testing.T) {
	f := newFixture(t)
	second, _, err := f.srv.Install(InstallationOptions{Account: "acme", AllRepositories: true})
	must(t, err)
	c1 := f.instClient(f.inst.ID, false)
	c2 := f.instClient(second.ID, true)
	ctx := context.Background()
	f.srv.ResetCounts()
	for i := 0; i < 3; i++ {
		_, _, err := c1.Repositories.Get(ctx, "acme", "widgets")
		must(t, err)
	}
	_, _, err = c2.Repositories.Get(ctx, "acme", "widgets")
	must(t, err)
	_, _, _, err = c2.Repositories.GetContents(ctx, "acme", "widgets", "README.md", nil)
	must(t, err)
	if n := f.srv.RequestCount("GET", "/repos/{owner}/{repo}"); n != 4 {
		t.Errorf("GET repo count %d, want 4", n)
	}
	if n := f.srv.RequestCount("POST", "/app/installations/{id}/access_tokens"); n != 2 {
		t.Errorf("token requests %d, want 2 (one per installation client)", n)
	}
	perInst := map[int64]int{}
	for _, rc := range f.srv.Requests() {
		if rc.Route == "/repos/{owner}/{repo}" {
			perInst[rc.InstallationID] += rc.Count
		}
	}
	if perInst[f.inst.ID] != 3 || perInst[second.ID] != 1 {
		t.Errorf("per installation %v", perInst)
	}
	log := f.srv.RequestLog()
	last := log[len(log)-1]
	if last.Route != "/repos/{owner}/{repo}/contents/{path}" || last.Path != "/api/v3/repos/acme/widgets/contents/README.md" || last.Status != 200 || last.InstallationID != second.ID {
		t.Errorf("last log record %+v", last)
	}
	resp, err := http.Get(f.srv.URL() + "/nope")
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("unknown route %d", resp.StatusCode)
	}
	if f.srv.RequestCount("", "") != 1 {
		t.Errorf("unknown routes are counted under the empty route")
	}
	f.srv.ResetCounts()
	if len(f.srv.Requests()) != 0 || len(f.srv.RequestLog()) != 0 {
		t.Error("ResetCounts left counters")
	}
}

// TestFaultAfterApply: the request is served, then answered with the
// fault's status; a blind retry of an append applies it twice.
func TestFaultAfterApply(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c := f.instClient(f.inst.ID, false)
	head, _ := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{"x.txt": "x\n"}, "x")
	run, _, err := c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "shipgate", HeadSHA: head})
	must(t, err)
	f.srv.Inject(Fault{Method: "PATCH", PathPattern: "/repos/{owner}/{repo}/check-runs/{id}", Status: 502, AfterApply: true})
	tok := "token " + f.token()
	path := fmt.Sprintf("/repos/acme/widgets/check-runs/%d", run.GetID())
	body := map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": annotations(3, ".claude/settings.json")}}
	for i, want := range []int{502, 200} {
		if resp, b := f.do("PATCH", path, tok, body, nil); resp.StatusCode != want {
			t.Fatalf("PATCH %d: %d, want %d: %s", i, resp.StatusCode, want, b)
		}
	}
	anns, _, err := c.Checks.ListCheckRunAnnotations(ctx, "acme", "widgets", run.GetID(), &github.ListOptions{PerPage: 100})
	must(t, err)
	if len(anns) != 6 {
		t.Errorf("%d annotations, want 6: the faulted PATCH was applied too", len(anns))
	}
	if log := f.srv.RequestLog(); !log[len(log)-3].Faulted {
		t.Errorf("the applied-then-failed request is not logged as faulted: %+v", log[len(log)-3])
	}
}

// TestFaultOutage: a fault with Until answers every matching request until
// the fake's clock reaches it, however many there are, and is then gone.
func TestFaultOutage(t *testing.T) {
	f := newFixture(t)
	tok := "token " + f.token()
	f.srv.Inject(Fault{Method: "GET", PathPattern: "/repos/{owner}/{repo}", Status: 500, Until: f.clock.Now().Add(90 * time.Second)})
	for i := range 5 {
		if resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil); resp.StatusCode != 500 {
			t.Fatalf("request %d in the outage: %d, want 500", i, resp.StatusCode)
		}
		f.clock.Advance(17 * time.Second)
	}
	if resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil); resp.StatusCode != 500 {
		t.Fatalf("at 85 s: %d, want 500", resp.StatusCode)
	}
	f.clock.Advance(5 * time.Second)
	if resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil); resp.StatusCode != 200 {
		t.Fatalf("at 90 s: %d, want 200 (the outage is over)", resp.StatusCode)
	}
	if left := f.srv.PendingFaults(); len(left) != 0 {
		t.Fatalf("pending faults after the outage: %+v", left)
	}
}
