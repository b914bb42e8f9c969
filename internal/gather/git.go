package gather

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/shipgate-app/shipgate/diff"
	"github.com/shipgate-app/shipgate/internal/gitrepo"
)

// Git is a local repository: the base is a commit (shipgate diff: the
// merge base), the head is the working tree (committed, staged, unstaged
// and untracked-but-not-ignored changes alike).
type Git struct {
	repo *gitrepo.Repo
	base string
}

// NewGit reads repo from commit base to its working tree.
func NewGit(repo *gitrepo.Repo, base string) *Git { return &Git{repo: repo, base: base} }

// Base reads the base commit.
func (g *Git) Base() Revision { return gitCommit{g.repo, g.base} }

// Head reads the working tree.
func (g *Git) Head() Revision { return gitWork{g.repo} }

// ListBase lists the base commit's tree (always complete).
func (g *Git) ListBase(ctx context.Context) ([]Entry, bool, error) {
	tes, err := g.repo.ListTree(ctx, g.base, nil)
	if err != nil {
		return nil, false, &ReadError{What: "the base's file tree", Err: err}
	}
	out := make([]Entry, 0, len(tes))
	for _, te := range tes {
		e := Entry{Path: te.Path, Size: te.Size, ID: te.Oid}
		switch te.Kind {
		case gitrepo.EntryFile:
			e.Kind = File
			e.TooLarge = te.Size > diff.MaxFileSize
		case gitrepo.EntrySymlink:
			e.Kind = Symlink
		case gitrepo.EntrySubmodule:
			e.Kind, e.Commit = Submodule, te.Oid
		}
		out = append(out, e)
	}
	return out, true, nil
}

// Changed lists the paths that differ between the base commit and the
// working tree, as git diff and git ls-files --others see them, within
// the selector's pathspecs (so a large repository is not walked whole).
func (g *Git) Changed(ctx context.Context, sel Selector) ([]Change, bool, error) {
	specs, match, isLink := linkSelector(g.repo.Root(), sel)
	cs, err := g.repo.Changed(ctx, g.base, specs, match)
	if err != nil {
		return nil, false, &ReadError{What: "the changed files", Err: err}
	}
	var out []Change
	defer func() { markLinks(out, isLink) }()
	for _, c := range gitrepo.SplitRenames(cs) {
		st := Modified
		switch c.Status {
		case gitrepo.StatusAdded:
			st = Added
		case gitrepo.StatusDeleted:
			st = Deleted
			// A submodule that is not checked out has no folder, so git
			// diff calls it deleted; the index still pins it.
			if _, ok, err := g.repo.IndexSubmodule(ctx, c.Path); err != nil {
				return nil, false, &ReadError{What: "the index", Err: err}
			} else if ok {
				st = Modified
			}
		}
		out = append(out, Change{Path: c.Path, Status: st})
	}
	return out, false, nil
}

type gitCommit struct {
	repo *gitrepo.Repo
	rev  string
}

func (c gitCommit) Read(ctx context.Context, p string) (Entry, error) {
	data, exists, err := c.repo.ReadAt(ctx, c.rev, p, diff.MaxFileSize)
	return gitEntry(p, data, exists, err)
}

type gitWork struct{ repo *gitrepo.Repo }

func (w gitWork) Read(ctx context.Context, p string) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	data, exists, err := w.repo.ReadWorking(p, diff.MaxFileSize)
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
