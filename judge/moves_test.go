package judge

import (
	"testing"

	"github.com/shipgate-app/shipgate/report"
)

// TestApplyRenames: a rename the gatherer proved is made only where the
// input bears it out (From deleted, To added, the same agent and kind,
// both readable); the new file is then compared against the old one.
func TestApplyRenames(t *testing.T) {
	skill := []byte("---\nallowed-tools: Bash(npm run lint:*)\n---\nLint.\n")
	wide := []byte("---\nallowed-tools: Bash(npm run lint:*), Bash(rm:*)\n---\nLint.\n")
	del := func(p string) report.File {
		return report.File{Path: p, Base: report.Version{Exists: true, Data: skill}}
	}
	add := func(p string, d []byte) report.File {
		return report.File{Path: p, Head: report.Version{Exists: true, Data: d}}
	}
	const a, b = ".claude/skills/a/SKILL.md", ".claude/skills/b/SKILL.md"
	r := report.Rename{From: a, To: b, UnitFrom: ".claude/skills/a", UnitTo: ".claude/skills/b", Files: 1}
	for _, c := range []struct {
		name     string
		files    []report.File
		renames  []report.Rename
		made     bool
		decision string
	}{
		{"renamed unchanged", []report.File{del(a), add(b, skill)}, []report.Rename{r}, true, "allow"},
		{"renamed and widened", []report.File{del(a), add(b, wide)}, []report.Rename{r}, true, "require_review"},
		{"no rename given: read as new", []report.File{del(a), add(b, skill)}, nil, false, "require_review"},
		{"From not deleted", []report.File{{Path: a, Base: report.Version{Exists: true, Data: skill}, Head: report.Version{Exists: true, Data: skill}}, add(b, skill)}, []report.Rename{r}, false, "require_review"},
		{"To not added", []report.File{del(a), {Path: b, Base: report.Version{Exists: true, Data: skill}, Head: report.Version{Exists: true, Data: wide}}}, []report.Rename{r}, false, "require_review"},
		{"another kind", []report.File{del(a), add(".claude/commands/b.md", skill)}, []report.Rename{{From: a, To: ".claude/commands/b.md", UnitFrom: a, UnitTo: ".claude/commands/b.md"}}, false, "require_review"},
		{"To unreadable", []report.File{del(a), {Path: b, Head: report.Version{Exists: true, Unreadable: "a symlink"}}}, []report.Rename{r}, false, "block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := report.Input{Files: c.files, Renames: c.renames}
			_, made := applyRenames(in)
			if (len(made) > 0) != c.made {
				t.Errorf("made %v, want %v", made, c.made)
			}
			rep := Compare(in)
			if string(rep.Decision) != c.decision {
				t.Errorf("decision %s, want %s: %v", rep.Decision, c.decision, rep.Findings)
			}
			moved := false
			for _, ch := range rep.Changes {
				moved = moved || ch.Direction == report.DirMoved && ch.Before == ".claude/skills/a"
			}
			if moved != c.made {
				t.Errorf("moved row %v, want %v", moved, c.made)
			}
		})
	}
}
