// Package report is the contract between Shipgate's layers: what the
// engine reads (Input, File, Version, PolicyChange) and writes (Report,
// Change, Finding, Suggestion, Decision, the check IDs of the Catalogue,
// Decide), which the gatherer fills and the renderers and the App read.
// This file is the marker codec: the typed
// values a check run's summary (or a review comment) carries in HTML
// comments so that a later evaluation, the ledger or a re-run reads them
// back from GitHub itself — no second store to lose or to trust. Each
// marker is written by its String method, placed by Trailer at the very
// end of the text, and read back by ParseMarkers from there only: nothing
// else spells or matches the comment text, and text a pull request wrote
// (a rule, a path, a witness quoted into the summary) can never be read
// as a marker, wherever it stands.
package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DeltaMarker records the digest (sha256, lowercase hex) of the permission
// changes a completed run judged, so a later evaluation can tell whether
// an approval given at that commit still covers the same changes.
type DeltaMarker struct{ Digest string }

// String is the marker's comment.
func (d DeltaMarker) String() string { return "<!-- shipgate:delta=" + d.Digest + " -->" }

// RecordMarker is a completed run's decision and its findings counted by check
// ID, read back by the decision ledger.
type RecordMarker struct {
	Decision Decision       // allow, require_review or block
	Findings map[string]int // check ID → findings
	Cleared  int            // findings an approval cleared
}

// String is the marker's comment (check IDs sorted).
func (r RecordMarker) String() string {
	ids := make([]string, 0, len(r.Findings))
	for id := range r.Findings {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id + ":" + strconv.Itoa(r.Findings[id])
	}
	return fmt.Sprintf("<!-- shipgate:record decision=%s findings=%s cleared=%d -->", r.Decision, strings.Join(parts, ","), r.Cleared)
}

// DeliveryMarker names the webhook delivery whose job published a run, so a
// retried job finds what an earlier attempt already published.
type DeliveryMarker struct{ ID string }

// deliveryID is the shape of a delivery ID a marker may carry: GitHub's
// GUIDs and the sweep's "sweep-<ms>", nothing that could end the comment.
var deliveryID = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// String is the marker's comment, "" when the ID is empty or unusual
// (such a delivery is never marked, so never found again).
func (d DeliveryMarker) String() string {
	if !deliveryID.MatchString(d.ID) {
		return ""
	}
	return "<!-- shipgate:delivery=" + d.ID + " -->"
}

// SuggestionMarker identifies a posted suggestion independently of the head:
// the first 12 bytes (hex) of the digest of its file, line and edit. A
// re-run of the same head, or a push that leaves the line alone, finds it
// and posts nothing new.
type SuggestionMarker struct{ ID string }

// SuggestionMarkerOf is the marker of the edit of path at line from before to
// after.
func SuggestionMarkerOf(path string, line int, before, after string) SuggestionMarker {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s\x00%s", path, line, before, after)))
	return SuggestionMarker{ID: hex.EncodeToString(sum[:12])}
}

// String is the marker's comment.
func (s SuggestionMarker) String() string { return "<!-- shipgate:suggestion=" + s.ID + " -->" }

// Markers is every marker one text carries. A marker that is absent, or
// malformed (a summary cut mid-comment, a value of the wrong shape), is
// the zero value: nothing is read from it.
type Markers struct {
	Delta       *DeltaMarker
	Record      *RecordMarker
	Delivery    *DeliveryMarker
	Suggestions []SuggestionMarker // in the order they appear
}

// marker matches one Shipgate comment; each kind's value is checked by
// its own pattern below.
var marker = regexp.MustCompile(`<!-- shipgate:([a-z]+)[= ]([^<>]*?) -->`)

// markerLine is a line that is one Shipgate comment and nothing else.
var markerLine = regexp.MustCompile(`^<!-- shipgate:[a-z]+[= ][^<>]*? -->$`)

var (
	deltaValue      = regexp.MustCompile(`^[0-9a-f]{64}$`)
	recordValue     = regexp.MustCompile(`^decision=([a-z_]+) findings=([A-Z0-9:,-]*) cleared=(\d+)$`)
	suggestionValue = regexp.MustCompile(`^[0-9a-f]{24}$`)
)

// Trailer is the block that carries markers at the end of a summary or a
// comment: a blank line, then one marker a line (markers whose String is
// empty are left out). Shipgate appends it last, after everything else
// the text holds, so the markers ParseMarkers reads are the ones it wrote:
// the blank line ends the block for the reader, and whatever precedes it
// — text a pull request chose, even lines of its own that look exactly
// like markers — is not part of it.
func Trailer(ms ...fmt.Stringer) string {
	var b strings.Builder
	for _, m := range ms {
		if s := m.String(); s != "" {
			b.WriteString("\n" + s)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}

// trailer is the text's trailer block: its last lines that are each one
// marker and nothing else, up to the first line from the end that is not
// (the blank line Trailer writes). Trailing blanks are ignored.
func trailer(text string) []string {
	lines := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	i := len(lines)
	for i > 0 && markerLine.MatchString(strings.TrimRight(lines[i-1], " \t\r")) {
		i--
	}
	return lines[i:]
}

// ParseMarkers reads the markers of a summary or comment body — from its
// trailer only (Trailer): a marker anywhere else in the text is text, not
// a marker, since a pull request's own words (a rule, a file path, a
// witness, a note) are quoted into a summary before the trailer and
// could otherwise forge the delta an approval binds to, the record the
// ledger counts or the delivery a retry trusts. Of the delta, record and
// delivery markers the last well-formed one of the trailer counts (there
// is one of each).
func ParseMarkers(text string) Markers {
	var m Markers
	for _, line := range trailer(text) {
		s := marker.FindStringSubmatch(line)
		if s == nil {
			continue
		}
		kind, v := s[1], s[2]
		switch {
		case kind == "delta" && deltaValue.MatchString(v):
			m.Delta = &DeltaMarker{Digest: v}
		case kind == "record":
			if r := recordValue.FindStringSubmatch(v); r != nil {
				rec := &RecordMarker{Decision: Decision(r[1])}
				rec.Cleared, _ = strconv.Atoi(r[3])
				if r[2] != "" {
					rec.Findings = map[string]int{}
					for _, p := range strings.Split(r[2], ",") {
						id, count, _ := strings.Cut(p, ":")
						rec.Findings[id], _ = strconv.Atoi(count)
					}
				}
				m.Record = rec
			}
		case kind == "delivery" && deliveryID.MatchString(v):
			m.Delivery = &DeliveryMarker{ID: v}
		case kind == "suggestion" && suggestionValue.MatchString(v):
			m.Suggestions = append(m.Suggestions, SuggestionMarker{ID: v})
		}
	}
	return m
}

// CheckRun is what a check run's external ID carries: what a re-run
// needs, the pull request number.
type CheckRun struct{ PR int }

// ExternalID is the check run's external ID, "pr:<number>".
func (c CheckRun) ExternalID() string { return "pr:" + strconv.Itoa(c.PR) }

// ParseExternalID reads an external ID ExternalID wrote; false for any
// other (another App's, a number not above zero).
func ParseExternalID(s string) (CheckRun, bool) {
	rest, ok := strings.CutPrefix(s, "pr:")
	if !ok {
		return CheckRun{}, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return CheckRun{}, false
	}
	return CheckRun{PR: n}, true
}
