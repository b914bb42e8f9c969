package lattice

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		text, list   string
		tool, canon  string
		spec         string
		fam          Family
		malformed    string // substring; "" means well-formed
		ambiguous    bool
		whole, dead  bool
		negated      bool
		noteContains string
	}{
		{text: "Bash", tool: "Bash", canon: "Bash", fam: FamilyShell, whole: true},
		{text: "Bash(*)", tool: "Bash", canon: "Bash", spec: "*", fam: FamilyShell, whole: true},
		{text: "Bash(**)", tool: "Bash", canon: "Bash", spec: "**", fam: FamilyShell}, // a pattern rule (2.1.328, measured)
		{text: "Bash(**)", list: "deny", tool: "Bash", canon: "Bash", spec: "**", fam: FamilyShell, whole: true},
		{text: "Bash(npm test:*)", tool: "Bash", canon: "Bash", spec: "npm test:*", fam: FamilyShell},
		{text: "Task(Explore)", tool: "Task", canon: "Agent", spec: "Explore", fam: FamilyGeneric},
		{text: "PowerShell(Get-Item *)", tool: "PowerShell", canon: "PowerShell", spec: "Get-Item *", fam: FamilyPowerShell},
		{text: "Read(~/.ssh/**)", tool: "Read", canon: "Read", spec: "~/.ssh/**", fam: FamilyPath},
		{text: "Write(src/**)", tool: "Write", canon: "Write", spec: "src/**", fam: FamilyUnconsulted, dead: true, noteContains: "never consults"},
		{text: "Write(**)", tool: "Write", canon: "Write", spec: "**", fam: FamilyUnconsulted, dead: true, noteContains: "write nowhere"},
		{text: "Write(*)", tool: "Write", canon: "Write", spec: "*", fam: FamilyUnconsulted, noteContains: "inside the project"},
		{text: "Write(**)", list: "deny", tool: "Write", canon: "Write", spec: "**", fam: FamilyUnconsulted, dead: true, noteContains: "never consults"},  // measured on 2.1.328 (ask Write(**) asked for nothing)
		{text: "Write(*)", list: "deny", tool: "Write", canon: "Write", spec: "*", fam: FamilyUnconsulted, whole: true, noteContains: "whole Write tool"}, // measured: every Write denied
		{text: "NotebookEdit(x.ipynb)", tool: "NotebookEdit", canon: "NotebookEdit", spec: "x.ipynb", fam: FamilyUnconsulted, dead: true},
		{text: "Glob(src/*)", tool: "Glob", canon: "Glob", spec: "src/*", fam: FamilyUnconsulted, dead: true},
		{text: "MultiEdit(a)", tool: "MultiEdit", canon: "MultiEdit", spec: "a", fam: FamilyUnconsulted, dead: true},
		{text: "WebFetch(domain:*)", tool: "WebFetch", canon: "WebFetch", spec: "domain:*", fam: FamilyDomain, whole: true},
		{text: "WebFetch(domain:x.com)", tool: "WebFetch", canon: "WebFetch", spec: "domain:x.com", fam: FamilyDomain},
		{text: "WebFetch(x.com)", tool: "WebFetch", canon: "WebFetch", spec: "x.com", malformed: "domain:<host>", dead: true},
		{text: "WebSearch", tool: "WebSearch", canon: "WebSearch", fam: FamilyGeneric, whole: true},
		{text: "Grep(TODO)", tool: "Grep", canon: "Grep", spec: "TODO", fam: FamilyGeneric},
		{text: "Skill(plugin:review)", tool: "Skill", canon: "Skill", spec: "plugin:review", fam: FamilyGeneric},
		{text: "Agent(model:opus)", list: "deny", tool: "Agent", canon: "Agent", spec: "model:opus", fam: FamilyGeneric},
		{text: "mcp__github", tool: "mcp__github", canon: "mcp__github", fam: FamilyMCP},
		{text: "mcp__github__get_*", tool: "mcp__github__get_*", canon: "mcp__github__get_*", fam: FamilyMCP},
		{text: "mcp__*", tool: "mcp__*", canon: "mcp__*", fam: FamilyToolGlob, malformed: "skips a tool-name glob", dead: true},
		{text: "mcp__*", list: "deny", tool: "mcp__*", canon: "mcp__*", fam: FamilyMCP},
		{text: "*", tool: "*", canon: "*", fam: FamilyToolGlob, malformed: "skips a tool-name glob", dead: true},
		{text: "*", list: "deny", tool: "*", canon: "*", fam: FamilyToolGlob, whole: true},
		// A tool name the binary holds nowhere (NoSuchTool): the rule
		// matches no call. One it names is read as a generic tool, as is a
		// name with "_" (the binary reads it as a possible MCP tool).
		{text: "FancyTool(x)", tool: "FancyTool", canon: "FancyTool", spec: "x", fam: FamilyGeneric, dead: true},
		{text: "TodoRead", tool: "TodoRead", canon: "TodoRead", fam: FamilyGeneric, dead: true},
		{text: "TodoRead", list: "deny", tool: "TodoRead", canon: "TodoRead", fam: FamilyGeneric, dead: true},
		{text: "SendUserFile(x)", tool: "SendUserFile", canon: "SendUserFile", spec: "x", fam: FamilyGeneric},
		{text: "Fancy_tool", tool: "Fancy_tool", canon: "Fancy_tool", fam: FamilyGeneric, whole: true},
		{text: "Read(!.env.example)", list: "deny", tool: "Read", canon: "Read", spec: "!.env.example", fam: FamilyPath, dead: true, negated: true},
		// Malformed.
		{text: "", malformed: "empty rule", dead: true, fam: FamilyInvalid},
		{text: "Bash(npm *", tool: "Bash", malformed: "unclosed parenthesis", dead: true, fam: FamilyInvalid},
		{text: "Bash(npm *)x", tool: "Bash", malformed: "text after the closing parenthesis", dead: true, fam: FamilyInvalid},
		{text: "Bash(npm *))", tool: "Bash", canon: "Bash", spec: "npm *)", malformed: "unbalanced", dead: true, fam: FamilyInvalid},
		{text: "(npm)", malformed: "empty tool name", dead: true, fam: FamilyInvalid},
		{text: "Bash()", tool: "Bash", canon: "Bash", malformed: "empty parentheses", dead: true, fam: FamilyInvalid},
		{text: "Bash(:*)", tool: "Bash", canon: "Bash", spec: ":*", malformed: "Prefix cannot be empty", dead: true, fam: FamilyInvalid},
		{text: "npm)", malformed: "closing parenthesis without", dead: true, fam: FamilyInvalid},
		{text: "mcp__db(query:*)", tool: "mcp__db", canon: "mcp__db", spec: "query:*", malformed: "bare tool name", dead: true, fam: FamilyInvalid},
		{text: "mcp__", tool: "mcp__", canon: "mcp__", malformed: "without a server", dead: true, fam: FamilyInvalid},
		{text: "mcp____x", tool: "mcp____x", canon: "mcp____x", malformed: "empty server", dead: true, fam: FamilyInvalid},
		{text: "Ba sh(x)", tool: "Ba sh", malformed: "whitespace inside the tool name", dead: true, fam: FamilyInvalid},
		// Ambiguous: two readings.
		// Skipped by Claude Code 2.1.328 (measured).
		{text: "bash(git *)", tool: "bash", canon: "Bash", spec: "git *", fam: FamilyInvalid, malformed: "case-sensitive", dead: true},
		{text: " Bash(x)", tool: "Bash", canon: "Bash", spec: "x", fam: FamilyInvalid, malformed: "a blank", dead: true},
		{text: "Bash(x) ", tool: "Bash", canon: "Bash", spec: "x", fam: FamilyInvalid, malformed: "a blank", dead: true},
		{text: "Bash (x)", tool: "Bash ", canon: "Bash", spec: "x", fam: FamilyInvalid, malformed: "a blank", dead: true},
		// Normalised by Claude Code 2.1.328 (measured).
		{text: "Bash(npx  *)", tool: "Bash", canon: "Bash", spec: "npx  *", fam: FamilyShell},
		// Ambiguous: two readings.
		{text: "Bash(git * *)", tool: "Bash", canon: "Bash", spec: "git * *", fam: FamilyShell},         // one reading since 2.1.328 was measured
		{text: "Bash(python*-c:*)", tool: "Bash", canon: "Bash", spec: "python*-c:*", fam: FamilyShell}, // one reading: a literal prefix
		// Matches nothing in any list (2.1.328, measured: not `npm test`, `npm  test x`, `npm :x`).
		{text: "Bash(npm :*)", tool: "Bash", canon: "Bash", spec: "npm :*", fam: FamilyShell, dead: true, noteContains: "a blank before a legacy :* suffix"},
		{list: "deny", text: "Bash(npm :*)", tool: "Bash", canon: "Bash", spec: "npm :*", fam: FamilyShell, dead: true},
		{text: "Bash(echo (x))", tool: "Bash", canon: "Bash", spec: "echo (x)", fam: FamilyShell}, // matches `echo (x)` in 2.1.328 (measured)
	}
	for _, c := range cases {
		t.Run(c.list+":"+c.text, func(t *testing.T) {
			l := Allow
			if c.list != "" {
				l = List(c.list)
			}
			r := ParseIn(l, c.text)
			if r.Text != c.text || r.List != l {
				t.Errorf("Text/List = %q/%q", r.Text, r.List)
			}
			if c.tool != "" && r.Tool != c.tool {
				t.Errorf("Tool = %q, want %q", r.Tool, c.tool)
			}
			if c.canon != "" && r.Canonical != c.canon {
				t.Errorf("Canonical = %q, want %q", r.Canonical, c.canon)
			}
			if c.spec != "" && r.Specifier != c.spec {
				t.Errorf("Specifier = %q, want %q", r.Specifier, c.spec)
			}
			if c.fam != "" && r.Family != c.fam {
				t.Errorf("Family = %q, want %q", r.Family, c.fam)
			}
			switch {
			case c.malformed == "" && r.Malformed != "":
				t.Errorf("Malformed = %q, want well-formed", r.Malformed)
			case c.malformed != "" && !strings.Contains(r.Malformed, c.malformed):
				t.Errorf("Malformed = %q, want it to mention %q", r.Malformed, c.malformed)
			}
			if r.Ambiguous() != c.ambiguous {
				t.Errorf("Ambiguous = %v (%q), want %v", r.Ambiguous(), r.Ambiguity, c.ambiguous)
			}
			if r.Whole() != c.whole {
				t.Errorf("Whole = %v, want %v", r.Whole(), c.whole)
			}
			if r.Dead() != c.dead {
				t.Errorf("Dead = %v, want %v", r.Dead(), c.dead)
			}
			if r.Negated != c.negated {
				t.Errorf("Negated = %v", r.Negated)
			}
			if c.noteContains != "" && !strings.Contains(r.Note, c.noteContains) {
				t.Errorf("Note = %q", r.Note)
			}
			if r.Tidy() != (c.malformed == "" && !c.ambiguous) {
				t.Errorf("Tidy = %v", r.Tidy())
			}
		})
	}
}

