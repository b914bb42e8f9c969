package conformance

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// copilotCICases is the fixed subset make test compares (two starts of
// the binary a case, about a second each on two cores).
const copilotCICases = 4

// TestCopilotConformance compares the skills and language servers the
// pinned Copilot CLI lists with those Shipgate reads, on the fixed-seed
// cases. Without the binary it skips, unless SHIPGATE_REQUIRE_COPILOT=1
// (CI). SHIPGATE_COPILOT_N sets the number of cases (make
// conformance-copilot runs the full corpus).
func TestCopilotConformance(t *testing.T) {
	ctx := context.Background()
	bin, n := pinnedForTest(t, copilotBinary, "SHIPGATE_COPILOT_N", copilotCICases)
	r := RunCopilot(ctx, bin, GenerateCopilot(1, n))
	var buf bytes.Buffer
	r.Write(&buf, 20)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("Copilot CLI %s and Shipgate disagree (the report above lists each)", CopilotVersion)
	}
}

// copilotRunCICases is the fixed subset of runtime sessions make test
// runs (one `copilot -p` a case: about 6 s).
const copilotRunCICases = 3

// TestCopilotRuntime runs real tool calls under the fixed-seed cases'
// repository settings (a fake model asks for them) and compares what
// Copilot CLI runs without a prompt with Shipgate's model.
// SHIPGATE_COPILOT_RUN_N sets the number of cases (make
// conformance-copilot runs the full corpus).
func TestCopilotRuntime(t *testing.T) {
	ctx := context.Background()
	bin, n := pinnedForTest(t, copilotBinary, "SHIPGATE_COPILOT_RUN_N", copilotRunCICases)
	r := RunCopilotRuntime(ctx, bin, GenerateCopilotRun(1, n), 2)
	var buf strings.Builder
	r.Write(&buf, 40)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("Copilot CLI %s at run time and Shipgate disagree (the report above lists each)", CopilotVersion)
	}
}
