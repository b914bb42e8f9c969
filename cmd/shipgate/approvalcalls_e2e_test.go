package main

import (
	"strings"
	"testing"
)

// TestE2EApprovalCalls: approvals cost GitHub calls only when they could
// change the judgement. A pull request whose findings hold nothing back
// reads no review; one held for review reads the reviews once per
// evaluation, and a reviewer's team membership once (then cached), and a
// run that an approval clears reads nothing more than that.
func TestE2EApprovalCalls(t *testing.T) {
	t.Parallel()
	const repo = "approval-calls"
	env := approvalsEnv(t, repo)
	count := func(route string) int {
		n := 0
		for _, rc := range env.gh.Requests() {
			if strings.HasSuffix(rc.Route, route) {
				n += rc.Count
			}
		}
		return n
	}
	reviews, members := "/pulls/{pull_number}/reviews", "/memberships/{username}"

	env.gh.ResetCounts()
	narrow := env.openPR(repo, "narrow", map[string]string{".claude/settings.json": settingsJSON(baseAllow[1:], baseDeny)})
	if run := env.waitCompleted(repo, narrow.HeadSHA, 1); run.Conclusion != "success" {
		t.Fatalf("a narrowing: %s %q", run.Conclusion, run.Title)
	}
	all, detail := env.apiCalls()
	t.Logf("a narrowing: %d calls (%s)", all, detail)
	if n := count(reviews); n != 0 {
		t.Errorf("a pull request no finding holds back read the reviews %d times", n)
	}

	env.gh.ResetCounts()
	pr := env.openPR(repo, "widen", map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)})
	if run := env.waitCompleted(repo, pr.HeadSHA, 1); run.Conclusion != "action_required" {
		t.Fatalf("a widening: %s %q", run.Conclusion, run.Title)
	}
	all, detail = env.apiCalls()
	t.Logf("a widening held for review: %d calls (%s)", all, detail)
	if n, m := count(reviews), count(members); n != 1 || m != 0 {
		t.Errorf("a widening without reviews: %d reviews listings, %d membership questions; want 1, 0", n, m)
	}

	env.gh.ResetCounts()
	env.review(repo, pr.Number, "alice", "APPROVED", pr.HeadSHA)
	if run := env.waitCompleted(repo, pr.HeadSHA, 2); run.Conclusion != "success" {
		t.Fatalf("alice's approval: %s %q", run.Conclusion, run.Title)
	}
	all, detail = env.apiCalls()
	t.Logf("the re-run alice's approval clears: %d calls (%s)", all, detail)
	if n, m := count(reviews), count(members); n != 1 || m != 2 {
		t.Errorf("the approved re-run: %d reviews listings, %d membership questions; want 1, and 2 (alice in the block team? in the review team?)", n, m)
	}
	env.noneInProgress(repo)
}
