package lattice

import (
	"testing"
)

// measured is the Claude Code version a table row was measured on.
const measured = "2.1.328"

// TestReadOnly is the read-only table measured on the real binary: the
// commands that ran with no rule at all, and those that asked.
func TestReadOnly(t *testing.T) {
	cases := []struct {
		cc   string
		line string
		want bool
	}{
		// Ran with no rule.
		{measured, "ls", true},
		{measured, "ls -la", true},
		{measured, "git status", true},
		{measured, "git log", true},
		{measured, "git diff", true},
		{measured, "git show", true},
		{measured, "git branch", true},
		{measured, "git tag", true},
		{measured, "git blame x.go", true},
		{measured, "git remote -v", true},
		{measured, "git rev-parse HEAD", true},
		{measured, "git ls-files", true},
		{measured, "git stash list", true},
		{measured, "git config --get user.email", true},
		{measured, "cat README.md", true},
		{measured, "grep -r x .", true},
		{measured, "rg x", true},
		{measured, "fd x", true},
		{measured, "find . -name x", true},
		{measured, "head x.txt", true},
		{measured, "tail -f log.txt", true},
		{measured, "wc -l x", true},
		{measured, "sort x", true},
		{measured, "diff a b", true},
		{measured, "stat x", true},
		{measured, "du -sh .", true},
		{measured, "tree", true},
		{measured, "file x", true},
		{measured, "which node", true},
		{measured, "date", true},
		{measured, "whoami", true},
		{measured, "id", true},
		{measured, "uname -a", true},
		{measured, "hostname", true},
		{measured, "ps aux", true},
		{measured, "sleep 1", true},
		{measured, "true", true},
		{measured, "test -f x", true},
		{measured, "[ -f x ]", true},
		{measured, "basename a/b", true},
		{measured, "dirname a/b", true},
		{measured, "realpath x", true},
		{measured, "readlink x", true},
		{measured, "od -c x", true},
		{measured, "sha256sum x", true},
		{measured, "md5sum x", true},
		{measured, "base64 x", true},
		{measured, "jq . x.json", true},
		{measured, "docker ps", true},
		{measured, "node --version", true},
		{measured, "python3 --version", true},
		{measured, "sed -n 1,5p x", true},
		{measured, "echo hi", true},
		{measured, "pwd", true},
		{measured, "cd src", true},
		{measured, "xargs echo", true},
		{measured, "xargs", true},
		{measured, "timeout 5 ls", true},
		{measured, "ls | grep x", true},
		{measured, "git status && ls", true},
		{measured, "cd web\ngit status", false},
		{measured, "cd web && git status", false},
		{measured, "cd src && ls", true},
		{measured, "ls 2>&1", true},
		{measured, "ls > /dev/null", true},
		// Path-aware: these asked.
		{measured, "cat ~/.ssh/id_rsa", false},
		{measured, "cat /etc/passwd", false},
		{measured, "ls ~/.ssh", false},
		{measured, "grep -r x /", false},
		{measured, "find /", false},
		{measured, "cat ../x", false},
		// Not auto-allowed.
		{measured, "printenv", false},
		{measured, "env", false},
		{measured, "npm --version", false},
		{measured, "cargo --version", false},
		{measured, "go version", false},
		{measured, "git fetch", false},
		{measured, "git config user.name", false},
		{measured, "npm ls", false},
		{measured, "pip list", false},
		{measured, "awk 1 x", false},
		{measured, "sed -i s/a/b/ x", false},
		{measured, "less x", false},
		{measured, "xxd x", false},
		{measured, "touch x", false},
		{measured, "mkdir x", false},
		{measured, "echo x > y", false},
		{measured, "curl --version", false},
		{measured, "kubectl get pods", false},
		{measured, "gh pr list", false},
		{measured, "make -n", false},
		{measured, "ls | tee log", false},
		{measured, "(ls)", false},
		{measured, "{ ls; }", false},
		{measured, "ls &", false},
		{measured, "ls $HOME", false},
		{measured, "ls $(pwd)", false},
		{measured, "ls \\\n-la", true}, // ran under Bash(git *), Bash(**) and Bash(* *)
		// Fail-closed refusals (not measured: options that write or run).
		{"", "find . -exec rm {} +", false},
		{"", "find . -delete", false},
		{"", "sort -o out x", false},
		{"", "rg --pre sh x", false},
		{"", "fd -x rm", false},
		{"", "git -c core.pager=sh log", false},
		{"", "git diff --output=x", false},
		{"", "git branch new", false},
		{"", "git tag v1", false},
		{"", "date 010100002030", false},
		{"", "hostname evil", false},
		{"", "sed -n w/x x", false},
		{"", "xargs rm", false},
		{"", "timeout 5 rm x", false},
		{measured, "cat *.md", true}, // a glob inside the project (issue 19, the class pattern-paths)
		{"", "cat ~/*", false},
		{"", "rm *", false},
		{"", "LANG=C ls", false},
		{"", "-x", false},
		{"", "ls 'a b'", true},
		{"", "", false},
		{"", "if true; then ls; fi", false},
	}
	for _, c := range cases {
		if got := ReadOnly(c.line); got != c.want {
			t.Errorf("ReadOnly(%q) = %v, want %v (Claude Code %s)", c.line, got, c.want, firstOr(c.cc, "fail-closed"))
		}
		if c.want {
			if why, ok := AlwaysAsks(c.line, false); ok {
				t.Errorf("AlwaysAsks(%q) = %q, but it is read-only", c.line, why)
			}
		}
	}
}

func firstOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestAlwaysAsks: the commands Claude Code asked about whatever the allow
// rules (under a pattern rule such as Bash(**); under the whole tool only
// rm -rf / still asks).
func TestAlwaysAsks(t *testing.T) {
	cases := []struct {
		cc      string
		line    string
		pattern bool // asks under a pattern rule
		whole   bool // asks under Bash / Bash(*)
	}{
		{measured, "eval curl x", true, false},
		{measured, "exec ls", true, false},
		{measured, "watch ls", true, false},
		{measured, "setsid ls", true, false},
		{measured, "find . -exec curl {} +", true, false},
		{measured, "find . -delete", true, false},
		{measured, "-rf x", true, false},
		{measured, "rm -rf /", true, true},
		{measured, "echo x > y", true, false},
		{measured, "echo x >> y", true, false},
		{measured, "echo $(id)", true, false},
		{measured, "echo `id`", true, false},
		{measured, "echo $HOME", true, false},
		{measured, "(npm publish)", true, false},
		{measured, "{ ls; }", true, false},
		{measured, "npm test & npm publish", true, false},
		{measured, "ls \\\n-la", false, false}, // a read-only command split by a continuation runs
		{measured, "make \\\n x", false, false},
		{measured, "npm test 2>&1", false, false},
		{measured, "cd web\ngit status", true, false},
		{measured, "npm test > /dev/null", false, false},
		{measured, "npm test", false, false},
		{measured, "curl x | sh", false, false},
		{measured, "bash -c 'curl x'", false, false},
		{measured, "python3 -c 'import os'", false, false},
		{measured, "rm -rf x", false, false},
		{"", "rm -fr /", true, true},
		{"", "find . -name x", false, false},
	}
	for _, c := range cases {
		if why, got := AlwaysAsks(c.line, false); got != c.pattern {
			t.Errorf("AlwaysAsks(%q, pattern) = %v (%s), want %v (Claude Code %s)", c.line, got, why, c.pattern, firstOr(c.cc, "fail-closed"))
		}
		if why, got := AlwaysAsks(c.line, true); got != c.whole {
			t.Errorf("AlwaysAsks(%q, whole) = %v (%s), want %v (Claude Code %s)", c.line, got, why, c.whole, firstOr(c.cc, "fail-closed"))
		}
	}
}

func TestRunsWithoutRule(t *testing.T) {
	cases := []struct {
		c    Call
		want bool
	}{
		{Call{Tool: "Read", Arg: ".env"}, true},
		{Call{Tool: "Read", Arg: "src/main.go"}, true},
		{Call{Tool: "Read", Arg: "~/.ssh/id_rsa"}, false},
		{Call{Tool: "Read", Arg: "/etc/passwd"}, false},
		{Call{Tool: "Edit", Arg: "src/main.go"}, false},
		{Call{Tool: "Bash", Arg: "git status"}, true},
		{Call{Tool: "Bash", Arg: "npm test"}, false},
		{Call{Tool: "WebFetch", Arg: "example.com"}, false},
	}
	for _, c := range cases {
		if got := RunsWithoutRule(c.c); got != c.want {
			t.Errorf("RunsWithoutRule(%v) = %v, want %v (Claude Code %s)", c.c, got, c.want, measured)
		}
	}
	if !Matches(projectReads, Call{Tool: "Read", Arg: "a/b/.env"}) || Matches(projectReads, Call{Tool: "Read", Arg: "~/.env"}) {
		t.Error("ImplicitAllows: project reads must match project paths only")
	}
}

func TestExactly(t *testing.T) {
	for _, c := range []Call{{Tool: "Bash", Arg: "ls *"}, {Tool: "Read", Arg: "~/.ssh/id_rsa"}, {Tool: "Read", Arg: "/etc/passwd"}, {Tool: "Read", Arg: "src/x"}, {Tool: "WebFetch", Arg: "x.com"}, {Tool: "Agent", Arg: "Explore"}} {
		r := Exactly(c)
		if !Matches(r, c) {
			t.Errorf("Exactly(%v) does not match it", c)
		}
		other := c
		other.Arg += "x"
		if Matches(r, other) {
			t.Errorf("Exactly(%v) matches %v", c, other)
		}
	}
}

// FuzzReadOnly: the classifiers never panic, and no line is both read-only
// and always asked about.
func FuzzReadOnly(f *testing.F) {
	for _, s := range []string{"ls", "git status && ls", "cat ~/.ssh/id_rsa", "eval x", "find . -exec x {} +", "echo x > y", "timeout 5 ls", "ls | grep x", "rm -rf /", "(ls)", "ls \\\n-la"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ro := ReadOnly(line)
		_, asks := AlwaysAsks(line, false)
		_, asksWhole := AlwaysAsks(line, true)
		if ro && (asks || asksWhole) {
			t.Fatalf("%q is read-only and always asks", line)
		}
		if asksWhole && !asks {
			t.Fatalf("%q asks under the whole tool but not under a pattern rule", line)
		}
	})
}

func TestCheckedExamples(t *testing.T) {
	for _, c := range CheckedExamples {
		if _, ok := AlwaysAsks(c.Arg, false); !ok {
			t.Errorf("%s: no pattern rule asks for it", c)
		}
		if why, ok := AlwaysAsks(c.Arg, true); ok {
			t.Errorf("%s: asks under the whole tool too (%s)", c, why)
		}
		if !Matches(Parse("Bash(**)"), c) || !Matches(Parse("Bash"), c) {
			t.Errorf("%s: not matched by Bash(**) or Bash as text", c)
		}
	}
}
