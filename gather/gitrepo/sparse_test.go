package gitrepo

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestListTreeLinks: every symlink and submodule is listed whatever its
// name (a link that points an agent-config path elsewhere, a folder link
// with no agent-like name), files only where keep says so, no sizes.
func TestListTreeLinks(t *testing.T) {
	t.Parallel()
	dir := initRepo(t, filepath.Join(t.TempDir(), "links"))
	writeFile(t, dir, "config/claude.json", "{}")
	writeFile(t, dir, "vendor/x/.claude/settings.json", "{}")
	writeFile(t, dir, "src/main.go", "package main\n")
	writeFile(t, dir, "sp ace/tab\there.md", "x")
	mustSymlink(t, "../config/claude.json", filepath.Join(dir, ".claude", "settings.json"))
	mustSymlink(t, "vendor/x", filepath.Join(dir, "pkg"))
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",deps/sub")
	gitT(t, dir, "commit", "-q", "-m", "links")
	r := mustOpen(t, dir)

	es, err := r.ListTreeLinks(t.Context(), "HEAD", func(p string) bool { return strings.Contains(p, ".claude") || strings.HasSuffix(p, ".md") })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]EntryKind{}
	for _, e := range es {
		if e.Size != -1 || len(e.Oid) < 40 {
			t.Errorf("%s: size %d, oid %q; want -1 and an object id", e.Path, e.Size, e.Oid)
		}
		got[e.Path] = e.Kind
	}
	want := map[string]EntryKind{
		".claude/settings.json":          EntrySymlink,
		"pkg":                            EntrySymlink,
		"deps/sub":                       EntrySubmodule,
		"vendor/x/.claude/settings.json": EntryFile,
		"sp ace/tab\there.md":            EntryFile,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListTreeLinks:\n got %v\nwant %v", got, want)
	}
	if _, err := r.ListTreeLinks(t.Context(), "-x", nil); err == nil {
		t.Error("an option-like rev was accepted")
	}
	if _, err := parseTreeLinks("100644 blob abc", nil); err == nil {
		t.Error("a record without a path was accepted")
	}
}

// TestListTreeUnder lists a folder whole (sizes included), and only it:
// not a sibling sharing its prefix, and a name with pathspec glob
// characters literally.
func TestListTreeUnder(t *testing.T) {
	t.Parallel()
	dir := initRepo(t, filepath.Join(t.TempDir(), "under"))
	for _, p := range []string{"shared/claude/settings.json", "shared/claude/agents/rev.md", "shared/claudex/no.md", "g[ab]/x.md", "ga/no.md", "g*/no.md"} {
		writeFile(t, dir, p, "abc")
	}
	mustSymlink(t, "elsewhere", filepath.Join(dir, "shared", "claude", "link"))
	commitAll(t, dir, "under")
	r := mustOpen(t, dir)
	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{"shared/claude", []string{"shared/claude/agents/rev.md", "shared/claude/link", "shared/claude/settings.json"}},
		{"g[ab]", []string{"g[ab]/x.md"}},
		{"none", nil},
	} {
		es, err := r.ListTreeUnder(t.Context(), "HEAD", tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Path)
			if e.Kind == EntryFile && e.Size != 3 {
				t.Errorf("%s: size %d, want 3", e.Path, e.Size)
			}
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ListTreeUnder(%q) = %q, want %q", tc.dir, got, tc.want)
		}
	}
	if _, err := r.ListTreeUnder(t.Context(), "HEAD", "../x"); err == nil {
		t.Error("a path out of the repository was accepted")
	}
}

// TestObjects reads through the two long-lived processes: REV:PATH and
// object ids, a missing name, sizes before content, many reads in a row,
// an object over the bound refused without being read, a cancelled
// context, and Close.
func TestObjects(t *testing.T) {
	t.Parallel()
	dir := initRepo(t, filepath.Join(t.TempDir(), "objects"))
	writeFile(t, dir, "a.json", `{"a":1}`)
	writeFile(t, dir, "empty", "")
	writeFile(t, dir, "sp ace/b.txt", "bee\n")
	writeFile(t, dir, "big", strings.Repeat("x", 5000))
	commitAll(t, dir, "objects")
	r := mustOpen(t, dir)
	o := r.Objects()
	defer o.Close()
	ctx := t.Context()

	for i := 0; i < 50; i++ {
		for _, tc := range []struct{ path, content string }{{"a.json", `{"a":1}`}, {"empty", ""}, {"sp ace/b.txt", "bee\n"}} {
			info, found, err := o.Info(ctx, "HEAD:"+tc.path)
			if err != nil || !found || info.Type != "blob" || info.Size != int64(len(tc.content)) {
				t.Fatalf("Info(%s) = %+v, %v, %v", tc.path, info, found, err)
			}
			data, err := o.Blob(ctx, info.Oid, 100)
			if err != nil || string(data) != tc.content {
				t.Fatalf("Blob(%s) = %q, %v", tc.path, data, err)
			}
		}
	}
	if _, found, err := o.Info(ctx, "HEAD:nope"); found || err != nil {
		t.Errorf("a missing path: found %v, %v", found, err)
	}
	if info, found, err := o.Info(ctx, "HEAD:sp ace"); !found || err != nil || info.Type != "tree" {
		t.Errorf("a folder: %+v %v %v", info, found, err)
	}
	if _, _, err := o.Info(ctx, "HEAD:new\nline"); err == nil {
		t.Error("a name with a newline was sent")
	}
	big, _, _ := o.Info(ctx, "HEAD:big")
	if _, err := o.Blob(ctx, big.Oid, 100); err == nil {
		t.Error("a blob over the bound was read")
	}
	// The reader recovers from the refused read (a new process).
	a, _, _ := o.Info(ctx, "HEAD:a.json")
	if data, err := o.Blob(ctx, a.Oid, 100); err != nil || string(data) != `{"a":1}` {
		t.Errorf("after a refused read: %q, %v", data, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := o.Info(cctx, "HEAD:a.json"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
	o.Close()
	if _, _, err := o.Info(ctx, "HEAD:a.json"); !errors.Is(err, errObjectsClosed) {
		t.Errorf("after Close: %v", err)
	}
}
