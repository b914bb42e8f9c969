package githubtest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

// templateMarkers are identities of the example payloads the fake builds
// deliveries from; none may survive into a delivery.
var templateMarkers = []string{"Codertocat", "Hello-World", "hello-world", "octocoders", "21031067", "186853002", "279147437", "api.github.com"}

var guidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func newReceiverFixture(t *testing.T) (*fixture, *receiver) {
	t.Helper()
	rc := &receiver{t: t, secret: "s3cret"}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	f := newFixture(t, func(o *Options) { o.WebhookURL = hook.URL + "/webhook" })
	return f, rc
}

func webhookSchemaName(event, action string) string {
	name := strings.ReplaceAll(event, "_", "-")
	if action != "" {
		name += "-" + strings.ReplaceAll(action, "_", "-")
	}
	return name
}

func TestDeliveriesOfEveryEvent(t *testing.T) {
	f, rc := newReceiverFixture(t)
	ctx := context.Background()
	c := f.instClient(f.inst.ID, false)
	guids := map[string]string{} // event.action → GUID returned by the method
	note := func(key, guid string, err error) {
		t.Helper()
		must(t, err)
		if guid == "" {
			t.Fatalf("%s: no delivery", key)
		}
		guids[key] = guid
	}

	_, err := f.srv.CreateBranch("acme", "widgets", "release", "main")
	must(t, err)
	head, err := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{".claude/settings.json": "{}\n"}, "loosen")
	must(t, err)
	pr, guid, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "feature", Title: "Loosen", Author: "alice"})
	note("pull_request.opened", guid, err)
	sha, guid, err := f.srv.Synchronize("acme", "widgets", pr.Number, map[string]string{"y.txt": "y\n"}, "more")
	note("pull_request.synchronize", guid, err)
	guid, err = f.srv.ChangeBase("acme", "widgets", pr.Number, "release")
	note("pull_request.edited", guid, err)
	guid, err = f.srv.ClosePR("acme", "widgets", pr.Number)
	note("pull_request.closed", guid, err)
	guid, err = f.srv.ReopenPR("acme", "widgets", pr.Number)
	note("pull_request.reopened", guid, err)
	_, err = f.srv.PushCommit("acme", "widgets", "draft", map[string]string{"d.txt": "d\n"}, "draft")
	must(t, err)
	draft, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "draft", Draft: true})
	must(t, err)
	guid, err = f.srv.ReadyForReview("acme", "widgets", draft.Number)
	note("pull_request.ready_for_review", guid, err)
	reviewID, guid, err := f.srv.SubmitReview("acme", "widgets", pr.Number, "bob", "APPROVED", "")
	note("pull_request_review.submitted", guid, err)
	guid, err = f.srv.DismissReview("acme", "widgets", pr.Number, reviewID)
	note("pull_request_review.dismissed", guid, err)
	run, _, err := c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "shipgate", HeadSHA: sha,
		Actions: []*github.CheckRunAction{{Label: "Approve", Description: "Accept this delta", Identifier: "approve"}}})
	must(t, err)
	guid, err = f.srv.RerequestCheckRun(run.GetID(), "carol")
	note("check_run.rerequested", guid, err)
	guid, err = f.srv.RequestCheckRunAction(run.GetID(), "approve", "carol")
	note("check_run.requested_action", guid, err)
	guid, err = f.srv.RerequestCheckSuite("acme", "widgets", sha, "carol")
	note("check_suite.rerequested", guid, err)
	if _, err := f.srv.RequestCheckRunAction(run.GetID(), "nope", "carol"); err == nil {
		t.Error("an unknown action identifier was accepted")
	}

	got := rc.deliveries()
	recorded := f.srv.Deliveries()
	if len(got) != len(recorded) {
		t.Fatalf("receiver got %d deliveries, fake recorded %d", len(got), len(recorded))
	}
	seen := map[string]int{}
	for i, d := range got {
		h := d.header
		event, id := h.Get("X-GitHub-Event"), h.Get("X-GitHub-Delivery")
		var p map[string]any
		must(t, json.Unmarshal(d.body, &p))
		action, _ := p["action"].(string)
		key := event
		if action != "" {
			key += "." + action
		}
		seen[key]++
		if !guidRE.MatchString(id) || recorded[i].GUID != id || recorded[i].StatusCode != 202 || recorded[i].Status != "OK" {
			t.Errorf("%s: GUID %q, recorded %+v", key, id, recorded[i].GUID)
		}
		if want, ok := guids[key]; ok && want != id && seen[key] == 1 {
			t.Errorf("%s: method returned GUID %s, delivered %s", key, want, id)
		}
		if h.Get("Content-Type") != "application/json" || !strings.HasPrefix(h.Get("User-Agent"), "GitHub-Hookshot/") ||
			h.Get("X-GitHub-Hook-Installation-Target-ID") != strconv.Itoa(testAppID) || h.Get("X-GitHub-Hook-Installation-Target-Type") != "integration" ||
			h.Get("X-GitHub-Hook-ID") == "" || !strings.HasPrefix(h.Get("X-Hub-Signature-256"), "sha256=") {
			t.Errorf("%s: headers %v", key, h)
		}
		// The payload has GitHub's shape for the event...
		sch := f.schema.webhooks[webhookSchemaName(event, action)]
		if sch == nil {
			t.Errorf("%s: no webhook schema", key)
		} else if err := validateJSON(sch, d.body); err != nil {
			t.Errorf("%s payload does not match GitHub's webhook schema: %v", key, err)
		}
		// ...and none of the example's identity.
		for _, m := range templateMarkers {
			if strings.Contains(string(d.body), m) {
				t.Errorf("%s payload still contains the template's %q", key, m)
			}
		}
		// Identifying fields are the fake's.
		if event != "installation" {
			repo := p["repository"].(map[string]any)
			if repo["full_name"] != "acme/widgets" || int64(repo["id"].(float64)) == 0 {
				t.Errorf("%s: repository %v", key, repo["full_name"])
			}
			if inst := p["installation"].(map[string]any); int64(inst["id"].(float64)) != f.inst.ID {
				t.Errorf("%s: installation %v", key, inst)
			}
			if org := p["organization"].(map[string]any); org["login"] != "acme" {
				t.Errorf("%s: organization %v", key, org)
			}
		}
	}
	for _, key := range []string{"installation.created", "push", "pull_request.opened", "pull_request.synchronize", "pull_request.edited",
		"pull_request.closed", "pull_request.reopened", "pull_request.ready_for_review", "pull_request_review.submitted",
		"pull_request_review.dismissed", "check_run.rerequested", "check_run.requested_action", "check_suite.rerequested"} {
		if seen[key] == 0 {
			t.Errorf("no %s delivery", key)
		}
	}

	payload := func(guid string) map[string]any {
		for _, d := range recorded {
			if d.GUID == guid {
				var p map[string]any
				must(t, json.Unmarshal(d.Payload, &p))
				return p
			}
		}
		t.Fatalf("no delivery %s", guid)
		return nil
	}
	get := func(m any, path ...string) any {
		for _, k := range path {
			m = m.(map[string]any)[k]
		}
		return m
	}
	opened := payload(guids["pull_request.opened"])
	if get(opened, "number") != float64(pr.Number) || get(opened, "pull_request", "head", "sha") != head ||
		get(opened, "pull_request", "base", "ref") != "main" || get(opened, "pull_request", "user", "login") != "alice" || get(opened, "sender", "login") != "alice" {
		t.Errorf("opened payload: %v", opened["pull_request"])
	}
	synced := payload(guids["pull_request.synchronize"])
	if get(synced, "before") != head || get(synced, "after") != sha || get(synced, "pull_request", "head", "sha") != sha {
		t.Errorf("synchronize before/after %v %v", synced["before"], synced["after"])
	}
	edited := payload(guids["pull_request.edited"])
	if get(edited, "changes", "base", "ref", "from") != "main" || get(edited, "pull_request", "base", "ref") != "release" {
		t.Errorf("edited changes %v", edited["changes"])
	}
	submitted := payload(guids["pull_request_review.submitted"])
	if get(submitted, "review", "state") != "approved" || get(submitted, "review", "commit_id") != sha || get(submitted, "review", "user", "login") != "bob" {
		t.Errorf("review payload %v", submitted["review"])
	}
	rerun := payload(guids["check_run.rerequested"])
	if get(rerun, "check_run", "id") != float64(run.GetID()) || get(rerun, "check_run", "app", "id") != float64(testAppID) || get(rerun, "check_run", "check_suite", "head_sha") != sha {
		t.Errorf("check_run payload %v", rerun["check_run"])
	}
	if get(payload(guids["check_run.requested_action"]), "requested_action", "identifier") != "approve" {
		t.Error("requested_action identifier")
	}
	suite := payload(guids["check_suite.rerequested"])
	if get(suite, "check_suite", "head_sha") != sha || len(get(suite, "check_suite", "pull_requests").([]any)) != 1 {
		t.Errorf("check_suite payload %v", suite["check_suite"])
	}
}

