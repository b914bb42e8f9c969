package judge

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// witnessRe finds the counter-example a suggestion's Why names.
var witnessRe = regexp.MustCompile("does not match `([^`]+)`")

// checkSuggestion holds one suggestion to what it claims, with the lattice
// and by applying it: each suggested rule is covered by the replaced rule,
// the replaced rule is not covered by them (the named counter-example is
// matched by it and by none of them), every allowed intent the replaced
// rule matched is still matched, Before is the head's line, and the head
// with After in its place no longer raises a finding on the replaced rule.
func checkSuggestion(t *testing.T, in report.Input, sg report.Suggestion) {
	t.Helper()
	r := lattice.Parse(sg.Rule)
	var rules []lattice.Rule
	for _, s := range sg.Rules {
		rules = append(rules, lattice.Parse(s))
	}
	if len(rules) == 0 {
		t.Fatalf("suggestion for %s suggests no rule", sg.Rule)
	}
	for _, s := range rules {
		if v := lattice.Covers(r, s); v.Answer != lattice.Yes {
			t.Errorf("%s does not cover the suggested %s (%v): not narrower", sg.Rule, s.Text, v.Answer)
		}
	}
	if _, ans := lattice.Find([]lattice.Rule{r}, rules); ans != lattice.Yes {
		t.Errorf("the suggested %v cover %s: not strictly narrower", sg.Rules, sg.Rule)
	}
	m := witnessRe.FindStringSubmatch(sg.Why)
	if m == nil {
		t.Fatalf("why names no counter-example: %q", sg.Why)
	}
	w := lattice.Call{Tool: r.Canonical, Arg: m[1]}
	if lattice.Match(r, w) != lattice.Yes {
		t.Errorf("counter-example %q is not matched by %s", m[1], sg.Rule)
	}
	for _, s := range rules {
		if lattice.Match(s, w) != lattice.No {
			t.Errorf("counter-example %q is matched by the suggested %s", m[1], s.Text)
		}
	}
	if in.Policy != nil {
		for _, it := range in.Policy.Intent.Allowed {
			c, err := policy.ParseCall(it.Value)
			if err != nil || lattice.Match(r, c) != lattice.Yes {
				continue
			}
			found := false
			for _, s := range rules {
				found = found || lattice.Match(s, c) == lattice.Yes
			}
			if !found && !strings.Contains(sg.Why, "intent") {
				// Another rule of the file may allow it; then the suggestion
				// need not, but the applied run below must not violate it.
				continue
			}
		}
	}
	var applied report.Input
	applied.Policy = in.Policy
	done := false
	for _, f := range in.Files {
		if f.Path == sg.Path && f.Head.Exists {
			lines := strings.Split(string(f.Head.Data), "\n")
			if sg.Line < 1 || sg.Line > len(lines) || lines[sg.Line-1] != sg.Before {
				t.Fatalf("line %d of %s is %q, the suggestion's before is %q", sg.Line, sg.Path, lines[min(sg.Line, len(lines))-1], sg.Before)
			}
			lines[sg.Line-1] = sg.After
			f.Head = report.Version{Exists: true, Data: []byte(strings.Join(lines, "\n"))}
			done = true
		}
		applied.Files = append(applied.Files, f)
	}
	if !done {
		t.Fatalf("no head file %s to apply the suggestion to", sg.Path)
	}
	before := Compare(in)
	after := Compare(applied)
	for _, f := range after.Findings {
		if f.Title == "allow "+sg.Rule {
			t.Errorf("applied, the suggestion still leaves a finding on %s: %s", sg.Rule, f.Message)
		}
		if f.CheckID == report.CheckIntent || f.CheckID == report.CheckParseFailed {
			new := true
			for _, g := range before.Findings {
				new = new && g.Key != f.Key
			}
			if new {
				t.Errorf("applied, the suggestion raises %s: %s", f.CheckID, f.Message)
			}
		}
	}
}

// TestSuggestionsProved holds every suggestion of every golden case to
// what it claims (checkSuggestion), and a case that says a suggestion is
// (or is not) offered to that.
func TestSuggestionsProved(t *testing.T) {
	entries, err := os.ReadDir(GoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	offered := 0
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		dir := filepath.Join(GoldenDir, ent.Name())
		t.Run(ent.Name(), func(t *testing.T) {
			exp := ParseExpect(t, filepath.Join(dir, "expect.txt"))
			if exp.generate != "" {
				t.Skip("generated head")
			}
			in := LoadCase(t, dir, exp)
			rep := Compare(in)
			for _, sg := range rep.Suggestions {
				offered++
				checkSuggestion(t, in, sg)
			}
		})
	}
	if offered < 5 {
		t.Errorf("%d suggestions across the golden cases, want at least 5", offered)
	}
}

