package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/githubtest"
)

// TestE2EPaceWaitIsNotJobTime: a burst of pull requests in one
// installation, written at a pace (2 writes per 2 s, under the fake's
// secondary limit of 4 per 2 s) that makes most jobs wait far longer for
// their write than --job-timeout (3 s: with 8 workers, a finished job waits
// up to ~8 s for its turn). The wait is not the job's time: every pull
// request ends with one run carrying its real verdict, no job times out or
// is retried, no write meets the secondary limit, and the wait is reported
// (pace_wait_ms). With the wait counted against the job timeout, the late
// jobs time out, are retried from the start and end as failed runs whose
// own reports wait for the same pace.
func TestE2EPaceWaitIsNotJobTime(t *testing.T) {
	limit := githubtest.ContentLimit{Window: 2 * time.Second, Max: 4}
	env := newE2E(t, func(s *e2eSetup) {
		s.fake.ContentLimits = []githubtest.ContentLimit{limit}
		s.cfg.WritePace = []app.WritePace{{Per: limit.Window, N: limit.Max / 2}}
		s.cfg.JobTimeout = 3 * time.Second
		s.cfg.Workers = 8
	})
	env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
	type want struct {
		head, conclusion string
	}
	var prs []want
	for i := range 12 {
		switch i % 3 {
		case 0: // a widening that needs review
			rule := fmt.Sprintf("Bash(make target-%d)", i)
			prs = append(prs, want{env.openPR("svc", fmt.Sprintf("w%d", i),
				map[string]string{".claude/settings.json": settingsJSON(append(baseAllow, rule), baseDeny)}).HeadSHA, "action_required"})
		case 1: // a wildcard grant: blocked
			prs = append(prs, want{env.openPR("svc", fmt.Sprintf("b%d", i),
				map[string]string{".claude/settings.json": settingsJSON(append(baseAllow, "Bash(*)"), baseDeny)}).HeadSHA, "failure"})
		default: // no agent config touched
			prs = append(prs, want{env.openPR("svc", fmt.Sprintf("d%d", i), map[string]string{"docs/x.md": fmt.Sprintf("x%d\n", i)}).HeadSHA, "success"})
		}
	}
	for _, p := range prs {
		r := env.waitCompleted("svc", p.head, 1)
		if r.Conclusion != p.conclusion {
			t.Errorf("%.8s: %s %q, want %s (its real verdict)", p.head, r.Conclusion, r.Title, p.conclusion)
		}
		if runs := env.runs("svc", p.head); len(runs) != 1 {
			t.Errorf("%.8s: %d runs, want 1", p.head, len(runs))
		}
	}
	env.waitJobs(len(prs))
	if n := env.metric("shipgate_job_retries_total", ""); n != 0 {
		t.Errorf("job_retries_total %v, want 0: a job was retried although its only delay was the write pace", n)
	}
	if n := env.metric("shipgate_jobs_total", `outcome="succeeded"`); n != float64(len(prs)) {
		t.Errorf("jobs_total{succeeded} %v, want %d", n, len(prs))
	}
	if hits := env.gh.SecondaryLimitHits(); hits != 0 {
		t.Errorf("%d writes refused by the secondary limit although paced", hits)
	}
	logs := env.logs.String()
	if strings.Contains(logs, "timed out") {
		t.Errorf("a job timed out:\n%s", grepLines(logs, "timed out"))
	}
	// The wait is reported: the longest pace_wait_ms logged exceeds the
	// job timeout (else the test did not make a job wait past it).
	longest := 0
	for _, line := range strings.Split(logs, "\n") {
		if i := strings.Index(line, "pace_wait_ms="); i >= 0 && strings.Contains(line, "pull request checked") {
			var ms int
			fmt.Sscanf(line[i+len("pace_wait_ms="):], "%d", &ms)
			longest = max(longest, ms)
		}
	}
	t.Logf("longest wait for the write pace: %d ms (job timeout 3 s)", longest)
	if longest <= 3000 {
		t.Errorf("longest logged pace wait %d ms: no job waited longer than its timeout, the test shows nothing", longest)
	}
	env.noneInProgress("svc")
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
