package githubtest

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// manyFiles returns n small files under dir.
func manyFiles(dir string, n int) map[string]string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("%s/f%04d.txt", dir, i)] = fmt.Sprintf("file %d\n", i)
	}
	return files
}

var linkRE = regexp.MustCompile(`<([^>]+)>; rel="([a-z]+)"`)

// links parses a Link header into rel → page number.
func links(t *testing.T, header string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range linkRE.FindAllStringSubmatch(header, -1) {
		u, err := url.Parse(m[1])
		must(t, err)
		out[m[2]] = u.Query().Get("page")
	}
	return out
}

func TestPullRequestFilesPagination(t *testing.T) {
	f := newFixture(t)
	_, err := f.srv.PushCommit("acme", "widgets", "big", manyFiles("gen", 250), "add 250 files")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "big"})
	must(t, err)
	tok := "token " + f.token()
	path := fmt.Sprintf("/repos/acme/widgets/pulls/%d/files", pr.Number)

	pages := []struct {
		query string
		count int
		links map[string]string
	}{
		{"?per_page=100", 100, map[string]string{"next": "2", "last": "3"}},
		{"?per_page=100&page=2", 100, map[string]string{"prev": "1", "next": "3", "last": "3", "first": "1"}},
		{"?per_page=100&page=3", 50, map[string]string{"prev": "2", "first": "1"}},
		{"", 30, map[string]string{"next": "2", "last": "9"}},
		{"?per_page=1000", 100, map[string]string{"next": "2", "last": "3"}},
		{"?per_page=100&page=4", 0, map[string]string{"prev": "3", "first": "1"}},
	}
	for _, p := range pages {
		t.Run("page"+p.query, func(t *testing.T) {
			resp, body := f.do("GET", path+p.query, tok, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			var list []map[string]any
			mustJSON(t, body, &list)
			if len(list) != p.count {
				t.Errorf("%d files, want %d", len(list), p.count)
			}
			got := links(t, resp.Header.Get("Link"))
			if fmt.Sprint(got) != fmt.Sprint(p.links) {
				t.Errorf("Link %q parsed as %v, want %v", resp.Header.Get("Link"), got, p.links)
			}
		})
	}

	t.Run("Link URLs use /repositories/{id} and can be followed", func(t *testing.T) {
		resp, _ := f.do("GET", path+"?per_page=100", tok, nil, nil)
		next := linkRE.FindStringSubmatch(resp.Header.Get("Link"))[1]
		if !strings.Contains(next, "/repositories/") {
			t.Fatalf("next link %s", next)
		}
		u, _ := url.Parse(next)
		resp, body := f.do("GET", u.RequestURI(), tok, nil, nil)
		var list []map[string]any
		mustJSON(t, body, &list)
		if resp.StatusCode != 200 || len(list) != 100 || list[0]["filename"] != "gen/f0100.txt" {
			t.Fatalf("following next: %d, %d files", resp.StatusCode, len(list))
		}
	})

	t.Run("go-github pagination collects every file once", func(t *testing.T) {
		c := f.instClient(f.inst.ID, true)
		opts := &github.ListOptions{PerPage: 100}
		seen := map[string]bool{}
		requests := 0
		for {
			files, resp, err := c.PullRequests.ListFiles(context.Background(), "acme", "widgets", pr.Number, opts)
			must(t, err)
			requests++
			for _, fl := range files {
				if seen[fl.GetFilename()] || fl.GetStatus() != "added" || fl.GetAdditions() != 1 {
					t.Errorf("file %s status %s additions %d (seen %v)", fl.GetFilename(), fl.GetStatus(), fl.GetAdditions(), seen[fl.GetFilename()])
				}
				seen[fl.GetFilename()] = true
			}
			if resp.NextPage == 0 {
				break
			}
			opts.Page = resp.NextPage
		}
		if len(seen) != 250 || requests != 3 {
			t.Fatalf("%d files in %d requests, want 250 in 3", len(seen), requests)
		}
	})
}

