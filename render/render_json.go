package render

import (
	"bytes"
	"encoding/json"

	"github.com/shipgate-app/shipgate/report"
)

// JSON renders the Report as the machine-readable contract of DESIGN.md
// section 4 (schema shipgate.report/v1): keys in the order of the Report,
// Change, Finding and FileStatus structs, two-space indentation, HTML
// escaping off (a rule such as `Bash(a < b)` stays readable), every list
// present ([] rather than null) and a trailing newline. The output is
// byte-stable for a given Report, so it can be diffed, hashed and kept as
// a golden file; the engine has already sorted the Report.
func JSON(r report.Report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(normalized(r)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// normalized returns a copy of the Report whose lists are never nil, so the
// JSON form always carries [] where a consumer expects a list. The Report's
// own slices are not modified.
func normalized(r report.Report) report.Report {
	out := r
	if out.Schema == "" {
		out.Schema = report.Schema
	}
	if out.Decision == "" {
		out.Decision = report.DecisionAllow
	}
	if out.CheckedAgainst == nil {
		out.CheckedAgainst = report.CheckedAgainst()
	}
	if out.Files == nil {
		out.Files = []report.FileStatus{}
	}
	if out.Findings == nil {
		out.Findings = []report.Finding{}
	}
	if out.Suggestions == nil {
		out.Suggestions = []report.Suggestion{}
	}
	out.Changes = make([]report.Change, len(r.Changes))
	copy(out.Changes, r.Changes)
	for i := range out.Changes {
		if out.Changes[i].Witnesses == nil {
			out.Changes[i].Witnesses = []string{}
		}
	}
	return out
}
