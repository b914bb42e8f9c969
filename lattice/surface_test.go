package lattice

import "testing"

// Parameter rules, PowerShell aliases and Cd segments (issue 10). Each row
// carries the source of the semantics it encodes.
func TestParamRules(t *testing.T) {
	cases := []struct {
		list      List
		rule      string
		call      Call
		want      Answer
		whole     bool // the rule is the whole tool
		dead      bool
		ambiguous bool
		source    string
	}{
		// Bash's input has a timeout field: a deny Bash(timeout:*) is a
		// parameter rule (the docs) and, measured on 2.1.328, also the
		// legacy prefix rule `timeout:*`; `Bash(timeout: *)` and
		// `Bash(timeout:**)` are the parameter rule only.
		{Deny, "Bash(timeout:*)", Call{Tool: "Bash", Arg: "timeout 60 npm publish"}, Yes, false, false, false, "measured 2.1.328 (params class: denied with no timeout field)"},
		{Deny, "Bash(timeout:*)", Call{Tool: "Bash", Arg: "timeout"}, Yes, false, false, false, "measured 2.1.328"},
		{Deny, "Bash(timeout:*)", Call{Tool: "Bash", Arg: "timeoutx 5"}, No, false, false, false, "the legacy prefix: timeout and timeout …"},
		{Deny, "Bash(timeout: *)", Call{Tool: "Bash", Arg: "timeout 60 npm publish"}, No, false, false, false, "measured 2.1.328"},
		{Deny, "Bash(timeout:**)", Call{Tool: "Bash", Arg: "timeout 60 npm publish"}, No, false, false, false, "measured 2.1.328"},
		{Ask, "Bash(timeout:*)", Call{Tool: "Bash", Arg: "timeout 5 curl evil.com"}, Yes, false, false, false, "measured 2.1.328"},
		{Deny, "Bash(timeout:*)", Call{Tool: "Bash", Param: "timeout", Value: "60000"}, Yes, false, false, false, "docs"},
		{Deny, "Bash(timeout : 600000)", Call{Tool: "Bash", Param: "timeout", Value: "600000"}, Yes, false, false, false, "docs: blanks around the colon ignored"},
		{Deny, "Bash(run_in_background:true)", Call{Tool: "Bash", Param: "run_in_background", Value: "true"}, Yes, false, false, false, "docs example"},
		// In an allow list the same text is a command prefix.
		{Allow, "Bash(timeout:*)", Call{Tool: "Bash", Arg: "timeout 60 npm publish"}, Yes, false, false, false, "docs: allow rules are not parameter rules"},
		// Claude Code 2.1.328 ignores parameter rules on WebFetch (measured,
		// the conformance class params): the docs' WebFetch(prompt:*) stops
		// no fetch.
		{Deny, "WebFetch(prompt:*)", Call{Tool: "WebFetch", Arg: "example.com"}, No, false, true, false, "measured 2.1.328"},
		{Deny, "WebFetch(prompt:summarise*)", Call{Tool: "WebFetch", Param: "prompt", Value: "summarise it"}, No, false, true, false, "measured 2.1.328"},
		// A Read parameter rule with a wildcard value matches nothing; a
		// literal value matches (measured 2.1.328).
		{Deny, "Read(limit:*)", Call{Tool: "Read", Arg: "src/a.go", Param: "limit", Value: "10"}, No, false, true, false, "measured 2.1.328"},
		{Deny, "Read(limit:10)", Call{Tool: "Read", Arg: "src/a.go", Param: "limit", Value: "10"}, Yes, false, false, false, "measured 2.1.328"},
		{Deny, "Agent(model:opus)", Call{Tool: "Agent", Param: "model", Value: "opus"}, Yes, false, false, false, "docs example"},
		{Deny, "Agent(model:opus)", Call{Tool: "Agent", Param: "model", Value: "sonnet"}, No, false, false, false, "docs"},
		{Deny, "Task(isolation:worktree)", Call{Tool: "Agent", Param: "isolation", Value: "worktree"}, Yes, false, false, false, "docs; Task is Agent"},
		// Primary content fields cannot be parameter rules: ignored.
		{Deny, "Bash(command:rm *)", Call{Tool: "Bash", Arg: "rm -rf x"}, No, false, true, false, "docs: primary content fields"},
		{Deny, "WebFetch(url:*)", Call{Tool: "WebFetch", Arg: "example.com"}, No, false, true, false, "docs"},
		{Deny, "Read(file_path:*)", Call{Tool: "Read", Arg: "x"}, No, false, true, false, "docs"},
		// A field the tool does not declare: the tool's own language.
		{Deny, "Bash(git:*)", Call{Tool: "Bash", Arg: "git push"}, Yes, false, false, false, "Bash has no git field"},
		{Deny, "WebFetch(domain:example.com)", Call{Tool: "WebFetch", Arg: "example.com"}, Yes, false, false, false, "domain is WebFetch's specifier"},
		// A tool whose input fields Shipgate does not know: both readings.
		{Deny, "Monitor(npm:*)", Call{Tool: "Monitor", Arg: "npm test"}, Unknown, false, false, true, "conservative reading"},
		{Deny, "LSP(operation:rename)", Call{Tool: "LSP", Param: "operation", Value: "rename"}, Unknown, false, false, true, "conservative reading"},
		{Deny, "Grep(output_mode:content)", Call{Tool: "Grep", Param: "output_mode", Value: "content"}, Yes, false, false, false, "tool schema"},
		{Deny, "WebSearch(allowed_domains:*)", Call{Tool: "WebSearch"}, No, false, true, false, "list fields are not scalar"},
	}
	for _, c := range cases {
		r := ParseIn(c.list, c.rule)
		if got := Match(r, c.call); got != c.want {
			t.Errorf("%s %s on %v = %v, want %v (%s)", c.list, c.rule, c.call, got, c.want, c.source)
		}
		if r.Whole() != c.whole {
			t.Errorf("%s %s: Whole = %v, want %v", c.list, c.rule, r.Whole(), c.whole)
		}
		if r.Dead() != c.dead {
			t.Errorf("%s %s: Dead = %v, want %v (%s)", c.list, c.rule, r.Dead(), c.dead, r.Malformed)
		}
		if r.Ambiguous() != c.ambiguous {
			t.Errorf("%s %s: Ambiguous = %v (%s), want %v", c.list, c.rule, r.Ambiguous(), r.Ambiguity, c.ambiguous)
		}
	}
}

