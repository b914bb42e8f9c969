package lattice

import (
	"slices"
	"strings"
	"testing"
)

// measuredMatch is one call Claude Code cc was measured to match (want) or
// not with the rule text in list.
type measuredMatch struct {
	cc   string
	rule string
	list List
	call Call
	want bool
}

func runMeasuredMatches(t *testing.T, cases []measuredMatch) {
	t.Helper()
	for _, c := range cases {
		if got := Matches(ParseIn(c.list, c.rule), c.call); got != c.want {
			t.Errorf("Matches(%s:%s, %v) = %v, want %v (measured on Claude Code %s)", c.list, c.rule, c.call, got, c.want, c.cc)
		}
	}
}

// TestMeasuredMatches holds the disagreement classes issue 9 found between
// the real Claude Code and the documentation, as Matches rows: each row is
// what the binary did, with the version it was measured on.
func TestMeasuredMatches(t *testing.T) {
	bash := func(s string) Call { return Call{Tool: "Bash", Arg: s} }
	read := func(s string) Call { return Call{Tool: "Read", Arg: s} }
	edit := func(s string) Call { return Call{Tool: "Edit", Arg: s} }
	cases := []measuredMatch{
		// Three or more leading slashes collapse to the root anchor.
		{measured, "Read(///etc/**)", Allow, read("/etc/passwd"), true},
		{measured, "Read(////etc/**)", Allow, read("/etc/passwd"), true},
		{measured, "Edit(///**)", Allow, edit("/etc/hosts"), true},
		{measured, "Edit(///**)", Allow, edit("~/.bashrc"), true},
		{measured, "Read(//etc/**)", Allow, read("/etc/passwd"), true},
		// Bash(**) is a pattern rule: a line starting with - asks.
		{measured, "Bash(**)", Allow, bash("npm publish"), true},
		{measured, "Bash(**)", Allow, bash("-rf x"), false},
		{measured, "Bash(***)", Allow, bash("-rf x"), false},
		{measured, "Bash(*)", Allow, bash("-rf x"), true},
		{measured, "Bash", Allow, bash("-rf x"), true},
		{measured, "Bash(**)", Deny, bash("-rf x"), true},
		// An escaped star keeps its backslash.
		{measured, "Bash(npm test\\*)", Allow, bash("npm test\\*"), true},
		{measured, "Bash(npm test\\*)", Allow, bash("npm test*"), false},
		{measured, "Bash(npm test\\*)", Allow, bash("npm testx"), false},
		// Blanks inside are normalised, outside the rule is skipped.
		{measured, "Bash(npm  *)", Allow, bash("npm x"), true},
		{measured, "Bash( npm *)", Allow, bash("npm x"), true},
		{measured, "Bash(npm * )", Allow, bash("npm x"), true},
		{measured, " Bash(npm *)", Allow, bash("npm x"), false},
		{measured, "Bash (npm *)", Allow, bash("npm x"), false},
		{measured, "Bash(npm *) ", Allow, bash("npm x"), false},
		{measured, " Bash(git push:*)", Deny, bash("git push"), false},
		{measured, "bash(npm *)", Allow, bash("npm x"), false},
		{measured, "BASH(npm *)", Allow, bash("npm x"), false},
		// Balanced parentheses are literal.
		{measured, "Bash(echo (x))", Allow, bash("echo (x)"), true},
		// Compound allow rules: exact ones match their whole line, with a
		// star they match nothing.
		{measured, "Bash(cd web && npm ci)", Allow, bash("cd web && npm ci"), true},
		{measured, "Bash(curl x | sh:*)", Allow, bash("curl x | sh"), false},
		{measured, "Bash(curl x | sh:*)", Allow, bash("curl x | sh -s"), false},
		{measured, "Bash(git add * && git commit *)", Allow, bash("git add x && git commit x"), false},
		{measured, "Bash(curl * | sh)", Deny, bash("curl x | sh"), true},
		// A pattern matching a directory covers what it holds.
		{measured, "Read(./secrets)", Deny, read("secrets/key"), true},
		{measured, "Read(/secrets)", Ask, read("secrets/key"), true},
		{measured, "Edit(~/*)", Deny, edit("~/.ssh/x"), true},
		{measured, "Read(~/*)", Allow, read("~/.ssh/id_rsa"), true},
		// A `./` pattern of one segment matches at any depth inside the
		// project, never outside; a bare one-segment deny whose segment
		// matches `..` covers every path outside the project too.
		{measured, "Read(./.env)", Deny, read("src/.env"), true},
		{measured, "Read(./.env)", Deny, read("~/.env"), false},
		{measured, "Read(./.env)", Ask, read("src/.env"), true},
		{measured, "Read(/.env)", Deny, read("src/.env"), false},
		{measured, "Read(./*.go)", Deny, read("src/deep/x.go"), true},
		// A `./dir/**` deny of one directory segment matches that
		// directory at any depth, like a bare `dir/**` (2.1.328, measured
		// at seed 2 and by hand: "File is in a directory that is denied");
		// `./web/src/**` and `/src/**` only at the root.
		{measured, "Read(./src/**)", Deny, read("web/src/a.ts"), true},
		{measured, "Read(./src/**)", Deny, read("x/web/src/a.ts"), true},
		{measured, "Read(./src/**)", Deny, read("websrc/a.ts"), false},
		{measured, "Read(./SRC/**)", Deny, read("web/src/a.ts"), true},
		{measured, "Edit(./src/**)", Deny, edit("a/b/src/x.ts"), true},
		{measured, "Read(./web/src/**)", Deny, read("x/web/src/a.ts"), false},
		{measured, "Read(/src/**)", Deny, read("web/src/a.ts"), false},
		{measured, "Edit(./*.env)", Allow, edit("src/e28.env"), true},
		{measured, "Read(*)", Deny, read("~/.ssh/id_rsa"), true},
		{measured, "Read(*)", Deny, read("/etc/hostname"), true},
		{measured, "Read(*)", Deny, read("/tmp/extra/notes.md"), true},
		{measured, "Read(*)", Allow, read("~/.ssh/id_rsa"), false},
		{measured, "Read(*.env)", Deny, read("~/.env"), false},
		{measured, "Read(**)", Deny, read("~/.env"), false},
		{measured, "Edit(./*)", Deny, edit("~/e36.txt"), false},
		// Runs of blanks in the command are collapsed before matching.
		{measured, "Bash(docker run *)", Deny, bash("docker  run x"), true},
		{measured, "Bash(kubectl apply * )", Deny, bash("kubectl  apply x"), true},
		{measured, "Bash(go test*)", Deny, bash("go  test x"), true},
		{measured, "Bash(git push)", Deny, bash("git  push"), true},
		{measured, "Bash(python3 -m pytest **)", Allow, bash("python3  -m pytest x"), true},
		// A deny sees through exec (wrappers.go; CommandForms).
		// As documented (kept to pin them).
		{measured, "Bash(npm test:*)", Allow, bash("npm test x"), true},
		{measured, "Bash(npm test:*)", Allow, bash("npm testx"), false},
		{measured, "Bash(npm test*)", Allow, bash("npm testx"), true},
		{measured, "Bash(git * main)", Allow, bash("git push origin main"), true},
		{measured, "Bash(git * main)", Allow, bash("git main"), false},
		{measured, "Bash(* --version)", Allow, bash("rm -rf x --version"), true},
		{measured, "Read(**)", Allow, read("~/.ssh/id_rsa"), false},
		{measured, "Edit(*.env)", Allow, edit("a/b/x.env"), true},
	}
	runMeasuredMatches(t, cases)
}