func TestRedeliveryAndDeliveryAPI(t *testing.T) {
	f, rc := newReceiverFixture(t)
	ctx := context.Background()
	app, _ := f.appClient(false)
	for i := 0; i < 4; i++ {
		_, err := f.srv.PushCommit("acme", "widgets", "b"+strconv.Itoa(i), map[string]string{"f": strconv.Itoa(i)}, "c")
		must(t, err)
		_, _, err = f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "b" + strconv.Itoa(i)})
		must(t, err)
	}
	all := f.srv.Deliveries()

	// Cursor pagination walks every delivery, newest first.
	var listed []*github.HookDelivery
	opts := &github.ListCursorOptions{PerPage: 3}
	pages := 0
	for {
		page, resp, err := app.Apps.ListHookDeliveries(ctx, opts)
		must(t, err)
		pages++
		listed = append(listed, page...)
		if resp.Cursor == "" {
			break
		}
		opts.Cursor = resp.Cursor
	}
	if len(listed) != len(all) || pages != (len(all)+2)/3 {
		t.Fatalf("listed %d deliveries in %d pages, want %d", len(listed), pages, len(all))
	}
	for i, d := range listed {
		if want := all[len(all)-1-i]; d.GetID() != want.ID || d.GetGUID() != want.GUID || d.GetStatusCode() != 202 {
			t.Errorf("item %d: %d %s, want %d %s", i, d.GetID(), d.GetGUID(), want.ID, want.GUID)
		}
	}

	// Redelivery through the API keeps the GUID and the payload.
	target := all[len(all)-1]
	_, _, err := app.Apps.RedeliverHookDelivery(ctx, target.ID)
	var accepted *github.AcceptedError
	if !errors.As(err, &accepted) {
		t.Fatalf("redeliver: %v", err)
	}
	attempts := f.srv.DeliveryAttempts(target.GUID)
	if len(attempts) != 2 || !attempts[1].Redelivery || attempts[1].ID == target.ID || string(attempts[1].Payload) != string(target.Payload) {
		t.Fatalf("attempts %+v", attempts)
	}
	got := rc.deliveries()
	last := got[len(got)-1]
	if last.header.Get("X-GitHub-Delivery") != target.GUID || string(last.body) != string(target.Payload) {
		t.Errorf("redelivered %s", last.header.Get("X-GitHub-Delivery"))
	}

	// GET one delivery with its request and response.
	d, _, err := app.Apps.GetHookDelivery(ctx, attempts[1].ID)
	must(t, err)
	if !d.GetRedelivery() || d.GetGUID() != target.GUID || d.Request.Headers["X-GitHub-Event"] != "pull_request" {
		t.Errorf("delivery %+v", d)
	}

	// A failing receiver is recorded as GitHub words it, and the status
	// filter finds it; Redeliver (the Go method) retries it.
	rc.mu.Lock()
	rc.status = 500
	rc.mu.Unlock()
	_, err = f.srv.PushCommit("acme", "widgets", "main", map[string]string{"z": "z\n"}, "z")
	must(t, err)
	failed := f.srv.Deliveries()[len(f.srv.Deliveries())-1]
	if failed.StatusCode != 500 || failed.Status != "Invalid HTTP Response: 500" {
		t.Errorf("failed delivery %+v", failed)
	}
	resp, body := f.do("GET", "/app/hook/deliveries?status=failure", "Bearer "+f.jwt(), nil, nil)
	var failures []map[string]any
	mustJSON(t, body, &failures)
	if resp.StatusCode != 200 || len(failures) != 1 || failures[0]["guid"] != failed.GUID {
		t.Errorf("failures %s", body)
	}
	rc.mu.Lock()
	rc.status = 0
	rc.mu.Unlock()
	again, err := f.srv.Redeliver(failed.GUID)
	must(t, err)
	if again.StatusCode != 202 || !again.Redelivery || again.GUID != failed.GUID {
		t.Errorf("redelivery %+v", again)
	}
	if resp, _ := f.do("POST", "/app/hook/deliveries/1/attempts", "Bearer "+f.jwt(), nil, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown delivery: %d", resp.StatusCode)
	}
}

