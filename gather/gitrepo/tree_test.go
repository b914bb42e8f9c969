package gitrepo

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestListTree(t *testing.T) {
	t.Parallel()
	dir := initRepo(t, filepath.Join(t.TempDir(), "tree"))
	writeFile(t, dir, "shared/settings.json", "{}")
	writeFile(t, dir, "README.md", "# r\n")
	writeFile(t, dir, "run.sh", "#!/bin/sh\n")
	mustSymlink(t, "../shared/settings.json", filepath.Join(dir, ".claude", "settings.json"))
	mustSymlink(t, "/etc", filepath.Join(dir, "out"))
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "update-index", "--chmod=+x", "run.sh")
	gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",sub")
	gitT(t, dir, "commit", "-q", "-m", "tree")
	r := mustOpen(t, dir)

	all, err := r.ListTree(t.Context(), "HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TreeEntry{}
	for _, e := range all {
		e.Oid = ""
		got[e.Path] = e
	}
	want := map[string]TreeEntry{
		".claude/settings.json": {Path: ".claude/settings.json", Kind: EntrySymlink, Size: int64(len("../shared/settings.json"))},
		"README.md":             {Path: "README.md", Kind: EntryFile, Size: 4},
		"out":                   {Path: "out", Kind: EntrySymlink, Size: 4},
		"run.sh":                {Path: "run.sh", Kind: EntryFile, Size: 10},
		"shared/settings.json":  {Path: "shared/settings.json", Kind: EntryFile, Size: 2},
		"sub":                   {Path: "sub", Kind: EntrySubmodule, Size: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListTree:\n got %+v\nwant %+v", got, want)
	}

	some, err := r.ListTree(t.Context(), "HEAD", func(p string) bool { return strings.HasPrefix(p, ".claude/") })
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != 1 || some[0].Path != ".claude/settings.json" {
		t.Errorf("filtered ListTree: %+v", some)
	}
	if _, err := r.ListTree(t.Context(), "no-such-rev", nil); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("unknown rev: %v", err)
	}
	if _, err := r.ListTree(t.Context(), "-x", nil); err == nil {
		t.Error("an option-like rev was accepted")
	}
}

func TestIndexSubmodule(t *testing.T) {
	t.Parallel()
	dir := initRepo(t, filepath.Join(t.TempDir(), "index"))
	writeFile(t, dir, "README.md", "# r\n")
	sha := strings.Repeat("cd", 20)
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sha+",.claude")
	r := mustOpen(t, dir)
	for _, c := range []struct {
		path   string
		commit string
		ok     bool
	}{{".claude", sha, true}, {"README.md", "", false}, {"absent", "", false}} {
		commit, ok, err := r.IndexSubmodule(t.Context(), c.path)
		if err != nil || ok != c.ok || commit != c.commit {
			t.Errorf("IndexSubmodule(%s) = %q, %v, %v; want %q, %v", c.path, commit, ok, err, c.commit, c.ok)
		}
	}
	if _, _, err := r.IndexSubmodule(t.Context(), "../x"); err == nil {
		t.Error("an escaping path was accepted")
	}
}
