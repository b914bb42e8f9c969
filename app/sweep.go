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
	// is set when the sweep ended a cycle — every installation swept to
	// its end in it, none failing — and false when the next resumes
	// (budget, room, an error).
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
	// resume is where the next sweep continues (when there is no Cursor
	// store, or it cannot be read).
	resume SweepCursor
	// budget is the next sweep's budget (Budget, grown with a backlog).
	budget int
}

// SweepCursor is where the next sweep resumes. Sweeps go round the
// installations in cycles: each sweep gives every installation not yet
// swept to its end in this cycle a share of the budget; the cycle ends when
// each has been. The cursor holds, for each installation a sweep did not
// finish (its share of the budget spent, the queue without room, an error),
// the repository and pull request it had reached, with the listing pages
// they were on, so a resumed sweep spends its budget on what the last one
// did not reach instead of listing and looking up again what it did; the
// installations done in this cycle; and the installation the next sweep
// serves first. The zero value starts a cycle, every installation at the
// beginning.
type SweepCursor struct {
	// Installations holds, by installation ID, where the sweep of each
	// installation that was not finished resumes (absent: at its first
	// repository).
	Installations map[int64]InstallationCursor `json:"installations,omitempty"`
	// Done lists the installations swept to their end in this cycle (or
	// whose turn in it ended on an error: they resume at their cursor in
	// the next cycle, so that one failing installation does not keep the
	// sweeps from the others); they are not swept again until every
	// installation has been.
	Done []int64 `json:"done,omitempty"`
	// Next is the installation served first (0: the first listed): the
	// first one the last sweep's budget did not reach, so that with more
	// installations than one budget serves, the sweeps take them in turn.
	Next int64 `json:"next,omitempty"`
}