func TestDeliveriesWithoutWebhookURL(t *testing.T) {
	f := newFixture(t)
	_, err := f.srv.PushCommit("acme", "widgets", "x", map[string]string{"x": "x\n"}, "x")
	must(t, err)
	_, guid, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "x"})
	must(t, err)
	attempts := f.srv.DeliveryAttempts(guid)
	if len(attempts) != 1 || attempts[0].StatusCode != 0 || !strings.HasPrefix(attempts[0].Status, "not sent") {
		t.Fatalf("attempts %+v", attempts)
	}
	// A repository no installation covers sends nothing.
	createRepo(t, f.srv, RepoOptions{Owner: "elsewhere", Name: "r", Files: map[string]string{"a": "a\n"}})
	_, err = f.srv.PushCommit("elsewhere", "r", "b", map[string]string{"b": "b\n"}, "b")
	must(t, err)
	_, guid, err = f.srv.OpenPR(PROptions{Owner: "elsewhere", Repo: "r", Head: "b"})
	must(t, err)
	if guid != "" {
		t.Errorf("delivery %s for an uninstalled repository", guid)
	}
	// SetWebhook points later deliveries somewhere.
	rc := &receiver{t: t, secret: "new"}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	must(t, f.srv.SetWebhook(testAppID, hook.URL, "new"))
	_, err = f.srv.PushCommit("acme", "widgets", "x", map[string]string{"x2": "x\n"}, "x")
	must(t, err)
	if n := len(rc.deliveries()); n != 2 {
		t.Errorf("%d deliveries after SetWebhook, want push and synchronize", n)
	}
}

