package webhook

import (
	"net/http"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/app"
)

const (
	helloHead    = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	rerunHead    = "d6fde92930d4715a2b49857d24b940956b26d2d3"
	electronHead = "5bd5f196a46b8222fb7484f05faba41a73cf34bd"
	pushAfter    = "6113728f27ae82c7b1a177c8d03f9e96e0adf246"
)

// TestRouting feeds real payloads, adjusted where a case needs it, through
// the whole handler and checks the jobs it queues or the reason it ignores.
func TestRouting(t *testing.T) {
	evalPR := func(action string, inst int64, owner, repo string, pr int, head, sender string) app.Job {
		return app.Job{Kind: app.KindEvaluatePR, Action: action, InstallationID: inst, Owner: owner,
			Repo: repo, PRNumber: pr, HeadSHA: head, Sender: sender}
	}
	ours := func(path string) func(t testing.TB, m map[string]any) {
		return func(t testing.TB, m map[string]any) { set(t, m, path, float64(testAppID)) }
	}
	// The check_run.rerequested example spells the app's timestamps
	// "2018-04-25 20:42:10"; GitHub sends RFC 3339, which go-github requires.
	rerequested := func(appID float64) func(t testing.TB, m map[string]any) {
		return func(t testing.TB, m map[string]any) {
			for _, p := range []string{"check_run.app", "check_run.check_suite.app"} {
				set(t, m, p+".created_at", "2018-04-25T20:42:10Z")
				set(t, m, p+".updated_at", "2018-04-25T20:42:10Z")
			}
			set(t, m, "check_run.app.id", appID)
		}
	}
	cases := []struct {
		name       string
		event      string
		fixture    string
		mutate     func(t testing.TB, m map[string]any)
		wantStatus int
		wantJobs   []app.Job
		wantReason string // substring of the ignore reason
	}{
		// pull_request
		{name: "pr opened", event: "pull_request", fixture: "pull_request.opened",
			wantStatus: 202, wantJobs: []app.Job{evalPR("opened", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "pr reopened", event: "pull_request", fixture: "pull_request.reopened",
			wantStatus: 202, wantJobs: []app.Job{evalPR("reopened", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "pr synchronize", event: "pull_request", fixture: "pull_request.synchronize",
			wantStatus: 202, wantJobs: []app.Job{evalPR("synchronize", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "pr ready_for_review", event: "pull_request", fixture: "pull_request.ready_for_review",
			wantStatus: 202, wantJobs: []app.Job{evalPR("ready_for_review", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "draft pr opened is evaluated", event: "pull_request", fixture: "pull_request.opened",
			mutate:     func(t testing.TB, m map[string]any) { set(t, m, "pull_request.draft", true) },
			wantStatus: 202, wantJobs: []app.Job{evalPR("opened", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "pr edited with base change", event: "pull_request", fixture: "pull_request.opened",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "action", "edited")
				set(t, m, "changes.base.ref.from", "develop")
				set(t, m, "changes.base.sha.from", "0000000000000000000000000000000000000000")
			},
			wantStatus: 202, wantJobs: []app.Job{evalPR("edited", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "pr edited title only", event: "pull_request", fixture: "pull_request.opened",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "action", "edited")
				set(t, m, "changes.title.from", "old title")
			},
			wantStatus: 200, wantReason: "without a base branch change"},
		{name: "pr edited without changes", event: "pull_request", fixture: "pull_request.opened",
			mutate:     func(t testing.TB, m map[string]any) { set(t, m, "action", "edited") },
			wantStatus: 200, wantReason: "without a base branch change"},
		{name: "pr closed", event: "pull_request", fixture: "pull_request.closed", wantStatus: 200, wantReason: `"closed"`},
		{name: "pr labeled", event: "pull_request", fixture: "pull_request.labeled", wantStatus: 200, wantReason: `"labeled"`},
		{name: "pr converted_to_draft", event: "pull_request", fixture: "pull_request.converted_to_draft", wantStatus: 200, wantReason: `"converted_to_draft"`},
		{name: "pr without installation", event: "pull_request", fixture: "pull_request.opened",
			mutate:     func(t testing.TB, m map[string]any) { delete(m, "installation") },
			wantStatus: 200, wantReason: "no installation id"},
		{name: "pr sent by our own bot", event: "pull_request", fixture: "pull_request.synchronize",
			mutate:     func(t testing.TB, m map[string]any) { set(t, m, "sender.login", "Shipgate[bot]") },
			wantStatus: 200, wantReason: "is this app"},
		{name: "pr sent by another bot", event: "pull_request", fixture: "pull_request.synchronize",
			mutate:     func(t testing.TB, m map[string]any) { set(t, m, "sender.login", "dependabot[bot]") },
			wantStatus: 202, wantJobs: []app.Job{evalPR("synchronize", 1, "Codertocat", "Hello-World", 2, helloHead, "dependabot[bot]")}},

		// pull_request_review
		{name: "review submitted", event: "pull_request_review", fixture: "pull_request_review.submitted",
			wantStatus: 202, wantJobs: []app.Job{evalPR("submitted", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "review dismissed", event: "pull_request_review", fixture: "pull_request_review.dismissed",
			wantStatus: 202, wantJobs: []app.Job{evalPR("dismissed", 1, "Codertocat", "Hello-World", 2, helloHead, "Codertocat")}},
		{name: "review edited", event: "pull_request_review", fixture: "pull_request_review.submitted",
			mutate:     func(t testing.TB, m map[string]any) { set(t, m, "action", "edited") },
			wantStatus: 200, wantReason: `"edited"`},

		// check_run
		{name: "check_run rerequested, fork (no PRs) → SHA", event: "check_run", fixture: "check_run.rerequested",
			mutate:     rerequested(testAppID),
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindEvaluateSHA, Action: "rerequested", InstallationID: 1,
				Owner: "github", Repo: "hello-world", HeadSHA: rerunHead, CheckRunID: 4, Sender: "octocat"}}},
		{name: "check_run rerequested for another app", event: "check_run", fixture: "check_run.rerequested",
			mutate: rerequested(2), wantStatus: 200, wantReason: "belongs to app 2"},
		{name: "check_run requested_action with PR", event: "check_run", fixture: "check_run.requested_action",
			mutate:     ours("check_run.app.id"),
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindEvaluatePR, Action: "requested_action", InstallationID: 690857,
				Owner: "electron", Repo: "electron", PRNumber: 26764, HeadSHA: electronHead, CheckRunID: 1494503112, Sender: "codebytere"}}},
		{name: "check_run PR of another repo → SHA", event: "check_run", fixture: "check_run.requested_action",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "check_run.app.id", float64(testAppID))
				set(t, m, "check_run.pull_requests.0.base.repo.id", float64(1))
			},
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindEvaluateSHA, Action: "requested_action", InstallationID: 690857,
				Owner: "electron", Repo: "electron", HeadSHA: electronHead, CheckRunID: 1494503112, Sender: "codebytere"}}},
		{name: "check_run created (our own run)", event: "check_run", fixture: "check_run.created",
			mutate: ours("check_run.app.id"), wantStatus: 200, wantReason: `"created"`},
		{name: "check_run completed (our own run)", event: "check_run", fixture: "check_run.completed",
			mutate: ours("check_run.app.id"), wantStatus: 200, wantReason: `"completed"`},

		// check_suite
		{name: "check_suite rerequested with PR", event: "check_suite", fixture: "check_suite.rerequested",
			mutate:     ours("check_suite.app.id"),
			wantStatus: 202, wantJobs: []app.Job{evalPR("rerequested", 957387, "Codertocat", "Hello-World", 2, helloHead, "octocoders-linter[bot]")}},
		{name: "check_suite rerequested, fork (no PRs) → SHA", event: "check_suite", fixture: "check_suite.rerequested",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "check_suite.app.id", float64(testAppID))
				set(t, m, "check_suite.pull_requests", []any{})
			},
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindEvaluateSHA, Action: "rerequested", InstallationID: 957387,
				Owner: "Codertocat", Repo: "Hello-World", HeadSHA: helloHead, Sender: "octocoders-linter[bot]"}}},
		{name: "check_suite rerequested with two PRs → two jobs", event: "check_suite", fixture: "check_suite.rerequested",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "check_suite.app.id", float64(testAppID))
				prs := get(t, m, "check_suite.pull_requests").([]any)
				second := map[string]any{}
				for k, v := range prs[0].(map[string]any) {
					second[k] = v
				}
				second["number"] = float64(3)
				set(t, m, "check_suite.pull_requests", append(prs, second))
			},
			wantStatus: 202, wantJobs: []app.Job{
				evalPR("rerequested", 957387, "Codertocat", "Hello-World", 2, helloHead, "octocoders-linter[bot]"),
				evalPR("rerequested", 957387, "Codertocat", "Hello-World", 3, helloHead, "octocoders-linter[bot]"),
			}},
		{name: "check_suite rerequested for another app", event: "check_suite", fixture: "check_suite.rerequested",
			wantStatus: 200, wantReason: "belongs to app 29310"},
		{name: "check_suite rerequested by our own bot", event: "check_suite", fixture: "check_suite.rerequested",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "check_suite.app.id", float64(testAppID))
				set(t, m, "sender.login", "shipgate[bot]")
			},
			wantStatus: 200, wantReason: "is this app"},
		{name: "check_suite requested", event: "check_suite", fixture: "check_suite.requested",
			mutate: ours("check_suite.app.id"), wantStatus: 200, wantReason: `"requested"`},
		{name: "check_suite completed", event: "check_suite", fixture: "check_suite.completed",
			mutate: ours("check_suite.app.id"), wantStatus: 200, wantReason: `"completed"`},

		// push
		{name: "push to default branch without policy change", event: "push", fixture: "push.branch",
			wantStatus: 200, wantReason: "does not change the Shipgate policy"},
		{name: "push modifies repo policy", event: "push", fixture: "push.branch",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "commits.0.modified", []any{"README.md", ".github/shipgate.yml"})
			},
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindReevaluateRepo, InstallationID: 1, Owner: "Codertocat",
				Repo: "Hello-World", HeadSHA: pushAfter, Sender: "Codertocat"}}},
		{name: "push removes repo policy (head_commit only)", event: "push", fixture: "push.branch",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "commits", []any{})
				set(t, m, "head_commit.removed", []any{".github/shipgate.yml"})
			},
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindReevaluateRepo, InstallationID: 1, Owner: "Codertocat",
				Repo: "Hello-World", HeadSHA: pushAfter, Sender: "Codertocat"}}},
		{name: "push of policy to another branch", event: "push", fixture: "push.branch",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "ref", "refs/heads/feature")
				set(t, m, "commits.0.added", []any{".github/shipgate.yml"})
			},
			wantStatus: 200, wantReason: "not to the default branch"},
		{name: "push adds org policy in .github repo", event: "push", fixture: "push.branch",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "repository.name", ".github")
				set(t, m, "repository.full_name", "Codertocat/.github")
				set(t, m, "commits.0.added", []any{"shipgate.yml"})
			},
			wantStatus: 202, wantJobs: []app.Job{{Kind: app.KindReevaluateOrg, InstallationID: 1, Owner: "Codertocat",
				Repo: ".github", HeadSHA: pushAfter, Sender: "Codertocat"}}},
		{name: "push changes both policies in .github repo", event: "push", fixture: "push.branch",
			mutate: func(t testing.TB, m map[string]any) {
				set(t, m, "repository.name", ".github")
				set(t, m, "commits.0.modified", []any{"shipgate.yml", ".github/shipgate.yml"})
			},
			wantStatus: 202, wantJobs: []app.Job{
				{Kind: app.KindReevaluateRepo, InstallationID: 1, Owner: "Codertocat", Repo: ".github", HeadSHA: pushAfter, Sender: "Codertocat"},
				{Kind: app.KindReevaluateOrg, InstallationID: 1, Owner: "Codertocat", Repo: ".github", HeadSHA: pushAfter, Sender: "Codertocat"},
			}},
		{name: "root shipgate.yml outside .github repo", event: "push", fixture: "push.branch",
			mutate:     func(t testing.TB, m map[string]any) { set(t, m, "commits.0.added", []any{"shipgate.yml"}) },
			wantStatus: 200, wantReason: "does not change the Shipgate policy"},
		{name: "push of a tag", event: "push", fixture: "push.tag", wantStatus: 200, wantReason: "not to the default branch"},
		{name: "policy push without installation", event: "push", fixture: "push.branch",
			mutate: func(t testing.TB, m map[string]any) {
				delete(m, "installation")
				set(t, m, "commits.0.added", []any{".github/shipgate.yml"})
			},
			wantStatus: 200, wantReason: "no installation id"},

		// installation and others
		{name: "installation created", event: "installation", fixture: "installation.created", wantStatus: 200, wantReason: "logged"},
		{name: "installation_repositories added", event: "installation_repositories", fixture: "installation_repositories.added", wantStatus: 200, wantReason: "logged"},
		{name: "unused event", event: "issues", fixture: "ping", wantStatus: 200, wantReason: `"issues" is not used`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			m := fixture(t, tc.fixture)
			if tc.mutate != nil {
				tc.mutate(t, m)
			}
			w := serve(env.srv, request(tc.event, "delivery-1", mustJSON(t, m)))
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.wantStatus, w.Body)
			}
			resp := decodeResponse(t, w)
			batches := env.rec.all()
			if tc.wantJobs == nil {
				if resp.Status != "ignored" || !strings.Contains(resp.Reason, tc.wantReason) {
					t.Fatalf("response %+v, want ignored with reason containing %q", resp, tc.wantReason)
				}
				if len(batches) != 0 {
					t.Fatalf("queued %v for an ignored delivery", batches)
				}
				return
			}
			if resp.Status != "queued" || resp.Jobs != len(tc.wantJobs) {
				t.Fatalf("response %+v, want queued with %d jobs", resp, len(tc.wantJobs))
			}
			if len(batches) != 1 {
				t.Fatalf("got %d batches, want 1", len(batches))
			}
			got := batches[0]
			if len(got) != len(tc.wantJobs) {
				t.Fatalf("got %d jobs %+v, want %d", len(got), got, len(tc.wantJobs))
			}
			for i, want := range tc.wantJobs {
				g := got[i]
				if g.DeliveryID != "delivery-1" || g.Event != tc.event || g.ReceivedAt.IsZero() {
					t.Errorf("job %d delivery fields: %+v", i, g)
				}
				g.DeliveryID, g.Event, g.ReceivedAt = "", "", want.ReceivedAt
				if g != want {
					t.Errorf("job %d:\n got %+v\nwant %+v", i, g, want)
				}
			}
		})
	}
}

