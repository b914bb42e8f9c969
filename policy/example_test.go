package policy_test

import (
	"fmt"

	"github.com/shipgate-app/shipgate/policy"
)

// A repository's policy file: read strictly, then asked what a finding
// of a check gets and which paths are left alone.
func ExampleParse() {
	p, err := policy.Parse(".github/shipgate.yml", []byte(`version: 1
paths:
  ignore: ["examples/**"]
checks:
  SHIP-HOST-BOUNDARY-ENV-CHANGED:
    action: block
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.ActionFor("SHIP-HOST-BOUNDARY-ENV-CHANGED", policy.RequireReview))
	fmt.Println(p.ActionFor("SHIP-HOST-BOUNDARY-HOOK-CHANGED", policy.RequireReview))
	fmt.Println(p.Ignored("examples/demo/.claude/settings.json"), p.Ignored(".claude/settings.json"))
	// Output:
	// block
	// require_review
	// true false
}

// A mistake is an error with its file, line and column, and a hint.
func ExampleParse_error() {
	_, err := policy.Parse(".github/shipgate.yml", []byte("version: 1\npaths:\n  ingore: [\"x/**\"]\n"))
	fmt.Println(err)
	// Output:
	// .github/shipgate.yml:3:3: paths: unknown key "ingore" (known: ignore, watch); did you mean "ignore"?
}

// An organisation default and a repository file merge; the stricter of
// the two actions holds.
func ExampleMerge() {
	org, _ := policy.Parse("org", []byte("version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-ENV-CHANGED:\n    action: block\n"))
	repo, _ := policy.Parse("repo", []byte("version: 1\npaths:\n  ignore: [\"fixtures/**\"]\n"))
	p := policy.Merge(org, repo)
	fmt.Println(p.ActionFor("SHIP-HOST-BOUNDARY-ENV-CHANGED", policy.Advisory), p.Ignored("fixtures/a.json"))
	// Output:
	// block true
}
