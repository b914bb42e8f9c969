package report

import "time"

// Review is one reviewer's standing approval of a pull request (their
// latest review approves), with what the gatherer read about it.
type Review struct {
	User   string
	Commit string // the commit the approval was given on
	At     time.Time
	// Teams are the policy's reviewer teams the user is an active member
	// of, its block teams first; ClearsAll says one of them is a block
	// team (reviewers.block).
	Teams     []string
	ClearsAll bool
	// Recorded is the delta digest Shipgate's own completed run recorded
	// at Commit (DeltaMarker), "" when none did. It is read only for a
	// reviewer in a team and a commit that is not the head.
	Recorded string
}

// Approvals is what the gatherer brings for the approval part of a
// judgement: the pull request's author (whose own approval never counts),
// its head, and the standing approvals.
type Approvals struct {
	Author  string
	Head    string
	Reviews []Review
}

// Approval is one review as the judgement counted it.
type Approval struct {
	Review
	// Void says why the approval no longer counts ("" when it does).
	Void string
}

// ApprovalResult is what approvals did to a report: the approvals that
// count or no longer do, the findings they cleared, and the delta digest
// they are bound to (what a completed run records: DeltaMarker).
type ApprovalResult struct {
	Approvals []Approval
	Cleared   int
	Digest    string
}

// ShortSHA is a commit's 8-character abbreviation (any other text as it is).
func ShortSHA(s string) string {
	if len(s) != 40 {
		return s
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return s
		}
	}
	return s[:8]
}
