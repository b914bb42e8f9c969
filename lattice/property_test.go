package lattice

import (
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
)

var seed = flag.Uint64("lattice.seed", 20261129, "seed of the generated rule pairs (property tests)")

// gen builds random rules and inputs over a small vocabulary, so that
// generated rules overlap often and near-misses are common.
type gen struct{ r *rand.Rand }

func (g gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

var (
	shellWords = []string{"npm", "git", "test", "run", "x", "-c", "a", "ab", "b", "test:unit", "python3"}
	shellTails = []string{"", " *", ":*", "*", " * main", "* *", " --x"}
	pathSegs   = []string{"src", "a", "b", ".env", "*.ts", "**", "*", "x.ts", "[ab]", "?"}
	anchors    = []string{"", "/", "./", "~/", "//"}
	labels     = []string{"x", "com", "github", "*", "api", "evil"}
)

// shellRule returns a Bash (or PowerShell) rule.
func (g gen) shellRule() string {
	n := 1 + g.r.IntN(3)
	var parts []string
	for i := 0; i < n; i++ {
		w := g.pick(shellWords)
		if g.r.IntN(6) == 0 {
			w = "*"
		}
		parts = append(parts, w)
	}
	spec := strings.Join(parts, " ") + g.pick(shellTails)
	switch g.r.IntN(20) {
	case 0:
		return "Bash"
	case 1:
		return "Bash(*)"
	case 2:
		spec = strings.Replace(spec, " ", "  ", 1)
	case 3:
		return "bash(" + spec + ")"
	}
	return "Bash(" + spec + ")"
}

// command instantiates a rule text (or a random word list) into a command.
func (g gen) command(rules ...string) string {
	if len(rules) > 0 && g.r.IntN(3) > 0 {
		t := g.pick(rules)
		if i := strings.IndexByte(t, '('); i >= 0 && strings.HasSuffix(t, ")") {
			t = t[i+1 : len(t)-1]
		}
		t = strings.TrimSuffix(t, ":*")
		fill := []string{"", "x", " ", " test", "a b", ":unit", " main", "-c"}
		for strings.Contains(t, "*") {
			t = strings.Replace(t, "*", g.pick(fill), 1)
		}
		if g.r.IntN(4) == 0 {
			t += g.pick([]string{" x", "x", " --help", ""})
		}
		return t
	}
	n := 1 + g.r.IntN(4)
	var ws []string
	for i := 0; i < n; i++ {
		ws = append(ws, g.pick(shellWords))
	}
	return strings.Join(ws, g.pick([]string{" ", " ", ""}))
}

func (g gen) pathRule() string {
	n := 1 + g.r.IntN(3)
	var segs []string
	for i := 0; i < n; i++ {
		segs = append(segs, g.pick(pathSegs))
	}
	p := g.pick(anchors) + strings.Join(segs, "/")
	if g.r.IntN(8) == 0 {
		p += "/"
	}
	tool := "Read"
	if g.r.IntN(4) == 0 {
		tool = "Edit"
	}
	if g.r.IntN(15) == 0 {
		return tool
	}
	return tool + "(" + p + ")"
}

func (g gen) path() string {
	n := 1 + g.r.IntN(4)
	segs := []string{"src", "a", "b", ".env", "x.ts", "y", "a.ts", "c"}
	var ps []string
	for i := 0; i < n; i++ {
		ps = append(ps, g.pick(segs))
	}
	return g.pick([]string{"", "", "/", "~/", "./"}) + strings.Join(ps, "/")
}

func (g gen) domainRule() string {
	n := 1 + g.r.IntN(3)
	var ls []string
	for i := 0; i < n; i++ {
		ls = append(ls, g.pick(labels))
	}
	if g.r.IntN(10) == 0 {
		return "WebFetch"
	}
	return "WebFetch(domain:" + strings.Join(ls, ".") + ")"
}

func (g gen) host() string {
	n := 1 + g.r.IntN(4)
	var ls []string
	for i := 0; i < n; i++ {
		ls = append(ls, g.pick([]string{"x", "com", "github", "api", "evil", "a"}))
	}
	return strings.Join(ls, ".")
}

func (g gen) mcpRule() string {
	return g.pick([]string{"mcp__github", "mcp__github__*", "mcp__github__get_issue", "mcp__github__get_*",
		"mcp__git", "mcp__gitlab__*", "mcp__github__create_*", "mcp__*", "*", "Bash", "Read", "mcp__git*"})
}

// family groups a rule generator with an input generator.
type family struct {
	name  string
	rule  func(g gen) string
	input func(g gen, rules []string) Call
}

var families = []family{
	{"bash", func(g gen) string { return g.shellRule() }, func(g gen, rules []string) Call {
		return Call{Tool: "Bash", Arg: g.command(rules...)}
	}},
	{"path", func(g gen) string { return g.pathRule() }, func(g gen, rules []string) Call {
		return Call{Tool: g.pick([]string{"Read", "Edit"}), Arg: g.path()}
	}},
	{"domain", func(g gen) string { return g.domainRule() }, func(g gen, rules []string) Call {
		return Call{Tool: "WebFetch", Arg: g.host()}
	}},
	{"mcp", func(g gen) string { return g.mcpRule() }, func(g gen, rules []string) Call {
		return Call{Tool: g.pick([]string{"mcp__github__get_issue", "mcp__github__create_issue", "mcp__gitlab__x", "mcp__git__y", "Bash", "Read"})}
	}},
}

func listFor(g gen) List { return []List{Allow, Allow, Deny, Ask}[g.r.IntN(4)] }

// TestCoversProperties checks Covers against Matches on generated pairs:
// Yes never lets an input b may match escape a; every witness of No is
// matched by b and not by a; Covers is reflexive.
func TestCoversProperties(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(*seed, 1))}
	pairs := 0
	for _, fam := range families {
		for i := 0; i < 1500; i++ {
			a := ParseIn(listFor(g), fam.rule(g))
			b := ParseIn(listFor(g), fam.rule(g))
			pairs++
			v := Covers(a, b)
			if ra := Covers(a, a); ra.Answer != Yes {
				t.Fatalf("Covers(%s, itself) = %v", a.Text, ra.Answer)
			}
			switch v.Answer {
			case No:
				if Match(b, v.Witness) != Yes || Match(a, v.Witness) != No {
					t.Fatalf("seed %d: Covers(%s:%s, %s:%s) = No with witness %+v: b %v, a %v",
						*seed, a.List, a.Text, b.List, b.Text, v.Witness, Match(b, v.Witness), Match(a, v.Witness))
				}
			case Yes:
				for k := 0; k < 40; k++ {
					in := fam.input(g, []string{a.Text, b.Text})
					if Match(b, in) != No && Match(a, in) != Yes {
						t.Fatalf("seed %d: Covers(%s:%s, %s:%s) = Yes but %+v: b %v, a %v",
							*seed, a.List, a.Text, b.List, b.Text, in, Match(b, in), Match(a, in))
					}
				}
			case Unknown:
				if a.Ambiguity == "" && b.Ambiguity == "" && !strings.Contains(v.Reason, "too") {
					t.Fatalf("Covers(%s, %s) = Unknown without an ambiguity: %s", a.Text, b.Text, v.Reason)
				}
			}
		}
	}
	t.Logf("seed %d: %d pairs", *seed, pairs)
}

