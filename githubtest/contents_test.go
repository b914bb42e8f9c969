package githubtest

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

func TestContents(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("x", maxJSONContent+1)
	exact := strings.Repeat("y", maxJSONContent)
	sha, err := f.srv.PushCommit("acme", "widgets", "main", map[string]string{"big.bin": big, "exact.bin": exact, "dir/sub/deep.txt": "deep\n"}, "big files")
	must(t, err)
	tok := "token " + f.token()
	settings := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test)\"]\n  }\n}\n"
	raw := map[string]string{"Accept": "application/vnd.github.raw"}

	cases := []struct {
		name    string
		path    string
		header  map[string]string
		status  int
		check   func(t *testing.T, body []byte, ctype string)
		message string
	}{
		{name: "file as base64 JSON", path: "/repos/acme/widgets/contents/.claude/settings.json", status: 200, check: func(t *testing.T, body []byte, _ string) {
			m := decode(t, body)
			if m["encoding"] != "base64" || m["type"] != "file" || m["size"] != float64(len(settings)) || m["sha"] != blobSHA(settings) {
				t.Errorf("file JSON %s", body)
			}
			content := m["content"].(string)
			for _, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
				if len(line) > 60 {
					t.Errorf("base64 line of %d characters; GitHub wraps at 60", len(line))
				}
			}
			dec, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(content, "\n", ""))
			if err != nil || string(dec) != settings {
				t.Errorf("decoded %q, %v", dec, err)
			}
		}},
		{name: "file by ref=SHA", path: "/repos/acme/widgets/contents/dir/sub/deep.txt?ref=" + sha, status: 200},
		{name: "file by short SHA", path: "/repos/acme/widgets/contents/dir/sub/deep.txt?ref=" + sha[:7], status: 200},
		{name: "file by refs/heads/", path: "/repos/acme/widgets/contents/dir/sub/deep.txt?ref=refs/heads/main", status: 200},
		{name: "raw media type", path: "/repos/acme/widgets/contents/.claude/settings.json", header: raw, status: 200, check: func(t *testing.T, body []byte, ctype string) {
			if string(body) != settings || !strings.HasPrefix(ctype, "application/vnd.github.raw") {
				t.Errorf("raw body %q type %q", body, ctype)
			}
		}},
		{name: "raw+json media type", path: "/repos/acme/widgets/contents/big.bin", header: map[string]string{"Accept": "application/vnd.github.raw+json"}, status: 200, check: func(t *testing.T, body []byte, _ string) {
			if len(body) != len(big) {
				t.Errorf("raw body of %d bytes, want %d", len(body), len(big))
			}
		}},
		{name: "exactly 1 MB still has content", path: "/repos/acme/widgets/contents/exact.bin", status: 200, check: func(t *testing.T, body []byte, _ string) {
			if m := decode(t, body); m["encoding"] != "base64" || m["content"] == "" {
				t.Errorf("1 MB file: encoding %v", m["encoding"])
			}
		}},
		{name: "over 1 MB as JSON: empty content, encoding none", path: "/repos/acme/widgets/contents/big.bin", status: 200, check: func(t *testing.T, body []byte, _ string) {
			m := decode(t, body)
			if m["encoding"] != "none" || m["content"] != "" || m["size"] != float64(len(big)) {
				t.Errorf("big file JSON: encoding %v content %d bytes size %v", m["encoding"], len(m["content"].(string)), m["size"])
			}
		}},
		{name: "directory listing", path: "/repos/acme/widgets/contents/dir", status: 200, check: func(t *testing.T, body []byte, _ string) {
			var list []map[string]any
			mustJSON(t, body, &list)
			if len(list) != 1 || list[0]["type"] != "dir" || list[0]["name"] != "sub" || list[0]["path"] != "dir/sub" {
				t.Errorf("listing %s", body)
			}
		}},
		{name: "root listing", path: "/repos/acme/widgets/contents/", status: 200},
		{name: "root listing without a slash", path: "/repos/acme/widgets/contents", status: 200},
		{name: "directory with the object media type", path: "/repos/acme/widgets/contents/dir/sub", header: map[string]string{"Accept": "application/vnd.github.object+json"}, status: 200, check: func(t *testing.T, body []byte, _ string) {
			m := decode(t, body)
			if m["type"] != "dir" || len(m["entries"].([]any)) != 1 {
				t.Errorf("object listing %s", body)
			}
		}},
		{name: "missing path", path: "/repos/acme/widgets/contents/nope.json", status: 404, message: "Not Found"},
		{name: "missing path under a file", path: "/repos/acme/widgets/contents/README.md/x", status: 404, message: "Not Found"},
		{name: "missing ref", path: "/repos/acme/widgets/contents/README.md?ref=no-such-branch", status: 404, message: "No commit found for the ref no-such-branch"},
		{name: "unknown SHA", path: "/repos/acme/widgets/contents/README.md?ref=" + strings.Repeat("a", 40), status: 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.do("GET", tc.path, tok, nil, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, clip(body))
			}
			if tc.message != "" {
				m := decode(t, body)
				if m["message"] != tc.message || !strings.HasPrefix(m["documentation_url"].(string), "https://docs.github.com/") {
					t.Errorf("error body %s", body)
				}
			}
			if tc.check != nil {
				tc.check(t, body, resp.Header.Get("Content-Type"))
			}
		})
	}

	t.Run("go-github GetContents and a directory", func(t *testing.T) {
		c := f.instClient(f.inst.ID, false)
		file, dir, _, err := c.Repositories.GetContents(context.Background(), "acme", "widgets", "dir/sub", nil)
		must(t, err)
		if file != nil || len(dir) != 1 || dir[0].GetName() != "deep.txt" {
			t.Errorf("dir listing: file %v, %d entries", file, len(dir))
		}
		file, _, _, err = c.Repositories.GetContents(context.Background(), "acme", "widgets", "big.bin", nil)
		must(t, err)
		if _, err := file.GetContent(); err == nil {
			t.Error("go-github decoded a >1 MB file's empty content; GitHub's encoding \"none\" makes it fail")
		}
	})

	t.Run("empty repository", func(t *testing.T) {
		createRepo(t, f.srv, RepoOptions{Owner: "acme", Name: "empty", Private: false})
		resp, body := f.do("GET", "/repos/acme/empty/contents/x", tok, nil, nil)
		if resp.StatusCode != 404 || decode(t, body)["message"] != "This repository is empty." {
			t.Errorf("empty repo: %d %s", resp.StatusCode, body)
		}
	})
}
