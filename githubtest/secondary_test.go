package githubtest

import (
	"strings"
	"testing"
	"time"
)

// TestContentLimits: with GitHub's limits on, the 81st content-creating
// request within a minute is refused 403 with Retry-After and GitHub's
// secondary-limit message; reads are not counted; the minute passing lets
// writes through again, until 500 in the hour.
func TestContentLimits(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.ContentLimits = GitHubContentLimits })
	head, err := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{"x.txt": "x\n"}, "x")
	must(t, err)
	tok := "token " + f.token()
	create := func() (int, string, map[string]any) {
		resp, body := f.do("POST", "/repos/acme/widgets/check-runs", tok,
			map[string]any{"name": "shipgate", "head_sha": head}, nil)
		var m map[string]any
		if resp.StatusCode >= 400 {
			m = decode(t, body)
		}
		return resp.StatusCode, resp.Header.Get("Retry-After"), m
	}
	for i := range 80 {
		if code, _, m := create(); code != 201 {
			t.Fatalf("write %d: %d %v", i+1, code, m)
		}
		if i%10 == 0 { // reads never count
			if resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil); resp.StatusCode != 200 {
				t.Fatalf("read: %d", resp.StatusCode)
			}
		}
	}
	code, retry, m := create()
	if code != 403 || retry != "60" || !strings.Contains(m["message"].(string), "secondary rate limit") {
		t.Fatalf("81st write in a minute: %d Retry-After %q %v, want 403, 60, the secondary-limit message", code, retry, m)
	}
	f.clock.Advance(30 * time.Second)
	if code, retry, _ := create(); code != 403 || retry != "30" {
		t.Fatalf("30 s later: %d Retry-After %q, want 403, 30", code, retry)
	}
	total := 80
	for total < 500 {
		f.clock.Advance(time.Minute)
		for range 80 {
			if total == 500 {
				break
			}
			if code, _, m := create(); code != 201 {
				t.Fatalf("write %d: %d %v", total+1, code, m)
			}
			total++
		}
	}
	f.clock.Advance(time.Minute)
	if code, _, _ := create(); code != 403 {
		t.Fatalf("501st write in an hour: %d, want 403", code)
	}
	if hits := f.srv.SecondaryLimitHits(); hits != 3 {
		t.Fatalf("SecondaryLimitHits = %d, want 3", hits)
	}
}
