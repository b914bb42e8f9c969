package gather

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// ApprovalSource is what the approval reads need: the pull request's
// standing approvals (each reviewer's latest review, when it approves),
// whether a user is an active member of a team, and the delta digest
// Shipgate's own completed run recorded at a commit ("" for none).
type ApprovalSource interface {
	StandingApprovals(ctx context.Context) ([]report.Review, error)
	IsMember(ctx context.Context, team, user string) (bool, error)
	DeltaAt(ctx context.Context, sha string) (string, error)
}

// Approvals reads what judge.Approve needs for a pull request by author
// at head under pol: every standing approval with the policy's teams its
// reviewer belongs to (block teams first) and, for one given on another
// commit, the delta recorded there. It asks nothing about the author's
// own approval, and reads no recorded delta for a reviewer in no team:
// one reviews listing, one membership question per reviewer and team
// (the source may cache them), one check-run listing per approval on an
// older commit. A front end calls it only when judge.NeedsApprovals says
// approvals could change the report.
func Approvals(ctx context.Context, src ApprovalSource, pol *policy.Policy, author, head string) (report.Approvals, error) {
	out := report.Approvals{Author: author, Head: head}
	if pol == nil {
		return out, nil
	}
	reviews, err := src.StandingApprovals(ctx)
	if err != nil {
		return out, err
	}
	for _, rv := range reviews {
		if rv.User == author {
			continue // an author cannot approve their own change
		}
		for _, team := range policy.Teams(pol.Reviewers.Block) {
			ok, err := src.IsMember(ctx, team, rv.User)
			if err != nil {
				return out, err
			}
			if ok {
				rv.Teams = append(rv.Teams, team)
				rv.ClearsAll = true
			}
		}
		for _, team := range policy.Teams(pol.Reviewers.Review) {
			ok, err := src.IsMember(ctx, team, rv.User)
			if err != nil {
				return out, err
			}
			if ok {
				rv.Teams = append(rv.Teams, team)
			}
		}
		if len(rv.Teams) == 0 {
			continue // not a reviewer the policy names
		}
		if rv.Commit != head {
			if rv.Recorded, err = src.DeltaAt(ctx, rv.Commit); err != nil {
				return out, err
			}
		}
		out.Reviews = append(out.Reviews, rv)
	}
	return out, nil
}

// MemberCache keeps team-membership answers between pull requests (the
// App's, with its own expiry); keys are "org/team|user", lowercase.
type MemberCache interface {
	Member(key string) (member, ok bool)
	SetMember(key string, member bool)
}

// GitHubApprovals is an ApprovalSource over GitHub's REST API for one pull
// request.
type GitHubApprovals struct {
	Client      *github.Client
	Owner, Repo string
	PR          int
	// CheckName is the check run whose summary records the delta; AppID,
	// when not 0, reads only that App's runs (another App may name a
	// check the same and write any summary).
	CheckName string
	AppID     int64
	// Members caches membership answers (may be nil).
	Members MemberCache
}

// StandingApprovals lists the pull request's reviews (paginated) and
// returns each reviewer whose latest approving, changes-requested or
// dismissed review approves — a later "changes requested" or a dismissal
// withdraws an approval — in the order reviewers first reviewed.
func (g *GitHubApprovals) StandingApprovals(ctx context.Context) ([]report.Review, error) {
	opts := &github.ListOptions{PerPage: 100}
	state := map[string]*github.PullRequestReview{}
	var order []string
	for {
		rs, resp, err := g.Client.PullRequests.ListReviews(ctx, g.Owner, g.Repo, g.PR, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the reviews of pull request #%d: %w", g.PR, err)
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
	var out []report.Review
	for _, u := range order {
		rv := state[u]
		if rv.GetState() != "APPROVED" {
			continue
		}
		out = append(out, report.Review{User: u, Commit: rv.GetCommitID(), At: rv.GetSubmittedAt().Time})
	}
	return out, nil
}

// IsMember asks GitHub whether user is an active member of team
// ("org/slug"), through the cache.
func (g *GitHubApprovals) IsMember(ctx context.Context, team, user string) (bool, error) {
	key := strings.ToLower(team + "|" + user)
	if g.Members != nil {
		if member, ok := g.Members.Member(key); ok {
			return member, nil
		}
	}
	org, slug, _ := strings.Cut(team, "/")
	m, _, err := g.Client.Teams.GetTeamMembershipBySlug(ctx, org, slug, user)
	member := false
	switch {
	case err == nil:
		member = m.GetState() == "active"
	case notFound(err):
	default:
		return false, fmt.Errorf("checking %s's membership of %s: %w", user, team, err)
	}
	if g.Members != nil {
		g.Members.SetMember(key, member)
	}
	return member, nil
}

// DeltaAt reads the delta digest Shipgate's completed run recorded for a
// commit ("" when there is none: an approval given before any run of
// Shipgate's, or on a run whose summary was cut, does not carry over).
func (g *GitHubApprovals) DeltaAt(ctx context.Context, sha string) (string, error) {
	if sha == "" {
		return "", nil
	}
	opts := &github.ListCheckRunsOptions{CheckName: github.String(g.CheckName), Status: github.String("completed")}
	if g.AppID != 0 {
		opts.AppID = github.Int64(g.AppID)
	}
	runs, _, err := g.Client.Checks.ListCheckRunsForRef(ctx, g.Owner, g.Repo, sha, opts)
	if err != nil {
		if notFound(err) {
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

// notFound is a 404 from the API.
func notFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}
