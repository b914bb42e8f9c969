package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bunForTest is the pinned Bun (BunVersion) from $SHIPGATE_BUN_CACHE
// (make bun): skipped without it, failed when $SHIPGATE_REQUIRE_BUN is set.
func bunForTest(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SHIPGATE_BUN_CACHE")
	bin := filepath.Join(dir, "node_modules", "@oven", "bun-linux-x64", "bin", "bun")
	if st, err := os.Stat(bin); dir == "" || err != nil || st.Mode()&0o111 == 0 {
		if os.Getenv("SHIPGATE_REQUIRE_BUN") != "" {
			t.Fatalf("Bun %s not found at %s (make bun)", BunVersion, bin)
		}
		t.Skipf("Bun %s not installed (make bun; SHIPGATE_BUN_CACHE)", BunVersion)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != BunVersion {
		t.Fatalf("%s --version = %q, %v; want %s", bin, out, err, BunVersion)
	}
	return bin
}

// flowValues are `[…]` values of a frontmatter line, drawn from the
// shapes allowed-tools and argument-hint take and the ones that trip a
// parser: quotes opening a scalar or inside one, nested lists and maps,
// colons, comments, YAML's indicators, text after the list closes.
func flowValues() []string {
	elems := []string{"a", "Read", "Bash(npm *)", "Bash(git add:*)", "issue-id", "it's", "'q'", "'it''s'", `"d"`, `"a\"b"`,
		"x: y", "x:y", "{a: b}", "{a}", "[b]", "[]", "", "#c", " #c", "-", "- x", "*", "&a", "*a", "!t", "|", ">", "%", "@x", "`x`", "?", "a b", "https://x.example"}
	seps := []string{", ", ",", " , ", " "}
	tails := []string{"", "", "", " [x]", " - y", " ]", "x]", " # c]", ", ]"}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range elems {
		add("[" + e + "]")
		for _, f := range elems {
			add("[" + e + ", " + f + "]")
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 4000; i++ {
		n := r.Intn(4)
		parts := make([]string, n)
		for j := range parts {
			parts[j] = elems[r.Intn(len(elems))]
		}
		add("[" + strings.Join(parts, seps[r.Intn(len(seps))]) + "]" + tails[r.Intn(len(tails))])
	}
	return out
}

// TestRetryFlowListsAgainstBun holds flowList, Shipgate's reading of a
// `[…]` value in Claude Code's frontmatter retry, to Bun.YAML.parse of
// the Bun Claude Code 2.1.328 is built on: a list Bun reads must be a
// list here (else Shipgate would quote, and under-read, what the binary
// keeps), and a value Bun refuses must be refused here (else Shipgate
// would keep a list the binary quotes). A value Shipgate reads as
// neither leaves the block unreadable (fail closed) and is only counted.
func TestRetryFlowListsAgainstBun(t *testing.T) {
	bun := bunForTest(t)
	values := flowValues()
	dir := t.TempDir()
	in, _ := json.Marshal(values)
	if err := os.WriteFile(filepath.Join(dir, "values.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `const vs = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const out = vs.map((s) => { try { return Array.isArray(Bun.YAML.parse(s)) ? "list" : "other"; } catch { return "throw"; } });
console.log(JSON.stringify(out));
`
	if err := os.WriteFile(filepath.Join(dir, "read.js"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bun, filepath.Join(dir, "read.js"), filepath.Join(dir, "values.json"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("bun: %v: %s", err, stderr.String())
	}
	var got []string
	if err := json.Unmarshal(raw, &got); err != nil || len(got) != len(values) {
		t.Fatalf("bun answered %d readings for %d values (%v): %.200s", len(got), len(values), err, raw)
	}
	counts := map[string]int{}
	for i, v := range values {
		g := flowList(v)
		counts[fmt.Sprintf("bun %s, shipgate %d", got[i], g)]++
		switch {
		case got[i] == "list" && g != isList && g != otherValue:
			t.Errorf("%q: Bun reads a list, Shipgate %d: the retry would quote what Claude Code keeps", v, g)
		case got[i] == "throw" && g == isList:
			t.Errorf("%q: Bun refuses it, Shipgate reads a list: the retry would keep what Claude Code quotes", v)
		}
	}
	t.Logf("%d values: %v", len(values), counts)
	// Both readings Shipgate claims must be drawn, or nothing is held.
	if counts["bun list, shipgate 0"] < 100 || counts["bun throw, shipgate 1"] < 100 {
		t.Errorf("too few values Shipgate reads as a list or as refused: %v", counts)
	}
}

// TestBunVersionIsClaudeCodes reads BunVersion off the pinned Claude Code
// binary (a Bun executable names its runtime, "Bun v1.4.4").
func TestBunVersionIsClaudeCodes(t *testing.T) {
	dir := os.Getenv("SHIPGATE_CLAUDE_CACHE")
	bin := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
	data, err := os.ReadFile(bin)
	if dir == "" || err != nil {
		if os.Getenv("SHIPGATE_REQUIRE_CLAUDE") != "" {
			t.Fatalf("Claude Code not found at %s: %v", bin, err)
		}
		t.Skip("Claude Code not installed (make claude-code; SHIPGATE_CLAUDE_CACHE)")
	}
	if !bytes.Contains(data, []byte("Bun v"+BunVersion+" ")) && !bytes.Contains(data, []byte("Bun v"+BunVersion+"\x00")) && !bytes.Contains(data, []byte("Bun v"+BunVersion)) {
		t.Fatalf("%s does not name Bun v%s: update BunVersion and the Makefile's pin", bin, BunVersion)
	}
}
