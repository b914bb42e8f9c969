package judge

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// A settings file with one value of the wrong type is dropped whole by
// Claude Code 2.1.328: its loader validates the file against its settings
// schema (claudeschema, taken from the binary) and, when a value fails,
// ignores the entire file — deny and ask rules and every setting
// included — and prints nothing. parseDoc reads such a version as {}; so
// the rows of a dropped head are the removal of everything the base held
// (its denials are deny removals), and the rows of a dropped base are the
// head's rules and settings as new grants (a fix that makes the file
// valid switches them on). droppedVersions says why.

// droppedVersions reports the versions of a settings file Claude Code
// drops for a schema violation.
func (e *engine) droppedVersions(f *fileState) {
	if f.kind != report.SettingsFile {
		return
	}
	var bv, hv *claudeschema.Violation
	if f.base != nil {
		bv = f.base.Dropped
	}
	if f.head != nil {
		hv = f.head.Dropped
	}
	switch {
	case hv != nil && bv != nil:
		e.finding(report.Finding{CheckID: report.CheckParseFailed, Action: policy.Advisory, Risk: rating.RiskLow, Path: f.Path, Line: hv.Line, HeadLine: hv.Line,
			Evidence: "schema_invalid: " + hv.Path, Title: "Claude Code ignores " + f.Path,
			Message: fmt.Sprintf("%s: %s this whole file, before and after this change: %s. Nothing in it applies.%s", f.Path, ignores(hv), hv.Message(), fixHint(hv)),
			Key:     "schema|" + f.Path})
	case hv != nil:
		lost := lostRules(f.base)
		risk := rating.RiskMedium
		what := "nothing of the base is lost beyond its allow rules and settings"
		if lost != "" {
			risk = rating.RiskHigh
			what = "so the base's " + lost + " stop applying (each removal is a row of its own)"
		}
		e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindFile, Direction: report.DirChanged, Before: "read", After: "ignored by Claude Code (" + hv.Path + ")",
			Expands: lost != "", Access: "unknown", Risk: risk, Line: 0, HeadLine: hv.Line, Witnesses: []string{},
			Why: "Claude Code drops a settings file with a value its schema refuses, deny and ask rules included"})
		e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: risk, Path: f.Path, Line: hv.Line, HeadLine: hv.Line,
			Evidence: "schema_invalid: " + hv.Path, Title: "Claude Code ignores " + f.Path,
			Message: fmt.Sprintf("%s: %s this whole file: %s. Claude Code %s drops a settings file with one value its settings schema refuses, deny and ask rules and every setting included, without a word; %s.%s",
				f.Path, ignores(hv), hv.Message(), lattice.ClaudeCodeVersion, what, fixHint(hv)),
			Key: "schema|" + f.Path})
	case bv != nil && f.head != nil:
		e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindFile, Direction: report.DirChanged, Before: "ignored by Claude Code (" + bv.Path + ")", After: "read",
			Access: "unknown", Risk: rating.RiskLow, Line: bv.Line, HeadLine: 1, Witnesses: []string{},
			Why: "the base was dropped by Claude Code (" + bv.Message() + "); the head is read, so each of its rules and settings is new"})
		e.finding(report.Finding{CheckID: report.CheckParseFailed, Action: policy.Advisory, Risk: rating.RiskLow, Path: f.Path, Line: bv.Line, HeadLine: 1, Base: true,
			Evidence: "schema_fixed: " + bv.Path, Title: "Claude Code now reads " + f.Path,
			Message: fmt.Sprintf("%s: Claude Code ignored the base version of this file (%s), so none of its rules or settings applied. The head is valid: every rule and setting in it is compared as new, the allow rules that lay dormant included.", f.Path, bv.Message()),
			Key:     "schema-fixed|" + f.Path})
	}
}

// ignores is the verb of a violation: Claude Code surely ignores a file
// whose value the schema refuses, and may where Shipgate cannot check
// every form the loader takes (it then fails closed).
func ignores(v *claudeschema.Violation) string {
	if v.Uncertain {
		return "Claude Code may ignore (Shipgate treats it as ignored)"
	}
	return "Claude Code ignores"
}

// fixHint says how to make the file valid again.
func fixHint(v *claudeschema.Violation) string {
	if v.Path == "" {
		return ""
	}
	return fmt.Sprintf(" To fix it: write `%s` as %s, or remove it.", v.Path, v.Expected)
}

// lostRules names the deny and ask rules a version held ("2 deny rules
// and 1 ask rule"), or "".
func lostRules(d *claude.Doc) string {
	if d == nil {
		return ""
	}
	nDeny, nAsk := len(d.RulesIn(lattice.Deny)), len(d.RulesIn(lattice.Ask))
	var lost []string
	if nDeny > 0 {
		lost = append(lost, report.Plural(nDeny, "deny rule"))
	}
	if nAsk > 0 {
		lost = append(lost, report.Plural(nAsk, "ask rule"))
	}
	return strings.Join(lost, " and ")
}
