package githubtest

import (
	"strings"
	"testing"
	"time"
)

// TestGitObjectSHAs pins the fake's SHAs to git's: the values were made
// with git itself (same files, message, author and date 1700000000).
func TestGitObjectSHAs(t *testing.T) {
	files := map[string]string{"README": "hello\n", ".claude/settings.json": "{\"permissions\":{}}\n"}
	c := newCommit(files, "", "Initial commit", &account{login: "shipgate-dev"}, time.Now())
	if c.sha != "3ddf9c7a434fa378495c1ec059e011e5b87716ce" || c.tree != "ac21872c2f55337fdf01bf8b5e8d3eea2837f90f" ||
		c.dirs[".claude"] != "9d71625127cf2cdf32ca982d0422ac32f01af9cd" || blobSHA("hello\n") != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("commit %s tree %s .claude %s", c.sha, c.tree, c.dirs[".claude"])
	}
	if got := treeSHAs(nil)[""]; got != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("empty tree %s", got)
	}
	// The same push twice gives the same SHA: SHAs depend only on content.
	a := New(Options{})
	defer a.Close()
	b := New(Options{})
	defer b.Close()
	for _, s := range []*Server{a, b} {
		_, err := s.CreateRepo(RepoOptions{Owner: "o", Name: "r", Files: files})
		must(t, err)
	}
	sa, _ := a.PushCommit("o", "r", "x", map[string]string{"a": "1\n"}, "m")
	sb, _ := b.PushCommit("o", "r", "x", map[string]string{"a": "1\n"}, "m")
	if sa != sb || len(sa) != 40 {
		t.Errorf("SHAs %s and %s differ", sa, sb)
	}
}

func TestApplyChanges(t *testing.T) {
	base := map[string]string{"a/b": "1", "c": "2"}
	cases := []struct {
		name    string
		changes map[string]string
		want    string
		err     bool
	}{
		{"add and modify", map[string]string{"d": "4", "c": "3"}, "a/b=1 c=3 d=4", false},
		{"empty string deletes", map[string]string{"c": ""}, "a/b=1", false},
		{"leading slash is cleaned", map[string]string{"/e": "5"}, "a/b=1 c=2 e=5", false},
		{"file over a directory", map[string]string{"a": "x"}, "", true},
		{"directory over a file", map[string]string{"c/d": "x"}, "", true},
		{"dot-dot", map[string]string{"../x": "x"}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyChanges(base, tc.changes)
			if (err != nil) != tc.err {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			var parts []string
			for _, k := range sortedKeys(got) {
				parts = append(parts, k+"="+got[k])
			}
			if strings.Join(parts, " ") != tc.want {
				t.Errorf("got %v, want %s", parts, tc.want)
			}
		})
	}
}

func TestUnifiedPatch(t *testing.T) {
	lines := func(n int, mut map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if v, ok := mut[i]; ok {
				b.WriteString(v)
				continue
			}
			b.WriteString("line " + strings.Repeat("x", i%3) + "\n")
		}
		return b.String()
	}
	cases := []struct {
		name          string
		before, after string
		add, del      int
		hunks         []string
	}{
		{"new file", "", "a\nb\n", 2, 0, []string{"@@ -0,0 +1,2 @@"}},
		{"deleted file", "a\n", "", 0, 1, []string{"@@ -1 +0,0 @@"}},
		{"one change in the middle", lines(20, nil), lines(20, map[int]string{10: "changed\n"}), 1, 1, []string{"@@ -7,7 +7,7 @@"}},
		{"two distant changes make two hunks", lines(40, nil), lines(40, map[int]string{5: "a\n", 35: "b\n"}), 2, 2, []string{"@@ -2,7 +2,7 @@", "@@ -32,7 +32,7 @@"}},
		{"insertion at the end", "a\n", "a\nb\n", 1, 0, []string{"@@ -1 +1,2 @@"}},
		{"missing final newline", "a\nb", "a\nb\n", 1, 1, []string{"@@ -1,2 +1,2 @@"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc := withLineDiff(fileChange{}, tc.before, tc.after)
			if fc.additions != tc.add || fc.deletions != tc.del {
				t.Errorf("+%d -%d, want +%d -%d", fc.additions, fc.deletions, tc.add, tc.del)
			}
			var hunks []string
			for _, l := range strings.Split(fc.patch, "\n") {
				if strings.HasPrefix(l, "@@") {
					hunks = append(hunks, l)
				}
			}
			if strings.Join(hunks, "|") != strings.Join(tc.hunks, "|") {
				t.Errorf("hunks %v, want %v\n%s", hunks, tc.hunks, fc.patch)
			}
		})
	}
}
