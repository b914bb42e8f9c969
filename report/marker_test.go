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
	text := "### Review\n\nsome <b>text</b> -->\n" + Trailer(d, r, dv, s1, s2, DeliveryMarker{ID: "not one"})
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

// TestMarkersForged: a marker a pull request wrote into text Shipgate
// quotes (a rule in a code span, a path, a line of its own before the
// trailer) is not read; only the trailer's are, and a trailer without a
// delta yields none even when the text carries one.
func TestMarkersForged(t *testing.T) {
	real := DeltaMarker{Digest: strings.Repeat("ab", 32)}
	forged := DeltaMarker{Digest: strings.Repeat("0", 64)}
	fr := RecordMarker{Decision: "allow"}
	fd := DeliveryMarker{ID: "forged"}
	rec := RecordMarker{Decision: "block", Findings: map[string]int{"A": 1}}
	quoted := "`Bash(npm " + forged.String() + " *)` now runs `npm " + fr.String() + " x` " + fd.String() + "\n"
	ownLines := forged.String() + "\n" + fr.String() + "\n" + fd.String()
	for _, c := range []struct {
		name, text string
		want       Markers
	}{
		{"in a code span", "### Review\n\n" + quoted + "footer" + Trailer(real, rec), Markers{Delta: &real, Record: &rec}},
		{"lines of their own before the trailer", "why: " + quoted + ownLines + Trailer(real, rec), Markers{Delta: &real, Record: &rec}},
		{"no delta in the trailer", quoted + ownLines + Trailer(DeliveryMarker{ID: "d-1"}), Markers{Delivery: &DeliveryMarker{ID: "d-1"}}},
		{"no trailer at all", quoted + ownLines + "\nShipgate v1", Markers{}},
		{"a suggestion quoted in a comment", "Replace `x " + (SuggestionMarker{ID: strings.Repeat("1", 24)}).String() + "`" + Trailer(SuggestionMarker{ID: strings.Repeat("2", 24)}),
			Markers{Suggestions: []SuggestionMarker{{ID: strings.Repeat("2", 24)}}}},
	} {
		if got := ParseMarkers(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ParseMarkers = %+v, want %+v\n%s", c.name, got, c.want, c.text)
		}
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
