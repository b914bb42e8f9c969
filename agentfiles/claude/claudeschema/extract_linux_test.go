//go:build linux

package claudeschema_test

// TestSchemaFromBinary takes the settings schema out of the pinned Claude
// Code binary and compares it with the pinned files of this package: with
// -update it rewrites them; without, any difference is a failing row (a
// key added, removed or retyped; a probe document the loader now keeps or
// drops otherwise), so a new Claude Code version shows what changed.
//
// The binary is a Bun executable: its JavaScript modules are stored in it
// as text, each starting with "// @bun @bytecode". The test writes the
// module that defines the settings schema and the loader, with every
// module it imports, into a temporary folder (imports rewritten to those
// files), runs testdata/extract.mjs on it with Node, and reads from the
// binary's own code the JSON Schema (zod's toJSONSchema of the schema the
// loader validates with) and the loader's verdict on a few thousand
// probe documents.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
	"github.com/shipgate-app/shipgate/internal/conformance"
	"github.com/shipgate-app/shipgate/lattice"
)

var update = flag.Bool("update", false, "rewrite the pinned schema and loads files from the binary")

// module is one JavaScript module of the binary.
type module struct {
	text    string
	exports []string
}

var (
	importRe  = regexp.MustCompile(`import\{([^}]*)\}from"(/\$bunfs/root/[^"]+)"`)
	bareRe    = regexp.MustCompile(`import"/\$bunfs/root/[^"]+"`)
	usingRe   = regexp.MustCompile(`([;{})\n])(?:await )?using ([A-Za-z_$][\w$]*=)`)
	gatesRe   = regexp.MustCompile(`function ([\w$]+)\(\)\{return [\w$]+\.filter\(\(e\)=>[\w$]+\[e\]\.buildGate\(\)\)\}`)
	wholeRe   = regexp.MustCompile(`function ([\w$]+)\(e,o=\{\}\)\{let r=[\w$]+\(e,o\);return new [\w$]+\(r\)\.whole\(\)\}`)
	loadRe    = regexp.MustCompile(`function ([\w$]+)\(e,o,r\)\{if\(e\.trim\(\)===""\)return\{settings:\{\},errors:\[\],loadState:"loaded"\}`)
	exportsRe = regexp.MustCompile(`export\{([^}]*)\};?\s*$`)
)

// settingsMarker is a message only the module of the settings schema holds.
const settingsMarker = "This settings schema was built for a document without this key"

func modules(bin []byte) []module {
	marker := []byte("// @bun @bytecode\n")
	var out []module
	for off := 0; ; {
		i := bytes.Index(bin[off:], marker)
		if i < 0 {
			return out
		}
		start := off + i
		end := bytes.IndexByte(bin[start:], 0)
		if end < 0 {
			end = len(bin) - start
		}
		text := string(bin[start : start+end])
		m := module{text: text}
		if x := exportsRe.FindStringSubmatch(text); x != nil {
			for _, n := range strings.Split(x[1], ",") {
				n = strings.TrimSpace(n)
				if j := strings.Index(n, " as "); j >= 0 {
					n = n[j+4:]
				}
				m.exports = append(m.exports, n)
			}
		}
		out = append(out, m)
		off = start + len(marker)
	}
}

