package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	lru "github.com/hashicorp/golang-lru/v2"
)

// No pull request may be left without a check run. A delivery the queue
// refused, one lost with an in-process queue when the App restarted, or one
// GitHub never managed to deliver leaves its pull request without a run, and
// GitHub does not redeliver on its own. The redelivery scan (webhook) asks
// GitHub for another attempt of the deliveries it can find; the Sweeper is
// the backstop that needs no delivery at all: it walks the open pull
// requests of every installation and queues an evaluation for each head
// that has no Shipgate check run.

// SweepEvent is the Event of the jobs a sweep queues: the worker checks
// again, before evaluating, that the head still has no completed run.
const SweepEvent = "sweep"

// Defaults for SweepOptions.
const (
	DefaultSweepInterval = 10 * time.Minute
	DefaultSweepBudget   = 500
	sweepPerPage         = 100
	// sweepSeen bounds the heads remembered as having a run.
	sweepSeen = 100_000
)

// SweepOptions configures a Sweeper.
type SweepOptions struct {
	// Interval between sweeps (DefaultSweepInterval); Run sweeps once soon
	// after it starts.
	Interval time.Duration
	// Budget is the most GitHub API calls a sweep makes when the last one
	// found nothing to do (listing installations, repositories, open pull
	// requests, and one check-run lookup per head not yet known to have a
	// run). A sweep that spends it stops and the next one resumes where it
	// stopped, so a large organisation is covered over several sweeps
	// without a burst.
	Budget int
	// MaxBudget bounds how far the budget grows with a backlog (default 4
	// × Budget): while sweeps stop early and keep finding heads without a
	// run — a restart's worth of lost deliveries — each next sweep gets
	// twice the budget of the last and comes after a quarter of Interval,
	// so a backlog spread over many installations is covered in minutes,
	// not in one installation per Interval; a sweep that covers everything
	// and finds nothing missing sets it back to Budget.
	MaxBudget int
	// CheckName is the check run looked for ("shipgate").
	CheckName string
	// Start is the delay before Run's first sweep (default: the shorter
	// of 30 s and Interval); negative: the first sweep is after Interval.
	Start time.Duration
	// StaleAfter is how long a run may stay in progress before its head
	// counts as without a run (default 15 min: a job's attempts and
	// backoff are over by then; an in-process queue that restarted lost it).
	StaleAfter time.Duration
	// PerPage is the page size of the listings (default 100, GitHub's
	// maximum).
	PerPage int
	// Cursor, when set, keeps where a sweep that stopped early is to
	// resume outside the process, so that whichever replica sweeps next
	// (or this one after a restart) goes on from there instead of starting
	// over: redisqueue.SweepCursor with Redis. Nil keeps it in memory.
	Cursor SweepCursorStore
	// Lease, when set, is asked before each of Run's sweeps; the sweep is
	// skipped when it returns false. Replicas sharing a Redis pass one
	// lease (redisqueue.SweepLease), so that one of them sweeps per
	// interval instead of each repeating the listings.
	Lease func(ctx context.Context) bool
	// Enqueue queues the evaluations of heads without a run. ErrQueueFull
	// (any error) ends the sweep; the next resumes there.
	Enqueue func(ctx context.Context, jobs []Job) error
	// Room reports how many more jobs the queue can comfortably take; a
	// sweep queues at most that many. Nil: no limit.
	Room   func() int
	Logger *slog.Logger
	// Now is the clock (tests replace it).
	Now func() time.Time
}

// SweepResult is what one sweep did.
type SweepResult struct {
	Installations, Repos, PRs int
	// Checked is how many heads were looked up; Missing how many of those
	// had no Shipgate run; Queued how many of those were queued.
	Checked, Missing, Queued int
	// Calls is the API calls the sweep made, of Budget it could; Complete
	// is false when it stopped early (budget, room, an error) and the next
	// resumes.
	Calls, Budget int
	Complete      bool
	// Backlog is set when the sweep stopped early and had found heads
	// without a run: the next sweep comes sooner, with a larger budget.
	Backlog bool
}

// Sweeper periodically queues an evaluation for every open pull request
// head that has no Shipgate check run. Build it with NewSweeper.
type Sweeper struct {
	clients *Clients
	o       SweepOptions
	// covered remembers heads (owner/repo@sha) known to have a run, so a
	// sweep looks each head up once.
	covered *lru.Cache[string, struct{}]

	mu sync.Mutex
	// resume is where a sweep that stopped early continues (when there is
	// no Cursor store, or it cannot be read).
	resume SweepCursor
	// budget is the next sweep's budget (Budget, grown with a backlog).
	budget int
}

