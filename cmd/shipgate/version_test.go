package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestVersion: `shipgate version` and `shipgate --version` print the same
// line with the version, the commit and the Go version.
func TestVersion(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "1.2.3", "0123456789abcdef0123456789abcdef01234567"
	want := "shipgate 1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errs := runCLI(args...)
		if code != 0 || out != want {
			t.Errorf("shipgate %v: exit %d, stdout %q (stderr %q), want %q", args, code, out, errs, want)
		}
	}
	if code, _, errs := runCLI("version", "extra"); code != exitUsage || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, %q", code, errs)
	}
	// Unstamped: the commit comes from Go's VCS stamp or says unknown,
	// never an empty string.
	commit = ""
	if c := buildCommit(); !regexp.MustCompile(`^([0-9a-f]{40}(-dirty)?|unknown)$`).MatchString(c) {
		t.Errorf("buildCommit() = %q", c)
	}
}

// TestBuildInfoMetric: /metrics of a running App carries shipgate_build_info
// with the version, commit and Go version.
func TestBuildInfoMetric(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "9.8.7", "feedface"
	env := newE2E(t)
	body := env.get("/metrics", http.StatusOK)
	want := `shipgate_build_info{commit="feedface",goversion="` + runtime.Version() + `",version="9.8.7"} 1`
	if !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %s", want)
	}
}

// TestProbe: exit 0 on 2xx, 1 otherwise or when nothing answers, 2 for a
// bad URL.
func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			fmt.Fprintln(w, "ready")
		case "/slow":
			time.Sleep(300 * time.Millisecond)
		default:
			http.Error(w, "the GitHub App credentials do not work yet", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{srv.URL + "/readyz"}, 0, "200 OK ready"},
		{[]string{srv.URL + "/other"}, 1, "503 Service Unavailable the GitHub App credentials"},
		{[]string{"--timeout", "50ms", srv.URL + "/slow"}, 1, ""},
		{[]string{closed.URL + "/readyz"}, 1, ""},
		{[]string{"ftp://example.com/"}, 2, ""},
		{[]string{"readyz"}, 2, ""},
		{nil, 2, ""},
	}
	for _, c := range cases {
		code, out, errs := runCLI(append([]string{"probe"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("probe %v: exit %d (want %d), stdout %q, stderr %q", c.args, code, c.code, out, errs)
		}
	}
}
