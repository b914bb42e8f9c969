package conformance

import (
	"bytes"
	"os"
	"sort"
	"testing"

	"github.com/shipgate-app/shipgate/rating"
)

// TestTuningEnvInBinary holds rating.ClaudeTuningEnv to the pinned
// binary: every variable Shipgate calls Claude Code's own tuning (an
// advisory ENV-CHANGED, not a review) must be a name the binary reads. A
// name a new version no longer reads fails as a row, so the advisory
// rating never outlives the knob it describes.
func TestTuningEnvInBinary(t *testing.T) {
	bin, data := pinnedBinaryBytes(t)
	names := make([]string, 0, len(rating.ClaudeTuningEnv))
	for name := range rating.ClaudeTuningEnv {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !bytes.Contains(data, []byte(name)) {
			t.Errorf("rating.ClaudeTuningEnv names %s, which Claude Code %s does not read (not in %s): remove it, or find what replaced it", name, ClaudeCodeVersion, bin)
		}
	}
}

// pinnedBinaryBytes is the pinned Claude Code binary's path and bytes, for
// the tests that read a table out of it; without the binary the test is
// skipped, or fails when $RequireEnv is 1, as in CI.
func pinnedBinaryBytes(t *testing.T) (string, []byte) {
	t.Helper()
	bin := ClaudeForTest(t)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return bin, data
}
