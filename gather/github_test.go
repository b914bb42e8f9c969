package gather

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-github/v62/github"
)

// ghStub answers the GitHub reads of one pull request: the base tree, the
// files, contents at the head (a symlink GitHub follows, one it does not,
// a submodule, a folder, a large file) and the blobs of link texts.
func ghStub(t *testing.T, calls *atomic.Int32) *github.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		js := func(v any) { w.Header().Set("Content-Type", "application/json"); _ = json.NewEncoder(w).Encode(v) }
		file := func(p, sha, c string) map[string]any {
			return map[string]any{"type": "file", "path": p, "sha": sha, "size": len(c), "encoding": "base64", "content": base64.StdEncoding.EncodeToString([]byte(c))}
		}
		p, ref := r.URL.Path, r.URL.Query().Get("ref")
		switch {
		case p == "/repos/o/r/git/trees/base":
			js(map[string]any{"tree": []map[string]any{
				{"path": ".claude", "mode": "040000", "type": "tree", "sha": "t1"},
				{"path": ".claude/settings.json", "mode": "100644", "type": "blob", "sha": "s-base", "size": 2},
				{"path": "big.json", "mode": "100644", "type": "blob", "sha": "s-big", "size": 5 << 20},
				{"path": "sub", "mode": "160000", "type": "commit", "sha": "c-sub"},
				{"path": "link", "mode": "120000", "type": "blob", "sha": "b-link", "size": 6},
			}, "truncated": false})
		case p == "/repos/o/r/pulls/1/files":
			js([]map[string]any{
				{"filename": "followed.json", "status": "added", "sha": "b-followed"},
				{"filename": "out.json", "status": "added", "sha": "b-out"},
				{"filename": ".claude/settings.json", "status": "modified", "sha": "s-head"},
				{"filename": "dir", "status": "added", "sha": "x"},
				{"filename": "gone", "status": "modified", "sha": "x"},
				{"filename": "unreadable", "status": "modified", "sha": "x"},
				{"filename": "boom", "status": "modified", "sha": "x"},
			})
		case p == "/repos/o/r/git/blobs/b-link", p == "/repos/o/r/git/blobs/b-followed":
			_, _ = w.Write([]byte("target"))
		case p == "/repos/o/r/contents/followed.json" && ref == "head":
			js(file("target", "s-target", "{}")) // GitHub followed the link: another path, another blob
		case p == "/repos/o/r/contents/out.json" && ref == "head":
			js(map[string]any{"type": "symlink", "path": "out.json", "target": "/etc/x", "sha": "b-out"})
		case p == "/repos/o/r/contents/.claude/settings.json" && ref == "head":
			js(file(".claude/settings.json", "s-head", `{"a":1}`))
		case p == "/repos/o/r/contents/.claude/settings.json" && ref == "base":
			_, _ = w.Write([]byte("{}"))
		case p == "/repos/o/r/contents/dir" && ref == "head":
			js([]any{map[string]any{"type": "file", "path": "dir/x"}})
		case p == "/repos/o/r/contents/gone" && ref == "head":
			w.WriteHeader(http.StatusNotFound)
			js(map[string]any{"message": "Not Found"})
		case p == "/repos/o/r/contents/unreadable" && ref == "head":
			w.WriteHeader(http.StatusNotFound)
			js(map[string]any{"message": "No commit found for the ref head"})
		default:
			w.WriteHeader(http.StatusBadGateway)
			js(map[string]any{"message": "Bad Gateway"})
		}
	}))
	t.Cleanup(srv.Close)
	cl := github.NewClient(srv.Client())
	u, _ := url.Parse(srv.URL + "/")
	cl.BaseURL = u
	return cl
}

