package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

func TestDeltaDigest(t *testing.T) {
	f := func(id string, action policy.Action, key string) report.Finding {
		return report.Finding{CheckID: id, Action: action, Key: key}
	}
	wide := f("SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW", policy.Block, "allow|Bash(npm *)")
	review := f("SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED", policy.RequireReview, "allow|Bash(git push:*)")
	advisory := f("SHIP-HOST-BOUNDARY-PERMISSION-DEAD-RULE", policy.Advisory, "allow|Bash(ls)")

	base := DeltaDigest(report.Report{Findings: []report.Finding{wide, review}})
	if got := DeltaDigest(report.Report{Findings: []report.Finding{review, wide}}); got != base {
		t.Error("the digest depends on the order of findings")
	}
	moved := review
	moved.Line, moved.HeadLine, moved.Message = 40, 40, "reworded"
	if got := DeltaDigest(report.Report{Findings: []report.Finding{wide, moved, advisory}}); got != base {
		t.Error("the digest changed with a line number, a message or an advisory finding")
	}
	other := f("SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW", policy.Block, "allow|Bash(npx *)")
	if got := DeltaDigest(report.Report{Findings: []report.Finding{other, review}}); got == base {
		t.Error("the digest did not change when a held finding changed")
	}
	if got := DeltaDigest(report.Report{Findings: []report.Finding{wide}}); got == base {
		t.Error("the digest did not change when a held finding went away")
	}
	if len(base) != 64 {
		t.Errorf("digest %q is not hex SHA-256", base)
	}
}

// TestApprove: who clears what. The author's approval and one by a
// reviewer in no team never count; an approval at the head counts; one at
// an older commit counts only when the delta recorded there is this one;
// a review team clears what requires review, a block team everything.
func TestApprove(t *testing.T) {
	wide := report.Finding{CheckID: report.CheckWildcardAllow, Action: policy.Block, Key: "allow|Bash(*)"}
	review := report.Finding{CheckID: report.CheckAllowExpanded, Action: policy.RequireReview, Key: "allow|Bash(npm *)"}
	advisory := report.Finding{CheckID: report.CheckUnknownKey, Action: policy.Advisory, Key: "problem|x"}
	fresh := func() report.Report {
		r := report.Report{Findings: []report.Finding{wide, review, advisory}}
		r.Decision = report.Decide(r.Findings)
		return r
	}
	digest := DeltaDigest(fresh())
	const head, old = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	at := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	rv := func(user, commit, recorded string, block bool) report.Review {
		r := report.Review{User: user, Commit: commit, At: at, Recorded: recorded, Teams: []string{"acme/security"}}
		if block {
			r.Teams, r.ClearsAll = []string{"acme/leads", "acme/security"}, true
		}
		return r
	}
	for _, c := range []struct {
		name     string
		reviews  []report.Review
		decision report.Decision
		cleared  int
		void     string // in the first counted approval's Void
	}{
		{"none", nil, report.DecisionBlock, 0, ""},
		{"the author's own", []report.Review{rv("dev", head, "", true)}, report.DecisionBlock, 0, ""},
		{"in no team", []report.Review{{User: "mallory", Commit: head}}, report.DecisionBlock, 0, ""},
		{"review team at the head", []report.Review{rv("alice", head, "", false)}, report.DecisionBlock, 1, ""},
		{"block team at the head", []report.Review{rv("lead", head, "", true)}, report.DecisionAllow, 2, ""},
		{"block team, same delta earlier", []report.Review{rv("lead", old, digest, true)}, report.DecisionAllow, 2, ""},
		{"block team, other delta earlier", []report.Review{rv("lead", old, strings.Repeat("0", 64), true)}, report.DecisionBlock, 0, "differ from those approved at 22222222"},
		{"block team, nothing recorded", []report.Review{rv("lead", old, "", true)}, report.DecisionBlock, 0, "no completed Shipgate check at 22222222"},
	} {
		r := fresh()
		res := Approve(&r, report.Approvals{Author: "dev", Head: head, Reviews: c.reviews})
		if r.Decision != c.decision || res.Cleared != c.cleared || res.Digest != digest {
			t.Errorf("%s: decision %s, cleared %d, digest %.8s; want %s, %d, %.8s", c.name, r.Decision, res.Cleared, res.Digest, c.decision, c.cleared, digest)
		}
		if c.void != "" && (len(res.Approvals) != 1 || !strings.Contains(res.Approvals[0].Void, c.void)) {
			t.Errorf("%s: approvals %+v, want one void with %q", c.name, res.Approvals, c.void)
		}
		if r.Findings[2].Cleared != "" {
			t.Errorf("%s: an advisory finding was cleared", c.name)
		}
	}
	if NeedsApprovals(fresh(), nil) || NeedsApprovals(report.Report{Findings: []report.Finding{advisory}}, &policy.Policy{Reviewers: policy.Reviewers{Review: []policy.Item{{Value: "acme/security"}}}}) {
		t.Error("NeedsApprovals without reviewer teams, or without a finding that holds the merge")
	}
}
