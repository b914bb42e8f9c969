package app

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/report"
)

// recordOf is the record marker of a completed run: its decision and
// its findings by check ID, written beside the delta marker, so the
// ledger reads every decision back from GitHub's own check runs — no
// second store to lose or to trust.
func recordOf(r report.Report) report.RecordMarker {
	rec := report.RecordMarker{Decision: r.Decision}
	for _, f := range r.Findings {
		if rec.Findings == nil {
			rec.Findings = map[string]int{}
		}
		rec.Findings[f.CheckID]++
		if f.Cleared != "" {
			rec.Cleared++
		}
	}
	return rec
}

// LedgerEntry is one row of the decision ledger: a decision (a completed
// Shipgate check run on a pull request's commit) or an approval (a review
// of the pull request that approved, or withdrew an approval).
type LedgerEntry struct {
	Kind       string `json:"kind"` // decision or approval
	Repository string `json:"repository"`
	PR         int    `json:"pr"`
	// Head is the commit judged (decision) or reviewed (approval).
	Head string    `json:"head"`
	At   time.Time `json:"at"` // completed (decision) or submitted (approval)
	// Decision is allow, require_review or block; Conclusion the check
	// run's; Findings the findings by check ID; Cleared how many an
	// approval cleared. Delta is the approved delta's digest (sha256) the
	// run recorded — for an approval, the one recorded at its commit, which
	// is what it approves.
	Decision   string         `json:"decision,omitempty"`
	Conclusion string         `json:"conclusion,omitempty"`
	Findings   map[string]int `json:"findings,omitempty"`
	Cleared    int            `json:"cleared,omitempty"`
	Delta      string         `json:"delta,omitempty"`
	CheckRunID int64          `json:"check_run_id,omitempty"`
	// Reviewer and State are an approval's: who, and APPROVED, DISMISSED
	// or CHANGES_REQUESTED (the last two withdraw an earlier approval).
	Reviewer string `json:"reviewer,omitempty"`
	State    string `json:"state,omitempty"`
}

// LedgerOptions select what a ledger lists.
type LedgerOptions struct {
	Org string
	// Since, when set, leaves out decisions and approvals before it (and
	// pull requests not updated since).
	Since time.Time
	// CheckName is the check run's name (default "shipgate").
	CheckName string
	// Progress, when set, is told each repository before it is read
	// (done counts the ones before it), so a walk of a large
	// organisation can say where it is.
	Progress func(repo string, done, total int)
}

