package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadIndex: the staged version of a path, with ReadAt's rules.
func TestReadIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	initRepo(t, dir)
	writeFile(t, dir, "a.json", "committed")
	writeFile(t, dir, "big.json", strings.Repeat("x", 100))
	commitAll(t, dir, "base")
	writeFile(t, dir, "a.json", "staged")
	gitT(t, dir, "add", "a.json")
	writeFile(t, dir, "a.json", "unstaged")
	writeFile(t, dir, "untracked.json", "u")
	if err := os.Symlink("a.json", filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ld"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../elsewhere", filepath.Join(dir, "ld", "sub")); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "add", "link.json", "ld/sub")
	r := mustOpen(t, dir)

	cases := []struct {
		path    string
		data    string
		exists  bool
		errType any
	}{
		{"a.json", "staged", true, nil},
		{"untracked.json", "", false, nil},
		{"missing.json", "", false, nil},
		{"big.json", "", true, &TooLargeError{}},
		{"link.json", "", true, &SymlinkError{}},
		{"ld/sub/settings.json", "", true, &SymlinkError{}},
	}
	for _, c := range cases {
		data, exists, err := r.ReadIndex(ctx, c.path, 50)
		if string(data) != c.data || exists != c.exists {
			t.Errorf("%s: %q %v %v, want %q %v", c.path, data, exists, err, c.data, c.exists)
		}
		switch c.errType.(type) {
		case nil:
			if err != nil {
				t.Errorf("%s: %v", c.path, err)
			}
		case *TooLargeError:
			var e *TooLargeError
			if !errors.As(err, &e) || e.Size != 100 {
				t.Errorf("%s: %v, want TooLargeError of 100 bytes", c.path, err)
			}
		case *SymlinkError:
			var e *SymlinkError
			if !errors.As(err, &e) {
				t.Errorf("%s: %v, want SymlinkError", c.path, err)
			}
		}
	}
	if _, _, err := r.ReadIndex(ctx, "../x", 50); err == nil {
		t.Error("a path leaving the repository was read")
	}

	// Staged changes: the staged edit and the new link, not the untracked file.
	head, ok, err := r.Head(ctx)
	if err != nil || !ok || len(head) < 40 {
		t.Fatalf("Head: %q %v %v", head, ok, err)
	}
	cs, err := r.ChangedStaged(ctx, head, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Path+":"+string(c.Status))
	}
	if strings.Join(got, " ") != "a.json:modified ld/sub:added link.json:added" {
		t.Errorf("ChangedStaged: %v", got)
	}
}

// TestReadIndexConflict: a path with unresolved merge conflicts is an
// error naming it, not one side of the conflict.
func TestReadIndexConflict(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	initRepo(t, dir)
	writeFile(t, dir, "s.json", "base")
	commitAll(t, dir, "base")
	gitT(t, dir, "checkout", "-q", "-b", "other")
	writeFile(t, dir, "s.json", "other")
	commitAll(t, dir, "other")
	gitT(t, dir, "checkout", "-q", "-")
	writeFile(t, dir, "s.json", "mine")
	commitAll(t, dir, "mine")
	gitMayFail(dir, "merge", "-q", "other")
	_, _, err := mustOpen(t, dir).ReadIndex(ctx, "s.json", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "unresolved merge conflicts") {
		t.Errorf("conflicted: %v", err)
	}
}

// TestHeadUnborn: before the first commit HEAD names nothing.
func TestHeadUnborn(t *testing.T) {
	dir := t.TempDir()
	initRepo(t, dir)
	writeFile(t, dir, "s.json", "x")
	gitT(t, dir, "add", "s.json")
	r := mustOpen(t, dir)
	if sha, ok, err := r.Head(context.Background()); ok || sha != "" || err != nil {
		t.Errorf("unborn Head = %q %v %v", sha, ok, err)
	}
	cs, err := r.ChangedStaged(context.Background(), "", nil, nil)
	if err != nil || len(cs) != 1 || cs[0].Status != StatusAdded {
		t.Errorf("first commit: %+v %v", cs, err)
	}
}

// gitMayFail runs git where failing is the point (a merge that conflicts).
func gitMayFail(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	_ = cmd.Run()
}
