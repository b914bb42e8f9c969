package judge_test

import (
	"fmt"

	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/report"
)

// The engine judges one change to an agent's files: the base and head
// versions in, a Report out — pure, no network, clock or file system.
func ExampleCompare() {
	in := report.Input{Files: []report.File{{
		Path: ".claude/settings.json",
		Base: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)"]}}`)},
		Head: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)", "Bash(npm run *)"]}}`)},
	}}}
	r := judge.Compare(in)
	fmt.Println("decision:", r.Decision)
	for _, c := range r.Changes {
		fmt.Printf("%s %s %q expands=%v\n", c.Kind, c.Direction, c.After, c.Expands)
	}
	for _, f := range r.Findings {
		fmt.Println(f.CheckID, f.Action)
	}
	// Output:
	// decision: require_review
	// permission_rule added "Bash(npm run *)" expands=true
	// SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED require_review
}
