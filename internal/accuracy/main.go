// Command accuracy measures Shipgate on real histories: for every git
// repository under -mirrors (bare or not), it replays the commits of the
// default branch (first parent) that change an agent-config file, and runs
// a shipgate binary's `diff --base PARENT` on a checkout of each commit,
// writing one JSON report a commit under -out. A second pass (-summary)
// reads those reports and prints the figures docs/accuracy.md quotes: the
// share of pairs flagged, by check, and a reproducible random sample of
// flagged and passed pairs to judge by hand.
//
// The corpus is other people's content: keep -mirrors and -out outside
// this repository (the defaults are under the system's temporary folder).
//
//	go run ./internal/accuracy -mirrors /work/.mirror -out /tmp/acc/before -shipgate bin/shipgate
//	go run ./internal/accuracy -summary -out /tmp/acc/before -sample 40
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/shipgate-app/shipgate/agentfiles"
)

func main() {
	mirrors := flag.String("mirrors", "/work/.mirror", "folder of git repositories (each DIR/repo or DIR itself a git directory)")
	out := flag.String("out", filepath.Join(os.TempDir(), "shipgate-accuracy"), "folder for the reports (outside the repository)")
	bin := flag.String("shipgate", "shipgate", "the shipgate binary to measure")
	perRepo := flag.Int("per-repo", 120, "at most this many commits a repository (the newest)")
	runners := flag.Int("runner-commits", 10, "also replay up to this many commits a repository that change only package.json or a Makefile (a hook that runs `npm run x` reads them)")
	summary := flag.Bool("summary", false, "summarise the reports under -out instead of running")
	sample := flag.Int("sample", 30, "with -summary: print this many flagged and this many passed pairs, drawn with -seed")
	seed := flag.Uint64("seed", 1, "with -summary: the sample's seed")
	witnessPairs := flag.String("witness-pairs", "", "write the pairs under -out whose reports print a witness for an allow rule of the project's settings files, with both files at the parent and the commit, to this file (JSON lines for `go run ./cmd/conformance -real-pairs FILE`), instead of running")
	only := flag.String("only", "", "replay only the commits this file lists, one `REPO COMMIT` a line (REPO as the folder under -mirrors), e.g. the pairs an earlier run flagged")
	flag.Parse()
	if *only != "" {
		b, err := os.ReadFile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "accuracy:", err)
			os.Exit(1)
		}
		onlySet = map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				onlySet[f[0]+" "+f[1]] = true
			}
		}
	}
	var err error
	if *witnessPairs != "" {
		var n int
		n, err = exportWitnessPairs(context.Background(), *out, *witnessPairs)
		if err == nil {
			fmt.Fprintf(os.Stderr, "accuracy: %d pairs written to %s\n", n, *witnessPairs)
		}
	} else if *summary {
		err = summarise(*out, *sample, *seed)
	} else {
		err = run(context.Background(), *mirrors, *out, *bin, *perRepo, *runners)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
}

// onlySet, when set (-only), is the commits to replay, as "REPO COMMIT".
var onlySet map[string]bool

// result is what one replayed commit recorded.
type result struct {
	Repo     string          `json:"repo"`
	Commit   string          `json:"commit"`
	Parent   string          `json:"parent"`
	Runner   bool            `json:"runner"` // a package.json/Makefile-only commit
	Exit     int             `json:"exit"`
	Millis   int64           `json:"ms"`
	Stderr   string          `json:"stderr,omitempty"`
	Report   json.RawMessage `json:"report"`
	Reported bool            `json:"-"`
	// LeftOut are the paths the snapshot lacks the content of (fetch
	// leaves out files of 4 MiB and more), kept out of the work tree so
	// the commit could be checked out (checkout).
	LeftOut []string `json:"left_out,omitempty"`
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(e.String()))
	}
	return o.String(), nil
}

func repos(mirrors string) ([]string, error) {
	ents, err := os.ReadDir(mirrors)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		d := filepath.Join(mirrors, e.Name())
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		if st, err := os.Stat(filepath.Join(d, "repo")); err == nil && st.IsDir() {
			d = filepath.Join(d, "repo")
		}
		out = append(out, d)
	}
	return out, nil
}

