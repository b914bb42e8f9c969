package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/report"
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

// runBun runs script under Bun with inputs (JSON) as its one argument's
// file and decodes what it prints (JSON) into out.
func runBun(t *testing.T, bun, script string, inputs, out any) {
	t.Helper()
	dir := t.TempDir()
	in, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "read.js"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bun, filepath.Join(dir, "read.js"), filepath.Join(dir, "in.json"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("bun: %v: %s", err, stderr.String())
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("bun printed %.200s: %v", raw, err)
	}
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
	const script = `const vs = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const out = vs.map((s) => { try { return Array.isArray(Bun.YAML.parse(s)) ? "list" : "other"; } catch { return "throw"; } });
console.log(JSON.stringify(out));
`
	var got []string
	runBun(t, bun, script, values, &got)
	if len(got) != len(values) {
		t.Fatalf("bun answered %d readings for %d values", len(got), len(values))
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
	if !bytes.Contains(data, []byte("Bun v"+BunVersion)) {
		t.Fatalf("%s does not name Bun v%s: update BunVersion and the Makefile's pin", bin, BunVersion)
	}
}

// frontmatterBlocks are frontmatter blocks drawn from the lines skills,
// commands and subagents hold: descriptions with colons, quotes and
// YAML's indicators (the /agents format), tool lists as strings and flow
// or block lists, booleans, numbers, nested hooks, tabs, comments.
func frontmatterBlocks() []string {
	descs := []string{"Review code", "Use this agent when: tests fail. Examples: <example>Context: x</example>",
		`say "hi": now \ then`, "a # not a comment", "it's [draft] {x} *y* &z !w |v >u %t @s `r`", "'quoted'", `"dq: x"`, "ends with colon:", "x: y: z"}
	tools := []string{"Read", "Read, Grep", "Bash(npm *)", "[Read, Grep]", "[Bash(git add:*), Read]", "[issue-id] [reason]",
		"\n  - Read\n  - Bash(npm test:*)", `"Bash(*)"`, "Bash(echo a: b)", "*", "[a, {]", "[Read] # c]"}
	extras := []string{"", "model: sonnet", "disable-model-invocation: true", "disable-model-invocation: yes", "version: 1.0", "version: 010",
		"permissionMode: acceptEdits", "color: green", "metadata:\n\tk: v", "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./x.sh",
		"argument-hint: [name]", "argument-hint: <a> [b]", "# a comment", "tags: [a, b]", "empty:", "n: ~", "d: 2024-01-01", "x: 0x1F", "on: off"}
	r := rand.New(rand.NewSource(2))
	seen := map[string]bool{}
	var out []string
	for i := 0; i < 1500; i++ {
		var b strings.Builder
		b.WriteString("name: n\n")
		b.WriteString("description: " + descs[r.Intn(len(descs))] + "\n")
		key := []string{"allowed-tools", "tools", "disallowed-tools"}[r.Intn(3)]
		t := tools[r.Intn(len(tools))]
		if strings.HasPrefix(t, "\n") {
			b.WriteString(key + ":" + t + "\n")
		} else {
			b.WriteString(key + ": " + t + "\n")
		}
		for j := r.Intn(3); j > 0; j-- {
			if e := extras[r.Intn(len(extras))]; e != "" {
				b.WriteString(e + "\n")
			}
		}
		s := b.String()
		if r.Intn(8) == 0 {
			s = strings.ReplaceAll(s, "\n", "\r\n") // CRLF: the retry rewrites no such line
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestFrontmatterBlocksAgainstBun holds Shipgate's reading of a whole
// frontmatter block (go.yaml.in/yaml/v3, strictly, then the binary's
// retry) to Bun's: Bun.YAML.parse of the block and, when that throws, of
// the retry as read from the binary (bunRetry below, written from its
// parser; TestFrontmatterRetryOnTheBinary checks it on the binary). Every
// block either both read to the same value, or Shipgate refuses it
// (unreadable: CONFIG-PARSE-FAILED, fail closed); a block Shipgate reads
// to another value than Bun, or reads where Bun refuses it, fails.
func TestFrontmatterBlocksAgainstBun(t *testing.T) {
	bun := bunForTest(t)
	blocks := frontmatterBlocks()
	const script = `const tu = /[{}[\]*&#!|>%@` + "`" + `]|: /;
function bunRetry(e) {
  return e.split("\n").map((g) => {
    const h = g.match(/^([a-zA-Z_-]+):\s+(\S.*)$/);
    if (!h) return g;
    const [, y, k] = h;
    if ((k.startsWith('"') && k.endsWith('"')) || (k.startsWith("'") && k.endsWith("'"))) return g;
    if (k.startsWith("[") && k.endsWith("]")) { try { if (Array.isArray(Bun.YAML.parse(k))) return g; } catch {} }
    if (tu.test(k)) return y + ': "' + k.replaceAll("\\", "\\\\").replaceAll('"', '\\"') + '"';
    return g;
  }).join("\n").replace(/^\t+/gm, (o) => "  ".repeat(o.length));
}
function canon(v) {
  if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
  if (v && typeof v === "object") return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
  return JSON.stringify(v === undefined ? null : v);
}
const bs = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
console.log(JSON.stringify(bs.map((y) => {
  try { return canon(Bun.YAML.parse(y) ?? {}); } catch {}
  try { return canon(Bun.YAML.parse(bunRetry(y)) ?? {}); } catch { return null; }
})));
`
	var got []*string
	runBun(t, bun, script, blocks, &got)
	if len(got) != len(blocks) {
		t.Fatalf("bun answered %d readings for %d blocks", len(got), len(blocks))
	}
	read, refused, failedClosed := 0, 0, 0
	for i, blk := range blocks {
		data := []byte("---\n" + blk + "---\nBody.\n")
		d, pe := parseFrontmatterDoc("x.md", report.SkillFile, report.Version{Exists: true, Data: data}, RuleCache{})
		switch {
		case pe != nil && got[i] == nil:
			refused++
		case pe != nil:
			failedClosed++
		case got[i] == nil:
			t.Errorf("block %q: Bun refuses it, Shipgate reads %s", blk, jsonpos.Canon(d.Root))
		default:
			var a, b any
			_ = json.Unmarshal([]byte(jsonpos.Canon(d.Root)), &a)
			_ = json.Unmarshal([]byte(*got[i]), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("block %q:\n  Shipgate %s\n  Bun      %s", blk, jsonpos.Canon(d.Root), *got[i])
				continue
			}
			read++
		}
	}
	t.Logf("%d blocks: %d read alike, %d refused by both, %d refused by Shipgate only (fail closed)", len(blocks), read, refused, failedClosed)
	if read < 200 || refused < 20 {
		t.Errorf("too few blocks of each reading drawn (%d read, %d refused)", read, refused)
	}
}
