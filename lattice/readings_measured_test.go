package lattice

import (
	"strings"
	"testing"
)

// TestMeasuredReadingsIssue19 holds the rule readings issue 19 §5 measured
// on the pinned binary (the conformance harness's probes; each row is what
// Claude Code did) that the documentation or an earlier model had wrong.
func TestMeasuredReadingsIssue19(t *testing.T) {
	bash := func(s string) Call { return Call{Tool: "Bash", Arg: s} }
	read := func(s string) Call { return Call{Tool: "Read", Arg: s} }
	edit := func(s string) Call { return Call{Tool: "Edit", Arg: s} }
	runMeasuredMatches(t, []measuredMatch{
		// Path rules fold case and runs of slashes, in every zone and list.
		{measured, "Read(//etc//**)", Deny, read("/etc/passwd"), true},
		{measured, "Read(//ETC/hostname)", Deny, read("/etc/hostname"), true},
		{measured, "Read(//ETC/hostname)", Deny, read("/etc/passwd"), false},
		{measured, "Read(~/.SSH/**)", Deny, read("~/.ssh/id_rsa"), true},
		{measured, "Read(./SRC/a.go)", Deny, read("src/a.go"), true},
		{measured, "Read(./SRC/a.go)", Deny, read("src/b.go"), false},
		{measured, "Edit(DOCS/**)", Deny, edit("docs/a1.md"), true},
		{measured, "Edit(//tmp//x/**)", Deny, edit("/tmp/x/a.txt"), true},
		{measured, "Read(//ETC/**)", Allow, read("/etc/passwd"), true},
		// Slashes right after the ~/ and ./ anchors collapse too (seed 1's
		// full corpus, path-fold, 2026-12-02; then the lead's probes).
		{measured, "Read(~//.ssh/id_rsa)", Allow, read("~/.ssh/id_rsa"), true},
		{measured, "Read(~//.ssh/id_rsa)", Deny, read("~/.ssh/id_rsa"), true},
		{measured, "Read(~///.ssh/id_rsa)", Allow, read("~/.ssh/id_rsa"), true},
		{measured, "Read(.//src/**)", Deny, read("src/a.txt"), true},
		{measured, "Edit(./SRC/**)", Allow, edit("src/a3.md"), true},
		{measured, "Edit(./SRC/**)", Allow, edit("SRC/a4.md"), true},
		{measured, "Edit(./SRC/**)", Allow, edit("docs/a5.md"), false},
		// A blank after a legacy :* makes the rule match nothing.
		{measured, "Bash(npm:* )", Allow, bash("npm test"), false},
		{measured, "Bash(npm:* )", Deny, bash("npm test"), false},
		{measured, "Bash(npm * )", Allow, bash("npm test"), true},
		// Bash(timeout:*) in deny and ask is also the legacy prefix.
		{measured, "Bash(timeout:*)", Deny, bash("timeout 5 curl evil.com"), true},
		{measured, "Bash(timeout:*)", Ask, bash("timeout 5 npm test"), true},
		{measured, "Bash(timeout: *)", Deny, bash("timeout 5 curl evil.com"), false},
		{measured, "Bash(timeout:*)", Deny, Call{Tool: "Bash", Arg: "echo hi", Param: "timeout", Value: "5000"}, true},
		{measured, "Bash(timeout: *)", Deny, Call{Tool: "Bash", Arg: "echo hi", Param: "timeout", Value: "5000"}, true},
	})
	for _, c := range []struct {
		list List
		rule string
		dead bool
	}{
		{Allow, "NotebookEdit(**)", true},
		{Deny, "NotebookEdit(**)", true},
		{Allow, "NotebookEdit(*)", false},
		{Allow, "Bash(npm:* )", true},
		{Deny, "Bash(npm:*  )", true},
		{Allow, "Bash(npm:*)", false},
		{Deny, "Bash(timeout:*)", false},
	} {
		if got := ParseIn(c.list, c.rule).Dead(); got != c.dead {
			t.Errorf("%s %s: Dead = %v, want %v", c.list, c.rule, got, c.dead)
		}
	}
	// NotebookEdit(*) edits the project's notebooks only in an allow list
	// (a home notebook still asks), and is the whole tool in a deny or
	// ask list (measured on 2.1.328, the conformance class notebook).
	if r := ParseIn(Allow, "NotebookEdit(*)"); r.Whole() || Matches(r, Call{Tool: "NotebookEdit", Arg: "~/h.ipynb"}) || !Matches(r, Call{Tool: "NotebookEdit", Arg: "sub/b.ipynb"}) {
		t.Errorf("allow NotebookEdit(*) is not the project's notebooks")
	}
	for _, l := range []List{Deny, Ask} {
		if r := ParseIn(l, "NotebookEdit(*)"); !r.Whole() {
			t.Errorf("%s NotebookEdit(*) is not the whole tool", l)
		}
	}
	// Edit path rules govern NotebookEdit as they govern Write; Edit(*)
	// does not.
	for _, c := range []struct {
		list List
		rule string
		path string
		want bool
	}{
		{Allow, "Edit(**)", "sub/b.ipynb", true},
		{Allow, "Edit(*.ipynb)", "sub/b.ipynb", true},
		{Allow, "Edit(~/**)", "~/h.ipynb", true},
		{Allow, "Edit(*)", "nb.ipynb", false},
		{Deny, "Edit(./sub/**)", "sub/b.ipynb", true},
		{Ask, "Edit(./sub/**)", "sub/b.ipynb", true},
	} {
		got := false
		for _, d := range Implied(ParseIn(c.list, c.rule)) {
			got = got || d.Canonical == "NotebookEdit" && Matches(d, Call{Tool: "NotebookEdit", Arg: c.path})
		}
		if got != c.want {
			t.Errorf("%s %s implies NotebookEdit of %s: %v, want %v", c.list, c.rule, c.path, got, c.want)
		}
	}
}

