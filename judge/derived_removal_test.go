package judge

import (
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/report"
)

// TestDenyRemovalDerivedWitness: a removed deny or ask rule also stopped the
// calls of the tools Claude Code derives from it (lattice.Implied: a deny
// Edit rule denies Write and NotebookEdit of its paths, a deny Read rule
// Edit and Write). The witness says a derived call that now runs, named
// with its tool, instead of only the rule's own tool's call that prompts.
func TestDenyRemovalDerivedWitness(t *testing.T) {
	cases := []struct {
		name, base, head string
		want             string // in the finding's message
	}{
		{"deny Edit removed under a bare NotebookEdit allow",
			perms{allow: []string{"NotebookEdit"}, deny: []string{"Edit(./secret/**)"}}.json(), perms{allow: []string{"NotebookEdit"}}.json(),
			"`NotebookEdit(secret/x.ipynb)` — now runs without a prompt (allow: NotebookEdit)"},
		{"deny Read removed under a bare Write allow",
			perms{allow: []string{"Write"}, deny: []string{"Read(./secret/**)"}}.json(), perms{allow: []string{"Write"}}.json(),
			"`Write(secret/x)` — now runs without a prompt (allow: Write)"},
		{"ask Edit removed under a bare NotebookEdit allow",
			perms{allow: []string{"NotebookEdit"}, ask: []string{"Edit(./secret/**)"}}.json(), perms{allow: []string{"NotebookEdit"}}.json(),
			"`NotebookEdit(secret/x.ipynb)` — now runs without a prompt (allow: NotebookEdit)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(settingsPair(c.base, c.head))
			if r.Decision != report.DecisionRequireReview {
				t.Fatalf("decision %s: %v", r.Decision, r.Findings)
			}
			found := false
			for _, f := range r.Findings {
				found = found || strings.Contains(f.Message, c.want)
			}
			if !found {
				t.Errorf("no finding says %q: %v", c.want, r.Findings)
			}
		})
	}
}
