package webhook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// octokitExamples loads testdata/octokit/<event>.json: every example
// @octokit/webhooks-examples publishes for an event the router decodes.
func octokitExamples(t testing.TB, event string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "octokit", event+".json"))
	if err != nil {
		t.Fatalf("read octokit examples: %v", err)
	}
	var f struct {
		Source   string           `json:"source"`
		Examples []map[string]any `json:"examples"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("decode octokit examples of %s: %v", event, err)
	}
	if !strings.Contains(f.Source, "@octokit/webhooks-examples@7.6.1") || len(f.Examples) == 0 {
		t.Fatalf("testdata/octokit/%s.json: source %q, %d examples", event, f.Source, len(f.Examples))
	}
	return f.Examples
}

// TestOctokitExamples routes every example GitHub's @octokit/webhooks-examples
// 7.6.1 publishes for the events Shipgate decodes, unchanged except that the
// check_run / check_suite app id is set to this App's where the example
// names one (so the router goes past the "another app" filter), and checks
// the outcome each must get. None may be answered 400: they are GitHub's own
// deliveries, and fields Shipgate does not read must not fail them
// (check_run examples 7 and 8 spell timestamps "2018-04-25 20:42:10").
func TestOctokitExamples(t *testing.T) {
	// want, per example in the package's order: "pong", "queued" (202, one
	// job or more), or a substring of the 200 "ignored" reason.
	want := map[string][]string{
		"ping":                      {`pong`, `pong`, `pong`, `pong`},
		"installation":              {`logged`, `logged`, `logged`, `logged`, `logged`, `logged`, `logged`},
		"installation_repositories": {`logged`, `logged`, `logged`},
		"pull_request": {`no installation id`, `"assigned"`, `"assigned"`, `"closed"`, `"closed"`, `"converted_to_draft"`,
			`"converted_to_draft"`, `"converted_to_draft"`, `"labeled"`, `"labeled"`, `"locked"`, `"locked"`, `queued`, `queued`,
			`queued`, `no installation id`, `queued`, `no installation id`, `queued`, `queued`, `"review_request_removed"`,
			`"review_requested"`, `queued`, `"unassigned"`, `"unassigned"`, `"unlabeled"`, `"unlabeled"`, `"unlocked"`, `"unlocked"`},
		"pull_request_review": {`no installation id`, `queued`, `queued`, `queued`},
		"check_run":           {`"created"`, `"completed"`, `"completed"`, `"completed"`, `"created"`, `"created"`, `queued`, `queued`, `queued`},
		"check_suite":         {`"completed"`, `"completed"`, `"completed"`, `"completed"`, `"requested"`, `"requested"`, `"requested"`, `queued`, `queued`},
		"push": {`not to the default branch`, `not to the default branch`, `not to the default branch`, `not to the default branch`,
			`does not change the Shipgate policy`, `does not change the Shipgate policy`, `not to the default branch`},
	}
	for event, wants := range want {
		examples := octokitExamples(t, event)
		if len(examples) != len(wants) {
			t.Fatalf("%s: %d examples, the table expects %d", event, len(examples), len(wants))
		}
		for i, ex := range examples {
			t.Run(fmt.Sprintf("%s/%d/%v", event, i, ex["action"]), func(t *testing.T) {
				for _, obj := range []string{"check_run", "check_suite"} {
					if _, ok := ex[obj]; ok {
						set(t, ex, obj+".app.id", float64(testAppID))
					}
				}
				env := newTestEnv(t, nil)
				w := serve(env.srv, request(event, fmt.Sprintf("oct-%s-%d", event, i), mustJSON(t, ex)))
				resp := decodeResponse(t, w)
				switch wants[i] {
				case "pong":
					if w.Code != 200 || resp.Status != "pong" {
						t.Fatalf("%d %+v, want 200 pong", w.Code, resp)
					}
				case "queued":
					if w.Code != 202 || resp.Status != "queued" || resp.Jobs < 1 {
						t.Fatalf("%d %+v, want 202 queued", w.Code, resp)
					}
					for _, batch := range env.rec.all() {
						for _, j := range batch {
							if j.InstallationID <= 0 || !validOwner(j.Owner) || !validRepoName(j.Repo) || j.PRNumber < 0 || !validSHA(j.HeadSHA) {
								t.Errorf("job from GitHub's example has unusable fields: %+v", j)
							}
						}
					}
				default:
					if w.Code != 200 || resp.Status != "ignored" || !strings.Contains(resp.Reason, wants[i]) {
						t.Fatalf("%d %+v, want 200 ignored with a reason containing %q", w.Code, resp, wants[i])
					}
				}
			})
		}
	}
}
