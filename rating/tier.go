package rating

import (
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
)

// Launchers is the exec-equivalent table of the seed specification (#824):
// after each of these exact prefixes, a trailing wildcard leaves code, a
// command, or a package or image to execute selectable by the caller.
var Launchers = []string{
	"python -c", "python3 -c", "node -e", "node --eval", "node -p", "node --print",
	"ruby -e", "perl -e", "perl -E", "php -r", "bash -c", "sh -c", "zsh -c", "pwsh -c",
	"eval", "npx", "bunx", "pnpm dlx", "pnpm exec", "uvx", "uv tool run", "uv run",
	"pipx run", "docker exec", "docker run", "xargs", "env", "sudo",
}

// TierMatch says why a rule is in the exec-equivalent tier.
type TierMatch struct {
	// Launcher is the table entry the rule reaches.
	Launcher string
	// Entry is true for the entry itself (`Bash(npx *)`, `Bash(npx:*)`),
	// false for a strictly wider rule (`Bash(np*)`).
	Entry bool
	// Display is the rule as evidence shows it: the canonical table text
	// for an entry, and for a wider rule its own trailing-* text sliced
	// from the table entry, never copied from the declaration.
	Display string
}

// Tier reports whether a Bash allow rule is in the exec-equivalent tier: an
// entry of the table in either spelling, or a single-trailing-star rule the
// lattice decides is strictly wider than an entry. Lowercase and padded
// spellings are rated too (a rule Claude Code may read as Bash). The whole
// tool keeps its own critical rating and is not in the tier; ask and deny
// rules never are.
func (rt Rater) Tier(r lattice.Rule) (TierMatch, bool) {
	if r.List != lattice.Allow || !r.HasSpecifier || !strings.EqualFold(strings.TrimSpace(r.Tool), "Bash") {
		return TierMatch{}, false
	}
	if r.Malformed != "" && r.Canonical != "Bash" {
		return TierMatch{}, false
	}
	if !strings.HasSuffix(r.Text, ")") || strings.Count(r.Text, "(") == 0 {
		return TierMatch{}, false
	}
	spec := strings.TrimSpace(r.Specifier)
	// Only a single trailing star qualifies: `X *`, `X:*`, `X*`.
	if strings.Count(spec, "*") != 1 || !strings.HasSuffix(spec, "*") || strings.Contains(spec, "\\") {
		return TierMatch{}, false
	}
	stem := spec[:len(spec)-1] // text before the star
	if strings.HasSuffix(stem, ":") {
		x := strings.TrimSuffix(stem, ":")
		if x == "" || strings.TrimRight(x, " \t") != x {
			return TierMatch{}, false // Bash(:*), Bash(npx :*): undocumented spellings
		}
		stem = x + " "
	}
	if strings.TrimSpace(stem) == "" {
		return TierMatch{}, false // the whole tool keeps its own rating
	}
	for _, l := range rt.launchers() {
		if stem == l+" " {
			return TierMatch{Launcher: l, Entry: true, Display: "Bash(" + l + " *)"}, true
		}
	}
	var norm lattice.Rule
	for _, l := range rt.launchers() {
		// A wider single-star rule's stem is a prefix of "<entry> " (the
		// cheap test); the lattice decides it.
		table := l + " "
		if !strings.HasPrefix(table, stem) {
			continue
		}
		if norm.Text == "" {
			norm = lattice.Parse("Bash(" + spec + ")")
		}
		if lattice.StrictlyWider(norm, lattice.Parse("Bash("+l+" *)")) != lattice.Yes {
			continue
		}
		// Show the stem sliced from the table, never copied from the rule.
		return TierMatch{Launcher: l, Display: "Bash(" + table[:len(stem)] + "*)"}, true
	}
	return TierMatch{}, false
}

// launchers is the table with the policy's extra prefixes.
func (rt Rater) launchers() []string {
	if len(rt.Extra) == 0 {
		return Launchers
	}
	out := append([]string(nil), Launchers...)
	for _, e := range rt.Extra {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
