package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/report"
)

func TestEndpoint(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/app/installations/42/access_tokens", "/app/installations/{id}/access_tokens"},
		{"/api/v3/app/installations/42/access_tokens", "/app/installations/{id}/access_tokens"},
		{"/repos/o/r/pulls/7/files", "/repos/{owner}/{repo}/pulls/{number}/files"},
		{"/repos/o/r/pulls/7/reviews", "/repos/{owner}/{repo}/pulls/{number}/reviews"},
		{"/repos/o/r/pulls/7", "/repos/{owner}/{repo}/pulls/{number}"},
		{"/repos/o/r/pulls", "/repos/{owner}/{repo}/pulls"},
		{"/repos/o/r/contents/.claude/settings.json", "/repos/{owner}/{repo}/contents/{path}"},
		{"/repos/o/r/check-runs/9/annotations", "/repos/{owner}/{repo}/check-runs/{id}/annotations"},
		{"/repos/o/r/check-runs/9", "/repos/{owner}/{repo}/check-runs/{id}"},
		{"/repos/o/r/check-runs", "/repos/{owner}/{repo}/check-runs"},
		{"/repos/o/r/commits/abc/check-runs", "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
		{"/orgs/o/teams/sec/memberships/alice", "/orgs/{org}/teams/{team}/memberships/{user}"},
		{"/repos/o/r", "/repos/{owner}/{repo}"},
		{"/app", "/app"},
		{"/rate_limit", "/rate_limit"},
		// Unknown paths collapse to one label: no repository name leaks
		// into metrics, and the label set stays bounded.
		{"/repos/secret-org/secret-repo/issues/1", "other"},
		{"/graphql", "other"},
	}
	for _, tt := range tests {
		if got := Endpoint(tt.path); got != tt.want {
			t.Errorf("Endpoint(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// scripted is a RoundTripper that answers from a list and records what it
// was sent.
type scripted struct {
	answers []func(*http.Request) (*http.Response, error)
	bodies  []string
	calls   int
}

func (s *scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	var body string
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		body = string(b)
	}
	s.bodies = append(s.bodies, body)
	i := min(s.calls, len(s.answers)-1)
	s.calls++
	return s.answers[i](req)
}

func status(code int, header map[string]string, body string) func(*http.Request) (*http.Response, error) {
	return func(req *http.Request) (*http.Response, error) {
		h := http.Header{}
		for k, v := range header {
			h.Set(k, v)
		}
		return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
	}
}

func netErr(*http.Request) (*http.Response, error) {
	return nil, errors.New("connection reset by peer")
}

func TestTransportRetries(t *testing.T) {
	farReset := strconv.FormatInt(time.Now().Add(2*time.Hour).Unix(), 10)
	tests := []struct {
		name      string
		method    string
		answers   []func(*http.Request) (*http.Response, error)
		wantCalls int
		wantCode  int // 0: an error is expected
		wantWaits []time.Duration
		// waitRange checks backoff waits, which are jittered.
		waitRange [2]time.Duration
		appending bool // the request appends annotations
	}{
		{
			name: "an appending PATCH 502 is not retried (GitHub may have applied it)", method: http.MethodPatch, appending: true,
			answers:   []func(*http.Request) (*http.Response, error){status(502, nil, ""), status(200, nil, "{}")},
			wantCalls: 1, wantCode: 502,
		},
		{
			name: "an appending PATCH is not retried after a network error", method: http.MethodPatch, appending: true,
			answers:   []func(*http.Request) (*http.Response, error){netErr, status(200, nil, "{}")},
			wantCalls: 1, wantCode: 0,
		},
		{
			name: "an appending PATCH is retried after a secondary limit (never processed)", method: http.MethodPatch, appending: true,
			answers:   []func(*http.Request) (*http.Response, error){status(403, map[string]string{"Retry-After": "3"}, `{"message":"You have exceeded a secondary rate limit"}`), status(200, nil, "{}")},
			wantCalls: 2, wantCode: 200, wantWaits: []time.Duration{3 * time.Second},
		},
		{
			name: "GET 502 then 200 is retried", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(502, nil, ""), status(200, nil, "{}")},
			wantCalls: 2, wantCode: 200, waitRange: [2]time.Duration{125 * time.Millisecond, 250 * time.Millisecond},
		},
		{
			name: "POST 502 is not retried (it may have been applied)", method: http.MethodPost,
			answers:   []func(*http.Request) (*http.Response, error){status(502, nil, ""), status(200, nil, "{}")},
			wantCalls: 1, wantCode: 502,
		},
		{
			name: "PATCH 503 is retried with its body", method: http.MethodPatch,
			answers:   []func(*http.Request) (*http.Response, error){status(503, nil, ""), status(200, nil, "{}")},
			wantCalls: 2, wantCode: 200, waitRange: [2]time.Duration{125 * time.Millisecond, 250 * time.Millisecond},
		},
		{
			name: "429 honours Retry-After", method: http.MethodPost,
			answers:   []func(*http.Request) (*http.Response, error){status(429, map[string]string{"Retry-After": "7"}, ""), status(201, nil, "{}")},
			wantCalls: 2, wantCode: 201, wantWaits: []time.Duration{7 * time.Second},
		},
		{
			name: "Retry-After is capped by MaxWait", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(429, map[string]string{"Retry-After": "3600"}, ""), status(200, nil, "{}")},
			wantCalls: 2, wantCode: 200, wantWaits: []time.Duration{10 * time.Second},
		},
		{
			name: "secondary limit 403 with Retry-After", method: http.MethodPost,
			answers:   []func(*http.Request) (*http.Response, error){status(403, map[string]string{"Retry-After": "2"}, `{"message":"You have exceeded a secondary rate limit"}`), status(201, nil, "{}")},
			wantCalls: 2, wantCode: 201, wantWaits: []time.Duration{2 * time.Second},
		},
		{
			name: "secondary limit 403 without Retry-After waits a minute (capped)", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(403, nil, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes"}`), status(200, nil, "{}")},
			wantCalls: 2, wantCode: 200, wantWaits: []time.Duration{10 * time.Second},
		},
		{
			name: "primary limit far away is not waited for", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": farReset}, `{"message":"API rate limit exceeded"}`)},
			wantCalls: 1, wantCode: 403,
		},
		{
			name: "a plain 403 (permission) is not retried", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(403, nil, `{"message":"Resource not accessible by integration"}`)},
			wantCalls: 1, wantCode: 403,
		},
		{
			name: "404 is not retried", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(404, nil, `{"message":"Not Found"}`)},
			wantCalls: 1, wantCode: 404,
		},
		{
			name: "attempts run out: the last answer is returned", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){status(500, nil, "")},
			wantCalls: 3, wantCode: 500,
		},
		{
			name: "network error on GET is retried", method: http.MethodGet,
			answers:   []func(*http.Request) (*http.Response, error){netErr, status(200, nil, "{}")},
			wantCalls: 2, wantCode: 200, waitRange: [2]time.Duration{125 * time.Millisecond, 250 * time.Millisecond},
		},
		{
			name: "network error on POST is not retried", method: http.MethodPost,
			answers:   []func(*http.Request) (*http.Response, error){netErr, status(201, nil, "{}")},
			wantCalls: 1, wantCode: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &scripted{answers: tt.answers}
			var waits []time.Duration
			tr := &Transport{Base: base, Attempts: 3, MaxWait: 10 * time.Second,
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			const payload = `{"output":{"title":"t"}}`
			ctx := context.Background()
			if tt.appending {
				ctx = appending(ctx)
			}
			req, err := http.NewRequestWithContext(ctx, tt.method, "https://api.github.com/repos/o/r/check-runs/1", bytes.NewBufferString(payload))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			if tt.wantCode == 0 {
				if err == nil {
					t.Fatalf("want an error, got status %d", resp.StatusCode)
				}
			} else {
				if err != nil {
					t.Fatalf("RoundTrip: %v", err)
				}
				if resp.StatusCode != tt.wantCode {
					t.Errorf("status %d, want %d", resp.StatusCode, tt.wantCode)
				}
				// The body must still be readable after the transport
				// peeked at it.
				if _, err := io.ReadAll(resp.Body); err != nil {
					t.Errorf("reading the returned body: %v", err)
				}
			}
			if base.calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", base.calls, tt.wantCalls)
			}
			for i, b := range base.bodies {
				if b != payload {
					t.Errorf("attempt %d sent body %q, want %q", i+1, b, payload)
				}
			}
			if tt.wantWaits != nil && fmt.Sprint(waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits %v, want %v", waits, tt.wantWaits)
			}
			if tt.waitRange[1] > 0 {
				if len(waits) != 1 || waits[0] < tt.waitRange[0] || waits[0] > tt.waitRange[1] {
					t.Errorf("waits %v, want one in [%v, %v]", waits, tt.waitRange[0], tt.waitRange[1])
				}
			}
			if tt.wantCalls == 1 && len(waits) != 0 {
				t.Errorf("waited %v without retrying", waits)
			}
		})
	}
}

