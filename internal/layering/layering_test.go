package layering

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/shipgate-app/shipgate"

// rank is each folder's layer (internal/X counts as its own folder). A
// package may import one in its own folder or in a folder of a lower
// layer, never a folder of its own layer or above: cmd → webhook → app →
// {gather, judge (the engine), render} → agentfiles → report → {policy,
// rating} → lattice → jsonpos (CONTRIBUTING.md says the same): the
// gatherer, the engine and the renderers are one layer, so none of them
// reaches into another; app calls the three in turn. The test kits
// (githubtest, internal/*) sit just under cmd: they may import any
// product layer, and no product layer imports them; internal/testwait
// (how long a test waits) sits under the other kits, which use it.
var rank = map[string]int{
	"jsonpos":           0,
	"lattice":           1,
	"policy":            2,
	"rating":            2,
	"report":            3,
	"agentfiles":        4,
	"judge":             5,
	"gather":            5,
	"render":            5,
	"app":               7,
	"webhook":           8,
	"internal/testwait": 9,
	"githubtest":        10,
	"internal/*":        10,
	"cmd":               11,
	"deploy":            11, // deploy/validate: the manifests' checks, a tool
}

// folder is the layering folder of a directory relative to the module root.
func folder(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if parts[0] == "internal" && len(parts) > 1 {
		return "internal/" + parts[1]
	}
	return parts[0]
}

func rankOf(f string) (int, bool) {
	if r, ok := rank[f]; ok {
		return r, true
	}
	if strings.HasPrefix(f, "internal/") {
		f = "internal/*"
	}
	r, ok := rank[f]
	return r, ok
}

// imports reads the non-test imports of every package under root, by
// folder: folder → imported folder → one file that imports it.
func imports(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	g := map[string]map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		from := folder(filepath.Dir(rel))
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if g[from] == nil {
			g[from] = map[string]string{}
		}
		for _, im := range f.Imports {
			path := strings.Trim(im.Path.Value, `"`)
			rest, ok := strings.CutPrefix(path, module+"/")
			if !ok {
				continue
			}
			if to := folder(rest); to != from {
				g[from][to] = filepath.ToSlash(rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// TestLayers: every folder has a layer, and every import points to a
// lower one.
func TestLayers(t *testing.T) {
	g := imports(t, moduleRoot(t))
	for from, tos := range g {
		rf, ok := rankOf(from)
		if !ok {
			t.Errorf("folder %s has no layer: add it to rank (and to CONTRIBUTING.md's layering)", from)
			continue
		}
		for to, file := range tos {
			rt, ok := rankOf(to)
			if ok && rt < rf {
				continue
			}
			t.Errorf("%s imports %s (%s): imports point down the layers (CONTRIBUTING.md)", from, to, file)
		}
	}
}

// TestNoFolderCycle: no two top-level folders import each other, directly
// or around a circle (the ranks above rule it out; this says which circle).
func TestNoFolderCycle(t *testing.T) {
	if c := cycle(imports(t, moduleRoot(t))); c != nil {
		t.Errorf("folders import each other around a circle: %s", strings.Join(c, " → "))
	}
}

// cycle returns one circle of g (first folder repeated at the end), or nil.
func cycle(g map[string]map[string]string) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var found []string
	var visit func(string) bool
	visit = func(v string) bool {
		color[v] = grey
		stack = append(stack, v)
		var next []string
		for w := range g[v] {
			next = append(next, w)
		}
		sort.Strings(next)
		for _, w := range next {
			switch color[w] {
			case grey:
				for i, s := range stack {
					if s == w {
						found = append(append([]string{}, stack[i:]...), w)
					}
				}
				return true
			case white:
				if visit(w) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[v] = black
		return false
	}
	var vs []string
	for v := range g {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	for _, v := range vs {
		if color[v] == white && visit(v) {
			return found
		}
	}
	return nil
}

func TestCycleFinds(t *testing.T) {
	g := map[string]map[string]string{"a": {"b": ""}, "b": {"c": ""}, "c": {"a": ""}, "d": {"a": ""}}
	if got := fmt.Sprint(cycle(g)); got != "[a b c a]" {
		t.Errorf("cycle = %s, want [a b c a]", got)
	}
	delete(g["c"], "a")
	if got := cycle(g); got != nil {
		t.Errorf("cycle of a line = %v", got)
	}
}
