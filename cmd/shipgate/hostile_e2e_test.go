package main

import (
	"strings"
	"testing"
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
