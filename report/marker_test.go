package report

import (
	"reflect"
	"strings"
	"testing"
)

// TestMarkersRoundTrip: every marker written reads back as the value that
// wrote it, among other text and the other markers.
func TestMarkersRoundTrip(t *testing.T) {
	d := DeltaMarker{Digest: strings.Repeat("ab", 32)}
	r := RecordMarker{Decision: "require_review", Findings: map[string]int{"ALLOW-EXPANDED": 2, "UNKNOWN-KEY": 1}, Cleared: 2}
	dv := DeliveryMarker{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958"}
	s1, s2 := SuggestionMarkerOf(".claude/settings.json", 3, `"Bash(*)"`, `"Bash(npm test)"`), SuggestionMarkerOf("a", 1, "x", "y")
	text := "### Review\n\nsome <b>text</b> -->\n" + d.String() + "\n" + r.String() + "\n" + dv.String() + "\n" + s1.String() + " and " + s2.String()
	got := ParseMarkers(text)
	want := Markers{Delta: &d, Record: &r, Delivery: &dv, Suggestions: []SuggestionMarker{s1, s2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseMarkers:\n got %+v\nwant %+v", got, want)
	}
	if r.String() != "<!-- shipgate:record decision=require_review findings=ALLOW-EXPANDED:2,UNKNOWN-KEY:1 cleared=2 -->" {
		t.Errorf("record marker %q: check IDs not sorted, or the format changed (the ledger reads runs written by older versions)", r.String())
	}
	if s1 == s2 || len(s1.ID) != 24 || SuggestionMarkerOf(".claude/settings.json", 3, `"Bash(*)"`, `"Bash(npm test)"`) != s1 {
		t.Errorf("suggestion IDs %q, %q: not stable per edit, or not distinct", s1.ID, s2.ID)
	}
	if got := ParseMarkers(RecordMarker{Decision: "allow"}.String()).Record; got == nil || got.Decision != "allow" || got.Findings != nil || got.Cleared != 0 {
		t.Errorf("a record without findings read back as %+v", got)
	}
}

// TestMarkersStrict: a marker of the wrong shape is not read (a summary
// cut mid-comment, text in the place of a digest, an ID that could end the
// comment).
func TestMarkersStrict(t *testing.T) {
	for _, s := range []string{
		"",
		"<!-- shipgate:delta=abc -->",
		"<!-- shipgate:delta=" + strings.Repeat("A", 64) + " -->",
		"<!-- shipgate:delta=" + strings.Repeat("a", 64),
		"<!-- shipgate:record decision=allow findings=<script> cleared=0 -->",
		"<!-- shipgate:record decision=allow findings=A:1 cleared=x -->",
		"<!-- shipgate:delivery=a b -->",
		"<!-- shipgate:suggestion=" + strings.Repeat("0", 23) + " -->",
		"<!-- shipgate:unknown=1 -->",
	} {
		if got := ParseMarkers(s); !reflect.DeepEqual(got, Markers{}) {
			t.Errorf("ParseMarkers(%q) = %+v, want nothing", s, got)
		}
	}
	for _, id := range []string{"", "a b", "x-->", strings.Repeat("a", 65)} {
		if m := (DeliveryMarker{ID: id}).String(); m != "" {
			t.Errorf("DeliveryMarker{%q} = %q, want no marker", id, m)
		}
	}
}

func TestExternalID(t *testing.T) {
	for _, n := range []int{1, 42, 99999} {
		got, ok := ParseExternalID(CheckRun{PR: n}.ExternalID())
		if !ok || got.PR != n {
			t.Errorf("round trip of %d gave %d, %v", n, got.PR, ok)
		}
	}
	for _, s := range []string{"", "pr:", "pr:0", "pr:-3", "pr:x", "42", "issue:4", "pr:4 "} {
		if c, ok := ParseExternalID(s); ok {
			t.Errorf("ParseExternalID(%q) = %d, true; want false", s, c.PR)
		}
	}
}

// FuzzParseMarkers: any text reads without a panic, and what it yields
// writes back to a marker the text holds.
func FuzzParseMarkers(f *testing.F) {
	f.Add(DeltaMarker{Digest: strings.Repeat("0", 64)}.String() + RecordMarker{Decision: "block", Findings: map[string]int{"A": 1}}.String())
	f.Add("<!-- shipgate:record decision=allow findings=A:1,B cleared=x -->")
	f.Add("<!-- shipgate:delivery=sweep-1 --><!-- shipgate:suggestion=000000000000000000000000 -->")
	f.Fuzz(func(t *testing.T, s string) {
		m := ParseMarkers(s)
		if m.Delta != nil && !strings.Contains(s, m.Delta.String()) {
			t.Fatalf("delta %q not in %q", m.Delta.String(), s)
		}
		if m.Delivery != nil && !strings.Contains(s, m.Delivery.String()) {
			t.Fatalf("delivery %q not in %q", m.Delivery.String(), s)
		}
		for _, sg := range m.Suggestions {
			if !strings.Contains(s, sg.String()) {
				t.Fatalf("suggestion %q not in %q", sg.String(), s)
			}
		}
	})
}
