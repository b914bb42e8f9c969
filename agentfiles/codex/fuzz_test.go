package codex

import (
	"context"
	"testing"
)

// FuzzParseRules: the evaluator never panics, terminates within its step
// budget, and every rule it returns is well formed; a rule's own instance
// matches it and a policy of its rules decides it at least as strictly.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{
		`prefix_rule(pattern=["git", ["status", "log"]], decision="prompt", match=["git log -1"])`,
		"for s in [\"a\", \"b\"]:\n    prefix_rule(pattern=[s])\n",
		"def f(*t):\n    prefix_rule(pattern=list(t), decision=\"forbidden\")\nf(\"rm\", \"-rf\")\n",
		`network_rule(host="example.com", protocol="https", decision="allow")`,
		`prefix_rule(pattern=["a b", "it's"], canonical_matching=True, not_match=["x"])`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rf, err := ParseRules("f.rules", []byte(src))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		for _, r := range rf.Rules {
			if len(r.Pattern) == 0 {
				t.Fatalf("empty pattern loaded: %s", r)
			}
			for _, alts := range r.Pattern {
				if len(alts) == 0 {
					t.Fatalf("empty alternatives loaded: %s", r)
				}
			}
			inst := instance(r, nil)
			if !r.Matches(inst) {
				t.Fatalf("%s does not match its instance %q", r, inst)
			}
			if d, _ := Policy(rf.Rules).Decide(inst); d < r.Decision {
				t.Fatalf("policy decides %q as %v, below its rule's %v", inst, d, r.Decision)
			}
		}
		if len(rf.Rules) <= 20 {
			if _, err := Loosenings(context.Background(), nil, rf.Rules); err != nil && err != ErrTooMany {
				t.Fatal(err)
			}
		}
	})
}

// FuzzParseConfig: the TOML reader never panics, and a document it reads
// yields settings with a line inside the document.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n",
		"[sandbox_workspace_write]\nwritable_roots = [\"/\"]\nnetwork_access = true\n",
		"[mcp_servers.x]\ncommand = \"npx\"\n[profiles.y]\napproval_policy = \"never\"\n",
		"[shell_environment_policy]\nset = { A = \"1\" }\nexclude = [\"X\"]\n",
		"a.b.c = 1\n[x]\ny = { z = [1, 2] }\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cfg, err := ParseConfig("f.toml", []byte(src))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		lines := 1
		for _, c := range src {
			if c == '\n' {
				lines++
			}
		}
		for _, s := range cfg.Settings {
			if s.Line < 1 || s.Line > lines {
				t.Fatalf("setting %s at line %d of a %d-line document", s.Key, s.Line, lines)
			}
		}
	})
}

// FuzzSplitShell: a split that succeeds reads back the same from its
// quoted rendering.
func FuzzSplitShell(f *testing.F) {
	for _, s := range []string{`git "a b" 'c'`, `a\ b # c`, `"x\$y"`, "a\tb\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv, ok := SplitShell(s)
		if !ok || len(argv) == 0 {
			return
		}
		back, ok := SplitShell(QuoteArgv(argv))
		if !ok || len(back) != len(argv) {
			t.Fatalf("%q -> %q -> %q", s, argv, back)
		}
		for i := range argv {
			if back[i] != argv[i] {
				t.Fatalf("%q -> %q -> %q", s, argv, back)
			}
		}
	})
}