func TestTransportStopsWhenContextEnds(t *testing.T) {
	base := &scripted{answers: []func(*http.Request) (*http.Response, error){status(502, nil, "")}}
	tr := &Transport{Base: base, Attempts: 4}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.github.com/repos/o/r", nil)
	_, err := tr.RoundTrip(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if base.calls != 1 {
		t.Errorf("%d calls after the context ended, want 1", base.calls)
	}
}

func TestConclusion(t *testing.T) {
	tests := []struct {
		d            report.Decision
		policyBroken bool
		want         string
	}{
		{report.DecisionBlock, false, "failure"},
		{report.DecisionBlock, true, "failure"},
		{report.DecisionRequireReview, false, "action_required"},
		{report.DecisionAllow, true, "action_required"},
		{report.DecisionAllow, false, "success"},
	}
	for _, tt := range tests {
		if got := conclusion(tt.d, tt.policyBroken); got != tt.want {
			t.Errorf("conclusion(%s, broken=%v) = %q, want %q", tt.d, tt.policyBroken, got, tt.want)
		}
	}
}

func TestTitle(t *testing.T) {
	widen := report.Change{Expands: true}
	narrow := report.Change{Expands: false}
	tests := []struct {
		name string
		r    report.Report
		note string
		want string
	}{
		{"nothing", report.Report{Decision: report.DecisionAllow}, "", "No permission change"},
		{"narrowing", report.Report{Decision: report.DecisionAllow, Changes: []report.Change{narrow, narrow}}, "", "No expansion: 2 changes narrow, respell or add nothing"},
		{"review one", report.Report{Decision: report.DecisionRequireReview, Changes: []report.Change{widen, narrow},
			Findings: []report.Finding{{Action: "require_review"}}}, "", "Review required: 1 change widens what the agent may do"},
		{"review findings only", report.Report{Decision: report.DecisionRequireReview,
			Findings: []report.Finding{{Action: "require_review"}, {Action: "require_review"}}}, "", "Review required: 2 findings"},
		{"block names the first blocking finding", report.Report{Decision: report.DecisionBlock, Changes: []report.Change{widen},
			Findings: []report.Finding{{Action: "require_review", Title: "other"}, {Action: "block", Title: "Bash(npx *) runs any package"}}}, "",
			"Blocked: Bash(npx *) runs any package"},
		{"approved", report.Report{Decision: report.DecisionAllow, Changes: []report.Change{widen},
			Findings: []report.Finding{{Action: "require_review", Cleared: "alice (org/sec)"}}}, "", "Approved: 1 finding cleared by a reviewer team"},
		{"policy note on review", report.Report{Decision: report.DecisionRequireReview, Changes: []report.Change{widen}}, "the policy file does not parse",
			"Review required: 1 change widens what the agent may do; the policy file does not parse"},
		{"policy note alone", report.Report{Decision: report.DecisionAllow}, "the policy file does not parse", "Policy file does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := title(tt.r, tt.note); got != tt.want {
				t.Errorf("title = %q, want %q", got, tt.want)
			}
		})
	}
	long := report.Report{Decision: report.DecisionBlock, Findings: []report.Finding{{Action: "block", Title: strings.Repeat("é", 500)}}}
	if got := title(long, ""); utf8.RuneCountInString(got) != 200 || !strings.HasSuffix(got, "…") {
		t.Errorf("a long title is %d runes, want 200 ending in …", utf8.RuneCountInString(got))
	}
}

