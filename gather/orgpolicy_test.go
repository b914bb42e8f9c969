package gather

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/report"
)

// TestReadOrgPolicy: the organisation default read from the default
// branch: a good file, a broken one (errors with positions), an absent
// file or repository (no policy, no error), a directory, a file over the
// limit, and a failing read (an error naming the file).
func TestReadOrgPolicy(t *testing.T) {
	big := strings.Repeat("#", report.MaxFileSize+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("ref") || r.Header.Get("Accept") != "application/vnd.github.raw" {
			http.Error(w, "want the raw default branch", http.StatusTeapot)
			return
		}
		notFound := func() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": "Not Found"})
		}
		switch r.URL.Path {
		case "/repos/good/.github/contents/shipgate.yml":
			_, _ = w.Write([]byte("version: 1\n"))
		case "/repos/broken/.github/contents/shipgate.yml":
			_, _ = w.Write([]byte("version: 1\nnot_a_key: true\n"))
		case "/repos/dir/.github/contents/shipgate.yml":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write([]byte(`[{"type":"file","path":"shipgate.yml/x"}]`))
		case "/repos/big/.github/contents/shipgate.yml":
			_, _ = w.Write([]byte(big))
		case "/repos/nofile/.github/contents/shipgate.yml", "/repos/norepo/.github/contents/shipgate.yml":
			notFound()
		default:
			http.Error(w, "boom", http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	cl := github.NewClient(srv.Client())
	u, _ := url.Parse(srv.URL + "/")
	cl.BaseURL = u

	for _, c := range []struct {
		owner          string
		exists, policy bool
		errSub, err    string
	}{
		{owner: "good", exists: true, policy: true},
		{owner: "broken", exists: true, errSub: "not_a_key"},
		{owner: "dir", exists: true, errSub: "the path is a directory"},
		{owner: "big", exists: true, errSub: "over the"},
		{owner: "nofile"},
		{owner: "norepo"},
		{owner: "down", err: "reading shipgate.yml on the default branch of down/.github"},
	} {
		t.Run(c.owner, func(t *testing.T) {
			op, err := ReadOrgPolicy(context.Background(), cl, c.owner, ".github", "shipgate.yml")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if op.Exists != c.exists || (op.Policy != nil) != c.policy {
				t.Errorf("Exists = %v, Policy = %v; want %v, %v", op.Exists, op.Policy != nil, c.exists, c.policy)
			}
			if c.errSub == "" {
				if len(op.Errs) != 0 {
					t.Errorf("errors %v, want none", op.Errs)
				}
				return
			}
			if len(op.Errs) == 0 || !strings.Contains(op.Errs[0].Error(), c.errSub) || !strings.HasPrefix(op.Errs[0].Path, c.owner+"/.github:shipgate.yml") {
				t.Errorf("errors %v, want one on %s/.github:shipgate.yml containing %q", op.Errs, c.owner, c.errSub)
			}
		})
	}
}
