package rating

import (
	"context"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// tierShapes are the tier decision's shapes: entries, wider rules, flag
// contexts, option values, fixed tails, fixed operands (which must be
// proved outside for every launcher), ambiguous and star-heavy rules.
var tierShapes = map[string]string{
	"entry":          "Bash(npx *)",
	"wider":          "Bash(n*)",
	"flags":          "Bash(docker run --rm -it *)",
	"option-value":   "Bash(sudo -u root *)",
	"fixed-tail":     "Bash(npx * --help)",
	"fixed-operand":  "Bash(docker run --rm alpine *)",
	"docker-inspect": "Bash(docker inspect *)",
	"not-a-launcher": "Bash(npm test *)",
	"ambiguous":      "Bash(p* -c *)",
	"star-heavy":     "Bash(docker * -* * --x *)",
	"many-stars":     "Bash(sudo *a*b*c*d*e*f*g*h *)",
	"long-literal":   "Bash(docker run " + strings.Repeat("-a b ", 200) + "alpine *)",
	"star-flags":     "Bash(docker -*a*-*b*-*c*-*d*-*e*-*f --x*)",
}

// BenchmarkTier times the whole tier decision (every launcher of the
// table) on each shape.
func BenchmarkTier(b *testing.B) {
	var rt Rater
	for name, text := range tierShapes {
		r := lattice.Parse(text)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rt.Tier(r)
			}
		})
	}
}

// BenchmarkTierSteps reports the work of each shape in the lattice's steps
// (the unit of the budget), beside its time.
func BenchmarkTierSteps(b *testing.B) {
	for name, text := range tierShapes {
		r := lattice.Parse(text)
		b.Run(name, func(b *testing.B) {
			steps := 0
			for i := 0; i < b.N; i++ {
				steps = 0
				for _, l := range Launchers {
					lr, _ := launcherFor(l)
					steps += lr.Operand(context.Background(), r, 0).Spent
				}
			}
			b.ReportMetric(float64(steps), "steps")
		})
	}
}
