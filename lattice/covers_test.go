package lattice

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// coverCase is one containment fact: does A cover B (in the given lists)?
// For every No the test also checks the witness against Matches; witness,
// when set, pins the exact witness the search must return.
type coverCase struct {
	a, b    string
	want    Answer
	witness string
	la, lb  List // default allow
	why     string
}

func runCoverCases(t *testing.T, cases []coverCase) {
	t.Helper()
	for _, c := range cases {
		la, lb := c.la, c.lb
		if la == "" {
			la = Allow
		}
		if lb == "" {
			lb = Allow
		}
		name := fmt.Sprintf("%s:%s ⊇ %s:%s", la, c.a, lb, c.b)
		t.Run(name, func(t *testing.T) {
			a, b := ParseIn(la, c.a), ParseIn(lb, c.b)
			v := Covers(a, b)
			if v.Answer != c.want {
				t.Fatalf("Covers = %v (witness %q, reason %q), want %v (%s)", v.Answer, v.Witness, v.Reason, c.want, c.why)
			}
			if got := CoversAnswer(context.Background(), a, b); got != v.Answer {
				t.Errorf("CoversAnswer = %v, Covers = %v", got, v.Answer)
			}
			switch v.Answer {
			case No:
				if !v.HasWitness() {
					t.Fatalf("No without a witness")
				}
				if Match(b, v.Witness) != Yes {
					t.Errorf("witness %q (%+v) is not matched by %s", v.Witness, v.Witness, c.b)
				}
				if Match(a, v.Witness) != No {
					t.Errorf("witness %q (%+v) is matched by %s", v.Witness, v.Witness, c.a)
				}
				if c.witness != "" && v.Witness.String() != c.witness {
					t.Errorf("witness = %q, want %q", v.Witness, c.witness)
				}
			case Unknown:
				if v.Reason == "" {
					t.Errorf("Unknown without a reason")
				}
			}
		})
	}
}

// TestCoversSpecFacts holds every fact of shipgate-spec section 1.10 (the
// original tool's "undecided" rows decided here) and the respelling table of
// section 1.3.
func TestCoversSpecFacts(t *testing.T) {
	runCoverCases(t, []coverCase{
		{a: "Bash(npm *)", b: "Bash(npm test:*)", want: Yes},
		{a: "Bash(npm test:*)", b: "Bash(npm *)", want: No, witness: "npm"},
		{a: "Bash(*)", b: "Bash(npm *)", want: Yes},
		{a: "Bash(git *)", b: "Bash(git log:*)", want: Yes},
		{a: "Bash(pytest *)", b: "Bash(pytest tests/unit)", want: Yes},
		{a: "Bash(*)", b: "Bash(a[bc]*)", want: Yes},
		{a: "Bash(npm:*)", b: "Bash(npm test:*)", want: Yes},
		{a: "Bash(npm run test:*)", b: "Bash(npm run test:unit)", want: No, witness: "npm run test:unit", why: "the space is part of the rule"},
		{a: "Bash(npm run test:unit)", b: "Bash(npm run test:*)", want: No, witness: "npm run test"},
		{a: "Bash(bundle exec rake db:*)", b: "Bash(bundle exec rake db:migrate)", want: No, witness: "bundle exec rake db:migrate"},
		{a: "Bash(pnpm run lint *)", b: "Bash(pnpm run lint:fix *)", want: No, witness: "pnpm run lint:fix"},
		{a: "Bash(pnpm run lint:*)", b: "Bash(pnpm run lint:fix *)", want: No, witness: "pnpm run lint:fix"},
		{a: "Bash(npm test *)", b: "Bash(npm test)", want: Yes, why: "the bare command"},
		{a: "Bash(python3 -c *)", b: "Bash(python3 -c fixed)", want: Yes},
		{a: "Bash(python3 -c *)", b: "Bash(git status)", want: No, witness: "git status"},
		{a: "Bash(python3 *)", b: "Bash(python3 -c *)", want: Yes},
		{a: "Bash(python3:*)", b: "Bash(python3 -c *)", want: Yes},
		{a: "Bash(python3 -c*)", b: "Bash(python3 -c *)", want: Yes},
		{a: "Bash(p*)", b: "Bash(python3 -c *)", want: Yes},
		{a: "Bash(pyt*)", b: "Bash(python3 -c *)", want: Yes},
		{a: "Bash(n *)", b: "Bash(npx *)", want: No, witness: "npx", why: "n * is the command n"},
		{a: "Bash(npx:*)", b: "Bash(npx *)", want: Yes, why: "respelling"},
		{a: "Bash(*.py)", b: "Bash(test_*.py)", want: Yes, why: "undecided in the original, decided here"},
		{a: "Bash(test_*.py)", b: "Bash(*.py)", want: No, witness: ".py"},
		{a: "Bash(a[bc]d)", b: "Bash(abd)", want: No, witness: "abd", why: "[ is a literal character in Bash rules"},
		{a: "Bash(abd)", b: "Bash(a[bc]d)", want: No, witness: "a[bc]d"},
		{a: "Read(**)", b: "Read(src/**)", want: Yes},
		{a: "Read(src/*)", b: "Read(src/app.py)", want: Yes},
		{a: "WebFetch(domain:*)", b: "WebFetch(domain:example.com)", want: Yes},
		{a: "Edit(*)", b: "Edit(src/*)", want: Yes},
		{a: "mcp__github__*", b: "mcp__github__get_issue", want: Yes},
		{a: "Read(**)", b: "Bash(*)", want: No, witness: "Bash"},
		{a: "mcp__gitlab__*", b: "mcp__github__get_issue", want: No, witness: "mcp__github__get_issue"},
		{a: "Edit(src/**)", b: "Edit(src/app/main.ts)", want: Yes, why: "undecided in the original"},
		{a: "Read(docs/*)", b: "Read(docs/api/index.md)", want: Yes, why: "* is one segment, but a directory it matches covers its contents (2.1.328, measured)"},
		{a: "Read(docs/*.md)", b: "Read(docs/api/index.md)", want: No, witness: "docs/api/index.md", why: "*.md names no directory docs/api"},
		{a: "Read(**)", b: "Read(//etc/passwd)", want: No, witness: "/etc/passwd", why: "anchors differ"},
		{a: "Bash(*)", b: "Bash(*)", want: Yes, why: "a rule covers itself"},
		{a: "*", b: "Bash(npm test)", want: No, why: "an allow-list * is skipped by Claude Code"},
		{a: "Bash(find *)", b: "Bash(find . -delete)", want: Yes, why: "textually contained (Claude's own find -delete guard is not a rule)"},
	})
}

