package conformance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// geminiCIDecisions is the fixed subset CI decides (one node process,
// a few seconds).
const geminiCIDecisions = 3000

// TestGeminiConformance decides the fixed-seed corpus with the policy
// engine of the pinned @google/gemini-cli package and with Shipgate's
// model, and fails on any disagreement that is not explained. Without
// the package (or node) it skips, unless SHIPGATE_REQUIRE_GEMINI=1 (CI).
func TestGeminiConformance(t *testing.T) {
	chunk, err := FindGemini()
	if err != nil {
		t.Fatal(err)
	}
	_, nodeErr := exec.LookPath("node")
	if chunk == "" || nodeErr != nil {
		msg := "no Gemini CLI package or no node: `make gemini` installs @google/gemini-cli@" + GeminiVersion + " into " + GeminiCacheDir()
		if os.Getenv(GeminiRequireEnv) == "1" {
			t.Fatal(msg + "; $" + GeminiRequireEnv + "=1 makes this a failure")
		}
		t.Skip(msg)
	}
	n := geminiCIDecisions
	if testing.Short() {
		n = 300
	}
	r := RunGemini(context.Background(), chunk, GenerateGemini(1, n))
	var buf bytes.Buffer
	r.Write(&buf, 10)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("Gemini CLI %s and Shipgate disagree (the report above lists each)", GeminiVersion)
	}
}

// geminiRunCICases is the fixed subset of runtime sessions make test
// runs (one `gemini -p` a case).
const geminiRunCICases = 3

// TestGeminiRuntime runs real tool calls under the fixed-seed cases'
// settings (a fake Gemini API asks for them) and fails when Gemini CLI
// runs a call without a prompt that Shipgate's model does not allow.
// SHIPGATE_GEMINI_RUN_N sets the number of cases (make
// conformance-gemini-run runs the full corpus).
func TestGeminiRuntime(t *testing.T) {
	bin := GeminiBin()
	if bin == "" {
		if os.Getenv(GeminiRequireEnv) == "1" {
			t.Fatalf("Gemini CLI %s is not installed (make gemini); $%s=1 makes this a failure", GeminiVersion, GeminiRequireEnv)
		}
		t.Skipf("Gemini CLI %s is not installed (make gemini)", GeminiVersion)
	}
	n := geminiRunCICases
	if s := os.Getenv("SHIPGATE_GEMINI_RUN_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("$SHIPGATE_GEMINI_RUN_N: %v", err)
		}
	}
	r := RunGeminiRuntime(context.Background(), bin, GeminiRunCases(1, n), 2)
	var buf strings.Builder
	r.Write(&buf, 40)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("Gemini CLI %s ran calls without a prompt that Shipgate does not allow, or a session failed (the report above lists each)", GeminiVersion)
	}
}
