package conformance

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
)

// openCodeCICases is the fixed subset make test decides (each case starts
// the binary once: 4 s of CPU, 5-25 s of wall time on two cores).
const openCodeCICases = 4

// TestOpenCodeConformance decides the fixed-seed cases with the pinned
// OpenCode binary's own rule list and with Shipgate's reading, and fails
// on any disagreement. Without the binary it skips, unless
// SHIPGATE_REQUIRE_OPENCODE=1 (CI). SHIPGATE_OPENCODE_N sets the number
// of cases (make conformance-opencode runs the full corpus).
func TestOpenCodeConformance(t *testing.T) {
	bin := FindOpenCode()
	if bin == "" {
		msg := "no OpenCode binary: `make opencode` installs opencode-ai@" + OpenCodeVersion + " into " + OpenCodeCacheDir()
		if os.Getenv(OpenCodeRequireEnv) == "1" {
			t.Fatal(msg + "; $" + OpenCodeRequireEnv + "=1 makes this a failure")
		}
		t.Skip(msg)
	}
	ctx := context.Background()
	if err := CheckOpenCodeVersion(ctx, bin); err != nil {
		t.Fatal(err)
	}
	n := openCodeCICases
	if testing.Short() {
		n = 2
	}
	if s := os.Getenv("SHIPGATE_OPENCODE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SHIPGATE_OPENCODE_N: %v", err)
		}
	}
	r := RunOpenCode(ctx, bin, GenerateOpenCode(1, n), 2)
	var buf bytes.Buffer
	r.Write(&buf, 20)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("OpenCode %s and Shipgate disagree (the report above lists each)", OpenCodeVersion)
	}
}

// TestOpenCodeWild holds the oracle's own matcher to OpenCode's
// documented wildcard (https://opencode.ai/v1/docs/permissions/).
func TestOpenCodeWild(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{{"*", "anything at/all", true}, {"git *", "git", true}, {"git *", "git status", true}, {"git *", "gitx", false},
		{"?it *", "git log", true}, {"rm *", "rm -rf /", true}, {"bash", "bash", true}, {"*.env", "config/.env", true}, {"a.b", "axb", false}} {
		if got := openCodeWild(c.p, c.s); got != c.want {
			t.Errorf("openCodeWild(%q, %q) = %v", c.p, c.s, got)
		}
	}
}
