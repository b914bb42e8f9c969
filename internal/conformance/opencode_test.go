package conformance

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pinnedForTest returns the pinned binary and the number of cases to
// run: it skips without the binary, unless its require variable is 1 (CI,
// a failure then); it refuses another release; nEnv overrides def (the
// make targets run the full corpora), and -short halves def.
func pinnedForTest(t *testing.T, b pinnedBinary, nEnv string, def int) (string, int) {
	t.Helper()
	bin := b.find()
	if bin == "" {
		if os.Getenv(b.requireEnv) == "1" {
			t.Fatal(b.missing() + "; $" + b.requireEnv + "=1 makes this a failure")
		}
		t.Skip(b.missing())
	}
	if err := b.check(context.Background(), bin); err != nil {
		t.Fatal(err)
	}
	n := def
	if testing.Short() {
		n = max(def/2, 1)
	}
	if s := os.Getenv(nEnv); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("$%s: %v", nEnv, err)
		}
	}
	return bin, n
}

// openCodeCICases is the fixed subset make test decides (each case starts
// the binary once: 4 s of CPU, 5-25 s of wall time on two cores).
const openCodeCICases = 4

// TestOpenCodeConformance decides the fixed-seed cases with the pinned
// OpenCode binary's own rule list and with Shipgate's reading, and fails
// on any disagreement. Without the binary it skips, unless
// SHIPGATE_REQUIRE_OPENCODE=1 (CI). SHIPGATE_OPENCODE_N sets the number
// of cases (make conformance-opencode runs the full corpus).
func TestOpenCodeConformance(t *testing.T) {
	ctx := context.Background()
	bin, n := pinnedForTest(t, openCodeBinary, "SHIPGATE_OPENCODE_N", openCodeCICases)
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

// openCodeRunCICases is the fixed subset of runtime sessions make test
// runs (one `opencode run` a case: 5-25 s of wall time on two cores).
const openCodeRunCICases = 2

// TestOpenCodeRuntime runs real tool calls under the fixed-seed cases'
// configurations (a fake model asks for them) and compares what
// OpenCode's permission system decides at run time with Shipgate's
// model. SHIPGATE_OPENCODE_RUN_N sets the number of cases (make
// conformance-opencode runs the full corpus).
func TestOpenCodeRuntime(t *testing.T) {
	ctx := context.Background()
	bin, n := pinnedForTest(t, openCodeBinary, "SHIPGATE_OPENCODE_RUN_N", openCodeRunCICases)
	r := RunOpenCodeRuntime(ctx, bin, GenerateOpenCode(1, n), 2)
	var buf strings.Builder
	r.Write(&buf, 40)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("OpenCode %s at run time and Shipgate disagree (the report above lists each)", OpenCodeVersion)
	}
}
