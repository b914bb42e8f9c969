package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// TestDecisionRow: a run's summary markers read back as the decision,
// findings by check ID, cleared count and delta the run recorded; a run
// without them (an older Shipgate's) reads its decision from the
// conclusion.
func TestDecisionRow(t *testing.T) {
	rep := report.Report{Decision: report.DecisionAllow, Findings: []report.Finding{
		{CheckID: report.CheckAllowExpanded, Action: policy.RequireReview, Cleared: "@alice"},
		{CheckID: report.CheckAllowExpanded, Action: policy.RequireReview, Cleared: "@alice"},
		{CheckID: report.CheckUnknownKey, Action: policy.Advisory},
	}}
	digest := strings.Repeat("ab", 32)
	cases := []struct {
		name       string
		summary    string
		conclusion string
		want       LedgerEntry
	}{
		{"markers", "### ✅\n\n" + report.DeltaMarker{Digest: digest}.String() + "\n" + recordOf(rep).String(), "success",
			LedgerEntry{Decision: "allow", Findings: map[string]int{report.CheckAllowExpanded: 2, report.CheckUnknownKey: 1}, Cleared: 2, Delta: "sha256:" + digest}},
		{"no findings", recordOf(report.Report{Decision: report.DecisionAllow}).String(), "success", LedgerEntry{Decision: "allow"}},
		{"older run: failure", "### ⛔ Blocked", "failure", LedgerEntry{Decision: "block"}},
		{"older run: action_required", "", "action_required", LedgerEntry{Decision: "require_review"}},
		{"forged marker text is parsed strictly", "<!-- shipgate:record decision=allow findings=<script> cleared=0 -->", "failure", LedgerEntry{Decision: "block"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := &github.CheckRun{ID: github.Int64(7), HeadSHA: github.String("abc"), Conclusion: github.String(c.conclusion),
				CompletedAt: &github.Timestamp{Time: time.Unix(100, 0)}, Output: &github.CheckRunOutput{Summary: github.String(c.summary)}}
			got := decisionRow("o/r", 3, run)
			if got.Decision != c.want.Decision || got.Cleared != c.want.Cleared || got.Delta != c.want.Delta || len(got.Findings) != len(c.want.Findings) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for k, v := range c.want.Findings {
				if got.Findings[k] != v {
					t.Errorf("findings[%s] = %d, want %d", k, got.Findings[k], v)
				}
			}
			if got.Kind != "decision" || got.Repository != "o/r" || got.PR != 3 || got.Head != "abc" || got.CheckRunID != 7 || got.Conclusion != c.conclusion {
				t.Errorf("row fields: %+v", got)
			}
		})
	}
}

func TestLedgerWriter(t *testing.T) {
	rows := []LedgerEntry{
		{Kind: "decision", Repository: "o/r", PR: 1, Head: "abc", At: time.Unix(0, 0).UTC(), Decision: "block", Findings: map[string]int{"B": 1, "A": 2}, CheckRunID: 9},
		{Kind: "approval", Repository: "o/r", PR: 1, Head: "abc", At: time.Unix(60, 0).UTC(), Reviewer: "=cmd()", State: "APPROVED"},
	}
	var b bytes.Buffer
	w, err := NewLedgerWriter(&b, "csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(LedgerColumns, ",") + "\n" +
		"decision,o/r,1,abc,1970-01-01T00:00:00Z,block,,A:2 B:1,0,,9,,\n" +
		"approval,o/r,1,abc,1970-01-01T00:01:00Z,,,,0,,,'=cmd(),APPROVED\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	w, _ = NewLedgerWriter(&b, "jsonl")
	w.Write(rows[1])
	if got := b.String(); !strings.HasPrefix(got, `{"kind":"approval","repository":"o/r","pr":1,"head":"abc","at":"1970-01-01T00:01:00Z"`) || !strings.HasSuffix(got, "}\n") {
		t.Errorf("jsonl: %s", got)
	}
	if _, err := NewLedgerWriter(&b, "xml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// FuzzDecisionRow: any summary reads without a panic, and a record it
// yields names only catalogue-shaped check IDs with counts.
func FuzzDecisionRow(f *testing.F) {
	f.Add(recordOf(report.Report{Decision: report.DecisionBlock, Findings: []report.Finding{{CheckID: report.CheckWildcardAllow}}}).String())
	f.Add("<!-- shipgate:record decision=allow findings=A:1,B cleared=x -->")
	f.Add(report.DeltaMarker{Digest: strings.Repeat("0", 64)}.String())
	f.Fuzz(func(t *testing.T, s string) {
		run := &github.CheckRun{Output: &github.CheckRunOutput{Summary: github.String(s)}, Conclusion: github.String("success")}
		row := decisionRow("o/r", 1, run)
		for id, n := range row.Findings {
			if strings.ContainsAny(id, " <>\n") || n < 0 {
				t.Fatalf("finding %q:%d from %q", id, n, s)
			}
		}
	})
}
