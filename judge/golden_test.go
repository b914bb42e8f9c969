package judge_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/internal/sariftest"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/render"
	"github.com/shipgate-app/shipgate/report"
)

// update rewrites the generated golden files:
//
//	go test ./judge -run TestGolden -update
var update = flag.Bool("update", false, "rewrite the generated report.json, report.md and report.txt of the golden cases")

// goldenOptions are the render options of every golden case.
func goldenOptions(name string) render.Options {
	return render.Options{
		Subject:   "Agent permission review  base -> head (golden case " + name + ")",
		Reproduce: "go test ./judge -run TestGolden/" + name,
		Version:   "golden",
	}
}

func TestGolden(t *testing.T) {
	entries, err := os.ReadDir(judge.GoldenDir)
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
	dir := filepath.Join(judge.GoldenDir, name)
	exp := judge.ParseExpect(t, filepath.Join(dir, "expect.txt"))
	in := judge.LoadCase(t, dir, exp)
	rep := judge.Compare(in)
	o := goldenOptions(name)

	js, err := render.JSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	md := render.Markdown(rep, o)
	txt := render.Text(rep, o)
	sarif, err := render.SARIF(rep, o)
	if err != nil {
		t.Fatal(err)
	}

	// Determinism: the engine and every renderer, run again.
	rep2 := judge.Compare(in)
	js2, _ := render.JSON(rep2)
	sarif2, _ := render.SARIF(rep2, o)
	if !bytes.Equal(js, js2) || md != render.Markdown(rep2, o) || txt != render.Text(rep2, o) || !bytes.Equal(sarif, sarif2) {
		t.Errorf("two runs rendered differently")
	}
	sariftest.Validate(t, sarif)
	if len(md) > render.DefaultMaxBytes {
		t.Errorf("markdown is %d bytes, over %d", len(md), render.DefaultMaxBytes)
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
			t.Errorf("%v (run go test ./judge -run TestGolden -update)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file (run go test ./judge -run TestGolden -update and review the diff):\n%s", file, firstDiff(string(want), string(got)))
		}
	}

	// Secrets and other text that must never be rendered hold whatever the
	// engine's judgement.
	for _, s := range exp.Absent {
		for what, out := range map[string]string{"json": string(js), "markdown": md, "text": txt, "sarif": string(sarif)} {
			if strings.Contains(out, s) {
				t.Errorf("%s output contains %q, which must never be shown", what, s)
			}
		}
	}

	// The hand-written judgement.
	var problems []string
	if string(rep.Decision) != exp.Decision {
		problems = append(problems, fmt.Sprintf("decision %s, want %s", rep.Decision, exp.Decision))
	}
	if got := checkSet(rep); strings.Join(got, " ") != strings.Join(exp.Checks, " ") {
		problems = append(problems, fmt.Sprintf("checks %v, want %v", got, exp.Checks))
	}
	if exp.RowsSet {
		if got := rowSet(rep); strings.Join(got, "; ") != strings.Join(exp.Rows, "; ") {
			problems = append(problems, fmt.Sprintf("rows\n  got  %s\n  want %s", strings.Join(got, "; "), strings.Join(exp.Rows, "; ")))
		}
	}
	for _, s := range exp.Contains {
		if !strings.Contains(txt, s) {
			problems = append(problems, fmt.Sprintf("report.txt lacks %q", s))
		}
	}
	for _, s := range exp.Lacks {
		if strings.Contains(txt, s) {
			problems = append(problems, fmt.Sprintf("report.txt contains %q", s))
		}
	}
	switch {
	case exp.Known != "" && len(problems) > 0:
		t.Skipf("known engine problem: %s\n%s", exp.Known, strings.Join(problems, "\n"))
	case exp.Known != "":
		t.Errorf("expect.txt names a known engine problem (%s) but every assertion holds: remove the known: line", exp.Known)
	case len(problems) > 0:
		t.Errorf("%s", strings.Join(problems, "\n"))
	}
}

// checkSet is the sorted set of check IDs a report raised.
func checkSet(r report.Report) []string {
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
func rowSet(r report.Report) []string {
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
