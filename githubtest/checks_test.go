package githubtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

func annotations(n int, path string) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"path": path, "start_line": i + 1, "end_line": i + 1, "annotation_level": "warning", "message": fmt.Sprintf("finding %d", i)}
	}
	return out
}

func TestCheckRunLifecycle(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c := f.instClient(f.inst.ID, false)
	head, _ := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{"x.txt": "x\n"}, "x")
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "feature"})
	must(t, err)

	run, _, err := c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{
		Name: "shipgate", HeadSHA: head, Status: github.String("in_progress"), ExternalID: github.String("pr-1"),
	})
	must(t, err)
	if run.GetStatus() != "in_progress" || run.Conclusion != nil || run.GetApp().GetID() != testAppID || len(run.PullRequests) != 1 || run.PullRequests[0].GetNumber() != pr.Number {
		t.Fatalf("created run %+v", run)
	}
	// Three updates: 50 + 50 + 10 annotations append; title and summary replace.
	tok := "token " + f.token()
	path := fmt.Sprintf("/repos/acme/widgets/check-runs/%d", run.GetID())
	for i, n := range []int{50, 50, 10} {
		body := map[string]any{"output": map[string]any{"title": fmt.Sprintf("title %d", i), "summary": fmt.Sprintf("summary %d", i), "annotations": annotations(n, ".claude/settings.json")}}
		if i == 2 {
			body["conclusion"] = "action_required"
		}
		if resp, b := f.do("PATCH", path, tok, body, nil); resp.StatusCode != 200 {
			t.Fatalf("update %d: %d %s", i, resp.StatusCode, b)
		}
	}
	got, ok := f.srv.CheckRunByID(run.GetID())
	if !ok || len(got.Annotations) != 110 || got.Title != "title 2" || got.Summary != "summary 2" || got.Status != "completed" ||
		got.Conclusion != "action_required" || got.CompletedAt.IsZero() || got.ExternalID != "pr-1" || got.Requests != 4 {
		t.Fatalf("stored run: %d annotations, %q %q %s %s requests %d", len(got.Annotations), got.Title, got.Summary, got.Status, got.Conclusion, got.Requests)
	}
	if got.Annotations[50].Message != "finding 0" || got.Annotations[109].Message != "finding 9" {
		t.Errorf("annotations not appended in order")
	}
	// The annotations list endpoint pages through all 110.
	var listed []*github.CheckRunAnnotation
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := c.Checks.ListCheckRunAnnotations(ctx, "acme", "widgets", run.GetID(), opts)
		must(t, err)
		listed = append(listed, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(listed) != 110 {
		t.Errorf("listed %d annotations", len(listed))
	}
	// GET shows the count and the replaced output.
	fetched, _, err := c.Checks.GetCheckRun(ctx, "acme", "widgets", run.GetID())
	must(t, err)
	if fetched.GetOutput().GetAnnotationsCount() != 110 || fetched.GetOutput().GetTitle() != "title 2" || fetched.GetConclusion() != "action_required" {
		t.Errorf("fetched run %+v", fetched.GetOutput())
	}
	// Reads through the store filters.
	if runs := f.srv.CheckRuns("acme", "widgets", CheckRunFilter{PullNumber: pr.Number}); len(runs) != 1 {
		t.Errorf("runs for PR: %d", len(runs))
	}

	// List for ref: latest per name by default, all with filter=all.
	_, _, err = c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "shipgate", HeadSHA: head})
	must(t, err)
	_, _, err = c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "other", HeadSHA: head})
	must(t, err)
	for _, tc := range []struct {
		opts *github.ListCheckRunsOptions
		ref  string
		want int
	}{
		{nil, head, 2},
		{&github.ListCheckRunsOptions{Filter: github.String("all")}, head, 3},
		{&github.ListCheckRunsOptions{CheckName: github.String("shipgate"), Filter: github.String("all")}, "feature", 2},
		{&github.ListCheckRunsOptions{Status: github.String("completed"), Filter: github.String("all")}, head[:7], 1},
	} {
		res, _, err := c.Checks.ListCheckRunsForRef(ctx, "acme", "widgets", tc.ref, tc.opts)
		must(t, err)
		if res.GetTotal() != tc.want || len(res.CheckRuns) != tc.want {
			t.Errorf("list %v for %s: %d runs, want %d", tc.opts, tc.ref, res.GetTotal(), tc.want)
		}
	}

	// A run belongs to the app whose token created it.
	code := f.srv.IssueManifestCode([]byte(`{"name":"Intruder","url":"https://intruder.example","default_permissions":{"checks":"write","metadata":"read"}}`))
	resp, body := f.do("POST", "/app-manifests/"+code+"/conversions", "", nil, nil)
	if resp.StatusCode != 201 {
		t.Fatalf("conversion %d %s", resp.StatusCode, body)
	}
	otherApp := int64(decode(t, body)["id"].(float64))
	otherInst, _, err := f.srv.Install(InstallationOptions{AppID: otherApp, Account: "acme", Repositories: []string{"widgets"}})
	must(t, err)
	otherTok, _, err := f.srv.MintInstallationToken(otherInst.ID)
	must(t, err)
	resp, body = f.do("PATCH", path, "token "+otherTok, map[string]any{"status": "in_progress"}, nil)
	if resp.StatusCode != 403 {
		t.Errorf("another app updated the run: %d %s", resp.StatusCode, body)
	}
}

