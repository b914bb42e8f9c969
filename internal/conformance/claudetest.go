package conformance

import (
	"context"
	"os"
	"testing"
)

// ClaudeForTest returns the pinned Claude Code binary for a test that
// starts it or reads it. Every such test, in this package and outside it,
// takes the binary from here, so they all treat a missing one alike:
// without it the test skips while $RequireEnv is unset, and fails, saying
// how to install it, when it is set (CI sets it: a skip there would pass
// a run that measured nothing). A binary of another release fails the
// test too: its rows would measure a version the model does not name.
func ClaudeForTest(t testing.TB) string {
	t.Helper()
	bin := FindBinary()
	if bin == "" {
		msg := "no Claude Code binary: `make claude-code` installs @anthropic-ai/claude-code@" + ClaudeCodeVersion +
			" into " + CacheDir() + " (or set $" + BinaryEnv + ")"
		if os.Getenv(RequireEnv) != "" {
			t.Fatal(msg + "; $" + RequireEnv + " is set, which makes this a failure")
		}
		t.Skip(msg)
	}
	if err := CheckVersion(context.Background(), bin); err != nil {
		t.Fatal(err)
	}
	return bin
}
