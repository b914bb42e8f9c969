package main

import (
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
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