func TestCheckRunValidation(t *testing.T) {
	f := newFixture(t)
	head, _ := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{"x.txt": "x\n"}, "x")
	tok := "token " + f.token()
	ok := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": "shipgate", "head_sha": head}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	out := func(extra map[string]any) map[string]any {
		o := map[string]any{"title": "t", "summary": "s"}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	ann := func(mut func(a map[string]any)) []map[string]any {
		a := annotations(1, "x.txt")
		mut(a[0])
		return a
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name    string
		body    map[string]any
		status  int
		message string // a prefix
		field   string
	}{
		{"minimal", ok(nil), 201, "", ""},
		{"action_required without details_url is accepted", ok(map[string]any{"conclusion": "action_required", "output": out(nil)}), 201, "", ""},
		{"50 annotations", ok(map[string]any{"output": out(map[string]any{"annotations": annotations(50, "x.txt")})}), 201, "", ""},
		{"summary of 65535 characters", ok(map[string]any{"output": out(map[string]any{"summary": long(65535)})}), 201, "", ""},
		{"columns on one line", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { a["start_column"], a["end_column"] = 2, 5 })})}), 201, "", ""},
		{"missing name and head_sha", map[string]any{}, 422, "Invalid request.\n\n\"name\", \"head_sha\" weren't supplied.", "name"},
		{"51 annotations", ok(map[string]any{"output": out(map[string]any{"annotations": annotations(51, "x.txt")})}), 422, "Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied.", "annotations"},
		{"summary over 65535 characters", ok(map[string]any{"output": out(map[string]any{"summary": long(65536)})}), 422, "Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied.", "summary"},
		{"text over 65535 characters", ok(map[string]any{"output": out(map[string]any{"text": long(70000)})}), 422, "Invalid request.\n\nOnly 65535 characters are allowed; 70000 were supplied.", "text"},
		{"summary over 65535 bytes", ok(map[string]any{"output": out(map[string]any{"summary": strings.Repeat("é", 40000)})}), 422, "Validation Failed", "summary"},
		{"output without title", ok(map[string]any{"output": map[string]any{"summary": "s"}}), 422, "Invalid request.\n\n\"title\" wasn't supplied.", "output"},
		{"output without summary", ok(map[string]any{"output": map[string]any{"title": "t"}}), 422, "Invalid request.\n\n\"summary\" wasn't supplied.", "output"},
		{"annotation without path and level", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { delete(a, "path"); delete(a, "annotation_level") })})}), 422, "Invalid request.\n\n\"path\", \"annotation_level\" weren't supplied.", "annotations"},
		{"annotation without lines", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { delete(a, "start_line"); delete(a, "end_line") })})}), 422, "Invalid request.", "annotations"},
		{"annotation level error", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { a["annotation_level"] = "error" })})}), 422, "Invalid request.\n\nFor 'items/properties/annotation_level', \"error\" is not a member of", "annotation_level"},
		{"columns across lines", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { a["end_line"], a["start_column"] = 3, 1 })})}), 422, "Validation Failed", "annotations"},
		{"annotation title of 256 characters", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { a["title"] = long(256) })})}), 422, "Validation Failed", "annotations"},
		{"annotation message over 64 KB", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { a["message"] = long(64*1024 + 1) })})}), 422, "Validation Failed", "annotations"},
		{"annotation raw_details over 64 KB", ok(map[string]any{"output": out(map[string]any{"annotations": ann(func(a map[string]any) { a["raw_details"] = long(64*1024 + 1) })})}), 422, "Validation Failed", "annotations"},
		{"invalid status", ok(map[string]any{"status": "done"}), 422, "Invalid request.\n\nFor 'properties/status', \"done\" is not a member of", "status"},
		{"invalid conclusion", ok(map[string]any{"conclusion": "passed"}), 422, "Invalid request.\n\nFor 'properties/conclusion', \"passed\" is not a member of", "conclusion"},
		{"completed without conclusion", ok(map[string]any{"status": "completed"}), 422, "Validation Failed", "conclusion"},
		{"completed_at without conclusion", ok(map[string]any{"completed_at": "2024-01-01T00:00:00Z"}), 422, "Validation Failed", "conclusion"},
		{"stale conclusion", ok(map[string]any{"conclusion": "stale"}), 422, "Validation Failed", "conclusion"},
		{"four actions", ok(map[string]any{"actions": []map[string]any{
			{"label": "a", "description": "d", "identifier": "i"}, {"label": "a", "description": "d", "identifier": "i"},
			{"label": "a", "description": "d", "identifier": "i"}, {"label": "a", "description": "d", "identifier": "i"}}}), 422, "Invalid request.\n\nNo more than 3 items are allowed; 4 were supplied.", "actions"},
		{"action label of 21 characters", ok(map[string]any{"actions": []map[string]any{{"label": long(21), "description": "d", "identifier": "i"}}}), 422, "Invalid request.\n\nOnly 20 characters are allowed; 21 were supplied.", "label"},
		{"action identifier of 21 characters", ok(map[string]any{"actions": []map[string]any{{"label": "l", "description": "d", "identifier": long(21)}}}), 422, "Invalid request.\n\nOnly 20 characters are allowed; 21 were supplied.", "identifier"},
		{"action description of 41 characters", ok(map[string]any{"actions": []map[string]any{{"label": "l", "description": long(41), "identifier": "i"}}}), 422, "Invalid request.\n\nOnly 40 characters are allowed; 41 were supplied.", "description"},
		{"unknown head_sha", ok(map[string]any{"head_sha": strings.Repeat("b", 40)}), 422, "No commit found for SHA: " + strings.Repeat("b", 40), "head_sha"},
		{"name is not a string", ok(map[string]any{"name": 5}), 422, "Invalid request.\n\nFor 'properties/name', 5 is not a string.", "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// GitHub answers "Invalid request." exactly when its JSON
			// schema rejects the body: check the schema agrees.
			var hdr map[string]string
			if strings.HasPrefix(tc.message, "Invalid request.") {
				hdr = map[string]string{expectInvalid: "1"}
			}
			resp, body := f.do("POST", "/repos/acme/widgets/check-runs", tok, tc.body, hdr)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, clip(body))
			}
			if tc.status != 422 {
				return
			}
			m := decode(t, body)
			if msg, _ := m["message"].(string); !strings.HasPrefix(msg, tc.message) {
				t.Errorf("message %q, want prefix %q", msg, tc.message)
			}
			errs, _ := m["errors"].([]any)
			found := false
			for _, e := range errs {
				em := e.(map[string]any)
				found = found || (em["field"] == tc.field && em["resource"] == "CheckRun" && em["code"] != "")
			}
			if !found {
				t.Errorf("errors %v lack field %q", errs, tc.field)
			}
		})
	}

	t.Run("update rules", func(t *testing.T) {
		resp, body := f.do("POST", "/repos/acme/widgets/check-runs", tok, ok(nil), nil)
		if resp.StatusCode != 201 {
			t.Fatal(string(body))
		}
		path := fmt.Sprintf("/repos/acme/widgets/check-runs/%v", int64(decode(t, body)["id"].(float64)))
		for _, bad := range []struct {
			body          map[string]any
			schemaInvalid bool
		}{
			{map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": annotations(51, "x.txt")}}, true},
			// The update schema does not list title as required, but the
			// documentation says "Required" and the fake enforces it.
			{map[string]any{"output": map[string]any{"summary": "s"}}, false},
			{map[string]any{"status": "completed"}, true},
		} {
			var hdr map[string]string
			if bad.schemaInvalid {
				hdr = map[string]string{expectInvalid: "1"}
			}
			if resp, body := f.do("PATCH", path, tok, bad.body, hdr); resp.StatusCode != 422 {
				t.Errorf("update %v: %d %s", bad.body, resp.StatusCode, clip(body))
			}
		}
		if resp, _ := f.do("PATCH", "/repos/acme/widgets/check-runs/1", tok, map[string]any{"status": "queued"}, nil); resp.StatusCode != 404 {
			t.Errorf("unknown run: %d", resp.StatusCode)
		}
	})
}
