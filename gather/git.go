package gather

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/gather/gitrepo"
	"github.com/shipgate-app/shipgate/report"
)

// Git is a local repository: the base is a commit (shipgate diff: the
// merge base), the head is the working tree (committed, staged, unstaged
// and untracked-but-not-ignored changes alike). Close ends the git
// processes its reads keep running.
type Git struct {
	repo *gitrepo.Repo
	base *commitTree
}

// NewGit reads repo from commit base to its working tree.
func NewGit(repo *gitrepo.Repo, base string) *Git {
	return &Git{repo: repo, base: newCommitTree(repo, base)}
}

// Base reads the base commit.
func (g *Git) Base() Revision { return g.base }

// Head reads the working tree.
func (g *Git) Head() Revision { return gitWork{g.repo} }

// ListBase lists the base commit's symlinks and submodules, wherever they
// are, and its files that may be agent configuration
// (agentfiles.MayBeAgentPath): a sparse listing (the gatherer reads any other
// path it needs, and lists a folder whole with ListBaseUnder), so a large
// repository's tree is never held in memory.
func (g *Git) ListBase(ctx context.Context) ([]Entry, bool, error) { return g.base.list(ctx) }

// ListBaseUnder lists every entry of the base under the folder dir.
func (g *Git) ListBaseUnder(ctx context.Context, dir string) ([]Entry, error) {
	return g.base.under(ctx, dir)
}

// Close ends the git processes the base's reads use.
func (g *Git) Close() error { return g.base.obj.Close() }

// commitTree reads one commit: after list, from what the sparse listing
// says and through one pair of git cat-file processes (gitrepo.Objects);
// before it, one path at a time (gitrepo.ReadAt).
type commitTree struct {
	repo   *gitrepo.Repo
	rev    string
	obj    *gitrepo.Objects
	listed map[string]gitrepo.TreeEntry // nil until list: every symlink and submodule, the files MayBeAgentPath accepts
	dirs   map[string]bool              // the folders above a listed entry
}

func newCommitTree(repo *gitrepo.Repo, rev string) *commitTree {
	return &commitTree{repo: repo, rev: rev, obj: repo.Objects()}
}

func (t *commitTree) list(ctx context.Context) ([]Entry, bool, error) {
	tes, err := t.repo.ListTreeLinks(ctx, t.rev, agentfiles.MayBeAgentPath)
	if err != nil {
		return nil, false, &ReadError{What: "the base's file tree", Err: err}
	}
	t.listed = make(map[string]gitrepo.TreeEntry, len(tes))
	t.dirs = map[string]bool{}
	out := make([]Entry, 0, len(tes))
	for _, te := range tes {
		t.listed[te.Path] = te
		for d := path.Dir(te.Path); d != "." && !t.dirs[d]; d = path.Dir(d) {
			t.dirs[d] = true
		}
		out = append(out, treeEntry(te))
	}
	return out, true, nil
}

func (t *commitTree) under(ctx context.Context, dir string) ([]Entry, error) {
	tes, err := t.repo.ListTreeUnder(ctx, t.rev, dir)
	if err != nil {
		return nil, &ReadError{What: "the base's files under " + dir, Err: err}
	}
	out := make([]Entry, 0, len(tes))
	for _, te := range tes {
		out = append(out, treeEntry(te))
	}
	return out, nil
}

// treeEntry is a listing's entry (no content).
func treeEntry(te gitrepo.TreeEntry) Entry {
	e := Entry{Path: te.Path, Size: te.Size, ID: te.Oid}
	switch te.Kind {
	case gitrepo.EntryFile:
		e.Kind = File
		e.TooLarge = te.Size > report.MaxFileSize
	case gitrepo.EntrySymlink:
		e.Kind = Symlink
	case gitrepo.EntrySubmodule:
		e.Kind, e.Commit = Submodule, te.Oid
	}
	return e
}

