package gitrepo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// EntryKind says what a tree entry is.
type EntryKind string

// The kinds of entry ListTree reports (directories are implied by the
// paths under them and not listed).
const (
	EntryFile      EntryKind = "file"      // a regular or executable file
	EntrySymlink   EntryKind = "symlink"   // a symbolic link; Target holds its text
	EntrySubmodule EntryKind = "submodule" // a gitlink; Oid is the commit it pins
)

// TreeEntry is one entry of a commit's tree.
type TreeEntry struct {
	Path string // repository-relative, slash-separated, as git spells it
	Kind EntryKind
	Oid  string // the blob (file, symlink) or commit (submodule)
	Size int64  // the blob's size; -1 for a submodule
}

// ListTree lists the files, symlinks and submodules of commit rev whose
// paths match returns true for (nil lists everything), in one git ls-tree
// (a large repository's tree lists in well under a second). A symlink's
// target is not read here (ReadAt returns it, as a *SymlinkError).
// Submodules are not entered.
func (r *Repo) ListTree(ctx context.Context, rev string, match func(path string) bool) ([]TreeEntry, error) {
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("listing the tree in %s: %w", r.root, err)
	}
	out, err := r.run(ctx, "ls-tree", "-r", "-l", "-z", "--full-tree", rev)
	if err != nil {
		return nil, fmt.Errorf("listing the tree of %s in %s: %w", rev, r.root, err)
	}
	return parseTree(out, rev, r.root, match)
}

// parseTree parses `git ls-tree -r -l -z` output, keeping the entries
// match accepts (nil keeps all).
func parseTree(out []byte, rev, root string, match func(string) bool) ([]TreeEntry, error) {
	var entries []TreeEntry
	for _, rec := range splitNUL(out) {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok {
			return nil, fmt.Errorf("listing the tree of %s in %s: unexpected git ls-tree output %q", rev, root, rec)
		}
		if match != nil && !match(name) {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 {
			return nil, fmt.Errorf("listing the tree of %s in %s: unexpected git ls-tree output %q", rev, root, meta)
		}
		e := TreeEntry{Path: name, Oid: f[2], Size: -1}
		switch f[0] {
		case modeFile, modeExec:
			e.Kind = EntryFile
		case modeSymlink:
			e.Kind = EntrySymlink
		case modeGitlink:
			e.Kind = EntrySubmodule
		default:
			continue // trees are not listed with -r; anything else is not a file
		}
		if f[3] != "-" {
			n, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("listing the tree of %s in %s: bad size in git ls-tree output %q", rev, root, meta)
			}
			e.Size = n
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// IndexSubmodule reports whether the index holds a submodule (gitlink) at
// p, and the commit it pins. A submodule that is not checked out has no
// folder in the work tree; the index still says what the change pins.
func (r *Repo) IndexSubmodule(ctx context.Context, p string) (commit string, ok bool, err error) {
	if err := checkPath(p); err != nil {
		return "", false, fmt.Errorf("looking up %q in the index of %s: %w", p, r.root, err)
	}
	out, err := r.run(ctx, "ls-files", "--stage", "-z", "--", ":(literal)"+p)
	if err != nil {
		return "", false, fmt.Errorf("looking up %s in the index of %s: %w", p, r.root, err)
	}
	for _, rec := range splitNUL(out) {
		meta, name, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if name == p && len(f) == 3 && f[0] == modeGitlink {
			return f[1], true, nil
		}
	}
	return "", false, nil
}
