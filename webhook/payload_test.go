package webhook

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/app"
)

// TestPayloadValidation feeds authentic deliveries whose ids and names could
// not come from GitHub (path walks, negative numbers, injected separators):
// each is answered 400 with a log line naming what was wrong, and no job —
// and so no GitHub request — is built from it.
func TestPayloadValidation(t *testing.T) {
	cases := []struct {
		name, event, fixture string
		mutate               func(t testing.TB, m map[string]any)
		wantErr              string
	}{
		{"owner ..", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.owner.login", "..") }, "repository owner"},
		{"owner with slash", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.owner.login", "evil/../x") }, "repository owner"},
		{"owner too long", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.owner.login", strings.Repeat("a", 40)) }, "repository owner"},
		{"repo ..", "pull_request", "pull_request.synchronize",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.name", "..") }, "repository name"},
		{"repo with encoded slash", "pull_request", "pull_request.synchronize",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.name", "x%2f..%2f..") }, "repository name"},
		{"repo with query", "pull_request_review", "pull_request_review.submitted",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.name", "x?ref=main") }, "repository name"},
		{"repo with newline", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "repository.name", "x\ny") }, "repository name"},
		{"negative pr number", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "number", float64(-5)) }, "not positive"},
		{"negative review pr number", "pull_request_review", "pull_request_review.submitted",
			func(t testing.TB, m map[string]any) { set(t, m, "pull_request.number", float64(-5)) }, "not positive"},
		{"negative installation", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "installation.id", float64(-1)) }, "installation id -1"},
		{"head sha path walk", "pull_request", "pull_request.opened",
			func(t testing.TB, m map[string]any) { set(t, m, "pull_request.head.sha", "../../../x") }, "not a commit id"},
		{"check_suite head sha", "check_suite", "check_suite.rerequested",
			func(t testing.TB, m map[string]any) {
				set(t, m, "check_suite.app.id", float64(testAppID))
				set(t, m, "check_suite.head_sha", "main")
			}, "not a commit id"},
		{"check_suite negative listed pr", "check_suite", "check_suite.rerequested",
			func(t testing.TB, m map[string]any) {
				set(t, m, "check_suite.app.id", float64(testAppID))
				set(t, m, "check_suite.pull_requests.0.number", float64(-2))
			}, "not positive"},
		{"check_run negative id", "check_run", "check_run.requested_action",
			func(t testing.TB, m map[string]any) {
				set(t, m, "check_run.app.id", float64(testAppID))
				set(t, m, "check_run.id", float64(-4))
			}, "check_run id"},
		{"push owner ..", "push", "push.branch",
			func(t testing.TB, m map[string]any) {
				set(t, m, "commits.0.modified", []any{".github/shipgate.yml"})
				set(t, m, "repository.owner.login", "..")
				set(t, m, "repository.owner.name", "..")
			}, "repository owner"},
		{"push after", "push", "push.branch",
			func(t testing.TB, m map[string]any) {
				set(t, m, "commits.0.modified", []any{".github/shipgate.yml"})
				set(t, m, "after", "HEAD~1")
			}, "not a commit id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			m := fixture(t, tc.fixture)
			tc.mutate(t, m)
			w := serve(env.srv, request(tc.event, "bad-1", mustJSON(t, m)))
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", w.Code, w.Body)
			}
			if resp := decodeResponse(t, w); !strings.Contains(resp.Error, tc.wantErr) {
				t.Fatalf("error %q, want it to contain %q", resp.Error, tc.wantErr)
			}
			if b := env.rec.all(); len(b) != 0 {
				t.Fatalf("queued %v from an invalid payload", b)
			}
			if logs := env.logs.String(); !strings.Contains(logs, reasonBadPayload) || !strings.Contains(logs, tc.wantErr) {
				t.Fatalf("no log line naming the problem:\n%s", logs)
			}
		})
	}
}

// TestNameRules pins the naming rules to examples GitHub accepts and refuses.
func TestNameRules(t *testing.T) {
	for _, tc := range []struct {
		s           string
		owner, repo bool
	}{
		{"Codertocat", true, true},
		{"octo-org", true, true},
		{"user_shortcode", true, true}, // Enterprise Managed Users
		{".github", false, true},
		{"Hello-World.js", false, true},
		{"a", true, true},
		{"..", false, false},
		{".", false, false},
		{"-x", false, true},
		{"a/b", false, false},
		{"a b", false, false},
		{"", false, false},
		{strings.Repeat("r", 100), false, true},
		{strings.Repeat("r", 101), false, false},
		{"ünïcode", false, false},
	} {
		if got := validOwner(tc.s); got != tc.owner {
			t.Errorf("validOwner(%q) = %v, want %v", tc.s, got, tc.owner)
		}
		if got := validRepoName(tc.s); got != tc.repo {
			t.Errorf("validRepoName(%q) = %v, want %v", tc.s, got, tc.repo)
		}
	}
}

