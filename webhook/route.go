package webhook

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

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
	// slowOnly turns decodePRFast off (tests compare both decoders).
	slowOnly bool
}

// fast decodes a pull_request-shaped payload with decodePRFast unless the
// router is told not to.
func (rt *router) fast(body []byte, e *hookPullRequest) bool {
	return !rt.slowOnly && decodePRFast(body, e)
}

// route decides what an authenticated delivery asks for. meta carries the
// delivery-level fields (DeliveryID, Event, ReceivedAt) copied into every job.
// Only routed events are decoded, into the few fields Shipgate reads
// (payload.go), so unknown event types and unused fields cost nothing and
// never fail a delivery.
func (rt *router) route(event string, body []byte, meta app.Job) (routed, error) {
	switch event {
	case "ping":
		return routed{outcome: "pong", reason: "ping"}, nil
	case "installation", "installation_repositories":
		var e hookInstallationEvent
		if err := decodeHook(event, body, &e); err != nil {
			return routed{}, err
		}
		return rt.installation(event, &e), nil
	case "pull_request":
		var e hookPullRequest
		if !rt.fast(body, &e) {
			e = hookPullRequest{}
			if err := decodeHook(event, body, &e); err != nil {
				return routed{}, err
			}
		}
		return rt.pullRequest(&e, meta)
	case "pull_request_review":
		var e hookReview
		var f hookPullRequest
		if rt.fast(body, &f) {
			e.hookCommon, e.PullRequest = f.hookCommon, f.PullRequest
		} else if err := decodeHook(event, body, &e); err != nil {
			return routed{}, err
		}
		return rt.pullRequestReview(&e, meta)
	case "check_run":
		var e hookCheckRun
		if err := decodeHook(event, body, &e); err != nil {
			return routed{}, err
		}
		return rt.checkRun(&e, meta)
	case "check_suite":
		var e hookCheckSuite
		if err := decodeHook(event, body, &e); err != nil {
			return routed{}, err
		}
		return rt.checkSuite(&e, meta)
	case "push":
		var e hookPush
		if err := decodeHook(event, body, &e); err != nil {
			return routed{}, err
		}
		return rt.push(&e, meta)
	default:
		return ignored(routed{}, "event %q is not used by Shipgate", event), nil
	}
}

// admit applies the filters every routed event shares: an installation id
// (deliveries without one are not App deliveries and cannot be acted on; a
// negative one is a malformed payload), and a sender that is not this App's
// own bot (no feedback loops).
func (rt *router) admit(r routed, c *hookCommon, event string) (routed, bool, error) {
	if c.Installation != nil {
		r.installationID = c.Installation.ID
	}
	switch {
	case r.installationID < 0:
		return r, false, fmt.Errorf("%w: installation id %d is not positive", errBadPayload, r.installationID)
	case r.installationID == 0:
		rt.logger.Warn("webhook delivery without installation id ignored",
			"event", event, "action", r.action, "repo", r.repo)
		return ignored(r, "delivery carries no installation id"), false, nil
	}
	if login := c.Sender.Login; login != "" && strings.EqualFold(login, *rt.botLogin.Load()) {
		return ignored(r, "sender %s is this app", login), false, nil
	}
	return r, true, nil
}

func (rt *router) job(meta app.Job, kind app.JobKind, r routed, owner, repo string, c *hookCommon) app.Job {
	j := meta
	j.Kind = kind
	j.Action = r.action
	j.InstallationID = r.installationID
	j.Owner = owner
	j.Repo = repo
	j.Sender = c.Sender.Login
	return j
}

// repoNames returns the validated owner and name of a payload's repository.
func repoNames(repo *hookRepo) (owner, name string, err error) {
	owner, name = repo.Owner.Login, repo.Name
	if owner == "" {
		owner = repo.Owner.Name
	}
	if err := checkRepoNames(owner, name); err != nil {
		return "", "", err
	}
	return owner, name, nil
}

// checkPRNumber validates a pull request number taken from a payload.
func checkPRNumber(n int) error {
	switch {
	case n == 0:
		return fmt.Errorf("%w: pull_request number missing", errBadPayload)
	case n < 0:
		return fmt.Errorf("%w: pull_request number %d is not positive", errBadPayload, n)
	}
	return nil
}

