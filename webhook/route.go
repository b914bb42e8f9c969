package webhook

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/app"
)

// pushCommitLimit is the most commits GitHub lists in a push payload. A push
// at the limit may have more commits whose file lists we cannot see, so it is
// treated as touching the policy (a spare re-evaluation beats a stale one).
const pushCommitLimit = 2048

// routed is the routing decision for one authenticated delivery.
type routed struct {
	jobs []app.Job
	// outcome is set when no job results: "pong", "logged" or "ignored".
	outcome string
	// reason says why nothing was queued; it goes into the 200 body and logs.
	reason string
	// Context for logs, filled as far as the payload was understood.
	action         string
	installationID int64
	repo           string
	pr             int
}

func ignored(r routed, format string, args ...any) routed {
	r.outcome = "ignored"
	r.reason = fmt.Sprintf(format, args...)
	return r
}

// errBadPayload marks payloads that are authentic but unusable (undecodable
// JSON, missing repository or number). They are answered 400 so that the
// anomaly shows in GitHub's delivery log.
var errBadPayload = errors.New("bad payload")

// router turns authenticated deliveries into jobs. It is pure apart from
// logging installation events, so it is tested with real payloads directly.
type router struct {
	appID          int64
	botLogin       atomic.Pointer[string] // "<slug>[bot]"; see Server.SetAppSlug
	repoPolicyPath string
	orgPolicyRepo  string
	orgPolicyPath  string
	logger         *slog.Logger
}

// route decides what an authenticated delivery asks for. meta carries the
// delivery-level fields (DeliveryID, Event, ReceivedAt) copied into every job.
// Events are decoded with github.ParseWebHook only when routed, so unknown
// event types cost nothing and never fail.
func (rt *router) route(event string, body []byte, meta app.Job) (routed, error) {
	switch event {
	case "ping":
		return routed{outcome: "pong", reason: "ping"}, nil
	case "installation", "installation_repositories",
		"pull_request", "pull_request_review", "check_run", "check_suite", "push":
	default:
		return ignored(routed{}, "event %q is not used by Shipgate", event), nil
	}
	parsed, err := github.ParseWebHook(event, body)
	if err != nil {
		return routed{}, fmt.Errorf("%w: decode %s payload: %v", errBadPayload, event, err)
	}
	switch e := parsed.(type) {
	case *github.InstallationEvent:
		return rt.installation(e), nil
	case *github.InstallationRepositoriesEvent:
		return rt.installationRepositories(e), nil
	case *github.PullRequestEvent:
		return rt.pullRequest(e, meta)
	case *github.PullRequestReviewEvent:
		return rt.pullRequestReview(e, meta)
	case *github.CheckRunEvent:
		return rt.checkRun(e, meta)
	case *github.CheckSuiteEvent:
		return rt.checkSuite(e, meta)
	case *github.PushEvent:
		return rt.push(e, meta)
	default:
		return routed{}, fmt.Errorf("%w: %s decoded to unexpected %T", errBadPayload, event, parsed)
	}
}

// admit applies the filters every routed event shares: an installation id
// (deliveries without one are not App deliveries and cannot be acted on), and
// a sender that is not this App's own bot (no feedback loops).
func (rt *router) admit(r routed, inst *github.Installation, sender *github.User, event string) (routed, bool) {
	r.installationID = inst.GetID()
	if r.installationID == 0 {
		rt.logger.Warn("webhook delivery without installation id ignored",
			"event", event, "action", r.action, "repo", r.repo)
		return ignored(r, "delivery carries no installation id"), false
	}
	if login := sender.GetLogin(); login != "" && strings.EqualFold(login, *rt.botLogin.Load()) {
		return ignored(r, "sender %s is this app", login), false
	}
	return r, true
}

func (rt *router) job(meta app.Job, kind app.JobKind, r routed, owner, repo string, sender *github.User) app.Job {
	j := meta
	j.Kind = kind
	j.Action = r.action
	j.InstallationID = r.installationID
	j.Owner = owner
	j.Repo = repo
	j.Sender = sender.GetLogin()
	return j
}

func repoNames(repo *github.Repository) (owner, name string, err error) {
	owner, name = repo.GetOwner().GetLogin(), repo.GetName()
	if owner == "" || name == "" {
		return "", "", fmt.Errorf("%w: repository owner or name missing", errBadPayload)
	}
	return owner, name, nil
}