func TestBadPayload(t *testing.T) {
	env := newTestEnv(t, nil)
	for _, tc := range []struct {
		name, event string
		body        []byte
	}{
		{"not json", "pull_request", []byte(`{"action": "opened", `)},
		{"wrong type", "pull_request", []byte(`{"action": "opened", "number": "two"}`)},
		{"no repository", "pull_request", []byte(`{"action": "opened", "number": 2, "installation": {"id": 1}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(env.srv, request(tc.event, "d-"+tc.name, tc.body))
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", w.Code, w.Body)
			}
		})
	}
	if got := metricValue(t, env.reg, "shipgate_webhook_rejections_total", map[string]string{"reason": reasonBadPayload}); got != 3 {
		t.Fatalf("bad_payload rejections = %v, want 3", got)
	}
}

func TestPing(t *testing.T) {
	env := newTestEnv(t, nil)
	w := serve(env.srv, request("ping", "p-1", mustJSON(t, fixture(t, "ping"))))
	if w.Code != http.StatusOK || decodeResponse(t, w).Status != "pong" {
		t.Fatalf("ping: %d %s", w.Code, w.Body)
	}
}

func TestPushCommitLimitCountsAsPolicyChange(t *testing.T) {
	env := newTestEnv(t, nil)
	m := fixture(t, "push.branch")
	commit := get(t, m, "commits.0")
	commits := make([]any, pushCommitLimit)
	for i := range commits {
		commits[i] = commit
	}
	set(t, m, "commits", commits)
	w := serve(env.srv, request("push", "big-push", mustJSON(t, m)))
	if w.Code != http.StatusAccepted {
		t.Fatalf("status %d, want 202 (a truncated commit list may hide a policy change)", w.Code)
	}
}
