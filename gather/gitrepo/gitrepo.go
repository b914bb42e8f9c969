// Package gitrepo owns Shipgate's conversation with a local git repository:
// finding the work tree, choosing the base a change is measured from (the
// merge base of a ref with HEAD), listing which agent-config files differ
// between that commit and the working tree, and reading both versions of
// each with the same size and symlink rules.
//
// It drives the real git binary through os/exec rather than a Go
// re-implementation, so that everything git users rely on — the index,
// .gitignore and core.excludesFile, worktrees, alternates, sparse and
// partial clones — behaves exactly as it does for them. Every invocation is
// bounded by a context, never prompts or pages, never writes the index,
// never runs a fetch (and asks a recent git not to fetch a partial clone's
// missing blobs lazily), runs in the C locale, and ignores GIT_DIR,
// GIT_WORK_TREE and similar variables inherited from a caller (a git hook,
// for instance) that would point it at some other repository.
//
// The package is deliberately narrow: it hands bytes to the engine and never
// interprets them.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Sentinel errors, for callers that map failures to exit codes or hints.
// Returned errors wrap them (test with errors.Is) and carry the directory,
// ref or path in their message.
var (
	// ErrNotWorkTree: the directory is not inside a git work tree (no
	// repository at all, a bare repository, or the .git directory itself).
	ErrNotWorkTree = errors.New("not a git work tree")
	// ErrShallow: the clone is shallow, so the merge base may be missing.
	ErrShallow = errors.New("shallow clone")
	// ErrNoCommits: HEAD does not name a commit yet.
	ErrNoCommits = errors.New("repository has no commits yet")
	// ErrUnknownRef: the ref does not name a commit in this repository.
	ErrUnknownRef = errors.New("unknown git ref")
	// ErrNoMergeBase: the ref and HEAD share no history.
	ErrNoMergeBase = errors.New("no merge base")
	// ErrNoDefaultBase: none of the usual default branches exists.
	ErrNoDefaultBase = errors.New("no default base branch")
)

// Repo is a git work tree opened by Open. It holds only the location of the
// work tree and of the git binary; every method asks git afresh, so a Repo
// is safe for concurrent use.
type Repo struct {
	root     string // top of the work tree, as git reports it (OS separators)
	realRoot string // root with symlinks resolved, for containment checks
	git      string // absolute path of the git binary
}

// Open finds the git work tree containing dir (dir itself or a parent) and
// checks that Shipgate can measure changes in it: it refuses a bare
// repository, the inside of a .git directory, and a shallow clone (whose
// merge base may simply be missing; Shipgate never fetches on its own, so
// the error tells the user to run git fetch --unshallow). An empty dir
// means the current directory.
func Open(ctx context.Context, dir string) (*Repo, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repository directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("repository directory %s does not exist; pass the directory of a git checkout", abs)
		}
		return nil, fmt.Errorf("repository directory %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("repository directory %s is not a directory; pass the directory of a git checkout", abs)
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("opening repository %s: the git command is needed but was not found in PATH; install git: %w", abs, err)
	}

	out, err := runGit(ctx, gitPath, abs, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", "--is-shallow-repository")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("%w: %s is not inside a git repository (no .git in it or any parent); run in a git checkout or pass its directory", ErrNotWorkTree, abs)
		}
		return nil, fmt.Errorf("opening repository %s: %w", abs, err)
	}
	flags := strings.Fields(string(out))
	if len(flags) != 3 {
		return nil, fmt.Errorf("opening repository %s: unexpected output from git rev-parse: %q", abs, out)
	}
	switch {
	case flags[0] == "true":
		return nil, fmt.Errorf("%w: %s is a bare repository; Shipgate compares a working tree, so run it in a checkout (git clone or git worktree add)", ErrNotWorkTree, abs)
	case flags[1] != "true":
		return nil, fmt.Errorf("%w: %s is inside a .git directory, not a working tree; run in the checkout above it", ErrNotWorkTree, abs)
	case flags[2] == "true":
		return nil, fmt.Errorf("%w: %s is a shallow clone, so the merge base with the base branch may be missing; run `git fetch --unshallow` (Shipgate never fetches by itself), or in CI check out with full history (actions/checkout: fetch-depth: 0)", ErrShallow, abs)
	}

	out, err = runGit(ctx, gitPath, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("opening repository %s: %w", abs, err)
	}
	root := filepath.FromSlash(strings.TrimSuffix(string(out), "\n"))
	if root == "" || !filepath.IsAbs(root) {
		return nil, fmt.Errorf("opening repository %s: git reported an unusable work-tree root %q", abs, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("opening repository %s: resolving its root %s: %w", abs, root, err)
	}
	return &Repo{root: root, realRoot: realRoot, git: gitPath}, nil
}

