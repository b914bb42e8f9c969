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

// runDiffStaged is `shipgate diff --staged`, the pre-commit hook's check:
// it compares what the next commit would record (the index) with HEAD, so
// unstaged edits and untracked files play no part, as in the commit. The
// policy is HEAD's .github/shipgate.yml (a commit cannot loosen its own
// gate), unless --policy names one. On an unborn branch (the first commit)
// every staged agent-config file is new.
func runDiffStaged(ctx context.Context, dir string, rf reportFlags, stdout, stderr io.Writer) int {
	repo, err := gitrepo.Open(ctx, dir)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	head, born, err := repo.Head(ctx)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	var pol *policy.Policy
	switch {
	case *rf.policyPath != "":
		if pol, err = loadPolicy(*rf.policyPath); err != nil {
			return usageError(stderr, "diff", "--policy: %v", err)
		}
	case born:
		if pol, err = diffPolicy(ctx, repo, head, ""); err != nil {
			return usageError(stderr, "diff", "%v", err)
		}
	}
	in, err := stagedInput(ctx, repo, head, pol)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	r := diff.Compare(in)
	from := "(no commit yet)"
	if born {
		from = "HEAD (" + head[:8] + ")"
	}
	o := diff.RenderOptions{
		Subject:   "Agent permission review  " + from + " -> staged changes",
		Version:   version,
		Reproduce: "shipgate diff --staged",
	}
	return render(stdout, stderr, "diff", r, rf, o)
}

// stagedInput reads every agent-config file whose staged version differs
// from base (HEAD; "" before the first commit), both sides, plus the
// unchanged staged settings files of the same projects (their rules take
// part in the effective view). What cannot be read is reported, never
// skipped.
func stagedInput(ctx context.Context, repo *gitrepo.Repo, base string, pol *policy.Policy) (diff.Input, error) {
	isCfg := func(p string) bool {
		k, _ := diff.Classify(p, pol)
		return k != diff.NotAgentConfig
	}
	changes, err := repo.ChangedStaged(ctx, base, diff.Pathspecs(pol), isCfg)
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
		if c.Status != gitrepo.StatusAdded && base != "" {
			f.Base = readVersionGit(repo.ReadAt(ctx, base, c.Path, diff.MaxFileSize))
		}
		if c.Status != gitrepo.StatusDeleted {
			f.Head = readVersionGit(repo.ReadIndex(ctx, c.Path, diff.MaxFileSize))
		}
		for _, v := range []diff.Version{f.Base, f.Head} {
			if v.Unreadable != "" && isCtxErr(v.Unreadable) {
				return diff.Input{}, errors.New(v.Unreadable)
			}
		}
		in.Files = append(in.Files, f)
		if k, scope := diff.Classify(c.Path, pol); k == diff.SettingsFile {
			scopes[scope] = true
		}
	}
	var extra []string
	for scope := range scopes {
		if strings.HasPrefix(scope, "watched:") {
			continue
		}
		for _, name := range []string{".claude/settings.json", ".claude/settings.local.json"} {
			if p := path.Join(scope, name); !seen[p] {
				extra = append(extra, p)
			}
		}
	}
	sort.Strings(extra)
	for _, p := range extra {
		v := readVersionGit(repo.ReadIndex(ctx, p, diff.MaxFileSize))
		if v.Exists {
			in.Files = append(in.Files, diff.File{Path: p, Base: v, Head: v})
		}
	}
	return in, nil
}

// errStagedWithBase: --staged compares with HEAD; a --base makes no sense.
var errStagedWithBase = fmt.Errorf("--staged compares the index with HEAD: drop --base")