func (rt *router) pullRequest(e *github.PullRequestEvent, meta app.Job) (routed, error) {
	r := routed{action: e.GetAction(), repo: e.GetRepo().GetFullName(), pr: e.GetNumber()}
	switch r.action {
	case "opened", "reopened", "synchronize", "ready_for_review":
	case "edited":
		if ch := e.GetChanges(); ch == nil || ch.Base == nil {
			return ignored(r, "pull_request edited without a base branch change"), nil
		}
	default:
		return ignored(r, "pull_request action %q does not change the review", r.action), nil
	}
	r, ok := rt.admit(r, e.GetInstallation(), e.GetSender(), "pull_request")
	if !ok {
		return r, nil
	}
	owner, name, err := repoNames(e.GetRepo())
	if err != nil {
		return r, err
	}
	pr := e.GetPullRequest()
	number := e.GetNumber()
	if number == 0 {
		number = pr.GetNumber()
	}
	if number == 0 {
		return r, fmt.Errorf("%w: pull_request number missing", errBadPayload)
	}
	r.pr = number
	j := rt.job(meta, app.KindEvaluatePR, r, owner, name, e.GetSender())
	j.PRNumber = number
	j.HeadSHA = pr.GetHead().GetSHA()
	r.jobs = []app.Job{j}
	return r, nil
}

func (rt *router) pullRequestReview(e *github.PullRequestReviewEvent, meta app.Job) (routed, error) {
	pr := e.GetPullRequest()
	r := routed{action: e.GetAction(), repo: e.GetRepo().GetFullName(), pr: pr.GetNumber()}
	switch r.action {
	case "submitted", "dismissed":
	default:
		return ignored(r, "pull_request_review action %q does not change the review", r.action), nil
	}
	r, ok := rt.admit(r, e.GetInstallation(), e.GetSender(), "pull_request_review")
	if !ok {
		return r, nil
	}
	owner, name, err := repoNames(e.GetRepo())
	if err != nil {
		return r, err
	}
	if pr.GetNumber() == 0 {
		return r, fmt.Errorf("%w: pull_request number missing", errBadPayload)
	}
	j := rt.job(meta, app.KindEvaluatePR, r, owner, name, e.GetSender())
	j.PRNumber = pr.GetNumber()
	j.HeadSHA = pr.GetHead().GetSHA()
	r.jobs = []app.Job{j}
	return r, nil
}

func (rt *router) checkRun(e *github.CheckRunEvent, meta app.Job) (routed, error) {
	run := e.GetCheckRun()
	r := routed{action: e.GetAction(), repo: e.GetRepo().GetFullName()}
	switch r.action {
	case "rerequested", "requested_action":
	default:
		// created and completed are mostly our own runs: acting on them loops.
		return ignored(r, "check_run action %q is not a re-run request", r.action), nil
	}
	if id := run.GetApp().GetID(); id != rt.appID {
		return ignored(r, "check run belongs to app %d, not this app", id), nil
	}
	r, ok := rt.admit(r, e.GetInstallation(), e.GetSender(), "check_run")
	if !ok {
		return r, nil
	}
	jobs, err := rt.checkJobs(meta, r, e.GetRepo(), e.GetSender(), run.PullRequests, run.GetHeadSHA())
	if err != nil {
		return r, err
	}
	for i := range jobs {
		jobs[i].CheckRunID = run.GetID()
	}
	r.jobs = jobs
	if len(jobs) == 1 {
		r.pr = jobs[0].PRNumber
	}
	return r, nil
}

func (rt *router) checkSuite(e *github.CheckSuiteEvent, meta app.Job) (routed, error) {
	suite := e.GetCheckSuite()
	r := routed{action: e.GetAction(), repo: e.GetRepo().GetFullName()}
	if r.action != "rerequested" {
		// requested is GitHub asking every app for runs on a push; Shipgate
		// answers pull_request events instead. completed is our own output.
		return ignored(r, "check_suite action %q is not a re-run request", r.action), nil
	}
	if id := suite.GetApp().GetID(); id != rt.appID {
		return ignored(r, "check suite belongs to app %d, not this app", id), nil
	}
	r, ok := rt.admit(r, e.GetInstallation(), e.GetSender(), "check_suite")
	if !ok {
		return r, nil
	}
	jobs, err := rt.checkJobs(meta, r, e.GetRepo(), e.GetSender(), suite.PullRequests, suite.GetHeadSHA())
	if err != nil {
		return r, err
	}
	r.jobs = jobs
	if len(jobs) == 1 {
		r.pr = jobs[0].PRNumber
	}
	return r, nil
}