// SweepCursor is where a sweep that stopped early (its budget spent, the
// queue without room, an error) resumes: the installation, repository and
// pull request it had reached, with the listing pages they were on, so a
// resumed sweep spends its budget on what the last one did not reach
// instead of listing and looking up again what it did. The zero value
// starts at the beginning.
type SweepCursor struct {
	// Installation and InstallationPage: the installation being swept and
	// the page of the installations' listing it is on.
	Installation     int64 `json:"installation,omitempty"`
	InstallationPage int   `json:"installation_page,omitempty"`
	// Repo (owner/name) and RepoPage: the repository being swept and the
	// page of the installation's repositories it is on.
	Repo     string `json:"repo,omitempty"`
	RepoPage int    `json:"repo_page,omitempty"`
	// PRPage and PR: the page of the repository's open pull requests
	// being swept and the last pull request on it that was dealt with
	// (looked up and queued, or found with a run); 0: none yet.
	PRPage int `json:"pr_page,omitempty"`
	PR     int `json:"pr,omitempty"`
}

// SweepCursorStore keeps a Sweeper's cursor outside the process (shared by
// the replicas of one Redis: redisqueue.SweepCursor).
type SweepCursorStore interface {
	LoadSweepCursor(ctx context.Context) (SweepCursor, error)
	SaveSweepCursor(ctx context.Context, c SweepCursor) error
}

// NewSweeper builds a Sweeper over the App's clients.
func NewSweeper(clients *Clients, o SweepOptions) (*Sweeper, error) {
	if clients == nil || o.Enqueue == nil {
		return nil, errors.New("app: sweeper needs the App's clients and an Enqueue function")
	}
	if o.Interval < 0 || o.Budget < 0 {
		return nil, fmt.Errorf("app: sweeper: negative interval (%s) or budget (%d)", o.Interval, o.Budget)
	}
	if o.Interval == 0 {
		o.Interval = DefaultSweepInterval
	}
	if o.Budget == 0 {
		o.Budget = DefaultSweepBudget
	}
	if o.MaxBudget < o.Budget {
		o.MaxBudget = 4 * o.Budget
	}
	if o.CheckName == "" {
		o.CheckName = "shipgate"
	}
	if o.Start == 0 {
		o.Start = min(30*time.Second, o.Interval)
	} else if o.Start < 0 {
		o.Start = o.Interval
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 15 * time.Minute
	}
	if o.PerPage <= 0 || o.PerPage > 100 {
		o.PerPage = sweepPerPage
	}
	if o.Room == nil {
		o.Room = func() int { return int(^uint(0) >> 1) }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	covered, _ := lru.New[string, struct{}](sweepSeen)
	return &Sweeper{clients: clients, o: o, covered: covered, budget: o.Budget}, nil
}

// Run sweeps Start after it starts and then every Interval, until ctx
// ends. Errors are logged; the next sweep tries again.
func (s *Sweeper) Run(ctx context.Context) {
	first := time.NewTimer(s.o.Start)
	defer first.Stop()
	select {
	case <-ctx.Done():
		return
	case <-first.C:
	}
	next := time.NewTimer(s.o.Interval)
	defer next.Stop()
	for {
		wait := s.o.Interval
		if s.o.Lease == nil || s.o.Lease(ctx) {
			res, err := s.Sweep(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				s.o.Logger.Warn("sweep of open pull requests stopped", "error", err, "api_calls", res.Calls, "queued", res.Queued)
			case res.Queued > 0 || !res.Complete:
				s.o.Logger.Info("sweep of open pull requests", "installations", res.Installations, "repos", res.Repos, "prs", res.PRs,
					"checked", res.Checked, "missing_runs", res.Missing, "queued", res.Queued, "api_calls", res.Calls,
					"budget", res.Budget, "complete", res.Complete, "backlog", res.Backlog)
			}
			if res.Backlog {
				wait = s.o.Interval / 4
			}
		}
		next.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-next.C:
		}
	}
}

// errBudget ends a sweep that spent its API-call budget.
var errBudget = errors.New("sweep budget spent")

// errNoRoom ends a sweep when the queue has no more room.
var errNoRoom = errors.New("the queue has no room")

// sweep is one sweep's state.
type sweep struct {
	s      *Sweeper
	res    SweepResult
	room   int
	resume SweepCursor
	// reached is where the sweep is: the cursor the next one resumes at.
	reached SweepCursor
}

func (w *sweep) call() error {
	if w.res.Calls >= w.res.Budget {
		return errBudget
	}
	w.res.Calls++
	return nil
}