func TestTruncateBytes(t *testing.T) {
	for _, s := range []string{"", "abc", strings.Repeat("a", 100), strings.Repeat("日本", 40), "a" + strings.Repeat("😀", 30)} {
		for n := 4; n <= 110; n++ {
			got := truncateBytes(s, n)
			if len(got) > n {
				t.Fatalf("truncateBytes(%q, %d) is %d bytes", s, n, len(got))
			}
			if !utf8.ValidString(got) {
				t.Fatalf("truncateBytes(%q, %d) = %q is not valid UTF-8", s, n, got)
			}
			if len(s) <= n && got != s {
				t.Fatalf("truncateBytes(%q, %d) changed a string that fits", s, n)
			}
			if len(s) > n && (!strings.HasSuffix(got, "…") || !strings.HasPrefix(s, strings.TrimSuffix(got, "…"))) {
				t.Fatalf("truncateBytes(%q, %d) = %q: not a prefix ending in …", s, n, got)
			}
		}
	}
}

func TestSanitizeError(t *testing.T) {
	err := fmt.Errorf("GET https://api.github.com/repos/o/r/contents/x?ref=abc&token=s3cret: 502 Bad Gateway")
	got := sanitizeError(err)
	if strings.Contains(got, "s3cret") || strings.Contains(got, "?") {
		t.Errorf("sanitizeError kept the query: %q", got)
	}
	if !strings.Contains(got, "502 Bad Gateway") || !strings.Contains(got, "/contents/x") {
		t.Errorf("sanitizeError lost the useful part: %q", got)
	}
	if got := sanitizeError(errors.New(strings.Repeat("x", 2000))); len(got) > 500 {
		t.Errorf("sanitizeError left %d bytes", len(got))
	}
	if got := sanitizeError(nil); got == "" {
		t.Error("sanitizeError(nil) is empty")
	}
}

