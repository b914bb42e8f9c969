package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// stubGitHub answers the few REST calls one evaluation makes, from a
// table, and records every request: the worker's gather → judge → publish
// under test without the end-to-end fake or a webhook.
type stubGitHub struct {
	mu    sync.Mutex
	calls []string
	posts []map[string]any
	fail  map[string]int // "METHOD path?ref" → status to answer instead
	base  map[string]string
	head  map[string]string
}

const (
	stubBase = "b000000000000000000000000000000000000000"
	stubHead = "h000000000000000000000000000000000000000"
)

func blobID(c string) string { return fmt.Sprintf("%040x", len(c)*7919+int(c[0])) }

func (s *stubGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("ref")
	key := r.Method + " " + r.URL.Path
	if ref != "" {
		key += "?" + ref
	}
	s.mu.Lock()
	s.calls = append(s.calls, key)
	code := s.fail[key]
	s.mu.Unlock()
	if code != 0 {
		http.Error(w, `{"message":"Bad Gateway"}`, code)
		return
	}
	js := func(v any) { w.Header().Set("Content-Type", "application/json"); _ = json.NewEncoder(w).Encode(v) }
	switch {
	case key == "GET /repos/o/r/pulls/1":
		js(map[string]any{"number": 1, "state": "open", "head": map[string]any{"sha": stubHead}, "base": map[string]any{"sha": stubBase}, "user": map[string]any{"login": "alice"}})
	case key == "GET /repos/o/r/git/trees/"+stubBase:
		var tree []map[string]any
		for p, c := range s.base {
			tree = append(tree, map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": blobID(c), "size": len(c)})
		}
		js(map[string]any{"sha": "t", "tree": tree, "truncated": false})
	case key == "GET /repos/o/r/pulls/1/files":
		var files []map[string]any
		for p, c := range s.head {
			if s.base[p] != c {
				files = append(files, map[string]any{"filename": p, "status": "modified", "sha": blobID(c)})
			}
		}
		js(files)
	case strings.HasPrefix(key, "GET /repos/o/r/contents/"):
		p := strings.TrimPrefix(r.URL.Path, "/repos/o/r/contents/")
		files := s.base
		if ref == stubHead {
			files = s.head
		}
		c, ok := files[p]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			js(map[string]any{"message": "Not Found"})
			return
		}
		if strings.Contains(r.Header.Get("Accept"), "raw") {
			_, _ = io.WriteString(w, c)
			return
		}
		js(map[string]any{"type": "file", "path": p, "sha": blobID(c), "size": len(c), "encoding": "base64", "content": base64.StdEncoding.EncodeToString([]byte(c))})
	case key == "POST /repos/o/r/check-runs":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.posts = append(s.posts, body)
		s.mu.Unlock()
		js(map[string]any{"id": 5})
	case key == "PATCH /repos/o/r/check-runs/5":
		js(map[string]any{"id": 5})
	case key == "GET /repos/o/r/commits/"+stubHead+"/check-runs":
		// No run of ours on the head yet (a run about to be created in
		// progress is looked for first: an orphan is adopted).
		js(map[string]any{"total_count": 0, "check_runs": []any{}})
	default:
		w.WriteHeader(http.StatusNotFound)
		js(map[string]any{"message": "Not Found"})
	}
}

func stubWorker(t *testing.T, s *stubGitHub) (*Worker, *github.Client, *bytes.Buffer) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cl := github.NewClient(srv.Client())
	u, _ := url.Parse(srv.URL + "/")
	cl.BaseURL = u
	var logs bytes.Buffer
	w := NewWorker(nil, Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now: func() time.Time { return time.Unix(1700000000, 0) }})
	return w, cl, &logs
}

const stubSettings = `{"permissions":{"allow":["Bash(npm test:*)"],"deny":["Read(.env)"]}}`

