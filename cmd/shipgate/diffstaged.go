package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shipgate-app/shipgate/gather"
	"github.com/shipgate-app/shipgate/gather/gitrepo"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/render"
)

// errStagedWithBase: --staged compares with HEAD; a --base makes no sense.
var errStagedWithBase = errors.New("--staged compares the index with HEAD: drop --base")

// runDiffStaged is `shipgate diff --staged`, the pre-commit hook's check:
// it compares what the next commit would record (the index) with HEAD
// through the shared gatherer (gather.GitStaged), so unstaged edits and
// untracked files play no part, as in the commit. The policy is HEAD's
// .github/shipgate.yml (a commit cannot loosen its own gate), unless
// --policy names one. On an unborn branch (the first commit) every staged
// agent-config file is new.
func runDiffStaged(ctx context.Context, dir string, rf reportFlags, stdout, stderr io.Writer) int {
	repo, err := gitrepo.Open(ctx, dir)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	head, born, err := repo.Head(ctx)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	o := gather.Options{PolicyPath: policyPath}
	if *rf.policyPath != "" {
		p, err := loadPolicy(*rf.policyPath)
		if err != nil {
			return usageError(stderr, "diff", "--policy: %v", err)
		}
		o.Override, o.HasOverride = p, true
	}
	src := gather.NewGitStaged(repo, head)
	res, err := gather.Gather(ctx, src, o)
	src.Close()
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	if len(res.PolicyErrs) > 0 {
		return usageError(stderr, "diff", "the repository's policy does not parse:\n%v", policy.Errors(res.PolicyErrs))
	}
	for _, e := range res.HeadPolicyErrs {
		fmt.Fprintf(stderr, "shipgate diff: %v\n", e)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "shipgate diff: note: %s\n", strings.ReplaceAll(n, "`", ""))
	}
	r := judge.Compare(res.Input)
	from := "(no commit yet)"
	if born {
		from = "HEAD (" + head[:8] + ")"
	}
	ro := render.Options{
		Subject:   "Agent permission review  " + from + " -> staged changes",
		Version:   version,
		Reproduce: "shipgate diff --staged",
	}
	return writeReport(stdout, stderr, "diff", r, rf, ro)
}
