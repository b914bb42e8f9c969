package judge

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

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
const GoldenDir = "testdata/golden"

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
	Decision   string
	Checks     []string
	Rows       []string
	RowsSet    bool
	Contains   []string
	Lacks      []string
	Absent     []string
	generate   string
	Known      string
	hasChecks  bool
	hasDecided bool
}

func ParseExpect(t *testing.T, path string) expectation {
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
			e.Decision, e.hasDecided = val, true
		case "checks":
			e.hasChecks = true
			if val != "none" {
				e.Checks = strings.Fields(val)
				sort.Strings(e.Checks)
			}
		case "row":
			f := strings.Fields(val)
			if len(f) != 3 || (f[2] != "expands" && f[2] != "quiet") {
				t.Fatalf("%s:%d: row wants <kind> <direction> expands|quiet, got %q", path, n+1, val)
			}
			e.Rows = append(e.Rows, strings.Join(f, " "))
			e.RowsSet = true
		case "rows":
			if val != "none" {
				t.Fatalf("%s:%d: rows: takes only none", path, n+1)
			}
			e.RowsSet = true
		case "contains":
			e.Contains = append(e.Contains, val)
		case "lacks":
			e.Lacks = append(e.Lacks, val)
		case "absent":
			e.Absent = append(e.Absent, val)
		case "generate-head":
			e.generate = val
		case "known":
			e.Known = val
		case "spec", "note":
		default:
			t.Fatalf("%s:%d: unknown key %q", path, n+1, key)
		}
	}
	if !e.hasDecided || !e.hasChecks {
		t.Fatalf("%s: decision: and checks: are required", path)
	}
	sort.Strings(e.Rows)
	return e
}

// loadCase reads a case directory into an Input.
func LoadCase(t *testing.T, dir string, e expectation) report.Input {
	t.Helper()
	in := loadFiles(t, dir, e)
	if b, err := os.ReadFile(filepath.Join(dir, "policy.yml")); err == nil {
		p, err := policy.Parse(".github/shipgate.yml", b, agentfiles.PolicyOptions())
		if err != nil {
			t.Fatalf("%s/policy.yml: %v", dir, err)
		}
		in.Policy = p
	}
	if b, err := os.ReadFile(filepath.Join(dir, "policy-head.yml")); err == nil {
		h, err := policy.Parse(".github/shipgate.yml", b, agentfiles.PolicyOptions())
		if err != nil {
			t.Fatalf("%s/policy-head.yml: %v", dir, err)
		}
		in.PolicyChange = &report.PolicyChange{Path: ".github/shipgate.yml", Base: in.Policy, Head: h}
	}
	return in
}

// loadFiles reads the files of a case.
func loadFiles(t *testing.T, dir string, e expectation) report.Input {
	t.Helper()
	if st, err := os.Stat(filepath.Join(dir, "files")); err == nil && st.IsDir() {
		return report.Input{Files: loadTrees(t, filepath.Join(dir, "files"))}
	}
	p := ".claude/settings.json"
	if b, err := os.ReadFile(filepath.Join(dir, "path.txt")); err == nil {
		p = strings.TrimSpace(string(b))
	}
	f := report.File{Path: p, Base: readVersion(t, filepath.Join(dir, "base.json")), Head: readVersion(t, filepath.Join(dir, "head.json"))}
	if e.generate == "large" {
		f.Head = report.Version{Exists: true, Data: largeSettings()}
	}
	return report.Input{Files: []report.File{f}}
}

func readVersion(t *testing.T, p string) report.Version {
	t.Helper()
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return report.Version{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return report.Version{Exists: true, Data: data}
}

// loadTrees reads files/base and files/head: a path present in one tree
// only is new or deleted.
func loadTrees(t *testing.T, root string) []report.File {
	t.Helper()
	byPath := map[string]*report.File{}
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
				f = &report.File{Path: rel}
				byPath[rel] = f
			}
			if side == "base" {
				f.Base = report.Version{Exists: true, Data: data}
			} else {
				f.Head = report.Version{Exists: true, Data: data}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	var out []report.File
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
	for i := 0; b.Len() < report.MaxFileSize+1024; i++ {
		fmt.Fprintf(&b, "      \"Bash(echo %06d)\",\n", i)
	}
	b.WriteString("      \"Bash(true)\"\n    ]\n  }\n}\n")
	return b.Bytes()
}

// TestGoldenCoverage holds the corpus to its promise: together the golden
// cases raise every check of the Catalogue and produce every row kind and
// every direction of the contract.
func TestGoldenCoverage(t *testing.T) {
	entries, err := os.ReadDir(GoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	checks, kinds, dirs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		dir := filepath.Join(GoldenDir, ent.Name())
		r := Compare(LoadCase(t, dir, ParseExpect(t, filepath.Join(dir, "expect.txt"))))
		for _, f := range r.Findings {
			checks[f.CheckID] = true
		}
		for _, c := range r.Changes {
			kinds[c.Kind], dirs[c.Direction] = true, true
		}
	}
	for _, c := range report.Catalogue {
		if !checks[c.ID] {
			t.Errorf("no golden case raises %s", c.ID)
		}
	}
	for _, k := range []string{report.KindRule, report.KindMode, report.KindSetting, report.KindDirectory, report.KindHook, report.KindEnv, report.KindHelper, report.KindSandbox, report.KindPlugin, report.KindMCPServer, report.KindMCPApprove, report.KindFile} {
		if !kinds[k] {
			t.Errorf("no golden case has a %s row", k)
		}
	}
	for _, d := range []string{report.DirAdded, report.DirRemoved, report.DirWidened, report.DirNarrowed, report.DirRespelled, report.DirCovered, report.DirMoved, report.DirChanged} {
		if !dirs[d] {
			t.Errorf("no golden case has a %s row", d)
		}
	}
}
