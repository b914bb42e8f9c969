package main

// Whole-process benchmarks of the real binary: `shipgate diff` on a
// 200,000-file repository side by side with `git status` (the yardstick a
// developer already pays for), and one `shipgate check` (start-up
// included). Each figure is the operating system's accounting of the
// finished child (user + system CPU, its waited-for git processes
// included), as /usr/bin/time reports it; the pairs alternate so that a
// machine whose speed drifts moves both sides.
//
//	go test ./cmd/shipgate -run '^$' -bench 'Process' -benchtime 5x

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"
)

// builtBinary compiles this command once per test process, as users run it.
var builtBinary struct {
	once sync.Once
	path string
	err  error
}

func shipgateBinary(b *testing.B) string {
	b.Helper()
	builtBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "shipgate-bench-bin-")
		if err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.path = filepath.Join(dir, "shipgate")
		out, err := exec.Command("go", "build", "-o", builtBinary.path, ".").CombinedOutput()
		if err != nil {
			builtBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtBinary.err != nil {
		b.Fatal(builtBinary.err)
	}
	return builtBinary.path
}

// cpuOf runs cmd to its end and returns its user + system CPU (with the
// children it waited for) and its exit code.
func cpuOf(b *testing.B, cmd *exec.Cmd) (time.Duration, int) {
	b.Helper()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		b.Fatalf("%v: %v", cmd.Args, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Skip("no rusage on this platform")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, cmd.ProcessState.ExitCode()
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	s := append([]float64(nil), fs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// hugeRepoForDiff generates, with git fast-import and a real checkout,
// 500 modules × 20 packages × 20 files, a settings file and an .mcp.json
// in every tenth module, and symlinks: one in every 50th module (a folder
// link with no agent-like name) and `.claude/shared -> ../mod000/.claude`;
// on branch feature the working tree widens .claude/settings.json.
func hugeRepoForDiff(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "huge")
	run := func(stdin []byte, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	run(nil, "init", "-q", "-b", "main")
	run(nil, "config", "user.email", "bench@shipgate.invalid")
	run(nil, "config", "user.name", "bench")
	var stream bytes.Buffer
	w := bufio.NewWriter(&stream)
	fmt.Fprint(w, "commit refs/heads/main\ncommitter Bench <bench@shipgate.invalid> 1700000000 +0000\ndata 5\nhuge\n")
	entry := func(mode, path, content string) {
		fmt.Fprintf(w, "M %s inline %s\ndata %d\n%s\n", mode, path, len(content), content)
	}
	const settings = `{"permissions":{"allow":["Bash(npm test)"]}}`
	entry("100644", ".claude/settings.json", settings)
	entry("120000", ".claude/shared", "../mod000/.claude")
	for m := 0; m < 500; m++ {
		if m%10 == 0 {
			entry("100644", fmt.Sprintf("mod%03d/.claude/settings.json", m), settings)
			entry("100644", fmt.Sprintf("mod%03d/.mcp.json", m), `{"mcpServers":{}}`)
		}
		if m%50 == 0 {
			entry("120000", fmt.Sprintf("mod%03d/link", m), "pkg00")
		}
		for p := 0; p < 20; p++ {
			for f := 0; f < 20; f++ {
				entry("100644", fmt.Sprintf("mod%03d/pkg%02d/f%02d.go", m, p, f),
					fmt.Sprintf("package pkg%02d\n\n// Module %d, package %d, file %d.\nfunc F%02d() int { return %d }\n", p, m, p, f, f, m*p*f))
			}
		}
	}
	fmt.Fprint(w, "\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	run(stream.Bytes(), "fast-import", "--quiet", "--date-format=raw")
	run(nil, "-c", "checkout.workers=0", "checkout", "-q", "-f", "main")
	run(nil, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(*)"]}}`+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkProcessDiffHugeRepo runs the real `shipgate diff --base main`
// on the generated repository and `git status` there, in turn, and
// reports each one's CPU and the median ratio of the pairs
// (diff-per-status). Each run must find the widening (exit 1 with
// --fail-on block).
func BenchmarkProcessDiffHugeRepo(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a 200,000-file repository; skipped in -short mode")
	}
	bin := shipgateBinary(b)
	dir := hugeRepoForDiff(b) // once: a benchmark with sub-benchmarks runs once
	b.Run("vs-git-status", func(b *testing.B) {
		// One untimed run of each: the page cache and git's index stat data.
		for _, args := range [][]string{{"git", "status", "--porcelain"}, {bin, "diff", "--base", "main"}} {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			cpuOf(b, cmd)
		}
		var diffs, statuses []time.Duration
		var ratios []float64
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(bin, "diff", "--base", "main", "--fail-on", "block")
			cmd.Dir = dir
			d, code := cpuOf(b, cmd)
			if code != 1 {
				b.Fatalf("shipgate diff exited %d, want 1 (the widening blocks)", code)
			}
			st := exec.Command("git", "status", "--porcelain")
			st.Dir = dir
			s, code := cpuOf(b, st)
			if code != 0 {
				b.Fatalf("git status exited %d", code)
			}
			diffs, statuses = append(diffs, d), append(statuses, s)
			ratios = append(ratios, float64(d)/float64(s))
		}
		b.StopTimer()
		b.ReportMetric(float64(median(diffs).Microseconds())/1000, "diff-cpu-ms")
		b.ReportMetric(float64(median(statuses).Microseconds())/1000, "status-cpu-ms")
		b.ReportMetric(medianF(ratios), "diff-per-status")
	})
}

// BenchmarkProcessCheck runs the real `shipgate check` on one settings
// file: what a pre-commit hook or an editor pays per file, start-up and
// package initialisation included.
func BenchmarkProcessCheck(b *testing.B) {
	bin := shipgateBinary(b)
	dir := b.TempDir()
	f := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(f, []byte(`{"permissions":{"allow":["Bash(npm test)","Read(./src/**)"],"deny":["Bash(curl:*)"]}}`+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var cpus []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "check", "--head", f)
		cmd.Dir = dir
		c, code := cpuOf(b, cmd)
		if code != 0 {
			b.Fatalf("shipgate check exited %d", code)
		}
		cpus = append(cpus, c)
	}
	b.StopTimer()
	b.ReportMetric(float64(median(cpus).Microseconds())/1000, "check-cpu-ms")
}
