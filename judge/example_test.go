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

// Approvals are part of the judgement: the gatherer brings the standing
// approvals (with the policy's teams each reviewer is in and the delta
// recorded where they approved), and Approve clears what they cover.
func ExampleApprove() {
	in := report.Input{Files: []report.File{{
		Path: ".claude/settings.json",
		Base: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)"]}}`)},
		Head: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)", "Bash(npm run *)"]}}`)},
	}}}
	r := judge.Compare(in)
	const head = "0123456789abcdef0123456789abcdef01234567"
	res := judge.Approve(&r, report.Approvals{Author: "dev", Head: head, Reviews: []report.Review{
		{User: "dev", Commit: head, Teams: []string{"acme/security"}},   // the author: never counts
		{User: "alice", Commit: head, Teams: []string{"acme/security"}}, // a review team, at the head
	}})
	fmt.Println("decision:", r.Decision, "cleared:", res.Cleared, "by", r.Findings[0].Cleared)
	// Output:
	// decision: allow cleared: 1 by @alice
}
