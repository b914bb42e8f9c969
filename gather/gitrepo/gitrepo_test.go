package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Contents used by the feature fixture.
const (
	baseSettings    = `{"permissions":{"allow":["Bash(ls)"]}}`
	featureSettings = `{"permissions":{"allow":["Bash(ls)","Bash(git push:*)"]}}`
	workSettings    = `{"permissions":{"allow":["Bash(*)"]}}`
	oldMCP          = `{"mcpServers":{"docs":{"command":"docs-server","args":["--port","8080"]}}}`
)

// weirdName is a directory name with a quote and a newline; git quotes such
// names unless -z is used.
const weirdName = "we\"ird\nname"

// featureRepo is the shared scenario: main holds the base; a feature branch
// modifies, adds, deletes and renames agent-config files; main moves on
// after the fork; the working tree adds staged, unstaged, untracked and
// ignored changes. It returns the repository and the fork commit.
func featureRepo(t *testing.T) (dir, fork string) {
	t.Helper()
	dir = initRepo(t, filepath.Join(t.TempDir(), "repo"))
	writeFile(t, dir, ".claude/settings.json", baseSettings)
	writeFile(t, dir, ".claude/settings.local.json", `{"permissions":{"allow":["Read"]}}`)
	writeFile(t, dir, "old/.mcp.json", oldMCP)
	writeFile(t, dir, "a/.mcp.json", `{"a":0}`)
	writeFile(t, dir, "b/.mcp.json", `{"b":0}`)
	writeFile(t, dir, "c/.mcp.json", `{"c":0}`)
	writeFile(t, dir, "rmcached/.mcp.json", `{"r":0}`)
	writeFile(t, dir, "README.md", "base\n")
	writeFile(t, dir, ".gitignore", "ign/\n")
	fork = commitAll(t, dir, "base")

	gitT(t, dir, "checkout", "-q", "-b", "feature")
	writeFile(t, dir, ".claude/settings.json", featureSettings)
	commitAll(t, dir, "widen")
	writeFile(t, dir, ".mcp.json", `{"mcpServers":{}}`)
	writeFile(t, dir, "pkg/.claude/settings.local.json", `{}`)
	commitAll(t, dir, "add")
	gitT(t, dir, "rm", "-q", ".claude/settings.local.json")
	gitT(t, dir, "mv", "old", "new")
	commitAll(t, dir, "delete and rename")
	writeFile(t, dir, "team a/.claude/settings.json", `{"space":true}`)
	writeFile(t, dir, "équipe/.claude/settings.json", `{"unicode":true}`)
	if runtime.GOOS != "windows" {
		writeFile(t, dir, weirdName+"/.mcp.json", `{"weird":true}`)
	}
	writeFile(t, dir, "c/.mcp.json", `{"c":1}`)
	writeFile(t, dir, "README.md", "feature\n")
	commitAll(t, dir, "more")

	// main moves on after the fork: none of this is part of the change.
	gitT(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "main-only/.mcp.json", `{}`)
	writeFile(t, dir, ".claude/settings.json", `{"main":"moved on"}`)
	commitAll(t, dir, "main moves on")
	gitT(t, dir, "checkout", "-q", "feature")

	// Working tree.
	writeFile(t, dir, ".claude/settings.json", workSettings) // unstaged edit on top of a commit
	writeFile(t, dir, "a/.mcp.json", `{"a":1}`)              // staged
	gitT(t, dir, "add", "a/.mcp.json")
	writeFile(t, dir, "b/.mcp.json", `{"b":1}`)                      // unstaged
	writeFile(t, dir, "c/.mcp.json", `{"c":0}`)                      // back to the base content
	gitT(t, dir, "rm", "-q", "--cached", "rmcached/.mcp.json")       // untracked now, same content
	writeFile(t, dir, "extra/.claude/settings.json", `{"new":true}`) // untracked
	writeFile(t, dir, "ign/.claude/settings.json", `{"ignored":true}`)
	writeFile(t, dir, "ita/.mcp.json", `{"ita":true}`) // git add -N: tracked, no content staged
	gitT(t, dir, "add", "-N", "ita/.mcp.json")
	writeFile(t, dir, "docs/notes.md", "not agent config\n")
	return dir, fork
}

