package judge

import (
	"fmt"

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
			Message: fmt.Sprintf("%s: %s this whole file, before and after this change: %s. Nothing in it applies.%s", f.Path, claude.Ignores(hv), hv.Message(), claude.FixHint(hv)),
			Key:     "schema|" + f.Path})
	case hv != nil:
		lost := claude.LostRules(f.base)
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
				f.Path, claude.Ignores(hv), hv.Message(), lattice.ClaudeCodeVersion, what, claude.FixHint(hv)),
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