// writeClosure writes the settings module and every module it imports
// into dir, and index.json naming the settings module and the functions
// extract.mjs calls.
func writeClosure(t *testing.T, bin []byte, dir string) {
	t.Helper()
	mods := modules(bin)
	byName := map[string][]int{}
	settings := -1
	for i, m := range mods {
		for _, n := range m.exports {
			byName[n] = append(byName[n], i)
		}
		if strings.Contains(m.text, settingsMarker) && loadRe.MatchString(m.text) {
			settings = i
		}
	}
	if settings < 0 {
		t.Fatalf("no module of the binary defines the settings loader (the message %q and its load function): the bundle's shape changed, update the patterns of this test", settingsMarker)
	}
	names := map[string]string{}
	for what, re := range map[string]*regexp.Regexp{"gates": gatesRe, "whole": wholeRe, "load": loadRe} {
		x := re.FindStringSubmatch(mods[settings].text)
		if x == nil || !slices.Contains(mods[settings].exports, x[1]) {
			t.Fatalf("the settings module has no exported %s function matching %s: the bundle's shape changed", what, re)
		}
		names[what] = x[1]
	}
	resolve := func(list string) (int, error) {
		var cand []int
		for k, n := range strings.Split(list, ",") {
			n = strings.TrimSpace(n)
			if j := strings.Index(n, " as "); j >= 0 {
				n = n[:j]
			}
			if k == 0 {
				cand = slices.Clone(byName[n])
				continue
			}
			cand = slices.DeleteFunc(cand, func(i int) bool { return !slices.Contains(mods[i].exports, n) })
		}
		if len(cand) != 1 {
			return 0, fmt.Errorf("%d modules export {%s}", len(cand), list)
		}
		return cand[0], nil
	}
	done := map[int]bool{settings: true}
	todo := []int{settings}
	for len(todo) > 0 {
		i := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		var err error
		text := importRe.ReplaceAllStringFunc(mods[i].text, func(s string) string {
			x := importRe.FindStringSubmatch(s)
			j, e := resolve(x[1])
			if e != nil {
				err = e
				return s
			}
			if !done[j] {
				done[j] = true
				todo = append(todo, j)
			}
			return fmt.Sprintf(`import{%s}from"./%d.mjs"`, x[1], j)
		})
		if err != nil {
			t.Fatalf("module %d: %v", i, err)
		}
		if bareRe.MatchString(text) {
			t.Fatalf("module %d imports a bundled module for its effects only: not handled", i)
		}
		// Node has no `using` declarations; disposal plays no part in
		// building the schema.
		text = usingRe.ReplaceAllString(text, "${1}const ${2}")
		text = strings.ReplaceAll(text, "import.meta.require", "__req")
		text = `import{createRequire as __cr}from"node:module";const __nreq=__cr(import.meta.url);` +
			`const __req=(p)=>p.startsWith("/$bunfs/")?globalThis.__bunstub(p):__nreq(p);` + text
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.mjs", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, _ := json.Marshal(map[string]any{"settings": settings, "gates": names["gates"], "whole": names["whole"], "load": names["load"]})
	if err := os.WriteFile(filepath.Join(dir, "index.json"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d modules in the binary; the settings module and %d it imports written", len(mods), len(done)-1)
}

func mapFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap %s: %v", path, err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(b) })
	return b
}

type extracted struct {
	Gates  []string          `json:"gates"`
	Schema json.RawMessage   `json:"schema"`
	Loads  []json.RawMessage `json:"loads"`
}

func TestSchemaFromBinary(t *testing.T) {
	bin := conformance.ClaudeForTest(t)
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "needs node to evaluate the schema the Claude Code binary carries"
		if os.Getenv(conformance.RequireEnv) != "" {
			t.Fatal(msg + "; $" + conformance.RequireEnv + " is set, which makes this a failure")
		}
		t.Skip(msg)
	}
	if claudeschema.Version != lattice.ClaudeCodeVersion {
		t.Errorf("the pinned schema is of Claude Code %s, the engine models %s: run this test with -update", claudeschema.Version, lattice.ClaudeCodeVersion)
	}
	dir := t.TempDir()
	writeClosure(t, mapFile(t, bin), dir)
	script, err := filepath.Abs(filepath.Join("testdata", "extract.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node extract.mjs: %v\n%s", err, stderr.String())
	}
	var got extracted
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("extract.mjs output: %v", err)
	}
	schema, loads := renderSchema(t, got), renderLoads(got.Loads)
	if *update {
		for name, data := range map[string][]byte{claudeschema.SchemaFile: schema, claudeschema.LoadsFile: loads} {
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %s and %s (%d probe documents)", claudeschema.SchemaFile, claudeschema.LoadsFile, len(got.Loads))
		return
	}
	pinnedSchema, _ := os.ReadFile(claudeschema.SchemaFile)
	pinnedLoads, _ := os.ReadFile(claudeschema.LoadsFile)
	for _, row := range driftRows(t, pinnedSchema, schema) {
		t.Errorf("schema drift: %s", row)
	}
	for _, row := range lineDrift(pinnedLoads, loads) {
		t.Errorf("loader drift: %s", row)
	}
	if t.Failed() {
		t.Log("the binary's settings schema or loader differs from the pinned files: review the rows, then run go test ./agentfiles/claude/claudeschema -run TestSchemaFromBinary -update")
	}
}

// renderSchema is the pinned schema file: the JSON Schema with the version
// and gates it was taken with.
func renderSchema(t *testing.T, x extracted) []byte {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(x.Schema, &s); err != nil {
		t.Fatal(err)
	}
	s["x-claude-code-version"] = lattice.ClaudeCodeVersion
	s["x-gates"] = x.Gates
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// renderLoads is the pinned loads file: one probe a line.
func renderLoads(rows []json.RawMessage) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		var c bytes.Buffer
		_ = json.Compact(&c, r)
		b.Write(c.Bytes())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// driftRows names each key path whose type signature differs between
// two schema files.
func driftRows(t *testing.T, old, cur []byte) []string {
	t.Helper()
	flat := func(data []byte) map[string]string {
		out := map[string]string{}
		var s map[string]any
		if len(data) == 0 || json.Unmarshal(data, &s) != nil {
			return out
		}
		var walk func(p string, n map[string]any)
		walk = func(p string, n map[string]any) {
			sig := []string{}
			for _, k := range []string{"type", "enum", "const", "x-catch", "x-repaired", "x-refined", "x-refine-kept", "x-required", "minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength", "pattern", "format", "required", "additionalProperties"} {
				if v, ok := n[k]; ok {
					if _, obj := v.(map[string]any); obj {
						v = "schema"
					}
					b, _ := json.Marshal(v)
					sig = append(sig, k+"="+string(b))
				}
			}
			out[p] = strings.Join(sig, " ")
			if props, ok := n["properties"].(map[string]any); ok {
				for k, c := range props {
					if cm, ok := c.(map[string]any); ok {
						walk(p+"."+k, cm)
					}
				}
			}
			for _, k := range []string{"items", "additionalProperties", "propertyNames"} {
				if c, ok := n[k].(map[string]any); ok {
					walk(p+"["+k+"]", c)
				}
			}
			for _, k := range []string{"anyOf", "oneOf"} {
				if alts, ok := n[k].([]any); ok {
					for i, a := range alts {
						if am, ok := a.(map[string]any); ok {
							walk(fmt.Sprintf("%s|%s%d", p, k, i), am)
						}
					}
				}
			}
		}
		walk("", s)
		return out
	}
	a, b := flat(old), flat(cur)
	var rows []string
	for p, sig := range b {
		switch o, ok := a[p]; {
		case !ok:
			rows = append(rows, fmt.Sprintf("added %s: %s", p, sig))
		case o != sig:
			rows = append(rows, fmt.Sprintf("changed %s: %s → %s", p, o, sig))
		}
	}
	for p, sig := range a {
		if _, ok := b[p]; !ok {
			rows = append(rows, fmt.Sprintf("removed %s: %s", p, sig))
		}
	}
	sort.Strings(rows)
	if len(rows) == 0 && !bytes.Equal(old, cur) {
		rows = append(rows, "the schema file differs (descriptions or order)")
	}
	return rows
}

// lineDrift lists the lines of one file missing from the other.
func lineDrift(old, cur []byte) []string {
	set := func(b []byte) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				m[l] = true
			}
		}
		return m
	}
	a, b := set(old), set(cur)
	var rows []string
	for l := range b {
		if !a[l] {
			rows = append(rows, "new or changed: "+l)
		}
	}
	for l := range a {
		if !b[l] {
			rows = append(rows, "gone: "+l)
		}
	}
	sort.Strings(rows)
	return rows
}
