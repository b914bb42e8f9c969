package conformance

import "testing"

// TestSedWitnessOnTheBinary measures the witness Shipgate prints for
// Bash(sed:*) (lattice exampleCalls): `sed -i s/a/b/ .env` asks with no
// rule ("sed in '…/.env' needs approval") and runs under the rule, so it
// is a call the rule newly lets run; `sed -n p` runs either way. The
// engine's effective view is held to each decision (runMeasuredRows).
func TestSedWitnessOnTheBinary(t *testing.T) {
	calls := []Call{{Tool: "Bash", Arg: "sed -i s/a/b/ .env"}, {Tool: "Bash", Arg: "sed -n p x.txt"}}
	runMeasuredRows(t, "sed-witness", calls, []measuredRow{
		{settings: Settings{Allow: []string{"Bash(sed:*)"}}, want: "AA"},
		{settings: Settings{}, want: "QA"},
	})
}