// TestRespellings holds the "same grant" table of shipgate-spec 1.3 and the
// respellings of claude-code-permissions 7.2.
func TestRespellings(t *testing.T) {
	cases := []struct {
		a, b string
		want Answer
	}{
		{"Bash(npx:*)", "Bash(npx *)", Yes},
		{"Bash(npx *)", "Bash(npx:*)", Yes},
		{"Bash(python3 -c:*)", "Bash(python3 -c *)", Yes},
		{"Bash(npm test:*)", "Bash(npm test *)", Yes},
		{"Bash(*)", "Bash", Yes},
		{"Bash(**)", "Bash", No}, // a pattern rule in Claude Code 2.1.328 (measured)
		{"Bash(npx *)", "Bash(npx*)", No},
		{"Bash(npm :*)", "Bash(npm *)", No},
		{"Bash(:*)", "Bash( *)", No},
		{"Bash(npx *", "Bash(npx *)", No},
		{"Read(src:*)", "Read(src *)", No},
		{"mcp__github", "mcp__github__*", Yes},
		{"Bash(npx *)", "bash( npx * )", No},  // bash(...) is skipped by 2.1.328 (measured)
		{"Bash(npx *)", "Bash( npx * )", Yes}, // blanks inside are normalised by 2.1.328 (measured)
		{"WebFetch", "WebFetch(domain:*)", Yes},
		{"Task(Explore)", "Agent(Explore)", Yes},
		{"Task", "Agent", Yes},
		{"Read(.env)", "Read(**/.env)", Yes},
		{"WebSearch(*)", "WebSearch", Yes},
		{"Bash(ls:*)", "Bash(ls)", No},
		{"PowerShell(*)", "PowerShell", Yes},
		{"PowerShell(Get-Item *)", "PowerShell(get-item *)", Yes},
		{"Write(**)", "Write", No},          // Write(**) grants nothing (2.1.328, measured)
		{"Write(./**)", "Write(*)", No},     // Write(*) writes in the project (2.1.328, measured)
		{"Write(**)", "Write(src/**)", Yes}, // both grant nothing
		{"Read(/src/**)", "Read(./src/**)", Yes},
		{"WebFetch(domain:GitHub.com)", "WebFetch(domain:github.com.)", Yes},
		{"Agent(*)", "Agent", Yes},
		{"Skill(*)", "Skill", Yes},
	}
	for _, c := range cases {
		if got := Equivalent(Parse(c.a), Parse(c.b)); got != c.want {
			t.Errorf("Equivalent(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	// Bash(ls:*) is strictly wider than the exact Bash(ls).
	if got := StrictlyWider(Parse("Bash(ls:*)"), Parse("Bash(ls)")); got != Yes {
		t.Errorf("StrictlyWider(Bash(ls:*), Bash(ls)) = %v", got)
	}
	if got := StrictlyWider(Parse("Bash(npx:*)"), Parse("Bash(npx *)")); got != No {
		t.Errorf("a respelling is not strictly wider: got %v", got)
	}
}

// launchers is the exec-equivalent table of the seed: 28 prefixes.
var launchers = []string{"python -c", "python3 -c", "node -e", "node --eval", "node -p", "node --print",
	"ruby -e", "perl -e", "perl -E", "php -r", "bash -c", "sh -c", "zsh -c", "pwsh -c", "eval", "npx",
	"bunx", "pnpm dlx", "pnpm exec", "uvx", "uv run", "uv tool run", "pipx run", "docker exec",
	"docker run", "xargs", "env", "sudo"}

func TestCoversLaunchers(t *testing.T) {
	if len(launchers) != 28 {
		t.Fatalf("%d launchers", len(launchers))
	}
	var cases []coverCase
	for _, l := range launchers {
		entry := "Bash(" + l + " *)"
		cases = append(cases,
			coverCase{a: "Bash(*)", b: entry, want: Yes},
			coverCase{a: entry, b: "Bash(*)", want: No},
			coverCase{a: "Bash(" + l + ":*)", b: entry, want: Yes},
			coverCase{a: entry, b: "Bash(" + l + ":*)", want: Yes},
			coverCase{a: entry, b: "Bash(" + l + ")", want: Yes, why: "the bare launcher"},
			coverCase{a: "Bash(" + l[:1] + "*)", b: entry, want: Yes, why: "a one-letter prefix is wider"},
			coverCase{a: entry, b: "Bash(" + l + "x *)", want: No, witness: l + "x", why: "word boundary"},
		)
	}
	runCoverCases(t, cases)
}

// TestCoversOwnCases holds Shipgate's own facts across every tool family.
func TestCoversOwnCases(t *testing.T) {
	runCoverCases(t, []coverCase{
		// Bash: word boundaries and near-misses.
		{a: "Bash(npm *)", b: "Bash(npmx)", want: No, witness: "npmx"},
		{a: "Bash(npm*)", b: "Bash(npmx)", want: Yes},
		{a: "Bash(npm:*)", b: "Bash(npmx)", want: No, witness: "npmx"},
		{a: "Bash(npm *)", b: "Bash(npm)", want: Yes},
		{a: "Bash(npm *)", b: "Bash(npm-check)", want: No},
		{a: "Bash(npm run test:*)", b: "Bash(npm run test:unit --watch)", want: No},
		{a: "Bash(npm run test*)", b: "Bash(npm run test:unit)", want: Yes},
		{a: "Bash(npm run test*)", b: "Bash(npm run test:*)", want: Yes},
		{a: "Bash(npm test *)", b: "Bash(npm *)", want: No, witness: "npm"},
		{a: "Bash(git status)", b: "Bash(git status --short)", want: No, witness: "git status --short"},
		{a: "Bash(git status *)", b: "Bash(git status --short)", want: Yes},
		{a: "Bash(ls *)", b: "Bash(ls)", want: Yes},
		{a: "Bash(ls *)", b: "Bash(lsof)", want: No, witness: "lsof"},
		{a: "Bash(ls*)", b: "Bash(lsof)", want: Yes},
		{a: "Bash(ls*)", b: "Bash(ls *)", want: Yes},
		{a: "Bash(ls *)", b: "Bash(ls*)", want: No, witness: "lsx"},
		{a: "Bash(git *)", b: "Bash(git)", want: Yes},
		{a: "Bash(git *)", b: "Bash(gitk)", want: No},
		{a: "Bash(git*)", b: "Bash(git *)", want: Yes},
		{a: "Bash(git *)", b: "Bash(git*)", want: No, witness: "gitx"},
		{a: "Bash(* install)", b: "Bash(npm install)", want: Yes},
		{a: "Bash(* install)", b: "Bash(install)", want: No, witness: "install"},
		{a: "Bash(* install)", b: "Bash(npm install lodash)", want: No},
		{a: "Bash(git * main)", b: "Bash(git push --force origin main)", want: Yes},
		{a: "Bash(git * main)", b: "Bash(git main)", want: No, witness: "git main"},
		{a: "Bash(git * main)", b: "Bash(git push *)", want: No},
		{a: "Bash(git *)", b: "Bash(git * main)", want: Yes},
		{a: "Bash(* --version)", b: "Bash(npm --version)", want: Yes},
		{a: "Bash(* --version)", b: "Bash(--version)", want: No, witness: "--version"},
		{a: "Bash(*)", b: "Bash(* --version)", want: Yes},
		{a: "Bash(*.py)", b: "Bash(python3 x.py)", want: Yes},
		{a: "Bash(python *.py)", b: "Bash(python a.py b.py)", want: Yes},
		{a: "Bash(python *.py)", b: "Bash(python *)", want: No},
		{a: "Bash(uv run:*)", b: "Bash(uv run pytest:*)", want: Yes},
		{a: "Bash(python:*)", b: "Bash(python3 x.py)", want: No, witness: "python3 x.py"},
		{a: "Bash(\\*)", b: "Bash(x)", want: No, witness: "x"},
		{a: "Bash(*)", b: "Bash(\\*)", want: Yes},
		{a: "Bash(echo \\*)", b: "Bash(echo *)", want: No, witness: "echo"},
		{a: "Bash(echo *)", b: "Bash(echo \\*)", want: Yes},
		{a: "Bash(echo \\*)", b: "Bash(echo \\\\*)", want: No, why: "2.1.328: \\* is the text backslash-star, \\\\* a backslash then a wildcard"},
		{a: "Bash(echo \\(x\\))", b: "Bash(echo (x))", want: Yes, why: "the same literal text"},
		{a: "Bash(echo (x))", b: "Bash(echo \\(x\\))", want: Yes, why: "2.1.328 matches unescaped balanced parentheses literally (measured)"},
		{a: "Bash(git push:*)", b: "Bash(git push --force origin main)", want: Yes},
		{a: "Bash(git push origin *)", b: "Bash(git push --force origin main)", want: No},
		{a: "Bash(gh pr *)", b: "Bash(gh pr view *)", want: Yes},
		{a: "Bash(gh pr view *)", b: "Bash(gh pr *)", want: No, witness: "gh pr"},
		{a: "Bash(a*b*c)", b: "Bash(abc)", want: Yes},
		{a: "Bash(a*b*c)", b: "Bash(a*c)", want: No},
		{a: "Bash(a*c)", b: "Bash(a*b*c)", want: Yes},
		{a: "Bash(*a*)", b: "Bash(*aa*)", want: Yes},
		{a: "Bash(*aa*)", b: "Bash(*a*)", want: No, witness: "a"},
		{a: "Bash(x*y*z*)", b: "Bash(xyz)", want: Yes},
		{a: "Bash(curl https://example.com/*)", b: "Bash(curl -X POST https://example.com/x)", want: No},
		{a: "Bash(make lint)", b: "Bash(make lint)", want: Yes},
		{a: "Bash(make lint)", b: "Bash(make lint *)", want: No, witness: "make lint x"},
		{a: "Bash(rm -rf:*)", b: "Bash(rm -rf /)", want: Yes},
		{a: "Bash(rm *)", b: "Bash(rm -rf:*)", want: Yes},
		{a: "Bash(rm -rf:*)", b: "Bash(rm -fr /)", want: No},
		{a: "Bash(docker *)", b: "Bash(docker run *)", want: Yes},
		{a: "Bash(docker run *)", b: "Bash(docker *)", want: No, witness: "docker"},
		{a: "Bash(git -C * log)", b: "Bash(git -C repo log)", want: Yes},
		{a: "Bash(npm test)", b: "Bash", want: No, witness: "x"},
		{a: "Bash", b: "Bash(npm test)", want: Yes},
		{a: "Bash", b: "Read", want: No, witness: "Read"},
		{a: "Bash(*)", b: "PowerShell(*)", want: No, witness: "PowerShell"},
		{a: "Monitor(tail -f *)", b: "Monitor(tail -f log.txt)", want: Yes},
		{a: "Bash(tail -f *)", b: "Monitor(tail -f log.txt)", want: No},
		// Ambiguous spellings: two readings.
		{a: "bash(git *)", b: "Bash(git status *)", want: No, witness: "git status", why: "2.1.328 skips a lowercase tool name (measured)"},
		{a: "Bash(git *)", b: "bash(git status *)", want: Yes, why: "bash(...) matches nothing"},
		{a: "Bash(git status *)", b: "bash(git *)", want: Yes, why: "bash(...) matches nothing"},
		{a: "Bash(git * *)", b: "Bash(git x)", want: No, witness: "git x"}, // the trailing ` *` is not optional with several stars (2.1.328, measured)
		{a: "Bash(git *)", b: "Bash(git * *)", want: Yes},
		{a: "Bash(git * *)", b: "Bash(git a b)", want: Yes},
		{a: "Bash(git * *)", b: "Bash(git)", want: No, witness: "git"},
		{a: "Bash(python*-c:*)", b: "Bash(python3 -c x)", want: No, witness: "python3 -c x"}, // the prefix before :* is literal (2.1.328, measured)
		{a: "Bash(*)", b: "Bash(python*-c:*)", want: Yes},
		{a: "Bash(npx  *)", b: "Bash(npx *)", want: Yes, why: "2.1.328 normalises blanks inside the rule (measured)"},
		{a: "Bash(npx *)", b: "Bash(npx  *)", want: Yes, why: "both readings of npx  * are inside npx *"},
		{a: "Bash(npx\t*)", b: "Bash(npx x)", want: Yes, why: "a tab normalises to a space (2.1.328)"},
		{a: "Bash(npx *)", b: "Bash(npx\t*)", want: Yes},
		{a: "Bash(git status)", b: " Bash(git status)", want: Yes, why: "2.1.328 skips the padded rule (measured)"},
		{a: " Bash(git status)", b: "Bash(git status)", want: No, witness: "git status", why: "2.1.328 skips the padded rule (measured)"},
		{a: "Bash(rm:*)", b: "Bash( rm *)", want: Yes, la: Deny, lb: Deny},
		{a: "Bash( rm *)", b: "Bash(rm:*)", want: Yes, la: Deny, lb: Deny},
		{a: "Bash(npm :*)", b: "Bash(npm *)", want: No, witness: "npm", why: "neither reading of npm :* matches bare npm"},
		{a: "Bash(npm *)", b: "Bash(npm :*)", want: Yes},
		// Malformed rules match nothing: everything covers them, they cover nothing.
		{a: "Read(x)", b: "Bash(npm *", want: Yes, why: "unclosed parenthesis"},
		{a: "Bash(npm *", b: "Bash(npm)", want: No, witness: "npm"},
		{a: "Read(x)", b: "Bash(npm *))", want: Yes, why: "text after the closing parenthesis"},
		{a: "Read(x)", b: "(npm)", want: Yes},
		{a: "Read(x)", b: "Bash()", want: Yes},
		{a: "Read(x)", b: "Bash(:*)", want: Yes},
		{a: "Read(x)", b: "", want: Yes},
		{a: "Read(x)", b: "mcp__db(query:*)", want: Yes, why: "MCP rules with parentheses are skipped"},
		// PowerShell: case-insensitive.
		{a: "PowerShell(Get-ChildItem *)", b: "PowerShell(get-childitem -Recurse)", want: Yes},
		// Witnesses are spelled in the covered rule's case (the search folds).
		{a: "PowerShell(get-content *)", b: "PowerShell(Set-Content x)", want: No, witness: "Set-Content x"},
		{a: "PowerShell(Get-ChildItem *)", b: "PowerShell(Remove-Item *.TXT)", want: No, witness: "Remove-Item .TXT"},
		{a: "PowerShell(Get-ChildItem *)", b: "PowerShell(Get-*)", want: No, witness: "Get-"},
		{a: "PowerShell(Get-Item \\*)", b: "PowerShell(Remove-Item \\* -Force)", want: No, witness: "remove-item \\* -force"}, // 2.1.328 keeps \\* as text; the recasing reads literal runs only
		{a: "PowerShell", b: "PowerShell(Remove-Item *)", want: Yes},
		{a: "PowerShell(Remove-Item:*)", b: "PowerShell(remove-item -Recurse C:\\)", want: Yes},
		// Read / Edit paths.
		{a: "Read(.env)", b: "Read(./.env)", want: Yes},
		{a: "Read(./.env)", b: "Read(.env)", want: Yes}, // a ./ pattern of one segment matches at any depth (2.1.328, measured)
		{a: "Read(/.env)", b: "Read(.env)", want: No, witness: "x/.env"},
		{a: "Read(/src/**)", b: "Read(src/**)", want: Yes},
		{a: "Read(src/**)", b: "Read(src/**)", want: Yes, la: Deny, lb: Allow},
		{a: "Read(src/**)", b: "Read(src/**)", want: No, witness: "x/src/x", la: Allow, lb: Deny, why: "a deny src/** matches src at any depth (2.1.214)"},
		{a: "Read(src/**)", b: "Read(/src/**)", want: Yes, la: Deny, lb: Deny},
		{a: "Read(/src/**)", b: "Read(src/**)", want: No, la: Deny, lb: Deny},
		{a: "Read(//**)", b: "Read(~/.ssh/**)", want: Yes, why: "the filesystem root covers home wherever it is"},
		{a: "Read(//**)", b: "Read(src/**)", want: Yes},
		{a: "Read(//**)", b: "Read(//etc/**)", want: Yes},
		{a: "Read(//**)", b: "Read", want: Yes, why: "every path is under the root"},
		{a: "Read", b: "Read(//**)", want: Yes},
		{a: "Read(~/**)", b: "Read(//etc/passwd)", want: No, witness: "/etc/passwd"},
		{a: "Read(//home/**)", b: "Read(~/.bashrc)", want: No, witness: "~/.bashrc", why: "home need not be under /home"},
		{a: "Read(//**/.env)", b: "Read(.env)", want: Yes},
		{a: "Read(//**/.env)", b: "Read(~/.env)", want: Yes},
		{a: "Read(~/.ssh/**)", b: "Read(~/.ssh/id_rsa)", want: Yes},
		{a: "Read(~/.ssh/*)", b: "Read(~/.ssh/keys/id_rsa)", want: Yes}, // ~/.ssh/keys is matched, so is what it holds (2.1.328)
		{a: "Read(src/**)", b: "Read(src/a/b/c.go)", want: Yes},
		{a: "Read(src/*)", b: "Read(src/a/b.go)", want: Yes},
		{a: "Read(src/*.go)", b: "Read(src/a/b.go)", want: No, witness: "src/a/b.go"},
		{a: "Read(*.env)", b: "Read(.env)", want: Yes},
		{a: "Read(.env)", b: "Read(*.env)", want: No, witness: "x.env"},
		{a: "Read(**/*.ts)", b: "Read(src/**/*.ts)", want: Yes},
		{a: "Read(src/**/*.ts)", b: "Read(src/a.ts)", want: Yes},
		{a: "Read(src/**/*.ts)", b: "Read(lib/a.ts)", want: No, witness: "lib/a.ts"},
		{a: "Read(src/[ab].ts)", b: "Read(src/a.ts)", want: Yes},
		{a: "Read(src/[ab].ts)", b: "Read(src/c.ts)", want: No, witness: "src/c.ts"},
		{a: "Read(src/?.ts)", b: "Read(src/[ab].ts)", want: Yes},
		{a: "Read(src/[!ab].ts)", b: "Read(src/a.ts)", want: No},
		{a: "Read(src/)", b: "Read(src/x)", want: Yes},
		{a: "Read(src/)", b: "Read(lib/src/x)", want: Yes, why: "a trailing slash does not anchor"},
		{a: "Read(src)", b: "Read(src/x)", want: Yes, why: "a pattern naming a directory covers what it holds (2.1.328, measured: deny Read(./secrets) denies secrets/key)"},
		{a: "Read(src/x)", b: "Read(src)", want: No},
		{a: "Read(*)", b: "Read(~/.bashrc)", want: No, witness: "~/.bashrc"},
		{a: "Read", b: "Read(~/.bashrc)", want: Yes},
		{a: "Read(src/**)", b: "Read", want: No},
		{a: "Edit(src/**)", b: "Read(src/**)", want: No, why: "different tools (Edit's grant of Read is modelled by the effective view)"},
		{a: "Read(\\*.txt)", b: "Read(a.txt)", want: No},
		{a: "Read(secrets-*/config.json)", b: "Read(secrets-prod/config.json)", want: Yes},
		{a: "Read(~)", b: "Read(~/x)", want: No},
		// Unconsulted path rules match nothing; star/slash-only ones are the whole tool.
		{a: "Read(x)", b: "Write(src/**)", want: Yes, why: "never consulted"},
		{a: "Write(src/**)", b: "Write(src/**)", want: Yes},
		{a: "Write(src/**)", b: "Write(lib/**)", want: Yes, why: "both match nothing"},
		{a: "Write(src/**)", b: "Read(src/**)", want: No},
		{a: "Write", b: "Write(**)", want: Yes},
		{a: "Write(**)", b: "Write", want: No, witness: "Write", why: "Write(**) grants nothing (2.1.328, measured)"},
		{a: "Write", b: "Write(*)", want: Yes},
		{a: "Write(*)", b: "Write", want: No, why: "Write(*) writes in the project only (2.1.328, measured)"},
		{a: "Write(**)", b: "Write", want: No, witness: "Write", la: Deny, lb: Deny}, // deny/ask Write(**) is never consulted (2.1.328, measured)
		{a: "Edit(src/**)", b: "NotebookEdit(src/**)", want: Yes},
		{a: "Read(x)", b: "Glob(src/**)", want: Yes},
		{a: "Read(x)", b: "MultiEdit(src/**)", want: Yes},
		{a: "Read(x)", b: "Write(**/.env)", want: Yes},
		{a: "Read(x)", b: "Write(**/*)", want: Yes, why: "Write(**/*) grants nothing (2.1.328, measured)"},
		{a: "Read(x)", b: "Write(*)", want: No, why: "Write(*) writes in the project"},
		// WebFetch domains.
		{a: "WebFetch(domain:*.x.com)", b: "WebFetch(domain:a.x.com)", want: Yes},
		{a: "WebFetch(domain:*.x.com)", b: "WebFetch(domain:a.b.x.com)", want: Yes},
		{a: "WebFetch(domain:*.x.com)", b: "WebFetch(domain:x.com)", want: No, witness: "x.com"},
		{a: "WebFetch(domain:x.com)", b: "WebFetch(domain:*.x.com)", want: No, witness: "x.x.com"},
		{a: "WebFetch(domain:example.*)", b: "WebFetch(domain:example.org)", want: Yes},
		{a: "WebFetch(domain:example.*)", b: "WebFetch(domain:example.evil.com)", want: No, witness: "example.evil.com"},
		{a: "WebFetch(domain:github.com)", b: "WebFetch(domain:api.github.com)", want: No},
		{a: "WebFetch(domain:GitHub.COM)", b: "WebFetch(domain:github.com)", want: Yes},
		{a: "WebFetch", b: "WebFetch(domain:x.com)", want: Yes},
		{a: "WebFetch(domain:x.com)", b: "WebFetch", want: No},
		{a: "WebFetch(domain:*)", b: "WebFetch", want: Yes},
		{a: "WebFetch(domain:*.com)", b: "WebFetch(domain:*.github.com)", want: Yes},
		{a: "Read(x)", b: "WebFetch(https://x.com)", want: Yes, why: "not a domain rule: skipped"},
		{a: "WebSearch", b: "WebFetch(domain:x.com)", want: No},
		// MCP tokens and tool-name globs.
		{a: "mcp__github", b: "mcp__github__get_issue", want: Yes},
		{a: "mcp__github__get_issue", b: "mcp__github", want: No, witness: "mcp__github__create_issue"},
		{a: "mcp__github__get_*", b: "mcp__github__get_issue", want: Yes},
		{a: "mcp__github__get_*", b: "mcp__github__create_issue", want: No},
		{a: "mcp__git", b: "mcp__github__get_issue", want: No},
		{a: "mcp__github", b: "mcp__github__*", want: Yes},
		{a: "mcp__*", b: "mcp__github", want: Yes, la: Deny},
		{a: "mcp__*", b: "mcp__github", want: No, why: "an allow-list mcp__* is skipped"},
		{a: "*", b: "Bash", want: Yes, la: Deny},
		{a: "*", b: "Read(src/**)", want: Yes, la: Deny},
		{a: "*", b: "mcp__x__y", want: Yes, la: Deny},
		{a: "*", b: "Bash(npm *)", want: Yes, la: Ask},
		{a: "B*", b: "Bash(npm *)", want: Yes, la: Deny},
		{a: "B*", b: "Read", want: No, witness: "Read", la: Deny},
		{a: "Bash", b: "*", want: No, witness: "Read", lb: Deny},
		{a: "mcp__github__*", b: "mcp__github__*", want: Yes},
		{a: "Read", b: "mcp__github__get_issue", want: No},
		// Agent, Task, Skill and other generic tools.
		{a: "Task(Explore)", b: "Agent(Explore)", want: Yes},
		{a: "Agent", b: "Task(Plan)", want: Yes},
		{a: "Agent(Explore)", b: "Agent(Plan)", want: No, witness: "Agent(Plan)"},
		{a: "Skill(review *)", b: "Skill(review)", want: Yes},
		{a: "Skill(review *)", b: "Skill(review fast)", want: Yes},
		{a: "Skill(review *)", b: "Skill(reviewer)", want: No},
		{a: "Skill(plugin:*)", b: "Skill(plugin:review)", want: Yes},
		{a: "Skill(plugin:review)", b: "Skill(plugin:*)", want: No},
		{a: "WebSearch", b: "WebSearch(*)", want: Yes},
		{a: "CustomTool(a *)", b: "CustomTool(a b)", want: Yes},
		{a: "CustomTool", b: "CustomTool(a b)", want: Yes},
		{a: "Cd(src/*)", b: "Cd(src/app)", want: Yes},
		// Parameter rules (deny and ask only).
		{a: "Agent(model:opus)", b: "Agent(model:opus)", want: Yes, la: Deny, lb: Deny},
		{a: "Agent(model:*)", b: "Agent(model:opus)", want: Yes, la: Deny, lb: Deny},
		{a: "Agent", b: "Agent(model:opus)", want: Yes, la: Deny, lb: Deny},
		{a: "Agent(model:opus)", b: "Agent(Explore)", want: No, la: Deny, lb: Deny},
		{a: "Agent(Explore)", b: "Agent(model:opus)", want: No, la: Deny, lb: Deny},
		{a: "Agent(model:opus)", b: "Agent(isolation:worktree)", want: No, la: Deny, lb: Deny},
		{a: "Bash(run_in_background:true)", b: "Bash(npm *)", want: No, la: Deny},
		{a: "Bash(run_in_background:*)", b: "Bash(run_in_background:true)", want: Yes, la: Ask, lb: Ask},
		{a: "Bash(run_in_background:true)", b: "Bash(run_in_background:true)", want: No, la: Allow, lb: Deny, why: "in allow it is a command pattern"},
		// Carve-outs grant nothing by themselves.
		{a: "Read(x)", b: "Read(!.env.example)", want: Yes, lb: Deny},
		{a: "Read(!.env.example)", b: "Read(.env.example)", want: No, la: Deny},
	})
}

func TestCoversBetweenTools(t *testing.T) {
	tools := []string{"Bash(npm *)", "PowerShell(Get-Item *)", "Read(src/**)", "Edit(src/**)", "WebFetch(domain:x.com)",
		"WebSearch", "Agent(Explore)", "Skill(review)", "mcp__github", "Grep(TODO)"}
	for _, a := range tools {
		for _, b := range tools {
			if a == b {
				continue
			}
			v := Covers(Parse(a), Parse(b))
			if v.Answer != No {
				t.Errorf("Covers(%s, %s) = %v, want No: different tools never cover each other", a, b, v.Answer)
			}
		}
	}
}

func TestWitnessReadable(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"Bash(npm test *)", "Bash(npm *)", "npm"},
		{"Bash(git log *)", "Bash(git *)", "git"},
		{"Bash(git status *)", "Bash(git * main)", "git x main"},
	}
	for _, c := range cases {
		v := Covers(Parse(c.a), Parse(c.b))
		if got := v.Witness.String(); got != c.want {
			t.Errorf("witness of %s ⊉ %s = %q, want %q", c.a, c.b, got, c.want)
		}
		if strings.ContainsAny(v.Witness.Arg, "\x00\t\n") {
			t.Errorf("unreadable witness %q", v.Witness.Arg)
		}
	}
}
