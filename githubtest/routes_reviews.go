package githubtest

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// reviewComment is a pull-request review comment on one line of a commit.
type reviewComment struct {
	id        int64
	user      *account
	body      string
	commitID  string
	path      string
	line      int
	side      string
	createdAt time.Time
}

// reviewRoutes are the operations of the reviewer's side: review comments
// (suggested changes), a pull request's commits, and an organisation's
// installation (what `shipgate ledger` reads an organisation through).
func (s *Server) reviewRoutes() []*route {
	return []*route{
		{method: "GET", pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/comments", auth: authRepo, doc: "https://docs.github.com/rest/pulls/comments#list-review-comments-on-a-pull-request", handle: s.listReviewComments},
		{method: "POST", pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/comments", auth: authRepo, doc: "https://docs.github.com/rest/pulls/comments#create-a-review-comment-for-a-pull-request", handle: s.createReviewComment},
		{method: "GET", pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/commits", auth: authRepo, doc: "https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request", handle: s.listPullCommits},
		{method: "GET", pattern: "/orgs/{org}/installation", auth: authApp, doc: "https://docs.github.com/rest/apps/apps#get-an-organization-installation-for-the-authenticated-app", handle: s.getOrgInstallation},
	}
}

// createReviewComment serves POST /repos/{owner}/{repo}/pulls/{pull_number}/comments
// with GitHub's validation of a single-line comment: body, commit_id, path
// and line are required; the commit must be one of the pull request's;
// side is RIGHT (default) or LEFT; the path must be a file the pull
// request changes between its merge base and that commit, and the line
// must lie in a hunk of that diff on that side (GitHub answers 422
// "pull_request_review_thread.line must be part of the diff" otherwise).
// It needs pull_requests write.
func (s *Server) createReviewComment(c *call) (int, any, *apiError) {
	if _, e := c.repoFor("pull_requests", "write"); e != nil {
		return 0, nil, e
	}
	pr, e := c.pullFor()
	if e != nil {
		return 0, nil, e
	}
	m, e := c.decodeBody()
	if e != nil {
		return 0, nil, e
	}
	invalid := func(field, code string) (int, any, *apiError) {
		return 0, nil, errValidation(c.rt.doc, fieldError{Resource: "PullRequestReviewComment", Field: field, Code: code})
	}
	body, _ := m["body"].(string)
	commitID, _ := m["commit_id"].(string)
	path, _ := m["path"].(string)
	side, _ := m["side"].(string)
	if _, ok := m["position"]; ok {
		return invalid("position", "unsupported: Shipgate's fake serves line/side comments only")
	}
	if body == "" {
		return invalid("body", "missing_field")
	}
	if commitID == "" {
		return invalid("commit_id", "missing_field")
	}
	if path == "" {
		return invalid("path", "missing_field")
	}
	line, err := strconv.Atoi(fmt.Sprint(m["line"]))
	if err != nil || line < 1 {
		return invalid("line", "missing_field")
	}
	if side == "" {
		side = "RIGHT"
	}
	if side != "RIGHT" && side != "LEFT" {
		return invalid("side", "invalid")
	}
	if _, ok := m["start_line"]; ok {
		return invalid("start_line", "unsupported: Shipgate's fake serves single-line comments only")
	}
	commitID = strings.ToLower(commitID)
	if !s.prHasCommit(pr, commitID) {
		return invalid("commit_id", "invalid")
	}
	if !s.lineInDiff(pr, commitID, path, line, side) {
		return 0, nil, &apiError{status: http.StatusUnprocessableEntity, message: "Validation Failed", docURL: c.rt.doc,
			errors: []fieldError{{Resource: "PullRequestReviewComment", Field: "line", Code: "pull_request_review_thread.line must be part of the diff"}}}
	}
	user := c.who.inst.app.bot
	rc := &reviewComment{id: s.st.next("review_comment"), user: user, body: body, commitID: commitID, path: path, line: line, side: side, createdAt: s.now()}
	pr.reviewComments = append(pr.reviewComments, rc)
	return http.StatusCreated, s.reviewCommentJSON(pr, rc, c.base), nil
}

// listReviewComments serves GET /repos/{owner}/{repo}/pulls/{pull_number}/comments,
// oldest first, paginated.
func (s *Server) listReviewComments(c *call) (int, any, *apiError) {
	pr, e := c.pullFor()
	if e != nil {
		return 0, nil, e
	}
	start, end := c.paginate(len(pr.reviewComments))
	out := make([]any, 0, end-start)
	for _, rc := range pr.reviewComments[start:end] {
		out = append(out, s.reviewCommentJSON(pr, rc, c.base))
	}
	return http.StatusOK, out, nil
}

// listPullCommits serves GET /repos/{owner}/{repo}/pulls/{pull_number}/commits:
// the commits from the merge base (exclusive) to the head, oldest first,
// paginated (GitHub lists at most 250).
func (s *Server) listPullCommits(c *call) (int, any, *apiError) {
	pr, e := c.pullFor()
	if e != nil {
		return 0, nil, e
	}
	shas := s.prCommits(pr)
	start, end := c.paginate(len(shas))
	out := make([]any, 0, end-start)
	for _, sha := range shas[start:end] {
		cm := s.st.commits[sha]
		out = append(out, map[string]any{
			"sha":     sha,
			"node_id": nodeID("C", int64(len(sha))),
			"url":     c.base + "/repos/" + pr.repo.fullName() + "/commits/" + sha,
			"commit":  map[string]any{"message": cm.message, "tree": map[string]any{"sha": cm.tree}},
			"parents": []any{map[string]any{"sha": cm.parent}},
		})
	}
	return http.StatusOK, out, nil
}

// getOrgInstallation serves GET /orgs/{org}/installation (app JWT): the
// App's installation on an organisation.
func (s *Server) getOrgInstallation(c *call) (int, any, *apiError) {
	for _, in := range s.st.sortedInstallations() {
		if in.app == c.who.app && strings.EqualFold(in.account.login, c.param("org")) {
			return http.StatusOK, s.installationJSON(in, c.base), nil
		}
	}
	return 0, nil, errNotFound(c.rt.doc)
}

// prCommits are the pull request's commits, oldest first: the head's
// ancestors that are not the base branch's (at most 250, as GitHub).
func (s *Server) prCommits(pr *pullRequest) []string {
	base := map[string]bool{}
	for _, sha := range s.st.ancestors(pr.repo.branches[pr.baseRef]) {
		base[sha] = true
	}
	var out []string
	for _, sha := range s.st.ancestors(pr.headSHA) {
		if base[sha] {
			break
		}
		out = append(out, sha)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if len(out) > 250 {
		out = out[len(out)-250:]
	}
	return out
}

func (s *Server) prHasCommit(pr *pullRequest, sha string) bool {
	for _, c := range s.prCommits(pr) {
		if c == sha {
			return true
		}
	}
	return false
}

// hunkRe reads a hunk header of a unified patch.
var hunkRe = regexp.MustCompile(`(?m)^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// lineInDiff reports whether line of path (on side RIGHT: the commit's
// version; LEFT: the merge base's) lies in a hunk of the pull request's
// diff from its merge base to commit sha, context lines included.
func (s *Server) lineInDiff(pr *pullRequest, sha, path string, line int, side string) bool {
	mb := s.st.mergeBase(pr.repo.branches[pr.baseRef], sha)
	var before, after map[string]string
	if c := s.st.commits[mb]; c != nil {
		before = c.files
	}
	if c := s.st.commits[sha]; c != nil {
		after = c.files
	}
	for _, fc := range diffTrees(before, after) {
		if fc.filename != path || !fc.hasPatch {
			continue
		}
		for _, h := range hunkRe.FindAllStringSubmatch(fc.patch, -1) {
			start, n := h[3], h[4]
			if side == "LEFT" {
				start, n = h[1], h[2]
			}
			a, _ := strconv.Atoi(start)
			count := 1
			if n != "" {
				count, _ = strconv.Atoi(n)
			}
			if line >= a && line < a+count {
				return true
			}
		}
	}
	return false
}

func (s *Server) reviewCommentJSON(pr *pullRequest, rc *reviewComment, base string) map[string]any {
	prURL := base + "/repos/" + pr.repo.fullName() + "/pulls/" + strconv.Itoa(pr.number)
	html := fmt.Sprintf("%s/%s/pull/%d#discussion_r%d", s.opts.HTMLURL, pr.repo.fullName(), pr.number, rc.id)
	return map[string]any{
		"id":                 rc.id,
		"node_id":            nodeID("PRRC", rc.id),
		"url":                base + "/repos/" + pr.repo.fullName() + "/pulls/comments/" + strconv.FormatInt(rc.id, 10),
		"pull_request_url":   prURL,
		"html_url":           html,
		"user":               s.userJSON(rc.user, base),
		"body":               rc.body,
		"commit_id":          rc.commitID,
		"original_commit_id": rc.commitID,
		"path":               rc.path,
		"line":               rc.line,
		"original_line":      rc.line,
		"side":               rc.side,
		"subject_type":       "line",
		"author_association": s.authorAssociation(pr.repo, rc.user),
		"created_at":         ts(rc.createdAt),
		"updated_at":         ts(rc.createdAt),
	}
}

// ReviewComment is a review comment as a test sees it.
type ReviewComment struct {
	ID       int64
	User     string
	Body     string
	CommitID string
	Path     string
	Line     int
	Side     string
}

// ReviewComments returns the review comments of a pull request, oldest
// first.
func (s *Server) ReviewComments(owner, repo string, number int) []ReviewComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		return nil
	}
	out := make([]ReviewComment, 0, len(pr.reviewComments))
	for _, rc := range pr.reviewComments {
		out = append(out, ReviewComment{ID: rc.id, User: rc.user.login, Body: rc.body, CommitID: rc.commitID, Path: rc.path, Line: rc.line, Side: rc.side})
	}
	return out
}

// suggestionRe reads the first ```suggestion block of a comment body.
var suggestionRe = regexp.MustCompile("(?s)(`{3,})suggestion\n(.*?)\n?(`{3,})")

// ApplySuggestion does what GitHub's "Commit suggestion" does: it replaces
// the commented line of the file, at the pull request's current head, with
// the comment's ```suggestion block and pushes that commit to the head
// branch as user (a pull_request.synchronize delivery follows). It fails
// when the comment has no suggestion or the head moved past its commit in
// a way that changed the line (GitHub calls that an outdated suggestion).
func (s *Server) ApplySuggestion(owner, repo string, number int, commentID int64, user string) (sha, guid string, err error) {
	s.mu.Lock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		s.mu.Unlock()
		return "", "", err
	}
	var rc *reviewComment
	for _, c := range pr.reviewComments {
		if c.id == commentID {
			rc = c
		}
	}
	if rc == nil {
		s.mu.Unlock()
		return "", "", fmt.Errorf("githubtest: apply suggestion: no review comment %d on %s/%s#%d", commentID, owner, repo, number)
	}
	m := suggestionRe.FindStringSubmatch(rc.body)
	if m == nil || len(m[1]) != len(m[3]) {
		s.mu.Unlock()
		return "", "", fmt.Errorf("githubtest: apply suggestion: comment %d has no suggestion block", commentID)
	}
	head, orig := s.st.commits[pr.headSHA], s.st.commits[rc.commitID]
	if head == nil || orig == nil {
		s.mu.Unlock()
		return "", "", fmt.Errorf("githubtest: apply suggestion: unknown commit")
	}
	content, ok := head.files[rc.path]
	lines := strings.Split(content, "\n")
	origLines := strings.Split(orig.files[rc.path], "\n")
	if !ok || rc.line > len(lines) || rc.line > len(origLines) || lines[rc.line-1] != origLines[rc.line-1] {
		s.mu.Unlock()
		return "", "", fmt.Errorf("githubtest: apply suggestion: the suggestion is outdated (line %d of %s changed since %s)", rc.line, rc.path, rc.commitID[:8])
	}
	lines[rc.line-1] = m[2]
	s.mu.Unlock()
	return s.SynchronizeAs(user, owner, repo, number, map[string]string{rc.path: strings.Join(lines, "\n")}, "Apply suggestion from code review")
}

// SynchronizeAs is Synchronize with the push made by user.
func (s *Server) SynchronizeAs(user, owner, repo string, number int, files map[string]string, message string) (sha, guid string, err error) {
	s.mu.Lock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		s.mu.Unlock()
		return "", "", err
	}
	if pr.state != "open" {
		s.mu.Unlock()
		return "", "", fmt.Errorf("githubtest: synchronize %s/%s#%d: the pull request is closed", owner, repo, number)
	}
	res, err := s.pushLocked(pr.headRepo, pr.headRef, files, message, s.st.ensureAccount(actorOr(user), "User", s.now()))
	s.mu.Unlock()
	if err != nil {
		return "", "", err
	}
	return res.sha, res.send(s)[pr], nil
}

// CommentOnLine adds a review comment by user on line of path (RIGHT side)
// at the pull request's head, as a reviewer writes one in GitHub's "Files
// changed" tab, with GitHub's validation: the line must lie in the pull
// request's diff. It returns the comment's id.
func (s *Server) CommentOnLine(user, owner, repo string, number int, path string, line int, body string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		return 0, err
	}
	if !s.lineInDiff(pr, pr.headSHA, path, line, "RIGHT") {
		return 0, fmt.Errorf("githubtest: comment on %s/%s#%d: %s:%d is not part of the diff", owner, repo, number, path, line)
	}
	rc := &reviewComment{id: s.st.next("review_comment"), user: s.st.ensureAccount(user, "User", s.now()), body: body,
		commitID: pr.headSHA, path: path, line: line, side: "RIGHT", createdAt: s.now()}
	pr.reviewComments = append(pr.reviewComments, rc)
	return rc.id, nil
}
