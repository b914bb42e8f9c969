package githubtest

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The renderers below build the JSON objects of GitHub's REST API
// (schemas named in each comment) from the fake's state. Callers hold s.mu.

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func tsOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func strOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) htmlHost() string {
	if u, err := url.Parse(s.opts.HTMLURL); err == nil && u.Host != "" {
		return u.Host
	}
	return "github.com"
}

// userJSON renders simple-user.
func (s *Server) userJSON(a *account, base string) map[string]any {
	u := base + "/users/" + url.PathEscape(a.login)
	html := s.opts.HTMLURL + "/" + a.login
	prefix := "U"
	switch a.typ {
	case "Organization":
		prefix = "O"
	case "Bot":
		prefix = "BOT"
		html = s.opts.HTMLURL + "/apps/" + strings.TrimSuffix(a.login, "[bot]")
	}
	return map[string]any{
		"login":               a.login,
		"id":                  a.id,
		"node_id":             nodeID(prefix, a.id),
		"avatar_url":          fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", a.id),
		"gravatar_id":         "",
		"url":                 u,
		"html_url":            html,
		"followers_url":       u + "/followers",
		"following_url":       u + "/following{/other_user}",
		"gists_url":           u + "/gists{/gist_id}",
		"starred_url":         u + "/starred{/owner}{/repo}",
		"subscriptions_url":   u + "/subscriptions",
		"organizations_url":   u + "/orgs",
		"repos_url":           u + "/repos",
		"events_url":          u + "/events{/privacy}",
		"received_events_url": u + "/received_events",
		"type":                a.typ,
		"user_view_type":      "public",
		"site_admin":          false,
	}
}

// orgJSON renders organization-simple (the `organization` of payloads).
func (s *Server) orgJSON(a *account, base string) map[string]any {
	u := base + "/orgs/" + url.PathEscape(a.login)
	return map[string]any{
		"login":              a.login,
		"id":                 a.id,
		"node_id":            nodeID("O", a.id),
		"url":                u,
		"repos_url":          u + "/repos",
		"events_url":         u + "/events",
		"hooks_url":          u + "/hooks",
		"issues_url":         u + "/issues",
		"members_url":        u + "/members{/member}",
		"public_members_url": u + "/public_members{/member}",
		"avatar_url":         fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", a.id),
		"description":        nil,
	}
}

func (s *Server) openIssues(r *repository) int {
	n := 0
	for _, pr := range r.pulls {
		if pr.state == "open" {
			n++
		}
	}
	return n
}

