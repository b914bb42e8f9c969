package githubtest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// maxPullFiles is GitHub's cap on a pull request's file list.
const maxPullFiles = 3000

// getRepo serves GET /repos/{owner}/{repo}.
func (s *Server) getRepo(c *call) (int, any, *apiError) {
	r, e := c.repoFor("metadata", "read")
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, s.repoJSON(r, c.base, true), nil
}

// pullFor resolves {pull_number} in a repository the caller may read.
func (c *call) pullFor() (*pullRequest, *apiError) {
	r, e := c.repoFor("pull_requests", "read")
	if e != nil {
		return nil, e
	}
	n, err := strconv.Atoi(c.param("pull_number"))
	if err != nil || r.pulls[n] == nil {
		return nil, errNotFound(c.rt.doc)
	}
	return r.pulls[n], nil
}

// listPulls serves GET /repos/{owner}/{repo}/pulls with GitHub's filters:
// state (open, closed, all), head (owner:branch), base, sort (created,
// updated) and direction.
func (s *Server) listPulls(c *call) (int, any, *apiError) {
	r, e := c.repoFor("pull_requests", "read")
	if e != nil {
		return 0, nil, e
	}
	state := c.query("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		return 0, nil, errValidation(c.rt.doc, fieldError{Resource: "Issue", Field: "state", Code: "invalid"})
	}
	headOwner, headRef, hasHead := strings.Cut(c.query("head"), ":")
	if !hasHead {
		headOwner, headRef = "", c.query("head")
	}
	var list []*pullRequest
	for _, pr := range r.pulls {
		if state != "all" && pr.state != state {
			continue
		}
		if b := c.query("base"); b != "" && pr.baseRef != b {
			continue
		}
		if headRef != "" && (pr.headRef != headRef || (headOwner != "" && !strings.EqualFold(pr.headRepo.owner.login, headOwner))) {
			continue
		}
		list = append(list, pr)
	}
	sortKey := c.query("sort")
	dir := c.query("direction")
	desc := dir == "desc" || (dir == "" && (sortKey == "" || sortKey == "created"))
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		less := a.number < b.number
		if sortKey == "updated" && !a.updatedAt.Equal(b.updatedAt) {
			less = a.updatedAt.Before(b.updatedAt)
		}
		if desc {
			return !less
		}
		return less
	})
	start, end := c.paginate(len(list))
	out := make([]any, 0, end-start)
	for _, pr := range list[start:end] {
		out = append(out, s.prJSON(pr, c.base, false))
	}
	return http.StatusOK, out, nil
}

// getPull serves GET /repos/{owner}/{repo}/pulls/{pull_number}.
func (s *Server) getPull(c *call) (int, any, *apiError) {
	pr, e := c.pullFor()
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, s.prJSON(pr, c.base, true), nil
}

// listPullFiles serves GET /repos/{owner}/{repo}/pulls/{pull_number}/files:
// at most 3,000 files, 30 a page by default, 100 at most.
func (s *Server) listPullFiles(c *call) (int, any, *apiError) {
	pr, e := c.pullFor()
	if e != nil {
		return 0, nil, e
	}
	files := s.prFiles(pr)
	if len(files) > maxPullFiles {
		files = files[:maxPullFiles]
	}
	start, end := c.paginate(len(files))
	out := make([]any, 0, end-start)
	for _, f := range files[start:end] {
		out = append(out, s.diffEntryJSON(pr.repo, pr.headSHA, f, c.base))
	}
	return http.StatusOK, out, nil
}

// listReviews serves GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews,
// oldest first.
func (s *Server) listReviews(c *call) (int, any, *apiError) {
	pr, e := c.pullFor()
	if e != nil {
		return 0, nil, e
	}
	start, end := c.paginate(len(pr.reviews))
	out := make([]any, 0, end-start)
	for _, rv := range pr.reviews[start:end] {
		out = append(out, s.reviewJSON(pr, rv, c.base))
	}
	return http.StatusOK, out, nil
}

// getTeamMembership serves GET /orgs/{org}/teams/{team_slug}/memberships/{username}.
// An installation token sees only its own organisation's teams, and needs
// the members permission.
func (s *Server) getTeamMembership(c *call) (int, any, *apiError) {
	org := c.param("org")
	if c.who.kind == callerAnonymous {
		return 0, nil, errNotFound(c.rt.doc)
	}
	if c.who.kind == callerToken {
		if !strings.EqualFold(c.who.inst.account.login, org) {
			return 0, nil, errNotFound(c.rt.doc)
		}
		if permLevel(c.who.token.permissions["members"]) < 1 {
			return 0, nil, errNotAccessible(c.rt.doc)
		}
	}
	t := s.st.team(org, c.param("team_slug"))
	if t == nil {
		return 0, nil, errNotFound(c.rt.doc)
	}
	m := t.members[strings.ToLower(c.param("username"))]
	if m == nil {
		return 0, nil, errNotFound(c.rt.doc)
	}
	return http.StatusOK, map[string]any{
		"url":   c.base + "/organizations/" + strconv.FormatInt(t.org.id, 10) + "/team/" + strconv.FormatInt(t.id, 10) + "/memberships/" + m.user.login,
		"role":  m.role,
		"state": m.state,
	}, nil
}
