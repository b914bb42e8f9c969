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
	// calls logs the calls since the last one and returns how many listed
	// the reviews and asked a team membership.
	calls := func(what string) (reviews, members int) {
		all, detail := env.apiCalls()
		t.Logf("%s: %d calls (%s)", what, all, detail)
		for _, rc := range env.gh.Requests() {
			switch {
			case strings.HasSuffix(rc.Route, "/pulls/{pull_number}/reviews"):
				reviews += rc.Count
			case strings.HasSuffix(rc.Route, "/memberships/{username}"):
				members += rc.Count
			}
		}
		env.gh.ResetCounts()
		return reviews, members
	}
	env.gh.ResetCounts()

	narrow := env.openPR(repo, "narrow", map[string]string{".claude/settings.json": settingsJSON(baseAllow[1:], baseDeny)})
	if run := env.waitCompleted(repo, narrow.HeadSHA, 1); run.Conclusion != "success" {
		t.Fatalf("a narrowing: %s %q", run.Conclusion, run.Title)
	}
	if n, _ := calls("a narrowing"); n != 0 {
		t.Errorf("a pull request no finding holds back read the reviews %d times", n)
	}

	pr := env.openPR(repo, "widen", map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)})
	if run := env.waitCompleted(repo, pr.HeadSHA, 1); run.Conclusion != "action_required" {
		t.Fatalf("a widening: %s %q", run.Conclusion, run.Title)
	}
	if n, m := calls("a widening held for review"); n != 1 || m != 0 {
		t.Errorf("a widening without reviews: %d reviews listings, %d membership questions; want 1, 0", n, m)
	}

	env.review(repo, pr.Number, "alice", "APPROVED", pr.HeadSHA)
	if run := env.waitCompleted(repo, pr.HeadSHA, 2); run.Conclusion != "success" {
		t.Fatalf("alice's approval: %s %q", run.Conclusion, run.Title)
	}
	if n, m := calls("the re-run alice's approval clears"); n != 1 || m != 2 {
		t.Errorf("the approved re-run: %d reviews listings, %d membership questions; want 1, and 2 (is alice in the block team? in the review team?)", n, m)
	}
	env.noneInProgress(repo)
}
