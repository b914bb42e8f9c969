package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// TooLargeError reports a file over the caller's size limit. Its content
// was not read.
type TooLargeError struct {
	Root string // repository root
	Rev  string // commit the file was read at; "" for the working tree
	Path string
	Size int64
	Max  int64
}

// Error says which file, where, and by how much it is over.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s %s is %d bytes, over the %d-byte limit; not read", e.Path, loc(e.Rev, e.Root), e.Size, e.Max)
}

// SymlinkError reports that a path is, or lies under, a symbolic link.
// Shipgate does not follow links in agent configuration (see the rules
// above); the fields say which link and where it points.
type SymlinkError struct {
	Root   string
	Rev    string // "" for the working tree
	Path   string // the path asked for
	Link   string // the symlink met: Path itself or one of its parent directories
	Target string // the link's text, as stored
	// Escapes is true when the target, resolved lexically from the link's
	// directory, is absolute or leaves the repository.
	Escapes bool
}

// Error says which link was met, where it points, and that it was not followed.
func (e *SymlinkError) Error() string {
	where := "inside the repository"
	if e.Escapes {
		where = "outside the repository"
	}
	if e.Link != e.Path {
		return fmt.Sprintf("%s %s lies under %s, a symlink to %q (%s); symlinked agent configuration is not followed", e.Path, loc(e.Rev, e.Root), e.Link, e.Target, where)
	}
	return fmt.Sprintf("%s %s is a symlink to %q (%s); symlinked agent configuration is not followed", e.Path, loc(e.Rev, e.Root), e.Target, where)
}

// NotRegularFileError reports that a path (or a directory on the way to
// it) is a submodule, a directory or a special file rather than a regular
// file.
type NotRegularFileError struct {
	Root  string
	Rev   string // "" for the working tree
	Path  string // the path asked for
	Entry string // the offending entry: Path itself or one of its parents
	Kind  string // "submodule", "directory" or "special file"
}

// Error says what was found instead of a regular file.
func (e *NotRegularFileError) Error() string {
	if e.Entry != e.Path {
		return fmt.Sprintf("%s lies inside %s, which is a %s %s; its files are not part of this repository", e.Path, e.Entry, e.Kind, loc(e.Rev, e.Root))
	}
	return fmt.Sprintf("%s %s is a %s, not a regular file", e.Path, loc(e.Rev, e.Root), e.Kind)
}

// loc says where a file was read: at a commit or in the working tree.
func loc(rev, root string) string {
	if rev == "" {
		return "in the working tree of " + root
	}
	return "at " + rev + " in " + root
}

// git tree entry modes.
const (
	modeTree    = "040000"
	modeSymlink = "120000"
	modeGitlink = "160000"
	modeFile    = "100644"
	modeExec    = "100755"
)

// maxLinkTarget bounds the text of a symlink read from a commit.
const maxLinkTarget = 64 << 10

// treeEntry is one line of `git ls-tree -l`.
type treeEntry struct {
	mode, typ, oid string
	size           int64 // -1 for trees and submodules
}

