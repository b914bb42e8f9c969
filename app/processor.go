package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/gather"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// Config tunes the App's worker. Zero values take the defaults.
type Config struct {
	// CheckName is the check run's name (default "shipgate"): the name to
	// require in branch protection.
	CheckName string
	// PolicyPath is the repository policy file (default .github/shipgate.yml),
	// always read from the pull request's base.
	PolicyPath string
	// OrgPolicyRepo and OrgPolicyPath locate the organisation default
	// (default: shipgate.yml in the org's .github repository).
	OrgPolicyRepo, OrgPolicyPath string
	// OrgPolicyTTL is how long the org default is cached (default 5 min).
	OrgPolicyTTL time.Duration
	// MaxFiles is the most pull-request files read (GitHub lists 3,000).
	MaxFiles int
	// SummaryBytes bounds the check-run summary (default 65,000 bytes, under
	// GitHub's 65,535 characters).
	SummaryBytes int
	// ContentCacheBytes bounds the cache of file contents read at a SHA.
	ContentCacheBytes int
	// Version is printed in check-run summaries.
	Version string
	// SharedQueue is set when several replicas share the job queue
	// (Redis): a job may then resume another replica's work, so the worker
	// adopts a run left in progress on the head (one more API call per
	// evaluation) and closes one left on a superseded head.
	SharedQueue bool
	Logger      *slog.Logger
	// Now is the clock (tests replace it).
	Now func() time.Time
	// Sleep waits between tries of a check-run write GitHub failed (nil:
	// really wait; tests advance a fake clock instead). It returns early
	// when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// WriteOutage is how long a check-run write GitHub answers with a
	// server error (or not at all) is tried again in place before the job
	// attempt fails (default DefaultWriteOutage).
	WriteOutage time.Duration
	// Judge is the engine a gathered input is judged by (default
	// judge.CompareContext). End-to-end tests wrap it, to make a judgement
	// outlast the job timeout without depending on the machine's speed.
	Judge func(ctx context.Context, in report.Input) (report.Report, error)
	// BotLogin returns the App's own bot user ("<slug>[bot]"), or "" while
	// the slug is not known yet. Only that user's review comments count as
	// suggestions already posted: anyone else could quote a suggestion's
	// marker to stop it being posted. While it is "" any bot's count (a
	// person cannot post as a bot), so a suggestion is never lost to a
	// person's comment.
	BotLogin func() string
}

