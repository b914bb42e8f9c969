package judge

import (
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/report"
)

// TestCompareLoadedFiles: a change to a file a hook script loads (at any
// level up to MaxLoadDepth, or in the folder of a script whose loads
// cannot be resolved or are past the bound) is a change to the hook, held
// for review with a message naming the chain; an unrelated file is not.
func TestCompareLoadedFiles(t *testing.T) {
	settings := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 s/m0.py"}]}]}}`
	same := func(p, data string) report.File {
		v := report.Version{Exists: true, Data: []byte(data)}
		return report.File{Path: p, Base: v, Head: v}
	}
	edit := func(p string) report.File {
		return report.File{Path: p, Base: report.Version{Exists: true, Data: []byte("x = 1\n")}, Head: report.Version{Exists: true, Data: []byte("x = 2\n")}}
	}
	// chain: s/m0.py imports m1, m1 imports m2, … up to m<n>.
	chain := func(n int) []report.File {
		fs := []report.File{same(".claude/settings.json", settings)}
		for i := 0; i < n; i++ {
			fs = append(fs, same("s/m"+string(rune('0'+i))+".py", "import m"+string(rune('1'+i))+"\n"))
		}
		return fs
	}
	cases := []struct {
		name     string
		files    []report.File
		decision report.Decision
		inMsg    string
	}{
		{"a module the hook script imports", append(chain(1), edit("s/m1.py")), report.DecisionRequireReview, "s/m0.py, run by .claude/settings.json"},
		{"three levels deep", append(chain(3), edit("s/m3.py")), report.DecisionRequireReview, "s/m0.py, which loads s/m1.py, which loads s/m2.py"},
		{"past MaxLoadDepth: its folder", append(chain(hookscript.MaxLoadDepth+1), edit("s/other.py")), report.DecisionRequireReview, "levels deep"},
		{"a dynamic load: any file in the folder", []report.File{same(".claude/settings.json", settings), same("s/m0.py", "import importlib\nimportlib.import_module(n)\n"), edit("s/sub/x.txt")}, report.DecisionRequireReview, "cannot resolve (importlib.import_module(n))"},
		{"a script the gatherer did not read for its loads: its folder", []report.File{same(".claude/settings.json", settings),
			{Path: "s/m0.py", Base: report.Version{Exists: true, Unreadable: "past the bound"}, Head: report.Version{Exists: true, Unreadable: "past the bound"}}, edit("s/x.py")},
			report.DecisionRequireReview, "was not read (past the bound)"},
		{"an unrelated file beside the script", append(chain(1), edit("s/other.py")), report.DecisionAllow, ""},
		{"a loaded file of a script no command runs", []report.File{same(".claude/settings.json", `{}`), same("s/m0.py", "import m1\n"), edit("s/m1.py")}, report.DecisionAllow, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(report.Input{Files: c.files})
			if r.Decision != c.decision {
				t.Fatalf("decision %s, want %s: %+v", r.Decision, c.decision, r.Findings)
			}
			if c.inMsg == "" {
				return
			}
			found := false
			for _, f := range r.Findings {
				found = found || f.CheckID == report.CheckHookChanged && strings.Contains(f.Message, c.inMsg)
			}
			if !found {
				t.Errorf("no HOOK-CHANGED finding saying %q: %+v", c.inMsg, r.Findings)
			}
		})
	}
}
