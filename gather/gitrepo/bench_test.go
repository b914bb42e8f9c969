package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The huge repository: hugeModules × hugePkgs × hugeFiles source files,
// plus a root .claude/settings.json and, in every tenth module, a nested
// .claude/settings.json and .mcp.json that do not change.
const (
	hugeModules = 500
	hugePkgs    = 20
	hugeFiles   = 20
)

// hugeRepo is generated once per test process (it takes seconds and about
// 1 GB of disk: 200k files checked out) under the TestMain temp dir, which
// is removed at exit.
var hugeRepo struct {
	once sync.Once
	dir  string
	gen  time.Duration
	err  error
}

// hugeRepoDir returns a checked-out repository of ~200,000 files on branch
// feature (forked from main, no commits of its own) whose working tree
// changes exactly one file, .claude/settings.json.
//
// How it is built, the fastest honest method measured (2 CPUs): git
// fast-import streams all blobs and one commit straight into a pack (2-8
// s), then a real checkout (parallel workers) writes the files and a fresh
// index with stat data (~5 s), so git sees what it sees in a developer's
// clone. Writing the files and running git add -A + commit took ~23 s
// (hashing every file, writing loose objects); an index built with
// update-index --index-info has no stat data, so git would re-hash every
// file on the first refresh — not the state a real checkout is in.
func hugeRepoDir(b *testing.B) string {
	b.Helper()
	hugeRepo.once.Do(func() {
		start := time.Now()
		hugeRepo.dir, hugeRepo.err = generateHugeRepo(b, filepath.Join(testTmp, "huge"))
		hugeRepo.gen = time.Since(start)
	})
	if hugeRepo.err != nil {
		b.Fatalf("generating the huge repository: %v", hugeRepo.err)
	}
	return hugeRepo.dir
}

func generateHugeRepo(b *testing.B, dir string) (string, error) {
	initRepo(b, dir)
	cmd := exec.Command("git", "fast-import", "--quiet", "--date-format=raw")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	fmt.Fprint(w, "commit refs/heads/main\ncommitter Shipgate Bench <bench@shipgate.invalid> 1700000000 +0000\ndata 5\nhuge\n")
	file := func(path, content string) {
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	file(".claude/settings.json", baseSettings+"\n")
	for m := 0; m < hugeModules; m++ {
		if m%10 == 0 {
			file(fmt.Sprintf("mod%03d/.claude/settings.json", m), baseSettings+"\n")
			file(fmt.Sprintf("mod%03d/.mcp.json", m), oldMCP+"\n")
		}
		for p := 0; p < hugePkgs; p++ {
			for f := 0; f < hugeFiles; f++ {
				file(fmt.Sprintf("mod%03d/pkg%02d/f%02d.go", m, p, f),
					fmt.Sprintf("package pkg%02d\n\n// Module %d, package %d, file %d.\nfunc F%02d() int { return %d }\n", p, m, p, f, f, m*p*f))
			}
		}
	}
	fmt.Fprint(w, "\n")
	if err := w.Flush(); err != nil {
		return "", err
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("git fast-import: %v: %s", err, stderr.String())
	}
	gitT(b, dir, "-c", "checkout.workers=0", "checkout", "-q", "-f", "main")
	gitT(b, dir, "checkout", "-q", "-b", "feature")
	writeFile(b, dir, ".claude/settings.json", featureSettings+"\n")
	return dir, nil
}

// hugePipeline is what shipgate diff does with git, end to end.
func hugePipeline(ctx context.Context, dir string) error {
	r, err := Open(ctx, dir)
	if err != nil {
		return err
	}
	mb, err := r.MergeBase(ctx, "main")
	if err != nil {
		return err
	}
	return changedAndRead(ctx, r, mb)
}

func changedAndRead(ctx context.Context, r *Repo, base string) error {
	cs, err := r.Changed(ctx, base, shipgatePaths, nil)
	if err != nil {
		return err
	}
	if len(cs) != 1 || cs[0].Path != ".claude/settings.json" {
		return fmt.Errorf("Changed = %+v, want exactly .claude/settings.json", cs)
	}
	before, ok, err := r.ReadAt(ctx, base, cs[0].Path, 1<<20)
	if err != nil || !ok || string(before) != baseSettings+"\n" {
		return fmt.Errorf("ReadAt = %q, %v, %v", before, ok, err)
	}
	after, ok, err := r.ReadWorking(cs[0].Path, 1<<20)
	if err != nil || !ok || string(after) != featureSettings+"\n" {
		return fmt.Errorf("ReadWorking = %q, %v, %v", after, ok, err)
	}
	return nil
}

// BenchmarkChangedHugeRepo measures, on a ~200,000-file checked-out
// repository with one changed settings file: Changed + ReadAt +
// ReadWorking ("changed+read"), and the whole of what shipgate diff asks
// git ("open+mergebase+changed+read"). After the timed loop it runs the
// whole pipeline once more in a child process (this test binary, see
// TestHugeRepoMeasure) and reports that run's wall time and peak RSS —
// the maximum over the child and every git it started.
func BenchmarkChangedHugeRepo(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a 200,000-file repository; skipped in -short mode")
	}
	dir := hugeRepoDir(b)
	ctx := context.Background()
	b.Logf("generated %d files in %v (fast-import + checkout)", hugeModules*hugePkgs*hugeFiles+101, hugeRepo.gen.Round(time.Millisecond))

	b.Run("changed+read", func(b *testing.B) {
		r, err := Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		mb, err := r.MergeBase(ctx, "main")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := changedAndRead(ctx, r, mb); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(hugeRepo.gen.Seconds(), "gen-s")
	})
	b.Run("open+mergebase+changed+read", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := hugePipeline(ctx, dir); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		wall, inner, rssKB, err := measureInChild(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(wall.Milliseconds()), "child-wall-ms")
		b.ReportMetric(float64(inner.Milliseconds()), "child-pipeline-ms")
		if rssKB >= 0 {
			b.ReportMetric(float64(rssKB)/1024, "peak-RSS-MB")
		}
	})
}

const measureEnv = "SHIPGATE_GITREPO_MEASURE_REPO"

// measureInChild runs TestHugeRepoMeasure in a fresh process and returns
// its wall time, the pipeline time it reports, and its peak RSS in KiB
// (which on Linux and the BSDs covers the git processes it waited for).
func measureInChild(dir string) (wall, inner time.Duration, rssKB int64, err error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugeRepoMeasure$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), measureEnv+"="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("measuring in a child process: %v\n%s", err, out.String())
	}
	wall = time.Since(start)
	for _, line := range strings.Split(out.String(), "\n") {
		if _, v, ok := strings.Cut(line, "pipeline-ns="); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			inner = time.Duration(n)
		}
	}
	return wall, inner, maxRSSKB(cmd.ProcessState), nil
}

// TestHugeRepoMeasure is the child half of BenchmarkChangedHugeRepo; it
// does nothing unless the benchmark started it.
func TestHugeRepoMeasure(t *testing.T) {
	dir := os.Getenv(measureEnv)
	if dir == "" {
		t.Skip("run by BenchmarkChangedHugeRepo only")
	}
	start := time.Now()
	if err := hugePipeline(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("pipeline-ns=%d\n", time.Since(start).Nanoseconds())
}