// Read says what p is at the commit. After list, every symlink and
// submodule of the commit is known, so a path the listing does not name
// is a folder above a listed entry, lies under a listed symlink or
// submodule (that entry is returned), or is whatever git cat-file says
// REV:PATH is — a blob there is a regular file, since it is no symlink.
func (t *commitTree) Read(ctx context.Context, p string) (Entry, error) {
	if t.listed == nil || strings.ContainsAny(p, "\n\r") {
		data, exists, err := t.repo.ReadAt(ctx, t.rev, p, report.MaxFileSize)
		return gitEntry(p, data, exists, err)
	}
	if te, ok := t.listed[p]; ok {
		return t.read(ctx, te)
	}
	if t.dirs[p] {
		return Entry{Path: p, Kind: Dir}, nil
	}
	for q := path.Dir(p); q != "."; q = path.Dir(q) {
		if te, ok := t.listed[q]; ok {
			if te.Kind == gitrepo.EntryFile {
				return Entry{Path: p, Kind: Missing}, nil // a file where a folder would be
			}
			return t.read(ctx, te)
		}
	}
	info, found, err := t.obj.Info(ctx, t.rev+":"+p)
	if err != nil {
		return Entry{}, &ReadError{What: p + " at " + t.rev, Err: err}
	}
	if !found {
		return Entry{Path: p, Kind: Missing}, nil
	}
	switch info.Type {
	case "blob":
		return t.read(ctx, gitrepo.TreeEntry{Path: p, Kind: gitrepo.EntryFile, Oid: info.Oid, Size: info.Size})
	case "tree":
		return Entry{Path: p, Kind: Dir}, nil
	case "commit":
		return Entry{Path: p, Kind: Submodule, Commit: info.Oid}, nil
	}
	return Entry{Path: p, Kind: Other}, nil
}

// maxLinkText bounds the text of a symlink read from a commit.
const maxLinkText = 64 << 10

// read reads a listed entry: a file's content (within report.MaxFileSize),
// a symlink's text.
func (t *commitTree) read(ctx context.Context, te gitrepo.TreeEntry) (Entry, error) {
	e := treeEntry(te)
	if te.Kind == gitrepo.EntrySubmodule {
		return e, nil
	}
	size := te.Size
	if size < 0 {
		info, found, err := t.obj.Info(ctx, te.Oid)
		if err != nil || !found {
			if err == nil {
				err = fmt.Errorf("object %s is missing", te.Oid)
			}
			return Entry{}, &ReadError{What: te.Path + " at " + t.rev, Err: err}
		}
		size = info.Size
	}
	e.Size = size
	max := int64(report.MaxFileSize)
	if te.Kind == gitrepo.EntrySymlink {
		max = maxLinkText
	}
	if size > max {
		if te.Kind == gitrepo.EntrySymlink {
			return Entry{}, &ReadError{What: te.Path + " at " + t.rev, Err: fmt.Errorf("a symlink whose text is %d bytes", size)}
		}
		e.TooLarge = true
		return e, nil
	}
	data, err := t.obj.Blob(ctx, te.Oid, max)
	if err != nil {
		return Entry{}, &ReadError{What: te.Path + " at " + t.rev, Err: err}
	}
	if te.Kind == gitrepo.EntrySymlink {
		e.Target = string(data)
		return e, nil
	}
	if data == nil {
		data = []byte{}
	}
	e.Data = data
	return e, nil
}

// Changed lists the paths that differ between the base commit and the
// working tree, as git diff and git ls-files --others see them, within
// the selector's pathspecs (so a large repository is not walked whole).
func (g *Git) Changed(ctx context.Context, sel Selector) ([]Change, bool, error) {
	specs, match, isLink := linkSelector(g.repo.Root(), sel)
	cs, err := g.repo.ChangedSplit(ctx, g.base.rev, specs, match)
	if err != nil {
		return nil, false, &ReadError{What: "the changed files", Err: err}
	}
	// A submodule that is not checked out has no folder, so git diff calls
	// it deleted; the index still pins it.
	pinned := func(p string) (bool, error) {
		_, ok, err := g.repo.IndexSubmodule(ctx, p)
		if err != nil {
			return false, &ReadError{What: "the index", Err: err}
		}
		return ok, nil
	}
	out, err := changesOf(cs, pinned, isLink)
	return out, false, err
}