func TestMatches(t *testing.T) {
	bash := func(s string) Call { return Call{Tool: "Bash", Arg: s} }
	read := func(s string) Call { return Call{Tool: "Read", Arg: s} }
	host := func(s string) Call { return Call{Tool: "WebFetch", Arg: s} }
	cases := []struct {
		rule string
		list List
		call Call
		want Answer
	}{
		{"Bash(npm *)", Allow, bash("npm publish"), Yes},
		{"Bash(npm *)", Allow, bash("npm"), Yes},
		{"Bash(npm *)", Allow, bash("npmx"), No},
		{"Bash(npm *)", Allow, bash("npm "), Yes},
		{"Bash(npm:*)", Allow, bash("npm"), Yes},
		{"Bash(npm:*)", Allow, bash("npm:x"), No},
		{"Bash(git:* push)", Allow, bash("git push"), No},
		{"Bash(git:* push)", Allow, bash("git:x push"), Yes},
		{"Bash(ls*)", Allow, bash("lsof"), Yes},
		{"Bash(* --version)", Allow, bash("node --version"), Yes},
		{"Bash(* --version)", Allow, bash("--version"), No},
		{"Bash(git * main)", Allow, bash("git push origin main"), Yes},
		{"Bash(git * main)", Allow, bash("git main"), No},
		{"Bash(*.py)", Allow, bash("python3 a.py"), Yes},
		{"Bash(echo \\*)", Allow, bash("echo *"), No}, // 2.1.328 keeps the backslash (measured)
		{"Bash(echo \\*)", Allow, bash("echo \\*"), Yes},
		{"Bash(echo \\*)", Allow, bash("echo x"), No},
		{"Bash(git status)", Allow, bash("git status"), Yes},
		{"Bash(git status)", Allow, bash("git status -s"), No},
		{"Bash(git * *)", Allow, bash("git x"), No}, // 2.1.328, measured: npm x ran under deny Bash(npm * *)
		{"Bash(git * *)", Allow, bash("git a b"), Yes},
		{"bash(ls)", Allow, bash("ls"), No}, // skipped by 2.1.328 (measured)
		{"Bash", Allow, bash("rm -rf /"), Yes},
		{"Bash", Allow, read("x"), No},
		{"PowerShell(Get-Item *)", Allow, Call{Tool: "PowerShell", Arg: "GET-ITEM x"}, Yes},
		{"Read(.env)", Allow, read("a/b/.env"), Yes},
		{"Read(./.env)", Allow, read("a/.env"), Yes}, // one segment after ./ matches at any depth (2.1.328, measured)
		{"Read(/.env)", Allow, read("a/.env"), No},
		{"Read(src/*)", Allow, read("src/a.go"), Yes},
		{"Read(src/*)", Allow, read("src/a/b.go"), Yes}, // src/a is matched, so is src/a/b.go (2.1.328)
		{"Read(src/*.go)", Allow, read("src/a/b.go"), No},
		{"Read(src/**)", Allow, read("lib/src/a"), No},
		{"Read(src/**)", Deny, read("lib/src/a"), Yes},
		{"Read(~/.ssh/**)", Allow, read("~/.ssh/id_rsa"), Yes},
		{"Read(~/.ssh/**)", Allow, read(".ssh/id_rsa"), No},
		{"Read(//etc/*)", Allow, read("/etc/passwd"), Yes},
		{"Read(//**)", Allow, read("~/x"), Yes},
		{"Read(//**)", Allow, read("src/x"), Yes},
		{"Read(//etc/**)", Allow, read("~/x"), No},
		{"Read(/src/*.go)", Allow, read("src/a.go"), Yes},
		{"Read", Allow, read("/etc/shadow"), Yes},
		{"Edit(src/**)", Allow, read("src/a"), No},
		{"Write(src/**)", Allow, Call{Tool: "Write", Arg: "src/a"}, No},
		{"WebFetch(domain:*.x.com)", Allow, host("a.x.com"), Yes},
		{"WebFetch(domain:*.x.com)", Allow, host("x.com"), No},
		{"WebFetch(domain:x.com)", Allow, host("X.COM."), Yes},
		{"WebFetch(domain:example.*)", Allow, host("example.org"), Yes},
		{"WebFetch(domain:example.*)", Allow, host("example.evil.org"), No},
		{"mcp__github", Allow, Call{Tool: "mcp__github__get_issue"}, Yes},
		{"mcp__github", Allow, Call{Tool: "mcp__githubx__get_issue"}, No},
		{"mcp__github__get_*", Allow, Call{Tool: "mcp__github__get_pr"}, Yes},
		{"*", Deny, Call{Tool: "Bash", Arg: "x"}, Yes},
		{"*", Allow, Call{Tool: "Bash", Arg: "x"}, No},
		{"Task(Explore)", Allow, Call{Tool: "Agent", Arg: "Explore"}, Yes},
		{"Agent(model:opus)", Deny, Call{Tool: "Agent", Arg: "Explore", Param: "model", Value: "opus"}, Yes},
		{"Agent(model:opus)", Deny, Call{Tool: "Agent", Arg: "Explore"}, No},
		{"Skill(review *)", Allow, Call{Tool: "Skill", Arg: "review"}, Yes},
	}
	for _, c := range cases {
		if got := Match(ParseIn(c.list, c.rule), c.call); got != c.want {
			t.Errorf("Match(%s:%s, %+v) = %v, want %v", c.list, c.rule, c.call, got, c.want)
		}
		if got := Matches(ParseIn(c.list, c.rule), c.call); got != (c.want == Yes) {
			t.Errorf("Matches(%s:%s, %+v) = %v", c.list, c.rule, c.call, got)
		}
	}
}

