package githubtest

import (
	"context"
	"testing"

	"github.com/google/go-github/v62/github"
)

// TestClientStack drives every endpoint with the real client stack
// (go-github v62 and ghinstallation v2.11.0), at the api.github.com and the
// GHES (/api/v3) base URLs, validating every request and response.
func TestClientStack(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, ghes := range []bool{false, true} {
		app, _ := f.appClient(ghes)
		a, _, err := app.Apps.Get(ctx, "")
		must(t, err)
		if a.GetID() != testAppID {
			t.Fatalf("app id %d", a.GetID())
		}
		_, _, err = app.Apps.ListInstallations(ctx, nil)
		must(t, err)
		_, _, err = app.Apps.FindRepositoryInstallation(ctx, "acme", "widgets")
		must(t, err)
		c := f.instClient(f.inst.ID, ghes)
		_, _, err = c.Repositories.Get(ctx, "acme", "widgets")
		must(t, err)
		fc, _, _, err := c.Repositories.GetContents(ctx, "acme", "widgets", ".claude/settings.json", nil)
		must(t, err)
		content, err := fc.GetContent()
		must(t, err)
		if content == "" {
			t.Fatal("empty content")
		}
		_, dir, _, err := c.Repositories.GetContents(ctx, "acme", "widgets", "", nil)
		must(t, err)
		if len(dir) != 2 {
			t.Fatalf("dir %d", len(dir))
		}
		_, _, err = c.RateLimit.Get(ctx)
		must(t, err)
	}
	_, err := f.srv.PushCommit("acme", "widgets", "feature", map[string]string{".claude/settings.json": "{}\n", "a/b.txt": "x\n"}, "change")
	must(t, err)
	pr, _, err := f.srv.OpenPR(PROptions{Owner: "acme", Repo: "widgets", Head: "feature"})
	must(t, err)
	c := f.instClient(f.inst.ID, false)
	_, _, err = c.PullRequests.Get(ctx, "acme", "widgets", pr.Number)
	must(t, err)
	_, _, err = c.PullRequests.List(ctx, "acme", "widgets", nil)
	must(t, err)
	files, _, err := c.PullRequests.ListFiles(ctx, "acme", "widgets", pr.Number, nil)
	must(t, err)
	if len(files) != 2 {
		t.Fatalf("files %d", len(files))
	}
	_, _, err = f.srv.SubmitReview("acme", "widgets", pr.Number, "alice", "APPROVED", "")
	must(t, err)
	_, _, err = c.PullRequests.ListReviews(ctx, "acme", "widgets", pr.Number, nil)
	must(t, err)
	run, _, err := c.Checks.CreateCheckRun(ctx, "acme", "widgets", github.CreateCheckRunOptions{Name: "shipgate", HeadSHA: pr.HeadSHA, Status: github.String("in_progress")})
	must(t, err)
	_, _, err = c.Checks.UpdateCheckRun(ctx, "acme", "widgets", run.GetID(), github.UpdateCheckRunOptions{Name: "shipgate", Conclusion: github.String("success"),
		Output: &github.CheckRunOutput{Title: github.String("ok"), Summary: github.String("fine"), Annotations: []*github.CheckRunAnnotation{{
			Path: github.String(".claude/settings.json"), StartLine: github.Int(1), EndLine: github.Int(1), AnnotationLevel: github.String("notice"), Message: github.String("m")}}}})
	must(t, err)
	_, _, err = c.Checks.GetCheckRun(ctx, "acme", "widgets", run.GetID())
	must(t, err)
	_, _, err = c.Checks.ListCheckRunAnnotations(ctx, "acme", "widgets", run.GetID(), nil)
	must(t, err)
	_, _, err = c.Checks.ListCheckRunsForRef(ctx, "acme", "widgets", pr.HeadSHA, nil)
	must(t, err)
	must(t, f.srv.SetTeamMembership("acme", "security", "alice", "", ""))
	_, _, err = c.Teams.GetTeamMembershipBySlug(ctx, "acme", "security", "alice")
	must(t, err)
	app, _ := f.appClient(false)
	ds, _, err := app.Apps.ListHookDeliveries(ctx, nil)
	must(t, err)
	if len(ds) == 0 {
		t.Fatal("no deliveries")
	}
	_, _, err = app.Apps.GetHookDelivery(ctx, ds[0].GetID())
	must(t, err)
}