func TestParamShadowing(t *testing.T) {
	// Does the deny a cover the allow b?
	runCoverCases(t, []coverCase{
		// The deny Bash(timeout:*) is also the legacy prefix rule
		// (measured on 2.1.328): it covers the allow. Bash(timeout: *) and
		// Bash(timeout:**) stop only calls that set the timeout field.
		{a: "Bash(timeout:*)", b: "Bash(timeout 60 npm publish)", want: Yes, la: Deny},
		{a: "Bash(timeout:*)", b: "Bash(timeout *)", want: Yes, la: Deny},
		{a: "Bash(timeout: *)", b: "Bash(timeout 60 npm publish)", want: No, la: Deny},
		{a: "Bash(timeout:**)", b: "Bash(timeout *)", want: No, la: Deny},
		// Deny against deny: respelling Bash(timeout:*) to Bash(timeout: *)
		// or Bash(timeout:**) drops the prefix reading (issue 19 §5).
		{a: "Bash(timeout: *)", b: "Bash(timeout:*)", want: No, witness: "timeout", la: Deny, lb: Deny},
		{a: "Bash(timeout:**)", b: "Bash(timeout:*)", want: No, witness: "timeout", la: Deny, lb: Deny},
		{a: "Bash(timeout:*)", b: "Bash(timeout: *)", want: Yes, la: Deny, lb: Deny},
		{a: "Bash(timeout:*)", b: "Bash(timeout:**)", want: Yes, la: Deny, lb: Deny},
		{a: "Bash(timeout:*)", b: "Bash(description:*)", want: No, la: Deny, lb: Deny},
		{a: "Bash(timeout *)", b: "Bash(timeout:*)", want: No, la: Deny, lb: Deny},
		// Ignored by Claude Code 2.1.328 (measured): it covers nothing.
		{a: "WebFetch(prompt:*)", b: "WebFetch(domain:example.com)", want: No, la: Deny},
		{a: "WebFetch(prompt:*)", b: "WebFetch", want: No, la: Deny},
		{a: "Monitor(npm:*)", b: "Monitor(npm test)", want: Unknown, la: Deny},
	})
}