// Ledger lists every Shipgate decision and approval across the
// repositories the App's installation on o.Org reaches, repository by
// repository (by name), pull request by pull request (newest update
// first), each pull request's rows in time order. It reads GitHub only:
// the installation's repositories, each repository's pull requests, each
// pull request's commits and the check runs of ours on them (decision,
// findings and delta from the record the run's summary carries), and the
// pull request's reviews. emit gets each row; its error stops the listing.
func (c *Clients) Ledger(ctx context.Context, o LedgerOptions, emit func(LedgerEntry) error) error {
	if o.CheckName == "" {
		o.CheckName = "shipgate"
	}
	inst, _, err := c.App().Apps.FindOrganizationInstallation(ctx, o.Org)
	if err != nil {
		return fmt.Errorf("finding the App's installation on %s (is the App installed there?): %w", o.Org, err)
	}
	cl, err := c.Installation(inst.GetID())
	if err != nil {
		return err
	}
	var repos []*github.Repository
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := cl.Apps.ListRepos(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing the repositories of installation %d: %w", inst.GetID(), err)
		}
		repos = append(repos, page.Repositories...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	sort.Slice(repos, func(i, j int) bool { return repos[i].GetFullName() < repos[j].GetFullName() })
	for i, r := range repos {
		if o.Progress != nil {
			o.Progress(r.GetFullName(), i, len(repos))
		}
		if err := ledgerRepo(ctx, cl, o, c.appID, r.GetOwner().GetLogin(), r.GetName(), emit); err != nil {
			return err
		}
	}
	return nil
}

// ledgerRepo lists the rows of one repository.
func ledgerRepo(ctx context.Context, cl *github.Client, o LedgerOptions, appID int64, owner, repo string, emit func(LedgerEntry) error) error {
	opts := &github.PullRequestListOptions{State: "all", Sort: "updated", Direction: "desc", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		prs, resp, err := cl.PullRequests.List(ctx, owner, repo, opts)
		if err != nil {
			return fmt.Errorf("listing the pull requests of %s/%s: %w", owner, repo, err)
		}
		for _, pr := range prs {
			if !o.Since.IsZero() && pr.GetUpdatedAt().Before(o.Since) {
				return nil // sorted by update: the rest are older
			}
			rows, err := ledgerPR(ctx, cl, o, appID, owner, repo, pr.GetNumber())
			if err != nil {
				return err
			}
			for _, row := range rows {
				if err := emit(row); err != nil {
					return err
				}
			}
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// ledgerPR reads one pull request's decisions and approvals. Only runs
// this App made count (app_id): another App may name a check "shipgate"
// and write any summary.
func ledgerPR(ctx context.Context, cl *github.Client, o LedgerOptions, appID int64, owner, repo string, n int) ([]LedgerEntry, error) {
	full := owner + "/" + repo
	var shas []string
	copts := &github.ListOptions{PerPage: 100}
	for {
		cs, resp, err := cl.PullRequests.ListCommits(ctx, owner, repo, n, copts)
		if err != nil {
			return nil, fmt.Errorf("listing the commits of %s#%d: %w", full, n, err)
		}
		for _, c := range cs {
			shas = append(shas, c.GetSHA())
		}
		if resp.NextPage == 0 {
			break
		}
		copts.Page = resp.NextPage
	}
	var rows []LedgerEntry
	deltaAt := map[string]string{}
	for _, sha := range shas {
		ropts := &github.ListCheckRunsOptions{CheckName: github.String(o.CheckName), Status: github.String("completed"),
			Filter: github.String("all"), AppID: github.Int64(appID), ListOptions: github.ListOptions{PerPage: 100}}
		for {
			runs, resp, err := cl.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, ropts)
			if err != nil {
				return nil, fmt.Errorf("listing the check runs of %s@%s: %w", full, shortSHA(sha), err)
			}
			for _, run := range runs.CheckRuns {
				if !isRunOf(run, n) {
					continue // another pull request's run on a shared commit
				}
				row := decisionRow(full, n, run)
				if row.Delta != "" {
					deltaAt[sha] = row.Delta
				}
				if !o.Since.IsZero() && row.At.Before(o.Since) {
					continue
				}
				rows = append(rows, row)
			}
			if resp.NextPage == 0 {
				break
			}
			ropts.Page = resp.NextPage
		}
	}
	vopts := &github.ListOptions{PerPage: 100}
	for {
		rvs, resp, err := cl.PullRequests.ListReviews(ctx, owner, repo, n, vopts)
		if err != nil {
			return nil, fmt.Errorf("listing the reviews of %s#%d: %w", full, n, err)
		}
		for _, rv := range rvs {
			switch rv.GetState() {
			case "APPROVED", "DISMISSED", "CHANGES_REQUESTED":
			default:
				continue
			}
			at := rv.GetSubmittedAt().Time
			if !o.Since.IsZero() && at.Before(o.Since) {
				continue
			}
			rows = append(rows, LedgerEntry{Kind: "approval", Repository: full, PR: n, Head: rv.GetCommitID(), At: at.UTC(),
				Reviewer: rv.GetUser().GetLogin(), State: rv.GetState(), Delta: deltaAt[rv.GetCommitID()]})
		}
		if resp.NextPage == 0 {
			break
		}
		vopts.Page = resp.NextPage
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if !rows[i].At.Equal(rows[j].At) {
			return rows[i].At.Before(rows[j].At)
		}
		return rows[i].CheckRunID < rows[j].CheckRunID // runs are numbered in order
	})
	return rows, nil
}

// decisionRow reads a completed run: the record and delta markers of its
// summary when it has them (a run a Shipgate before the ledger completed
// has only its conclusion, read back as the decision).
func decisionRow(repo string, n int, run *github.CheckRun) LedgerEntry {
	row := LedgerEntry{Kind: "decision", Repository: repo, PR: n, Head: run.GetHeadSHA(), At: run.GetCompletedAt().Time.UTC(),
		Conclusion: run.GetConclusion(), CheckRunID: run.GetID()}
	summary := run.GetOutput().GetSummary()
	m := report.ParseMarkers(summary)
	if m.Delta != nil {
		row.Delta = "sha256:" + m.Delta.Digest
	}
	if m.Record != nil {
		row.Decision, row.Findings, row.Cleared = string(m.Record.Decision), m.Record.Findings, m.Record.Cleared
		return row
	}
	switch row.Conclusion {
	case "failure":
		row.Decision = string(report.DecisionBlock)
	case "action_required":
		row.Decision = string(report.DecisionRequireReview)
	case "success":
		row.Decision = string(report.DecisionAllow)
	}
	return row
}

// LedgerWriter writes ledger rows as JSON lines or CSV.
type LedgerWriter struct {
	w      io.Writer
	csv    *csv.Writer
	header bool
}

// NewLedgerWriter writes rows to w in format "jsonl" or "csv".
func NewLedgerWriter(w io.Writer, format string) (*LedgerWriter, error) {
	switch format {
	case "jsonl", "":
		return &LedgerWriter{w: w}, nil
	case "csv":
		return &LedgerWriter{w: w, csv: csv.NewWriter(w)}, nil
	}
	return nil, fmt.Errorf("unknown ledger format %q: use jsonl or csv", format)
}

// LedgerColumns are the CSV columns, in order.
var LedgerColumns = []string{"kind", "repository", "pr", "head", "at", "decision", "conclusion", "findings", "cleared", "delta", "check_run_id", "reviewer", "state"}

// Write writes one row.
func (lw *LedgerWriter) Write(e LedgerEntry) error {
	if lw.csv == nil {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = lw.w.Write(append(b, '\n'))
		return err
	}
	if !lw.header {
		lw.header = true
		if err := lw.csv.Write(LedgerColumns); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(e.Findings))
	for id := range e.Findings {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fs := make([]string, len(ids))
	for i, id := range ids {
		fs[i] = id + ":" + strconv.Itoa(e.Findings[id])
	}
	run := ""
	if e.CheckRunID != 0 {
		run = strconv.FormatInt(e.CheckRunID, 10)
	}
	return lw.csv.Write([]string{e.Kind, csvSafe(e.Repository), strconv.Itoa(e.PR), e.Head, e.At.Format(time.RFC3339), e.Decision, e.Conclusion,
		strings.Join(fs, " "), strconv.Itoa(e.Cleared), e.Delta, run, csvSafe(e.Reviewer), e.State})
}

// Flush ends the output (the CSV header is written even with no rows).
func (lw *LedgerWriter) Flush() error {
	if lw.csv == nil {
		return nil
	}
	if !lw.header {
		lw.header = true
		if err := lw.csv.Write(LedgerColumns); err != nil {
			return err
		}
	}
	lw.csv.Flush()
	return lw.csv.Error()
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}
