package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/gather"
	"github.com/shipgate-app/shipgate/gather/gitrepo"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/render"
	"github.com/shipgate-app/shipgate/report"
)

// policyPath is where a repository keeps its Shipgate policy.
const policyPath = gather.DefaultPolicyPath

func runDiff(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", "[--repo DIR] [--base REF | --staged] [--only DIR] [--policy FILE] [--format text|json|markdown|sarif] [--fail-on review|block|never] [--sarif-file F] [--markdown-file F] [--json-file F] [--github-output F]", stderr)
	dir := fs.String("repo", ".", "a directory inside the git work tree to review")
	baseRef := fs.String("base", "", "compare against the merge base with this ref (default: origin/HEAD, origin/main, origin/master, main or master)")
	staged := fs.Bool("staged", false, "compare the staged changes (the index) with HEAD, as the next commit would record them (the pre-commit hook)")
	only := fs.String("only", "", "review only the agent configuration under this folder of the repository (relative to the current directory; the repository's policy still applies)")
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
		if *only != "" {
			return usageError(stderr, "diff", "--only reviews a folder against a base; it does not combine with --staged")
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
	scope := ""
	if *only != "" {
		if scope, err = repoFolder(repo, *only); err != nil {
			return usageError(stderr, "diff", "--only: %v", err)
		}
	}
	in, err := gatherGit(ctx, repo, mb, *rf.policyPath, stderr)
	if err != nil {
		return usageError(stderr, "diff", "%v", err)
	}
	in = scopeInput(in, scope)
	r := judge.Compare(in)
	subject := fmt.Sprintf("Agent permission review  %s (%s) -> working tree", strings.TrimPrefix(strings.TrimPrefix(ref, "refs/remotes/"), "refs/heads/"), mb[:8])
	if scope != "" {
		subject += ", " + scope + "/ only"
	}
	words := []string{"shipgate", "diff"}
	if *dir != "." {
		words = append(words, "--repo", *dir)
	}
	words = append(words, "--base", mb)
	if *only != "" {
		words = append(words, "--only", *only)
	}
	if *rf.policyPath != "" {
		words = append(words, "--policy", *rf.policyPath)
	}
	o := render.Options{
		Subject:   subject,
		Version:   version,
		Reproduce: shellJoin(words...),
	}
	return writeReport(stdout, stderr, "diff", r, rf, o)
}

// repoFolder turns a folder named on the command line (relative to the
// current directory) into a path relative to the repository's root ("" for
// the root itself), refusing one outside the repository.
func repoFolder(repo *gitrepo.Repo, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	root, err := filepath.EvalSymlinks(repo.Root())
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the repository %s", dir, repo.Root())
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// scopeInput keeps, of the files a review of the whole repository would
// compare, those a review of the folder scope covers: the agent-config
// files under it, and every file that is not agent configuration by its
// own path (a script a hook runs, a file a script loads: brought in
// because a configuration runs it, possibly one under scope, so kept).
// The policy and a change to it stay: they are the repository's.
func scopeInput(in report.Input, scope string) report.Input {
	if scope == "" {
		return in
	}
	under := func(p string) bool { return p == scope || strings.HasPrefix(p, scope+"/") }
	config := func(p string) bool {
		k, _ := agentfiles.Classify(p, in.Policy)
		return k != report.NotAgentConfig
	}
	keep := func(p string) bool { return under(p) || !config(p) }
	var files []report.File
	for _, f := range in.Files {
		if under(f.Path) || !config(f.Path) && (f.As == "" || !config(f.As)) {
			files = append(files, f)
		}
	}
	var unread []string
	for _, p := range in.Unread {
		if keep(p) {
			unread = append(unread, p)
		}
	}
	in.Files, in.Unread = files, unread
	return in
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
func gatherGit(ctx context.Context, repo *gitrepo.Repo, mb, policyFile string, stderr io.Writer) (report.Input, error) {
	o := gather.Options{PolicyPath: policyPath}
	if policyFile != "" {
		p, err := loadPolicy(policyFile)
		if err != nil {
			return report.Input{}, fmt.Errorf("--policy: %w", err)
		}
		o.Override, o.HasOverride = p, true
	}
	src := gather.NewGit(repo, mb)
	res, err := gather.Gather(ctx, src, o)
	src.Close()
	if err != nil {
		return report.Input{}, err
	}
	if len(res.PolicyErrs) > 0 {
		return report.Input{}, fmt.Errorf("the repository's policy does not parse:\n%w", policy.Errors(res.PolicyErrs))
	}
	for _, e := range res.HeadPolicyErrs {
		fmt.Fprintf(stderr, "shipgate diff: %v\n", e)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "shipgate diff: note: %s\n", strings.ReplaceAll(n, "`", ""))
	}
	return res.Input, nil
}
