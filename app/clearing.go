package app

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// DocsURL is where the check catalogue lives: a run's details link opens
// the section of the check that decided it (each check ID is an anchor).
const DocsURL = "https://github.com/shipgate-app/shipgate/blob/main/docs/checks.md"

// clearing says, under the table of what changed, exactly what clears the
// run:
// the reviewer teams the policy names for the findings that hold the merge
// (reviewers.block for blocking ones, reviewers.review or block for the
// rest), the exact delta an approval is bound to, or — when no team is
// configured — that nothing Shipgate reads clears it and a maintainer must
// merge past it. Empty when the run passes without approvals.
func clearing(ev *evaluation, r report.Report, approvals report.ApprovalResult, policyPath string) string {
	var blocks, reviews int
	for _, f := range r.Findings {
		if f.Cleared != "" {
			continue
		}
		switch f.Action {
		case policy.Block:
			blocks++
		case policy.RequireReview:
			reviews++
		}
	}
	digest := "`sha256:" + approvals.Digest[:min(16, len(approvals.Digest))] + "`"
	if blocks == 0 && reviews == 0 {
		if approvals.Cleared > 0 {
			return fmt.Sprintf("**Cleared** by an approving review for this exact delta (%s).\n\n", digest)
		}
		return ""
	}
	var review, block []string
	if ev.policy != nil {
		review, block = policy.Teams(ev.policy.Reviewers.Review), policy.Teams(ev.policy.Reviewers.Block)
	}
	teams := func(ts []string) string {
		q := make([]string, len(ts))
		for i, t := range ts {
			q[i] = "`@" + t + "`"
		}
		return strings.Join(q, " or ")
	}
	var b strings.Builder
	b.WriteString("**To clear this run:** ")
	switch {
	case blocks > 0 && len(block) > 0:
		fmt.Fprintf(&b, "an approving review at this commit from a member of %s (the policy's `reviewers.block` teams", teams(block))
		if len(review) > 0 {
			fmt.Fprintf(&b, "; %s can clear only the findings that require review", teams(review))
		}
		b.WriteString(").")
	case blocks > 0:
		if len(review) > 0 {
			fmt.Fprintf(&b, "change the files so that nothing in the table blocks, or a maintainer merges past the check: no review clears a blocking finding (the policy names no `reviewers.block` team; %s can clear only the findings that require review).", teams(review))
		} else {
			fmt.Fprintf(&b, "change the files so that nothing in the table is flagged, or a maintainer merges past the check: no review clears it, because no reviewer team is configured (`reviewers` in `%s`).", policyPath)
		}
	case len(review)+len(block) > 0:
		fmt.Fprintf(&b, "an approving review at this commit from a member of %s (the policy's reviewer teams).", teams(append(append([]string(nil), review...), block...)))
	default:
		fmt.Fprintf(&b, "change the files so that nothing in the table is flagged, or a maintainer merges past the check: no review clears it, because no reviewer team is configured (`reviewers` in `%s`).", policyPath)
	}
	if r.SuggestionsClear() {
		if len(r.Suggestions) == 1 {
			b.WriteString(" Or apply the suggested rule below (a review comment on its line): it restores what the base allowed, which clears every finding that holds the merge.")
		} else {
			b.WriteString(" Or apply the suggested rules below (review comments on their lines): they restore what the base allowed, which clears every finding that holds the merge.")
		}
	}
	if len(review)+len(block) > 0 {
		fmt.Fprintf(&b, "\n<sub>An approval is bound to this exact delta, %s: a digest of the permission changes above. A push that changes them voids it; one that leaves them alone keeps it. The pull request's author cannot approve their own change.</sub>", digest)
	}
	b.WriteString("\n\n")
	return b.String()
}

// detailsURL is the link "Details" opens on the check: the catalogue's
// section of the strongest finding that holds the merge (the first in the
// report's order), else of the strongest finding, else the pull request.
func detailsURL(ev *evaluation, r *report.Report) *string {
	if r != nil {
		for _, f := range r.Findings {
			if f.Cleared == "" && f.Blocking() {
				return checkDocs(f.CheckID)
			}
		}
		if len(r.Findings) > 0 {
			return checkDocs(r.Findings[0].CheckID)
		}
	}
	if u := ev.pr.GetHTMLURL(); u != "" {
		return &u
	}
	return nil
}

func checkDocs(id string) *string {
	u := DocsURL + "#" + strings.ToLower(id)
	return &u
}
