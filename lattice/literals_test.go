package lattice

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestLiteralUnion: the trie machines of a set of words accept exactly the
// words — every one, none of their proper prefixes or extensions unless
// they are words too, nothing else — and each fits one machine word.
func TestLiteralUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(*seed, 11))
	alphabet := []string{"a", "b", "git log ", "x", " --flag", "é", "\xff", "日本", "/", "-"}
	word := func() string {
		var sb strings.Builder
		for n := r.IntN(6); n >= 0; n-- {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	cases := [][]string{
		{"git log x --flag5 x --x5", "git log x --flag5 a --x5", "git log x --flag5 b --x5"},
		{"a", "ab", "abc", "b"},
		{"ab", "ab", "a"},
		{strings.Repeat("x", 70), "y"},
	}
	for i := 0; i < 300; i++ {
		ws := make([]string, 1+r.IntN(12))
		for j := range ws {
			ws[j] = word()
		}
		cases = append(cases, ws)
	}
	for _, ws := range cases {
		ms := literalUnion(ws)
		accepts := func(s string) bool {
			for _, m := range ms {
				if m.run(s) {
					return true
				}
			}
			return false
		}
		var probes []string
		for _, w := range ws {
			probes = append(probes, w, w+"a", w+" ", strings.TrimSuffix(w, w[len(w)-min(len(w), 1):]), "x"+w)
		}
		for i := 0; i < 20; i++ {
			probes = append(probes, word())
		}
		for _, p := range probes {
			// Machines read runes: an invalid byte reads as U+FFFD.
			want := slices.ContainsFunc(ws, func(w string) bool { return string([]rune(w)) == string([]rune(p)) })
			if accepts(p) != want {
				t.Fatalf("words %q: %q accepted %v, want %v", ws, p, !want, want)
			}
		}
		wide := 0 // words too long for one machine word: a machine each
		for _, w := range slices.Compact(slices.Sorted(slices.Values(ws))) {
			if len([]rune(w)) >= 64 {
				wide++
			}
		}
		for _, m := range ms {
			if m.words != 1 {
				wide--
			}
		}
		if wide < 0 {
			t.Fatalf("words %q: a chunk of several words wider than one machine word", ws)
		}
	}
}

// TestMergedLiteralsSameWitness: looking past exact calls with the merged
// trie machines finds exactly what one machine per call finds (the same
// language, the same alphabet), for fewer steps.
func TestMergedLiteralsSameWitness(t *testing.T) {
	defer func() { mergeLiterals = true }()
	rules := []string{"Bash(git log * --flag5 * --x5)", "Bash(git * --flag*)", "Bash(npm run *)", "Read(~/**/a1/**/b/**)", "Bash(* --opt3 *)", "Bash(cat *)"}
	none := []Rule{ParseIn(Deny, "Bash(rm *)"), ParseIn(Allow, "Bash(npm test)")}
	for _, text := range rules {
		r := ParseIn(Allow, text)
		var skipped []Call
		for i := 0; i < 6; i++ {
			var got [2][]Call
			var ans [2]Answer
			var steps [2]int64
			for k, merge := range []bool{false, true} {
				mergeLiterals = merge
				b := NewBudget(0, 0)
				got[k], ans[k] = FindNExceptContext(WithBudget(context.Background(), b), []Rule{r}, none, skipped, 3)
				steps[k] = b.Used()
			}
			if ans[0] != ans[1] || !slices.Equal(got[0], got[1]) {
				t.Fatalf("%s past %v: merged %v %v, separate %v %v", text, skipped, ans[1], got[1], ans[0], got[0])
			}
			if len(skipped) > 1 && steps[1] > steps[0] {
				t.Errorf("%s past %d calls: merged %d steps, separate %d", text, len(skipped), steps[1], steps[0])
			}
			if ans[0] != Yes {
				break
			}
			skipped = append(skipped, got[0]...)
		}
	}
}

// TestLauncherExcludes: a rule Excludes rules out is one Operand answers
// No for, having spent nothing; and Excludes rules out the common rules
// of other commands.
func TestLauncherExcludes(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(*seed, 13))}
	texts := []string{"Bash(git log * --flag5 * --x5)", "Bash(npx *)", "Bash(np*)", "Bash(npx)", "Bash(npxy *)", "Bash(n *)", "Bash(*)", "Bash",
		"Bash(sudo -u x *)", "Bash(s*)", "bash(npx *)", "Bash( npx *)", "Bash(npx  *)", "Read(src/**)", "Bash(docker run *)"}
	for i := 0; i < 400; i++ {
		texts = append(texts, g.shellRule())
	}
	excluded := 0
	for _, l := range []string{"npx", "python3 -c", "docker run", "sudo", "git"} {
		ln, ok := ParseLauncher(l)
		if !ok {
			t.Fatal(l)
		}
		ln = ln.Prepared()
		for _, text := range texts {
			r := ParseIn(Allow, text)
			if !ln.Excludes(r) {
				continue
			}
			excluded++
			if v := ln.Operand(context.Background(), r, 0); v.Answer != No || v.Spent != 0 || v.Undecided {
				t.Errorf("%s excludes %s, but Operand answers %v (spent %d, undecided %v)", l, text, v.Answer, v.Spent, v.Undecided)
			}
		}
	}
	if excluded == 0 {
		t.Fatal("nothing excluded: the test tests nothing")
	}
	if ln, _ := ParseLauncher("npx"); !ln.Excludes(ParseIn(Allow, "Bash(git log * --flag5 * --x5)")) || ln.Excludes(ParseIn(Allow, "Bash(np*)")) {
		t.Error("npx: git log rule not excluded, or np* excluded")
	}
}

// TestInnerLiteral: the literal run every word contains past the prefix.
func TestInnerLiteral(t *testing.T) {
	cases := map[string]string{
		"Bash(git push * --force5 *)": " --force5 ",
		"Bash(git *)":                 "",
		"Bash(git *日*)":               "日",
		"Bash(npm test)":              "",
		"Bash(* --opt3 *)":            " --opt3 ",
		"Bash(git * a * bcd)":         " bcd",
	}
	for text, want := range cases {
		r := ParseIn(Allow, text)
		for _, rd := range r.readings {
			if rd.kind == readArgs {
				if got := rd.args.inner; got != want {
					t.Errorf("%s: inner %q, want %q", text, got, want)
				}
				break
			}
		}
	}
}
