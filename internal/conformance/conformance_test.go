package conformance

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
)

// ciSeed and ciDecisions are the fixed subset CI runs (a few minutes on two
// cores); SHIPGATE_CONFORMANCE_SEED and SHIPGATE_CONFORMANCE_N override them.
const (
	ciSeed      = 1
	ciDecisions = 3000
)

// TestConformance runs the fixed-seed subset against the pinned Claude Code
// binary and fails on any disagreement known.txt does not list. Without the
// binary it skips, unless SHIPGATE_REQUIRE_CLAUDE=1 (CI), when it fails.
func TestConformance(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions for minutes; not in -short")
	}
	ctx := context.Background()
	known, err := KnownDisagreements()
	if err != nil {
		t.Fatal(err)
	}
	seed, n := uint64(ciSeed), ciDecisions
	if s := os.Getenv("SHIPGATE_CONFORMANCE_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("SHIPGATE_CONFORMANCE_SEED: %v", err)
		}
	}
	if s := os.Getenv("SHIPGATE_CONFORMANCE_N"); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SHIPGATE_CONFORMANCE_N: %v", err)
		}
	}
	r := Execute(ctx, Driver{Binary: bin}, Generate(seed, n), 2, known, nil)
	r.Seed = seed
	var buf bytes.Buffer
	r.Write(&buf, 2)
	t.Log("\n" + buf.String())
	if p := os.Getenv("SHIPGATE_CONFORMANCE_REPORT"); p != "" {
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Errorf("write the report: %v", err)
		}
	}
	if r.Failed() {
		t.Fatalf("Claude Code %s and Shipgate disagree beyond known.txt (the report above lists each)", ClaudeCodeVersion)
	}
}
