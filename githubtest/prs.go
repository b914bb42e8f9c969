package githubtest

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// PullRequest describes a pull request of the fake.
type PullRequest struct {
	ID        int64  // the pull request's ID
	Number    int    // its number in the base repository
	Owner     string // base repository owner
	Repo      string // base repository name
	Base      string // base branch
	BaseSHA   string // the base branch's head
	Head      string // head branch
	HeadOwner string // head repository owner (a fork's owner for fork PRs)
	HeadRepo  string // head repository name
	HeadSHA   string // the head branch's commit
	State     string // open or closed
	Draft     bool   // a draft pull request
	Title     string // the title
	Author    string // who opened it
}

func (pr *pullRequest) snapshot() PullRequest {
	return PullRequest{ID: pr.id, Number: pr.number, Owner: pr.repo.owner.login, Repo: pr.repo.name,
		Base: pr.baseRef, BaseSHA: pr.repo.branches[pr.baseRef], Head: pr.headRef,
		HeadOwner: pr.headRepo.owner.login, HeadRepo: pr.headRepo.name, HeadSHA: pr.headSHA,
		State: pr.state, Draft: pr.draft, Title: pr.title, Author: pr.user.login}
}

// PR returns a pull request's current state.
func (s *Server) PR(owner, repo string, number int) (PullRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.st.repo(owner, repo)
	if r == nil || r.pulls[number] == nil {
		return PullRequest{}, false
	}
	return r.pulls[number].snapshot(), true
}

// PushCommit commits files to branch of owner/repo as DefaultActor and
// returns the new commit's SHA. A file whose content is "" is deleted (so
// PushCommit cannot create empty files); a missing branch is created from
// the default branch. It sends push, and pull_request.synchronize for
// every open pull request whose head is that branch.
func (s *Server) PushCommit(owner, repo, branch string, files map[string]string, message string) (string, error) {
	return s.PushCommitAs(DefaultActor, owner, repo, branch, files, message)
}

// PushCommitAs is PushCommit by a given user.
func (s *Server) PushCommitAs(author, owner, repo, branch string, files map[string]string, message string) (string, error) {
	s.mu.Lock()
	r := s.st.repo(owner, repo)
	if r == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("githubtest: push: no repository %s/%s", owner, repo)
	}
	res, err := s.pushLocked(r, branch, files, message, s.st.ensureAccount(author, "User", s.now()))
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	res.send(s)
	return res.sha, nil
}

// pushResult is a push made under the lock, with its deliveries to send
// once the lock is released.
type pushResult struct {
	sha     string
	push    []*outgoing
	pulls   []*pullRequest
	syncOut [][]*outgoing
}

// send delivers push first, then each synchronize; it returns the
// synchronize GUIDs by pull request.
func (p pushResult) send(s *Server) map[*pullRequest]string {
	s.deliver(p.push...)
	guids := map[*pullRequest]string{}
	for i, pr := range p.pulls {
		guids[pr] = s.deliver(p.syncOut[i]...)
	}
	return guids
}

func (s *Server) pushLocked(r *repository, branch string, files map[string]string, message string, author *account) (pushResult, error) {
	now := s.now()
	if branch == "" {
		branch = r.defaultBranch
	}
	c, before, err := s.st.push(r, branch, files, message, author, now)
	if err != nil {
		return pushResult{}, err
	}
	res := pushResult{sha: c.sha}
	out, err := s.emit(s.pushEvent(r, branch, before, c, author), nil)
	if err != nil {
		return pushResult{}, err
	}
	res.push = out
	for _, pr := range s.pullsWithHead(r, branch) {
		old := pr.headSHA
		pr.headSHA = c.sha
		pr.updatedAt = now
		s.makeReachable(pr.repo, c.sha)
		ev := s.prEvent(pr, "synchronize", author)
		ev.fields["before"], ev.fields["after"] = old, c.sha
		sync, err := s.emit(ev, nil)
		if err != nil {
			return pushResult{}, err
		}
		res.pulls = append(res.pulls, pr)
		res.syncOut = append(res.syncOut, sync)
	}
	return res, nil
}

