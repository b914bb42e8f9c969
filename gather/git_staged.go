package gather

import (
	"context"

	"github.com/shipgate-app/shipgate/gather/gitrepo"
	"github.com/shipgate-app/shipgate/report"
)

// GitStaged is a local repository's next commit: the base is HEAD (nothing
// before the first commit), the head is the index — what `git commit`
// would record. Unstaged edits and untracked files are not part of it.
// `shipgate diff --staged` (the pre-commit hook) reads through it.
type GitStaged struct {
	repo *gitrepo.Repo
	base *commitTree // nil on an unborn branch
}

// NewGitStaged reads repo from commit base ("" before the first commit) to
// its index.
func NewGitStaged(repo *gitrepo.Repo, base string) *GitStaged {
	g := &GitStaged{repo: repo}
	if base != "" {
		g.base = newCommitTree(repo, base)
	}
	return g
}

// Base reads HEAD, or nothing before the first commit.
func (g *GitStaged) Base() Revision {
	if g.base == nil {
		return noRevision{}
	}
	return g.base
}

// Head reads the index.
func (g *GitStaged) Head() Revision { return gitIndex{g.repo} }

// ListBase lists HEAD's tree sparsely, as Git.ListBase (nothing before
// the first commit).
func (g *GitStaged) ListBase(ctx context.Context) ([]Entry, bool, error) {
	if g.base == nil {
		return nil, true, nil
	}
	return g.base.list(ctx)
}

// ListBaseUnder lists every entry of HEAD under the folder dir.
func (g *GitStaged) ListBaseUnder(ctx context.Context, dir string) ([]Entry, error) {
	if g.base == nil {
		return nil, nil
	}
	return g.base.under(ctx, dir)
}

// Close ends the git processes HEAD's reads use.
func (g *GitStaged) Close() error {
	if g.base == nil {
		return nil
	}
	return g.base.obj.Close()
}

// Changed lists the paths whose staged version differs from HEAD.
func (g *GitStaged) Changed(ctx context.Context, sel Selector) ([]Change, bool, error) {
	specs, match, isLink := linkSelector(g.repo.Root(), sel)
	base := ""
	if g.base != nil {
		base = g.base.rev
	}
	cs, err := g.repo.ChangedStaged(ctx, base, specs, match)
	if err != nil {
		return nil, false, &ReadError{What: "the staged changes", Err: err}
	}
	out, err := changesOf(cs, nil, isLink)
	return out, false, err
}

// noRevision is the side before the first commit: nothing is there.
type noRevision struct{}

func (noRevision) Read(ctx context.Context, p string) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	return Entry{Path: p, Kind: Missing}, nil
}

// gitIndex reads the staged version of a path (stage 0 of the index).
type gitIndex struct{ repo *gitrepo.Repo }

func (x gitIndex) Read(ctx context.Context, p string) (Entry, error) {
	data, exists, err := x.repo.ReadIndex(ctx, p, report.MaxFileSize)
	e, rerr := gitEntry(p, data, exists, err)
	if rerr != nil || e.Kind != Submodule || e.Path != p {
		return e, rerr
	}
	commit, ok, err := x.repo.IndexSubmodule(ctx, p)
	if err != nil {
		return Entry{}, &ReadError{What: p, Err: err}
	}
	if ok {
		e.Commit = commit
	}
	return e, nil
}
