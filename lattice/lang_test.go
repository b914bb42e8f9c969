package lattice

import (
	"context"
	"testing"
)

func TestLangMatch(t *testing.T) {
	sp := Class(false, ' ', ' ')
	cases := []struct {
		name string
		re   RE
		yes  []string
		no   []string
	}{
		{"literal", Lit("git status"), []string{"git status"}, []string{"git", "git status ", "git statu"}},
		{"alt", Alt(Lit("npm test"), Lit("npm run lint")), []string{"npm test", "npm run lint"}, []string{"npm", "npm run", "npm testx"}},
		{"prefix-or-exact", Cat(Lit("git"), Opt(Cat(sp, Everything()))), []string{"git", "git push", "git "}, []string{"gitea", "gi"}},
		{"star-group", Cat(Lit("a"), Star(Lit("bc")), Lit("d")), []string{"ad", "abcd", "abcbcd"}, []string{"abd", "abcbd", "a"}},
		{"plus", Plus(Class(false, '0', '9')), []string{"1", "123"}, []string{"", "1a"}},
		{"repeat", Repeat(Lit("ab"), 2, 3), []string{"abab", "ababab"}, []string{"ab", "abababab"}},
		{"negated-class", Cat(Class(true, '/', '/'), Lit("x")), []string{"ax"}, []string{"/x", "x"}},
		{"nested-alt-star", Star(Alt(Lit("a"), Cat(Lit("b"), Opt(Lit("c"))))), []string{"", "a", "bc", "abca", "bb"}, []string{"c", "ac"}},
		{"none", Alt(), nil, []string{"", "a"}},
		{"empty", RE{Op: REEmpty}, []string{""}, []string{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := Compile(c.re)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.yes {
				if !l.Match(s) {
					t.Errorf("%s should match %q", c.re, s)
				}
			}
			for _, s := range c.no {
				if l.Match(s) {
					t.Errorf("%s should not match %q", c.re, s)
				}
			}
		})
	}
}

func TestFindLang(t *testing.T) {
	ctx := context.Background()
	sp := Class(false, ' ', ' ')
	git := MustCompile(Cat(Lit("git"), Opt(Cat(sp, Everything()))))
	push := MustCompile(Cat(Lit("git push"), Opt(Cat(sp, Everything()))))
	all := MustCompile(Everything())
	alts := MustCompile(Alt(Lit("npm test"), Lit("npm run lint")))
	cases := []struct {
		name          string
		must, mustNot []*Lang
		want          Answer
	}{
		{"push within git", []*Lang{push}, []*Lang{git}, No},
		{"git beyond push", []*Lang{git}, []*Lang{push}, Yes},
		{"everything beyond git", []*Lang{all}, []*Lang{git}, Yes},
		{"empty must is every string", nil, []*Lang{all}, No},
		{"alts beyond git", []*Lang{alts}, []*Lang{git}, Yes},
		{"alts within alts", []*Lang{alts}, []*Lang{alts}, No},
		{"intersection", []*Lang{git, push}, nil, Yes},
	}
	for _, c := range cases {
		w, got := FindLang(ctx, c.must, c.mustNot)
		if got != c.want {
			t.Errorf("%s: got %v (%q), want %v", c.name, got, w, c.want)
			continue
		}
		if got == Yes {
			for _, l := range c.must {
				if !l.Match(w) {
					t.Errorf("%s: witness %q not in a must language", c.name, w)
				}
			}
			for _, l := range c.mustNot {
				if l.Match(w) {
					t.Errorf("%s: witness %q in a must-not language", c.name, w)
				}
			}
		}
	}
}

func TestCompileTooLarge(t *testing.T) {
	if _, err := Compile(Repeat(Repeat(Lit("abcdefgh"), 100, 100), 100, 100)); err == nil {
		t.Fatal("want ErrLangTooLarge")
	}
}