// Root returns the absolute path of the top of the work tree. Paths given
// to and returned by the other methods are relative to it, slash-separated.
func (r *Repo) Root() string { return r.root }

// defaultBaseCandidates are tried in order by DefaultBase: what the remote
// calls its default branch, then the two usual names, remote before local.
var defaultBaseCandidates = []string{
	"refs/remotes/origin/main",
	"refs/remotes/origin/master",
	"refs/heads/main",
	"refs/heads/master",
}

// DefaultBase picks the ref a change is measured against when the user gave
// none: the first that exists of origin/HEAD (resolved to the branch it
// points at), origin/main, origin/master, main and master. It returns the
// full ref name (for example refs/remotes/origin/main) so that a tag or
// branch with a clashing short name cannot be picked instead.
func (r *Repo) DefaultBase(ctx context.Context) (string, error) {
	// origin/HEAD is usually a symbolic ref naming the remote's default branch.
	if out, err := r.run(ctx, "symbolic-ref", "-q", "refs/remotes/origin/HEAD"); err == nil {
		target := strings.TrimSpace(string(out))
		if ok, err := r.isCommit(ctx, target); err != nil {
			return "", err
		} else if ok {
			return target, nil
		}
	} else if !isExit(err, 1) {
		return "", fmt.Errorf("finding the default base branch of %s: %w", r.root, err)
	}
	for _, ref := range append([]string{"refs/remotes/origin/HEAD"}, defaultBaseCandidates...) {
		ok, err := r.isCommit(ctx, ref)
		if err != nil {
			return "", err
		}
		if ok {
			return ref, nil
		}
	}
	return "", fmt.Errorf("%w in %s: tried origin/HEAD, origin/main, origin/master, main and master, and none exists; pass --base REF (for example --base origin/develop), or fetch the default branch", ErrNoDefaultBase, r.root)
}

// MergeBase returns the commit that a change on HEAD is measured from: the
// merge base of ref and HEAD (git merge-base ref HEAD), as a full object
// name. ref is anything git rev-parse understands (a branch, a remote
// branch, a tag, a sha, HEAD for "uncommitted changes only"). A repository
// without commits, an unknown ref and unrelated histories each produce an
// error that wraps ErrNoCommits, ErrUnknownRef or ErrNoMergeBase.
func (r *Repo) MergeBase(ctx context.Context, ref string) (string, error) {
	if err := checkRev(ref); err != nil {
		return "", fmt.Errorf("base ref in %s: %w", r.root, err)
	}
	head, err := r.resolveCommit(ctx, "HEAD")
	if err != nil {
		return "", err
	}
	if head == "" {
		return "", fmt.Errorf("%w: %s; commit something first, there is nothing to compare yet", ErrNoCommits, r.root)
	}
	base, err := r.resolveCommit(ctx, ref)
	if err != nil {
		return "", err
	}
	if base == "" {
		return "", fmt.Errorf("%w: %q does not name a commit in %s; check the spelling, or fetch it (for example git fetch origin main)", ErrUnknownRef, ref, r.root)
	}
	out, err := r.run(ctx, "merge-base", base, head)
	if err != nil {
		if isExit(err, 1) {
			return "", fmt.Errorf("%w: %q and HEAD in %s have no common history (unrelated histories); pass a --base REF that HEAD was branched from", ErrNoMergeBase, ref, r.root)
		}
		return "", fmt.Errorf("merge base of %q and HEAD in %s: %w", ref, r.root, err)
	}
	sha := strings.TrimSpace(string(out))
	if sha == "" {
		return "", fmt.Errorf("%w: git found no merge base of %q and HEAD in %s", ErrNoMergeBase, ref, r.root)
	}
	return sha, nil
}

