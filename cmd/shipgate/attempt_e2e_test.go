package main

import (
	"context"
	"testing"

	"github.com/shipgate-app/shipgate/app"
)

// TestE2EAttemptAfterPublishIsIdempotent: a job runs at least once — a
// replica killed (or stalled past its lease) after publishing the run but
// before the queue recorded the job runs it again elsewhere. That second
// attempt finds the run its delivery published on the head and does not
// add a second one; a first attempt, or another delivery's job, evaluates
// as always.
func TestE2EAttemptAfterPublishIsIdempotent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"agent config changed", map[string]string{".claude/settings.json": settingsJSON(append(baseAllow, "Bash(npm run lint)"), baseDeny)}},
		{"no agent config", map[string]string{"docs/x.md": "x\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newE2E(t)
			env.repo("svc", map[string]string{".claude/settings.json": baseSettings})
			pr := env.openPR("svc", "change", tc.files)
			first := env.waitCompleted("svc", pr.HeadSHA, 1)
			env.waitJobs(1)
			var guid string
			for _, d := range env.gh.Deliveries() {
				if d.Event == "pull_request" && d.Action == "opened" {
					guid = d.GUID
				}
			}
			job := app.Job{Kind: app.KindEvaluatePR, DeliveryID: guid, Event: "pull_request", Action: "opened",
				InstallationID: first.InstallationID, Owner: e2eOwner, Repo: "svc", PRNumber: pr.Number, HeadSHA: pr.HeadSHA}
			ctx := context.Background()
			// The same delivery's job again, as its second attempt: nothing new.
			if _, err := env.srv.worker.Process(app.WithAttempt(ctx, 2), job); err != nil {
				t.Fatal(err)
			}
			if runs := env.runs("svc", pr.HeadSHA); len(runs) != 1 {
				t.Fatalf("%d runs after a second attempt of the job that published, want 1", len(runs))
			}
			// Another delivery's job (a review, a re-run) evaluates again.
			other := job
			other.DeliveryID = "another-delivery"
			if _, err := env.srv.worker.Process(app.WithAttempt(ctx, 2), other); err != nil {
				t.Fatal(err)
			}
			if runs := env.runs("svc", pr.HeadSHA); len(runs) != 2 || runs[1].Status != "completed" || runs[1].Conclusion != first.Conclusion {
				t.Fatalf("runs %+v after another delivery's job, want a second completed run with the same verdict", runs)
			}
			env.noneInProgress("svc")
		})
	}
}
