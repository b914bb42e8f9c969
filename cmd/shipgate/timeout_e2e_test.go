package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/report"
)

// TestE2EJobTimeout: the --job-timeout path end to end. A comparison that
// is still running when the job's time runs out publishes the engine's
// fail-closed report as the check run (what the engine says: every
// question left open counts as a grant) and is not retried as if it were a
// transient fault — evaluating the same input again does the same work. A
// transient fetch fault, by contrast, is retried and then judged normally.
//
// The engine is wrapped so that the comparison outlasts the deadline on
// any machine: it waits for the job's context to end, then runs the real
// engine under that ended context.
func TestE2EJobTimeout(t *testing.T) {
	const path = ".claude/settings.json"
	for _, tc := range []struct {
		name, rule, conclusion string
	}{
		{"wildcard grant", "Bash(*)", "failure"},
		{"narrow grant", "Bash(npm run lint)", "action_required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var judged atomic.Int32
			env := newE2E(t, func(s *e2eSetup) {
				s.cfg.JobTimeout = 2 * time.Second
				s.cfg.Judge = func(ctx context.Context, in report.Input) (report.Report, error) {
					judged.Add(1)
					<-ctx.Done()
					return judge.CompareContext(ctx, in)
				}
			})
			env.repo("slow", map[string]string{path: baseSettings})
			pr := env.openPR("slow", "grant", map[string]string{path: settingsJSON(append(baseAllow, tc.rule), baseDeny)})
			r := env.waitCompleted("slow", pr.HeadSHA, 1)
			if r.Conclusion != tc.conclusion {
				t.Errorf("conclusion %s (%q), want %s: the fail-closed report decides", r.Conclusion, r.Title, tc.conclusion)
			}
			if !strings.Contains(r.Summary, "CONFIG-PARSE-FAILED") || !strings.Contains(r.Summary, "evaluation was stopped") {
				t.Errorf("the run does not say the comparison was stopped:\n%s\n%s", r.Title, r.Summary)
			}
			env.waitJobs(1)
			if n := judged.Load(); n != 1 {
				t.Errorf("judged %d times, want once (a timed-out comparison is not retried)", n)
			}
			if n := env.metric("shipgate_job_retries_total", ""); n != 0 {
				t.Errorf("job_retries_total %v, want 0", n)
			}
			if n := env.metric("shipgate_jobs_total", `outcome="succeeded"`); n != 1 {
				t.Errorf("jobs_total{succeeded} %v, want 1 (the report was published)", n)
			}
			if runs := env.runs("slow", pr.HeadSHA); len(runs) != 1 {
				t.Errorf("%d runs on the head, want 1", len(runs))
			}
			env.noneInProgress("slow")
		})
	}

	t.Run("a transient fetch fault is retried", func(t *testing.T) {
		var judged atomic.Int32
		env := newE2E(t, func(s *e2eSetup) {
			s.cfg.Judge = func(ctx context.Context, in report.Input) (report.Report, error) {
				judged.Add(1)
				return judge.CompareContext(ctx, in)
			}
		})
		env.repo("flaky", map[string]string{path: baseSettings})
		// Every attempt the transport makes on the first evaluation fails
		// (4 of them), so the queue must retry the job.
		env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routePullFiles, Status: 502, Times: 4})
		pr := env.openPR("flaky", "grant", map[string]string{path: settingsJSON(append(baseAllow, "Bash(*)"), baseDeny)})
		r := env.waitCompleted("flaky", pr.HeadSHA, 1)
		if r.Conclusion != "failure" || !strings.HasPrefix(r.Title, "Blocked") {
			t.Errorf("after the retry: %s %q, want the engine's block", r.Conclusion, r.Title)
		}
		if n := env.metric("shipgate_job_retries_total", ""); n < 1 {
			t.Errorf("job_retries_total %v, want the fetch fault retried", n)
		}
		if n := judged.Load(); n != 1 {
			t.Errorf("judged %d times, want once (after the fetch succeeded)", n)
		}
		env.noneInProgress("flaky")
	})
}