// Sweep walks every installation's repositories and open pull requests
// once (or until its budget is spent) and queues an evaluation for each
// head without a Shipgate check run by this App. It returns what it did;
// a budget or room shortfall is not an error (the next sweep resumes).
func (s *Sweeper) Sweep(ctx context.Context) (SweepResult, error) {
	s.mu.Lock()
	w := &sweep{s: s, room: s.o.Room(), resume: s.resume, res: SweepResult{Budget: s.budget}}
	s.mu.Unlock()
	if s.o.Cursor != nil {
		if c, err := s.o.Cursor.LoadSweepCursor(ctx); err != nil {
			s.o.Logger.Warn("could not read the shared sweep cursor; resuming where this replica stopped", "error", err)
		} else {
			w.resume = c
		}
	}
	err := w.installations(ctx)
	next := w.reached
	switch {
	case err == nil:
		w.res.Complete = true
		next = SweepCursor{}
	case errors.Is(err, errBudget), errors.Is(err, errNoRoom):
		err = nil
	}
	s.mu.Lock()
	s.resume = next
	switch {
	case w.res.Complete && w.res.Missing == 0:
		s.budget = s.o.Budget
	case !w.res.Complete && w.res.Missing > 0 && err == nil:
		// Stopped early (budget or room) with heads still to queue: a
		// backlog. Grow the budget when the budget was what stopped it.
		w.res.Backlog = true
		if w.res.Calls >= w.res.Budget {
			s.budget = min(2*s.budget, s.o.MaxBudget)
		}
	}
	s.mu.Unlock()
	if s.o.Cursor != nil {
		if serr := s.o.Cursor.SaveSweepCursor(context.WithoutCancel(ctx), next); serr != nil {
			s.o.Logger.Warn("could not record the shared sweep cursor; the next sweep elsewhere starts where the last recorded one stopped", "error", serr)
		}
	}
	return w.res, err
}