// makeReachable makes sha and its ancestors readable in r, as GitHub does
// for a fork's commits through refs/pull/<n>/head.
func (s *Server) makeReachable(r *repository, sha string) {
	for _, a := range s.st.ancestors(sha) {
		r.known[a] = true
	}
}

// pullsWithHead lists the open pull requests, in any repository, whose
// head is branch of r.
func (s *Server) pullsWithHead(r *repository, branch string) []*pullRequest {
	var out []*pullRequest
	for _, base := range s.st.reposByID {
		for _, pr := range base.pulls {
			if pr.state == "open" && pr.headRepo == r && pr.headRef == branch {
				out = append(out, pr)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (s *Server) pushEvent(r *repository, branch, before string, c *commit, author *account) event {
	var added, removed, modified []string
	var old map[string]string
	if p := s.st.commits[c.parent]; p != nil {
		old = p.files
	}
	for f, content := range c.files {
		prev, ok := old[f]
		switch {
		case !ok:
			added = append(added, f)
		case prev != content:
			modified = append(modified, f)
		}
	}
	for f := range old {
		if _, ok := c.files[f]; !ok {
			removed = append(removed, f)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(modified)
	commitObj := s.commitJSON(r, c, added, removed, modified)
	html := s.opts.HTMLURL + "/" + r.fullName()
	compare := html + "/compare/" + before[:12] + "..." + c.sha[:12]
	if before == zeroSHA {
		compare = html + "/commit/" + c.sha[:12]
	}
	email := author.login + "@users.noreply.github.com"
	return event{
		name: "push", template: "push", repo: r, sender: author,
		fields: map[string]any{
			"ref":         "refs/heads/" + branch,
			"before":      before,
			"after":       c.sha,
			"created":     before == zeroSHA,
			"deleted":     false,
			"forced":      false,
			"base_ref":    nil,
			"compare":     compare,
			"pusher":      map[string]any{"name": author.login, "email": email},
			"head_commit": commitObj,
		},
		set: map[string]any{"commits": []any{commitObj}},
		post: func(p map[string]any) {
			repo, _ := p["repository"].(map[string]any)
			if repo == nil {
				return
			}
			// Push payloads keep the repository's old shape: html URL
			// as url, Unix times, master_branch.
			repo["url"] = repo["html_url"]
			repo["master_branch"] = r.defaultBranch
			repo["created_at"] = r.createdAt.Unix()
			repo["pushed_at"] = r.pushedAt.Unix()
			if owner, ok := repo["owner"].(map[string]any); ok {
				owner["name"] = r.owner.login
				owner["email"] = nil
			}
		},
	}
}

// prEvent starts a pull_request event for pr.
func (s *Server) prEvent(pr *pullRequest, action string, sender *account) event {
	return event{
		name: "pull_request", action: action, template: "pull_request." + action, repo: pr.repo, sender: sender,
		fields: map[string]any{"number": pr.number, "pull_request": s.webhookPR(pr)},
	}
}

// PROptions describe a pull request to open.
type PROptions struct {
	Owner, Repo string // the base repository
	Base        string // base branch (default: the default branch)
	Head        string // head branch
	// HeadOwner, when set, opens the pull request from the fork
	// HeadOwner/HeadRepo (HeadRepo defaults to Repo).
	HeadOwner string
	HeadRepo  string // the fork's name (default: Repo)
	Title     string // default "Update <head>"
	Body      string // the description
	Author    string // default DefaultActor
	Draft     bool   // open as a draft
}

// OpenPR opens a pull request and sends pull_request.opened. It refuses,
// as GitHub does, a head with no commits over the base and a second open
// pull request for the same head and base.
func (s *Server) OpenPR(opts PROptions) (PullRequest, string, error) {
	s.mu.Lock()
	r := s.st.repo(opts.Owner, opts.Repo)
	if r == nil {
		s.mu.Unlock()
		return PullRequest{}, "", fmt.Errorf("githubtest: open PR: no repository %s/%s", opts.Owner, opts.Repo)
	}
	headRepo := r
	if opts.HeadOwner != "" {
		name := opts.HeadRepo
		if name == "" {
			name = opts.Repo
		}
		headRepo = s.st.repo(opts.HeadOwner, name)
		if headRepo == nil {
			s.mu.Unlock()
			return PullRequest{}, "", fmt.Errorf("githubtest: open PR: no head repository %s/%s", opts.HeadOwner, name)
		}
	}
	base := opts.Base
	if base == "" {
		base = r.defaultBranch
	}
	baseSHA, okBase := r.branches[base]
	headSHA, okHead := headRepo.branches[opts.Head]
	if !okBase || !okHead {
		s.mu.Unlock()
		return PullRequest{}, "", fmt.Errorf("githubtest: open PR: base %q or head %q branch does not exist", base, opts.Head)
	}
	if headSHA == baseSHA || s.st.mergeBase(baseSHA, headSHA) == headSHA {
		s.mu.Unlock()
		return PullRequest{}, "", fmt.Errorf("githubtest: open PR: no commits between %s and %s", base, opts.Head)
	}
	for _, pr := range r.pulls {
		if pr.state == "open" && pr.baseRef == base && pr.headRepo == headRepo && pr.headRef == opts.Head {
			s.mu.Unlock()
			return PullRequest{}, "", fmt.Errorf("githubtest: open PR: a pull request already exists for %s:%s", headRepo.owner.login, opts.Head)
		}
	}
	now := s.now()
	author := s.st.ensureAccount(actorOr(opts.Author), "User", now)
	title := opts.Title
	if title == "" {
		title = "Update " + opts.Head
	}
	pr := &pullRequest{
		id: s.st.next("pull"), number: r.nextNumber, repo: r, headRepo: headRepo, baseRef: base, headRef: opts.Head,
		headSHA: headSHA, title: title, body: opts.Body, user: author, state: "open", draft: opts.Draft,
		createdAt: now, updatedAt: now,
	}
	r.nextNumber++
	r.pulls[pr.number] = pr
	s.makeReachable(r, headSHA)
	out, err := s.emit(s.prEvent(pr, "opened", author), nil)
	snap := pr.snapshot()
	s.mu.Unlock()
	if err != nil {
		return snap, "", err
	}
	return snap, s.deliver(out...), nil
}

// Synchronize pushes files to the pull request's head branch (in its head
// repository, a fork's included) and returns the new head SHA and the
// GUID of the pull_request.synchronize delivery.
func (s *Server) Synchronize(owner, repo string, number int, files map[string]string, message string) (sha, guid string, err error) {
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
	res, err := s.pushLocked(pr.headRepo, pr.headRef, files, message, pr.user)
	s.mu.Unlock()
	if err != nil {
		return "", "", err
	}
	return res.sha, res.send(s)[pr], nil
}

func (s *Server) pullLocked(owner, repo string, number int) (*pullRequest, error) {
	r := s.st.repo(owner, repo)
	if r == nil || r.pulls[number] == nil {
		return nil, fmt.Errorf("githubtest: no pull request %s/%s#%d", owner, repo, number)
	}
	return r.pulls[number], nil
}

// PREdit is an edit of a pull request; nil fields are unchanged.
type PREdit struct {
	Title *string // a new title
	Body  *string // a new description
	Base  *string // a new base branch
}

// EditPR edits a pull request and sends pull_request.edited with the
// `changes` GitHub reports (title.from, body.from, base.ref.from and
// base.sha.from).
func (s *Server) EditPR(owner, repo string, number int, edit PREdit) (string, error) {
	s.mu.Lock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		s.mu.Unlock()
		return "", err
	}
	changes := map[string]any{}
	if edit.Base != nil && *edit.Base != pr.baseRef {
		if _, ok := pr.repo.branches[*edit.Base]; !ok {
			s.mu.Unlock()
			return "", fmt.Errorf("githubtest: edit %s/%s#%d: no base branch %q", owner, repo, number, *edit.Base)
		}
		changes["base"] = map[string]any{
			"ref": map[string]any{"from": pr.baseRef},
			"sha": map[string]any{"from": pr.repo.branches[pr.baseRef]},
		}
		pr.baseRef = *edit.Base
	}
	if edit.Title != nil && *edit.Title != pr.title {
		changes["title"] = map[string]any{"from": pr.title}
		pr.title = *edit.Title
	}
	if edit.Body != nil && *edit.Body != pr.body {
		changes["body"] = map[string]any{"from": pr.body}
		pr.body = *edit.Body
	}
	if len(changes) == 0 {
		s.mu.Unlock()
		return "", nil
	}
	pr.updatedAt = s.now()
	ev := s.prEvent(pr, "edited", pr.user)
	ev.set = map[string]any{"changes": changes}
	out, err := s.emit(ev, nil)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return s.deliver(out...), nil
}

// ChangeBase retargets a pull request at another base branch (an edit
// with changes.base).
func (s *Server) ChangeBase(owner, repo string, number int, base string) (string, error) {
	return s.EditPR(owner, repo, number, PREdit{Base: &base})
}

// ClosePR closes a pull request and sends pull_request.closed.
func (s *Server) ClosePR(owner, repo string, number int) (string, error) {
	return s.prTransition(owner, repo, number, "closed", func(pr *pullRequest, now time.Time) error {
		if pr.state != "open" {
			return fmt.Errorf("already closed")
		}
		pr.state, pr.closedAt = "closed", &now
		return nil
	})
}

// ReopenPR reopens a closed pull request and sends pull_request.reopened.
func (s *Server) ReopenPR(owner, repo string, number int) (string, error) {
	return s.prTransition(owner, repo, number, "reopened", func(pr *pullRequest, now time.Time) error {
		if pr.state == "open" {
			return fmt.Errorf("already open")
		}
		pr.state, pr.closedAt = "open", nil
		return nil
	})
}

// ReadyForReview marks a draft pull request ready and sends
// pull_request.ready_for_review.
func (s *Server) ReadyForReview(owner, repo string, number int) (string, error) {
	return s.prTransition(owner, repo, number, "ready_for_review", func(pr *pullRequest, now time.Time) error {
		if !pr.draft {
			return fmt.Errorf("not a draft")
		}
		pr.draft = false
		return nil
	})
}

func (s *Server) prTransition(owner, repo string, number int, action string, change func(*pullRequest, time.Time) error) (string, error) {
	s.mu.Lock()
	pr, err := s.pullLocked(owner, repo, number)
	if err == nil {
		now := s.now()
		if err = change(pr, now); err != nil {
			err = fmt.Errorf("githubtest: %s %s/%s#%d: %w", strings.ReplaceAll(action, "_", " "), owner, repo, number, err)
		} else {
			pr.updatedAt = now
		}
	}
	if err != nil {
		s.mu.Unlock()
		return "", err
	}
	out, err := s.emit(s.prEvent(pr, action, pr.user), nil)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return s.deliver(out...), nil
}

// CreateBranch creates branch in owner/repo at ref (a branch or SHA) and
// sends the push GitHub sends for a new branch (no commits).
func (s *Server) CreateBranch(owner, repo, branch, ref string) (string, error) {
	s.mu.Lock()
	r := s.st.repo(owner, repo)
	if r == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("githubtest: create branch: no repository %s/%s", owner, repo)
	}
	sha, ok := s.st.resolveRef(r, ref)
	if _, exists := r.branches[branch]; !ok || exists {
		s.mu.Unlock()
		return "", fmt.Errorf("githubtest: create branch %s: ref %q unknown or branch exists", branch, ref)
	}
	r.branches[branch] = sha
	actor := s.st.ensureAccount(DefaultActor, "User", s.now())
	ev := s.pushEvent(r, branch, zeroSHA, s.st.commits[sha], actor)
	ev.set["commits"] = []any{}
	out, err := s.emit(ev, nil)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	s.deliver(out...)
	return sha, nil
}