// repoJSON renders repository, or full-repository when full.
func (s *Server) repoJSON(r *repository, base string, full bool) map[string]any {
	u := base + "/repos/" + r.fullName()
	html := s.opts.HTMLURL + "/" + r.fullName()
	visibility := "public"
	if r.private {
		visibility = "private"
	}
	open := s.openIssues(r)
	m := map[string]any{
		"id":                          r.id,
		"node_id":                     nodeID("R", r.id),
		"name":                        r.name,
		"full_name":                   r.fullName(),
		"private":                     r.private,
		"owner":                       s.userJSON(r.owner, base),
		"html_url":                    html,
		"description":                 strOrNil(r.description),
		"fork":                        r.parent != nil,
		"url":                         u,
		"forks_url":                   u + "/forks",
		"keys_url":                    u + "/keys{/key_id}",
		"collaborators_url":           u + "/collaborators{/collaborator}",
		"teams_url":                   u + "/teams",
		"hooks_url":                   u + "/hooks",
		"issue_events_url":            u + "/issues/events{/number}",
		"events_url":                  u + "/events",
		"assignees_url":               u + "/assignees{/user}",
		"branches_url":                u + "/branches{/branch}",
		"tags_url":                    u + "/tags",
		"blobs_url":                   u + "/git/blobs{/sha}",
		"git_tags_url":                u + "/git/tags{/sha}",
		"git_refs_url":                u + "/git/refs{/sha}",
		"trees_url":                   u + "/git/trees{/sha}",
		"statuses_url":                u + "/statuses/{sha}",
		"languages_url":               u + "/languages",
		"stargazers_url":              u + "/stargazers",
		"contributors_url":            u + "/contributors",
		"subscribers_url":             u + "/subscribers",
		"subscription_url":            u + "/subscription",
		"commits_url":                 u + "/commits{/sha}",
		"git_commits_url":             u + "/git/commits{/sha}",
		"comments_url":                u + "/comments{/number}",
		"issue_comment_url":           u + "/issues/comments{/number}",
		"contents_url":                u + "/contents/{+path}",
		"compare_url":                 u + "/compare/{base}...{head}",
		"merges_url":                  u + "/merges",
		"archive_url":                 u + "/{archive_format}{/ref}",
		"downloads_url":               u + "/downloads",
		"issues_url":                  u + "/issues{/number}",
		"pulls_url":                   u + "/pulls{/number}",
		"milestones_url":              u + "/milestones{/number}",
		"notifications_url":           u + "/notifications{?since,all,participating}",
		"labels_url":                  u + "/labels{/name}",
		"releases_url":                u + "/releases{/id}",
		"deployments_url":             u + "/deployments",
		"created_at":                  ts(r.createdAt),
		"updated_at":                  ts(r.updatedAt),
		"pushed_at":                   ts(r.pushedAt),
		"git_url":                     "git://" + s.htmlHost() + "/" + r.fullName() + ".git",
		"ssh_url":                     "git@" + s.htmlHost() + ":" + r.fullName() + ".git",
		"clone_url":                   html + ".git",
		"svn_url":                     html,
		"homepage":                    nil,
		"size":                        0,
		"stargazers_count":            0,
		"watchers_count":              0,
		"language":                    nil,
		"has_issues":                  true,
		"has_projects":                true,
		"has_downloads":               true,
		"has_wiki":                    true,
		"has_pages":                   false,
		"has_discussions":             false,
		"forks_count":                 0,
		"mirror_url":                  nil,
		"archived":                    false,
		"disabled":                    false,
		"open_issues_count":           open,
		"license":                     nil,
		"allow_forking":               true,
		"is_template":                 false,
		"web_commit_signoff_required": false,
		"topics":                      []string{},
		"visibility":                  visibility,
		"forks":                       0,
		"open_issues":                 open,
		"watchers":                    0,
		"default_branch":              r.defaultBranch,
	}
	if full {
		m["network_count"] = 0
		m["subscribers_count"] = 0
		m["temp_clone_token"] = nil
		if r.owner.typ == "Organization" {
			m["organization"] = s.userJSON(r.owner, base)
		}
		if r.parent != nil {
			m["parent"] = s.repoJSON(r.parent, base, false)
			root := r.parent
			for root.parent != nil {
				root = root.parent
			}
			m["source"] = s.repoJSON(root, base, false)
		}
	}
	return m
}

// authorAssociation approximates GitHub's: the owner, an org member (on
// any team of the owning organisation), or a contributor.
func (s *Server) authorAssociation(r *repository, a *account) string {
	if a == r.owner {
		return "OWNER"
	}
	if r.owner.typ == "Organization" {
		for _, t := range s.st.teams {
			if t.org == r.owner && t.members[strings.ToLower(a.login)] != nil {
				return "MEMBER"
			}
		}
	}
	return "CONTRIBUTOR"
}

// prFiles returns the pull request's changed files (merge base to head),
// cached by commit pair since commits never change.
func (s *Server) prFiles(pr *pullRequest) []fileChange {
	baseSHA := pr.repo.branches[pr.baseRef]
	mb := s.st.mergeBase(baseSHA, pr.headSHA)
	key := mb + ".." + pr.headSHA
	if fc, ok := s.st.diffCache[key]; ok {
		return fc
	}
	var baseFiles, headFiles map[string]string
	if c := s.st.commits[mb]; c != nil {
		baseFiles = c.files
	}
	if c := s.st.commits[pr.headSHA]; c != nil {
		headFiles = c.files
	}
	fc := diffTrees(baseFiles, headFiles)
	s.st.diffCache[key] = fc
	return fc
}

func (s *Server) prRefJSON(r *repository, ref, sha, base string) map[string]any {
	return map[string]any{
		"label": r.owner.login + ":" + ref,
		"ref":   ref,
		"sha":   sha,
		"user":  s.userJSON(r.owner, base),
		"repo":  s.repoJSON(r, base, false),
	}
}

