package githubtest

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultActor is the user who pushes, opens pull requests and clicks
// buttons when a method is not told who did.
const DefaultActor = "shipgate-dev"

// RepoOptions describe a repository to create.
type RepoOptions struct {
	Owner string // the owning account, created when new
	// OwnerType is "Organization" (default for a new account) or "User".
	OwnerType     string
	Name          string // the repository name
	Private       bool   // hidden from anonymous and out-of-scope callers
	DefaultBranch string // default "main"
	Description   string // the repository description
	// Files, when not nil, become the first commit of the default branch.
	Files   map[string]string
	Message string // the first commit's message (default "Initial commit")
}

// Repo describes a repository of the fake.
type Repo struct {
	ID            int64             // the repository ID
	Owner         string            // owner login
	Name          string            // repository name
	FullName      string            // owner/name
	DefaultBranch string            // the default branch
	Private       bool              // private repository
	Fork          bool              // a fork of another repository
	Branches      map[string]string // branch → head SHA
}

func (r *repository) snapshot() Repo {
	br := make(map[string]string, len(r.branches))
	for k, v := range r.branches {
		br[k] = v
	}
	return Repo{ID: r.id, Owner: r.owner.login, Name: r.name, FullName: r.fullName(), DefaultBranch: r.defaultBranch,
		Private: r.private, Fork: r.parent != nil, Branches: br}
}