// TestMeasuredAssignments: the leading assignments allow rules see past,
// and those they do not (Claude Code 2.1.328).
func TestMeasuredAssignments(t *testing.T) {
	cases := []struct {
		cc       string
		line     string
		stripped bool
	}{
		{measured, "NODE_ENV=test npm test", true},
		{measured, "LANG=C npm test", true},
		{measured, "TZ=UTC npm test", true},
		{measured, "NO_COLOR=1 npm test", true},
		{measured, "CI=1 npm test", true},
		{measured, "RUST_LOG=debug npm test", true},
		{measured, "GOOS=linux npm test", true},
		{measured, "FORCE_COLOR=1 npm test", true},
		{measured, "TERM=dumb npm test", true},
		{measured, "CI=1 TERM=dumb npm test", true},
		{measured, "FOO=1 npm test", false},
		{measured, "DEBUG=1 npm test", false},
		{measured, "NODE_OPTIONS=--x npm test", false},
		{measured, "PATH=/tmp npm test", false},
		{measured, "LD_PRELOAD=x npm test", false},
		{measured, "PYTHONPATH=x npm test", false},
		{measured, "HOME=/tmp npm test", false},
		{measured, "LC_ALL=C npm test", true}, // internal/conformance/testdata/measured.jsonl
		{measured, "NPM_CONFIG_REGISTRY=x npm test", false},
		{measured, "BASH_ENV=x npm test", false},
		{measured, "PAGER=x npm test", false},
		{measured, "EDITOR=x npm test", false},
		{measured, "GIT_DIR=x npm test", false},
		{measured, "USER=x npm test", false},
		{measured, "TMPDIR=x npm test", false},
		{measured, "http_proxy=x npm test", false},
		{measured, "CI=1 FOO=1 npm test", false},
	}
	for _, c := range cases {
		var texts []string
		for _, f := range CommandForms(c.line).Allow {
			texts = append(texts, f.Text)
		}
		if got := slices.Contains(texts, "npm test"); got != c.stripped {
			t.Errorf("CommandForms(%q).Allow = %q: allow rules see past the assignment = %v, want %v (measured on Claude Code %s)", c.line, texts, got, c.stripped, c.cc)
		}
	}
}