// prJSON renders pull-request, or pull-request-simple when !full.
func (s *Server) prJSON(pr *pullRequest, base string, full bool) map[string]any {
	r := pr.repo
	n := strconv.Itoa(pr.number)
	repoURL := base + "/repos/" + r.fullName()
	u := repoURL + "/pulls/" + n
	html := s.opts.HTMLURL + "/" + r.fullName() + "/pull/" + n
	link := func(h string) map[string]any { return map[string]any{"href": h} }
	m := map[string]any{
		"url":                 u,
		"id":                  pr.id,
		"node_id":             nodeID("PR", pr.id),
		"html_url":            html,
		"diff_url":            html + ".diff",
		"patch_url":           html + ".patch",
		"issue_url":           repoURL + "/issues/" + n,
		"commits_url":         u + "/commits",
		"review_comments_url": u + "/comments",
		"review_comment_url":  repoURL + "/pulls/comments{/number}",
		"comments_url":        repoURL + "/issues/" + n + "/comments",
		"statuses_url":        repoURL + "/statuses/" + pr.headSHA,
		"number":              pr.number,
		"state":               pr.state,
		"locked":              false,
		"title":               pr.title,
		"user":                s.userJSON(pr.user, base),
		"body":                strOrNil(pr.body),
		"labels":              []any{},
		"milestone":           nil,
		"active_lock_reason":  nil,
		"created_at":          ts(pr.createdAt),
		"updated_at":          ts(pr.updatedAt),
		"closed_at":           tsOrNil(pr.closedAt),
		"merged_at":           nil,
		"merge_commit_sha":    nil,
		"assignee":            nil,
		"assignees":           []any{},
		"requested_reviewers": []any{},
		"requested_teams":     []any{},
		"head":                s.prRefJSON(pr.headRepo, pr.headRef, pr.headSHA, base),
		"base":                s.prRefJSON(r, pr.baseRef, r.branches[pr.baseRef], base),
		"_links": map[string]any{
			"self":            link(u),
			"html":            link(html),
			"issue":           link(repoURL + "/issues/" + n),
			"comments":        link(repoURL + "/issues/" + n + "/comments"),
			"review_comments": link(u + "/comments"),
			"review_comment":  link(repoURL + "/pulls/comments{/number}"),
			"commits":         link(u + "/commits"),
			"statuses":        link(repoURL + "/statuses/" + pr.headSHA),
		},
		"author_association": s.authorAssociation(r, pr.user),
		"auto_merge":         nil,
		"draft":              pr.draft,
	}
	if full {
		files := s.prFiles(pr)
		adds, dels := 0, 0
		for _, f := range files {
			adds += f.additions
			dels += f.deletions
		}
		mb := s.st.mergeBase(r.branches[pr.baseRef], pr.headSHA)
		var mergeable any = true
		state := "clean"
		if pr.state != "open" {
			mergeable, state = nil, "unknown"
		}
		m["merged"] = pr.merged
		m["mergeable"] = mergeable
		m["rebaseable"] = mergeable
		m["mergeable_state"] = state
		m["merged_by"] = nil
		m["comments"] = 0
		m["review_comments"] = 0
		m["maintainer_can_modify"] = false
		m["commits"] = s.st.commitsBetween(mb, pr.headSHA)
		m["additions"] = adds
		m["deletions"] = dels
		m["changed_files"] = len(files)
	}
	return m
}

// prMinimalJSON renders pull-request-minimal (check runs' pull_requests).
func (s *Server) prMinimalJSON(pr *pullRequest, base string) map[string]any {
	ref := func(r *repository, name, sha string) map[string]any {
		return map[string]any{"ref": name, "sha": sha, "repo": map[string]any{
			"id": r.id, "url": base + "/repos/" + r.fullName(), "name": r.name,
		}}
	}
	return map[string]any{
		"id":     pr.id,
		"number": pr.number,
		"url":    base + "/repos/" + pr.repo.fullName() + "/pulls/" + strconv.Itoa(pr.number),
		"head":   ref(pr.headRepo, pr.headRef, pr.headSHA),
		"base":   ref(pr.repo, pr.baseRef, pr.repo.branches[pr.baseRef]),
	}
}