// FuzzRoute feeds arbitrary bodies to the router for every routed event: it
// must never panic, and any job it builds carries only validated fields.
func FuzzRoute(f *testing.F) {
	for _, name := range []string{"pull_request.opened", "pull_request_review.submitted", "check_run.rerequested",
		"check_suite.rerequested", "push.branch", "installation.created"} {
		f.Add(strings.SplitN(name, ".", 2)[0], mustJSON(f, fixture(f, name)))
	}
	f.Add("pull_request", []byte(`{"action":"opened","number":-1,"installation":{"id":1}}`))
	rt := &router{appID: testAppID, repoPolicyPath: DefaultRepoPolicyPath, orgPolicyRepo: DefaultOrgPolicyRepo,
		orgPolicyPath: DefaultOrgPolicyPath, logger: nopLogger()}
	login := testAppSlug + "[bot]"
	rt.botLogin.Store(&login)
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		r, err := rt.route(event, body, app.Job{DeliveryID: "d"})
		if err != nil {
			if len(r.jobs) != 0 {
				t.Fatalf("error %v with jobs %v", err, r.jobs)
			}
			return
		}
		for _, j := range r.jobs {
			if j.InstallationID <= 0 || !validOwner(j.Owner) || !validRepoName(j.Repo) || j.PRNumber < 0 ||
				(j.HeadSHA != "" && !validSHA(j.HeadSHA)) || j.CheckRunID < 0 {
				t.Fatalf("job with unvalidated fields: %+v", j)
			}
		}
	})
}

// TestFastDecoderAgrees routes every pull_request and pull_request_review
// example of @octokit/webhooks-examples, the fixtures, and hostile
// variants through the fast decoder and through encoding/json alone: the
// outcomes must be identical.
func TestFastDecoderAgrees(t *testing.T) {
	var bodies [][]byte
	events := []string{}
	for _, event := range []string{"pull_request", "pull_request_review"} {
		for _, ex := range octokitExamples(t, event) {
			bodies = append(bodies, mustJSON(t, ex))
			events = append(events, event)
		}
	}
	variants := []func(m map[string]any){
		func(m map[string]any) { m["number"] = "two" },
		func(m map[string]any) { m["number"] = -3 },
		func(m map[string]any) { m["installation"] = nil },
		func(m map[string]any) { m["installation"] = map[string]any{} },
		func(m map[string]any) { m["installation"] = map[string]any{"id": "1"} },
		func(m map[string]any) {
			m["action"] = "edited"
			m["changes"] = map[string]any{"base": map[string]any{}}
		},
		func(m map[string]any) { m["action"] = "edited"; m["changes"] = map[string]any{"base": nil} },
		func(m map[string]any) {
			m["action"] = "edited"
			m["changes"] = map[string]any{"title": map[string]any{}}
		},
		func(m map[string]any) { m["repository"].(map[string]any)["name"] = "../x" },
		func(m map[string]any) { m["repository"].(map[string]any)["owner"] = map[string]any{"name": "octo"} },
		func(m map[string]any) { m["pull_request"].(map[string]any)["head"] = map[string]any{"sha": 7} },
		func(m map[string]any) { m["sender"] = map[string]any{"login": "Shipgate[bot]"} },
		func(m map[string]any) { m["action"] = "op\u00e9ned" },
	}
	for _, name := range []string{"pull_request.opened", "pull_request.synchronize", "pull_request_review.submitted"} {
		for _, v := range variants {
			m := fixture(t, name)
			v(m)
			bodies = append(bodies, mustJSON(t, m))
			events = append(events, strings.SplitN(name, ".", 2)[0])
		}
	}
	// Not compared: a key repeated in one object (encoding/json keeps the
	// last, the fast decoder the first) and keys in another case
	// (encoding/json matches them case-insensitively). GitHub sends
	// neither, and only GitHub can sign a payload; both decoders validate
	// what they take.
	bodies = append(bodies, []byte(`{"action": "opened", `), []byte(`[1,2]`))
	events = append(events, "pull_request", "pull_request")
	mk := func(slow bool) *router {
		rt := &router{appID: testAppID, repoPolicyPath: DefaultRepoPolicyPath, orgPolicyRepo: DefaultOrgPolicyRepo,
			orgPolicyPath: DefaultOrgPolicyPath, logger: nopLogger(), slowOnly: slow}
		login := testAppSlug + "[bot]"
		rt.botLogin.Store(&login)
		return rt
	}
	fast, slow := mk(false), mk(true)
	for i, body := range bodies {
		a, errA := fast.route(events[i], body, app.Job{DeliveryID: "d"})
		b, errB := slow.route(events[i], body, app.Job{DeliveryID: "d"})
		if (errA == nil) != (errB == nil) || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("body %d (%s, %.80s…):\nfast %+v %v\nslow %+v %v", i, events[i], body, a, errA, b, errB)
		}
	}
}
