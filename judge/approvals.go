package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// DeltaDigest names what a reviewer approves: the findings that hold the
// merge, by check, action and line-independent key. A push that changes
// them changes the digest (and voids approvals); a push that leaves them
// alone — a README edit, moved lines — keeps it.
func DeltaDigest(r report.Report) string {
	var keys []string
	for _, f := range r.Findings {
		if f.Blocking() {
			keys = append(keys, f.CheckID+"|"+string(f.Action)+"|"+f.Key)
		}
	}
	sort.Strings(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\n")))
	return hex.EncodeToString(sum[:])
}

// NeedsApprovals reports whether approvals could change a report: the
// policy names reviewer teams and a finding holds the merge. Only then
// are reviews worth reading (a front end gathers them, then calls Approve).
func NeedsApprovals(r report.Report, pol *policy.Policy) bool {
	if pol == nil || (len(pol.Reviewers.Review) == 0 && len(pol.Reviewers.Block) == 0) {
		return false
	}
	for _, f := range r.Findings {
		if f.Blocking() {
			return true
		}
	}
	return false
}

// Approve clears the findings that approvals cover and decides again. An
// approval counts when its reviewer is not the author, is in a team the
// policy names (Review.Teams), and was given at the head or at a commit
// whose recorded delta is the report's (DeltaDigest): the same changes.
// A block team's approval clears every finding, a review team's those that
// require review. Cleared findings stay in the report, marked with who
// cleared them. Approve is pure: the reviews, team memberships and
// recorded deltas are the gatherer's.
func Approve(r *report.Report, in report.Approvals) report.ApprovalResult {
	res := report.ApprovalResult{Digest: DeltaDigest(*r)}
	for _, rv := range in.Reviews {
		if rv.User == in.Author || len(rv.Teams) == 0 {
			continue // the author cannot approve their own change; nor can someone in no team
		}
		a := report.Approval{Review: rv}
		if rv.Commit != in.Head {
			switch {
			case rv.Recorded == "":
				a.Void = fmt.Sprintf("no completed Shipgate check at %s records which permission changes were approved (the approval came before the check finished there, or its summary was cut)", report.ShortSHA(rv.Commit))
			case rv.Recorded != res.Digest:
				a.Void = fmt.Sprintf("the permission changes differ from those approved at %s", report.ShortSHA(rv.Commit))
			}
		}
		res.Approvals = append(res.Approvals, a)
	}
	clearAll, clearReview := false, false
	for _, a := range res.Approvals {
		if a.Void != "" {
			continue
		}
		clearReview = true
		if a.ClearsAll {
			clearAll = true
		}
	}
	for i, f := range r.Findings {
		switch {
		case f.Action == policy.Block && clearAll, f.Action == policy.RequireReview && (clearAll || clearReview):
			r.Findings[i].Cleared = approvers(res.Approvals, f.Action == policy.Block)
			res.Cleared++
		}
	}
	r.Decision = report.Decide(r.Findings)
	return res
}

// approvers names the valid approvals that clear a finding.
func approvers(as []report.Approval, block bool) string {
	var names []string
	for _, a := range as {
		if a.Void == "" && (!block || a.ClearsAll) {
			names = append(names, "@"+a.User)
		}
	}
	return strings.Join(names, ", ")
}
