package gitrepo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Head returns the commit HEAD names, or ok=false on an unborn branch (a
// repository before its first commit).
func (r *Repo) Head(ctx context.Context) (sha string, ok bool, err error) {
	sha, err = r.resolveCommit(ctx, "HEAD")
	if err != nil {
		return "", false, fmt.Errorf("reading HEAD: %w", err)
	}
	return sha, sha != "", nil
}

// ChangedStaged lists the paths whose staged version (the index: what the
// next commit records) differs from base, a commit, or from nothing when
// base is "" (the first commit). It is Changed for `git commit`: unstaged
// edits and untracked files are not part of it. pathspecs and match work
// as in Changed; renames are detected (-M) the same way.
func (r *Repo) ChangedStaged(ctx context.Context, base string, pathspecs []string, match func(path string) bool) ([]Change, error) {
	if match == nil {
		match = func(string) bool { return true }
	}
	args := []string{"diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv"}
	if base != "" {
		if err := checkRev(base); err != nil {
			return nil, fmt.Errorf("listing staged changes in %s: %w", r.root, err)
		}
		args = append(args, base)
	}
	out, err := r.run(ctx, append(append(args, "--"), pathspecs...)...)
	if err != nil {
		return nil, fmt.Errorf("listing staged changes in %s: %w", r.root, err)
	}
	changes, err := parseNameStatus(out)
	if err != nil {
		return nil, fmt.Errorf("listing staged changes in %s: %w", r.root, err)
	}
	var kept []Change
	for _, c := range changes {
		switch {
		case c.Status == StatusRenamed && match(c.OldPath) && match(c.Path):
			kept = append(kept, c)
		case c.Status == StatusRenamed && match(c.OldPath):
			kept = append(kept, Change{Path: c.OldPath, Status: StatusDeleted})
		case c.Status == StatusRenamed && match(c.Path):
			kept = append(kept, Change{Path: c.Path, Status: StatusAdded})
		case c.Status != StatusRenamed && match(c.Path):
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// indexRev is the Rev of errors about a staged file.
const indexRev = "the index (staged)"

// ReadIndex returns the staged content of p (stage 0 of the index), with
// the rules of ReadAt: missing is exists=false; over max is not read
// (*TooLargeError); a symlink or a submodule at p, or at a directory on the
// way to it, is never followed (*SymlinkError, *NotRegularFileError); a
// path with unresolved merge conflicts is an error naming it.
func (r *Repo) ReadIndex(ctx context.Context, p string, max int64) (data []byte, exists bool, err error) {
	if err := checkPath(p); err != nil {
		return nil, false, fmt.Errorf("reading %q from the index of %s: %w", p, r.root, err)
	}
	e, found, err := r.lsIndex(ctx, p)
	if err != nil {
		return nil, false, err
	}
	if !found {
		parts := strings.Split(p, "/")
		for i := 1; i < len(parts); i++ {
			dir := strings.Join(parts[:i], "/")
			pe, ok, err := r.lsIndex(ctx, dir)
			if err != nil {
				return nil, false, err
			}
			switch {
			case !ok:
				continue
			case pe.mode == modeSymlink:
				target, err := r.catBlob(ctx, indexRev, dir, pe.oid, maxLinkTarget)
				if err != nil {
					return nil, true, err
				}
				return nil, true, r.symlinkErr(indexRev, p, dir, string(target))
			case pe.mode == modeGitlink:
				return nil, true, &NotRegularFileError{Root: r.root, Rev: indexRev, Path: p, Entry: dir, Kind: "submodule"}
			}
		}
		return nil, false, nil
	}
	switch e.mode {
	case modeFile, modeExec:
	case modeSymlink:
		target, err := r.catBlob(ctx, indexRev, p, e.oid, maxLinkTarget)
		if err != nil {
			return nil, true, err
		}
		return nil, true, r.symlinkErr(indexRev, p, p, string(target))
	case modeGitlink:
		return nil, true, &NotRegularFileError{Root: r.root, Rev: indexRev, Path: p, Entry: p, Kind: "submodule"}
	default:
		return nil, true, &NotRegularFileError{Root: r.root, Rev: indexRev, Path: p, Entry: p, Kind: "special file"}
	}
	sizeOut, err := r.run(ctx, "cat-file", "-s", e.oid)
	if err != nil {
		return nil, true, fmt.Errorf("sizing %s in the index of %s: %w", p, r.root, err)
	}
	size, err := strconv.ParseInt(strings.TrimSpace(string(sizeOut)), 10, 64)
	if err != nil {
		return nil, true, fmt.Errorf("sizing %s in the index of %s: unexpected git cat-file output %q", p, r.root, sizeOut)
	}
	if size > max {
		return nil, true, &TooLargeError{Root: r.root, Rev: indexRev, Path: p, Size: size, Max: max}
	}
	data, err = r.catBlob(ctx, indexRev, p, e.oid, max)
	if err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// lsIndex looks up exactly one path in the index.
func (r *Repo) lsIndex(ctx context.Context, p string) (treeEntry, bool, error) {
	out, err := r.run(ctx, "ls-files", "-s", "-z", "--", ":(literal)"+p)
	if err != nil {
		return treeEntry{}, false, fmt.Errorf("looking up %s in the index of %s: %w", p, r.root, err)
	}
	var found *treeEntry
	for _, rec := range splitNUL(out) {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok || name != p {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 {
			return treeEntry{}, false, fmt.Errorf("looking up %s in the index of %s: unexpected git ls-files output %q", p, r.root, meta)
		}
		if f[2] != "0" {
			return treeEntry{}, true, fmt.Errorf("%s has unresolved merge conflicts in the index of %s: resolve them and stage the result", p, r.root)
		}
		found = &treeEntry{mode: f[0], oid: f[1], size: -1}
	}
	if found == nil {
		return treeEntry{}, false, nil
	}
	return *found, true, nil
}