func TestEvaluateOneSettingsFile(t *testing.T) {
	s := &stubGitHub{base: map[string]string{".claude/settings.json": stubSettings},
		head: map[string]string{".claude/settings.json": `{"permissions":{"allow":["Bash(npm test:*)","Bash(*)"],"deny":["Read(.env)"]}}`}}
	w, cl, logs := stubWorker(t, s)
	job := Job{Kind: KindEvaluatePR, DeliveryID: "d-1", Owner: "o", Repo: "r", PRNumber: 1, HeadSHA: stubHead}
	ctx := WithLogger(context.Background(), w.cfg.Logger.With(job.LogAttrs()...))
	if err := w.evaluatePR(ctx, cl, job, 1); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /repos/o/r/pulls/1",
		"GET /repos/o/.github/contents/shipgate.yml", // the org default (404)
		"GET /repos/o/r/git/trees/" + stubBase,
		"GET /repos/o/r/contents/.claude/settings.json?" + stubBase, // the base's content (raw; the tree said it is a file), read first for what its hooks run
		"GET /repos/o/r/pulls/1/files",
		"GET /repos/o/r/contents/.claude/settings.json?" + stubHead, // what the head's path is (JSON), and its content
		"POST /repos/o/r/check-runs",
	}
	if strings.Join(s.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(s.calls, "\n"), strings.Join(want, "\n"))
	}
	if len(s.posts) != 1 || s.posts[0]["status"] != "completed" || s.posts[0]["conclusion"] != "failure" {
		t.Fatalf("check run posted %v, want one completed failure", s.posts)
	}
	out := s.posts[0]["output"].(map[string]any)
	if anns, _ := out["annotations"].([]any); len(anns) == 0 {
		t.Errorf("no annotations in the one-call run: %v", out)
	}
	// The job's logger, carried in the context, names the delivery on every line.
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !strings.Contains(line, "delivery_id=d-1") {
			t.Errorf("a log line without the job's delivery: %s", line)
		}
	}
	if !strings.Contains(logs.String(), "pull request checked") || !strings.Contains(logs.String(), "msg=gathered") {
		t.Errorf("logs:\n%s", logs.String())
	}
}

// TestEvaluateHeadPolicyUnreadable: a pull request that changes the
// policy file whose head version cannot be read fails (the job retries,
// then reports) — it used to pass as "no agent-config file changed".
func TestEvaluateHeadPolicyUnreadable(t *testing.T) {
	s := &stubGitHub{base: map[string]string{".github/shipgate.yml": "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED:\n    action: block\n"},
		head: map[string]string{".github/shipgate.yml": "version: 1\n"},
		fail: map[string]int{"GET /repos/o/r/contents/.github/shipgate.yml?" + stubHead: http.StatusBadGateway}}
	w, cl, _ := stubWorker(t, s)
	err := w.evaluatePR(context.Background(), cl, Job{Kind: KindEvaluatePR, Owner: "o", Repo: "r", PRNumber: 1, HeadSHA: stubHead}, 1)
	if err == nil || !strings.Contains(err.Error(), "502") {
		t.Fatalf("err %v, want the 502", err)
	}
	if len(s.posts) != 0 {
		t.Errorf("a check run was published: %v", s.posts)
	}
}

// TestEvaluateManyAnnotations: over 50 annotations, the run is created in
// progress and completed by PATCHes of 50.
func TestEvaluateManyAnnotations(t *testing.T) {
	var allow []string
	for i := range 70 {
		allow = append(allow, fmt.Sprintf("%q", fmt.Sprintf("Bash(tool%d *)", i)))
	}
	head := `{"permissions":{"allow":[` + strings.Join(allow, ",\n") + `]}}`
	s := &stubGitHub{base: map[string]string{".claude/settings.json": stubSettings}, head: map[string]string{".claude/settings.json": head}}
	w, cl, _ := stubWorker(t, s)
	if err := w.evaluatePR(context.Background(), cl, Job{Kind: KindEvaluatePR, Owner: "o", Repo: "r", PRNumber: 1, HeadSHA: stubHead}, 1); err != nil {
		t.Fatal(err)
	}
	patches := 0
	for _, c := range s.calls {
		if strings.HasPrefix(c, "PATCH ") {
			patches++
		}
	}
	if len(s.posts) != 1 || s.posts[0]["status"] != "in_progress" || patches != 2 {
		t.Errorf("posts %v, %d patches; want one in_progress create and 2 PATCHes", s.posts, patches)
	}
}
