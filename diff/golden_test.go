package diff

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/shipgate-app/shipgate/policy"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the generated golden files:
//
//	go test ./diff -run TestGolden -update
var update = flag.Bool("update", false, "rewrite the generated report.json, report.md and report.txt of the golden cases")

// goldenDir holds one directory per case. A case is either
//
//	base.json, head.json   one file (absent base = new, absent head = deleted)
//	path.txt               its repository path (default .claude/settings.json)
//	policy.yml             a policy applied to the case (optional, any case)
//	policy-head.yml        the policy file the change proposes (optional)
//
// or a files/ directory with base/ and head/ trees (several files, read
// together, as a repository at two commits). Every case has a hand-written
// expect.txt (see parseExpect); report.json, report.md and report.txt are
// generated and compared byte for byte. A text value that starts with a
// double quote is read as a Go string literal (for \n and the like).
const goldenDir = "testdata/golden"

// expectation is what a case's expect.txt asserts, written by hand from the
// specification, independently of what the engine prints:
//
//	decision: allow | require_review | block      (required)
//	checks: ID ID ... | none                      (required: the exact set of check IDs raised)
//	row: <kind> <direction> expands|quiet         (repeatable: with any, the exact multiset of rows)
//	rows: none                                    (no rows at all)
//	contains: <text>                              (repeatable: must appear in report.txt)
//	lacks: <text>                                 (repeatable: must not appear in report.txt)
//	absent: <text>                                (repeatable: must appear in no rendering)
//	generate-head: large                          (the head is generated: valid JSON over 1 MiB)
//	spec: / note:                                 (free text for the reader)
//	known: <engine problem>                       (the semantic assertions are expected to fail
//	                                               until the engine is fixed: the case is skipped
//	                                               while they fail and fails once they pass)
type expectation struct {
	decision   string
	checks     []string
	rows       []string
	rowsSet    bool
	contains   []string
	lacks      []string
	absent     []string
	generate   string
	known      string
	hasChecks  bool
	hasDecided bool
}

func parseExpect(t *testing.T, path string) expectation {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("every golden case needs a hand-written expect.txt: %v", err)
	}
	var e expectation
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s:%d: want key: value, got %q", path, n+1, line)
		}
		val = strings.TrimSpace(val)
		if strings.HasPrefix(val, `"`) {
			if uq, err := strconv.Unquote(val); err == nil {
				val = uq
			} else {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
		}
		switch key {
		case "decision":
			e.decision, e.hasDecided = val, true
		case "checks":
			e.hasChecks = true
			if val != "none" {
				e.checks = strings.Fields(val)
				sort.Strings(e.checks)
			}
		case "row":
			f := strings.Fields(val)
			if len(f) != 3 || (f[2] != "expands" && f[2] != "quiet") {
				t.Fatalf("%s:%d: row wants <kind> <direction> expands|quiet, got %q", path, n+1, val)
			}
			e.rows = append(e.rows, strings.Join(f, " "))
			e.rowsSet = true
		case "rows":
			if val != "none" {
				t.Fatalf("%s:%d: rows: takes only none", path, n+1)
			}
			e.rowsSet = true
		case "contains":
			e.contains = append(e.contains, val)
		case "lacks":
			e.lacks = append(e.lacks, val)
		case "absent":
			e.absent = append(e.absent, val)
		case "generate-head":
			e.generate = val
		case "known":
			e.known = val
		case "spec", "note":
		default:
			t.Fatalf("%s:%d: unknown key %q", path, n+1, key)
		}
	}
	if !e.hasDecided || !e.hasChecks {
		t.Fatalf("%s: decision: and checks: are required", path)
	}
	sort.Strings(e.rows)
	return e
}

