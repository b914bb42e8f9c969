package conformance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
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
