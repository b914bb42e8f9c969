package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// deltaDigest names what a reviewer approves: the findings that hold the
// merge, by check, action and line-independent key. A push that changes
// them changes the digest (and voids approvals); a push that leaves them
// alone — a README edit, moved lines — keeps it.
func deltaDigest(r report.Report) string {
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

// approval is one reviewer's standing approval.
type approval struct {
	user      string
	commit    string
	at        time.Time
	teams     []string // the configured teams the reviewer belongs to
	clearsAll bool     // a member of a block team
	void      string   // why it no longer counts ("" when it does)
}

// approvalResult is what approvals did to a report.
type approvalResult struct {
	approvals []approval
	cleared   int
	digest    string
}

// applyApprovals clears the findings approved reviews cover. It reads the
// reviews of the pull request (the latest state of each reviewer counts:
// a later "changes requested" or a dismissal withdraws an approval),
// ignores the author's own, checks team membership through GitHub, and
// binds each approval to the delta digest of the commit it was given on.
// Cleared findings stay in the report, marked; the decision is recomputed.
func (p *Worker) applyApprovals(ctx context.Context, cl *github.Client, ev *evaluation, r *report.Report) (approvalResult, error) {
	res := approvalResult{digest: deltaDigest(*r)}
	pol := ev.policy
	if pol == nil || (len(pol.Reviewers.Review) == 0 && len(pol.Reviewers.Block) == 0) {
		return res, nil
	}
	blocking := false
	for _, f := range r.Findings {
		if f.Blocking() {
			blocking = true
		}
	}
	if !blocking {
		return res, nil
	}
	reviews, err := p.latestReviews(ctx, cl, ev)
	if err != nil {
		return res, err
	}
	author := ev.pr.GetUser().GetLogin()
	for _, rv := range reviews {
		if rv.user == author {
			continue // an author cannot approve their own change
		}
		a := rv
		for _, team := range policy.Teams(pol.Reviewers.Block) {
			ok, err := p.isMember(ctx, cl, team, a.user)
			if err != nil {
				return res, err
			}
			if ok {
				a.teams = append(a.teams, team)
				a.clearsAll = true
			}
		}
		for _, team := range policy.Teams(pol.Reviewers.Review) {
			ok, err := p.isMember(ctx, cl, team, a.user)
			if err != nil {
				return res, err
			}
			if ok {
				a.teams = append(a.teams, team)
			}
		}
		if len(a.teams) == 0 {
			continue // not a reviewer the policy names
		}
		if a.commit != ev.head {
			d, err := p.digestAt(ctx, cl, ev, a.commit)
			if err != nil {
				return res, err
			}
			switch {
			case d == "":
				a.void = fmt.Sprintf("no completed Shipgate check at %s records which permission changes were approved (the approval came before the check finished there, or its summary was cut)", shortSHA(a.commit))
			case d != res.digest:
				a.void = fmt.Sprintf("the permission changes differ from those approved at %s", shortSHA(a.commit))
			}
		}
		res.approvals = append(res.approvals, a)
	}
	clearAll, clearReview := false, false
	for _, a := range res.approvals {
		if a.void != "" {
			continue
		}
		clearReview = true
		if a.clearsAll {
			clearAll = true
		}
	}
	for i, f := range r.Findings {
		switch {
		case f.Action == policy.Block && clearAll, f.Action == policy.RequireReview && (clearAll || clearReview):
			r.Findings[i].Cleared = approvers(res.approvals, f.Action == policy.Block)
			res.cleared++
		}
	}
	r.Decision = report.Decide(r.Findings)
	return res, nil
}

// approvers names the valid approvals that clear a finding.
func approvers(as []approval, block bool) string {
	var names []string
	for _, a := range as {
		if a.void == "" && (!block || a.clearsAll) {
			names = append(names, "@"+a.user)
		}
	}
	return strings.Join(names, ", ")
}

// latestReviews returns each reviewer's standing approval, in order.
func (p *Worker) latestReviews(ctx context.Context, cl *github.Client, ev *evaluation) ([]approval, error) {
	opts := &github.ListOptions{PerPage: 100}
	state := map[string]*github.PullRequestReview{}
	var order []string
	for {
		rs, resp, err := cl.PullRequests.ListReviews(ctx, ev.owner, ev.repo, ev.pr.GetNumber(), opts)
		if err != nil {
			return nil, fmt.Errorf("listing the reviews of pull request #%d: %w", ev.pr.GetNumber(), err)
		}
		for _, rv := range rs {
			user := rv.GetUser().GetLogin()
			switch rv.GetState() {
			case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
				if _, seen := state[user]; !seen {
					order = append(order, user)
				}
				state[user] = rv
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	var out []approval
	for _, u := range order {
		rv := state[u]
		if rv.GetState() != "APPROVED" {
			continue
		}
		out = append(out, approval{user: u, commit: rv.GetCommitID(), at: rv.GetSubmittedAt().Time})
	}
	return out, nil
}

// memberTTL is how long a team-membership answer is trusted.
const memberTTL = 5 * time.Minute

// isMember asks GitHub whether a user is an active member of org/team,
// caching the answer briefly.
func (p *Worker) isMember(ctx context.Context, cl *github.Client, team, user string) (bool, error) {
	key := strings.ToLower(team + "|" + user)
	p.memberMu.Lock()
	e, ok := p.members[key]
	p.memberMu.Unlock()
	if ok && p.cfg.Now().Sub(e.at) < memberTTL {
		return e.member, nil
	}
	org, slug, _ := strings.Cut(team, "/")
	m, _, err := cl.Teams.GetTeamMembershipBySlug(ctx, org, slug, user)
	member := false
	switch {
	case err == nil:
		member = m.GetState() == "active"
	case isNotFound(err):
	default:
		return false, fmt.Errorf("checking %s's membership of %s: %w", user, team, err)
	}
	p.memberMu.Lock()
	p.members[key] = memberEntry{member: member, at: p.cfg.Now()}
	p.memberMu.Unlock()
	return member, nil
}

type memberEntry struct {
	member bool
	at     time.Time
}

// digestAt reads the delta digest our completed run recorded for a
// commit ("" when there is none: an approval given before any run of
// ours, or on a run whose summary was cut, does not carry over).
func (p *Worker) digestAt(ctx context.Context, cl *github.Client, ev *evaluation, sha string) (string, error) {
	if sha == "" {
		return "", nil
	}
	opts := &github.ListCheckRunsOptions{CheckName: github.String(p.cfg.CheckName), Status: github.String("completed")}
	if p.clients != nil {
		// Only our own runs record a delta: another App may name a check
		// "shipgate" and write any summary.
		opts.AppID = github.Int64(p.clients.appID)
	}
	runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, ev.owner, ev.repo, sha, opts)
	if err != nil {
		if isNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("reading the check runs of %s: %w", shortSHA(sha), err)
	}
	for _, run := range runs.CheckRuns {
		if d := report.ParseMarkers(run.GetOutput().GetSummary()).Delta; d != nil {
			return d.Digest, nil
		}
	}
	return "", nil
}

// approvalSummary words the approvals for the check summary.
func approvalSummary(res approvalResult) string {
	if len(res.approvals) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**Approvals**\n\n")
	for _, a := range res.approvals {
		what := "clears the findings that require review"
		if a.clearsAll {
			what = "clears every finding, blocking ones included"
		}
		fmt.Fprintf(&b, "- @%s (%s) approved at `%s` on %s: ", a.user, strings.Join(a.teams, ", "), shortSHA(a.commit), a.at.UTC().Format("2006-01-02 15:04 UTC"))
		if a.void != "" {
			fmt.Fprintf(&b, "**no longer counts**: %s. A new approval is needed.\n", a.void)
		} else {
			fmt.Fprintf(&b, "%s.\n", what)
		}
	}
	fmt.Fprintf(&b, "\nDelta approved: `sha256:%s`.\n\n", res.digest[:16])
	return b.String()
}