// TestSuggestCases is table-driven over single-file changes: whether a
// suggestion is offered, and which rules it suggests.
func TestSuggestCases(t *testing.T) {
	settings := func(rules ...string) []byte {
		var q []string
		for _, r := range rules {
			q = append(q, "      "+jsonString(r))
		}
		return []byte("{\n  \"permissions\": {\n    \"allow\": [\n" + strings.Join(q, ",\n") + "\n    ]\n  }\n}\n")
	}
	cases := []struct {
		name       string
		base, head []string
		intents    []string
		want       []string // nil: no suggestion
	}{
		{"widened keeps the base", []string{"Bash(npm test:*)"}, []string{"Bash(npm *)"}, nil, []string{"Bash(npm test:*)"}},
		{"widened plus an intent, legacy spelling", []string{"Bash(npm test:*)"}, []string{"Bash(npm *)"}, []string{"npm run lint"}, []string{"Bash(npm test:*)", "Bash(npm run lint:*)"}},
		{"widened plus an intent, modern spelling", []string{"Bash(git diff *)"}, []string{"Bash(git *)"}, []string{"git log"}, []string{"Bash(git diff *)", "Bash(git log *)"}},
		{"an intent the base already allows adds nothing", []string{"Bash(npm test *)"}, []string{"Bash(npm *)"}, []string{"npm test --watch"}, []string{"Bash(npm test *)"}},
		{"an intent another rule allows adds nothing", []string{"Bash(npm test *)", "Bash(npm run lint)"}, []string{"Bash(npm *)", "Bash(npm run lint)"}, []string{"npm run lint"}, []string{"Bash(npm test *)"}},
		{"an intent the new rule does not match is not its business", []string{"Bash(npm test *)"}, []string{"Bash(npm *)"}, []string{"make build"}, []string{"Bash(npm test *)"}},
		{"added, nothing needs it", nil, []string{"Bash(npm *)"}, nil, nil},
		{"added, an intent needs part of it", nil, []string{"Bash(npm *)"}, []string{"npm ci"}, []string{"Bash(npm ci *)"}},
		{"added, the intent needs all of it", nil, []string{"Bash(npm test *)"}, []string{"npm test"}, nil},
		{"exact added rule is minimal", []string{"Bash(ls)"}, []string{"Bash(ls)", "Bash(make build)"}, []string{"make build"}, nil},
		{"webfetch widened", []string{"WebFetch(domain:api.github.com)"}, []string{"WebFetch(domain:*.github.com)"}, nil, []string{"WebFetch(domain:api.github.com)"}},
		{"edit widened with a path intent", []string{"Edit(src/**)"}, []string{"Edit(**)"}, []string{"Edit(docs/guide.md)"}, []string{"Edit(src/**)", "Edit(docs/guide.md)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := report.File{Path: ".claude/settings.json", Head: report.Version{Exists: true, Data: settings(c.head...)}}
			if c.base != nil {
				f.Base = report.Version{Exists: true, Data: settings(c.base...)}
			}
			in := report.Input{Files: []report.File{f}}
			if len(c.intents) > 0 {
				var y strings.Builder
				y.WriteString("version: 1\nintent:\n  allowed:\n")
				for _, it := range c.intents {
					y.WriteString("    - " + jsonString(it) + "\n")
				}
				p, err := policy.Parse(".github/shipgate.yml", []byte(y.String()), agentfiles.PolicyOptions())
				if err != nil {
					t.Fatal(err)
				}
				in.Policy = p
			}
			rep := Compare(in)
			if c.want == nil {
				if len(rep.Suggestions) > 0 {
					t.Fatalf("want no suggestion, got %+v", rep.Suggestions)
				}
				return
			}
			if len(rep.Suggestions) != 1 {
				t.Fatalf("want one suggestion %v, got %+v (findings %+v)", c.want, rep.Suggestions, rep.Findings)
			}
			sg := rep.Suggestions[0]
			if strings.Join(sg.Rules, "|") != strings.Join(c.want, "|") {
				t.Errorf("suggested %v, want %v", sg.Rules, c.want)
			}
			checkSuggestion(t, in, sg)
		})
	}
}

