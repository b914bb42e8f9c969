package githubtest

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// createCheckRun serves POST /repos/{owner}/{repo}/check-runs. Only an
// installation token may create runs; the run belongs to its app.
func (s *Server) createCheckRun(c *call) (int, any, *apiError) {
	r, e := c.repoFor("checks", "write")
	if e != nil {
		return 0, nil, e
	}
	m, e := c.decodeBody()
	if e != nil {
		return 0, nil, e
	}
	in, e := parseCheckRunBody(m, true, c.rt.doc)
	if e != nil {
		return 0, nil, e
	}
	sha := strings.ToLower(*in.headSHA)
	if !r.known[sha] {
		return 0, nil, errUnprocessable(c.rt.doc, "No commit found for SHA: "+*in.headSHA,
			fieldError{Resource: "CheckRun", Field: "head_sha", Code: "invalid"})
	}
	now := s.now()
	cr := &checkRun{
		id:             s.st.next("run"),
		repo:           r,
		app:            c.who.app,
		installationID: c.who.inst.id,
		suite:          s.st.suiteFor(r, c.who.app, sha, now),
		headSHA:        sha,
		status:         "queued",
		startedAt:      now,
	}
	in.headSHA = nil
	cr.apply(in, now)
	s.st.runs[cr.id] = cr
	return http.StatusCreated, s.checkRunJSON(cr, c.base), nil
}

// runFor resolves {check_run_id} within the request's repository.
func (c *call) runFor(level string) (*checkRun, *apiError) {
	r, e := c.repoFor("checks", level)
	if e != nil {
		return nil, e
	}
	id, err := strconv.ParseInt(c.param("check_run_id"), 10, 64)
	cr := c.s.st.runs[id]
	if err != nil || cr == nil || cr.repo != r {
		return nil, errNotFound(c.rt.doc)
	}
	return cr, nil
}

// updateCheckRun serves PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}:
// title, summary and text replace; annotations append.
func (s *Server) updateCheckRun(c *call) (int, any, *apiError) {
	cr, e := c.runFor("write")
	if e != nil {
		return 0, nil, e
	}
	if cr.app != c.who.app {
		return 0, nil, &apiError{status: http.StatusForbidden, docURL: c.rt.doc,
			message: fmt.Sprintf("Invalid app_id `%d` - check run can only be modified by the GitHub App that created it.", c.who.app.id)}
	}
	m, e := c.decodeBody()
	if e != nil {
		return 0, nil, e
	}
	in, e := parseCheckRunBody(m, false, c.rt.doc)
	if e != nil {
		return 0, nil, e
	}
	cr.apply(in, s.now())
	return http.StatusOK, s.checkRunJSON(cr, c.base), nil
}

// getCheckRun serves GET /repos/{owner}/{repo}/check-runs/{check_run_id}.
func (s *Server) getCheckRun(c *call) (int, any, *apiError) {
	cr, e := c.runFor("read")
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, s.checkRunJSON(cr, c.base), nil
}

// listAnnotations serves GET …/check-runs/{check_run_id}/annotations,
// paginated.
func (s *Server) listAnnotations(c *call) (int, any, *apiError) {
	cr, e := c.runFor("read")
	if e != nil {
		return 0, nil, e
	}
	start, end := c.paginate(len(cr.annotations))
	out := make([]any, 0, end-start)
	for _, a := range cr.annotations[start:end] {
		out = append(out, s.annotationJSON(cr, a))
	}
	return http.StatusOK, out, nil
}

// listCheckRunsForRef serves GET /repos/{owner}/{repo}/commits/{ref}/check-runs
// with check_name, status, app_id and filter (latest, the default, keeps
// the newest run of each name per app; all keeps every run), newest first.
func (s *Server) listCheckRunsForRef(c *call) (int, any, *apiError) {
	r, e := c.repoFor("checks", "read")
	if e != nil {
		return 0, nil, e
	}
	ref := c.param("ref")
	sha, ok := s.st.resolveRef(r, ref)
	if !ok {
		return 0, nil, errUnprocessable(c.rt.doc, "No commit found for SHA: "+ref)
	}
	filter := c.query("filter")
	if filter == "" {
		filter = "latest"
	}
	if filter != "latest" && filter != "all" {
		return 0, nil, errValidation(c.rt.doc, fieldError{Resource: "CheckRun", Field: "filter", Code: "invalid"})
	}
	appID, _ := strconv.ParseInt(c.query("app_id"), 10, 64)
	runs := s.sortedRuns()
	sort.Slice(runs, func(i, j int) bool { return runs[i].id > runs[j].id })
	seen := map[string]bool{}
	var list []*checkRun
	for _, cr := range runs {
		if cr.repo != r || cr.headSHA != sha {
			continue
		}
		if name := c.query("check_name"); name != "" && cr.name != name {
			continue
		}
		if st := c.query("status"); st != "" && cr.status != st {
			continue
		}
		if appID != 0 && cr.app.id != appID {
			continue
		}
		key := fmt.Sprintf("%d/%s", cr.app.id, cr.name)
		if filter == "latest" && seen[key] {
			continue
		}
		seen[key] = true
		list = append(list, cr)
	}
	start, end := c.paginate(len(list))
	out := make([]any, 0, end-start)
	for _, cr := range list[start:end] {
		out = append(out, s.checkRunJSON(cr, c.base))
	}
	return http.StatusOK, map[string]any{"total_count": len(list), "check_runs": out}, nil
}
