package githubtest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
)

// getApp serves GET /app (JWT).
func (s *Server) getApp(c *call) (int, any, *apiError) {
	return http.StatusOK, s.appJSON(c.who.app, c.base), nil
}

// listInstallations serves GET /app/installations (JWT), paginated.
func (s *Server) listInstallations(c *call) (int, any, *apiError) {
	var mine []*installation
	for _, in := range s.st.sortedInstallations() {
		if in.app == c.who.app {
			mine = append(mine, in)
		}
	}
	start, end := c.paginate(len(mine))
	out := make([]any, 0, end-start)
	for _, in := range mine[start:end] {
		out = append(out, s.installationJSON(in, c.base))
	}
	return http.StatusOK, out, nil
}

// getRepoInstallation serves GET /repos/{owner}/{repo}/installation (JWT):
// the calling app's installation that covers the repository, or 404.
func (s *Server) getRepoInstallation(c *call) (int, any, *apiError) {
	r := s.st.repo(c.param("owner"), c.param("repo"))
	if r == nil {
		return 0, nil, errNotFound(c.rt.doc)
	}
	in := s.st.installationFor(c.who.app, r)
	if in == nil {
		return 0, nil, errNotFound(c.rt.doc)
	}
	return http.StatusOK, s.installationJSON(in, c.base), nil
}

// createAccessToken serves POST /app/installations/{installation_id}/access_tokens
// (JWT): a one-hour token, optionally narrowed by `repositories`,
// `repository_ids` and `permissions` to a subset of the installation's.
func (s *Server) createAccessToken(c *call) (int, any, *apiError) {
	id, err := strconv.ParseInt(c.param("installation_id"), 10, 64)
	in := s.st.installations[id]
	if err != nil || in == nil || in.app != c.who.app {
		return 0, nil, errNotFound(c.rt.doc)
	}
	m, e := c.decodeBody()
	if e != nil {
		return 0, nil, e
	}
	var req struct {
		Repositories  []string          `json:"repositories"`
		RepositoryIDs []int64           `json:"repository_ids"`
		Permissions   map[string]string `json:"permissions"`
	}
	raw, _ := json.Marshal(m)
	if err := json.Unmarshal(raw, &req); err != nil {
		return 0, nil, errInvalidRequest(c.rt.doc, []string{"The request body does not match the schema: " + err.Error()})
	}
	var repoIDs map[int64]bool
	var scoped []*repository
	notAccessible := errUnprocessable(c.rt.doc, "There is at least one repository that does not exist or is not accessible to the parent installation.")
	if req.Repositories != nil || req.RepositoryIDs != nil {
		repoIDs = map[int64]bool{}
		for _, name := range req.Repositories {
			r := s.st.repo(in.account.login, name)
			if r == nil || !in.covers(r) {
				return 0, nil, notAccessible
			}
			if !repoIDs[r.id] {
				repoIDs[r.id] = true
				scoped = append(scoped, r)
			}
		}
		for _, rid := range req.RepositoryIDs {
			r := s.st.reposByID[rid]
			if r == nil || !in.covers(r) {
				return 0, nil, notAccessible
			}
			if !repoIDs[r.id] {
				repoIDs[r.id] = true
				scoped = append(scoped, r)
			}
		}
	}
	perms := copyPerms(in.permissions)
	if req.Permissions != nil {
		perms = map[string]string{}
		for k, v := range req.Permissions {
			if permLevel(v) == 0 || permLevel(in.permissions[k]) < permLevel(v) {
				return 0, nil, errUnprocessable(c.rt.doc, "The permissions requested are not granted to this installation.")
			}
			perms[k] = v
		}
	}
	t, err := s.mintToken(in, repoIDs, perms)
	if err != nil {
		return 0, nil, &apiError{status: http.StatusInternalServerError, message: err.Error(), docURL: c.rt.doc}
	}
	selection := in.selection
	if repoIDs != nil {
		selection = "selected"
	}
	out := map[string]any{
		"token":                t.value,
		"expires_at":           ts(t.expires),
		"permissions":          copyPerms(perms),
		"repository_selection": selection,
	}
	if repoIDs != nil {
		list := make([]any, 0, len(scoped))
		for _, r := range scoped {
			list = append(list, s.repoJSON(r, c.base, false))
		}
		out["repositories"] = list
	}
	return http.StatusCreated, out, nil
}

// listInstallationRepos serves GET /installation/repositories: the
// repositories an installation token reaches, paginated (what an App lists
// to re-evaluate every repository of an organisation).
func (s *Server) listInstallationRepos(c *call) (int, any, *apiError) {
	if c.who.kind != callerToken {
		return 0, nil, &apiError{status: http.StatusUnauthorized, message: "Requires authentication", docURL: c.rt.doc}
	}
	in := c.who.inst
	names := make([]string, 0, len(s.st.repos))
	for k := range s.st.repos {
		names = append(names, k)
	}
	sort.Strings(names)
	var reach []*repository
	for _, k := range names {
		r := s.st.repos[k]
		if !in.covers(r) {
			continue
		}
		if c.who.token != nil && c.who.token.repoIDs != nil && !c.who.token.repoIDs[r.id] {
			continue
		}
		reach = append(reach, r)
	}
	start, end := c.paginate(len(reach))
	repos := make([]any, 0, end-start)
	for _, r := range reach[start:end] {
		repos = append(repos, s.repoJSON(r, c.base, false))
	}
	return http.StatusOK, map[string]any{"total_count": len(reach), "repository_selection": in.selection, "repositories": repos}, nil
}