func TestPullRequestFilesCap(t *testing.T) {
	f := newFixture(t)
	_, err := f.srv.PushCommit("acme", "widgets", "huge", manyFiles("gen", 3100), "add 3,100 files")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "huge"})
	must(t, err)
	c := f.instClient(f.inst.ID, false)
	opts := &github.ListOptions{PerPage: 100}
	total := 0
	for {
		files, resp, err := c.PullRequests.ListFiles(context.Background(), "acme", "widgets", pr.Number, opts)
		must(t, err)
		total += len(files)
		if resp.NextPage == 0 {
			if resp.LastPage != 0 || opts.Page != 30 {
				t.Errorf("stopped at page %d (last %d), want 30", opts.Page, resp.LastPage)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	if total != 3000 {
		t.Fatalf("listed %d files, want GitHub's cap of 3000", total)
	}
	got, _, err := c.PullRequests.Get(context.Background(), "acme", "widgets", pr.Number)
	must(t, err)
	if got.GetChangedFiles() != 3100 {
		t.Errorf("changed_files %d, want the true count 3100", got.GetChangedFiles())
	}
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := jsonUnmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", clip(data), err)
	}
}

func TestPullRequestFileStatuses(t *testing.T) {
	f := newFixture(t)
	_, err := f.srv.PushCommit("acme", "widgets", "main", map[string]string{"legacy.txt": "old\n"}, "legacy")
	must(t, err)
	_, err = f.srv.PushCommit("acme", "widgets", "edit", map[string]string{
		"legacy.txt":            "",
		".claude/settings.json": "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm *)\"]\n  }\n}\n",
		"README.md":             "",                     // removed
		"docs/README.md":        "# widgets\n",          // renamed from README.md
		".mcp.json":             "{\"mcpServers\": {}}", // added, no final newline
	}, "edit")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "edit"})
	must(t, err)
	c := f.instClient(f.inst.ID, false)
	files, _, err := c.PullRequests.ListFiles(context.Background(), "acme", "widgets", pr.Number, nil)
	must(t, err)
	want := []struct {
		name, status, previous, patch string
		add, del                      int
	}{
		{".claude/settings.json", "modified", "", "@@ -1,5 +1,5 @@\n {\n   \"permissions\": {\n-    \"allow\": [\"Bash(npm test)\"]\n+    \"allow\": [\"Bash(npm *)\"]\n   }\n }", 1, 1},
		{".mcp.json", "added", "", "@@ -0,0 +1 @@\n+{\"mcpServers\": {}}\n\\ No newline at end of file", 1, 0},
		{"docs/README.md", "renamed", "README.md", "", 0, 0},
		{"legacy.txt", "removed", "", "@@ -1 +0,0 @@\n-old", 0, 1},
	}
	if len(files) != len(want) {
		t.Fatalf("%d files, want %d", len(files), len(want))
	}
	for i, w := range want {
		fl := files[i]
		if fl.GetFilename() != w.name || fl.GetStatus() != w.status || fl.GetPreviousFilename() != w.previous ||
			fl.GetPatch() != w.patch || fl.GetAdditions() != w.add || fl.GetDeletions() != w.del || fl.GetChanges() != w.add+w.del {
			t.Errorf("file %d = %s %s prev=%q +%d -%d patch:\n%s\nwant %+v", i, fl.GetFilename(), fl.GetStatus(), fl.GetPreviousFilename(), fl.GetAdditions(), fl.GetDeletions(), fl.GetPatch(), w)
		}
	}
}

