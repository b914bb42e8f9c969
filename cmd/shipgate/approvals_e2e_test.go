package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/githubtest"
)

// policyReviewers names the teams whose approvals clear findings.
const policyReviewers = `version: 1
reviewers:
  review: ["acme/security"]
  block: ["acme/security-leads"]
`

// approvalsEnv is a repository with the reviewer policy on main and the
// teams populated: alice reviews, lead clears blocks, mallory is no one,
// and dev — the author of the test pull requests — is in the review team
// too, so only the author rule keeps dev's approval from counting. (The
// test pull requests are opened by githubtest.DefaultActor.)
func approvalsEnv(t *testing.T, repo string) *e2eEnv {
	t.Helper()
	env := newE2E(t)
	env.repo(repo, map[string]string{".claude/settings.json": baseSettings, ".github/shipgate.yml": policyReviewers, "README.md": "# x\n"})
	for _, m := range [][3]string{{"security", "alice", "member"}, {"security", githubtest.DefaultActor, "member"}, {"security-leads", "lead", "maintainer"}} {
		if err := env.gh.SetTeamMembership(e2eOwner, m[0], m[1], m[2], "active"); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// review submits a review (the fake delivers pull_request_review) and
// returns its ID.
func (e *e2eEnv) review(repo string, pr int, user, state, commit string) int64 {
	e.t.Helper()
	id, _, err := e.gh.SubmitReview(e2eOwner, repo, pr, user, state, commit)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// TestE2EApprovals: an approving review by a member of a configured team
// clears the findings it may clear, bound to the delta the reviewer saw.
func TestE2EApprovals(t *testing.T) {
	t.Parallel()
	const repo = "approvals"
	env := approvalsEnv(t, repo)
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR(repo, "widen", map[string]string{".claude/settings.json": widen})
	run := env.waitCompleted(repo, pr.HeadSHA, 1)
	if run.Conclusion != "action_required" {
		t.Fatalf("before approval: %s %q", run.Conclusion, run.Title)
	}

	// Not counted: the author's own approval, a reviewer in no team. The
	// two reviews come back to back: the second's job may replace the
	// first's while it waits (one pending job per pull request), so the
	// head gets one or two more runs. Wait for the three jobs to settle
	// (a replaced one settles as superseded) and read the newest run.
	env.review(repo, pr.Number, githubtest.DefaultActor, "APPROVED", pr.HeadSHA)
	env.review(repo, pr.Number, "mallory", "APPROVED", pr.HeadSHA)
	env.waitJobs(3)
	run, done := env.newestCompleted(repo, pr.HeadSHA)
	if done < 2 || run.Conclusion != "action_required" {
		t.Fatalf("approvals by the author and a non-member cleared the check: %s %q (%d completed runs)", run.Conclusion, run.Title, done)
	}

	// A review-team member's approval clears the review finding.
	env.review(repo, pr.Number, "alice", "APPROVED", pr.HeadSHA)
	run = env.waitCompleted(repo, pr.HeadSHA, done+1)
	if run.Conclusion != "success" || !strings.HasPrefix(run.Title, "Approved:") {
		t.Fatalf("after alice's approval: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}
	for _, want := range []string{"@alice (acme/security) approved at `" + pr.HeadSHA[:8] + "`", "✅ approved", "Delta approved: `sha256:"} {
		if !strings.Contains(run.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, run.Summary)
		}
	}

	// An unrelated push keeps the approval: the delta is the same.
	sha, _, err := env.gh.Synchronize(e2eOwner, repo, pr.Number, map[string]string{"README.md": "# x\n\nmore\n"}, "docs")
	if err != nil {
		t.Fatal(err)
	}
	run = env.waitCompleted(repo, sha, 1)
	if run.Conclusion != "success" {
		t.Fatalf("an unrelated push voided the approval: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}

	// A push that changes the delta voids it.
	wider := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)", "Bash(gh *)"), baseDeny)
	sha, _, err = env.gh.Synchronize(e2eOwner, repo, pr.Number, map[string]string{".claude/settings.json": wider}, "widen more")
	if err != nil {
		t.Fatal(err)
	}
	run = env.waitCompleted(repo, sha, 1)
	if run.Conclusion != "action_required" || !strings.Contains(run.Summary, "no longer counts") {
		t.Fatalf("a delta-changing push kept the approval: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}

	// Re-approved, then dismissed: the dismissal voids it.
	id := env.review(repo, pr.Number, "alice", "APPROVED", sha)
	run = env.waitCompleted(repo, sha, 2)
	if run.Conclusion != "success" {
		t.Fatalf("re-approval: %s %q", run.Conclusion, run.Title)
	}
	if _, err := env.gh.DismissReview(e2eOwner, repo, pr.Number, id); err != nil {
		t.Fatal(err)
	}
	run = env.waitCompleted(repo, sha, 3)
	if run.Conclusion != "action_required" {
		t.Fatalf("a dismissed approval still counts: %s %q", run.Conclusion, run.Title)
	}
	env.noneInProgress(repo)
}

// TestE2EApprovalBlock: a block finding is cleared only by the block team.
func TestE2EApprovalBlock(t *testing.T) {
	t.Parallel()
	const repo = "approval-block"
	env := approvalsEnv(t, repo)
	block := settingsJSON(replaced(baseAllow, "Bash(git status)", "Bash(git status)", "Bash(npx:*)"), baseDeny)
	pr := env.openPR(repo, "npx", map[string]string{".claude/settings.json": block})
	if run := env.waitCompleted(repo, pr.HeadSHA, 1); run.Conclusion != "failure" {
		t.Fatalf("before approval: %s", run.Conclusion)
	}
	env.review(repo, pr.Number, "alice", "APPROVED", pr.HeadSHA)
	if run := env.waitCompleted(repo, pr.HeadSHA, 2); run.Conclusion != "failure" {
		t.Fatalf("a review-team approval cleared a block finding: %s %q", run.Conclusion, run.Title)
	}
	env.review(repo, pr.Number, "lead", "APPROVED", pr.HeadSHA)
	run := env.waitCompleted(repo, pr.HeadSHA, 3)
	if run.Conclusion != "success" || !strings.Contains(run.Summary, "@lead (acme/security-leads)") {
		t.Fatalf("the block team's approval: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}
}

// TestE2EPolicyChangeReevaluates: a push to the default branch that changes
// the policy re-evaluates the repository's open pull requests.
func TestE2EPolicyChangeReevaluates(t *testing.T) {
	t.Parallel()
	const repo = "reevaluate"
	env := newE2E(t)
	env.repo(repo, map[string]string{".claude/settings.json": baseSettings, "README.md": "# x\n"})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR(repo, "widen", map[string]string{".claude/settings.json": widen})
	if run := env.waitCompleted(repo, pr.HeadSHA, 1); run.Conclusion != "action_required" {
		t.Fatalf("before the policy: %s", run.Conclusion)
	}
	if _, err := env.gh.PushCommit(e2eOwner, repo, "main", map[string]string{".github/shipgate.yml": policyRaise}, "raise"); err != nil {
		t.Fatal(err)
	}
	run := env.waitCompleted(repo, pr.HeadSHA, 2)
	if run.Conclusion != "failure" {
		t.Fatalf("after the policy raised ALLOW-EXPANDED to block: %s %q", run.Conclusion, run.Title)
	}
}

// TestE2EOrgPolicy: the organisation default (shipgate.yml in the org's
// .github repository) applies to a repository without a policy, a
// repository file extends it without lowering it, and a push that changes
// it re-evaluates the open pull requests of the installation.
func TestE2EOrgPolicy(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	env.repo(".github", map[string]string{"shipgate.yml": "version: 1\n"})
	env.repo("plain", map[string]string{".claude/settings.json": baseSettings})
	// The repository's own file tries to lower the org's raise (it cannot:
	// the raise arrives with the org's change below).
	env.repo("extends", map[string]string{".claude/settings.json": baseSettings,
		".github/shipgate.yml": "version: 1\nexec_tier:\n  extra: [\"npm exec\"]\n"})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test:*)", "Bash(gh *)"), baseDeny)
	a := env.openPR("plain", "widen", map[string]string{".claude/settings.json": widen})
	b := env.openPR("extends", "widen", map[string]string{".claude/settings.json": widen})
	for _, p := range []struct {
		repo string
		sha  string
	}{{"plain", a.HeadSHA}, {"extends", b.HeadSHA}} {
		if run := env.waitCompleted(p.repo, p.sha, 1); run.Conclusion != "action_required" {
			t.Fatalf("%s before the org raise: %s %q", p.repo, run.Conclusion, run.Title)
		}
	}
	if _, err := env.gh.PushCommit(e2eOwner, ".github", "main", map[string]string{"shipgate.yml": policyRaise}, "raise"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		repo string
		sha  string
	}{{"plain", a.HeadSHA}, {"extends", b.HeadSHA}} {
		run := env.waitCompleted(p.repo, p.sha, 2)
		if run.Conclusion != "failure" || !strings.Contains(run.Summary, "organisation default") {
			t.Errorf("%s after the org raised ALLOW-EXPANDED to block: %s %q\n%s", p.repo, run.Conclusion, run.Title, run.Summary)
		}
	}
}

// TestE2EApprovalWithoutRecord: an approval given at a commit where no
// completed Shipgate check records the delta (the check there failed)
// cannot be bound to what the reviewer saw, so it does not carry over to a
// later head, and the summary says why.
func TestE2EApprovalWithoutRecord(t *testing.T) {
	t.Parallel()
	const repo = "approval-norecord"
	env := approvalsEnv(t, repo)
	const path = ".claude/settings.json"
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR(repo, "widen", map[string]string{path: widen})
	env.waitCompleted(repo, pr.HeadSHA, 1)

	// The check at the next commit fails for good: every read of the new
	// settings file fails.
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: routeContents, Status: 500, Times: 1000})
	sha1, _, err := env.gh.Synchronize(e2eOwner, repo, pr.Number, map[string]string{path: widen + " "}, "one")
	if err != nil {
		t.Fatal(err)
	}
	env.eventually("the failed check at the first push", func() (bool, string) {
		runs := env.runs(repo, sha1)
		return len(runs) == 1 && runs[0].Status == "completed", fmt.Sprintf("%d runs", len(runs))
	})
	env.gh.ClearFaults()
	if r := env.runs(repo, sha1)[0]; r.Conclusion != "failure" {
		t.Fatalf("the check at the first push: %s %q", r.Conclusion, r.Title)
	}
	sha2, _, err := env.gh.Synchronize(e2eOwner, repo, pr.Number, map[string]string{path: widen + "  "}, "two")
	if err != nil {
		t.Fatal(err)
	}
	env.waitCompleted(repo, sha2, 1)

	// alice approves the commit whose check failed.
	env.review(repo, pr.Number, "alice", "APPROVED", sha1)
	run := env.waitCompleted(repo, sha2, 2)
	if run.Conclusion != "action_required" {
		t.Fatalf("an approval at a commit without a completed check cleared the head: %s %q", run.Conclusion, run.Title)
	}
	if want := "**no longer counts**: no completed Shipgate check at " + sha1[:8]; !strings.Contains(run.Summary, want) {
		t.Errorf("summary lacks %q:\n%s", want, run.Summary)
	}
	env.noneInProgress(repo)
}

// newestCompleted returns the newest completed shipgate run on sha and how
// many runs there are completed (for a step whose number of runs depends
// on whether the queue coalesced its jobs: wait for them with waitJobs).
func (e *e2eEnv) newestCompleted(repo, sha string) (githubtest.CheckRun, int) {
	e.t.Helper()
	var last githubtest.CheckRun
	done := 0
	for _, r := range e.runs(repo, sha) {
		if r.Status == "completed" {
			done++
			last = r
		}
	}
	return last, done
}
