package lattice

import "testing"

// TestPlanStripped holds PlanStripped to the allow rules Claude Code sets
// aside in plan mode. The rows marked measured ran on ClaudeCodeVersion
// (internal/conformance TestPlanModeStripsBroadAllows: a call the rule
// matches went to the classifier, or ran); the others follow the bundle's
// predicate as read.
func TestPlanStripped(t *testing.T) {
	for _, c := range []struct {
		rule     string
		stripped bool
		measured bool
	}{
		{"Bash", true, true},
		{"Bash(*)", true, true},
		{"Bash(**)", true, true},
		{"Bash(* *)", true, true},
		{"Bash( * )", true, false},
		{"Bash(python3 *)", true, true},
		{"Bash(python:*)", true, true},
		{"Bash(python3.11 *)", true, false},
		{"Bash(node *)", true, true},
		{"Bash(npm run *)", true, true},
		{"Bash(npm run build:*)", false, true},
		{"Bash(npx *)", true, true},
		{"Bash(env *)", true, true},
		{"Bash(sudo *)", true, true},
		{"Bash(bash *)", true, true},
		{"Bash(python3 -m pytest *)", true, true},
		{"Bash(python3 -m http.server *)", false, false},
		{"Bash(python3 -c *)", true, false},
		{"Bash(n*)", true, true},
		{"Bash(* --version)", true, true},
		{"Bash(timeout 5 python *)", true, false},
		{"Bash(./*)", true, false},
		{"Bash(/usr/bin/*)", true, false},
		{"Bash(bash -c *)", true, false},
		{"Bash(git *)", false, true},
		{"Bash(npm *)", false, true},
		{"Bash(npm:*)", false, false},
		{"Bash(curl *)", false, true},
		{"Bash(make *)", false, true},
		{"Bash(git push)", false, false},
		{"Bash(python3 x.py)", false, false},
		{"Bash(python3)", true, false},
		{"Agent", true, true},
		{"Agent(Explore)", true, false},
		{"Task", true, false},
		{"Monitor", true, false},
		{"Read", false, false},
		{"Edit(**)", false, false},
		{"WebFetch", false, false},
		{"PowerShell", true, false},
		{"PowerShell(*)", true, false},
		{"PowerShell(iex *)", true, false},
		{"PowerShell(Get-ChildItem *)", false, false},
	} {
		if got := PlanStripped(ParseIn(Allow, c.rule)); got != c.stripped {
			t.Errorf("PlanStripped(%s) = %v, want %v (measured: %v)", c.rule, got, c.stripped, c.measured)
		}
	}
	for _, l := range []List{Deny, Ask} {
		if PlanStripped(ParseIn(l, "Bash(*)")) {
			t.Errorf("a %s rule is stripped", l)
		}
	}
}
