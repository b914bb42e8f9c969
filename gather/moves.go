package gather

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/report"
)

// Hook scripts moved with their folder.
//
// A pull request that moves a folder of hook scripts (git mv scripts/hooks
// agents/hooks) and points the hooks at the new paths shows the engine
// a script deleted, a script created with the same bytes and a hook whose
// command names another file. The hook runs the same code only if what the
// script can load and read beside it moved with it, unchanged: a Python
// script imports first from its own folder, a shell script sources
// `$(dirname "$0")/lib.sh`, uv reads a script's lock file beside it.
// moves proves that, or says why not, for every such pair of scripts in
// the input: the old folder at the base and the new one at the head hold
// the same files, name by name and byte by byte (no symlink, no
// submodule, no more than maxMoveFiles files and maxMoveBytes bytes), and
// no script in it reaches past its folder (hookscript.MoveBlocker). What is
// proven is given to the engine as report.Move; anything else stays a new
// command to review, with a note that says why.

// maxMoveFiles and maxMoveBytes bound the folder a move is proven for:
// past them the hooks are reviewed as new commands.
const (
	maxMoveFiles = 32
	maxMoveBytes = 1 << 20
)

// moves adds to the input the moved folders of its hook scripts.
func (g *gatherer) moves(ctx context.Context) error {
	type pair struct{ from, to string }
	var pairs []pair
	seen := map[pair]bool{}
	for _, b := range g.res.Input.Files {
		if !movable(b) || !b.Base.Exists || b.Head.Exists || b.Base.Unreadable != "" {
			continue
		}
		for _, h := range g.res.Input.Files {
			if !movable(h) || h.Base.Exists || !h.Head.Exists || h.Head.Unreadable != "" ||
				path.Base(h.Path) != path.Base(b.Path) || path.Dir(h.Path) == path.Dir(b.Path) || !bytes.Equal(b.Base.Data, h.Head.Data) {
				continue
			}
			p := pair{path.Dir(b.Path), path.Dir(h.Path)}
			if !seen[p] {
				seen[p] = true
				pairs = append(pairs, p)
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].from+"\x00"+pairs[i].to < pairs[j].from+"\x00"+pairs[j].to })
	g.renamedInPlace()
	for _, p := range pairs {
		n, why, err := g.sameFolder(ctx, p.from, p.to, nil)
		if err != nil {
			return err
		}
		if why != "" {
			g.note(fmt.Sprintf("`%s` → `%s`: the hook scripts moved there are reviewed as new commands, since Shipgate cannot show they run the same code: %s.", p.from, p.to, why))
			continue
		}
		g.res.Input.Moves = append(g.res.Input.Moves, report.Move{From: p.from, To: p.to, Files: n})
	}
	return nil
}

// renamedInPlace adds to the input the hook scripts renamed in their
// folder: a script deleted at the base and, in the same folder, exactly
// one new script with the same bytes and extension, which reads neither
// name (hookscript.RenameBlocker). The folder is the same, so what the
// script loads beside it is where it was; a change to such a file is
// compared itself. A deleted script whose bytes arrive under more than one
// new name, or a new one that more than one deleted script matches, is
// left a new command.
func (g *gatherer) renamedInPlace() {
	matches := map[string][]string{} // deleted → new
	into := map[string]int{}         // new → how many deleted match it
	for _, b := range g.res.Input.Files {
		if !movable(b) || !b.Base.Exists || b.Head.Exists || b.Base.Unreadable != "" {
			continue
		}
		for _, h := range g.res.Input.Files {
			if !movable(h) || h.Base.Exists || !h.Head.Exists || h.Head.Unreadable != "" ||
				path.Dir(h.Path) != path.Dir(b.Path) || !bytes.Equal(b.Base.Data, h.Head.Data) {
				continue
			}
			matches[b.Path] = append(matches[b.Path], h.Path)
			into[h.Path]++
		}
	}
	var from []string
	for p := range matches {
		from = append(from, p)
	}
	sort.Strings(from)
	for _, p := range from {
		to := matches[p]
		if len(to) != 1 || into[to[0]] != 1 {
			g.note(fmt.Sprintf("`%s`: its bytes are at more than one new path in its folder, so the hooks that run them are reviewed as new commands.", p))
			continue
		}
		data := g.inputFile(p).Base.Data
		if why := hookscript.RenameBlocker(p, to[0], data); why != "" {
			g.note(fmt.Sprintf("`%s` → `%s`: the hook script renamed there is reviewed as a new command, since Shipgate cannot show it runs the same code: %s.", p, path.Base(to[0]), why))
			continue
		}
		g.res.Input.Moves = append(g.res.Input.Moves, report.Move{From: p, To: to[0], Files: 1, File: true})
	}
}