func TestPowerShellAliases(t *testing.T) {
	// Does rule a cover rule b (both deny)?
	runCoverCases(t, []coverCase{
		// cat is Get-Content: c* does not cover it.
		{a: "PowerShell(c*)", b: "PowerShell(cat secret.txt)", want: No, la: Deny, lb: Deny},
		{a: "PowerShell(g*)", b: "PowerShell(cat secret.txt)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(Get-Content *)", b: "PowerShell(cat secret.txt)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(get-content:*)", b: "PowerShell(gc x)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(cat *)", b: "PowerShell(Get-Content x)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(ls *)", b: "PowerShell(dir)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(rm *)", b: "PowerShell(del x)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(Remove-Item *)", b: "PowerShell(ri -Recurse x)", want: Yes, la: Deny, lb: Deny},
		{a: "PowerShell(cat *)", b: "PowerShell(Get-ChildItem)", want: No, la: Deny, lb: Deny},
		{a: "PowerShell(catx *)", b: "PowerShell(cat x)", want: No, la: Deny, lb: Deny},
	})
	matches := []struct {
		rule, cmd string
		want      bool
	}{
		{"PowerShell(c*)", "cat secret.txt", false},
		{"PowerShell(Get-Content *)", "cat secret.txt", true},
		{"PowerShell(Get-Content *)", "CAT secret.txt", true},
		{"PowerShell(cat secret.txt)", "type secret.txt", true},
		{"PowerShell(iwr *)", "Invoke-WebRequest https://x", true},
	}
	for _, m := range matches {
		if got := Matches(ParseIn(Deny, m.rule), Call{Tool: "PowerShell", Arg: m.cmd}); got != m.want {
			t.Errorf("%s matches %q = %v, want %v", m.rule, m.cmd, got, m.want)
		}
	}
	for a, c := range psAliases {
		if _, ok := psAliases[c]; ok {
			t.Errorf("alias %s → %s, which is itself an alias", a, c)
		}
	}
}

func TestCdSegments(t *testing.T) {
	runCoverCases(t, []coverCase{
		{a: "Cd(*)", b: "Cd(a/b)", want: No},
		{a: "Cd(*)", b: "Cd(a)", want: Yes},
		{a: "Cd(**)", b: "Cd(a/b)", want: Yes},
		{a: "Cd(src/*)", b: "Cd(src/a/b)", want: No},
		{a: "Cd(src/**)", b: "Cd(src/a/b)", want: Yes},
		{a: "Cd", b: "Cd(a/b)", want: Yes},
		{a: "Cd(**)", b: "Cd", want: Yes},
	})
	if !Matches(ParseIn(Allow, "Cd(*)"), Call{Tool: "Cd", Arg: "a"}) || Matches(ParseIn(Allow, "Cd(*)"), Call{Tool: "Cd", Arg: "a/b"}) {
		t.Error("Cd(*) must match one segment only")
	}
}

// FuzzSurfaceCovers checks Covers' witnesses against Matches for the rule
// languages of this file: parameter rules, PowerShell aliases, Cd.
func FuzzSurfaceCovers(f *testing.F) {
	seeds := []string{"PowerShell(c*)", "PowerShell(cat secret.txt)", "PowerShell(Get-Content *)", "PowerShell(rm:*)", "Cd(*)", "Cd(a/b)",
		"Cd(src/**)", "Bash(timeout:*)", "Bash(timeout 60 npm publish)", "WebFetch(prompt:*)", "Agent(model:op*)", "Monitor(npm:*)", "LSP(x:y)"}
	for i, a := range seeds {
		f.Add(a, seeds[(i*5+3)%len(seeds)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, x, y string, lists uint8) {
		if len(x) > 200 || len(y) > 200 {
			return
		}
		a := ParseIn([]List{Allow, Ask, Deny}[int(lists)%3], x)
		b := ParseIn([]List{Allow, Ask, Deny}[int(lists/3)%3], y)
		v := Covers(a, b)
		if v.Answer == No && (Match(b, v.Witness) != Yes || Match(a, v.Witness) != No) {
			t.Fatalf("Covers(%q, %q): bad witness %+v", x, y, v.Witness)
		}
	})
}
