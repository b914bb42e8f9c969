package codex

import (
	"runtime"
	"strings"
	"testing"
)

// TestHostileRules: a rules file built to exhaust memory or CPU inside a
// bounded number of Starlark steps is refused as a limit of Shipgate's
// (Limit: it blocks, since Codex may load it), with the file and a line,
// and evaluating it allocates a bounded amount; a file Codex cannot read
// as text (invalid UTF-8, a NUL byte) is an error of Codex's.
func TestHostileRules(t *testing.T) {
	cases := []struct {
		name, src string
		limit     bool
		line      int
		err       string
	}{
		{"string repetition", `x = "x" * 1000000000`, true, 1, "operator *"},
		{"list repetition", "n = 100000000\nx = [1] * n", true, 2, "operator *"},
		{"repeat assign", "x = [1]\nx *= 100000000", true, 2, "operator *="},
		{"format", "x = \"%s%s\" % (\"a\", \"b\")", true, 1, "operator %"},
		{"join", "x = \"ab\"\nfor i in range(30):\n    x = x.join([x, x])", true, 3, ".join"},
		{"replace", "x = \"a\" + \"a\"\ny = x.replace(\"a\", x)", true, 2, ".replace"},
		{"format method", `x = "{}{}".format("a", "b")`, true, 1, ".format"},
		{"doubling", "x = \"ab\"\nfor i in range(60):\n    x = x + x", true, 0, "allocates more than"},
		{"list doubling", "x = [1, 2]\nfor i in range(60):\n    x.extend(x)", true, 0, "allocates more than"},
		{"materialized range", "x = list(range(100000000))", true, 1, "list() is given a sequence"},
		{"any over a huge range", "x = any(range(1000000000000))", true, 1, "any() is given a sequence"},
		{"sorted range", "x = sorted(range(100000000))", true, 1, "sorted()"},
		{"invalid UTF-8", "prefix_rule(pattern=[\"git\"])\n\xff\xfe prefix_rule(pattern=[\"bash\"])", false, 2, "not valid UTF-8"},
		{"NUL", "prefix_rule(pattern=[\"git\"])\n\x00 prefix_rule(pattern=[\"bash\"])", false, 2, "NUL"},
		{"nesting", "x = " + strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000), false, 1, "nesting"},
		{"recursion", "def f(n):\n    return f(n + 1)\nf(0)", true, 1, "nest more than 1000"},
		{"mutual recursion", "def f(n):\n    return g(n)\ndef g(n):\n    return f(n + 1)\nf(0)", true, 0, "nest more than 1000"},
		{"lambda recursion", "f = lambda n: f(n + 1)\nf(0)", true, 1, "nest more than 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := ParseRules("p.rules", []byte(c.src+"\n"))
			runtime.ReadMemStats(&m1)
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("got %v (%T), want a *ParseError", err, err)
			}
			if pe.Limit != c.limit {
				t.Errorf("Limit = %v, want %v: %v", pe.Limit, c.limit, err)
			}
			if !strings.Contains(pe.Msg, c.err) {
				t.Errorf("error %q lacks %q", err, c.err)
			}
			if c.line > 0 && pe.Line != c.line {
				t.Errorf("line %d, want %d: %v", pe.Line, c.line, err)
			}
			if got := m1.TotalAlloc - m0.TotalAlloc; got > 4*MaxEvalAlloc {
				t.Errorf("evaluating it allocated %d MiB, want at most %d", got>>20, 4*MaxEvalAlloc>>20)
			}
		})
	}
	// The ordinary uses stay: integer arithmetic, string concatenation,
	// list() of a short sequence, loops over range.
	ok := "N = 2 * 3\nP = [\"git\"] + [\"log\"]\ndef rule(*toks):\n    prefix_rule(pattern=list(toks))\nfor i in range(N):\n    rule(\"tool\" + str(i), \"x\")\nprefix_rule(pattern=P)\n"
	rf, err := ParseRules("p.rules", []byte(ok))
	if err != nil || len(rf.Rules) != 7 {
		t.Fatalf("ordinary file: %v, %v", rf, err)
	}
}

// TestHostileConfig: a config.toml whose keys nest past MaxKeyDepth
// (dotted, as table headers, through inline tables) is refused as a
// limit of Shipgate's — recording every prefix of a 200,000-part key
// allocated 40 GB — with its line; nesting Codex's own keys use stays.
func TestHostileConfig(t *testing.T) {
	deep := strings.Repeat("a.", 200_000) + "b"
	cases := []struct{ name, src string }{
		{"dotted key", "approval_policy = \"never\"\n" + deep + " = 1\n"},
		{"table header", "approval_policy = \"never\"\n[" + deep + "]\nx = 1\n"},
		{"array of tables", "approval_policy = \"never\"\n[[" + deep + "]]\nx = 1\n"},
		{"inline tables", "approval_policy = \"never\"\na = " + strings.Repeat("{b=", 100) + "1" + strings.Repeat("}", 100) + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := ParseConfig("c.toml", []byte(c.src))
			runtime.ReadMemStats(&m1)
			pe, ok := err.(*ParseError)
			if !ok || !pe.Limit || pe.Line != 2 || !strings.Contains(pe.Msg, "nested") {
				t.Fatalf("got %v, want a Limit ParseError at line 2", err)
			}
			if got := m1.TotalAlloc - m0.TotalAlloc; got > 512<<20 {
				t.Errorf("reading it allocated %d MiB", got>>20)
			}
		})
	}
	ok := "[profiles.p.sandbox_workspace_write]\nnetwork_access = false\n[mcp_servers.docs.env]\nK = \"v\"\n"
	if _, err := ParseConfig("c.toml", []byte(ok)); err != nil {
		t.Fatalf("Codex's own nesting: %v", err)
	}
}

// TestSharedSteps: the rules files of one comparison draw on one budget
// of MaxSharedSteps: 500 files of a million steps each would take seconds.
// Past it a file is a limit of Shipgate's; a small file within it loads.
func TestSharedSteps(t *testing.T) {
	burn := "x = 0\nfor i in range(400000):\n    x = i\n" // ~1.2 M steps: over one file's bound
	left := int64(MaxSharedSteps)
	n := 0
	for ; n < 500 && left > 0; n++ {
		_, err := ParseRulesShared("p.rules", []byte(burn), &left)
		if pe, ok := err.(*ParseError); !ok || !pe.Limit {
			t.Fatalf("file %d: %v, want a limit", n, err)
		}
	}
	if n > MaxSharedSteps/MaxSteps+1 {
		t.Errorf("%d files ran before the shared budget was spent, want at most %d", n, MaxSharedSteps/MaxSteps+1)
	}
	_, err := ParseRulesShared("q.rules", []byte(`prefix_rule(pattern=["git"])`), &left)
	if pe, ok := err.(*ParseError); !ok || !pe.Limit || !strings.Contains(pe.Msg, "together") {
		t.Fatalf("after the budget: %v, want a shared limit", err)
	}
	left = MaxSharedSteps
	if rf, err := ParseRulesShared("q.rules", []byte(`prefix_rule(pattern=["git"])`), &left); err != nil || len(rf.Rules) != 1 || left >= MaxSharedSteps {
		t.Fatalf("a small file: %v, %v, left %d", rf, err, left)
	}
}
