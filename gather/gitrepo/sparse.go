package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// ListTreeLinks lists the symlinks and submodules of commit rev, wherever
// they are, plus the files whose paths keep returns true for, from one
// `git ls-tree -r` (directories are implied by the paths under them).
//
// It is the listing a large repository can afford: git reads only tree
// objects (no sizes, so no blob is opened: Size is -1 for every entry),
// and a path keep rejects costs a byte test, not an allocation. On a
// 200,000-file tree the full listing with sizes (ListTree) costs about
// 0.2 s of git and 0.1 s of parsing; this one 0.05 s and 0.02 s.
// Symlinks and submodules are listed whatever their names because either
// can stand for agent configuration under another path (`pkg -> vendor/x`
// shows vendor/x/.claude as pkg/.claude): a listing restricted by name
// could not be sound.
func (r *Repo) ListTreeLinks(ctx context.Context, rev string, keep func(path string) bool) ([]TreeEntry, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("listing the tree in %s: %w", r.root, err)
	}
	out, err := r.run(ctx, "ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return nil, fmt.Errorf("listing the tree of %s in %s: %w", rev, r.root, err)
	}
	return parseTreeLinks(string(out), keep)
}

// parseTreeLinks parses `git ls-tree -r -z` output (records of "MODE SP
// TYPE SP OID TAB PATH NUL") into the entries ListTreeLinks keeps. The
// output is one string, so the kept entries' fields are substrings of it.
func parseTreeLinks(out string, keep func(string) bool) ([]TreeEntry, error) {
	var entries []TreeEntry
	for len(out) > 0 {
		rec := out
		if i := strings.IndexByte(out, 0); i >= 0 {
			rec, out = out[:i], out[i+1:]
		} else {
			out = ""
		}
		tab := strings.IndexByte(rec, '\t')
		if tab < 0 || len(rec) < 7 || rec[6] != ' ' {
			return nil, fmt.Errorf("unexpected git ls-tree output %q", rec)
		}
		mode, name := rec[:6], rec[tab+1:]
		var kind EntryKind
		switch mode {
		case modeSymlink:
			kind = EntrySymlink
		case modeGitlink:
			kind = EntrySubmodule
		case modeFile, modeExec:
			if keep != nil && !keep(name) {
				continue
			}
			kind = EntryFile
		default:
			continue // trees are not listed with -r; anything else is not a file
		}
		f := strings.Fields(rec[:tab])
		if len(f) != 3 {
			return nil, fmt.Errorf("unexpected git ls-tree output %q", rec)
		}
		entries = append(entries, TreeEntry{Path: name, Kind: kind, Oid: f[2], Size: -1})
	}
	return entries, nil
}

// ListTreeUnder lists every file, symlink and submodule of commit rev
// under the folder dir (not entering submodules), sizes included: the
// files a folder symlink to dir shows under its own name.
func (r *Repo) ListTreeUnder(ctx context.Context, rev, dir string) ([]TreeEntry, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("listing the tree in %s: %w", r.root, err)
	}
	if err := checkPath(dir); err != nil {
		return nil, fmt.Errorf("listing %q at %s in %s: %w", dir, rev, r.root, err)
	}
	out, err := r.run(ctx, "ls-tree", "-r", "-l", "-z", "--full-tree", rev, "--", dir+"/")
	if err != nil {
		return nil, fmt.Errorf("listing %s at %s in %s: %w", dir, rev, r.root, err)
	}
	return parseTree(out, rev, r.root, func(p string) bool { return strings.HasPrefix(p, dir+"/") })
}