func (c *Config) defaults() {
	if c.CheckName == "" {
		c.CheckName = "shipgate"
	}
	if c.PolicyPath == "" {
		c.PolicyPath = ".github/shipgate.yml"
	}
	if c.OrgPolicyRepo == "" {
		c.OrgPolicyRepo = ".github"
	}
	if c.OrgPolicyPath == "" {
		c.OrgPolicyPath = "shipgate.yml"
	}
	if c.OrgPolicyTTL == 0 {
		c.OrgPolicyTTL = 5 * time.Minute
	}
	if c.MaxFiles == 0 {
		c.MaxFiles = 3000
	}
	if c.SummaryBytes == 0 {
		c.SummaryBytes = 65000
	}
	if c.ContentCacheBytes == 0 {
		c.ContentCacheBytes = 64 << 20
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Sleep == nil {
		c.Sleep = sleepCtx
	}
	if c.WriteOutage <= 0 {
		c.WriteOutage = DefaultWriteOutage
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Judge == nil {
		c.Judge = judge.CompareContext
	}
}

// Worker evaluates pull requests and publishes check runs. It
// implements the webhook queue's processor and failure reporter.
type Worker struct {
	clients  *Clients
	cfg      Config
	contents *gather.Cache
	orgMu    sync.Mutex
	org      map[string]ttlEntry
	runsMu   sync.Mutex
	runs     map[string]*openRun // owner/repo#n@head → the in-progress run a retry reuses
	// unsure holds the keys (as runs) whose run creation failed in a way
	// GitHub may have applied (a 5xx or a lost connection after the POST):
	// the retry looks the run up on GitHub before it creates one, so the
	// head never gets a second run with the first left in progress.
	unsure   map[string]bool
	memberMu sync.Mutex
	members  map[string]memberEntry // team|user → membership, briefly cached
}

// openRun is a check run this worker created and has not completed yet.
type openRun struct {
	id     int64
	posted int // annotations already appended (a retry must not append them again)
	// recount is set when posted may be wrong: an append failed in a way
	// GitHub may have applied (5xx, lost connection), or the run was
	// adopted from another replica. The next publish counts the run's
	// annotations on GitHub first.
	recount bool
}

// NewWorker builds the worker.
func NewWorker(clients *Clients, cfg Config) *Worker {
	cfg.defaults()
	return &Worker{clients: clients, cfg: cfg, contents: gather.NewCache(cfg.ContentCacheBytes),
		org: map[string]ttlEntry{}, runs: map[string]*openRun{}, unsure: map[string]bool{}, members: map[string]memberEntry{}}
}

// log is the logger of the job ctx carries (its LogAttrs on every line),
// else the worker's.
func (p *Worker) log(ctx context.Context) *slog.Logger {
	if l := loggerFrom(ctx); l != nil {
		return l
	}
	return p.cfg.Logger
}

// Process runs one job, with the job's logger in its context (unless the
// queue put one there).
func (p *Worker) Process(ctx context.Context, job Job) ([]Job, error) {
	cl, err := p.clients.Installation(job.InstallationID)
	if err != nil {
		return nil, err
	}
	if loggerFrom(ctx) == nil {
		ctx = WithLogger(ctx, p.cfg.Logger.With(job.LogAttrs()...))
	}
	switch job.Kind {
	case KindEvaluatePR:
		return nil, p.evaluatePR(ctx, cl, job, job.PRNumber)
	case KindEvaluateSHA:
		return p.evaluateSHA(ctx, cl, job)
	case KindReevaluateRepo:
		return p.openPRJobs(ctx, cl, job, job.Owner, job.Repo, "")
	case KindReevaluateOrg:
		// The org default changed: forget the cached copy first.
		p.orgMu.Lock()
		delete(p.org, job.Owner)
		p.orgMu.Unlock()
		return p.orgJobs(ctx, cl, job)
	}
	return nil, fmt.Errorf("unknown job kind %q", job.Kind)
}

// evaluateSHA handles a re-run without pull requests (fork PRs leave the
// check run's pull_requests empty): the run's external_id names the PR;
// otherwise every open PR whose head is the SHA is evaluated.
func (p *Worker) evaluateSHA(ctx context.Context, cl *github.Client, job Job) ([]Job, error) {
	if job.CheckRunID != 0 {
		run, _, err := cl.Checks.GetCheckRun(ctx, job.Owner, job.Repo, job.CheckRunID)
		if err != nil {
			return nil, fmt.Errorf("reading check run %d: %w", job.CheckRunID, err)
		}
		if c, ok := report.ParseExternalID(run.GetExternalID()); ok {
			return nil, p.evaluatePR(ctx, cl, job, c.PR)
		}
	}
	return p.openPRJobs(ctx, cl, job, job.Owner, job.Repo, job.HeadSHA)
}

// openPRJobs returns one evaluation job per open pull request of a
// repository (only those with the given head when headSHA is set).
func (p *Worker) openPRJobs(ctx context.Context, cl *github.Client, job Job, owner, repo, headSHA string) ([]Job, error) {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	var out []Job
	for {
		prs, resp, err := cl.PullRequests.List(ctx, owner, repo, opts)
		if err != nil {
			return nil, fmt.Errorf("listing open pull requests of %s/%s: %w", owner, repo, err)
		}
		for _, pr := range prs {
			if headSHA != "" && pr.GetHead().GetSHA() != headSHA {
				continue
			}
			j := job
			j.Kind, j.Owner, j.Repo, j.PRNumber, j.HeadSHA, j.CheckRunID = KindEvaluatePR, owner, repo, pr.GetNumber(), pr.GetHead().GetSHA(), 0
			out = append(out, j)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// orgJobs re-evaluates every repository of the installation (the org
// default policy changed).
func (p *Worker) orgJobs(ctx context.Context, cl *github.Client, job Job) ([]Job, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []Job
	for {
		repos, resp, err := cl.Apps.ListRepos(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the installation's repositories: %w", err)
		}
		for _, r := range repos.Repositories {
			if r.GetArchived() {
				continue
			}
			j := job
			j.Kind, j.Owner, j.Repo, j.PRNumber, j.HeadSHA = KindReevaluateRepo, r.GetOwner().GetLogin(), r.GetName(), 0, ""
			out = append(out, j)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// isRunOf reports whether a check run's external ID names pull request
// n (report.CheckRun).
func isRunOf(run *github.CheckRun, n int) bool {
	c, ok := report.ParseExternalID(run.GetExternalID())
	return ok && c.PR == n
}

// evaluation is one pull request being evaluated.
type evaluation struct {
	owner, repo string
	pr          *github.PullRequest
	head, base  string
	policy      *policy.Policy
	policySrc   string
	policyErrs  []*policy.Error // the base's policy file, enforced: its errors make the defaults apply
	// headPolicyErrs are the errors of the policy file the pull request
	// proposes (not enforced; annotated so the author fixes them).
	headPolicyErrs []*policy.Error
	// policyChange is the policy file the pull request edits, when it
	// does and the proposed file parses.
	policyChange *report.PolicyChange
	files        []report.File
	truncated    bool
	notes        []string // what the gatherer resolved or could not check
	runID        int64
	// delivery is the ID of the delivery whose job this is (named in the
	// run's summary: attempt.go).
	delivery string
	// swept: the sweep queued this job, finding no completed run on the
	// head. A run left in progress there (an orphan of a write outage or
	// of a restart) is adopted and completed, never left beside a new one.
	swept bool
	// resumed: the job crossed a restart (Job.Resumed).
	resumed bool
}

// evaluatePR evaluates one pull request at its current head and publishes
// the check run. A job whose head SHA is no longer the PR's head is stale
// and skipped: GitHub sends a synchronize delivery for every push, and the
// job for the new head (queued behind, or already run) checks it, so each
// head gets exactly one run. Runs this worker left in progress on an older
// head of the PR (a failed attempt superseded by a newer push) are closed.
func (p *Worker) evaluatePR(ctx context.Context, cl *github.Client, job Job, n int) error {
	log := p.log(ctx)
	if job.PRNumber != n {
		log = log.With("pr", n)
		ctx = WithLogger(ctx, log)
	}
	pr, _, err := cl.PullRequests.Get(ctx, job.Owner, job.Repo, n)
	if err != nil {
		if isNotFound(err) {
			log.Warn("pull request not found; nothing to check")
			return nil
		}
		return fmt.Errorf("reading pull request #%d: %w", n, err)
	}
	open := pr.GetState() == "open"
	p.closeSuperseded(ctx, cl, job.Owner, job.Repo, n, pr.GetHead().GetSHA(), open)
	if !open {
		log.Info("pull request is not open; not checked", "state", pr.GetState())
		return nil
	}
	ev := &evaluation{owner: job.Owner, repo: job.Repo, pr: pr, head: pr.GetHead().GetSHA(), base: pr.GetBase().GetSHA()}
	if job.HeadSHA != "" && job.HeadSHA != ev.head {
		log.Info("stale job skipped: the pull request moved on, and the delivery for its new head checks it",
			"job_head", shortSHA(job.HeadSHA), "head", shortSHA(ev.head))
		if p.cfg.SharedQueue {
			p.cancelStaleOnGitHub(ctx, cl, job.Owner, job.Repo, job.HeadSHA, ev.head, n, true)
		}
		return nil
	}
	if job.Event == SweepEvent && p.checkedAlready(ctx, cl, ev) {
		log.Info("swept pull request already checked: its head has a completed run", "head", shortSHA(ev.head))
		return nil
	}
	ev.delivery, ev.resumed = job.DeliveryID, job.Resumed
	ev.swept = job.Event == SweepEvent
	if p.publishedBefore(ctx, cl, job, ev) {
		log.Info("job already done by an earlier attempt: its check run is published on the head", "head", shortSHA(ev.head),
			"attempt", attemptOf(ctx))
		return nil
	}
	started := p.cfg.Now()
	res, err := p.gather(ctx, cl, ev)
	if err != nil {
		return err
	}
	if res.Empty() {
		// Nothing to read: complete the run in one call, so the check
		// exists for branch protection.
		return p.retryWrites(ctx, func(ctx context.Context) error { return p.publishNothing(ctx, cl, ev) })
	}
	// judge: the pure engine
	r, err := p.cfg.Judge(ctx, res.Input)
	if _, stopped := errors.AsType[*judge.IncompleteError](err); stopped && !errors.Is(err, context.DeadlineExceeded) {
		return err // canceled (the queue is stopping): the job is not judged
	} else if stopped {
		// The job's time ran out inside the engine. The report fails closed
		// and evaluating again would do the same work, so it is published
		// (with time of its own) rather than retried as a transient fault.
		log.Warn("comparison stopped by the job timeout; publishing its fail-closed report", "error", err)
		var cancel context.CancelFunc
		ctx, cancel = WithJobTimeout(context.WithoutCancel(ctx), publishGrace)
		defer cancel()
	}
	approvals, err := p.approve(ctx, cl, ev, &r)
	if err != nil {
		return err
	}
	if err := p.retryWrites(ctx, func(ctx context.Context) error { return p.publish(ctx, cl, ev, r, approvals) }); err != nil {
		return err
	}
	log.Info("pull request checked", "decision", r.Decision, "files", len(ev.files), "findings", len(r.Findings),
		"head", shortSHA(ev.head), "duration_ms", p.cfg.Now().Sub(started).Milliseconds(),
		// time its writes waited for the installation's write pace (not
		// counted against the job timeout)
		"pace_wait_ms", PaceWaited(ctx).Milliseconds())
	return nil
}

// checkedAlready reports whether the head of a swept pull request got a
// completed run since the sweep looked (a delivery's job was running or
// queued then): evaluating it again would only post a second run. An error
// reads as "not checked": the evaluation goes ahead.
func (p *Worker) checkedAlready(ctx context.Context, cl *github.Client, ev *evaluation) bool {
	runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, ev.owner, ev.repo, ev.head, &github.ListCheckRunsOptions{
		CheckName: github.String(p.cfg.CheckName), AppID: github.Int64(p.clients.appID), Status: github.String("completed"),
		Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 1}})
	return err == nil && (runs.GetTotal() > 0 || len(runs.CheckRuns) > 0)
}

// publishGrace is the time a report whose comparison the job timeout
// stopped gets to be published.
const publishGrace = 30 * time.Second

// gather reads what the engine needs through the shared gatherer over
// GitHub's API (the same gatherer `shipgate diff` runs over git), with the
// organisation default the repository's policy extends.
func (p *Worker) gather(ctx context.Context, cl *github.Client, ev *evaluation) (*gather.Result, error) {
	org, orgErrs, orgExists, err := p.loadOrgPolicy(ctx, cl, ev.owner)
	if err != nil {
		return nil, err
	}
	src := &gather.GitHub{Client: cl, Owner: ev.owner, Repo: ev.repo, PR: ev.pr.GetNumber(), BaseSHA: ev.base, HeadSHA: ev.head,
		Cache: p.contents, MaxFiles: p.cfg.MaxFiles}
	res, err := gather.Gather(ctx, src, gather.Options{PolicyPath: p.cfg.PolicyPath, Org: org, OrgBroken: len(orgErrs) > 0})
	if err != nil {
		return nil, err
	}
	ev.policy = res.Input.Policy
	ev.policyErrs = append(orgErrs, res.PolicyErrs...)
	ev.headPolicyErrs = res.HeadPolicyErrs
	ev.policyChange = res.Input.PolicyChange
	ev.files = res.Input.Files
	ev.truncated = res.Truncated
	ev.notes = res.Notes
	var srcs []string
	if res.BasePolicyExists {
		srcs = append(srcs, fmt.Sprintf("%s/%s@%s:%s", ev.owner, ev.repo, shortSHA(ev.base), p.cfg.PolicyPath))
	}
	if orgExists {
		srcs = append(srcs, fmt.Sprintf("%s/%s:%s (organisation default)", ev.owner, p.cfg.OrgPolicyRepo, p.cfg.OrgPolicyPath))
	}
	if len(srcs) == 0 {
		ev.policySrc = "defaults (no " + p.cfg.PolicyPath + " on the base branch, no organisation default)"
	} else {
		ev.policySrc = strings.Join(srcs, ", extending ")
	}
	p.log(ctx).Debug("gathered", "files", len(ev.files), "api_calls", src.Calls(), "notes", len(res.Notes))
	return res, nil
}

// loadOrgPolicy reads and parses the organisation default policy (through
// the gatherer: gather.ReadOrgPolicy), cached for a while: it lives on a
// branch, not at a SHA.
func (p *Worker) loadOrgPolicy(ctx context.Context, cl *github.Client, owner string) (*policy.Policy, []*policy.Error, bool, error) {
	p.orgMu.Lock()
	e, ok := p.org[owner]
	p.orgMu.Unlock()
	if ok && p.cfg.Now().Sub(e.at) < p.cfg.OrgPolicyTTL {
		return e.v.Policy, e.v.Errs, e.v.Exists, nil
	}
	v, err := gather.ReadOrgPolicy(ctx, cl, owner, p.cfg.OrgPolicyRepo, p.cfg.OrgPolicyPath)
	if err != nil {
		return nil, nil, false, err
	}
	p.orgMu.Lock()
	p.org[owner] = ttlEntry{v: v, at: p.cfg.Now()}
	p.orgMu.Unlock()
	return v.Policy, v.Errs, v.Exists, nil
}

func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// JobFailed runs after a job's last attempt failed, so that no check stays
// "in progress" forever and a failure is never invisible: it completes as
// failed every run left in progress on the job's head, or, when the job
// failed before creating one (say, reading the policy), creates a failed
// run there. Either asks for a re-run.
func (p *Worker) JobFailed(ctx context.Context, job Job, cause error) {
	if loggerFrom(ctx) == nil {
		ctx = WithLogger(ctx, p.cfg.Logger.With(job.LogAttrs()...))
	}
	cl, err := p.clients.Installation(job.InstallationID)
	if err != nil {
		return
	}
	head := job.HeadSHA
	if job.Kind == KindEvaluatePR {
		if pr, _, err := cl.PullRequests.Get(ctx, job.Owner, job.Repo, job.PRNumber); err == nil {
			head = pr.GetHead().GetSHA()
		}
	}
	if head == "" {
		return
	}
	heads := []string{head}
	if job.HeadSHA != "" && job.HeadSHA != head {
		heads = append(heads, job.HeadSHA)
	}
	if job.Kind == KindEvaluatePR {
		p.forgetRuns(job.Owner, job.Repo, job.PRNumber)
	} else {
		p.forgetRuns(job.Owner, job.Repo, 0, heads...)
	}
	failed := 0
	for _, h := range heads {
		runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, job.Owner, job.Repo, h, &github.ListCheckRunsOptions{
			CheckName: github.String(p.cfg.CheckName), Status: github.String("in_progress")})
		if err != nil {
			p.log(ctx).Error("could not list check runs to mark a failed job", "repo", job.Owner+"/"+job.Repo, "error", err)
			return
		}
		for _, run := range runs.CheckRuns {
			if !p.failRun(ctx, cl, job.Owner, job.Repo, run.GetID(), cause) && job.Kind == KindEvaluatePR {
				// An orphan in progress (GitHub's writes are failing): the
				// next evaluation of this head adopts and completes it
				// instead of making a second run beside it.
				p.runsMu.Lock()
				p.unsure[runPrefix(job.Owner, job.Repo, job.PRNumber)+h] = true
				p.runsMu.Unlock()
			}
			failed++
		}
	}
	stale := job.HeadSHA != "" && job.HeadSHA != head // the job for the new head reports
	if failed > 0 || stale || (job.Kind != KindEvaluatePR && job.Kind != KindEvaluateSHA) {
		return
	}
	now := &github.Timestamp{Time: p.cfg.Now()}
	opts := github.CreateCheckRunOptions{Name: p.cfg.CheckName, HeadSHA: head, Status: github.String("completed"),
		Conclusion: github.String("failure"), StartedAt: now, CompletedAt: now, Output: p.failureOutput(cause)}
	if job.Kind == KindEvaluatePR {
		opts.ExternalID = github.String(report.CheckRun{PR: job.PRNumber}.ExternalID())
	}
	if _, _, err := cl.Checks.CreateCheckRun(ctx, job.Owner, job.Repo, opts); err != nil {
		p.log(ctx).Error("could not create a check run to report a failed job", "repo", job.Owner+"/"+job.Repo, "error", err)
	}
}

// failRun completes a run as failed with a message that says what to do,
// and reports whether GitHub took it.
func (p *Worker) failRun(ctx context.Context, cl *github.Client, owner, repo string, id int64, cause error) bool {
	_, _, err := cl.Checks.UpdateCheckRun(ctx, owner, repo, id, github.UpdateCheckRunOptions{
		Name: p.cfg.CheckName, Status: github.String("completed"), Conclusion: github.String("failure"),
		CompletedAt: &github.Timestamp{Time: p.cfg.Now()}, Output: p.failureOutput(cause),
	})
	if err != nil {
		p.log(ctx).Error("could not mark a check run failed; the next evaluation of its head completes it (or the sweep, after a restart)",
			"repo", owner+"/"+repo, "check_run_id", id, "error", err)
		return false
	}
	return true
}

// failureOutput is the output of a run whose job failed for good.
func (p *Worker) failureOutput(cause error) *github.CheckRunOutput {
	summary := "Shipgate could not finish this check: " + sanitizeError(cause) +
		"\n\nNothing was concluded about this change. Press **Re-run** to try again; if it keeps failing, the App's logs name the cause."
	return &github.CheckRunOutput{Title: github.String("Could not complete the check: press Re-run"), Summary: github.String(summary)}
}

// sanitizeError keeps an error message short and free of URLs' query
// strings (tokens never appear in them, but keep it tidy).
func sanitizeError(err error) string {
	if err == nil {
		return "an unknown error"
	}
	s := err.Error()
	if i := strings.Index(s, "?"); i >= 0 {
		if j := strings.IndexAny(s[i:], " :"); j > 0 {
			s = s[:i] + s[i+j:]
		}
	}
	if len(s) > 500 {
		s = s[:497] + "..."
	}
	return s
}