func TestGitHubSource(t *testing.T) {
	var calls atomic.Int32
	g := &GitHub{Client: ghStub(t, &calls), Owner: "o", Repo: "r", PR: 1, BaseSHA: "base", HeadSHA: "head", Cache: NewCache(1 << 20)}
	ctx := t.Context()
	es, complete, err := g.ListBase(ctx)
	if err != nil || !complete || len(es) != 4 {
		t.Fatalf("ListBase: %d entries, complete %v, %v", len(es), complete, err)
	}
	if _, _, err := g.Changed(ctx, Selector{}); err != nil {
		t.Fatal(err)
	}
	base, head := g.Base(), g.Head()
	for _, c := range []struct {
		rev  Revision
		path string
		want Entry
		err  string
	}{
		{base, "big.json", Entry{Path: "big.json", Kind: File, TooLarge: true}, ""},
		{base, "sub", Entry{Path: "sub", Kind: Submodule, Commit: "c-sub"}, ""},
		{base, "link", Entry{Path: "link", Kind: Symlink, Target: "target"}, ""},
		{base, ".claude/settings.json", Entry{Path: ".claude/settings.json", Kind: File, Data: []byte("{}")}, ""},
		{head, ".claude/settings.json", Entry{Path: ".claude/settings.json", Kind: File, Data: []byte(`{"a":1}`)}, ""},
		{head, "followed.json", Entry{Path: "followed.json", Kind: Symlink, Target: "target"}, ""},
		{head, "out.json", Entry{Path: "out.json", Kind: Symlink, Target: "/etc/x"}, ""},
		{head, "dir", Entry{Path: "dir", Kind: Dir}, ""},
		{head, "gone", Entry{Path: "gone", Kind: Missing}, ""},
		{head, "unreadable", Entry{}, "No commit found"},
		{head, "boom", Entry{}, "502"},
		// Untouched by the pull request: the head has the base's version.
		{head, "sub", Entry{Path: "sub", Kind: Submodule, Commit: "c-sub"}, ""},
	} {
		got, err := c.rev.Read(ctx, c.path)
		if c.err != "" {
			var re *ReadError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Read(%s): %v, want a ReadError with %q", c.path, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Read(%s): %v", c.path, err)
			continue
		}
		if got.Path != c.want.Path || got.Kind != c.want.Kind || got.Target != c.want.Target || got.Commit != c.want.Commit ||
			got.TooLarge != c.want.TooLarge || string(got.Data) != string(c.want.Data) {
			t.Errorf("Read(%s) = %+v, want %+v", c.path, got, c.want)
		}
	}
	// What a SHA names is cached: the same reads again cost nothing.
	before := calls.Load()
	if _, _, err := g.ListBase(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := base.Read(ctx, ".claude/settings.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := head.Read(ctx, ".claude/settings.json"); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load() - before; n != 0 {
		t.Errorf("%d calls for cached reads", n)
	}
}

// TestGitHubBudget: past its call budget a gather fails, saying why.
func TestGitHubBudget(t *testing.T) {
	var calls atomic.Int32
	g := &GitHub{Client: ghStub(t, &calls), Owner: "o", Repo: "r", PR: 1, BaseSHA: "base", HeadSHA: "head", Budget: 2}
	_, err := Gather(t.Context(), g, Options{})
	if err == nil || !strings.Contains(err.Error(), "more than 2 GitHub API calls") {
		t.Fatalf("err %v, want the budget's", err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d calls made, budget 2", n)
	}
}

func TestPatchLink(t *testing.T) {
	nl := "\n\\ No newline at end of file"
	cases := []struct {
		name      string
		patch     string
		additions int
		target    string
		ok        bool
	}{
		{"a new symlink", "@@ -0,0 +1 @@\n+vendor/x" + nl, 1, "vendor/x", true},
		{"a retargeted symlink", "@@ -1 +1 @@\n-vendor/a" + nl + "\n+vendor/b" + nl, 1, "vendor/b", true},
		{"a one-line file with a newline", "@@ -0,0 +1 @@\n+hello", 1, "", false},
		{"two lines added", "@@ -0,0 +1,2 @@\n+a\n+b" + nl, 2, "", false},
		{"a line removed only", "@@ -1 +0,0 @@\n-a" + nl, 0, "", false},
		{"no patch", "", 1, "", false},
		{"an empty added line", "@@ -0,0 +1 @@\n+" + nl, 1, "", false},
	}
	for _, c := range cases {
		patch, adds := c.patch, c.additions
		f := &github.CommitFile{Patch: &patch, Additions: &adds}
		got, ok := patchLink(f)
		if got != c.target || ok != c.ok {
			t.Errorf("%s: patchLink = %q, %v; want %q, %v", c.name, got, ok, c.target, c.ok)
		}
	}
}

// FuzzPatchLink: patchLink never panics, and a target it finds is one
// added line of the patch, without its newline.
func FuzzPatchLink(f *testing.F) {
	f.Add("@@ -0,0 +1 @@\n+vendor/x\n\\ No newline at end of file", 1)
	f.Add("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file", 1)
	f.Fuzz(func(t *testing.T, patch string, additions int) {
		target, ok := patchLink(&github.CommitFile{Patch: &patch, Additions: &additions})
		if !ok {
			return
		}
		if target == "" || strings.Contains(target, "\n") || !strings.Contains(patch, "\n+"+target+"\n") && !strings.HasPrefix(patch, "+"+target+"\n") {
			t.Fatalf("patchLink(%q) = %q", patch, target)
		}
	})
}
