package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/shipgate-app/shipgate/diff"
	"github.com/shipgate-app/shipgate/internal/gather"
	"github.com/shipgate-app/shipgate/internal/gitrepo"
	"github.com/shipgate-app/shipgate/policy"
)

// policyPath is where a repository keeps its Shipgate policy.
const policyPath = gather.DefaultPolicyPath

func runDiff(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", "[--repo DIR] [--base REF | --staged] [--policy FILE] [--format text|json|markdown|sarif] [--fail-on review|block]", stderr)
	dir := fs.String("repo", ".", "a directory inside the git work tree to review")
	baseRef := fs.String("base", "", "compare against the merge base with this ref (default: origin/HEAD, origin/main, origin/master, main or master)")
	staged := fs.Bool("staged", false, "compare the staged changes (the index) with HEAD, as the next commit would record them (the pre-commit hook)")
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
	if *staged {
		if *baseRef != "" {
			return usageError(stderr, "diff", "%v", errStagedWithBase)
		}
		return runDiffStaged(ctx, *dir, rf, stdout, stderr)
	}
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
	in, err := gatherGit(ctx, repo, mb, *rf.policyPath, stderr)
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

// gatherGit builds the engine's input with the shared gatherer (the one
// the App runs over GitHub's API) from the merge base to the working tree:
// every agent-config file the change touches, through symlinks inside the
// repository and in any case spelling, the unchanged settings files of the
// same projects, and the policy file at base and head. The policy in
// force is the file given with --policy, else the repository's at the
// merge base (as the App reads it from the base branch: a change cannot
// loosen its own gate). What the gatherer resolved, and errors in the
// proposed policy file, are printed to stderr.
func gatherGit(ctx context.Context, repo *gitrepo.Repo, mb, policyFile string, stderr io.Writer) (diff.Input, error) {
	o := gather.Options{PolicyPath: policyPath}
	if policyFile != "" {
		p, err := loadPolicy(policyFile)
		if err != nil {
			return diff.Input{}, fmt.Errorf("--policy: %w", err)
		}
		o.Override, o.HasOverride = p, true
	}
	src := gather.NewGit(repo, mb)
	res, err := gather.Gather(ctx, src, o)
	src.Close()
	if err != nil {
		return diff.Input{}, err
	}
	if len(res.PolicyErrs) > 0 {
		return diff.Input{}, fmt.Errorf("the repository's policy does not parse:\n%w", policy.Errors(res.PolicyErrs))
	}
	for _, e := range res.HeadPolicyErrs {
		fmt.Fprintf(stderr, "shipgate diff: %v\n", e)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "shipgate diff: note: %s\n", strings.ReplaceAll(n, "`", ""))
	}
	return res.Input, nil
}