// TestCoversTransitiveAntisymmetric checks transitivity and antisymmetry
// (up to Equivalent) over generated triples.
func TestCoversTransitiveAntisymmetric(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(*seed, 2))}
	for _, fam := range families {
		var rules []Rule
		for i := 0; i < 60; i++ {
			rules = append(rules, ParseIn(listFor(g), fam.rule(g)))
		}
		yes := make([][]bool, len(rules))
		for i := range rules {
			yes[i] = make([]bool, len(rules))
			for j := range rules {
				yes[i][j] = Covers(rules[i], rules[j]).Answer == Yes
			}
		}
		for i := range rules {
			for j := range rules {
				if !yes[i][j] {
					continue
				}
				for k := range rules {
					if yes[j][k] && Covers(rules[i], rules[k]).Answer != Yes {
						t.Fatalf("not transitive: %s ⊇ %s ⊇ %s but Covers(%s, %s) = %v", rules[i].Text, rules[j].Text,
							rules[k].Text, rules[i].Text, rules[k].Text, Covers(rules[i], rules[k]).Answer)
					}
				}
				if yes[j][i] && !rules[i].Ambiguous() && !rules[j].Ambiguous() {
					for n := 0; n < 30; n++ {
						in := fam.input(g, []string{rules[i].Text, rules[j].Text})
						if Matches(rules[i], in) != Matches(rules[j], in) {
							t.Fatalf("%s and %s cover each other but differ on %+v", rules[i].Text, rules[j].Text, in)
						}
					}
				}
			}
		}
	}
}

// TestCoversExactAgainstEnumeration holds the decision and the shortness of
// witnesses against brute force: over a tiny alphabet, every command up to
// length 5 is tried; the search must find a counter-example exactly when
// one exists, and never a longer one than the shortest enumerated.
func TestCoversExactAgainstEnumeration(t *testing.T) {
	alphabet := []rune{'a', 'b', ' '}
	var words []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		if prefix != "" {
			words = append(words, prefix)
		}
		if n == 0 {
			return
		}
		for _, r := range alphabet {
			grow(prefix+string(r), n-1)
		}
	}
	grow("", 5)
	specs := []string{"a", "b", "a *", "a*", "*a", "a:*", "* b", "a * b", "*", "ab *", "a b", "a*b", "*a*", "a b:*", "b *", "a* *b", "a\\*"}
	g := gen{rand.New(rand.NewPCG(*seed, 3))}
	for i := 0; i < 400; i++ {
		a := Parse("Bash(" + g.pick(specs) + ")")
		b := Parse("Bash(" + g.pick(specs) + ")")
		shortest := ""
		for _, w := range words {
			if Matches(b, Call{Tool: "Bash", Arg: w}) && !Matches(a, Call{Tool: "Bash", Arg: w}) {
				if shortest == "" || len(w) < len(shortest) {
					shortest = w
				}
			}
		}
		v := Covers(a, b)
		switch {
		case shortest != "" && v.Answer != No:
			t.Fatalf("Covers(%s, %s) = %v, but %q is in b and not a", a.Text, b.Text, v.Answer, shortest)
		case shortest != "" && len([]rune(v.Witness.Arg)) > len([]rune(shortest)) && (isTidyCommand(shortest) || !isTidyCommand(v.Witness.Arg)):
			// A longer witness is allowed only to be a tidy command where
			// the shortest is not (single spaces, no blank ends).
			t.Fatalf("Covers(%s, %s): witness %q longer than %q", a.Text, b.Text, v.Witness.Arg, shortest)
		case shortest == "" && v.Answer == No && len([]rune(v.Witness.Arg)) <= 5 && !strings.ContainsAny(v.Witness.Arg, "x*\\"):
			t.Fatalf("Covers(%s, %s) = No with witness %q, which enumeration missed", a.Text, b.Text, v.Witness.Arg)
		}
	}
}
