package judge

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// Commands renamed.
//
// A pull request that renames a custom command (.claude/commands/a.md →
// .claude/commands/b.md) shows the engine a command deleted and a command
// added: every allowed-tools entry of the new one read as a new grant,
// though the same entries pre-approved the same calls under the old name.
// A command pre-approves calls while it runs, whoever invokes it, so a
// command added with the frontmatter a command deleted in the same folder
// had (its name, description and argument hint aside) grants nothing new:
// it is compared against the deleted one. Skills are left out (a skill is
// a folder whose other files its tools may run), and so is anything whose
// frontmatter Shipgate cannot compare line by line.

// renamedCommands compares each added command against a deleted command
// of the same folder with the same grant-bearing frontmatter, and marks
// the deleted one as renamed (renamedTo) so it is no row of its own.
func (e *engine) renamedCommands() {
	var added, deleted []*fileState
	for _, f := range e.files {
		if f.kind != report.CommandFile || f.Base.Unreadable != "" || f.Head.Unreadable != "" {
			continue
		}
		switch {
		case !f.Base.Exists && f.Head.Exists && f.head != nil && f.headErr == nil:
			added = append(added, f)
		case f.Base.Exists && !f.Head.Exists && f.base != nil && f.baseErr == nil:
			deleted = append(deleted, f)
		}
	}
	used := map[*fileState]bool{}
	for _, y := range added {
		ky, ok := grantFrontmatter(y.Head.Data)
		if !ok {
			continue
		}
		for _, x := range deleted {
			if used[x] || x.scope != y.scope || dirOf(x.Path) != dirOf(y.Path) {
				continue
			}
			if kx, ok := grantFrontmatter(x.Base.Data); ok && kx == ky {
				used[x] = true
				y.base = x.base
				if e.renamed == nil {
					e.renamed = map[string]string{}
				}
				e.renamed[x.Path] = y.Path
				break
			}
		}
	}
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// grantFrontmatter is a command's frontmatter without the keys that grant
// nothing (name, description, argument-hint), one line each: ok is false
// when the file has no frontmatter, or a value of one of those keys spans
// lines (a block scalar, a continued line), which this comparison cannot
// tell from a key that grants (fail closed: no pairing).
func grantFrontmatter(data []byte) (string, bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return "", false
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return "", false
	}
	var keep []string
	skipping := false
	for _, line := range strings.Split(s[4:4+end], "\n") {
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		if indented || strings.TrimSpace(line) == "" {
			if skipping {
				return "", false
			}
			keep = append(keep, line)
			continue
		}
		skipping = false
		key, val, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(key) {
		case "name", "description", "argument-hint":
			v := strings.TrimSpace(val)
			if v == "" || v == "|" || v == ">" || strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") {
				return "", false
			}
			skipping = true
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n"), true
}

// Agent-config files moved or renamed as the same grant
// (report.Input.Renames, proven by the gatherer: gather/renames.go). The
// file added at To is compared against the base of the file deleted at
// From, as one file changed in place at To, so that what it held before
// is no new grant and a change made on the way is compared as one; the
// deleted file is no row of its own, and each moved unit (a skill's or a
// plugin's folder, a project folder, a command) is said once, quietly.
// A pair the input does not bear out (From not deleted, To not added,
// another agent or kind, a side unreadable) is not made: both stay rows.

// applyRenames returns the input's files with each proven rename merged
// into its new path, and the renames made.
func applyRenames(in report.Input) ([]report.File, []report.Rename) {
	if len(in.Renames) == 0 {
		return in.Files, nil
	}
	at := map[string]int{}
	for i, f := range in.Files {
		if _, dup := at[f.Path]; dup {
			at[f.Path] = -1 // a path given twice: not paired
			continue
		}
		at[f.Path] = i
	}
	files := slices.Clone(in.Files)
	drop := map[int]bool{}
	var made []report.Rename
	for _, r := range in.Renames {
		i, ok1 := at[r.From]
		j, ok2 := at[r.To]
		if !ok1 || !ok2 || i < 0 || j < 0 || drop[i] || i == j {
			continue
		}
		x, y := files[i], files[j]
		if !samePluginPart(x, r.UnitFrom, y, r.UnitTo) || !x.Base.Exists || x.Head.Exists || y.Base.Exists || !y.Head.Exists ||
			x.Base.Unreadable != "" || y.Head.Unreadable != "" {
			continue
		}
		ax, kx, _ := agentfiles.ClassifyAgent(x.ClassifiedPath(), in.Policy)
		ay, ky, _ := agentfiles.ClassifyAgent(y.ClassifiedPath(), in.Policy)
		if ax != ay || kx != ky || kx == report.NotAgentConfig || kx == report.ScriptFile {
			continue
		}
		files[j].Base = x.Base
		drop[i] = true
		made = append(made, r)
	}
	out := files[:0:0]
	for i, f := range files {
		if !drop[i] {
			out = append(out, f)
		}
	}
	repointMarketplaces(out, made)
	return out, made
}

// repointMarketplaces compares each plugin marketplace of files changed in
// place as if the plugins made moved had always been at their new folder
// (agentfiles.RepointMarketplace): the gatherer paired a plugin's folder
// only where every marketplace re-points its entries there under the same
// names, so the re-pointed source is no change, and any other edit to the
// marketplace still is one.
func repointMarketplaces(files []report.File, made []report.Rename) {
	seen := map[[2]string]bool{}
	for _, r := range made {
		k := [2]string{r.UnitFrom, r.UnitTo}
		if seen[k] || r.From != path.Join(r.UnitFrom, ".claude-plugin", "plugin.json") {
			continue
		}
		seen[k] = true
		for i, f := range files {
			if f.As != "" || path.Base(f.Path) != "marketplace.json" || !agentfiles.IsPluginManifest(f.Path) ||
				!f.Base.Exists || !f.Head.Exists || f.Base.Unreadable != "" || f.Head.Unreadable != "" {
				continue
			}
			if data, ok := agentfiles.RepointMarketplace(f.Path, f.Base.Data, f.Head.Data, r.UnitFrom, r.UnitTo); ok {
				files[i].Base.Data = data
			}
		}
	}
}

// samePluginPart says whether x in the unit from and y in the unit to are
// read as themselves (no As), or both as the same part of a plugin moved
// from from to to: the As the plugin layouts give (a command read as
// from/.claude-plugin/.claude/commands/c.md) at the same place under each
// folder. A case variant's As (read under another spelling) is not paired.
func samePluginPart(x report.File, from string, y report.File, to string) bool {
	if x.As == "" || y.As == "" {
		return x.As == y.As
	}
	rx, ok1 := strings.CutPrefix(x.As, from+"/")
	ry, ok2 := strings.CutPrefix(y.As, to+"/")
	// A part's As lies under the plugin's .claude-plugin (a command, agent
	// or skill) or ends in its part's name after the file (hooks, servers).
	part := strings.HasPrefix(rx, ".claude-plugin/") || strings.Contains(rx, "/.claude-plugin-part/")
	return ok1 && ok2 && rx == ry && part
}

// movedRows says each moved unit once: a quiet row on its first file.
func (e *engine) movedRows(made []report.Rename) {
	seen := map[[2]string]bool{}
	for _, r := range made {
		k := [2]string{r.UnitFrom, r.UnitTo}
		if seen[k] {
			continue
		}
		seen[k] = true
		what := "moved from " + r.UnitFrom
		if r.UnitTo != r.To {
			files := "files"
			if r.Files == 1 {
				files = "file"
			}
			what += fmt.Sprintf(" (%s → %s, %d %s, each the same but the agent-config files, which are compared against their old versions)", r.UnitFrom, r.UnitTo, r.Files, files)
		} else {
			what += ": compared against its old version"
		}
		e.changes = append(e.changes, report.Change{Path: r.To, Kind: report.KindFile, Direction: report.DirMoved, Before: r.UnitFrom, After: r.UnitTo,
			Access: rating.AccessNone, Risk: rating.RiskLow, Line: 1, HeadLine: 1, Witnesses: []string{}, Why: what})
	}
}