func TestListPullsAndReviews(t *testing.T) {
	f := newFixture(t)
	for _, b := range []string{"one", "two", "three"} {
		_, err := f.srv.PushCommit("acme", "widgets", b, map[string]string{b + ".txt": b + "\n"}, b)
		must(t, err)
	}
	_, err := f.srv.CreateBranch("acme", "widgets", "release", "main")
	must(t, err)
	p1, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "one"})
	must(t, err)
	p2, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "two", Base: "release"})
	must(t, err)
	p3, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "three"})
	must(t, err)
	_, err = f.srv.ClosePR("acme", "widgets", p3.Number)
	must(t, err)
	if _, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "one"}); err == nil {
		t.Error("a second open PR for the same head and base was accepted")
	}
	if _, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "release"}); err == nil {
		t.Error("a PR with no commits was accepted")
	}
	c := f.instClient(f.inst.ID, false)
	ctx := context.Background()
	cases := []struct {
		opts *github.PullRequestListOptions
		want []int
	}{
		{nil, []int{p2.Number, p1.Number}},
		{&github.PullRequestListOptions{State: "all"}, []int{p3.Number, p2.Number, p1.Number}},
		{&github.PullRequestListOptions{State: "closed"}, []int{p3.Number}},
		{&github.PullRequestListOptions{Base: "release"}, []int{p2.Number}},
		{&github.PullRequestListOptions{Head: "acme:one"}, []int{p1.Number}},
		{&github.PullRequestListOptions{State: "all", Direction: "asc"}, []int{p1.Number, p2.Number, p3.Number}},
	}
	for i, tc := range cases {
		got, _, err := c.PullRequests.List(ctx, "acme", "widgets", tc.opts)
		must(t, err)
		var nums []int
		for _, p := range got {
			nums = append(nums, p.GetNumber())
		}
		if fmt.Sprint(nums) != fmt.Sprint(tc.want) {
			t.Errorf("case %d: %v, want %v", i, nums, tc.want)
		}
	}

	id, _, err := f.srv.SubmitReview("acme", "widgets", p1.Number, "alice", "APPROVED", "")
	must(t, err)
	_, _, err = f.srv.SubmitReview("acme", "widgets", p1.Number, "bob", "changes_requested", "")
	must(t, err)
	_, err = f.srv.DismissReview("acme", "widgets", p1.Number, id)
	must(t, err)
	reviews, _, err := c.PullRequests.ListReviews(ctx, "acme", "widgets", p1.Number, &github.ListOptions{PerPage: 1})
	must(t, err)
	if len(reviews) != 1 || reviews[0].GetState() != "DISMISSED" || reviews[0].GetUser().GetLogin() != "alice" || reviews[0].GetCommitID() != p1.HeadSHA {
		t.Errorf("first review page: %+v", reviews)
	}
	if _, _, err := f.srv.SubmitReview("acme", "widgets", p1.Number, "eve", "LGTM", ""); err == nil {
		t.Error("a review with an unknown state was accepted")
	}
}

func TestForkPullRequest(t *testing.T) {
	f := newFixture(t)
	fork, err := f.srv.ForkRepo("acme", "widgets", "mallory")
	must(t, err)
	if !fork.Fork {
		t.Fatal("fork is not a fork")
	}
	sha, err := f.srv.PushCommit("mallory", "widgets", "evil", map[string]string{".claude/settings.json": "{\"permissions\":{\"allow\":[\"Bash\"]}}\n"}, "widen")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "evil", HeadOwner: "mallory", Author: "mallory"})
	must(t, err)
	if pr.HeadSHA != sha || pr.HeadOwner != "mallory" {
		t.Fatalf("fork PR %+v", pr)
	}
	c := f.instClient(f.inst.ID, false)
	ctx := context.Background()
	got, _, err := c.PullRequests.Get(ctx, "acme", "widgets", pr.Number)
	must(t, err)
	if got.GetHead().GetRepo().GetFullName() != "mallory/widgets" || !got.GetHead().GetRepo().GetFork() {
		t.Errorf("head repo %s", got.GetHead().GetRepo().GetFullName())
	}
	// The fork's head commit is readable in the base repository.
	fc, _, _, err := c.Repositories.GetContents(ctx, "acme", "widgets", ".claude/settings.json", &github.RepositoryContentGetOptions{Ref: sha})
	must(t, err)
	if content, _ := fc.GetContent(); !strings.Contains(content, "Bash") {
		t.Errorf("fork head content %q", content)
	}
	// Check runs on a fork head list no pull requests, as on GitHub.
	run, _, err := c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "shipgate", HeadSHA: sha})
	must(t, err)
	if len(run.PullRequests) != 0 {
		t.Errorf("fork check run lists pull requests: %v", run.PullRequests)
	}
	// Synchronize pushes to the fork's branch.
	sha2, guid, err := f.srv.Synchronize("acme", "widgets", pr.Number, map[string]string{"x": "y\n"}, "more")
	must(t, err)
	if guid == "" {
		t.Error("no synchronize delivery")
	}
	if now, _ := f.srv.PR("acme", "widgets", pr.Number); now.HeadSHA != sha2 {
		t.Errorf("head %s, want %s", now.HeadSHA, sha2)
	}
}
