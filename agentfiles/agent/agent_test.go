package agent

import (
	"context"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

func shell(text string, d Decision, re lattice.RE) Rule {
	return Rule{Surface: Shell, Text: text, Decision: d, Lang: lattice.MustCompile(re)}
}

var sp = lattice.Lit(" ")

func prefix(p string) lattice.RE {
	return lattice.Cat(lattice.Lit(p), lattice.Opt(lattice.Cat(sp, lattice.Everything())))
}

// TestDecidePrecedence holds the three precedence models to the decisions
// their agents document (agents-permissions.md section 7.2).
func TestDecidePrecedence(t *testing.T) {
	git := shell("git", Allow, prefix("git"))
	push := shell("git push", Deny, prefix("git push"))
	cases := []struct {
		name  string
		prec  Precedence
		rules []Rule
		call  string
		want  Decision
	}{
		{"strictest: deny wins whatever the order", Strictest, []Rule{git, push}, "git push origin", Deny},
		{"strictest: deny wins, reversed", Strictest, []Rule{push, git}, "git push origin", Deny},
		{"strictest: allow elsewhere", Strictest, []Rule{git, push}, "git status", Allow},
		{"last match: the later allow wins", LastMatch, []Rule{push, git}, "git push origin", Allow},
		{"last match: the later deny wins", LastMatch, []Rule{git, push}, "git push origin", Deny},
		{"first match: the earlier allow wins", FirstMatch, []Rule{git, push}, "git push origin", Allow},
		{"first match: the earlier deny wins", FirstMatch, []Rule{push, git}, "git push origin", Deny},
		{"no rule: the default", Strictest, []Rule{push}, "ls", Ask},
		{"unknown allow matches everything", Strictest, []Rule{{Surface: Shell, Text: "/(a)\\1/", Decision: Allow, Unknown: "backreference"}}, "rm -rf /", Allow},
		{"unknown deny matches nothing", Strictest, []Rule{git, {Surface: Shell, Text: "/(a)\\1/", Decision: Deny, Unknown: "backreference"}}, "git x", Allow},
	}
	for _, c := range cases {
		p := &Policy{Precedence: c.prec, Rules: c.rules}
		if got, _ := p.Decide(Shell, c.call); got != c.want {
			t.Errorf("%s: Decide(%q) = %v, want %v", c.name, c.call, got, c.want)
		}
		// Regions agree with Decide: the call lies in a region of the
		// decision Decide gives, and in none of another decision.
		for _, r := range p.Regions(Shell) {
			if r.Contains(c.call) && r.Decision != c.want {
				t.Errorf("%s: %q lies in a %v region, Decide says %v", c.name, c.call, r.Decision, c.want)
			}
		}
	}
}

// TestRegionsWidening finds a widening between two policies the way the
// engine does: a head region more permissive than an overlapping base one.
func TestRegionsWidening(t *testing.T) {
	base := &Policy{Precedence: LastMatch, Rules: []Rule{shell("*", Ask, lattice.Everything()), shell("git *", Allow, lattice.Cat(lattice.Lit("git "), lattice.Everything()))}}
	head := &Policy{Precedence: LastMatch, Rules: []Rule{shell("git *", Allow, lattice.Cat(lattice.Lit("git "), lattice.Everything())), shell("*", Ask, lattice.Everything())}}
	// Reordered: head asks for everything, the base allowed git: narrower.
	if w := widenings(head, base); len(w) == 0 {
		t.Errorf("base → head reversed: want a widening (git allowed again)")
	}
	if w := widenings(base, head); len(w) != 0 {
		t.Errorf("want no widening when the catch-all ask moves last, got %v", w)
	}
}

func widenings(base, head *Policy) []string {
	var out []string
	for _, h := range head.Regions(Shell) {
		for _, b := range base.Regions(Shell) {
			if h.Decision <= b.Decision {
				continue
			}
			if w, a := Overlap(context.Background(), h, b); a != lattice.No {
				out = append(out, w)
			}
		}
	}
	return out
}
