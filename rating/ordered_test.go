package rating

import (
	"slices"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// orderedByDisplay is ordered as first written: each launcher grouped by
// the display it gets. ordered must group exactly so without building
// those strings.
func orderedByDisplay(rt Rater, r lattice.Rule) []string {
	spec := strings.Join(strings.Fields(r.Specifier), " ")
	var groups [4][]string
	for _, l := range rt.launchers() {
		d, entry := display(r, l)
		switch {
		case entry:
			groups[0] = append(groups[0], l)
		case !strings.HasSuffix(d, "<redacted-arguments>)"):
			groups[1] = append(groups[1], l)
		case strings.HasPrefix(spec, strings.Join(strings.Fields(l), " ")+" "):
			groups[2] = append(groups[2], l)
		default:
			groups[3] = append(groups[3], l)
		}
	}
	return append(append(append(groups[0], groups[1]...), groups[2]...), groups[3]...)
}

// TestOrderedGroups: the launchers come in the order of the entry the rule
// spells, the entries it is wider than, those whose words it starts with,
// the rest — for entries, legacy and padded spellings, wider stems, flags
// and policy launchers with odd blanks.
func TestOrderedGroups(t *testing.T) {
	rt := Rater{Extra: []string{"deno  run", " bun x", "make"}}
	specs := []string{"npx *", "npx:*", "npx  *", "n*", "no*", "node --eval *", "node --eval **", "node -e foo *",
		"python3 -c *", "py*", "p*", "*", "sudo -u x *", "uv run *", "uv *", "deno run *", "deno  run *", "bun x *",
		"make *", "make", "npx", "npx prettier *", "\tnpx *", "npx *\u00a0", "e*", "env FOO=1 *", "x\\*", "a*b*", ""}
	for _, s := range specs {
		r := lattice.ParseIn(lattice.Allow, "Bash("+s+")")
		if got, want := rt.ordered(r), orderedByDisplay(rt, r); !slices.Equal(got, want) {
			t.Errorf("Bash(%s): ordered %q, want %q", s, got, want)
		}
	}
}

// TestNormBlanks: normBlanks is strings.Fields joined by single spaces.
func TestNormBlanks(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\u00a0b", "a\u0085b", "日本 語", "a b  c", "\n"} {
		if got, want := normBlanks(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("normBlanks(%q) = %q, want %q", s, got, want)
		}
	}
}
