package judge

import (
	"bytes"
	"strings"

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