// TestMeasuredWriteAndImplied: Write rules and what Claude Code derives
// across Read, Edit and Write (2.1.328).
func TestMeasuredWriteAndImplied(t *testing.T) {
	w := func(s string) Call { return Call{Tool: "Write", Arg: s} }
	cases := []measuredMatch{
		{measured, "Write(*)", Allow, w("w1.txt"), true},
		{measured, "Write(*)", Allow, w("~/w2.txt"), false},
		{measured, "Write(**)", Allow, w("w1.txt"), false},
		{measured, "Write(*.env)", Allow, w("x.env"), false},
		{measured, "Write(./src/**)", Allow, w("src/a.go"), false},
		{measured, "Write(./*)", Allow, w("e21.txt"), false},
		{measured, "Write", Allow, w("~/w2.txt"), true},
	}
	runMeasuredMatches(t, cases)
	implied := []measuredMatch{
		{measured, "Edit(~/.ssh/**)", Allow, Call{Tool: "Read", Arg: "~/.ssh/id_rsa"}, true},
		{measured, "Edit(//tmp/extra/**)", Allow, Call{Tool: "Read", Arg: "/tmp/extra/x"}, true},
		{measured, "Edit(./src/**)", Allow, w("src/a.go"), true},
		{measured, "Edit(**)", Allow, w("a/b.go"), true},
		{measured, "Edit(./src/**)", Allow, w("docs/a.md"), false},
		{measured, "Edit", Allow, w("a.go"), false}, // bare Edit does not allow Write
		{measured, "Edit(*)", Allow, w("e21.txt"), false},
		{measured, "Edit(*)", Allow, w("src/e23.go"), false},
		{measured, "Edit(*.env)", Allow, w("src/e29.env"), true},
		{measured, "Edit(./*.env)", Allow, w("src/e29.env"), true},
		{measured, "Read", Deny, Call{Tool: "Edit", Arg: "~/e36.txt"}, true},
		{measured, "Read", Deny, w("src/e23.go"), true},
		{measured, "Read(*.env)", Deny, Call{Tool: "Edit", Arg: "x.env"}, true},
		{measured, "Read(*.env)", Deny, w("a/x.env"), true},
		{measured, "Edit(./docs/**)", Deny, w("docs/sub/e33.md"), true},
		{measured, "Edit(./docs/**)", Deny, Call{Tool: "Read", Arg: "docs/a.md"}, false},
		{"", "Read(*.env)", Ask, Call{Tool: "Edit", Arg: "x.env"}, false}, // not measured: not derived
		{"", "Edit(~/**)", Deny, Call{Tool: "Read", Arg: "~/x"}, false},   // not measured: not derived
	}
	for _, c := range implied {
		got := false
		for _, d := range Implied(ParseIn(c.list, c.rule)) {
			if d.Text != c.rule || d.List != c.list {
				t.Errorf("Implied(%s) gave %s:%s, want the source text and list", c.rule, d.List, d.Text)
			}
			if Matches(d, c.call) {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("Implied(%s:%s) matches %v = %v, want %v (Claude Code %s)", c.list, c.rule, c.call, got, c.want, firstOr(c.cc, "fail-closed"))
		}
	}
}

// TestMeasuredDenyThroughExec: deny and ask rules see through exec; allow
// rules do not (Claude Code 2.1.328: exec asks under a pattern rule).
func TestMeasuredDenyThroughExec(t *testing.T) {
	fs := CommandForms("exec npm publish x")
	var deny, allow []string
	for _, f := range fs.Deny {
		deny = append(deny, f.Text)
	}
	for _, f := range fs.Allow {
		allow = append(allow, f.Text)
	}
	if !slices.Contains(deny, "npm publish x") {
		t.Errorf("deny forms %q lack npm publish x (measured on Claude Code %s)", deny, measured)
	}
	if slices.Contains(allow, "npm publish x") {
		t.Errorf("allow forms %q see through exec", allow)
	}
}

// TestMeasuredDenySpelling: a deny or ask rule sees through the spelling
// of the command word and past xargs with a wildcard rule only (Claude Code
// 2.1.328, the harness's full run: deny:abs-path, deny:backslash,
// deny:single-quoted, deny:split-quote, deny:dot-slash, deny:xargs).
func TestMeasuredDenySpelling(t *testing.T) {
	for _, c := range []struct {
		line, form string
		noExact    bool
	}{
		{"/usr/bin/npm publish x", "npm publish x", false},
		{"\\npm publish x", "npm publish x", false},
		{"'npm' publish x", "npm publish x", false},
		{`n"pm" publish x`, "npm publish x", false},
		{"./npm publish x", "npm publish x", false},
		{"sudo /usr/bin/rm x", "rm x", false},
		{"xargs curl", "curl", true},
		{"xargs /usr/bin/curl x", "curl x", true},
	} {
		var got *Form
		fs := CommandForms(c.line)
		for i := range fs.Deny {
			if fs.Deny[i].Text == c.form {
				got = &fs.Deny[i]
			}
		}
		switch {
		case got == nil:
			t.Errorf("CommandForms(%q).Deny = %+v, want %q among them (measured on Claude Code %s)", c.line, fs.Deny, c.form, measured)
		case got.NoExact != c.noExact:
			t.Errorf("CommandForms(%q): form %q NoExact = %v, want %v (measured on Claude Code %s)", c.line, c.form, got.NoExact, c.noExact, measured)
		}
		for _, f := range fs.Allow {
			if f.Text == c.form && c.line[0] != 'x' && strings.Contains(strings.Fields(c.line)[0], "/") {
				t.Errorf("CommandForms(%q): an allow rule reads %q (measured: an allow rule keeps the directory, `./git push x` asks under Bash(git *))", c.line, c.form)
			}
		}
	}
	exact, star := ParseIn(Deny, "Bash(curl)"), ParseIn(Deny, "Bash(curl:*)")
	f := Form{Text: "curl", NoExact: true}
	if f.MatchesForm(exact) || !f.MatchesForm(star) {
		t.Errorf("past xargs: exact deny consulted %v, curl:* %v; want false, true (measured on Claude Code %s)", f.MatchesForm(exact), f.MatchesForm(star), measured)
	}
}

// TestMeasuredNormalisedBlanks: the command is matched with its blanks
// normalised (Claude Code 2.1.328, the harness's recording).
func TestMeasuredNormalisedBlanks(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"python3  -m pytest x", "python3 -m pytest x"},
		{"kubectl  apply x", "kubectl apply x"},
		{"FOO=1  npm\ttest", "npm test"},
		{"echo 'a  b'  x", "echo 'a  b' x"},
	} {
		var deny []string
		for _, f := range CommandForms(c.line).Deny {
			deny = append(deny, f.Text)
		}
		if !slices.Contains(deny, c.want) {
			t.Errorf("CommandForms(%q).Deny = %q, want %q among them (measured on Claude Code %s)", c.line, deny, c.want, measured)
		}
	}
}