func TestLineEdit(t *testing.T) {
	cases := []struct {
		line, rule string
		rules      []string
		want       string
		ok         bool
	}{
		{`      "Bash(npm *)",`, "Bash(npm *)", []string{"Bash(npm test *)"}, `      "Bash(npm test *)",`, true},
		{`      "Bash(npm *)"`, "Bash(npm *)", []string{"A", "B"}, "      \"A\",\n      \"B\"", true},
		{`      "Bash(npm *)",`, "Bash(npm *)", []string{"A", "B"}, "      \"A\",\n      \"B\",", true},
		{`"allow": ["Bash(npm *)", "Read"]`, "Bash(npm *)", []string{"A", "B"}, `"allow": ["A", "B", "Read"]`, true},
		{`"allow": ["Bash(echo \"hi\" *)"]`, `Bash(echo "hi" *)`, []string{`Bash(echo "hi")`}, `"allow": ["Bash(echo \"hi\")"]`, true},
		{`"allow": ["Bash(a < b)"]`, `Bash(a < b)`, []string{`Bash(a < c)`}, `"allow": ["Bash(a < c)"]`, true},
		{`      "Other",`, "Bash(npm *)", []string{"A"}, "", false},
	}
	for _, c := range cases {
		data := []byte("{\n" + c.line + "\n}\n")
		before, after, ok := lineEdit(data, 2, c.rule, c.rules)
		if ok != c.ok || (ok && (before != c.line || after != c.want)) {
			t.Errorf("lineEdit(%q, %q, %v) = %q, %q, %v; want %q, %v", c.line, c.rule, c.rules, before, after, ok, c.want, c.ok)
		}
	}
	if _, _, ok := lineEdit([]byte("x"), 5, "a", []string{"b"}); ok {
		t.Error("a line past the end edited")
	}
}

// TestReadableWitnesses: a placeholder witness is replaced only by a
// readable form that is still a witness (lattice.Match), else kept.
func TestReadableWitnesses(t *testing.T) {
	e := &engine{ctx: t.Context()}
	cases := []struct {
		call       string
		all, none  []string
		want       string
		tool, host bool
	}{
		{call: "npx x", all: []string{"Bash(npx *)"}, want: "npx cowsay"},
		{call: "npx x", all: []string{"Bash(npx *)"}, none: []string{"Bash(npx cowsay)"}, want: "npx create-react-app"},
		{call: "npx x", all: []string{"Bash(npx *)"}, none: []string{"Bash(npx c*)"}, want: "npx x"},
		{call: "npm exec x", all: []string{"Bash(npm *)"}, none: []string{"Bash(npm test *)"}, want: "npm exec cowsay"},
		{call: "docker exec x sh", all: []string{"Bash(docker *)"}, want: "docker exec web sh"},
		{call: "python3 -c x", all: []string{"Bash(python3 -c x)"}, want: "python3 -c x"},
		{call: "ls", all: []string{"Bash(ls *)"}, want: "ls"},
		{call: ":--help", all: []string{"Bash(*:--help)"}, want: "bash -c whoami :--help"},
		{call: ":--help", all: []string{"Bash(*:--help)"}, none: []string{"Bash(bash *)"}, want: "rm -rf build :--help"},
		{call: ":--help", all: []string{"Bash(*:--help)"}, none: []string{"Bash(bash *)", "Bash(rm *)"}, want: ":--help"},
		{call: "x.github.com", all: []string{"WebFetch(domain:*.github.com)"}, none: []string{"WebFetch(domain:api.github.com)"}, want: "gist.github.com", host: true},
	}
	for _, c := range cases {
		tool := "Bash"
		if c.host {
			tool = "WebFetch"
		}
		var all, none []lattice.Rule
		for _, r := range c.all {
			all = append(all, lattice.Parse(r))
		}
		for _, r := range c.none {
			none = append(none, lattice.Parse(r))
		}
		got := e.concrete([]lattice.Call{{Tool: tool, Arg: c.call}}, all, none, nil)
		if got[0].Arg != c.want {
			t.Errorf("concrete(%q, %v, %v) = %q, want %q", c.call, c.all, c.none, got[0].Arg, c.want)
		}
		if !e.isWitness(got[0], all, none) && got[0].Arg != c.call {
			t.Errorf("%q is not a witness", got[0].Arg)
		}
	}
}

// FuzzLineEdit: whatever the line and rules, lineEdit never panics, and
// when it edits, before is the line as written and after holds every
// suggested rule as a JSON string.
func FuzzLineEdit(f *testing.F) {
	f.Add(`      "Bash(npm *)",`, "Bash(npm *)", "Bash(npm test *)")
	f.Add(`"allow": ["Bash(a \"b\")", "Read"]`, `Bash(a "b")`, "Bash(a)")
	f.Add("\t\"x\"\r", "x", "y")
	f.Fuzz(func(t *testing.T, line, rule, repl string) {
		if strings.Contains(line, "\n") {
			return // not one line
		}
		data := []byte("{\n" + line + "\n}\n")
		before, after, ok := lineEdit(data, 2, rule, []string{repl, rule})
		if !ok {
			return
		}
		if before != strings.TrimSuffix(line, "\r") {
			t.Fatalf("before %q for line %q", before, line)
		}
		if !strings.Contains(after, jsonString(repl)) {
			t.Fatalf("after %q lacks %s", after, jsonString(repl))
		}
	})
}