// checkJobs builds the jobs of a check_run or check_suite re-run: one
// KindEvaluatePR per listed pull request of this repository, or, when GitHub
// lists none (always the case for fork PRs), one KindEvaluateSHA for the head
// commit, which the worker resolves to the open PRs with that head.
func (rt *router) checkJobs(meta app.Job, r routed, repo *github.Repository, sender *github.User,
	prs []*github.PullRequest, headSHA string) ([]app.Job, error) {
	owner, name, err := repoNames(repo)
	if err != nil {
		return nil, err
	}
	var jobs []app.Job
	for _, pr := range prs {
		// pull_requests may name PRs of another repository whose head is
		// this commit; those are not ours to evaluate from this delivery.
		if baseID := pr.GetBase().GetRepo().GetID(); baseID != 0 && repo.GetID() != 0 && baseID != repo.GetID() {
			continue
		}
		if pr.GetNumber() == 0 {
			continue
		}
		j := rt.job(meta, app.KindEvaluatePR, r, owner, name, sender)
		j.PRNumber = pr.GetNumber()
		j.HeadSHA = headSHA
		if s := pr.GetHead().GetSHA(); s != "" {
			j.HeadSHA = s
		}
		jobs = append(jobs, j)
	}
	if len(jobs) > 0 {
		return jobs, nil
	}
	if headSHA == "" {
		return nil, fmt.Errorf("%w: head_sha missing", errBadPayload)
	}
	j := rt.job(meta, app.KindEvaluateSHA, r, owner, name, sender)
	j.HeadSHA = headSHA
	return []app.Job{j}, nil
}

func (rt *router) push(e *github.PushEvent, meta app.Job) (routed, error) {
	repo := e.GetRepo()
	r := routed{action: "", repo: repo.GetFullName()}
	def := repo.GetDefaultBranch()
	if def == "" || e.GetRef() != "refs/heads/"+def {
		return ignored(r, "push to %s is not to the default branch", e.GetRef()), nil
	}
	if e.GetDeleted() {
		return ignored(r, "push deletes the default branch"), nil
	}
	repoPolicy := pushTouches(e, rt.repoPolicyPath)
	orgPolicy := strings.EqualFold(repo.GetName(), rt.orgPolicyRepo) && pushTouches(e, rt.orgPolicyPath)
	if !repoPolicy && !orgPolicy {
		return ignored(r, "push does not change the Shipgate policy"), nil
	}
	r, ok := rt.admit(r, e.GetInstallation(), e.GetSender(), "push")
	if !ok {
		return r, nil
	}
	owner, name := repo.GetOwner().GetLogin(), repo.GetName()
	if owner == "" {
		owner = repo.GetOwner().GetName() // push payloads also carry owner.name
	}
	if owner == "" || name == "" {
		return r, fmt.Errorf("%w: repository owner or name missing", errBadPayload)
	}
	if repoPolicy {
		j := rt.job(meta, app.KindReevaluateRepo, r, owner, name, e.GetSender())
		j.HeadSHA = e.GetAfter()
		r.jobs = append(r.jobs, j)
	}
	if orgPolicy {
		j := rt.job(meta, app.KindReevaluateOrg, r, owner, name, e.GetSender())
		j.HeadSHA = e.GetAfter()
		r.jobs = append(r.jobs, j)
	}
	return r, nil
}

// pushTouches reports whether any pushed commit added, modified or removed
// path. A payload at GitHub's commit-list limit counts as touching it.
func pushTouches(e *github.PushEvent, path string) bool {
	if len(e.Commits) >= pushCommitLimit {
		return true
	}
	commits := e.Commits
	if hc := e.GetHeadCommit(); hc != nil {
		commits = append(commits[:len(commits):len(commits)], hc)
	}
	for _, c := range commits {
		for _, list := range [][]string{c.Added, c.Modified, c.Removed} {
			for _, p := range list {
				if p == path {
					return true
				}
			}
		}
	}
	return false
}

func (rt *router) installation(e *github.InstallationEvent) routed {
	inst := e.GetInstallation()
	rt.logger.Info("github app installation event",
		"event", "installation", "action", e.GetAction(),
		"installation_id", inst.GetID(), "account", inst.GetAccount().GetLogin(),
		"repositories", len(e.Repositories), "sender", e.GetSender().GetLogin())
	return routed{outcome: "logged", reason: "installation events are logged, not queued",
		action: e.GetAction(), installationID: inst.GetID()}
}

func (rt *router) installationRepositories(e *github.InstallationRepositoriesEvent) routed {
	inst := e.GetInstallation()
	rt.logger.Info("github app installation repositories event",
		"event", "installation_repositories", "action", e.GetAction(),
		"installation_id", inst.GetID(), "account", inst.GetAccount().GetLogin(),
		"repository_selection", e.GetRepositorySelection(),
		"added", len(e.RepositoriesAdded), "removed", len(e.RepositoriesRemoved),
		"sender", e.GetSender().GetLogin())
	return routed{outcome: "logged", reason: "installation events are logged, not queued",
		action: e.GetAction(), installationID: inst.GetID()}
}