func TestRuleLiteralIsParsed(t *testing.T) {
	// A Rule built as a literal is compiled on first use.
	if v := Covers(Rule{Text: "Bash(npm *)"}, Rule{Text: "Bash(npm test)"}); v.Answer != Yes {
		t.Errorf("Covers on literal Rules = %v", v.Answer)
	}
	if !Matches(Rule{Text: "Bash(npm *)"}, Call{Tool: "Bash", Arg: "npm x"}) {
		t.Errorf("Matches on a literal Rule failed")
	}
}

func TestWitnessesPreferConsequentialCalls(t *testing.T) {
	cases := []struct {
		a, b  string
		first string
	}{
		{"Bash(npm test:*)", "Bash(npm *)", "npm publish"},
		{"Bash(git status *)", "Bash(git *)", "git push --force origin main"},
		{"Bash(python3 -m pytest *)", "Bash(python3 *)", "python3 -c x"},
		{"Read(src/**)", "Read", ".env"},
		{"Read", "Write", "Write(.env)"}, // a file it writes, not the tool's name
		{"WebFetch(domain:github.com)", "WebFetch", "evil.example.com"},
		{"mcp__github__get_issue", "mcp__github", "mcp__github__create_issue"},
		{"Bash(gt submit *)", "Bash(gt *)", "gt"},
	}
	for _, c := range cases {
		ws := Witnesses(Parse(c.a), Parse(c.b), 3)
		if len(ws) == 0 || ws[0].String() != c.first {
			t.Errorf("Witnesses(%s, %s) = %v, want first %q", c.a, c.b, ws, c.first)
			continue
		}
		for _, w := range ws {
			if !Matches(Parse(c.b), w) || Matches(Parse(c.a), w) {
				t.Errorf("Witnesses(%s, %s): %v is not a witness", c.a, c.b, w)
			}
		}
	}
	if ws := Witnesses(Parse("Bash(npm *)"), Parse("Bash(npm test)"), 3); ws != nil {
		t.Errorf("Witnesses of a covered rule = %v", ws)
	}
}

func TestParseList(t *testing.T) {
	for _, s := range []string{"allow", "ask", "deny"} {
		if l, err := ParseList(s); err != nil || string(l) != s {
			t.Errorf("ParseList(%q) = %v, %v", s, l, err)
		}
	}
	if _, err := ParseList("Allow"); err == nil {
		t.Errorf("ParseList accepted a capitalised list")
	}
}