func (rt *router) pullRequest(e *hookPullRequest, meta app.Job) (routed, error) {
	r := routed{action: e.Action, repo: e.Repository.FullName, pr: e.Number}
	switch r.action {
	case "opened", "reopened", "synchronize", "ready_for_review":
	case "edited":
		if e.Changes == nil || e.Changes.Base == nil {
			return ignored(r, "pull_request edited without a base branch change"), nil
		}
	default:
		return ignored(r, "pull_request action %q does not change the review", r.action), nil
	}
	r, ok, err := rt.admit(r, &e.hookCommon, "pull_request")
	if !ok {
		return r, err
	}
	owner, name, err := repoNames(&e.Repository)
	if err != nil {
		return r, err
	}
	number := e.Number
	if number == 0 {
		number = e.PullRequest.Number
	}
	if err := checkPRNumber(number); err != nil {
		return r, err
	}
	if err := checkSHA("pull_request.head.sha", e.PullRequest.Head.SHA, false); err != nil {
		return r, err
	}
	r.pr = number
	j := rt.job(meta, app.KindEvaluatePR, r, owner, name, &e.hookCommon)
	j.PRNumber = number
	j.HeadSHA = e.PullRequest.Head.SHA
	r.jobs = []app.Job{j}
	return r, nil
}

func (rt *router) pullRequestReview(e *hookReview, meta app.Job) (routed, error) {
	pr := &e.PullRequest
	r := routed{action: e.Action, repo: e.Repository.FullName, pr: pr.Number}
	switch r.action {
	case "submitted", "dismissed":
	default:
		return ignored(r, "pull_request_review action %q does not change the review", r.action), nil
	}
	r, ok, err := rt.admit(r, &e.hookCommon, "pull_request_review")
	if !ok {
		return r, err
	}
	owner, name, err := repoNames(&e.Repository)
	if err != nil {
		return r, err
	}
	if err := checkPRNumber(pr.Number); err != nil {
		return r, err
	}
	if err := checkSHA("pull_request.head.sha", pr.Head.SHA, false); err != nil {
		return r, err
	}
	j := rt.job(meta, app.KindEvaluatePR, r, owner, name, &e.hookCommon)
	j.PRNumber = pr.Number
	j.HeadSHA = pr.Head.SHA
	r.jobs = []app.Job{j}
	return r, nil
}

func (rt *router) checkRun(e *hookCheckRun, meta app.Job) (routed, error) {
	run := &e.CheckRun
	r := routed{action: e.Action, repo: e.Repository.FullName}
	switch r.action {
	case "rerequested", "requested_action":
	default:
		// created and completed are mostly our own runs: acting on them loops.
		return ignored(r, "check_run action %q is not a re-run request", r.action), nil
	}
	if id := run.App.ID; id != rt.appID {
		return ignored(r, "check run belongs to app %d, not this app", id), nil
	}
	r, ok, err := rt.admit(r, &e.hookCommon, "check_run")
	if !ok {
		return r, err
	}
	if run.ID < 0 {
		return r, fmt.Errorf("%w: check_run id %d is not positive", errBadPayload, run.ID)
	}
	jobs, err := rt.checkJobs(meta, r, &e.hookCommon, run.PullRequests, run.HeadSHA)
	if err != nil {
		return r, err
	}
	for i := range jobs {
		jobs[i].CheckRunID = run.ID
	}
	r.jobs = jobs
	if len(jobs) == 1 {
		r.pr = jobs[0].PRNumber
	}
	return r, nil
}