// CreateRepo creates a repository (and its owner account when new), with
// an initial commit when opts.Files is not nil. It sends no webhook.
func (s *Server) CreateRepo(opts RepoOptions) (Repo, error) {
	if opts.Owner == "" || opts.Name == "" {
		return Repo{}, fmt.Errorf("githubtest: create repo: owner and name are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.repo(opts.Owner, opts.Name) != nil {
		return Repo{}, fmt.Errorf("githubtest: create repo %s/%s: already exists", opts.Owner, opts.Name)
	}
	typ := opts.OwnerType
	if typ == "" {
		typ = "Organization"
	}
	now := s.now()
	owner := s.st.ensureAccount(opts.Owner, typ, now)
	r := &repository{
		id: s.st.next("repo"), owner: owner, name: opts.Name, description: opts.Description,
		private: opts.Private, defaultBranch: opts.DefaultBranch,
		branches: map[string]string{}, known: map[string]bool{}, pulls: map[int]*pullRequest{},
		nextNumber: 1, createdAt: now, updatedAt: now, pushedAt: now,
	}
	if r.defaultBranch == "" {
		r.defaultBranch = "main"
	}
	s.st.repos[strings.ToLower(r.fullName())] = r
	s.st.reposByID[r.id] = r
	if opts.Files != nil {
		msg := opts.Message
		if msg == "" {
			msg = "Initial commit"
		}
		if _, _, err := s.st.push(r, r.defaultBranch, opts.Files, msg, s.st.ensureAccount(DefaultActor, "User", now), now); err != nil {
			delete(s.st.repos, strings.ToLower(r.fullName()))
			delete(s.st.reposByID, r.id)
			return Repo{}, fmt.Errorf("githubtest: create repo: %w", err)
		}
	}
	return r.snapshot(), nil
}

// ForkRepo forks owner/name into forkOwner's account (a User when new),
// sharing its commits and copying its branches, as GitHub's fork network
// does. It sends no webhook.
func (s *Server) ForkRepo(owner, name, forkOwner string) (Repo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.st.repo(owner, name)
	if src == nil {
		return Repo{}, fmt.Errorf("githubtest: fork %s/%s: no such repository", owner, name)
	}
	if s.st.repo(forkOwner, name) != nil {
		return Repo{}, fmt.Errorf("githubtest: fork %s/%s: %s/%s already exists", owner, name, forkOwner, name)
	}
	now := s.now()
	r := &repository{
		id: s.st.next("repo"), owner: s.st.ensureAccount(forkOwner, "User", now), name: name,
		private: src.private, defaultBranch: src.defaultBranch, parent: src,
		branches: map[string]string{}, known: map[string]bool{}, pulls: map[int]*pullRequest{},
		nextNumber: 1, createdAt: now, updatedAt: now, pushedAt: now,
	}
	for b, sha := range src.branches {
		r.branches[b] = sha
	}
	for sha := range src.known {
		r.known[sha] = true
	}
	s.st.repos[strings.ToLower(r.fullName())] = r
	s.st.reposByID[r.id] = r
	return r.snapshot(), nil
}

// InstallationOptions describe an installation of an app on an account.
type InstallationOptions struct {
	AppID int64 // default: Options.AppID
	// Account is the organisation or user the app is installed on; it is
	// created (as AccountType, default Organization) when new.
	Account     string
	AccountType string // Organization (default) or User, for a new account
	// Repositories are names of the account's repositories the
	// installation may use ("selected"); AllRepositories grants every
	// repository of the account, present and future ("all").
	Repositories    []string
	AllRepositories bool // repository_selection "all"
	// Permissions default to the app's.
	Permissions map[string]string
	// Sender is who installed the app (default DefaultActor).
	Sender string
}

// Installation describes an installation of the fake.
type Installation struct {
	ID                  int64             // the installation ID
	AppID               int64             // the installed app
	Account             string            // the account it is installed on
	AccountType         string            // Organization or User
	RepositorySelection string            // all or selected
	Repositories        []string          // names of the repositories it covers now
	Permissions         map[string]string // permission → read or write
}

func (s *Server) installationSnapshot(in *installation) Installation {
	var names []string
	for _, r := range s.st.repos {
		if in.covers(r) {
			names = append(names, r.name)
		}
	}
	sort.Strings(names)
	return Installation{ID: in.id, AppID: in.app.id, Account: in.account.login, AccountType: in.account.typ,
		RepositorySelection: in.selection, Repositories: names, Permissions: copyPerms(in.permissions)}
}

// Install installs an app on an account and sends installation.created to
// the app. It returns the installation and the delivery GUID.
func (s *Server) Install(opts InstallationOptions) (Installation, string, error) {
	s.mu.Lock()
	if opts.AppID == 0 {
		opts.AppID = s.st.primaryAppID
	}
	a := s.st.apps[opts.AppID]
	if a == nil || opts.Account == "" {
		s.mu.Unlock()
		return Installation{}, "", fmt.Errorf("githubtest: install: unknown app %d or empty account", opts.AppID)
	}
	now := s.now()
	typ := opts.AccountType
	if typ == "" {
		typ = "Organization"
	}
	acct := s.st.ensureAccount(opts.Account, typ, now)
	in := &installation{id: s.st.next("installation"), app: a, account: acct, selection: "selected",
		repoIDs: map[int64]bool{}, permissions: copyPerms(a.permissions), events: append([]string{}, a.events...), createdAt: now}
	if opts.Permissions != nil {
		in.permissions = copyPerms(opts.Permissions)
	}
	if opts.AllRepositories {
		in.selection = "all"
	}
	var repos []*repository
	for _, name := range opts.Repositories {
		r := s.st.repo(opts.Account, name)
		if r == nil {
			s.mu.Unlock()
			return Installation{}, "", fmt.Errorf("githubtest: install: no repository %s/%s", opts.Account, name)
		}
		in.repoIDs[r.id] = true
		repos = append(repos, r)
	}
	s.st.installations[in.id] = in
	if opts.AllRepositories {
		repos = nil
		for _, r := range s.st.repos {
			if in.covers(r) {
				repos = append(repos, r)
			}
		}
		sort.Slice(repos, func(i, j int) bool { return repos[i].id < repos[j].id })
	}
	list := []any{}
	for _, r := range repos {
		list = append(list, map[string]any{"id": r.id, "node_id": nodeID("R", r.id), "name": r.name, "full_name": r.fullName(), "private": r.private})
	}
	ev := event{name: "installation", action: "created", template: "installation.created", inst: in,
		sender: s.st.ensureAccount(actorOr(opts.Sender), "User", now),
		fields: map[string]any{"installation": s.installationJSON(in, s.apiBaseLocked())},
		set:    map[string]any{"repositories": list, "requester": nil}}
	out, err := s.emit(ev, a)
	snap := s.installationSnapshot(in)
	s.mu.Unlock()
	if err != nil {
		return snap, "", err
	}
	return snap, s.deliver(out...), nil
}

func actorOr(login string) string {
	if login == "" {
		return DefaultActor
	}
	return login
}

// SetTeamMembership puts user on org's team (both created when new) with
// role ("member" by default, or "maintainer") and state ("active" by
// default, or "pending"), for GET /orgs/{org}/teams/{team_slug}/memberships/{username}.
func (s *Server) SetTeamMembership(org, teamSlug, user, role, state string) error {
	if org == "" || teamSlug == "" || user == "" {
		return fmt.Errorf("githubtest: team membership: org, team and user are required")
	}
	if role == "" {
		role = "member"
	}
	if state == "" {
		state = "active"
	}
	if (role != "member" && role != "maintainer") || (state != "active" && state != "pending") {
		return fmt.Errorf("githubtest: team membership: bad role %q or state %q", role, state)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	t := s.st.team(org, teamSlug)
	if t == nil {
		t = &team{id: s.st.next("team"), org: s.st.ensureAccount(org, "Organization", now), slug: teamSlug, name: teamSlug, members: map[string]*teamMember{}}
		s.st.teams[strings.ToLower(org+"/"+teamSlug)] = t
	}
	t.members[strings.ToLower(user)] = &teamMember{user: s.st.ensureAccount(user, "User", now), role: role, state: state}
	return nil
}

// RemoveTeamMember takes user off org's team.
func (s *Server) RemoveTeamMember(org, teamSlug, user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.team(org, teamSlug)
	if t == nil || t.members[strings.ToLower(user)] == nil {
		return fmt.Errorf("githubtest: remove team member: %s is not on %s/%s", user, org, teamSlug)
	}
	delete(t.members, strings.ToLower(user))
	return nil
}