// resolveCommit returns the object name of the commit rev names, or "" when
// it names none.
func (r *Repo) resolveCommit(ctx context.Context, rev string) (string, error) {
	out, err := r.run(ctx, "rev-parse", "--verify", "-q", rev+"^{commit}")
	if err != nil {
		if isExit(err, 1) {
			return "", nil
		}
		return "", fmt.Errorf("resolving %q in %s: %w", rev, r.root, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func (r *Repo) isCommit(ctx context.Context, rev string) (bool, error) {
	sha, err := r.resolveCommit(ctx, rev)
	return sha != "", err
}

// checkRev refuses revisions git would read as options or that cannot be
// revisions at all.
func checkRev(rev string) error {
	switch {
	case rev == "":
		return errors.New("empty git ref")
	case strings.HasPrefix(rev, "-"):
		return fmt.Errorf("git ref %q starts with '-'", rev)
	case strings.ContainsAny(rev, "\x00\n\r"):
		return fmt.Errorf("git ref %q contains a control character", rev)
	}
	return nil
}

// GitError is a failed git invocation: which command, where, how it ended,
// and what git printed on standard error (trimmed and bounded).
type GitError struct {
	Args     []string // the git arguments, without the fixed -c options
	Dir      string
	ExitCode int // -1 when git did not exit normally (killed, not started)
	Stderr   string
	Err      error // the underlying *exec.ExitError or start/context error
}

// Error names the git command and quotes git's own message; the caller's
// wrapping names the repository.
func (e *GitError) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// Unwrap returns the underlying error, so errors.Is(err, context.Canceled)
// works on a cancelled invocation.
func (e *GitError) Unwrap() error { return e.Err }

func isExit(err error, code int) bool {
	var ge *GitError
	return errors.As(err, &ge) && ge.ExitCode == code
}

func (r *Repo) run(ctx context.Context, args ...string) ([]byte, error) {
	return runGit(ctx, r.git, r.root, args...)
}

// maxStderr bounds how much of git's standard error is kept in an error.
const maxStderr = 2048

// runGit runs git with args in dir and returns its standard output.
func runGit(ctx context.Context, gitPath, dir string, args ...string) ([]byte, error) {
	full := append([]string{
		"--no-pager",
		"-c", "core.quotepath=off",
		"-c", "color.ui=false",
	}, args...)
	cmd := exec.CommandContext(ctx, gitPath, full...)
	cmd.Dir = dir
	cmd.Env = gitEnv(os.Environ())
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: maxStderr}
	if err := cmd.Run(); err != nil {
		ge := &GitError{Args: args, Dir: dir, ExitCode: -1, Stderr: strings.TrimSpace(stderr.String()), Err: err}
		if ctxErr := ctx.Err(); ctxErr != nil {
			ge.Err = fmt.Errorf("%w (%v)", ctxErr, err)
			ge.Stderr = ""
		} else if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			ge.ExitCode = ee.ExitCode()
		}
		return stdout.Bytes(), ge
	}
	return stdout.Bytes(), nil
}

// droppedEnv are variables that would make git look at another repository,
// another index or object store, reinterpret pathspecs, run external diff
// programs, page, prompt or localise its output. They are removed from the
// inherited environment; ours are appended instead.
var droppedEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_PREFIX": true,
	"GIT_SHALLOW_FILE": true, "GIT_GRAFT_FILE": true, "GIT_REPLACE_REF_BASE": true,
	"GIT_QUARANTINE_PATH": true, "GIT_INTERNAL_SUPER_PREFIX": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_GLOB_PATHSPECS": true,
	"GIT_NOGLOB_PATHSPECS": true, "GIT_ICASE_PATHSPECS": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_DIFF_OPTS": true,
	"GIT_PAGER": true, "PAGER": true, "GIT_TERMINAL_PROMPT": true,
	"GIT_OPTIONAL_LOCKS": true, "GIT_NO_LAZY_FETCH": true,
	"LANG": true, "LANGUAGE": true,
}

func gitEnv(inherited []string) []string {
	env := make([]string, 0, len(inherited)+8)
	for _, kv := range inherited {
		name, _, _ := strings.Cut(kv, "=")
		if droppedEnv[name] || strings.HasPrefix(name, "LC_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0", // never ask for credentials
		"GIT_PAGER=cat", "PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0", // read-only: do not refresh and write the index
		"GIT_NO_LAZY_FETCH=1",  // partial clone: fail rather than fetch a blob (git 2.44+; older ones ignore it)
		"LC_ALL=C", "LANG=C", "LANGUAGE=C",
	)
}

// limitedBuffer keeps the first max bytes written and discards the rest, so
// a chatty git cannot grow an error without bound.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}