// loadCase reads a case directory into an Input.
func loadCase(t *testing.T, dir string, e expectation) Input {
	t.Helper()
	in := loadFiles(t, dir, e)
	if b, err := os.ReadFile(filepath.Join(dir, "policy.yml")); err == nil {
		p, err := policy.Parse(".github/shipgate.yml", b, PolicyOptions())
		if err != nil {
			t.Fatalf("%s/policy.yml: %v", dir, err)
		}
		in.Policy = p
	}
	if b, err := os.ReadFile(filepath.Join(dir, "policy-head.yml")); err == nil {
		h, err := policy.Parse(".github/shipgate.yml", b, PolicyOptions())
		if err != nil {
			t.Fatalf("%s/policy-head.yml: %v", dir, err)
		}
		in.PolicyChange = &PolicyChange{Path: ".github/shipgate.yml", Base: in.Policy, Head: h}
	}
	return in
}

// loadFiles reads the files of a case.
func loadFiles(t *testing.T, dir string, e expectation) Input {
	t.Helper()
	if st, err := os.Stat(filepath.Join(dir, "files")); err == nil && st.IsDir() {
		return Input{Files: loadTrees(t, filepath.Join(dir, "files"))}
	}
	p := ".claude/settings.json"
	if b, err := os.ReadFile(filepath.Join(dir, "path.txt")); err == nil {
		p = strings.TrimSpace(string(b))
	}
	f := File{Path: p, Base: readVersion(t, filepath.Join(dir, "base.json")), Head: readVersion(t, filepath.Join(dir, "head.json"))}
	if e.generate == "large" {
		f.Head = Version{Exists: true, Data: largeSettings()}
	}
	return Input{Files: []File{f}}
}