// ReadAt returns the content of path in commit rev (a sha or any
// revision), reading at most max bytes: the size is checked with git
// ls-tree -l before git cat-file reads the blob, so an oversized file costs
// nothing. ReadAt and ReadWorking apply the same rules, so that the base
// and the head of a file are judged alike:
//
//   - a missing path is exists=false with a nil error;
//   - a file larger than max is not read: *TooLargeError, with its size;
//   - a symlink — the path itself or any directory on the way to it — is
//     never followed, whether it stays inside the repository or not:
//     *SymlinkError, with the link text and whether it escapes. Claude Code
//     would read through the link, so what it loads is not what the diff
//     shows; Shipgate fails closed on symlinked settings rather than guess;
//   - a submodule, a directory or a special file at the path (or a
//     submodule on the way to it) is *NotRegularFileError: a submodule's
//     files belong to another repository and are not compared.
//
// With a *TooLargeError, *SymlinkError or *NotRegularFileError, exists is
// true (something is there); data is nil whenever err is not.
func (r *Repo) ReadAt(ctx context.Context, rev, p string, max int64) (data []byte, exists bool, err error) {
	if err := checkRev(rev); err != nil {
		return nil, false, fmt.Errorf("reading %s in %s: %w", p, r.root, err)
	}
	if err := checkPath(p); err != nil {
		return nil, false, fmt.Errorf("reading %q at %s in %s: %w", p, rev, r.root, err)
	}
	e, found, err := r.lsTree(ctx, rev, p)
	if err != nil {
		return nil, false, err
	}
	if !found {
		// Something hides the path (a symlink or submodule on the way):
		// report that it is there, with the error that says what it is.
		hidden, err := r.checkParentsAt(ctx, rev, p)
		return nil, hidden, err
	}
	switch e.mode {
	case modeFile, modeExec:
	case modeSymlink:
		target, err := r.catBlob(ctx, rev, p, e.oid, maxLinkTarget)
		if err != nil {
			return nil, true, err
		}
		return nil, true, r.symlinkErr(rev, p, p, string(target))
	case modeGitlink:
		return nil, true, &NotRegularFileError{Root: r.root, Rev: rev, Path: p, Entry: p, Kind: "submodule"}
	case modeTree:
		return nil, true, &NotRegularFileError{Root: r.root, Rev: rev, Path: p, Entry: p, Kind: "directory"}
	default:
		return nil, true, &NotRegularFileError{Root: r.root, Rev: rev, Path: p, Entry: p, Kind: "special file"}
	}
	if e.size > max {
		return nil, true, &TooLargeError{Root: r.root, Rev: rev, Path: p, Size: e.size, Max: max}
	}
	data, err = r.catBlob(ctx, rev, p, e.oid, max)
	if err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// checkParentsAt explains a path missing from rev's tree: when one of its
// parent directories is a symlink or a submodule there, the path may well
// exist behind it, so saying "absent" would be wrong.
func (r *Repo) checkParentsAt(ctx context.Context, rev, p string) (hidden bool, err error) {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		e, found, err := r.lsTree(ctx, rev, dir)
		if err != nil {
			return false, err
		}
		switch {
		case !found:
			return false, nil
		case e.mode == modeTree:
			continue
		case e.mode == modeSymlink:
			target, err := r.catBlob(ctx, rev, dir, e.oid, maxLinkTarget)
			if err != nil {
				return false, err
			}
			return true, r.symlinkErr(rev, p, dir, string(target))
		case e.mode == modeGitlink:
			return true, &NotRegularFileError{Root: r.root, Rev: rev, Path: p, Entry: dir, Kind: "submodule"}
		default: // a file where a directory would be: p cannot exist
			return false, nil
		}
	}
	return false, nil
}

// lsTree looks up exactly one entry of rev's tree.
func (r *Repo) lsTree(ctx context.Context, rev, p string) (treeEntry, bool, error) {
	out, err := r.run(ctx, "ls-tree", "-l", "-z", "--full-tree", rev, "--", ":(literal)"+p)
	if err != nil {
		return treeEntry{}, false, fmt.Errorf("looking up %s at %s in %s: %w", p, rev, r.root, err)
	}
	for _, rec := range splitNUL(out) {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok || name != p {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 {
			return treeEntry{}, false, fmt.Errorf("looking up %s at %s in %s: unexpected git ls-tree output %q", p, rev, r.root, meta)
		}
		e := treeEntry{mode: f[0], typ: f[1], oid: f[2], size: -1}
		if f[3] != "-" {
			n, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return treeEntry{}, false, fmt.Errorf("looking up %s at %s in %s: bad size in git ls-tree output %q", p, rev, r.root, meta)
			}
			e.size = n
		}
		return e, true, nil
	}
	return treeEntry{}, false, nil
}

// catBlob reads a blob whose size is already known to be within max.
func (r *Repo) catBlob(ctx context.Context, rev, p, oid string, max int64) ([]byte, error) {
	out, err := r.run(ctx, "cat-file", "blob", oid)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s in %s: %w", p, rev, r.root, err)
	}
	if int64(len(out)) > max { // cannot happen unless the object changed under us
		return nil, &TooLargeError{Root: r.root, Rev: rev, Path: p, Size: int64(len(out)), Max: max}
	}
	return out, nil
}

