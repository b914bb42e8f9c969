package judge

import (
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/report"
)

// TestProblemFindings: the one problems pipeline reports what the head of
// any agent's file reads differently from how it looks, once (a problem
// the base had is not new), with the finding keys each agent has always
// had — approvals bind to them (the delta digest), so a change to a key
// would void approvals of open pull requests.
func TestProblemFindings(t *testing.T) {
	claudeBase := `{"permissions": {"allow": ["Bash(ls)"]}, "permission": {}}`
	claudeHead := `{"permissions": {"allow": ["Bash(ls)", 7, ""], "deny": [3], "defaultMod": "x"}, "permission": {}, "envv": {}, "x": 1, "x": 2}`
	geminiBase := `{"tools": {"allowed": ["run_shell_command(ls)"]}}`
	geminiHead := `{"tools": {"allowed": ["run_shell_command(ls)"], "exclude": [5]}, "toolz": {}, "tools2": 1, "tools2": 2}`
	in := report.Input{Files: []report.File{
		{Path: ".claude/settings.json", Base: report.Version{Exists: true, Data: []byte(claudeBase)}, Head: report.Version{Exists: true, Data: []byte(claudeHead)}},
		{Path: ".gemini/settings.json", Base: report.Version{Exists: true, Data: []byte(geminiBase)}, Head: report.Version{Exists: true, Data: []byte(geminiHead)}},
	}}
	var got []string
	for _, f := range Compare(in).Findings {
		if strings.HasPrefix(f.Key, "problem|") {
			got = append(got, f.CheckID+" "+string(f.Risk)+" "+f.Key+" | "+f.Title)
		}
	}
	want := []string{
		"SHIP-HOST-BOUNDARY-CONFIG-DUPLICATE-KEY medium problem|.claude/settings.json|duplicate_key|x | read differently from how it looks",
		"SHIP-HOST-BOUNDARY-PERMISSION-RULE-INVALID medium problem|.claude/settings.json|permissions.deny[0] | entry Claude Code skips",
		"SHIP-HOST-BOUNDARY-PERMISSION-RULE-INVALID low problem|.claude/settings.json|permissions.allow[1] | entry Claude Code skips",
		"SHIP-HOST-BOUNDARY-PERMISSION-RULE-INVALID low problem|.claude/settings.json|permissions.allow[2] | entry Claude Code skips",
		"SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY low problem|.claude/settings.json|unknown|envv | unknown key envv",
		"SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY low problem|.claude/settings.json|unknown|permissions.defaultMod | unknown key permissions.defaultMod",
		"SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY low problem|.claude/settings.json|unknown|x | unknown key x",
		"SHIP-HOST-BOUNDARY-CONFIG-DUPLICATE-KEY medium problem|.gemini/settings.json|duplicate_key|tools2 | read differently from how it looks",
		"SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY low problem|.gemini/settings.json|unknown_key|tools2 | unknown key tools2",
		"SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY low problem|.gemini/settings.json|unknown_key|toolz | unknown key toolz",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problem findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