// TestMeasuredCommandChecks: what Claude Code 2.1.328 asks about under the
// whole Bash tool and what read-only commands it runs with no rule, as the
// conformance harness measured them (command-checks, bash-deny, modes,
// additional-dirs classes).
func TestMeasuredCommandChecks(t *testing.T) {
	for _, c := range []struct {
		line  string
		whole bool // under Bash / Bash(*)
		asks  bool
	}{
		{"rm -r .", true, true},
		{"rm -rf ~", true, true},
		{"rm ./...", true, true},
		{"rm -rf ./...", true, true},
		{"rm -rf /", true, true},
		{"rm ../x", true, false},
		{"rm -rf ~/x", true, false},
		{"rm -rf ./x", true, false},
		{"rm -rf /tmp/x", true, false},
		{"ls &", true, true},
		{"wget x &", true, false},
		{"ls \\\n -la", false, false},
		// Under Bash(rm *) the removal check sees past the wrappers
		// (seed 3's full corpus).
		{"timeout 5 rm ./...", false, true},
		{"nice -n 5 rm ./...", false, true},
		{"nice -10 rm ./...", false, true},
		{"command rm ./...", false, true},
		{"timeout 5 nice rm ./...", false, true},
		{"timeout 5 rm ./x", false, false},
	} {
		if _, got := AlwaysAsks(c.line, c.whole); got != c.asks {
			t.Errorf("AlwaysAsks(%q, whole=%v) = %v, want %v (measured on Claude Code %s)", c.line, c.whole, got, c.asks, measured)
		}
	}
	// bypassPermissions: the whole tool's checks but the `...` one
	// (seed 4's full corpus: `rm ./...` ran with no rule).
	for _, c := range []struct {
		line string
		asks bool
	}{
		{"rm ./...", false},
		{"rm -rf /", true},
		{"rm -rf ~", true},
		{"ls &", true},
	} {
		if _, got := BypassAsks(c.line); got != c.asks {
			t.Errorf("BypassAsks(%q) = %v, want %v (measured on Claude Code %s)", c.line, got, c.asks, measured)
		}
	}
	home := func(p string) bool {
		return p == "~/.ssh/id_rsa" || strings.HasPrefix(p, "/tmp/extra/") || p == "/tmp/extra"
	}
	for _, c := range []struct {
		line string
		want bool
	}{
		{"cat ~/.ssh/id_rsa", true}, // under allow Read(~/.ssh/**)
		{"cat /tmp/extra/notes.md", true},
		{"ls /tmp/extra", true}, // an additional directory
		{"cat /etc/passwd", false},
		{"cat ~/../etc/passwd", false},
	} {
		if got := ReadOnlyWhere(c.line, home); got != c.want {
			t.Errorf("ReadOnlyWhere(%q) = %v, want %v (measured on Claude Code %s)", c.line, got, c.want, measured)
		}
	}
	inExtra := func(p string) bool { return strings.HasPrefix(p, "/tmp/extra/") }
	for _, c := range []struct {
		line string
		want bool
	}{
		{"rm -rf x", true}, {"rm src", true}, {"touch x", true}, {"mkdir d", true}, {"echo x > y.txt", true},
		{"rm -rf /tmp/extra/x", true}, {"touch /tmp/extra/y", true},
		{"rm -rf ~/x", false}, {"rm .", false}, {"rm .git/config", false}, {"sed -i s/a/b/ x", false}, {"echo x > ~/y", false}, {"rm $X", false},
	} {
		if got := AcceptEditsRuns(c.line, inExtra); got != c.want {
			t.Errorf("AcceptEditsRuns(%q) = %v, want %v (measured on Claude Code %s)", c.line, got, c.want, measured)
		}
	}
	for _, c := range []struct {
		rule string
		list List
		call string
		want bool
	}{
		{"Bash(npm * *)", Deny, "npm x", false},
		{"Bash(npm * *)", Deny, "npm x y", true},
		{"Bash(npm * *)", Allow, "npm run build", true},
		{"Bash(* *)", Allow, "make", false},
		{"Bash(pip * *)", Allow, "pip install*", false},
		{"Bash(terraform *:*)", Allow, "terraform apply x", false},
		{"Bash(npm *:*)", Allow, "npm run build", false},
	} {
		if got := Matches(ParseIn(c.list, c.rule), Call{Tool: "Bash", Arg: c.call}); got != c.want {
			t.Errorf("Matches(%s:%s, %q) = %v, want %v (measured on Claude Code %s)", c.list, c.rule, c.call, got, c.want, measured)
		}
	}
}