// symlinkErr builds the error for link (p itself or a parent) pointing at target.
func (r *Repo) symlinkErr(rev, p, link, target string) error {
	escapes := path.IsAbs(target) || filepath.IsAbs(target)
	if !escapes {
		resolved := path.Clean(path.Join(path.Dir(link), target))
		escapes = resolved == ".." || strings.HasPrefix(resolved, "../")
	}
	return &SymlinkError{Root: r.root, Rev: rev, Path: p, Link: link, Target: target, Escapes: escapes}
}

// ReadWorking returns the content of path in the working tree, reading at
// most max bytes, under the same rules as ReadAt: no symlink on the way is
// followed (so nothing outside the repository can be read through one), a
// missing path is exists=false, a directory, submodule (a directory with a
// .git entry) or special file is an error. Ignored files are readable: the
// caller decides what to ask for.
func (r *Repo) ReadWorking(p string, max int64) (data []byte, exists bool, err error) {
	if err := checkPath(p); err != nil {
		return nil, false, fmt.Errorf("reading %q in the working tree of %s: %w", p, r.root, err)
	}
	parts := strings.Split(p, "/")
	cur := r.realRoot
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		sub := strings.Join(parts[:i+1], "/")
		fi, err := os.Lstat(cur)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("reading %s in the working tree of %s: %w", p, r.root, err)
		}
		last := i == len(parts)-1
		switch mode := fi.Mode(); {
		case mode&os.ModeSymlink != 0:
			target, err := os.Readlink(cur)
			if err != nil {
				return nil, true, fmt.Errorf("reading %s in the working tree of %s: %w", p, r.root, err)
			}
			return nil, true, r.symlinkErr("", p, sub, filepath.ToSlash(target))
		case mode.IsDir():
			if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
				return nil, true, &NotRegularFileError{Root: r.root, Path: p, Entry: sub, Kind: "submodule"}
			}
			if last {
				return nil, true, &NotRegularFileError{Root: r.root, Path: p, Entry: sub, Kind: "directory"}
			}
		case !last:
			return nil, false, nil // a file where a directory would be: p cannot exist
		case !mode.IsRegular():
			return nil, true, &NotRegularFileError{Root: r.root, Path: p, Entry: sub, Kind: "special file"}
		case fi.Size() > max:
			return nil, true, &TooLargeError{Root: r.root, Path: p, Size: fi.Size(), Max: max}
		default:
			data, err := readRegular(cur, fi, max)
			if err != nil {
				var tl *TooLargeError
				if errors.As(err, &tl) {
					tl.Root, tl.Path = r.root, p
					return nil, true, tl
				}
				return nil, true, fmt.Errorf("reading %s in the working tree of %s: %w", p, r.root, err)
			}
			return data, true, nil
		}
	}
	return nil, false, nil // unreachable: the last part always returns
}

// readRegular reads the file at name, which Lstat described as fi, making
// sure the file opened is that same file (not one swapped in since) and
// that no more than max bytes are read even if it grew.
func readRegular(name string, fi os.FileInfo, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(fi, ofi) || !ofi.Mode().IsRegular() {
		return nil, errors.New("the file changed while it was being opened")
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// checkPath accepts the repository-relative, slash-separated, clean paths
// git reports, and refuses anything that could point elsewhere.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.ContainsRune(p, 0):
		return errors.New("path contains a NUL byte")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return errors.New("path must be relative to the repository root")
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return errors.New("path must be clean and inside the repository (no ., .. or trailing /)")
	case strings.ContainsRune(p, '\\') && filepath.Separator == '\\':
		return errors.New("path must use forward slashes")
	}
	for _, part := range strings.Split(p, "/") {
		if strings.EqualFold(part, ".git") {
			return errors.New("path must not reach into a .git directory")
		}
	}
	return nil
}