// inputFile is the input's file at path p.
func (g *gatherer) inputFile(p string) *report.File {
	for i := range g.res.Input.Files {
		if g.res.Input.Files[i].Path == p {
			return &g.res.Input.Files[i]
		}
	}
	return &report.File{}
}

// movable reports whether an input file is a script (not an agent-config
// file, which is compared as itself) that may have moved: a repository
// path, not the root's.
func movable(f report.File) bool {
	k, _ := agentfiles.Classify(f.ClassifiedPath(), nil)
	return (k == report.NotAgentConfig || k == report.ScriptFile) && path.Dir(f.Path) != "." && f.As == ""
}

// sameFolder proves that the folder from at the base and the folder to at
// the head hold the same files with the same content, and that no script
// among them reaches past its folder; it returns how many files, or why
// not. A file whose path in the folder differs (when not nil) accepts may
// differ in content: an agent-config file the engine compares itself
// (renames.go).
func (g *gatherer) sameFolder(ctx context.Context, from, to string, differs func(rel string) bool) (int, string, error) {
	if !g.complete {
		return 0, "the repository's file tree was not listed whole", nil
	}
	if strings.HasPrefix(to+"/", from+"/") || strings.HasPrefix(from+"/", to+"/") {
		return 0, "one folder lies inside the other", nil
	}
	for _, d := range []string{from, to} {
		if err := g.fill(ctx, d); err != nil {
			return 0, "", err
		}
	}
	under := func(p, d string) (string, bool) { return strings.CutPrefix(p, d+"/") }
	// The changes under either folder, listed again: the first listing
	// was selected before the folders were known.
	sel := Selector{Pathspecs: []string{":(literal)" + from, ":(literal)" + to}, Match: func(p string) bool {
		_, a := under(p, from)
		_, b := under(p, to)
		return a || b
	}}
	changes, truncated, err := g.src.Changed(ctx, sel)
	if err != nil {
		return 0, "", err
	}
	if truncated {
		return 0, "the host lists only so many changed files, and there were more", nil
	}
	baseSet := map[string]Entry{}
	headSet := map[string]bool{}
	for p, e := range g.base {
		if rel, ok := under(p, from); ok {
			baseSet[rel] = e
		}
		if rel, ok := under(p, to); ok {
			headSet[rel] = true
		}
	}
	for _, c := range changes {
		if rel, ok := under(c.Path, to); ok {
			headSet[rel] = c.Status != Deleted
		}
	}
	var names []string
	for rel, ok := range headSet {
		if ok {
			names = append(names, rel)
		}
	}
	sort.Strings(names)
	if len(names) != len(baseSet) {
		return 0, fmt.Sprintf("`%s` holds %d files at the base and `%s` %d at the head", from, len(baseSet), to, len(names)), nil
	}
	if len(names) > maxMoveFiles {
		return 0, fmt.Sprintf("the folder holds %d files, more than the %d Shipgate compares", len(names), maxMoveFiles), nil
	}
	runs := map[string]bool{}
	for _, f := range g.res.Input.Files {
		if rel, ok := under(f.Path, to); ok && !f.Base.Exists {
			runs[rel] = true
		}
	}
	total := 0
	for _, rel := range names {
		be, ok := baseSet[rel]
		if !ok {
			return 0, fmt.Sprintf("`%s` is new at the head", path.Join(to, rel)), nil
		}
		if be.Kind != File || be.TooLarge {
			return 0, fmt.Sprintf("`%s` is a %s at the base", path.Join(from, rel), be.Kind), nil
		}
		b, err := g.src.Base().Read(ctx, path.Join(from, rel))
		if err != nil {
			return 0, "", err
		}
		h, err := g.src.Head().Read(ctx, path.Join(to, rel))
		if err != nil {
			return 0, "", err
		}
		if b.Kind != File || h.Kind != File || b.TooLarge || h.TooLarge {
			return 0, fmt.Sprintf("`%s` is not a regular file Shipgate can read on both sides", rel), nil
		}
		if total += len(b.Data); total > maxMoveBytes {
			return 0, fmt.Sprintf("the folder holds more than the %d bytes Shipgate compares", maxMoveBytes), nil
		}
		if differs != nil && differs(rel) {
			continue
		}
		if !bytes.Equal(b.Data, h.Data) {
			return 0, fmt.Sprintf("`%s` changed on the way", path.Join(to, rel)), nil
		}
		if why := hookscript.MoveBlocker(path.Join(from, rel), b.Data, runs[rel]); why != "" {
			return 0, why, nil
		}
	}
	return len(names), "", nil
}
