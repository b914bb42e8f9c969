package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/githubtest"
)

// waitComments waits for n review comments on a pull request.
func (e *e2eEnv) waitComments(repo string, pr, n int) []githubtest.ReviewComment {
	e.t.Helper()
	var got []githubtest.ReviewComment
	e.eventually("review comments", func() (bool, string) {
		got = e.gh.ReviewComments(e2eOwner, repo, pr)
		return len(got) >= n, ""
	})
	return got
}

// TestE2ESuggestionApplied: a widening gets a review comment with a
// GitHub suggested change on the rule's line of the head commit; re-running
// the check on the same head posts no second comment; the suggestion,
// applied as GitHub's "Commit suggestion" does, makes the next run pass.
func TestE2ESuggestionApplied(t *testing.T) {
	t.Parallel()
	const repo = "suggest"
	env := newE2E(t)
	env.repo(repo, map[string]string{".claude/settings.json": baseSettings, "README.md": "# x\n"})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR(repo, "widen", map[string]string{".claude/settings.json": widen})
	run := env.waitCompleted(repo, pr.HeadSHA, 1)
	if run.Conclusion != "action_required" {
		t.Fatalf("the widening: %s %q", run.Conclusion, run.Title)
	}
	if !strings.Contains(run.Summary, "Suggested narrower rules") || !strings.Contains(run.Summary, "replace `Bash(npm *)` with `Bash(npm test:*)`") {
		t.Errorf("the summary lists no suggestion:\n%s", run.Summary)
	}
	cs := env.waitComments(repo, pr.Number, 1)
	c := cs[0]
	line := lineOf(t, widen, `"Bash(npm *)"`)
	if c.Path != ".claude/settings.json" || c.Line != line || c.Side != "RIGHT" || c.CommitID != pr.HeadSHA || c.User != "shipgate[bot]" {
		t.Fatalf("comment at %s:%d %s on %.8s by %s, want .claude/settings.json:%d RIGHT on %.8s", c.Path, c.Line, c.Side, c.CommitID, c.User, line, pr.HeadSHA)
	}
	for _, want := range []string{"```suggestion\n      \"Bash(npm test:*)\",\n```", "does not match `npm publish`", "<!-- shipgate:suggestion="} {
		if !strings.Contains(c.Body, want) {
			t.Errorf("comment body lacks %q:\n%s", want, c.Body)
		}
	}

	// Re-run on the same head: a second run, no second comment.
	if _, err := env.gh.RerequestCheckRun(run.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	env.waitCompleted(repo, pr.HeadSHA, 2)
	env.waitJobs(2)
	if n := len(env.gh.ReviewComments(e2eOwner, repo, pr.Number)); n != 1 {
		t.Fatalf("%d review comments after a re-run of the same head, want 1", n)
	}

	// Applied, the suggestion restores what the base allowed: the next run passes.
	sha, _, err := env.gh.ApplySuggestion(e2eOwner, repo, pr.Number, c.ID, "alice")
	if err != nil {
		t.Fatal(err)
	}
	run = env.waitCompleted(repo, sha, 1)
	if run.Conclusion != "success" {
		t.Fatalf("after applying the suggestion: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}
	env.waitJobs(3)
	if n := len(env.gh.ReviewComments(e2eOwner, repo, pr.Number)); n != 1 {
		t.Errorf("%d review comments after the passing run, want 1", n)
	}
	env.noneInProgress(repo)
}

// TestE2ENoSuggestion: a new rule that nothing at the base or in the
// policy needs gets no suggestion and no review comment (nothing says what
// a narrower rule would keep); nor does one the policy's intents need whole.
func TestE2ENoSuggestion(t *testing.T) {
	t.Parallel()
	const repo = "no-suggest"
	env := newE2E(t)
	env.repo(repo, map[string]string{".claude/settings.json": baseSettings, ".github/shipgate.yml": "version: 1\nintent:\n  allowed: [\"make build\"]\n", "README.md": "# x\n"})
	add := settingsJSON(append(append([]string(nil), baseAllow...), "Bash(make build)", "Bash(cargo test *)"), baseDeny)
	pr := env.openPR(repo, "add", map[string]string{".claude/settings.json": add})
	run := env.waitCompleted(repo, pr.HeadSHA, 1)
	if run.Conclusion != "action_required" {
		t.Fatalf("the additions: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}
	env.waitJobs(1)
	if cs := env.gh.ReviewComments(e2eOwner, repo, pr.Number); len(cs) != 0 {
		t.Fatalf("a suggestion was posted where none exists: %+v", cs)
	}
	if strings.Contains(run.Summary, "Suggested narrower rules") {
		t.Errorf("the summary offers a suggestion:\n%s", run.Summary)
	}
}

// TestE2EClearing: the summary's first lines give the decision, who can
// clear it (the policy's teams, or that none is configured) and how (this
// exact delta); the details link opens the deciding check's section of
// the catalogue.
func TestE2EClearing(t *testing.T) {
	t.Parallel()
	env := approvalsEnv(t, "clearing")
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	pr := env.openPR("clearing", "widen", map[string]string{".claude/settings.json": widen})
	run := env.waitCompleted("clearing", pr.HeadSHA, 1)
	lines := strings.SplitN(run.Summary, "\n", 5)
	if !strings.HasPrefix(lines[0], "### ⚠️ Review required") {
		t.Errorf("first line %q is not the decision", lines[0])
	}
	// What changed leads (issue 22); the clearing line follows the table.
	table, after, ok := strings.Cut(run.Summary, "**To clear this run:**")
	if !ok || !strings.Contains(table, "#### What changed") || !strings.Contains(table, "`npm publish`") {
		t.Errorf("the table of what changed does not come before the clearing line:\n%s", run.Summary)
	}
	for _, want := range []string{"an approving review at this commit from a member of `@acme/security` or `@acme/security-leads`", "bound to this exact delta, `sha256:"} {
		if !strings.Contains(after, want) {
			t.Errorf("the clearing line lacks %q:\n%s", want, run.Summary)
		}
	}
	if want := "docs/checks.md#ship-host-boundary-permission-allow-expanded"; !strings.HasSuffix(run.DetailsURL, want) {
		t.Errorf("details_url %q, want the catalogue's section (…%s)", run.DetailsURL, want)
	}

	// A block with a review team only: no team may clear it.
	env2 := newE2E(t)
	env2.repo("noteam", map[string]string{".claude/settings.json": baseSettings, "README.md": "# x\n"})
	block := settingsJSON(append(append([]string(nil), baseAllow...), "Bash(npx:*)"), baseDeny)
	pr2 := env2.openPR("noteam", "npx", map[string]string{".claude/settings.json": block})
	run = env2.waitCompleted("noteam", pr2.HeadSHA, 1)
	if !strings.HasPrefix(run.Summary, "### ⛔ Blocked") || !strings.Contains(run.Summary, "**To clear this run:** change the files so that nothing in the table is flagged, or a maintainer merges past the check: no review clears it, because no reviewer team is configured (`reviewers` in `.github/shipgate.yml`)") {
		t.Errorf("the clearing line does not say no team is configured:\n%s", run.Summary)
	}
	if want := "#ship-host-boundary-permission-wildcard-allow"; !strings.HasSuffix(run.DetailsURL, want) {
		t.Errorf("details_url %q, want …%s", run.DetailsURL, want)
	}
}

// TestE2EAnnotationsByMeaning: a removed deny rule's annotation says the
// calls are no longer denied (not "now runs without a prompt", nor a
// "narrower rule to keep"), naming each once (the details do not repeat
// the message's witnesses); the tables and the annotation name one line;
// an intent finding is annotated on the policy file.
func TestE2EAnnotationsByMeaning(t *testing.T) {
	t.Parallel()
	const repo = "meaning"
	env := newE2E(t)
	env.repo(repo, map[string]string{".claude/settings.json": baseSettings, ".github/shipgate.yml": "version: 1\nintent:\n  denied: [\"curl https://example.com\"]\n", "README.md": "# x\n"})
	head := settingsJSON(baseAllow, replaced(baseDeny, "Bash(curl:*)"))
	pr := env.openPR(repo, "nodeny", map[string]string{".claude/settings.json": head})
	run := env.waitCompleted(repo, pr.HeadSHA, 1)
	var deny, intent *githubtest.Annotation
	for i, a := range run.Annotations {
		switch {
		case strings.Contains(a.Title, "DENY-REMOVED"):
			deny = &run.Annotations[i]
		case strings.Contains(a.Title, "INTENT-VIOLATED"):
			intent = &run.Annotations[i]
		}
	}
	if deny == nil || intent == nil {
		t.Fatalf("annotations %+v lack the deny removal or the intent", run.Annotations)
	}
	// Worded by meaning, and each witness once: the message names the
	// calls as no longer denied, so the details do not list them again.
	if strings.Contains(deny.RawDetails, "now runs without a prompt") || strings.Contains(deny.RawDetails, "narrower rule to keep") ||
		!strings.Contains(deny.Message, "`curl` — no longer denied") || strings.Contains(deny.RawDetails, "curl") {
		t.Errorf("the removed deny's annotation reads %q, details %q", deny.Message, deny.RawDetails)
	}
	denyLine := lineOf(t, head, `"deny"`)
	if deny.StartLine != denyLine {
		t.Errorf("the deny annotation is on line %d, want the deny list's line %d", deny.StartLine, denyLine)
	}
	if want := ".claude/settings.json:" + strconv.Itoa(denyLine) + " (line "; !strings.Contains(run.Summary, want) {
		t.Errorf("the summary does not place the removal where the annotation is (%q):\n%s", want, run.Summary)
	}
	if intent.Path != ".github/shipgate.yml" || intent.StartLine != 3 {
		t.Errorf("the intent annotation is at %s:%d, want .github/shipgate.yml:3", intent.Path, intent.StartLine)
	}
}

// TestE2ESuggestionMarkerQuoted: a reviewer's comment that quotes a
// suggestion's marker (copied from another pull request, or written on
// purpose) does not count as the App's own: the App still posts its
// suggestion on the line. Only the App's bot user's comments are read as
// suggestions already posted.
func TestE2ESuggestionMarkerQuoted(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	path, line := ".claude/settings.json", lineOf(t, widen, `"Bash(npm *)"`)

	// The marker as the App writes it, taken from its comment elsewhere.
	env.repo("quoted-src", map[string]string{path: baseSettings, "README.md": "# x\n"})
	src := env.openPR("quoted-src", "widen", map[string]string{path: widen})
	body := env.waitComments("quoted-src", src.Number, 1)[0].Body
	i := strings.Index(body, "<!-- shipgate:suggestion=")
	if i < 0 {
		t.Fatalf("the App's comment has no suggestion marker:\n%s", body)
	}
	marker := body[i:]

	// Another pull request: a narrowing first, on which mallory comments
	// with the marker on the rule's line; then the widening is pushed.
	const repo = "quoted"
	env.repo(repo, map[string]string{path: baseSettings, "README.md": "# x\n"})
	narrow := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test -- --ci)"), baseDeny)
	pr := env.openPR(repo, "narrow", map[string]string{path: narrow})
	if run := env.waitCompleted(repo, pr.HeadSHA, 1); run.Conclusion != "success" {
		t.Fatalf("the narrowing: %s %q\n%s", run.Conclusion, run.Title, run.Summary)
	}
	if _, err := env.gh.CommentOnLine("mallory", e2eOwner, repo, pr.Number, path, line, "looks fine\n"+marker); err != nil {
		t.Fatal(err)
	}
	sha, _, err := env.gh.Synchronize(e2eOwner, repo, pr.Number, map[string]string{path: widen}, "widen")
	if err != nil {
		t.Fatal(err)
	}
	if run := env.waitCompleted(repo, sha, 1); run.Conclusion != "action_required" {
		t.Fatalf("the widening: %s %q", run.Conclusion, run.Title)
	}
	cs := env.waitComments(repo, pr.Number, 2)
	if c := cs[1]; c.User != "shipgate[bot]" || c.Line != line || c.CommitID != sha || !strings.Contains(c.Body, "```suggestion") {
		t.Fatalf("the second comment is %+v, want the App's suggestion on line %d of %.8s", c, line, sha)
	}
}