func readVersion(t *testing.T, p string) Version {
	t.Helper()
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return Version{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return Version{Exists: true, Data: data}
}

// loadTrees reads files/base and files/head: a path present in one tree
// only is new or deleted.
func loadTrees(t *testing.T, root string) []File {
	t.Helper()
	byPath := map[string]*File{}
	for _, side := range []string{"base", "head"} {
		top := filepath.Join(root, side)
		err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(top, p)
			rel = filepath.ToSlash(rel)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f := byPath[rel]
			if f == nil {
				f = &File{Path: rel}
				byPath[rel] = f
			}
			if side == "base" {
				f.Base = Version{Exists: true, Data: data}
			} else {
				f.Head = Version{Exists: true, Data: data}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	var out []File
	for _, f := range byPath {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// largeSettings is a valid settings file just over MaxFileSize.
func largeSettings() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"permissions\": {\n    \"allow\": [\n")
	for i := 0; b.Len() < MaxFileSize+1024; i++ {
		fmt.Fprintf(&b, "      \"Bash(echo %06d)\",\n", i)
	}
	b.WriteString("      \"Bash(true)\"\n    ]\n  }\n}\n")
	return b.Bytes()
}

// goldenOptions are the render options of every golden case.
func goldenOptions(name string) RenderOptions {
	return RenderOptions{
		Subject:   "Agent permission review  base -> head (golden case " + name + ")",
		Reproduce: "go test ./diff -run TestGolden/" + name,
		Version:   "golden",
	}
}

func TestGolden(t *testing.T) {
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		n++
		name := ent.Name()
		t.Run(name, func(t *testing.T) { runGolden(t, name) })
	}
	if n < 40 {
		t.Errorf("%d golden cases, want at least 40", n)
	}
}

func runGolden(t *testing.T, name string) {
	dir := filepath.Join(goldenDir, name)
	exp := parseExpect(t, filepath.Join(dir, "expect.txt"))
	in := loadCase(t, dir, exp)
	rep := Compare(in)
	o := goldenOptions(name)

	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown(o)
	txt := rep.Text(o)
	sarif, err := rep.SARIF(o)
	if err != nil {
		t.Fatal(err)
	}

	// Determinism: the engine and every renderer, run again.
	rep2 := Compare(in)
	js2, _ := rep2.JSON()
	sarif2, _ := rep2.SARIF(o)
	if !bytes.Equal(js, js2) || md != rep2.Markdown(o) || txt != rep2.Text(o) || !bytes.Equal(sarif, sarif2) {
		t.Errorf("two runs rendered differently")
	}
	validateSARIF(t, sarif)
	if len(md) > DefaultMaxBytes {
		t.Errorf("markdown is %d bytes, over %d", len(md), DefaultMaxBytes)
	}

	for file, got := range map[string][]byte{"report.json": js, "report.md": []byte(md), "report.txt": []byte(txt)} {
		p := filepath.Join(dir, file)
		if *update {
			if err := os.WriteFile(p, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%v (run go test ./diff -run TestGolden -update)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file (run go test ./diff -run TestGolden -update and review the diff):\n%s", file, firstDiff(string(want), string(got)))
		}
	}

	// Secrets and other text that must never be rendered hold whatever the
	// engine's judgement.
	for _, s := range exp.absent {
		for what, out := range map[string]string{"json": string(js), "markdown": md, "text": txt, "sarif": string(sarif)} {
			if strings.Contains(out, s) {
				t.Errorf("%s output contains %q, which must never be shown", what, s)
			}
		}
	}

	// The hand-written judgement.
	var problems []string
	if string(rep.Decision) != exp.decision {
		problems = append(problems, fmt.Sprintf("decision %s, want %s", rep.Decision, exp.decision))
	}
	if got := checkSet(rep); strings.Join(got, " ") != strings.Join(exp.checks, " ") {
		problems = append(problems, fmt.Sprintf("checks %v, want %v", got, exp.checks))
	}
	if exp.rowsSet {
		if got := rowSet(rep); strings.Join(got, "; ") != strings.Join(exp.rows, "; ") {
			problems = append(problems, fmt.Sprintf("rows\n  got  %s\n  want %s", strings.Join(got, "; "), strings.Join(exp.rows, "; ")))
		}
	}
	for _, s := range exp.contains {
		if !strings.Contains(txt, s) {
			problems = append(problems, fmt.Sprintf("report.txt lacks %q", s))
		}
	}
	for _, s := range exp.lacks {
		if strings.Contains(txt, s) {
			problems = append(problems, fmt.Sprintf("report.txt contains %q", s))
		}
	}
	switch {
	case exp.known != "" && len(problems) > 0:
		t.Skipf("known engine problem: %s\n%s", exp.known, strings.Join(problems, "\n"))
	case exp.known != "":
		t.Errorf("expect.txt names a known engine problem (%s) but every assertion holds: remove the known: line", exp.known)
	case len(problems) > 0:
		t.Errorf("%s", strings.Join(problems, "\n"))
	}
}

// checkSet is the sorted set of check IDs a report raised.
func checkSet(r Report) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range r.Findings {
		if !seen[f.CheckID] {
			seen[f.CheckID] = true
			out = append(out, f.CheckID)
		}
	}
	sort.Strings(out)
	return out
}

// rowSet is the sorted multiset of "kind direction expands|quiet".
func rowSet(r Report) []string {
	var out []string
	for _, c := range r.Changes {
		e := "quiet"
		if c.Expands {
			e = "expands"
		}
		out = append(out, c.Kind+" "+c.Direction+" "+e)
	}
	sort.Strings(out)
	return out
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return "(same lines, different bytes)"
}

// TestGoldenCoverage holds the corpus to its promise: together the golden
// cases raise every check of the Catalogue and produce every row kind and
// every direction of the contract.
func TestGoldenCoverage(t *testing.T) {
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	checks, kinds, dirs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		dir := filepath.Join(goldenDir, ent.Name())
		r := Compare(loadCase(t, dir, parseExpect(t, filepath.Join(dir, "expect.txt"))))
		for _, f := range r.Findings {
			checks[f.CheckID] = true
		}
		for _, c := range r.Changes {
			kinds[c.Kind], dirs[c.Direction] = true, true
		}
	}
	for _, c := range Catalogue {
		if !checks[c.ID] {
			t.Errorf("no golden case raises %s", c.ID)
		}
	}
	for _, k := range []string{KindRule, KindMode, KindSetting, KindDirectory, KindHook, KindEnv, KindHelper, KindSandbox, KindPlugin, KindMCPServer, KindMCPApprove, KindFile} {
		if !kinds[k] {
			t.Errorf("no golden case has a %s row", k)
		}
	}
	for _, d := range []string{DirAdded, DirRemoved, DirWidened, DirNarrowed, DirRespelled, DirCovered, DirMoved, DirChanged} {
		if !dirs[d] {
			t.Errorf("no golden case has a %s row", d)
		}
	}
}