// InstallationCursor is where the sweep of one installation resumes.
type InstallationCursor struct {
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

// errBudget ends an installation's part of a sweep that spent its share of
// the budget (or the sweep, when the whole budget is spent).
var errBudget = errors.New("sweep budget spent")

// errNoRoom ends a sweep when the queue has no more room.
var errNoRoom = errors.New("the queue has no room")

// sweepMinShare is the least share of a sweep's budget an installation is
// given: resuming one costs a listing of its repositories and one of a page
// of pull requests before the first lookup, so a smaller share would spend
// most of itself finding its place again. With more installations than the
// budget gives that many calls each, the sweep serves as many as it can and
// the next one starts with the first it did not reach (SweepCursor.Next).
const sweepMinShare = 10

// sweep is one sweep's state.
type sweep struct {
	s      *Sweeper
	res    SweepResult
	room   int
	resume SweepCursor
	// limit is the call count at which the installation being swept has
	// spent its share (at most res.Budget); roomLimit the queued count at
	// which it has used its share of the queue's room.
	limit, roomLimit int
	// reached is where the installation being swept is: where the next
	// sweep resumes it.
	reached InstallationCursor
	// unfinished is set when an installation was not swept to its end
	// (its share or the budget spent, no room, an error, not reached);
	// budgetStopped when a share or the budget was what stopped one.
	unfinished, budgetStopped bool
}

func (w *sweep) call() error {
	if w.res.Calls >= w.limit || w.res.Calls >= w.res.Budget {
		return errBudget
	}
	w.res.Calls++
	return nil
}

// Sweep walks every installation's repositories and open pull requests
// once (or until its budget is spent) and queues an evaluation for each
// head without a Shipgate check run by this App. The budget is shared out
// among the installations — each gets an equal part of what is left when
// its turn comes, at least sweepMinShare calls, and what the others left
// unspent goes round again — and so is the queue's room, so that a large
// backlog in one installation does not starve the others: each resumes
// where its last share ended. An installation GitHub fails to list is
// skipped for this sweep (it resumes there next time; the error is
// returned) and the others are swept. It returns what it did; a budget or
// room shortfall is not an error (the next sweep resumes).
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
	next, err := w.installations(ctx)
	if errors.Is(err, errBudget) {
		err = nil // the listing of the installations spent it (unfinished)
	}
	w.res.Complete = err == nil && !w.unfinished
	if w.res.Complete {
		next = SweepCursor{}
	}
	s.mu.Lock()
	s.resume = next
	switch {
	case w.res.Complete && w.res.Missing == 0:
		s.budget = s.o.Budget
	case !w.res.Complete && w.res.Missing > 0 && ctx.Err() == nil && !errors.Is(err, errEnqueue):
		// Stopped early (budget or room) with heads still to queue: a
		// backlog (also when one installation failed: the others have
		// one). Grow the budget when the budget was what stopped it.
		w.res.Backlog = true
		if w.budgetStopped {
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

// installations lists the App's installations and sweeps those not done in
// this cycle, a share of the budget each, then what is left to those that
// spent their share; it returns the cursor the next sweep resumes at.
func (w *sweep) installations(ctx context.Context) (SweepCursor, error) {
	next := SweepCursor{Installations: map[int64]InstallationCursor{}}
	for id, c := range w.resume.Installations {
		next.Installations[id] = c
	}
	// Every page of the installations: the shares need their number.
	var active []int64
	w.limit = w.res.Budget
	opts := &github.ListOptions{PerPage: w.s.o.PerPage}
	for {
		if err := w.call(); err != nil {
			w.unfinished, w.budgetStopped = true, true
			return w.resume, err // nothing swept: resume as before
		}
		list, resp, err := w.s.clients.App().Apps.ListInstallations(ctx, opts)
		if err != nil {
			w.unfinished = true
			return w.resume, fmt.Errorf("listing the App's installations: %w", err)
		}
		for _, in := range list {
			if in.GetSuspendedAt().Time.IsZero() {
				active = append(active, in.GetID())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	listed := map[int64]bool{}
	for _, id := range active {
		listed[id] = true
	}
	for id := range next.Installations {
		if !listed[id] {
			delete(next.Installations, id) // uninstalled or suspended since
		}
	}
	done := map[int64]bool{}
	for _, id := range w.resume.Done {
		done[id] = listed[id]
	}
	// From the installation the last sweep did not reach, round the list;
	// those done in this cycle wait for the next.
	if i := slices.Index(active, w.resume.Next); i > 0 {
		active = append(active[i:], active[:i]...)
	}
	active = slices.DeleteFunc(active, func(id int64) bool { return done[id] })
	var errs []error
	// First round: a share each; then what is left of the budget goes to
	// those that spent their share, in the same order.
	turn := active
rounds:
	for round := 0; round < 2 && len(turn) > 0; round++ {
		var again []int64
		for i, id := range turn {
			left := len(turn) - i
			budgetLeft := w.res.Budget - w.res.Calls
			if budgetLeft <= 0 || w.res.Queued >= w.room {
				if round == 0 {
					next.Next = id // the first one not reached
					w.budgetStopped = w.budgetStopped || budgetLeft <= 0
				}
				break
			}
			share := budgetLeft
			roomShare := w.room - w.res.Queued
			if round == 0 {
				share = min(budgetLeft, max(budgetLeft/left, sweepMinShare))
				roomShare = max((w.room-w.res.Queued)/left, 1)
			}
			w.limit, w.roomLimit = w.res.Calls+share, w.res.Queued+roomShare
			if round == 0 {
				w.res.Installations++
			}
			at := next.Installations[id]
			w.reached = at
			err := w.repos(ctx, id, at)
			switch {
			case err == nil:
				delete(next.Installations, id)
				done[id] = true
			case errors.Is(err, errBudget), errors.Is(err, errNoRoom):
				next.Installations[id] = w.reached
				w.budgetStopped = w.budgetStopped || errors.Is(err, errBudget)
				if w.res.Queued < w.room && w.res.Calls < w.res.Budget {
					again = append(again, id) // its share, not the sweep's, ran out
				}
			case ctx.Err() != nil || errors.Is(err, errEnqueue):
				// The sweep stops: the queue refuses, or the App stops.
				next.Installations[id] = w.reached
				errs = append(errs, err)
				break rounds
			default:
				// GitHub failed on this installation: the others are swept;
				// it resumes where it stopped next time.
				next.Installations[id] = w.reached
				done[id] = true
				w.s.o.Logger.Warn("sweep: an installation could not be swept; going on with the others", "installation_id", id, "error", err)
				errs = append(errs, err)
			}
		}
		turn = again
	}
	for id := range listed {
		if !done[id] {
			w.unfinished = true
		}
	}
	if w.unfinished {
		for id := range done {
			if done[id] {
				next.Done = append(next.Done, id)
			}
		}
		slices.Sort(next.Done)
	} else {
		// The cycle is over: the next sweep starts another (an installation
		// that failed resumes at its cursor).
		next.Next = 0
	}
	if len(next.Installations) == 0 {
		next.Installations = nil
	}
	return next, errors.Join(errs...)
}

// errEnqueue wraps a queue's refusal of the sweep's jobs: it ends the sweep.
var errEnqueue = errors.New("the queue refused the sweep's jobs")

// repos sweeps an installation's repositories, from at (the cursor it
// resumes at; zero: the first).
func (w *sweep) repos(ctx context.Context, installation int64, at InstallationCursor) error {
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
		// Where to resume should the listing not be made (a share spent
		// before it): this page, after the one dealt with on it.
		w.reached.PRPage, w.reached.PR = opts.Page, done
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
			case runInProgress, runOrphaned:
				w.reached.PR = n
				continue // a job is on it, or an orphan is left to close: looked up again next time round
			}
			w.res.Missing++
			if len(jobs) >= min(w.room, w.roomLimit)-w.res.Queued {
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
			return fmt.Errorf("%w: queueing %d pull requests without a check run: %w", errEnqueue, len(jobs), err)
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
	// runOrphaned: a completed run, beside a run left in progress that the
	// sweep could not close this time (its budget, an error): looked up
	// again next time round.
	runOrphaned
)

// runState looks up head's check runs named CheckName created by this App
// (a run of the same name from another App or a workflow does not count:
// it is not Shipgate's verdict). A run left in progress for longer than
// StaleAfter beside a completed one is an orphan — an evaluation
// interrupted by a restart or a write outage, which a later one did not
// adopt — and is closed with the completed run's conclusion (closeOrphans).
func (w *sweep) runState(ctx context.Context, cl *github.Client, owner, repo, head string) (runState, error) {
	runs, _, err := cl.Checks.ListCheckRunsForRef(ctx, owner, repo, head, &github.ListCheckRunsOptions{
		CheckName: github.String(w.s.o.CheckName), AppID: github.Int64(w.s.clients.appID), Filter: github.String("all"),
		ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return runNone, fmt.Errorf("listing the check runs of %s/%s@%s: %w", owner, repo, shortSHA(head), err)
	}
	st := runNone
	var done *github.CheckRun // the newest completed run
	var stale []*github.CheckRun
	for _, r := range runs.CheckRuns {
		if r.GetApp() != nil && r.GetApp().GetID() != 0 && r.GetApp().GetID() != w.s.clients.appID {
			continue
		}
		if r.GetStatus() == "completed" {
			if done == nil || r.GetCompletedAt().After(done.GetCompletedAt().Time) {
				done = r
			}
			continue
		}
		if started := r.GetStartedAt().Time; started.IsZero() || w.s.o.Now().Sub(started) < w.s.o.StaleAfter {
			st = runInProgress
		} else {
			stale = append(stale, r)
		}
	}
	if done == nil {
		return st, nil
	}
	if len(stale) > 0 && !w.closeOrphans(ctx, cl, owner, repo, done, stale) {
		return runOrphaned, nil
	}
	return runCompleted, nil
}

// closeOrphans completes runs left in progress on a head that has the
// completed run done, with done's conclusion: whichever of them GitHub shows
// (the newest run of a name is the one branch protection reads, and an
// orphan may be newer than done), the verdict is done's. Each write is one
// call of the sweep's budget; it reports whether every orphan was closed.
func (w *sweep) closeOrphans(ctx context.Context, cl *github.Client, owner, repo string, done *github.CheckRun, stale []*github.CheckRun) bool {
	for _, r := range stale {
		if w.call() != nil {
			return false
		}
		summary := fmt.Sprintf("An evaluation of this commit was interrupted (a restart, or GitHub failing its writes) and left this run in progress. "+
			"Check run %d completed the check of this commit with the conclusion `%s`; this run carries the same conclusion, so that either one says the same.",
			done.GetID(), done.GetConclusion())
		opts := github.UpdateCheckRunOptions{Name: w.s.o.CheckName, Status: github.String("completed"), Conclusion: github.String(done.GetConclusion()),
			CompletedAt: &github.Timestamp{Time: w.s.o.Now()},
			Output:      &github.CheckRunOutput{Title: github.String("Superseded: " + done.GetOutput().GetTitle()), Summary: github.String(summary)}}
		if u := done.GetDetailsURL(); u != "" {
			opts.DetailsURL = github.String(u)
		}
		if _, _, err := cl.Checks.UpdateCheckRun(ctx, owner, repo, r.GetID(), opts); err != nil {
			w.s.o.Logger.Warn("sweep: could not close a run left in progress beside a completed one; trying again next time",
				"repo", owner+"/"+repo, "check_run_id", r.GetID(), "error", err)
			return false
		}
		w.s.o.Logger.Info("sweep: closed a run left in progress beside a completed one, with its conclusion",
			"repo", owner+"/"+repo, "check_run_id", r.GetID(), "completed_run_id", done.GetID(), "conclusion", done.GetConclusion())
	}
	return true
}