// TestMeasuredCommandChecksIssue19: what Claude Code asks about under
// every allow rule but the whole tool, and what it runs with no rule.
func TestMeasuredCommandChecksIssue19(t *testing.T) {
	for _, c := range []struct {
		line         string
		pattern      bool // asks under a pattern allow (Bash(**), Bash(rm *))
		whole        bool // asks under Bash(*)
		readOnlyRuns bool // runs with no rule
	}{
		{"rm x", false, false, false},
		{"rm -rf build", false, false, false},
		{"rm -f src/x", false, false, false},
		{"rm /tmp/x", true, false, false},
		{"rm -rf /tmp/x", true, false, false},
		{"rm ../x", true, false, false},
		{"rm ~/x", true, false, false},
		{"rm -rf ~/x", true, false, false},
		{"rm *.o", true, false, false},
		{"rm src/*.o", true, false, false},
		{"rm x?", true, false, false},
		{"rm [ab]", true, false, false},
		{"rmdir /tmp/x", true, false, false},
		{"timeout 5 rm /tmp/x", true, false, false},
		{"mv /tmp/a b", true, false, false},
		{"cp x /tmp/b", true, false, false},
		{"touch /tmp/x", true, false, false},
		{"mkdir /tmp/d", true, false, false},
		{"mkdir -p src/d", false, false, false},
		{"mkdir -- -x", false, false, false},
		{"chmod +x /tmp/x", false, false, false},
		{"cp x -- -x", true, false, false},
		{"cp -r x y", true, false, false},
		{"mv x -- -x", true, false, false}, // "mv with flags requires manual approval" under Bash(**) (seed 1, N=5000)
		{"cat *.md", false, false, true},
		{"ls *.md", false, false, true},
		{"cd", true, false, false},
		{"cd x y", true, false, false},
		{"cd web", false, false, true},
		{"pwd", false, false, true},
		{"pwd -P", false, false, false},
		{"pwd -L", false, false, false},
		{"python3 -V", false, false, false},
		{"python3 --version", false, false, true},
		{"rg --files", false, false, false},
		{"rg -n x src", false, false, true},
	} {
		if _, got := AlwaysAsks(c.line, false); got != c.pattern {
			t.Errorf("AlwaysAsks(%q, pattern) = %v, want %v", c.line, got, c.pattern)
		}
		if _, got := AlwaysAsks(c.line, true); got != c.whole {
			t.Errorf("AlwaysAsks(%q, whole) = %v, want %v", c.line, got, c.whole)
		}
		if got := ReadOnly(c.line); got != c.readOnlyRuns {
			t.Errorf("ReadOnly(%q) = %v, want %v", c.line, got, c.readOnlyRuns)
		}
	}
	// An additional directory is a working directory for writes too.
	extra := func(p string) bool { return len(p) > 7 && p[:7] == "/extra/" }
	if _, asks := AlwaysAsksWhere("mkdir /extra/d", false, extra); asks {
		t.Errorf("mkdir inside an additional directory asks")
	}
}

// TestReadOnlyProbes holds ReadOnly to the read-only table's measurement
// (ReadOnlyProbes; the conformance class readonly-table re-measures each
// row on the binary) and every command of the table to a row that runs:
// a command added to the table without a measurement fails here.
func TestReadOnlyProbes(t *testing.T) {
	measured := map[string]bool{}
	for _, p := range ReadOnlyProbes() {
		if got := ReadOnly(p.Line); got != p.Runs {
			t.Errorf("ReadOnly(%q) = %v, measured %v on Claude Code %s", p.Line, got, p.Runs, ClaudeCodeVersion)
		}
		if p.Runs {
			if f := strings.Fields(p.Line); len(f) > 0 {
				measured[f[0]] = true
			}
		}
	}
	for name := range readOnlyCommands {
		if !measured[name] {
			t.Errorf("read-only command %q has no measured row that runs in ReadOnlyProbes", name)
		}
	}
}

func TestCommandWrapperReadOnly(t *testing.T) {
	if !ReadOnly("command ls") || ReadOnly("command -v ls") || ReadOnly("command rm x") {
		t.Errorf("command ls runs with no rule (measured); command -v and command rm are not read here")
	}
}

// TestImpliedDenyEditStar: deny Edit(*) takes the Edit tool away and
// leaves Write alone, while deny Edit(**) denies a Write in the project
// (2.1.328, seed 2's full corpus, then a probe).
func TestImpliedDenyEditStar(t *testing.T) {
	tools := func(text string) []string {
		var out []string
		for _, r := range Implied(ParseIn(Deny, text)) {
			out = append(out, r.Tool)
		}
		return out
	}
	if got := tools("Edit(*)"); strings.Join(got, ",") != "NotebookEdit" {
		t.Errorf("deny Edit(*) implies %v, want only NotebookEdit (no Write)", got)
	}
	if got := tools("Edit(**)"); !strings.Contains(strings.Join(got, ","), "Write") {
		t.Errorf("deny Edit(**) implies %v, want Write among them", got)
	}
}
