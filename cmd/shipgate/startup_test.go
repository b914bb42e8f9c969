package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes is what one of Shipgate's packages may allocate while it
// initialises. Every process pays for every linked package's init —
// `shipgate check` on one file as much as `serve` — so a table that only
// some commands need is built on first use (sync.OnceValue), not at init.
const maxInitBytes = 256 << 10

// TestPackageInitIsCheap runs this test binary (which links every package
// the command does) with GODEBUG=inittrace=1 and no test, and fails when
// one of Shipgate's packages allocates more than maxInitBytes in its init:
// the embedded Claude Code settings schema parsed at init was 2 MB and
// about a third of a one-shot `shipgate check`'s CPU (docs/benchmarks.md).
// Allocations, not time, so a loaded machine cannot fail it.
func TestPackageInitIsCheap(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the test binary with inittrace: %v\n%s", err, stderr.String())
	}
	inits := parseInitTrace(stderr.Bytes())
	if len(inits) == 0 {
		t.Fatalf("no inittrace lines in the test binary's output:\n%s", stderr.String())
	}
	seen := false
	for pkg, b := range inits {
		if !strings.HasPrefix(pkg, "github.com/shipgate-app/shipgate/") {
			continue
		}
		seen = true
		if b > maxInitBytes {
			t.Errorf("package %s allocates %d KB in its init, over %d KB: build what only some commands need on first use", pkg, b>>10, maxInitBytes>>10)
		}
	}
	if !seen {
		t.Fatalf("no Shipgate package in the inittrace:\n%s", stderr.String())
	}
}

// parseInitTrace reads GODEBUG=inittrace=1 lines ("init PKG @0.1 ms, 0.2
// ms clock, 1024 bytes, 5 allocs") into bytes allocated per package.
func parseInitTrace(out []byte) map[string]int {
	inits := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		if b, err := strconv.Atoi(f[7]); err == nil {
			inits[f[1]] += b
		}
	}
	return inits
}

func TestParseInitTrace(t *testing.T) {
	out := []byte("init runtime @0.035 ms, 0.29 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/shipgate-app/shipgate/diff/claudeschema @5.7 ms, 8.7 ms clock, 2034328 bytes, 31793 allocs\n" +
		"other output\n")
	got := parseInitTrace(out)
	if len(got) != 2 || got["github.com/shipgate-app/shipgate/diff/claudeschema"] != 2034328 || got["runtime"] != 0 {
		t.Errorf("parseInitTrace = %v", got)
	}
}
