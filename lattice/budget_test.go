package lattice

import (
	"context"
	"strings"
	"testing"
)

// starRule is the adversarial shape: a rule whose pattern is n
// distinct runes each between stars, Bash(*c1*c2*...*cn*).
func starRule(list List, n, offset int) Rule {
	var sb strings.Builder
	sb.WriteString("Bash(*")
	for i := 0; i < n; i++ {
		sb.WriteRune(rune(0x4e00 + offset + i))
		sb.WriteByte('*')
	}
	sb.WriteString(")")
	return ParseIn(list, sb.String())
}

func TestBudgetStopsSearches(t *testing.T) {
	hard := []struct {
		name string
		a, b Rule
	}{
		{"512 distinct runes between stars", starRule(Allow, 512, 0), starRule(Allow, 512, 7)},
		{"128 runes, shifted", starRule(Allow, 128, 0), starRule(Allow, 128, 1)},
	}
	for _, c := range hard {
		t.Run(c.name, func(t *testing.T) {
			b := NewBudget(100_000, 50_000)
			ctx := WithBudget(context.Background(), b)
			v := CoversContext(ctx, c.a, c.b)
			if v.Answer == Yes {
				t.Fatalf("Covers = Yes under a tiny budget: %s", v.Reason)
			}
			if v.Answer == Unknown && (!v.TooComplex || !strings.Contains(v.Reason, "work budget")) {
				t.Fatalf("Unknown without TooComplex or the budget named: %+v", v)
			}
			if v.Answer == Unknown && b.GaveUp() == 0 {
				t.Fatalf("the budget counted no search that gave up")
			}
			if b.Used() > b.Total()+b.Total()/100 {
				t.Fatalf("used %d steps of a %d budget", b.Used(), b.Total())
			}
			if _, ans := FindContext(ctx, []Rule{c.b}, []Rule{c.a}); ans == No {
				t.Fatalf("Find = No (nothing escapes) under a spent budget")
			}
		})
	}
}

func TestBudgetCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := NewBudget(0, 0)
	ctx = WithBudget(ctx, b)
	a, c := starRule(Allow, 64, 0), starRule(Allow, 64, 3)
	if v := CoversContext(ctx, a, c); v.Answer != Unknown || !v.TooComplex || !strings.Contains(v.Reason, "stopped") {
		t.Fatalf("Covers under a canceled context = %+v, want Unknown, TooComplex, stopped", v)
	}
	if b.Canceled() == 0 {
		t.Fatalf("no search counted as canceled")
	}
	// Answers that need no search still hold.
	if v := CoversContext(ctx, Parse("Bash(git *)"), Parse("Bash(git *)")); v.Answer != Yes {
		t.Fatalf("the same rule under a canceled context = %v", v.Answer)
	}
}

// TestLiteralPairsExact: literal and near-literal comparisons need no
// search, so their size never makes them Unknown.
func TestLiteralPairsExact(t *testing.T) {
	long := strings.Repeat("abcdefghij", 1000)
	cases := []struct {
		a, b string
		want Answer
	}{
		{"Bash(" + long + ")", "Bash(" + long + ")", Yes},
		{"Bash(" + long + " *)", "Bash(" + long + ")", Yes},
		{"Bash(" + long + ")", "Bash(" + long + "x)", No},
		{"Bash(" + long + "*)", "Bash(" + long + "xyz)", Yes},
		{"Bash(x" + long + ")", "Bash(" + long + ")", No},
	}
	for i, c := range cases {
		a, b := Parse(c.a), Parse(c.b)
		// A distinct text for the first case, so Covers does not answer
		// "the same rule" without comparing.
		if i == 0 {
			a = ParseIn(Deny, c.a)
		}
		if v := Covers(a, b); v.Answer != c.want {
			t.Errorf("case %d: Covers = %v (%s), want %v", i, v.Answer, v.Reason, c.want)
		}
	}
}

// TestManyDistinctRunesDecided: a pair with 512 distinct runes between
// stars (9 s and Unknown before the budget) is decided, with a witness,
// within the default budget.
func TestManyDistinctRunesDecided(t *testing.T) {
	for _, n := range []int{128, 512, 1400} {
		a, b := starRule(Allow, n, 0), starRule(Allow, n, 7)
		v := Covers(a, b)
		if v.Answer != No || !Matches(b, v.Witness) || Matches(a, v.Witness) {
			t.Errorf("n=%d: Covers = %v (%s), witness %q: want No with a witness b matches and a does not", n, v.Answer, v.Reason, v.Witness.Arg)
		}
	}
}
