package codex

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestParseRules: what loads and what Codex 0.169.0 refuses (each refusal
// measured with `codex execpolicy check`; the conformance harness
// re-checks them against the binary).
func TestParseRules(t *testing.T) {
	cases := []struct {
		name, src string
		rules     int
		err       string // substring of the error; "" = loads
	}{
		{"plain", `prefix_rule(pattern=["git", "status"])`, 1, ""},
		{"positional", `prefix_rule(["git"], "prompt")`, 1, ""},
		{"loop", "SAFE = [\"status\", \"log\"]\nfor s in SAFE:\n    prefix_rule(pattern=[\"git\", s])", 2, ""},
		{"function", "def deny(*toks):\n    prefix_rule(pattern=list(toks), decision=\"forbidden\")\ndeny(\"rm\", \"-rf\")", 1, ""},
		{"recursion", "def f(n):\n    if n > 0:\n        prefix_rule(pattern=[\"a\"])\n        f(n - 1)\nf(3)", 3, ""},
		{"reassign", "x = 1\nx = 2\nprefix_rule(pattern=[\"git\"])", 1, ""},
		{"comprehension", `[prefix_rule(pattern=["git", s]) for s in ["a", "b"]]`, 2, ""},
		{"alternatives first", `prefix_rule(pattern=[["npm", "pnpm"], "test"])`, 1, ""},
		{"match ok", `prefix_rule(pattern=["git"], match=["git status", ["git"]], not_match=["gitx"])`, 1, ""},
		{"empty match list", `prefix_rule(pattern=["git"], match=[])`, 1, ""},
		{"network", `network_rule(host="example.com", protocol="https", decision="prompt")`, 0, ""},
		{"host exec", `host_executable(name="git", paths=["/usr/bin/git"])`, 0, ""},
		{"deny", `prefix_rule(pattern=["git"], decision="deny")`, 0, "invalid decision: deny"},
		{"case decision", `prefix_rule(pattern=["git"], decision="Allow")`, 0, "invalid decision"},
		{"empty pattern", `prefix_rule(pattern=[])`, 0, "pattern cannot be empty"},
		{"empty alts", `prefix_rule(pattern=["git", []])`, 0, "alternatives cannot be empty"},
		{"string pattern", `prefix_rule(pattern="git status")`, 0, "pattern"},
		{"tuple pattern", `prefix_rule(pattern=("git",))`, 0, "pattern"},
		{"int token", `prefix_rule(pattern=["git", 1])`, 0, "string or a list"},
		{"blank justification", `prefix_rule(pattern=["git"], justification="  ")`, 0, "justification cannot be empty"},
		{"extra kwarg", `prefix_rule(pattern=["git"], foo=1)`, 0, "foo"},
		{"None", `prefix_rule(pattern=["git"], match=None)`, 0, "None"},
		{"load", `load("other.rules", "x")`, 0, "no imports"},
		{"print", `print("x")`, 0, "print"},
		{"set", `s = set([1])`, 0, "set"},
		{"while", "i = 0\nwhile i < 2:\n    i += 1", 0, "while"},
		{"syntax", `prefix_rule(pattern=["git"]`, 0, ""},
		{"fail", `fail("no")`, 0, "no"},
		{"unmatched example", `prefix_rule(pattern=["git", "status"], match=["git log"])`, 0, "unmatched examples"},
		{"not_match matches", `prefix_rule(pattern=["git"], not_match=["git status"])`, 0, "to not match"},
		{"bad shell example", `prefix_rule(pattern=["git"], match=["git 'x"])`, 0, "invalid shell syntax"},
		{"empty example", `prefix_rule(pattern=["git"], match=[""])`, 0, "empty string"},
		{"empty list example", `prefix_rule(pattern=["git"], match=[[]])`, 0, "empty list"},
		{"wildcard host", `network_rule(host="*.example.com", protocol="https", decision="allow")`, 0, "wildcards"},
		{"ftp", `network_rule(host="example.com", protocol="ftp", decision="allow")`, 0, "protocol"},
		{"network no decision", `network_rule(host="example.com", protocol="https")`, 0, "decision"},
		{"relative host path", `host_executable(name="git", paths=["git"])`, 0, "absolute"},
		{"path as name", `host_executable(name="/usr/git", paths=["/usr/bin/git"])`, 0, "bare"},
		{"stack overflow", "def f(n):\n    f(n + 1)\nf(0)", 0, "nest more than"},
		{"steps", "x = 0\nfor i in range(3000000):\n    x += 1", 0, "Starlark steps"},
		{"too many rules", "for i in range(30000):\n    prefix_rule(pattern=[str(i)])", 0, "more than Shipgate compares"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rf, err := ParseRules("p.rules", []byte(c.src+"\n"))
			if c.err == "" && c.name != "syntax" {
				if err != nil {
					t.Fatalf("want a load, got %v", err)
				}
				if len(rf.Rules) != c.rules {
					t.Fatalf("got %d rules, want %d", len(rf.Rules), c.rules)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error containing %q, got none", c.err)
			}
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("error %T, want *ParseError", err)
			}
			if limit := c.name == "steps" || c.name == "too many rules" || c.name == "stack overflow"; pe.Limit != limit {
				t.Errorf("Limit = %v, want %v (a bound of Shipgate's, not an error of Codex's)", pe.Limit, limit)
			}
			if !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %q lacks %q", err, c.err)
			}
			if !strings.HasPrefix(err.Error(), "p.rules:") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestRuleLines: each rule carries the line of its prefix_rule call, also
// from inside a loop or a helper function.
func TestRuleLines(t *testing.T) {
	src := "prefix_rule(pattern=[\"a\"])\n\ndef r(x):\n    prefix_rule(pattern=[x])\nr(\"b\")\nfor s in [\"c\"]:\n    prefix_rule(pattern=[s])\n"
	rf, err := ParseRules("p.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range rf.Rules {
		got = append(got, r.Line)
	}
	if want := []int{1, 4, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
}

// TestMatches: token-exact prefixes (agents-permissions.md 1.3, measured).
func TestMatches(t *testing.T) {
	gs := Rule{Pattern: [][]string{{"git"}, {"status"}}}
	alt := Rule{Pattern: [][]string{{"npm", "pnpm"}, {"test"}}}
	ci := Rule{Pattern: [][]string{{"git"}, {"status"}}, Canonical: true}
	cases := []struct {
		r    Rule
		cmd  string
		want bool
	}{
		{gs, "git status", true}, {gs, "git status -s", true}, {gs, "git", false}, {gs, "git stat", false},
		{gs, "git statusx", false}, {gs, "GIT status", false}, {gs, "/usr/bin/git status", false},
		{gs, "env git status", false}, {gs, "sudo git status", false}, {gs, "git -C /x status", false},
		{gs, `bash -lc "git status"`, false},
		{alt, "pnpm test", true}, {alt, "npm test --watch", true}, {alt, "yarn test", false},
		{ci, "GIT status", true}, {ci, "git STATUS", true}, {ci, "/usr/bin/git status", false},
		{Rule{Pattern: [][]string{{"rm"}, {"-rf"}}}, "rm -r -f build", false},
		{Rule{Pattern: [][]string{{"a b"}}}, "'a b' c", true},
		{Rule{Pattern: [][]string{{"a b"}}}, "a b", false},
	}
	for _, c := range cases {
		argv, ok := SplitShell(c.cmd)
		if !ok {
			t.Fatalf("split %q", c.cmd)
		}
		if got := c.r.Matches(argv); got != c.want {
			t.Errorf("%s matches %q = %v, want %v", c.r, c.cmd, got, c.want)
		}
	}
}

// TestStrictestWins: forbidden over prompt over allow, whatever the order.
func TestStrictestWins(t *testing.T) {
	p := Policy{
		{Pattern: [][]string{{"git"}, {"push"}, {"--force"}}, Decision: Forbidden},
		{Pattern: [][]string{{"git"}}, Decision: Allow},
		{Pattern: [][]string{{"git"}, {"push"}}, Decision: Prompt},
	}
	for cmd, want := range map[string]Decision{
		"git push --force origin": Forbidden, "git push origin": Prompt, "git log": Allow, "ls": NoMatch,
	} {
		argv, _ := SplitShell(cmd)
		if got, _ := p.Decide(argv); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
}

// TestCovers: containment with a witness the narrower rule lacks.
func TestCovers(t *testing.T) {
	r := func(ci bool, pos ...[]string) Rule { return Rule{Pattern: pos, Canonical: ci} }
	cases := []struct {
		a, b Rule
		want bool
	}{
		{r(false, []string{"git"}), r(false, []string{"git"}, []string{"status"}), true},
		{r(false, []string{"git"}, []string{"status"}), r(false, []string{"git"}), false},
		{r(false, []string{"git"}, []string{"status", "log"}), r(false, []string{"git"}, []string{"log"}), true},
		{r(false, []string{"git"}, []string{"log"}), r(false, []string{"git"}, []string{"status", "log"}), false},
		{r(true, []string{"git"}), r(false, []string{"GIT"}), true},
		{r(false, []string{"git"}), r(true, []string{"git"}), false},
		{r(false, []string{"npm", "pnpm"}), r(false, []string{"pnpm", "npm"}), true},
	}
	for _, c := range cases {
		got, w := Covers(c.a, c.b)
		if got != c.want {
			t.Errorf("Covers(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
			continue
		}
		if !got && (!c.b.Matches(w) || c.a.Matches(w)) {
			t.Errorf("Covers(%s, %s): witness %q is not in b minus a", c.a, c.b, w)
		}
	}
}

// TestLoosenings: every class of argv head lets through more freely, and
// nothing for a respelling or a narrowing.
func TestLoosenings(t *testing.T) {
	parse := func(src string) Policy {
		rf, err := ParseRules("p.rules", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return rf.Rules
	}
	cases := []struct {
		name, base, head string
		want             []string // the witnesses' head/base decisions
	}{
		{"npx added", ``, `prefix_rule(pattern=["npx"])`, []string{"npx: allow<-"}},
		{"respelled", `prefix_rule(pattern=["git", ["log", "status"]])`, "for s in [\"status\", \"log\"]:\n    prefix_rule(pattern=[\"git\", s])", nil},
		{"narrowed", `prefix_rule(pattern=["git"])`, `prefix_rule(pattern=["git", "status"])`, nil},
		{"widened", `prefix_rule(pattern=["git", "status"])`, `prefix_rule(pattern=["git"])`, []string{"git: allow<-"}},
		{"forbidden removed", `prefix_rule(pattern=["rm"], decision="forbidden")`, ``, []string{"rm: <-forbidden"}},
		{"prompt to allow", `prefix_rule(pattern=["git", "push"], decision="prompt")`, `prefix_rule(pattern=["git", "push"])`, []string{"git push: allow<-prompt"}},
		{"masked by forbidden", `prefix_rule(pattern=["rm"], decision="forbidden")`, "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\nprefix_rule(pattern=[\"rm\", \"-rf\"])", nil},
		{"canonical", `prefix_rule(pattern=["git"])`, `prefix_rule(pattern=["git"], canonical_matching=True)`, []string{"GIT: allow<-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls, err := Loosenings(context.Background(), parse(c.base), parse(c.head))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range ls {
				got = append(got, QuoteArgv(l.Argv)+": "+l.Head.String()+"<-"+l.Base.String())
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestSplitShell: the example splitter (shlex-like, as Codex reads match
// and not_match strings).
func TestSplitShell(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"git status -s", []string{"git", "status", "-s"}, true},
		{`git "a b" 'c d'`, []string{"git", "a b", "c d"}, true},
		{`a\ b`, []string{"a b"}, true},
		{`"a\$b\q"`, []string{`a$b\q`}, true},
		{"zz # c", []string{"zz"}, true},
		{"a#b", []string{"a#b"}, true},
		{"zz && zz", []string{"zz", "&&", "zz"}, true},
		{`git 'x`, nil, false},
		{`a\`, nil, false},
		{"", nil, true},
	}
	for _, c := range cases {
		got, ok := SplitShell(c.in)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitShell(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
