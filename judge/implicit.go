package judge

import (
	"sync"

	"github.com/shipgate-app/shipgate/lattice"
)

// implicitSplit is lattice.ImplicitAllows split once by tool: the 84
// preapproved WebFetch hosts matter only when a WebFetch rule is judged,
// so every other rule is compared against the other 14 grants alone
// (ImplicitAllows builds a fresh 98-rule slice on every call).
var implicitSplit = sync.OnceValues(func() (web, other []lattice.Rule) {
	for _, r := range lattice.ImplicitAllows() {
		if r.Canonical == "WebFetch" {
			web = append(web, r)
		} else {
			other = append(other, r)
		}
	}
	return web, other
})

// implicitFor is what Claude Code grants with no rule that can matter to
// a rule of tool: the preapproved WebFetch hosts for WebFetch, the other
// grants (project reads, tools that run with no rule) for the rest. The
// slice is shared and full, so an append to it copies.
func implicitFor(tool string) []lattice.Rule {
	web, other := implicitSplit()
	if tool == "WebFetch" {
		return append(append([]lattice.Rule(nil), other...), web...)
	}
	return other[:len(other):len(other)] // full: an append copies
}