func TestIsSHA(t *testing.T) {
	for s, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef01234567": true,
		"0123456789ABCDEF0123456789abcdef01234567": false,
		"main": false,
		"0123456789abcdef0123456789abcdef0123456":  false,
		"refs/heads/0123456789abcdef0123456789abc": false,
	} {
		if got := isSHA(s); got != want {
			t.Errorf("isSHA(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestInherit(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	parent := Job{DeliveryID: "d-1", Event: "push", ReceivedAt: at}
	own := Job{DeliveryID: "d-2", Event: "pull_request", ReceivedAt: at.Add(time.Hour)}
	fs := []Job{{Kind: KindEvaluatePR}, own}
	Inherit(parent, fs)
	if fs[0].DeliveryID != "d-1" || fs[0].Event != "push" || !fs[0].ReceivedAt.Equal(at) {
		t.Errorf("an empty follow-up did not inherit: %+v", fs[0])
	}
	if fs[1] != own {
		t.Errorf("a follow-up's own fields were overwritten: %+v", fs[1])
	}
}

func TestMayHaveApplied(t *testing.T) {
	resp := func(code int) *http.Response { return &http.Response{StatusCode: code, Request: &http.Request{}} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"502", &github.ErrorResponse{Response: resp(502)}, true},
		{"500", &github.ErrorResponse{Response: resp(500)}, true},
		{"422 validation", &github.ErrorResponse{Response: resp(422)}, false},
		{"403 permission", &github.ErrorResponse{Response: resp(403)}, false},
		{"rate limit", &github.RateLimitError{Response: resp(403)}, false},
		{"secondary limit", &github.AbuseRateLimitError{Response: resp(403)}, false},
		{"no answer", fmt.Errorf("POST: %w", errors.New("connection reset by peer")), true},
	}
	for _, tt := range tests {
		if got := mayHaveApplied(tt.err); got != tt.want {
			t.Errorf("%s: mayHaveApplied = %v, want %v", tt.name, got, tt.want)
		}
	}
}
