package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shipgate-app/shipgate/githubtest"
)

// demoBase is the repository's settings on main in the demo.
const demoBase = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm test:*)",
      "Bash(npm run lint:*)",
      "Bash(git status)",
      "Bash(git diff:*)",
      "Read(src/**)"
    ],
    "deny": [
      "Read(.env)",
      "Bash(curl:*)"
    ]
  }
}
`

// demoWiden widens: npm test → all of npm, a launcher, a removed deny.
const demoWiden = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm *)",
      "Bash(npm run lint:*)",
      "Bash(npx:*)",
      "Bash(git status)",
      "Bash(git diff:*)",
      "Read(src/**)"
    ],
    "deny": [
      "Read(.env)"
    ]
  }
}
`

// demoNarrow narrows: the lint prefix becomes one exact command, a legacy
// spelling is respelled, and a deny rule is added.
const demoNarrow = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm test *)",
      "Bash(npm run lint)",
      "Bash(git status)",
      "Bash(git diff *)",
      "Read(src/**)"
    ],
    "deny": [
      "Read(.env)",
      "Read(.env.*)",
      "Bash(curl:*)"
    ]
  }
}
`

// demoPR is one pull request the demo opens.
type demoPR struct {
	branch, title string
	files         map[string]string
	number        int
	head          string
}

func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", "[--listen ADDR [--secret S]] [--verbose]", stderr)
	listen := fs.String("listen", "", "keep the App serving on ADDR after the demo (the fake GitHub on the next free port) for manual tries; the webhook secret is printed")
	secretFlag := fs.String("secret", "", "the webhook secret the App checks deliveries with (default: random, printed with --listen)")
	verbose := fs.Bool("verbose", false, "print the App's logs")
	timeout := fs.Duration("timeout", 60*time.Second, "how long to wait for the check runs")
	if _, err := parseFlags(fs, args); err != nil {
		return flagError(err)
	}
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "shipgate demo: "+format+"\n", a...)
		return exitFail
	}

	// The fake GitHub, with an App key and a webhook secret made for the run.
	key, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		return fail("generating the App key: %v", err)
	}
	secret := *secretFlag
	if secret == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return fail("generating the webhook secret: %v", err)
		}
		secret = hex.EncodeToString(b)
	}
	const appID = 1
	gh := githubtest.New(githubtest.Options{AppID: appID, AppSlug: "shipgate", AppPublicKey: &key.PublicKey})
	if gh.Err() != nil {
		return fail("starting the fake GitHub: %v", gh.Err())
	}
	defer gh.Close()

	// The real App server on loopback, talking to the fake over HTTP.
	addr := "127.0.0.1:0"
	if *listen != "" {
		addr = *listen
	}
	ctx := context.Background()
	srv, err := startServer(ctx, serveConfig{Listen: addr, AppID: appID, PrivateKey: pemKey,
		WebhookSecrets: []string{secret}, GitHubURL: gh.URL() + "/", Workers: 4, QueueSize: 100,
		JobTimeout: 30 * time.Second, Logger: logger})
	if err != nil {
		return fail("starting the App: %v", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.shutdown(sctx)
	}()
	if err := gh.SetWebhook(appID, srv.URL()+"/webhook", secret); err != nil {
		return fail("pointing the fake GitHub at the App: %v", err)
	}
	fmt.Fprintf(stdout, "Shipgate demo: the App listens on %s; a fake GitHub on %s sends it signed deliveries.\n\n", srv.URL(), gh.URL())

	// A repository with agent settings, the App installed on it.
	if _, err := gh.CreateRepo(githubtest.RepoOptions{Owner: "acme", Name: "webapp", Private: true,
		Files: map[string]string{".claude/settings.json": demoBase, "README.md": "# webapp\n"}}); err != nil {
		return fail("creating the repository: %v", err)
	}
	if _, _, err := gh.Install(githubtest.InstallationOptions{Account: "acme", Repositories: []string{"webapp"}}); err != nil {
		return fail("installing the App: %v", err)
	}
	prs := []*demoPR{
		{branch: "widen-npm", title: "Let the agent run any npm command", files: map[string]string{".claude/settings.json": demoWiden}},
		{branch: "tidy-permissions", title: "Tidy agent permissions", files: map[string]string{".claude/settings.json": demoNarrow}},
		{branch: "docs", title: "Update the README", files: map[string]string{"README.md": "# webapp\n\nNow with docs.\n"}},
	}
	for _, p := range prs {
		if _, err := gh.CreateBranch("acme", "webapp", p.branch, "main"); err != nil {
			return fail("creating branch %s: %v", p.branch, err)
		}
		if _, err := gh.PushCommit("acme", "webapp", p.branch, p.files, p.title); err != nil {
			return fail("pushing to %s: %v", p.branch, err)
		}
		pr, _, err := gh.OpenPR(githubtest.PROptions{Owner: "acme", Repo: "webapp", Head: p.branch, Title: p.title, Author: "dev"})
		if err != nil {
			return fail("opening the pull request from %s: %v", p.branch, err)
		}
		p.number, p.head = pr.Number, pr.HeadSHA
	}

	// Wait for every check run to complete, then show them as a reviewer
	// sees them.
	deadline := time.Now().Add(*timeout)
	for _, p := range prs {
		run, ok := waitForRun(gh, "acme", "webapp", p.head, deadline)
		if !ok {
			return fail("no completed check run for pull request #%d within %s (try --verbose)", p.number, *timeout)
		}
		printRun(stdout, p, run)
		printComments(stdout, gh, p, deadline)
	}
	if *listen == "" {
		return exitOK
	}
	sig, stop := demoStop()
	defer stop()
	fmt.Fprintf(stdout, "Serving: the App on %s, the fake GitHub on %s (App ID %d). Ctrl-C to stop.\n", srv.URL(), gh.URL(), appID)
	fmt.Fprintf(stdout, "Webhook secret: %s\n", secret)
	fmt.Fprintf(stdout, "Send your own delivery, signed with it:\n"+
		"  body='{\"zen\":\"hi\",\"hook_id\":1}'\n"+
		"  sig=$(printf '%%s' \"$body\" | openssl dgst -sha256 -hmac %s | sed 's/^.* //')\n"+
		"  curl -sS %s/webhook -H 'X-GitHub-Event: ping' -H \"X-GitHub-Delivery: $(uuidgen)\" \\\n"+
		"    -H \"X-Hub-Signature-256: sha256=$sig\" -H 'Content-Type: application/json' -d \"$body\"\n",
		shellQuote(secret), srv.URL())
	<-sig.Done()
	return exitOK
}

// demoStop is what `demo --listen` serves until: an interrupt or a
// SIGTERM (a variable, so that a test can stop it instead).
var demoStop = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// waitForRun polls the fake for the completed shipgate run of a commit.
func waitForRun(gh *githubtest.Server, owner, repo, sha string, deadline time.Time) (githubtest.CheckRun, bool) {
	for time.Now().Before(deadline) {
		for _, r := range gh.CheckRuns(owner, repo, githubtest.CheckRunFilter{HeadSHA: sha, Name: "shipgate"}) {
			if r.Status == "completed" {
				return r, true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return githubtest.CheckRun{}, false
}

// printRun shows a check run as a reviewer reads it on the pull request.
func printRun(w io.Writer, p *demoPR, r githubtest.CheckRun) {
	rule := strings.Repeat("─", 78)
	fmt.Fprintf(w, "%s\nPull request #%d %q → check %q: %s\n%s\n", rule, p.number, p.title, r.Name, strings.ToUpper(r.Conclusion), rule)
	fmt.Fprintf(w, "Title: %s\n\n%s\n", r.Title, strings.TrimSpace(r.Summary))
	if len(r.Annotations) > 0 {
		fmt.Fprintf(w, "\nAnnotations:\n")
		for _, a := range r.Annotations {
			fmt.Fprintf(w, "  %s:%d [%s] %s\n      %s\n", a.Path, a.StartLine, a.AnnotationLevel, a.Title, a.Message)
		}
	}
	fmt.Fprintln(w)
}

// printComments shows the review comments the App posted on a pull
// request — its proven narrower rules as GitHub suggested changes — once
// the job that completed the run has posted them (they follow the run).
func printComments(w io.Writer, gh *githubtest.Server, p *demoPR, deadline time.Time) {
	run, _ := waitForRun(gh, "acme", "webapp", p.head, deadline)
	if !strings.Contains(run.Summary, "Suggested narrower rules") {
		return
	}
	var cs []githubtest.ReviewComment
	for time.Now().Before(deadline) {
		if cs = gh.ReviewComments("acme", "webapp", p.number); len(cs) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range cs {
		fmt.Fprintf(w, "Review comment by %s on %s:%d (one click applies it):\n", c.User, c.Path, c.Line)
		for _, l := range strings.Split(strings.TrimSpace(c.Body), "\n") {
			if !strings.HasPrefix(l, "<!--") {
				fmt.Fprintf(w, "  | %s\n", l)
			}
		}
		fmt.Fprintln(w)
	}
}
