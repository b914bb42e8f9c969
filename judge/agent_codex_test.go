package judge

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/codex"
)

// TestCodexLangMatchesRule: the language a Codex rule compiles to accepts
// exactly the quoted argv the rule matches (token boundaries, blanks and
// quotes inside tokens, canonical case folding), on generated rules and
// argv.
func TestCodexLangMatchesRule(t *testing.T) {
	words := []string{"git", "Git", "GIT", "status", "a b", "it's", `x"y`, "", "-rf", "é", "É", "$HOME", "*", "a\tb"}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 400; i++ {
		var r codex.Rule
		for j := 0; j < 1+rng.IntN(3); j++ {
			var alts []string
			for k := 0; k < 1+rng.IntN(2); k++ {
				alts = append(alts, words[rng.IntN(len(words))])
			}
			r.Pattern = append(r.Pattern, alts)
		}
		r.Canonical = rng.IntN(2) == 0
		lang, unknown := agentfiles.CodexLang(r)
		if unknown != "" {
			t.Fatalf("%s: %s", r, unknown)
		}
		for j := 0; j < 40; j++ {
			var argv []string
			for k := 0; k < rng.IntN(4); k++ {
				w := words[rng.IntN(len(words))]
				if k < len(r.Pattern) && rng.IntN(2) == 0 {
					w = r.Pattern[k][rng.IntN(len(r.Pattern[k]))]
					if rng.IntN(3) == 0 {
						w = strings.ToUpper(w)
					}
				}
				argv = append(argv, w)
			}
			if got, want := lang.Match(codex.QuoteArgv(argv)), r.Matches(argv); got != want {
				t.Fatalf("%s on %q (%s): language %v, rule %v", r, argv, codex.QuoteArgv(argv), got, want)
			}
		}
	}
}

// TestCodexAdapterRead: what the adapter makes of a rules file Codex
// cannot load (every rule of the folder dropped, a blocking reason), of
// one Shipgate cannot evaluate within its bounds (it may grant anything),
// and of prompt rules (on both surfaces).
func TestCodexAdapterRead(t *testing.T) {
	a := agentfiles.CodexAdapter{}
	d, err := a.Read(".codex/rules/x.rules", []byte(`prefix_rule(pattern=["git"], decision="deny")`))
	pe, ok := err.(*agent.ParseError)
	if !ok || pe.Blocks == "" || pe.MayStillGrant || d == nil {
		t.Fatalf("a file Codex refuses: doc %v, error %#v", d, err)
	}
	ok2, err := a.Read(".codex/rules/y.rules", []byte(`prefix_rule(pattern=["rm"], decision="forbidden")`))
	if err != nil {
		t.Fatal(err)
	}
	if pol := a.Combine([]*agent.Doc{ok2, d}); len(pol.Rules) != 0 {
		t.Errorf("with one file unloadable the folder keeps %d rules, want none", len(pol.Rules))
	}
	if pol := a.Combine([]*agent.Doc{ok2, nil}); len(pol.Rules) != 1 {
		t.Errorf("an absent file drops rules: %d", len(pol.Rules))
	}
	_, err = a.Read(".codex/rules/z.rules", []byte("x = 0\nfor i in range(3000000):\n    x += 1\n"))
	if pe, ok := err.(*agent.ParseError); !ok || !pe.MayStillGrant || pe.Blocks != "" {
		t.Errorf("a file past Shipgate's step budget: %#v, want MayStillGrant", err)
	}
	p, err := a.Read(".codex/rules/p.rules", []byte(`prefix_rule(pattern=["git", "push"], decision="prompt")`))
	if err != nil {
		t.Fatal(err)
	}
	var surfaces []string
	for _, r := range p.Rules {
		surfaces = append(surfaces, string(r.Surface)+":"+r.Decision.String())
	}
	if strings.Join(surfaces, ",") != "shell:ask,sandboxed shell:ask" {
		t.Errorf("a prompt rule is on %v", surfaces)
	}
}

// TestCodexClassify: the paths the adapter reads and their scopes.
func TestCodexClassify(t *testing.T) {
	for p, want := range map[string]string{
		".codex/config.toml": "", "svc/.codex/config.toml": "svc", ".codex/rules/a.rules": "", "x/y/.codex/rules/dev.rules": "x/y",
		".codex/rules/.rules": "-", ".codex/rules/a.txt": "-", ".codex/rules/sub/a.rules": "-", "codex/config.toml": "-", ".codex/config.json": "-",
	} {
		k, scope := agentfiles.CodexAdapter{}.Classify(p)
		got := scope
		if k != agentfiles.AgentFile {
			got = "-"
		}
		if got != want {
			t.Errorf("Classify(%q) = %q, want %q", p, got, want)
		}
	}
}