// changesOf turns git's changed paths into the gatherer's changes: renames
// split into a deletion and an addition, a deleted path that pinned (when
// not nil) says is still there a modification, and symlinks marked by
// isLink (markLinks).
func changesOf(cs []gitrepo.Change, pinned func(path string) (bool, error), isLink func(string) (string, bool)) ([]Change, error) {
	var out []Change
	for _, c := range gitrepo.SplitRenames(cs) {
		st := Modified
		switch c.Status {
		case gitrepo.StatusAdded:
			st = Added
		case gitrepo.StatusDeleted:
			st = Deleted
			if pinned != nil {
				ok, err := pinned(c.Path)
				if err != nil {
					return nil, err
				}
				if ok {
					st = Modified
				}
			}
		}
		out = append(out, Change{Path: c.Path, Status: st})
	}
	markLinks(out, isLink)
	return out, nil
}

type gitWork struct{ repo *gitrepo.Repo }

func (w gitWork) Read(ctx context.Context, p string) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	data, exists, err := w.repo.ReadWorking(p, report.MaxFileSize)
	e, rerr := gitEntry(p, data, exists, err)
	if rerr != nil || e.Path != p || (e.Kind != Missing && e.Kind != Submodule) {
		return e, rerr
	}
	// A submodule need not be checked out: the index says what it pins.
	commit, ok, err := w.repo.IndexSubmodule(ctx, p)
	if err != nil {
		return Entry{}, &ReadError{What: p, Err: err}
	}
	if ok {
		return Entry{Path: p, Kind: Submodule, Commit: commit}, nil
	}
	return e, nil
}

// gitEntry turns a gitrepo read into an Entry: the typed errors say what
// the path is (a symlink, a submodule, a directory, too large); any other
// error is a read failure.
func gitEntry(p string, data []byte, exists bool, err error) (Entry, error) {
	if err == nil {
		if !exists {
			return Entry{Path: p, Kind: Missing}, nil
		}
		if data == nil {
			data = []byte{}
		}
		return Entry{Path: p, Kind: File, Data: data, Size: int64(len(data))}, nil
	}
	var tl *gitrepo.TooLargeError
	var sl *gitrepo.SymlinkError
	var nr *gitrepo.NotRegularFileError
	switch {
	case errors.As(err, &tl):
		return Entry{Path: p, Kind: File, TooLarge: true, Size: tl.Size}, nil
	case errors.As(err, &sl):
		return Entry{Path: sl.Link, Kind: Symlink, Target: sl.Target}, nil
	case errors.As(err, &nr):
		k := Other
		switch nr.Kind {
		case "submodule":
			k = Submodule
		case "directory":
			k = Dir
		}
		return Entry{Path: nr.Entry, Kind: k}, nil
	}
	return Entry{}, &ReadError{What: p, Err: err}
}

// linkSelector widens a selector that asks for links (Selector.Links) to
// every changed path that is a symlink in the work tree: the listing then
// takes no pathspecs (git cannot select by mode), and isLink gives a
// listed link's target. The index or the head may differ from the work
// tree; the gatherer reads the head to be sure.
func linkSelector(root string, sel Selector) (specs []string, match func(string) bool, isLink func(string) (string, bool)) {
	if !sel.Links {
		return sel.Pathspecs, sel.Match, func(string) (string, bool) { return "", false }
	}
	isLink = func(p string) (string, bool) {
		name := filepath.Join(root, filepath.FromSlash(p))
		fi, err := os.Lstat(name)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return "", false
		}
		t, err := os.Readlink(name)
		return filepath.ToSlash(t), err == nil
	}
	return nil, func(p string) bool {
		if sel.Match == nil || sel.Match(p) {
			return true
		}
		_, ok := isLink(p)
		return ok
	}, isLink
}

// markLinks sets Link and Target on the changes that are symlinks.
func markLinks(cs []Change, isLink func(string) (string, bool)) {
	for i := range cs {
		if cs[i].Status == Deleted {
			continue
		}
		if t, ok := isLink(cs[i].Path); ok {
			cs[i].Link, cs[i].Target = true, t
		}
	}
}
