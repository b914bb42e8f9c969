package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/gather"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/report"
)

// approve applies approvals to a judged report. Only when they could
// change it (judge.NeedsApprovals: the policy names reviewer teams and a
// finding holds the merge) does the gatherer read the reviews, the
// reviewers' team membership and the deltas recorded at the commits they
// approved (gather.Approvals), and the engine decide with them
// (judge.Approve); otherwise nothing is read and the result names the
// delta only.
func (p *Worker) approve(ctx context.Context, cl *github.Client, ev *evaluation, r *report.Report) (report.ApprovalResult, error) {
	if !judge.NeedsApprovals(*r, ev.policy) {
		return report.ApprovalResult{Digest: judge.DeltaDigest(*r)}, nil
	}
	src := &gather.GitHubApprovals{Client: cl, Owner: ev.owner, Repo: ev.repo, PR: ev.pr.GetNumber(),
		CheckName: p.cfg.CheckName, Members: memberCache{p}}
	if p.clients != nil {
		src.AppID = p.clients.appID // only our own runs record a delta
	}
	in, err := gather.Approvals(ctx, src, ev.policy, ev.pr.GetUser().GetLogin(), ev.head)
	if err != nil {
		return report.ApprovalResult{Digest: judge.DeltaDigest(*r)}, err
	}
	return judge.Approve(r, in), nil
}

// memberTTL is how long a team-membership answer is trusted.
const memberTTL = 5 * time.Minute

// memberCache is the worker's cache of team-membership answers, shared by
// its jobs (gather.MemberCache).
type memberCache struct{ p *Worker }

func (c memberCache) Member(key string) (member, ok bool) {
	c.p.memberMu.Lock()
	e, ok := c.p.members[key]
	c.p.memberMu.Unlock()
	if !ok || c.p.cfg.Now().Sub(e.at) >= memberTTL {
		return false, false
	}
	return e.member, true
}

func (c memberCache) SetMember(key string, member bool) {
	c.p.memberMu.Lock()
	c.p.members[key] = memberEntry{member: member, at: c.p.cfg.Now()}
	c.p.memberMu.Unlock()
}

type memberEntry struct {
	member bool
	at     time.Time
}

// approvalSummary words the approvals for the check summary.
func approvalSummary(res report.ApprovalResult) string {
	if len(res.Approvals) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**Approvals**\n\n")
	for _, a := range res.Approvals {
		what := "clears the findings that require review"
		if a.ClearsAll {
			what = "clears every finding, blocking ones included"
		}
		fmt.Fprintf(&b, "- @%s (%s) approved at `%s` on %s: ", a.User, strings.Join(a.Teams, ", "), shortSHA(a.Commit), a.At.UTC().Format("2006-01-02 15:04 UTC"))
		if a.Void != "" {
			fmt.Fprintf(&b, "**no longer counts**: %s. A new approval is needed.\n", a.Void)
		} else {
			fmt.Fprintf(&b, "%s.\n", what)
		}
	}
	fmt.Fprintf(&b, "\nDelta approved: `sha256:%s`.\n\n", res.Digest[:16])
	return b.String()
}