func (w *sweep) installations(ctx context.Context) error {
	opts := &github.ListOptions{PerPage: w.s.o.PerPage, Page: w.resume.InstallationPage}
	resuming := w.resume.Installation != 0
	for {
		if err := w.call(); err != nil {
			return err
		}
		list, resp, err := w.s.clients.App().Apps.ListInstallations(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing the App's installations: %w", err)
		}
		start := 0
		if resuming {
			// From the installation it had reached (the whole page when it
			// is gone from it: nothing is skipped).
			start = max(slices.IndexFunc(list, func(in *github.Installation) bool { return in.GetID() == w.resume.Installation }), 0)
		}
		for _, in := range list[start:] {
			id := in.GetID()
			var at SweepCursor
			if resuming && id == w.resume.Installation {
				at = w.resume
			}
			resuming = false
			if in.GetSuspendedAt().Time.IsZero() {
				w.res.Installations++
				w.reached = SweepCursor{Installation: id, InstallationPage: opts.Page}
				if err := w.repos(ctx, id, at); err != nil {
					return err
				}
			}
		}
		resuming = false
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// repos sweeps an installation's repositories, from at (the cursor it
// resumes at; zero: the first).
func (w *sweep) repos(ctx context.Context, installation int64, at SweepCursor) error {
	cl, err := w.s.clients.Installation(installation)
	if err != nil {
		return err
	}
	opts := &github.ListOptions{PerPage: w.s.o.PerPage, Page: at.RepoPage}
	resuming := at.Repo != ""
	for {
		if err := w.call(); err != nil {
			return err
		}
		list, resp, err := cl.Apps.ListRepos(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing the repositories of installation %d: %w", installation, err)
		}
		repos := list.Repositories
		start := 0
		if resuming {
			start = max(slices.IndexFunc(repos, func(r *github.Repository) bool { return r.GetOwner().GetLogin()+"/"+r.GetName() == at.Repo }), 0)
		}
		for _, r := range repos[start:] {
			full := r.GetOwner().GetLogin() + "/" + r.GetName()
			prPage, prDone := 0, 0
			if resuming && full == at.Repo {
				prPage, prDone = at.PRPage, at.PR
			}
			resuming = false
			if r.GetArchived() {
				continue
			}
			w.reached.Repo, w.reached.RepoPage = full, opts.Page
			w.res.Repos++
			if err := w.pulls(ctx, cl, installation, r.GetOwner().GetLogin(), r.GetName(), prPage, prDone); err != nil {
				return err
			}
		}
		resuming = false
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// pulls sweeps a repository's open pull requests from page (0: the first),
// after pull request done on it (0: none).
func (w *sweep) pulls(ctx context.Context, cl *github.Client, installation int64, owner, repo string, page, done int) error {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: w.s.o.PerPage, Page: page}}
	for {
		w.reached.PRPage, w.reached.PR = opts.Page, 0
		if err := w.call(); err != nil {
			return err
		}
		prs, resp, err := cl.PullRequests.List(ctx, owner, repo, opts)
		if err != nil {
			return fmt.Errorf("listing the open pull requests of %s/%s: %w", owner, repo, err)
		}
		start := 0
		if done != 0 {
			// Go on after the one dealt with (the whole page when it is
			// gone from it).
			start = slices.IndexFunc(prs, func(pr *github.PullRequest) bool { return pr.GetNumber() == done }) + 1
			w.reached.PR = done
			done = 0
		}
		// before[n] is the pull request dealt with before n on this page:
		// where to resume when n's job could not be queued.
		before := map[int]int{}
		var jobs []Job
		for _, pr := range prs[start:] {
			w.res.PRs++
			n, head := pr.GetNumber(), pr.GetHead().GetSHA()
			key := owner + "/" + repo + "@" + head
			before[n] = w.reached.PR
			if head == "" || w.s.covered.Contains(key) {
				w.reached.PR = n
				continue
			}
			if err := w.call(); err != nil {
				return w.queue(ctx, jobs, before, err)
			}
			w.res.Checked++
			state, err := w.runState(ctx, cl, owner, repo, head)
			if err != nil {
				return w.queue(ctx, jobs, before, err)
			}
			switch state {
			case runCompleted:
				w.s.covered.Add(key, struct{}{})
				w.reached.PR = n
				continue
			case runInProgress:
				w.reached.PR = n
				continue // a job is on it; looked up again next time round
			}
			w.res.Missing++
			if len(jobs) >= w.room-w.res.Queued {
				return w.queue(ctx, jobs, before, errNoRoom)
			}
			jobs = append(jobs, Job{Kind: KindEvaluatePR, DeliveryID: "sweep-" + strconv.FormatInt(w.s.o.Now().UnixMilli(), 10),
				Event: SweepEvent, InstallationID: installation, Owner: owner, Repo: repo, PRNumber: n,
				HeadSHA: head, ReceivedAt: w.s.o.Now()})
			w.reached.PR = n
		}
		if err := w.queue(ctx, jobs, before, nil); err != nil {
			return err
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// queue enqueues jobs, then returns then (the error that ended the page),
// or the enqueue's error (the cursor then goes back to before the first of
// jobs, so they are looked up again).
func (w *sweep) queue(ctx context.Context, jobs []Job, before map[int]int, then error) error {
	if len(jobs) > 0 {
		if err := w.s.o.Enqueue(ctx, jobs); err != nil {
			w.reached.PR = before[jobs[0].PRNumber]
			return fmt.Errorf("queueing %d pull requests without a check run: %w", len(jobs), err)
		}
		w.res.Queued += len(jobs)
		for _, j := range jobs {
			w.s.o.Logger.Info("pull request without a Shipgate check run queued by the sweep",
				"installation_id", j.InstallationID, "repo", j.Owner+"/"+j.Repo, "pr", j.PRNumber, "head_sha", shortSHA(j.HeadSHA))
		}
	}
	return then
}

// runState is what a head's Shipgate runs say.
type runState int

const (
	runNone       runState = iota // no run, or only runs in progress for longer than StaleAfter
	runInProgress                 // a run in progress (a job is on it)
	runCompleted                  // a completed run: Shipgate gave its verdict
)

// runState looks up head's check runs named CheckName created by this App
// (a run of the same name from another App or a workflow does not count:
// it is not Shipgate's verdict).
func (w *sweep) runState(ctx context.Context, cl *github.Client, owner, repo, head string) (runState, error) {
	runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, owner, repo, head, &github.ListCheckRunsOptions{
		CheckName: github.String(w.s.o.CheckName), AppID: github.Int64(w.s.clients.appID), Filter: github.String("all"),
		ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return runNone, fmt.Errorf("listing the check runs of %s/%s@%s: %w", owner, repo, shortSHA(head), err)
	}
	st := runNone
	for _, r := range runs.CheckRuns {
		if r.GetApp() != nil && r.GetApp().GetID() != 0 && r.GetApp().GetID() != w.s.clients.appID {
			continue
		}
		if r.GetStatus() == "completed" {
			return runCompleted, nil
		}
		if started := r.GetStartedAt().Time; started.IsZero() || w.s.o.Now().Sub(started) < w.s.o.StaleAfter {
			st = runInProgress
		}
	}
	return st, nil
}
