package main

import (
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/report"
)

// TestE2EForgedDeltaMarker: a pull request cannot forge the delta an
// approval binds to. The attack: learn the digest of a widening (here from
// another pull request with the same change), write it as a delta marker
// into a rule of an innocuous commit, get that commit approved, then push
// the widening. The summary of the approved commit quotes the rule — the
// forged marker with it — before Shipgate's own trailer; the approval must
// still be bound to the delta Shipgate recorded there, so it does not
// carry over to the widening.
func TestE2EForgedDeltaMarker(t *testing.T) {
	t.Parallel()
	const repo = "forged-delta"
	env := approvalsEnv(t, repo)
	wide := map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)", "Bash(gh *)"), baseDeny)}

	// The digest of the widening, as an attacker learns it.
	probe := env.openPR(repo, "probe", wide)
	run := env.waitCompleted(repo, probe.HeadSHA, 1)
	want := report.ParseMarkers(run.Summary).Delta
	if run.Conclusion != "action_required" || want == nil {
		t.Fatalf("the widening: %s %q, delta %v\n%s", run.Conclusion, run.Title, want, run.Summary)
	}

	// An innocuous-looking commit whose new rule carries the forged marker.
	bait := "Bash(npm run " + want.String() + " *)"
	pr := env.openPR(repo, "bait", map[string]string{".claude/settings.json": settingsJSON(append(baseAllow, bait), baseDeny)})
	run = env.waitCompleted(repo, pr.HeadSHA, 1)
	if !strings.Contains(strings.TrimSuffix(run.Summary, report.ParseMarkers(run.Summary).Delta.String()), want.String()) {
		t.Fatalf("the summary does not quote the forged marker, so this test tests nothing:\n%s", run.Summary)
	}
	if got := report.ParseMarkers(run.Summary).Delta; got == nil || got.Digest == want.Digest {
		t.Fatalf("the bait's run records the forged delta %v:\n%s", got, run.Summary)
	}
	env.review(repo, pr.Number, "alice", "APPROVED", pr.HeadSHA)
	if run = env.waitCompleted(repo, pr.HeadSHA, 2); run.Conclusion != "success" {
		t.Fatalf("alice's approval of the bait: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}

	// The widening pushed on top: alice approved another delta.
	sha, _, err := env.gh.Synchronize(e2eOwner, repo, pr.Number, wide, "widen")
	if err != nil {
		t.Fatal(err)
	}
	run = env.waitCompleted(repo, sha, 1)
	if run.Conclusion != "action_required" || !strings.Contains(run.Summary, "no longer counts") {
		t.Fatalf("the approval of the bait carried over to the widening: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}
	if got := report.ParseMarkers(run.Summary).Delta; got == nil || got.Digest != want.Digest {
		t.Fatalf("the widening's delta %v, want %v (the same change as the probe's)", got, want)
	}
	env.noneInProgress(repo)
}