// TestDeliveryListOutOfOrder: an attempt hidden by HideDeliveryAttempts is
// missing from GET /app/hook/deliveries while newer ones are listed, and
// appears in its place by ID once revealed (GitHub's list under
// concurrency: not ordered by arrival).
func TestDeliveryListOutOfOrder(t *testing.T) {
	f, _ := newReceiverFixture(t)
	app, _ := f.appClient(false)
	ids := func() []int64 {
		page, _, err := app.Apps.ListHookDeliveries(context.Background(), &github.ListCursorOptions{PerPage: 100})
		must(t, err)
		var out []int64
		for _, d := range page {
			out = append(out, d.GetID())
		}
		return out
	}
	f.srv.HideDeliveryAttempts(func(d Delivery) bool { return d.Event == "pull_request" })
	_, err := f.srv.PushCommit("acme", "widgets", "late", map[string]string{"f": "1"}, "c")
	must(t, err)
	_, _, err = f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "late"})
	must(t, err)
	all := f.srv.Deliveries()
	var hidden int64
	for _, d := range all {
		if d.Event == "pull_request" {
			hidden = d.ID
		}
	}
	f.srv.HideDeliveryAttempts(nil)
	_, err = f.srv.PushCommit("acme", "widgets", "main", map[string]string{"g": "2"}, "newer")
	must(t, err)
	listed := ids()
	if slices.Contains(listed, hidden) || len(listed) != len(f.srv.Deliveries())-1 || listed[0] <= hidden {
		t.Fatalf("while hidden: listed %v, want every attempt but %d, a newer one first", listed, hidden)
	}
	if n := f.srv.RevealDeliveryAttempts(); n != 1 {
		t.Fatalf("revealed %d, want 1", n)
	}
	listed = ids()
	if len(listed) != len(f.srv.Deliveries()) || !slices.Contains(listed, hidden) {
		t.Fatalf("after reveal: listed %v, want %d among them", listed, hidden)
	}
	if !slices.IsSortedFunc(listed, func(a, b int64) int { return int(b - a) }) {
		t.Fatalf("after reveal: %v is not newest first", listed)
	}
}