func run(ctx context.Context, mirrors, out, bin string, perRepo, runners int) error {
	rs, err := repos(mirrors)
	if err != nil {
		return err
	}
	specs := agentfiles.Pathspecs(nil)
	for _, r := range rs {
		name := strings.TrimSuffix(strings.TrimSuffix(r, "/repo"), "/")
		name = filepath.Base(name)
		if err := runRepo(ctx, r, name, out, bin, specs, perRepo, runners); err != nil {
			fmt.Fprintf(os.Stderr, "accuracy: %s: %v\n", name, err)
		}
	}
	return nil
}

func commits(ctx context.Context, repo string, n int, specs []string) ([]string, error) {
	args := append([]string{"log", "--first-parent", "--format=%H %P", "-n", fmt.Sprint(n), "HEAD", "--"}, specs...)
	s, err := git(ctx, repo, args...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 { // a root commit has no parent to compare with
			out = append(out, f[0]+" "+f[1])
		}
	}
	return out, nil
}

func runRepo(ctx context.Context, repo, name, out, bin string, specs []string, perRepo, runners int) error {
	cs, err := commits(ctx, repo, perRepo, specs)
	if err != nil {
		return err
	}
	rc, err := commits(ctx, repo, runners*4, []string{"package.json", "Makefile", "**/package.json"})
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, c := range cs {
		have[c] = true
	}
	var extra []string
	for _, c := range rc {
		if !have[c] && len(extra) < runners {
			extra = append(extra, c)
		}
	}
	if len(cs)+len(extra) == 0 {
		return nil
	}
	clone := filepath.Join(out, ".clones", name)
	if _, err := os.Stat(clone); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(clone), 0o755); err != nil {
			return err
		}
		if _, err := git(ctx, filepath.Dir(clone), "clone", "-q", "--shared", "--no-checkout", repo, clone); err != nil {
			return err
		}
	}
	dir := filepath.Join(out, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	all := append(append([]string(nil), cs...), extra...)
	for i, c := range all {
		f := strings.Fields(c)
		if onlySet != nil && !onlySet[name+" "+f[0]] {
			continue
		}
		dest := filepath.Join(dir, f[0]+".json")
		if _, err := os.Stat(dest); err == nil {
			continue
		}
		leftOut, err := checkout(ctx, clone, f[0])
		if err != nil {
			fmt.Fprintf(os.Stderr, "accuracy: %s %s: %v\n", name, f[0][:8], err)
			continue
		}
		if _, err := git(ctx, clone, "clean", "-q", "-fdx"); err != nil {
			return err
		}
		res := result{Repo: name, Commit: f[0], Parent: f[1], Runner: i >= len(cs), LeftOut: leftOut}
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		cmd := exec.CommandContext(cctx, bin, "diff", "--repo", clone, "--base", f[1], "--format", "json")
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		start := time.Now()
		err = cmd.Run()
		cancel()
		res.Millis = time.Since(start).Milliseconds()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.Exit = ee.ExitCode()
		} else if err != nil {
			return err
		}
		res.Stderr = e.String()
		if json.Valid(o.Bytes()) {
			res.Report = o.Bytes()
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dest, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// missingBlob finds, in git checkout's errors, a path whose blob the
// snapshot lacks.
var missingBlob = regexp.MustCompile(`unable to read sha1 file of (.+?) \([0-9a-f]+\)|invalid object [0-7]+ [0-9a-f]+ for '(.+?)'`)

// checkout checks commit out in clone. A snapshot lacks the content of its
// largest files (fetch leaves out files of 4 MiB and more), and git refuses
// a checkout that would write one: those paths are kept out of the work
// tree (sparse checkout) and returned, so the commit is replayed without
// them. They are never agent-config files a run reads whole (Shipgate
// reads at most report.MaxFileSize of a file), and the summary counts the
// commits that had some.
func checkout(ctx context.Context, clone, commit string) ([]string, error) {
	info := filepath.Join(clone, ".git", "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for try := 0; ; try++ {
		patterns := "/*\n"
		for _, p := range out {
			patterns += "!/" + p + "\n"
		}
		if err := os.WriteFile(filepath.Join(info, "sparse-checkout"), []byte(patterns), 0o644); err != nil {
			return nil, err
		}
		if _, err := git(ctx, clone, "config", "core.sparseCheckout", "true"); err != nil {
			return nil, err
		}
		_, err := git(ctx, clone, "checkout", "-q", "-f", "--detach", commit)
		if err == nil {
			return out, nil
		}
		seen := map[string]bool{}
		for _, p := range out {
			seen[p] = true
		}
		added := false
		for _, m := range missingBlob.FindAllStringSubmatch(err.Error(), -1) {
			p := m[1] + m[2]
			if !seen[p] {
				seen[p], added = true, true
				out = append(out, p)
			}
		}
		if !added || try >= 8 {
			return nil, err
		}
		sort.Strings(out)
	}
}

// report is the part of shipgate.report/v1 the summary reads.
type report struct {
	Decision string `json:"decision"`
	Files    []struct {
		Path   string `json:"path"`
		Agent  string `json:"agent"`
		Status string `json:"status"`
	} `json:"files"`
	Findings []struct {
		CheckID string `json:"check_id"`
		Action  string `json:"action"`
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"findings"`
}

// readResults reads every replayed commit's record under out (the
// clones' folder left out), sorted by repository and commit.
func readResults(out string) ([]result, error) {
	var res []result
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".clones" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var r result
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		res = append(res, r)
		return nil
	})
	sort.Slice(res, func(i, j int) bool { return res[i].Repo+res[i].Commit < res[j].Repo+res[j].Commit })
	return res, err
}

func summarise(out string, sample int, seed uint64) error {
	res, err := readResults(out)
	if err != nil {
		return err
	}
	var pairs, flagged, blocked, crashes, runnerPairs, runnerFlagged int
	repoSet := map[string]bool{}
	agentPairs := map[string]int{}
	checkPairs := map[string]int{}
	var ms []int64
	var flaggedRes, passedRes []result
	for _, r := range res {
		if r.Exit != 0 || r.Report == nil {
			crashes++
			fmt.Printf("ERROR %s %s exit %d: %s\n", r.Repo, r.Commit[:8], r.Exit, firstLine(r.Stderr))
			continue
		}
		var rep report
		if err := json.Unmarshal(r.Report, &rep); err != nil {
			return err
		}
		touched := false
		agents := map[string]bool{}
		for _, f := range rep.Files {
			if f.Status != "unchanged" {
				touched = true
				agents[f.Agent] = true
			}
		}
		if !touched && len(rep.Findings) == 0 {
			continue
		}
		pairs++
		ms = append(ms, r.Millis)
		repoSet[r.Repo] = true
		for a := range agents {
			agentPairs[a]++
		}
		if r.Runner {
			runnerPairs++
		}
		seen := map[string]bool{}
		for _, f := range rep.Findings {
			if f.Action == "advisory" {
				continue
			}
			id := strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-")
			if !seen[id] {
				seen[id] = true
				checkPairs[id]++
			}
		}
		switch rep.Decision {
		case "require_review", "block":
			flagged++
			if rep.Decision == "block" {
				blocked++
			}
			if r.Runner {
				runnerFlagged++
			}
			flaggedRes = append(flaggedRes, r)
		default:
			passedRes = append(passedRes, r)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i] < ms[j] })
	fmt.Printf("pairs %d (repos %d, runner-file commits %d), errors %d\n", pairs, len(repoSet), runnerPairs, crashes)
	fmt.Printf("flagged %d (%.1f%%), blocked %d, runner-file commits flagged %d\n", flagged, pct(flagged, pairs), blocked, runnerFlagged)
	if len(ms) > 0 {
		fmt.Printf("run time p50 %d ms, p99 %d ms\n", ms[len(ms)/2], ms[len(ms)*99/100])
	}
	for _, k := range sortedByCount(agentPairs) {
		fmt.Printf("agent %-12s %d pairs\n", k, agentPairs[k])
	}
	for _, k := range sortedByCount(checkPairs) {
		fmt.Printf("check %-32s %d pairs (%.1f%%)\n", k, checkPairs[k], pct(checkPairs[k], pairs))
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, set := range []struct {
		name string
		rs   []result
	}{{"FLAGGED", flaggedRes}, {"PASSED", passedRes}} {
		idx := rng.Perm(len(set.rs))
		for i := 0; i < sample && i < len(idx); i++ {
			r := set.rs[idx[i]]
			var rep report
			_ = json.Unmarshal(r.Report, &rep)
			fmt.Printf("%s %s %s %s\n", set.name, r.Repo, r.Commit[:12], rep.Decision)
			for _, f := range rep.Findings {
				fmt.Printf("    %s %s: %s\n", f.Action, strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-"), f.Message)
			}
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func sortedByCount(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if m[ks[i]] != m[ks[j]] {
			return m[ks[i]] > m[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}