func (rt *router) checkSuite(e *hookCheckSuite, meta app.Job) (routed, error) {
	suite := &e.CheckSuite
	r := routed{action: e.Action, repo: e.Repository.FullName}
	if r.action != "rerequested" {
		// requested is GitHub asking every app for runs on a push; Shipgate
		// answers pull_request events instead. completed is our own output.
		return ignored(r, "check_suite action %q is not a re-run request", r.action), nil
	}
	if id := suite.App.ID; id != rt.appID {
		return ignored(r, "check suite belongs to app %d, not this app", id), nil
	}
	r, ok, err := rt.admit(r, &e.hookCommon, "check_suite")
	if !ok {
		return r, err
	}
	jobs, err := rt.checkJobs(meta, r, &e.hookCommon, suite.PullRequests, suite.HeadSHA)
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
func (rt *router) checkJobs(meta app.Job, r routed, c *hookCommon, prs []hookPR, headSHA string) ([]app.Job, error) {
	owner, name, err := repoNames(&c.Repository)
	if err != nil {
		return nil, err
	}
	if err := checkSHA("head_sha", headSHA, false); err != nil {
		return nil, err
	}
	var jobs []app.Job
	for _, pr := range prs {
		// pull_requests may name PRs of another repository whose head is
		// this commit; those are not ours to evaluate from this delivery.
		if baseID := pr.Base.Repo.ID; baseID != 0 && c.Repository.ID != 0 && baseID != c.Repository.ID {
			continue
		}
		if pr.Number == 0 {
			continue
		}
		if err := checkPRNumber(pr.Number); err != nil {
			return nil, err
		}
		if err := checkSHA("pull_requests[].head.sha", pr.Head.SHA, false); err != nil {
			return nil, err
		}
		j := rt.job(meta, app.KindEvaluatePR, r, owner, name, c)
		j.PRNumber = pr.Number
		j.HeadSHA = headSHA
		if s := pr.Head.SHA; s != "" {
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
	j := rt.job(meta, app.KindEvaluateSHA, r, owner, name, c)
	j.HeadSHA = headSHA
	return []app.Job{j}, nil
}

func (rt *router) push(e *hookPush, meta app.Job) (routed, error) {
	repo := &e.Repository
	r := routed{action: "", repo: repo.FullName}
	def := repo.DefaultBranch
	if def == "" || e.Ref != "refs/heads/"+def {
		return ignored(r, "push to %s is not to the default branch", e.Ref), nil
	}
	if e.Deleted {
		return ignored(r, "push deletes the default branch"), nil
	}
	repoPolicy := pushTouches(e, rt.repoPolicyPath)
	orgPolicy := strings.EqualFold(repo.Name, rt.orgPolicyRepo) && pushTouches(e, rt.orgPolicyPath)
	if !repoPolicy && !orgPolicy {
		return ignored(r, "push does not change the Shipgate policy"), nil
	}
	r, ok, err := rt.admit(r, &e.hookCommon, "push")
	if !ok {
		return r, err
	}
	owner, name, err := repoNames(repo)
	if err != nil {
		return r, err
	}
	if err := checkSHA("after", e.After, false); err != nil {
		return r, err
	}
	if repoPolicy {
		j := rt.job(meta, app.KindReevaluateRepo, r, owner, name, &e.hookCommon)
		j.HeadSHA = e.After
		r.jobs = append(r.jobs, j)
	}
	if orgPolicy {
		j := rt.job(meta, app.KindReevaluateOrg, r, owner, name, &e.hookCommon)
		j.HeadSHA = e.After
		r.jobs = append(r.jobs, j)
	}
	return r, nil
}

// pushTouches reports whether any pushed commit added, modified or removed
// path. A payload at GitHub's commit-list limit counts as touching it.
func pushTouches(e *hookPush, path string) bool {
	if len(e.Commits) >= pushCommitLimit {
		return true
	}
	commits := e.Commits
	if hc := e.HeadCommit; hc != nil {
		commits = append(commits[:len(commits):len(commits)], *hc)
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

// installation logs installation and installation_repositories events; they
// queue nothing.
func (rt *router) installation(event string, e *hookInstallationEvent) routed {
	var id int64
	var account string
	if e.Installation != nil {
		id, account = e.Installation.ID, e.Installation.Account.Login
	}
	attrs := []any{"event", event, "action", e.Action, "installation_id", id, "account", account}
	if event == "installation" {
		attrs = append(attrs, "repositories", len(e.Repositories))
	} else {
		attrs = append(attrs, "repository_selection", e.RepositorySelection,
			"added", len(e.RepositoriesAdded), "removed", len(e.RepositoriesRemoved))
	}
	rt.logger.Info("github app "+strings.ReplaceAll(event, "_", " ")+" event", append(attrs, "sender", e.Sender.Login)...)
	return routed{outcome: "logged", reason: "installation events are logged, not queued",
		action: e.Action, installationID: id}
}
