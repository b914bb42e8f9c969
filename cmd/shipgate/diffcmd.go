package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/diff"
	"github.com/shipgate-app/shipgate/internal/gitrepo"
	"github.com/shipgate-app/shipgate/policy"
)

// policyPath is where a repository keeps its Shipgate policy.
const policyPath = ".github/shipgate.yml"

func runDiff(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", "[--repo DIR] [--base REF] [--policy FILE] [--format text|json|markdown|sarif] [--fail-on review|block]", stderr)
	dir := fs.String("repo", ".", "a directory inside the git work tree to review")
	baseRef := fs.String("base", "", "compare against the merge base with this ref (default: origin/HEAD, origin/main, origin/master, main or master)")
	rf := addReportFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "diff", "unexpected argument %q", pos[0])
	}
	if err := rf.validate(); err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	ctx := context.Background()
	repo, err := gitrepo.Open(ctx, *dir)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	ref := *baseRef
	if ref == "" {
		if ref, err = repo.DefaultBase(ctx); err != nil {
			return usageError(stderr, "diff", "%v", err)
		}
	}
	mb, err := repo.MergeBase(ctx, ref)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	pol, err := diffPolicy(ctx, repo, mb, *rf.policyPath)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	in, err := gitInput(ctx, repo, mb, pol)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	r := diff.Compare(in)
	o := diff.RenderOptions{
		Subject:   fmt.Sprintf("Agent permission review  %s (%s) -> working tree", strings.TrimPrefix(strings.TrimPrefix(ref, "refs/remotes/"), "refs/heads/"), mb[:8]),
		Version:   version,
		Reproduce: "shipgate diff --base " + mb,
	}
	return render(stdout, stderr, "diff", r, rf, o)
}

// diffPolicy reads the policy: a file given on the command line, else the
// repository's policy at the merge base (as the App reads it from the base
// branch: a change cannot loosen its own gate).
func diffPolicy(ctx context.Context, repo *gitrepo.Repo, mb, file string) (*policy.Policy, error) {
	if file != "" {
		p, err := loadPolicy(file)
		if err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
		return p, nil
	}
	data, ok, err := repo.ReadAt(ctx, mb, policyPath, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", policyPath, mb[:8], err)
	}
	if !ok {
		return nil, nil
	}
	p, err := policy.Parse(policyPath, data, diff.PolicyOptions())
	if err != nil {
		return nil, fmt.Errorf("the repository's policy does not parse:\n%w", err)
	}
	return p, nil
}

// gitInput reads every agent-config file that changed between the merge
// base and the working tree — and nothing else, so a huge repository costs
// no more than a small one — plus the unchanged settings files of the
// same projects, whose rules take part in the effective view.
func gitInput(ctx context.Context, repo *gitrepo.Repo, mb string, pol *policy.Policy) (diff.Input, error) {
	isCfg := func(p string) bool {
		k, _ := diff.Classify(p, pol)
		return k != diff.NotAgentConfig
	}
	changes, err := repo.Changed(ctx, mb, diff.Pathspecs(pol), isCfg)
	if err != nil {
		return diff.Input{}, err
	}
	changes = gitrepo.SplitRenames(changes)
	in := diff.Input{Policy: pol}
	seen := map[string]bool{}
	scopes := map[string]bool{}
	for _, c := range changes {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		f := diff.File{Path: c.Path}
		if c.Status != gitrepo.StatusAdded {
			f.Base = readVersionGit(repo.ReadAt(ctx, mb, c.Path, diff.MaxFileSize))
		}
		if c.Status != gitrepo.StatusDeleted {
			f.Head = readVersionGit(repo.ReadWorking(c.Path, diff.MaxFileSize))
		}
		if f.Base.Unreadable != "" && isCtxErr(f.Base.Unreadable) {
			return diff.Input{}, errors.New(f.Base.Unreadable)
		}
		in.Files = append(in.Files, f)
		if k, scope := diff.Classify(c.Path, pol); k == diff.SettingsFile {
			scopes[scope] = true
		}
	}
	// Unchanged siblings: a settings.local.json deny rule shadows a
	// settings.json allow rule added next to it.
	var extra []string
	for scope := range scopes {
		for _, name := range []string{".claude/settings.json", ".claude/settings.local.json"} {
			p := path.Join(scope, name)
			if !seen[p] && !strings.HasPrefix(scope, "watched:") {
				extra = append(extra, p)
			}
		}
	}
	sort.Strings(extra)
	for _, p := range extra {
		v := readVersionGit(repo.ReadWorking(p, diff.MaxFileSize))
		if v.Exists {
			in.Files = append(in.Files, diff.File{Path: p, Base: v, Head: v})
		}
	}
	return in, nil
}

func isCtxErr(s string) bool {
	return strings.Contains(s, context.Canceled.Error()) || strings.Contains(s, context.DeadlineExceeded.Error())
}

// readVersionGit turns a git read into one side of a file; what cannot be read
// is reported, never skipped.
func readVersionGit(data []byte, exists bool, err error) diff.Version {
	if err == nil {
		return diff.Version{Exists: exists, Data: data}
	}
	var tl *gitrepo.TooLargeError
	var sl *gitrepo.SymlinkError
	var nr *gitrepo.NotRegularFileError
	switch {
	case errors.As(err, &tl):
		return diff.Version{Exists: true, TooLarge: true, Unreadable: tl.Error()}
	case errors.As(err, &sl):
		return diff.Version{Exists: true, Unreadable: sl.Error() + "; Shipgate does not follow symlinks, so the file cannot be compared"}
	case errors.As(err, &nr):
		return diff.Version{Exists: true, Unreadable: nr.Error()}
	}
	return diff.Version{Exists: true, Unreadable: err.Error()}
}
