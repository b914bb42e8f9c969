//go:build linux

package claudeschema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/shipgate-app/shipgate/internal/conformance"
	"github.com/shipgate-app/shipgate/lattice"
)

// PluginSchemaFile is the pinned JSON Schema of the plugin manifest and
// the marketplace of the Claude Code version the engine models: one
// object schema whose properties are "plugin.json", "marketplace.json"
// and "marketplace entry". agentfiles.PluginLayouts reads what it says a
// plugin loads (TestPluginPartsCoverSchema holds the two together).
var PluginSchemaFile = "plugins-" + lattice.ClaudeCodeVersion + ".schema.json"

// The functions of the settings module that build the plugin schemas
// (lazy zod schemas): the manifest is an object spreading a dozen part
// schemas' shapes, the marketplace the object whose plugins list is
// "Collection of available plugins in this marketplace", an entry the
// manifest made partial and extended.
var (
	manifestRe    = regexp.MustCompile(`([\w$]+)=[\w$]+\(\(\)=>[\w$]+\(\{\.\.\.[\w$]+\(\)\.shape,(?:\.\.\.[\w$]+\(\)\.partial\(\)\.shape,){5}`)
	marketplaceRe = regexp.MustCompile(`([\w$]+)=[\w$]+\(\(\)=>[\w$]+\(\{\$schema:[^{}]{0,1000}?"Collection of available plugins in this marketplace"`)
	entryTmpl     = `([\w$]+)=[\w$]+\(\(\)=>%s\(\)\.partial\(\)\.extend\(\{name:`
)

// TestPluginSchemaFromBinary takes the plugin manifest and marketplace
// schemas out of the pinned Claude Code binary (the module of the
// settings schema defines them: the same closure TestSchemaFromBinary
// writes) and compares them with the pinned file: with -update it
// rewrites it; without, any key added, removed or retyped is a failing
// row, so a new Claude Code version shows what its plugins may load.
func TestPluginSchemaFromBinary(t *testing.T) {
	bin := conformance.ClaudeForTest(t)
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "needs node to evaluate the schema the Claude Code binary carries"
		if os.Getenv(conformance.RequireEnv) != "" {
			t.Fatal(msg + "; $" + conformance.RequireEnv + " is set, which makes this a failure")
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	writeClosure(t, mapFile(t, bin), dir)
	idxPath := filepath.Join(dir, "index.json")
	raw, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	var idx map[string]any
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(int(idx["settings"].(float64)))+".mjs"))
	if err != nil {
		t.Fatal(err)
	}
	find := func(what string, re *regexp.Regexp) string {
		all := re.FindAllSubmatch(text, -1)
		if len(all) != 1 {
			t.Fatalf("%d definitions of the %s schema match %s: the bundle's shape changed, update the patterns of this test", len(all), what, re)
		}
		name := string(all[0][1])
		if !regexp.MustCompile(`export\{[^}]*\b` + regexp.QuoteMeta(name) + `\b`).Match(text) {
			t.Fatalf("the %s schema's function %s is not exported by the settings module", what, name)
		}
		return name
	}
	manifest := find("plugin manifest", manifestRe)
	names := map[string]string{
		"plugin.json":       manifest,
		"marketplace.json":  find("marketplace", marketplaceRe),
		"marketplace entry": find("marketplace entry", regexp.MustCompile(fmt.Sprintf(entryTmpl, regexp.QuoteMeta(manifest)))),
	}
	idx["plugin"] = names
	raw, _ = json.Marshal(idx)
	if err := os.WriteFile(idxPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "extract-plugin.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node extract-plugin.mjs: %v\n%s", err, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("extract-plugin.mjs output: %v", err)
	}
	schema, err := json.MarshalIndent(map[string]any{"type": "object", "properties": got,
		"x-claude-code-version": lattice.ClaudeCodeVersion}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	schema = append(schema, '\n')
	if *update {
		if err := os.WriteFile(PluginSchemaFile, schema, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", PluginSchemaFile)
		return
	}
	pinned, _ := os.ReadFile(PluginSchemaFile)
	for _, row := range driftRows(t, pinned, schema) {
		t.Errorf("plugin schema drift: %s", row)
	}
	if t.Failed() {
		t.Log("the binary's plugin manifest or marketplace schema differs from the pinned file: review the rows (agentfiles/plugin.go reads what a plugin loads), then run go test ./agentfiles/claude/claudeschema -run TestPluginSchemaFromBinary -update")
	}
}
