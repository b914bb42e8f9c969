package conformance

import "testing"

// TestLeadingWildcardWitnessOnTheBinary: a Bash pattern with a leading *
// (Bash(*:--help)) is witnessed by a command before its literal tail
// (judge.leadingWildcardWords): Claude Code runs `bash -c whoami :--help`
// under the rule (whoami runs) and asks for it with no rule; the tail
// alone runs too, but runs no program.
func TestLeadingWildcardWitnessOnTheBinary(t *testing.T) {
	calls := []Call{{Tool: "Bash", Arg: "bash -c whoami :--help"}, {Tool: "Bash", Arg: "rm -rf build :--help"}, {Tool: "Bash", Arg: ":--help"}}
	runMeasuredRows(t, "leading-wildcard", calls, []measuredRow{
		{settings: Settings{Allow: []string{"Bash(*:--help)"}}, want: "AAA"},
		{settings: Settings{}, want: "QQQ"},
	})
}