// TestMeasuredParamRules holds the parameter rules to what Claude Code
// 2.1.328 did with them under allow Bash(*), Read and WebFetch (the
// conformance class params: each call sets the one input field it names).
func TestMeasuredParamRules(t *testing.T) {
	p := func(tool, arg, param, value string) Call {
		return Call{Tool: tool, Arg: arg, Param: param, Value: value}
	}
	cases := []measuredMatch{
		{measured, "Bash(timeout:*)", Deny, p("Bash", "npm test", "timeout", "5000"), true},
		{measured, "Bash(timeout: *)", Ask, p("Bash", "npm test", "timeout", "60000"), true},
		{measured, "Bash(timeout:5000)", Deny, p("Bash", "npm test", "timeout", "5000"), true},
		{measured, "Bash(timeout:5000)", Deny, p("Bash", "npm test", "timeout", "60000"), false},
		{measured, "Bash(timeout:5*)", Deny, p("Bash", "npm test", "timeout", "5000"), true},
		{measured, "Bash(timeout:*)", Deny, p("Bash", "npm test", "", ""), false},
		{measured, "Bash(description:conf*)", Deny, p("Bash", "ls", "description", "conformance call"), true},
		{measured, "Bash(description:other)", Deny, p("Bash", "ls", "description", "conformance call"), false},
		{measured, "Bash(run_in_background:true)", Deny, p("Bash", "ls", "run_in_background", "true"), true},
		{measured, "Bash(run_in_background:true)", Deny, p("Bash", "ls", "run_in_background", "false"), false},
		{measured, "Bash(dangerouslyDisableSandbox:true)", Ask, p("Bash", "ls", "dangerouslyDisableSandbox", "true"), true},
		{measured, "Read(offset:5)", Deny, p("Read", "src/app.go", "offset", "5"), true},
		{measured, "Read(offset:5)", Deny, p("Read", "src/app.go", "offset", "1"), false},
		{measured, "Read(limit:10)", Ask, p("Read", "src/app.go", "limit", "10"), true},
		// A wildcard value in a Read parameter rule matches nothing.
		{measured, "Read(limit:*)", Deny, p("Read", "src/app.go", "limit", "10"), false},
		{measured, "Read(offset:*)", Ask, p("Read", "src/app.go", "offset", "1"), false},
		// Parameter rules on WebFetch are ignored.
		{measured, "WebFetch(prompt:*)", Deny, p("WebFetch", "example.com", "prompt", "conformance call"), false},
		{measured, "WebFetch(prompt:conf*)", Deny, p("WebFetch", "example.com", "prompt", "conformance call"), false},
		{measured, "WebFetch(prompt:other)", Ask, p("WebFetch", "example.com", "prompt", "other"), false},
	}
	for _, c := range cases {
		r := ParseIn(c.list, c.rule)
		if got := Match(r, c.call) == Yes; got != c.want {
			t.Errorf("Claude Code %s: %s %s on %v: Shipgate matches = %v, Claude Code matched = %v (%s)", c.cc, c.list, c.rule, c.call, got, c.want, r.Malformed)
		}
	}
}