func TestOpen(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	repo := initRepo(t, filepath.Join(tmp, "repo"))
	writeFile(t, repo, "sub/dir/x.txt", "x")
	commitAll(t, repo, "x")
	realRepo, _ := filepath.EvalSymlinks(repo)

	bare := filepath.Join(tmp, "bare.git")
	gitT(t, tmp, "clone", "-q", "--bare", repo, bare)
	shallow := filepath.Join(tmp, "shallow")
	gitT(t, tmp, "clone", "-q", "--depth", "1", "file://"+filepath.ToSlash(repo), shallow)
	worktree := filepath.Join(tmp, "worktree")
	gitT(t, repo, "worktree", "add", "-q", "-b", "wt", worktree)
	realWorktree, _ := filepath.EvalSymlinks(worktree)
	plain := filepath.Join(tmp, "plain")
	writeFile(t, plain, "f.txt", "not a repo")

	tests := []struct {
		name     string
		dir      string
		wantRoot string
		wantIs   error
		wantMsg  []string
	}{
		{name: "root", dir: repo, wantRoot: realRepo},
		{name: "subdirectory", dir: filepath.Join(repo, "sub", "dir"), wantRoot: realRepo},
		{name: "linked worktree", dir: filepath.Join(worktree, "sub"), wantRoot: realWorktree},
		{name: "missing", dir: filepath.Join(tmp, "nope"), wantMsg: []string{"does not exist", filepath.Join(tmp, "nope")}},
		{name: "file", dir: filepath.Join(plain, "f.txt"), wantMsg: []string{"not a directory"}},
		{name: "not a repository", dir: plain, wantIs: ErrNotWorkTree, wantMsg: []string{plain, "not inside a git repository"}},
		{name: "bare", dir: bare, wantIs: ErrNotWorkTree, wantMsg: []string{"bare repository"}},
		{name: "inside .git", dir: filepath.Join(repo, ".git"), wantIs: ErrNotWorkTree, wantMsg: []string{".git directory"}},
		{name: "shallow", dir: shallow, wantIs: ErrShallow, wantMsg: []string{"shallow clone", "git fetch --unshallow", shallow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(t.Context(), tt.dir)
			if tt.wantRoot != "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if got, _ := filepath.EvalSymlinks(r.Root()); got != tt.wantRoot {
					t.Errorf("Root() = %q, want %q", r.Root(), tt.wantRoot)
				}
				return
			}
			if err == nil {
				t.Fatalf("Open(%s) succeeded, want an error", tt.dir)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

// TestOpenIgnoresInheritedGitDir: a caller running inside a git hook has
// GIT_DIR and GIT_WORK_TREE set for another repository; they must not leak.
func TestOpenIgnoresInheritedGitDir(t *testing.T) {
	dir, fork := featureRepo(t)
	other := initRepo(t, filepath.Join(t.TempDir(), "other"))
	commitAll(t, other, "other")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))

	r := mustOpen(t, dir)
	if got, want := evalPath(t, r.Root()), evalPath(t, dir); got != want {
		t.Fatalf("Root() = %q, want %q", got, want)
	}
	mb, err := r.MergeBase(t.Context(), "main")
	if err != nil || mb != fork {
		t.Fatalf("MergeBase(main) = %q, %v; want %q", mb, err, fork)
	}
	changes, err := r.Changed(t.Context(), mb, shipgatePaths, nil)
	if err != nil || len(changes) == 0 {
		t.Fatalf("Changed = %v, %v; want the feature changes", changes, err)
	}
}

func evalPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDefaultBase(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()

	// origin: main checked out, plus a develop branch.
	origin := initRepo(t, filepath.Join(tmp, "origin"))
	writeFile(t, origin, ".claude/settings.json", baseSettings)
	commitAll(t, origin, "base")
	gitT(t, origin, "branch", "develop")

	clone := filepath.Join(tmp, "clone")
	gitT(t, tmp, "clone", "-q", origin, clone)
	cloneDevelop := filepath.Join(tmp, "clone-develop")
	gitT(t, tmp, "clone", "-q", origin, cloneDevelop)
	gitT(t, cloneDevelop, "remote", "set-head", "origin", "develop")

	master := initRepo(t, filepath.Join(tmp, "master"))
	gitT(t, master, "checkout", "-q", "-b", "master")
	commitAll(t, master, "m")

	trunk := initRepo(t, filepath.Join(tmp, "trunk"))
	gitT(t, trunk, "checkout", "-q", "-b", "trunk")
	commitAll(t, trunk, "t")

	remoteOnly := initRepo(t, filepath.Join(tmp, "remote-only"))
	gitT(t, remoteOnly, "checkout", "-q", "-b", "trunk")
	commitAll(t, remoteOnly, "t")
	gitT(t, remoteOnly, "update-ref", "refs/remotes/origin/master", "HEAD")
	gitT(t, remoteOnly, "branch", "main")

	empty := initRepo(t, filepath.Join(tmp, "empty"))

	tests := []struct {
		name, dir, want string
		wantErr         bool
	}{
		{name: "clone: origin/HEAD", dir: clone, want: "refs/remotes/origin/main"},
		{name: "origin/HEAD wins over main", dir: cloneDevelop, want: "refs/remotes/origin/develop"},
		{name: "local master", dir: master, want: "refs/heads/master"},
		{name: "local main", dir: origin, want: "refs/heads/main"},
		{name: "remote branch before local", dir: remoteOnly, want: "refs/remotes/origin/master"},
		{name: "none", dir: trunk, wantErr: true},
		{name: "no commits", dir: empty, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mustOpen(t, tt.dir).DefaultBase(t.Context())
			if tt.wantErr {
				if !errors.Is(err, ErrNoDefaultBase) {
					t.Fatalf("DefaultBase = %q, %v; want ErrNoDefaultBase", got, err)
				}
				for _, m := range []string{"origin/HEAD", "origin/main", "origin/master", "main", "master", "--base REF"} {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not mention %q", err, m)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("DefaultBase = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestCloneEndToEnd: the usual CI and laptop flow, in a clone of a local
// repository — default base, merge base, changes, both versions.
func TestCloneEndToEnd(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	origin := initRepo(t, filepath.Join(tmp, "origin"))
	writeFile(t, origin, ".claude/settings.json", baseSettings)
	fork := commitAll(t, origin, "base")
	clone := filepath.Join(tmp, "clone")
	gitT(t, tmp, "clone", "-q", origin, clone)
	gitT(t, clone, "config", "user.name", "T")
	gitT(t, clone, "config", "user.email", "t@shipgate.invalid")
	gitT(t, clone, "checkout", "-q", "-b", "widen")
	writeFile(t, clone, ".claude/settings.json", featureSettings)
	commitAll(t, clone, "widen")

	ctx := t.Context()
	r := mustOpen(t, clone)
	ref, err := r.DefaultBase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := r.MergeBase(ctx, ref)
	if err != nil || mb != fork {
		t.Fatalf("MergeBase(%s) = %q, %v; want %q", ref, mb, err, fork)
	}
	changes, err := r.Changed(ctx, mb, shipgatePaths, nil)
	want := []Change{{Path: ".claude/settings.json", Status: StatusModified}}
	if err != nil || !reflect.DeepEqual(changes, want) {
		t.Fatalf("Changed = %+v, %v; want %+v", changes, err, want)
	}
	before, ok, err := r.ReadAt(ctx, mb, changes[0].Path, 1<<20)
	if err != nil || !ok || string(before) != baseSettings {
		t.Fatalf("ReadAt = %q, %v, %v", before, ok, err)
	}
	after, ok, err := r.ReadWorking(changes[0].Path, 1<<20)
	if err != nil || !ok || string(after) != featureSettings {
		t.Fatalf("ReadWorking = %q, %v, %v", after, ok, err)
	}
}

func TestMergeBase(t *testing.T) {
	t.Parallel()
	dir, fork := featureRepo(t)
	head := gitT(t, dir, "rev-parse", "HEAD")
	// An unrelated history: a root commit sharing nothing with HEAD.
	tree := gitT(t, dir, "mktree", "--missing") // empty tree (mktree reads nothing)
	orphan := gitInput(t, dir, []byte("orphan\n"), "commit-tree", tree)
	gitT(t, dir, "update-ref", "refs/heads/orphan", orphan)
	gitT(t, dir, "tag", "v1", fork)

	empty := initRepo(t, filepath.Join(t.TempDir(), "empty"))

	tests := []struct {
		name, dir, ref, want string
		wantIs               error
		wantMsg              string
	}{
		{name: "branch", dir: dir, ref: "main", want: fork},
		{name: "full ref", dir: dir, ref: "refs/heads/main", want: fork},
		{name: "tag", dir: dir, ref: "v1", want: fork},
		{name: "sha", dir: dir, ref: fork, want: fork},
		{name: "HEAD: uncommitted only", dir: dir, ref: "HEAD", want: head},
		{name: "unknown ref", dir: dir, ref: "no-such-branch", wantIs: ErrUnknownRef, wantMsg: "no-such-branch"},
		{name: "tree is not a commit", dir: dir, ref: tree, wantIs: ErrUnknownRef},
		{name: "unrelated histories", dir: dir, ref: "orphan", wantIs: ErrNoMergeBase, wantMsg: "unrelated"},
		{name: "option-like ref", dir: dir, ref: "--all", wantMsg: "starts with '-'"},
		{name: "empty ref", dir: dir, ref: "", wantMsg: "empty git ref"},
		{name: "no commits", dir: empty, ref: "main", wantIs: ErrNoCommits, wantMsg: "commit something first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mustOpen(t, tt.dir).MergeBase(t.Context(), tt.ref)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("MergeBase(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("MergeBase(%q) = %q, want an error", tt.ref, got)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

func sortedChanges(cs []Change) []Change {
	out := append([]Change(nil), cs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func TestChanged(t *testing.T) {
	t.Parallel()
	dir, fork := featureRepo(t)
	r := mustOpen(t, dir)

	all := []Change{
		{Path: ".claude/settings.json", Status: StatusModified},
		{Path: ".claude/settings.local.json", Status: StatusDeleted},
		{Path: ".mcp.json", Status: StatusAdded},
		{Path: "a/.mcp.json", Status: StatusModified},
		{Path: "b/.mcp.json", Status: StatusModified},
		{Path: "extra/.claude/settings.json", Status: StatusAdded},
		{Path: "ita/.mcp.json", Status: StatusAdded},
		{Path: "new/.mcp.json", OldPath: "old/.mcp.json", Status: StatusRenamed},
		{Path: "pkg/.claude/settings.local.json", Status: StatusAdded},
		{Path: "rmcached/.mcp.json", Status: StatusModified},
		{Path: "team a/.claude/settings.json", Status: StatusAdded},
		{Path: "équipe/.claude/settings.json", Status: StatusAdded},
	}
	if runtime.GOOS != "windows" {
		all = append(all, Change{Path: weirdName + "/.mcp.json", Status: StatusAdded})
	}
	all = sortedChanges(all)
	without := func(cs []Change, drop ...string) []Change {
		var out []Change
		for _, c := range cs {
			if !contains(drop, c.Path) {
				out = append(out, c)
			}
		}
		return out
	}
	replace := func(cs []Change, path string, with ...Change) []Change {
		return sortedChanges(append(without(cs, path), with...))
	}
	isAgentFile := func(p string) bool {
		return strings.HasSuffix(p, ".mcp.json") || strings.Contains(p, ".claude/settings")
	}

	tests := []struct {
		name      string
		base      string
		pathspecs []string
		match     func(string) bool
		want      []Change
	}{
		{name: "merge base to working tree", base: fork, pathspecs: shipgatePaths, want: all},
		{name: "nil pathspecs, filtered by match", base: fork, match: isAgentFile, want: all},
		{
			name: "rename whose source does not match is an addition", base: fork, pathspecs: shipgatePaths,
			match: func(p string) bool { return !strings.HasPrefix(p, "old/") },
			want:  replace(all, "new/.mcp.json", Change{Path: "new/.mcp.json", Status: StatusAdded}),
		},
		{
			name: "rename whose destination does not match is a deletion", base: fork, pathspecs: shipgatePaths,
			match: func(p string) bool { return !strings.HasPrefix(p, "new/") },
			want:  replace(all, "new/.mcp.json", Change{Path: "old/.mcp.json", Status: StatusDeleted}),
		},
		{
			name: "root-level files only", base: fork, pathspecs: shipgatePaths,
			match: func(p string) bool { return p == ".claude/settings.json" || p == ".mcp.json" },
			want: []Change{
				{Path: ".claude/settings.json", Status: StatusModified},
				{Path: ".mcp.json", Status: StatusAdded},
			},
		},
		{
			name: "narrow pathspec", base: fork, pathspecs: []string{":(glob)*/.claude/settings*.json"},
			want: []Change{
				{Path: "extra/.claude/settings.json", Status: StatusAdded},
				{Path: "pkg/.claude/settings.local.json", Status: StatusAdded},
				{Path: "team a/.claude/settings.json", Status: StatusAdded},
				{Path: "équipe/.claude/settings.json", Status: StatusAdded},
			},
		},
		{name: "no matching path", base: fork, pathspecs: []string{".github/shipgate.yml"}, want: nil},
		{
			name: "HEAD: uncommitted changes only", base: "HEAD", pathspecs: shipgatePaths,
			want: []Change{
				{Path: ".claude/settings.json", Status: StatusModified},
				{Path: "a/.mcp.json", Status: StatusModified},
				{Path: "b/.mcp.json", Status: StatusModified},
				{Path: "c/.mcp.json", Status: StatusModified},
				{Path: "extra/.claude/settings.json", Status: StatusAdded},
				{Path: "ita/.mcp.json", Status: StatusAdded},
				{Path: "rmcached/.mcp.json", Status: StatusModified},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Changed(t.Context(), tt.base, tt.pathspecs, tt.match)
			if err != nil {
				t.Fatalf("Changed: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Changed:\n got %q\nwant %q", got, tt.want)
			}
		})
	}

	t.Run("errors", func(t *testing.T) {
		for _, base := range []string{"no-such-ref", "-p", ""} {
			if _, err := r.Changed(t.Context(), base, shipgatePaths, nil); err == nil ||
				(base != "" && !strings.Contains(err.Error(), base)) || !strings.Contains(err.Error(), r.Root()) {
				t.Errorf("Changed(%q) error = %v; want one naming the ref and the repository", base, err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := r.Changed(ctx, fork, shipgatePaths, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("Changed with a cancelled context: %v, want context.Canceled", err)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSplitRenames(t *testing.T) {
	t.Parallel()
	in := []Change{
		{Path: "z/.mcp.json", OldPath: ".mcp.json", Status: StatusRenamed},
		{Path: ".claude/settings.json", Status: StatusModified},
	}
	want := []Change{
		{Path: ".claude/settings.json", Status: StatusModified},
		{Path: ".mcp.json", Status: StatusDeleted},
		{Path: "z/.mcp.json", Status: StatusAdded},
	}
	if got := SplitRenames(in); !reflect.DeepEqual(got, want) {
		t.Errorf("SplitRenames = %+v, want %+v", got, want)
	}
}

func TestParseNameStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []Change
		wantErr bool
	}{
		{name: "empty", in: ""},
		{
			name: "all kinds",
			in:   "M\x00a b\x00A\x00new\nline\x00D\x00gone\x00R087\x00old\x00new\x00C100\x00src\x00copy\x00T\x00link\x00U\x00conflict\x00",
			want: []Change{
				{Path: "a b", Status: StatusModified},
				{Path: "new\nline", Status: StatusAdded},
				{Path: "gone", Status: StatusDeleted},
				{Path: "new", OldPath: "old", Status: StatusRenamed},
				{Path: "copy", Status: StatusAdded},
				{Path: "link", Status: StatusTypeChange},
				{Path: "conflict", Status: StatusModified},
			},
		},
		{name: "no final NUL", in: "M\x00x", want: []Change{{Path: "x", Status: StatusModified}}},
		{name: "rename missing new path", in: "R100\x00old\x00", wantErr: true},
		{name: "status without path", in: "M\x00", wantErr: true},
		{name: "unknown status", in: "X\x00p\x00", wantErr: true},
		{name: "empty status", in: "\x00p\x00", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseNameStatus([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseNameStatus: any byte string either parses into changes with
// non-empty paths or is refused; it never panics.
func FuzzParseNameStatus(f *testing.F) {
	f.Add([]byte("M\x00a\x00R100\x00b\x00c\x00"))
	f.Add([]byte("A\x00\xff\xfe\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, err := parseNameStatus(b)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Status == "" || c.Path == "" || (c.Status == StatusRenamed) != (c.OldPath != "") {
				t.Fatalf("inconsistent change %+v", c)
			}
		}
	})
}

func TestReadAt(t *testing.T) {
	t.Parallel()
	dir, fork := featureRepo(t)
	r := mustOpen(t, dir)
	head := gitT(t, dir, "rev-parse", "HEAD")

	// Symlinks and a submodule entry, committed on a side branch.
	links := initRepo(t, filepath.Join(t.TempDir(), "links"))
	writeFile(t, links, "shared/settings.json", baseSettings)
	writeFile(t, links, "real/.claude/settings.json", baseSettings)
	mustSymlink(t, "../shared/settings.json", filepath.Join(links, ".claude", "settings.json"))
	mustSymlink(t, "/etc/passwd", filepath.Join(links, "out", ".mcp.json"))
	mustSymlink(t, "real", filepath.Join(links, "dirlink"))
	gitT(t, links, "add", "-A")
	gitT(t, links, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",sub")
	gitT(t, links, "commit", "-q", "-m", "links")
	lr := mustOpen(t, links)

	type want struct {
		data    string
		exists  bool
		errType any // pointer to the expected error type
		errMsg  string
	}
	tests := []struct {
		name string
		r    *Repo
		rev  string
		path string
		max  int64
		want want
	}{
		{name: "base version", r: r, rev: fork, path: ".claude/settings.json", max: 1 << 20, want: want{data: baseSettings, exists: true}},
		{name: "head version", r: r, rev: head, path: ".claude/settings.json", max: 1 << 20, want: want{data: featureSettings, exists: true}},
		{name: "by branch name", r: r, rev: "main", path: "main-only/.mcp.json", max: 1 << 20, want: want{data: "{}", exists: true}},
		{name: "added later: absent at base", r: r, rev: fork, path: ".mcp.json", max: 1 << 20},
		{name: "rename source", r: r, rev: fork, path: "old/.mcp.json", max: 1 << 20, want: want{data: oldMCP, exists: true}},
		{name: "rename destination absent at base", r: r, rev: fork, path: "new/.mcp.json", max: 1 << 20},
		{name: "space", r: r, rev: head, path: "team a/.claude/settings.json", max: 1 << 20, want: want{data: `{"space":true}`, exists: true}},
		{name: "non-ASCII", r: r, rev: head, path: "équipe/.claude/settings.json", max: 1 << 20, want: want{data: `{"unicode":true}`, exists: true}},
		{name: "under a missing directory", r: r, rev: fork, path: "no/such/dir/.mcp.json", max: 1 << 20},
		{name: "under a file", r: r, rev: fork, path: "README.md/.mcp.json", max: 1 << 20},
		{name: "pathspec magic is literal", r: r, rev: fork, path: ":(glob)**/.mcp.json", max: 1 << 20},
		{name: "exactly at the limit", r: r, rev: fork, path: "old/.mcp.json", max: int64(len(oldMCP)), want: want{data: oldMCP, exists: true}},
		{name: "over the limit", r: r, rev: fork, path: "old/.mcp.json", max: 10, want: want{exists: true, errType: new(*TooLargeError), errMsg: "over the 10-byte limit"}},
		{name: "directory", r: r, rev: fork, path: ".claude", max: 1 << 20, want: want{exists: true, errType: new(*NotRegularFileError), errMsg: "directory"}},
		{name: "symlink inside the repository", r: lr, rev: "HEAD", path: ".claude/settings.json", max: 1 << 20, want: want{exists: true, errType: new(*SymlinkError), errMsg: `symlink to "../shared/settings.json" (inside the repository)`}},
		{name: "symlink leaving the repository", r: lr, rev: "HEAD", path: "out/.mcp.json", max: 1 << 20, want: want{exists: true, errType: new(*SymlinkError), errMsg: "outside the repository"}},
		{name: "under a symlinked directory", r: lr, rev: "HEAD", path: "dirlink/.claude/settings.json", max: 1 << 20, want: want{exists: true, errType: new(*SymlinkError), errMsg: "lies under dirlink"}},
		{name: "submodule", r: lr, rev: "HEAD", path: "sub", max: 1 << 20, want: want{exists: true, errType: new(*NotRegularFileError), errMsg: "submodule"}},
		{name: "inside a submodule", r: lr, rev: "HEAD", path: "sub/.claude/settings.json", max: 1 << 20, want: want{exists: true, errType: new(*NotRegularFileError), errMsg: "lies inside sub"}},
		{name: "unknown rev", r: r, rev: "no-such-rev", path: ".mcp.json", max: 1 << 20, want: want{errMsg: "no-such-rev"}},
		{name: "escaping path", r: r, rev: fork, path: "../x", max: 1 << 20, want: want{errMsg: "inside the repository"}},
		{name: "absolute path", r: r, rev: fork, path: "/etc/passwd", max: 1 << 20, want: want{errMsg: "relative"}},
		{name: "unclean path", r: r, rev: fork, path: "./.mcp.json", max: 1 << 20, want: want{errMsg: "clean"}},
		{name: ".git", r: r, rev: fork, path: ".git/config", max: 1 << 20, want: want{errMsg: ".git"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, exists, err := tt.r.ReadAt(t.Context(), tt.rev, tt.path, tt.max)
			checkRead(t, data, exists, err, tt.want.data, tt.want.exists, tt.want.errType, tt.want.errMsg)
		})
	}

	t.Run("error fields", func(t *testing.T) {
		_, _, err := r.ReadAt(t.Context(), fork, "old/.mcp.json", 10)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Size != int64(len(oldMCP)) || tl.Max != 10 || tl.Path != "old/.mcp.json" || tl.Rev != fork {
			t.Errorf("TooLargeError = %+v", tl)
		}
		_, _, err = lr.ReadAt(t.Context(), "HEAD", "out/.mcp.json", 1<<20)
		var se *SymlinkError
		if !errors.As(err, &se) || se.Target != "/etc/passwd" || !se.Escapes || se.Link != "out/.mcp.json" {
			t.Errorf("SymlinkError = %+v", se)
		}
	})
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// checkRead compares a reader's result with what a test case wants.
// errType is a new(*T) for the expected error type, or nil.
func checkRead(t *testing.T, data []byte, exists bool, err error, wantData string, wantExists bool, errType any, errMsg string) {
	t.Helper()
	if exists != wantExists {
		t.Errorf("exists = %v, want %v", exists, wantExists)
	}
	if errType == nil && errMsg == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if string(data) != wantData {
			t.Errorf("data = %q, want %q", data, wantData)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want one (%T %q); data %q", errType, errMsg, data)
	}
	if data != nil {
		t.Errorf("data = %q alongside an error, want nil", data)
	}
	if errType != nil && !errors.As(err, errType) {
		t.Errorf("error %v (%T) is not a %T", err, err, errType)
	}
	if !strings.Contains(err.Error(), errMsg) {
		t.Errorf("error %q does not mention %q", err, errMsg)
	}
}

func TestReadWorking(t *testing.T) {
	t.Parallel()
	dir, _ := featureRepo(t)
	r := mustOpen(t, dir)

	outside := filepath.Join(t.TempDir(), "outside.json")
	writeFile(t, filepath.Dir(outside), "outside.json", `{"secret":true}`)
	writeFile(t, dir, "shared/settings.json", baseSettings)
	mustSymlink(t, "../shared/settings.json", filepath.Join(dir, "in", ".claude", "settings.json"))
	mustSymlink(t, outside, filepath.Join(dir, "out", ".claude", "settings.json"))
	mustSymlink(t, "../../shared", filepath.Join(dir, "rel", "up", ".claude"))
	mustSymlink(t, filepath.Dir(outside), filepath.Join(dir, "dirlink"))
	writeFile(t, dir, "sub/.git", "gitdir: ../.git/modules/sub\n")
	writeFile(t, dir, "sub/.claude/settings.json", `{}`)

	tests := []struct {
		name, path string
		max        int64
		data       string
		exists     bool
		errType    any
		errMsg     string
	}{
		{name: "modified", path: ".claude/settings.json", max: 1 << 20, data: workSettings, exists: true},
		{name: "deleted", path: ".claude/settings.local.json", max: 1 << 20},
		{name: "untracked", path: "extra/.claude/settings.json", max: 1 << 20, data: `{"new":true}`, exists: true},
		{name: "ignored is still readable", path: "ign/.claude/settings.json", max: 1 << 20, data: `{"ignored":true}`, exists: true},
		{name: "non-ASCII", path: "équipe/.claude/settings.json", max: 1 << 20, data: `{"unicode":true}`, exists: true},
		{name: "under a file", path: "README.md/.mcp.json", max: 1 << 20},
		{name: "over the limit", path: ".claude/settings.json", max: 5, exists: true, errType: new(*TooLargeError), errMsg: "over the 5-byte limit"},
		{name: "directory", path: ".claude", max: 1 << 20, exists: true, errType: new(*NotRegularFileError), errMsg: "directory"},
		{name: "symlink inside the repository", path: "in/.claude/settings.json", max: 1 << 20, exists: true, errType: new(*SymlinkError), errMsg: "(inside the repository)"},
		{name: "symlink leaving the repository", path: "out/.claude/settings.json", max: 1 << 20, exists: true, errType: new(*SymlinkError), errMsg: "(outside the repository)"},
		{name: "symlinked directory inside the repository", path: "rel/up/.claude/settings.json", max: 1 << 20, exists: true, errType: new(*SymlinkError), errMsg: "lies under rel/up/.claude"},
		{name: "through a symlinked directory", path: "dirlink/outside.json", max: 1 << 20, exists: true, errType: new(*SymlinkError), errMsg: "outside the repository"},
		{name: "inside a submodule", path: "sub/.claude/settings.json", max: 1 << 20, exists: true, errType: new(*NotRegularFileError), errMsg: "submodule"},
		{name: "escaping path", path: "../outside.json", max: 1 << 20, errMsg: "inside the repository"},
		{name: ".git", path: ".git/HEAD", max: 1 << 20, errMsg: ".git"},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name, path string
			max        int64
			data       string
			exists     bool
			errType    any
			errMsg     string
		}{name: "quote and newline", path: weirdName + "/.mcp.json", max: 1 << 20, data: `{"weird":true}`, exists: true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, exists, err := r.ReadWorking(tt.path, tt.max)
			checkRead(t, data, exists, err, tt.data, tt.exists, tt.errType, tt.errMsg)
		})
	}
}
