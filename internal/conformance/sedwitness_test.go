package conformance

import (
	"context"
	"testing"
)

// TestSedWitnessOnTheBinary measures the witness Shipgate prints for
// Bash(sed:*) (lattice exampleCalls): `sed -i s/a/b/ .env` asks with no
// rule ("sed in '…/.env' needs approval") and runs under the rule, so it
// is a call the rule newly lets run; `sed -n p` runs either way.
func TestSedWitnessOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	calls := []Call{{Tool: "Bash", Arg: "sed -i s/a/b/ .env"}, {Tool: "Bash", Arg: "sed -n p x.txt"}}
	files := map[string]string{".env": "a=1\n", "x.txt": "a\n"}
	for _, c := range []struct {
		settings string
		want     []Decision
	}{
		{`{"permissions": {"allow": ["Bash(sed:*)"]}}`, []Decision{Allow, Allow}},
		{`{}`, []Decision{Ask, Allow}},
	} {
		r, err := Driver{Binary: bin}.Run(context.Background(), Session{Settings: c.settings + "\n", Files: files, Calls: calls})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) != len(calls) {
			t.Fatalf("%s: %d results for %d calls", c.settings, len(r.Results), len(calls))
		}
		for i, x := range r.Results {
			if x.Decision != c.want[i] {
				t.Errorf("%s: %s is %s (%q), want %s", c.settings, calls[i].Arg, x.Decision, clip(x.Text, 120), c.want[i])
			}
		}
	}
}