// diffEntryJSON renders diff-entry.
func (s *Server) diffEntryJSON(r *repository, headSHA string, f fileChange, base string) map[string]any {
	escaped := escapePath(f.filename)
	m := map[string]any{
		"sha":          f.sha,
		"filename":     f.filename,
		"status":       f.status,
		"additions":    f.additions,
		"deletions":    f.deletions,
		"changes":      f.additions + f.deletions,
		"blob_url":     s.opts.HTMLURL + "/" + r.fullName() + "/blob/" + headSHA + "/" + escaped,
		"raw_url":      s.opts.HTMLURL + "/" + r.fullName() + "/raw/" + headSHA + "/" + escaped,
		"contents_url": base + "/repos/" + r.fullName() + "/contents/" + escaped + "?ref=" + headSHA,
	}
	if f.hasPatch {
		m["patch"] = f.patch
	}
	if f.previous != "" {
		m["previous_filename"] = f.previous
	}
	return m
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		parts[i] = url.PathEscape(part)
	}
	return strings.Join(parts, "/")
}

// appJSON renders integration.
func (s *Server) appJSON(a *app, base string) map[string]any {
	n := 0
	for _, in := range s.st.installations {
		if in.app == a {
			n++
		}
	}
	return map[string]any{
		"id":                  a.id,
		"slug":                a.slug,
		"node_id":             nodeID("A", a.id),
		"client_id":           a.clientID,
		"owner":               s.userJSON(a.owner, base),
		"name":                a.name,
		"description":         strOrNil(a.description),
		"external_url":        a.externalURL,
		"html_url":            s.opts.HTMLURL + "/apps/" + a.slug,
		"created_at":          ts(a.createdAt),
		"updated_at":          ts(a.createdAt),
		"permissions":         copyPerms(a.permissions),
		"events":              append([]string{}, a.events...),
		"installations_count": n,
	}
}

// installationJSON renders installation.
func (s *Server) installationJSON(in *installation, base string) map[string]any {
	html := s.opts.HTMLURL + "/settings/installations/" + strconv.FormatInt(in.id, 10)
	if in.account.typ == "Organization" {
		html = s.opts.HTMLURL + "/organizations/" + in.account.login + "/settings/installations/" + strconv.FormatInt(in.id, 10)
	}
	return map[string]any{
		"id":                        in.id,
		"client_id":                 in.app.clientID,
		"account":                   s.userJSON(in.account, base),
		"repository_selection":      in.selection,
		"access_tokens_url":         base + "/app/installations/" + strconv.FormatInt(in.id, 10) + "/access_tokens",
		"repositories_url":          base + "/installation/repositories",
		"html_url":                  html,
		"app_id":                    in.app.id,
		"app_slug":                  in.app.slug,
		"target_id":                 in.account.id,
		"target_type":               in.account.typ,
		"permissions":               copyPerms(in.permissions),
		"events":                    append([]string{}, in.events...),
		"created_at":                ts(in.createdAt),
		"updated_at":                ts(in.createdAt),
		"single_file_name":          nil,
		"has_multiple_single_files": false,
		"single_file_paths":         []string{},
		"suspended_by":              nil,
		"suspended_at":              nil,
	}
}

// reviewJSON renders pull-request-review.
func (s *Server) reviewJSON(pr *pullRequest, rv *review, base string) map[string]any {
	prURL := base + "/repos/" + pr.repo.fullName() + "/pulls/" + strconv.Itoa(pr.number)
	html := fmt.Sprintf("%s/%s/pull/%d#pullrequestreview-%d", s.opts.HTMLURL, pr.repo.fullName(), pr.number, rv.id)
	return map[string]any{
		"id":                 rv.id,
		"node_id":            nodeID("PRR", rv.id),
		"user":               s.userJSON(rv.user, base),
		"body":               rv.body,
		"state":              rv.state,
		"html_url":           html,
		"pull_request_url":   prURL,
		"author_association": s.authorAssociation(pr.repo, rv.user),
		"_links": map[string]any{
			"html":         map[string]any{"href": html},
			"pull_request": map[string]any{"href": prURL},
		},
		"submitted_at": ts(rv.submittedAt),
		"commit_id":    rv.commitID,
	}
}

// sortedInstallations returns installations in ID order.
func (st *state) sortedInstallations() []*installation {
	out := make([]*installation, 0, len(st.installations))
	for _, in := range st.installations {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
