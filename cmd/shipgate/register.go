package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-github/v62/github"
)

// The GitHub App manifest Shipgate registers with: exactly the permissions
// the App uses and the events it handles. deploy/app-manifest.yml is the
// same manifest for people registering by hand; a test holds the two
// together.
var (
	// manifestPermissions: checks write (create and complete check runs);
	// contents read (settings files at base and head, the policy file);
	// pull_requests write (the pull request, its files, reviews; write to
	// post proven narrower rules as review comments with a suggested
	// change); metadata
	// read (required by GitHub for every App); members read (team
	// membership of approving reviewers).
	manifestPermissions = map[string]string{
		"checks": "write", "contents": "read", "pull_requests": "write", "metadata": "read", "members": "read",
	}
	// manifestEvents: pull_request (opened, synchronize, …), pull_request_review
	// (approvals that clear a review requirement), check_run and check_suite
	// (Re-run buttons), push (a policy file changed on a default branch).
	// installation events reach every App without a subscription.
	manifestEvents = []string{"pull_request", "pull_request_review", "check_run", "check_suite", "push"}
)

// appManifest is GitHub's App manifest (the fields Shipgate sets).
type appManifest struct {
	Name               string            `json:"name"`
	URL                string            `json:"url"`
	Description        string            `json:"description"`
	HookAttributes     hookAttributes    `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url"`
	Public             bool              `json:"public"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
}

type hookAttributes struct {
	URL    string `json:"url"`
	Active bool   `json:"active"`
}

// registerConfig is what `shipgate register` needs.
type registerConfig struct {
	Listen      string        // local address of the registration page
	WebhookURL  string        // where GitHub will send deliveries (the App's /webhook)
	Org         string        // register the App on this organisation ("" = the user's account)
	Name        string        // the App's name on GitHub (unique on GitHub)
	HomepageURL string        // the App's homepage
	APIURL      string        // REST API base (https://api.github.com/, https://HOST/api/v3/)
	WebURL      string        // web base (https://github.com, https://HOST)
	OutDir      string        // where the credentials are written
	Force       bool          // overwrite existing credential files
	Timeout     time.Duration // give up waiting after this long
	HTTPClient  *http.Client  // for the code exchange (tests: the fake GitHub)
	Logger      *slog.Logger
}

// credentialFiles are the files register writes, in the order printed.
var credentialFiles = []string{"app-id", "app-slug", "private-key.pem", "webhook-secret", "client-id", "client-secret"}

// registration is the result of a completed manifest flow.
type registration struct {
	ID      int64
	Slug    string
	Name    string
	HTMLURL string
	Owner   string
	Files   []string // paths written
}

// registrar serves the manifest flow: GET / shows the form that posts the
// manifest to GitHub; GitHub sends the browser back to GET /callback with a
// one-time code, which is exchanged for the App's credentials.
type registrar struct {
	cfg      registerConfig
	state    string // CSRF token: GitHub echoes it back on the redirect
	manifest []byte
	action   string // the form's target on GitHub
	gh       *github.Client

	mu       sync.Mutex
	finished bool
	done     chan registration
}

// newRegistrar validates cfg and builds the flow for a page served at base
// (http://host:port).
func newRegistrar(cfg registerConfig, base string) (*registrar, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	wu, err := url.Parse(cfg.WebhookURL)
	if cfg.WebhookURL == "" || err != nil || (wu.Scheme != "https" && wu.Scheme != "http") || wu.Host == "" {
		return nil, fmt.Errorf("--webhook-url %q: give the absolute URL GitHub will deliver to, such as https://shipgate.example.com/webhook", cfg.WebhookURL)
	}
	if cfg.Name == "" {
		return nil, errors.New("--name is empty: GitHub needs a name for the App")
	}
	if cfg.Org != "" && strings.ContainsAny(cfg.Org, "/?#% ") {
		return nil, fmt.Errorf("--org %q is not an organisation login", cfg.Org)
	}
	web, err := webURL(cfg.APIURL, cfg.WebURL)
	if err != nil {
		return nil, err
	}
	api, err := url.Parse(strings.TrimSuffix(cfg.APIURL, "/") + "/")
	if err != nil || api.Host == "" {
		return nil, fmt.Errorf("--github-url %q is not a URL", cfg.APIURL)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	gh := github.NewClient(hc)
	gh.BaseURL = api
	gh.UserAgent = "shipgate/" + version + " (register)"

	st := make([]byte, 32)
	if _, err := rand.Read(st); err != nil {
		return nil, fmt.Errorf("generating the state token: %w", err)
	}
	m := appManifest{
		Name: cfg.Name, URL: cfg.HomepageURL,
		Description:        "Reviews pull requests that change what AI coding agents (Claude Code) may do without asking, and reports a check run.",
		HookAttributes:     hookAttributes{URL: cfg.WebhookURL, Active: true},
		RedirectURL:        strings.TrimSuffix(base, "/") + "/callback",
		Public:             false,
		DefaultPermissions: manifestPermissions,
		DefaultEvents:      manifestEvents,
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	state := hex.EncodeToString(st)
	action := web + "/settings/apps/new"
	if cfg.Org != "" {
		action = web + "/organizations/" + url.PathEscape(cfg.Org) + "/settings/apps/new"
	}
	action += "?state=" + url.QueryEscape(state)
	return &registrar{cfg: cfg, state: state, manifest: mj, action: action, gh: gh, done: make(chan registration, 1)}, nil
}

// webURL is GitHub's web base for an API base: github.com for
// api.github.com, TENANT.ghe.com for api.TENANT.ghe.com, and the host of a
// GitHub Enterprise Server's /api/v3/; an explicit web URL wins.
func webURL(api, web string) (string, error) {
	if web != "" {
		u, err := url.Parse(web)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return "", fmt.Errorf("--github-web-url %q is not a URL", web)
		}
		return strings.TrimSuffix(web, "/"), nil
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("--github-url %q is not a URL", api)
	}
	switch host := u.Hostname(); {
	case host == "api.github.com":
		return "https://github.com", nil
	case strings.HasPrefix(host, "api.") && strings.HasSuffix(host, ".ghe.com"):
		return "https://" + strings.TrimPrefix(u.Host, "api."), nil
	}
	return u.Scheme + "://" + u.Host, nil
}

// checkWritable refuses, before anything is exchanged (the code works
// once), to overwrite credential files unless force is set.
func checkWritable(dir string, force bool) error {
	if force {
		return nil
	}
	var existing []string
	for _, f := range credentialFiles {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			existing = append(existing, filepath.Join(dir, f))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("checking %s: %w", filepath.Join(dir, f), err)
		}
	}
	if len(existing) > 0 {
		return fmt.Errorf("credential files already exist (%s): choose another --out or pass --force to replace them", strings.Join(existing, ", "))
	}
	return nil
}

// ServeHTTP serves the registration page and the callback.
func (rg *registrar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action "+formOrigin(rg.action)+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	switch {
	case r.Method != http.MethodGet:
		rg.page(w, http.StatusMethodNotAllowed, pageData{Title: "Method not allowed", Error: "This page only answers GET."})
	case r.URL.Path == "/":
		rg.page(w, http.StatusOK, pageData{Title: "Register Shipgate as a GitHub App", Form: true, Action: rg.action,
			Manifest: string(rg.manifest), Name: rg.cfg.Name, Webhook: rg.cfg.WebhookURL, Where: rg.where(),
			Permissions: permissionList(), Events: strings.Join(manifestEvents, ", ")})
	case r.URL.Path == "/callback":
		rg.callback(w, r)
	default:
		rg.page(w, http.StatusNotFound, pageData{Title: "Not found", Error: "Start at the registration page.", Retry: true})
	}
}

// callback checks the state, exchanges the code and writes the files.
func (rg *registrar) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		rg.page(w, http.StatusBadRequest, pageData{Title: "GitHub did not create the App",
			Error: "GitHub answered: " + truncateText(e+" "+q.Get("error_description"), 300), Retry: true})
		return
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(rg.state)) != 1 {
		rg.cfg.Logger.Warn("registration callback refused: wrong or missing state (not the redirect of this session's form)", "remote_addr", r.RemoteAddr)
		rg.page(w, http.StatusBadRequest, pageData{Title: "This link does not belong to this registration",
			Error: "The state parameter is missing or does not match the form this server showed, so the request was refused (it may be forged). Start again from the registration page.", Retry: true})
		return
	}
	code := q.Get("code")
	if code == "" || len(code) > 256 || strings.ContainsAny(code, "/?#% ") {
		rg.page(w, http.StatusBadRequest, pageData{Title: "No usable code from GitHub",
			Error: "GitHub's redirect carries a one-time code (?code=…); this request has none, or not a valid one. Start again from the registration page.", Retry: true})
		return
	}
	rg.mu.Lock()
	defer rg.mu.Unlock()
	if rg.finished {
		rg.page(w, http.StatusConflict, pageData{Title: "Already registered", Error: "This session already wrote the App's credentials."})
		return
	}
	if err := checkWritable(rg.cfg.OutDir, rg.cfg.Force); err != nil {
		rg.page(w, http.StatusConflict, pageData{Title: "Not written", Error: err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	app, _, err := rg.gh.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		rg.cfg.Logger.Error("exchanging the manifest code failed", "error", err)
		msg := "GitHub refused the code: it is used once and expires after an hour. Start again from the registration page."
		var er *github.ErrorResponse
		if !errors.As(err, &er) {
			msg = "Could not reach GitHub to exchange the code: " + truncateText(err.Error(), 300)
		}
		rg.page(w, http.StatusBadGateway, pageData{Title: "The App's credentials could not be fetched", Error: msg, Retry: true})
		return
	}
	if app.GetID() == 0 || app.GetPEM() == "" || app.GetWebhookSecret() == "" {
		rg.page(w, http.StatusBadGateway, pageData{Title: "Incomplete answer from GitHub",
			Error: "GitHub's answer lacks the App ID, private key or webhook secret."})
		return
	}
	reg, err := writeCredentials(rg.cfg.OutDir, rg.cfg.Force, app)
	if err != nil {
		rg.page(w, http.StatusInternalServerError, pageData{Title: "The App exists, but its credentials were not saved",
			Error: err.Error() + ". The App " + app.GetHTMLURL() + " was created: generate a new private key and webhook secret in its settings."})
		return
	}
	rg.finished = true
	rg.page(w, http.StatusOK, pageData{Title: "Shipgate is registered", Done: true, Name: reg.Name, AppURL: reg.HTMLURL,
		InstallURL: installURL(reg.HTMLURL), Dir: rg.cfg.OutDir})
	rg.done <- reg
}

// writeCredentials writes the App's credentials, each to its own file with
// mode 0600, refusing to replace existing files unless force is set.
func writeCredentials(dir string, force bool, app *github.AppConfig) (registration, error) {
	reg := registration{ID: app.GetID(), Slug: app.GetSlug(), Name: app.GetName(), HTMLURL: app.GetHTMLURL(), Owner: app.GetOwner().GetLogin()}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return reg, fmt.Errorf("creating %s: %w", dir, err)
	}
	contents := map[string]string{
		"app-id":          strconv.FormatInt(app.GetID(), 10) + "\n",
		"app-slug":        app.GetSlug() + "\n",
		"private-key.pem": app.GetPEM(),
		"webhook-secret":  app.GetWebhookSecret() + "\n",
		"client-id":       app.GetClientID() + "\n",
		"client-secret":   app.GetClientSecret() + "\n",
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	for _, name := range credentialFiles {
		p := filepath.Join(dir, name)
		if err := writeFile0600(p, flags, contents[name]); err != nil {
			return reg, err
		}
		reg.Files = append(reg.Files, p)
	}
	return reg, nil
}

func writeFile0600(path string, flags int, content string) error {
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// An existing file replaced with --force keeps its mode: set it.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("setting the mode of %s: %w", path, err)
	}
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func installURL(htmlURL string) string {
	if htmlURL == "" {
		return ""
	}
	return strings.TrimSuffix(htmlURL, "/") + "/installations/new"
}

func (rg *registrar) where() string {
	if rg.cfg.Org != "" {
		return "the organisation " + rg.cfg.Org
	}
	return "your personal account"
}

// formOrigin is the origin the registration form may post to (CSP form-action).
func formOrigin(action string) string {
	u, err := url.Parse(action)
	if err != nil {
		return "'none'"
	}
	return u.Scheme + "://" + u.Host
}

func permissionList() string {
	keys := make([]string, 0, len(manifestPermissions))
	for k := range manifestPermissions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + manifestPermissions[k]
	}
	return strings.Join(parts, ", ")
}

func truncateText(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// pageData fills the registration page template.
type pageData struct {
	Title, Error                    string
	Retry, Form, Done               bool
	Action, Manifest, Name, Webhook string
	Where, Permissions, Events      string
	AppURL, InstallURL, Dir         string
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} · Shipgate</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#1f2328}
code{background:#f6f8fa;padding:.1rem .3rem;border-radius:4px}.err{border-left:4px solid #cf222e;padding:.5rem 1rem;background:#ffebe9}
button{font-size:1rem;padding:.6rem 1.2rem;background:#1f883d;color:#fff;border:0;border-radius:6px;cursor:pointer}
dt{font-weight:600}dd{margin:0 0 .6rem 0}</style></head><body>
<h1>{{.Title}}</h1>
{{if .Error}}<p class="err">{{.Error}}</p>{{if .Retry}}<p><a href="/">Back to the registration page</a></p>{{end}}{{end}}
{{if .Form}}<p>This creates a private GitHub App named <code>{{.Name}}</code> on {{.Where}}, then brings you back here to save its credentials.</p>
<dl><dt>Webhook URL</dt><dd><code>{{.Webhook}}</code></dd><dt>Permissions</dt><dd>{{.Permissions}}</dd><dt>Events</dt><dd>{{.Events}}</dd></dl>
<form action="{{.Action}}" method="post"><input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the GitHub App on GitHub</button></form>{{end}}
{{if .Done}}<p>The GitHub App <a href="{{.AppURL}}">{{.Name}}</a> exists, and its credentials are saved in <code>{{.Dir}}</code> (mode 0600). You can close this page.</p>
<p>Next: <a href="{{.InstallURL}}">install it</a> on the repositories to gate, and start <code>shipgate serve</code> as the terminal says.</p>{{end}}
</body></html>
`))

func (rg *registrar) page(w http.ResponseWriter, code int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if err := pageTmpl.Execute(w, d); err != nil {
		rg.cfg.Logger.Error("rendering the registration page", "error", err)
	}
}

func runRegister(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("register", "--webhook-url URL [--org ORG] [--out DIR] [flags]", stderr)
	listen := fs.String("listen", "127.0.0.1:0", "local address of the registration page (GitHub redirects the browser back to it)")
	webhook := fs.String("webhook-url", "", "URL GitHub delivers webhooks to: the App's /webhook, such as https://shipgate.example.com/webhook (required)")
	org := fs.String("org", "", "register the App on this organisation (default: your personal account); you need to be an owner of it")
	name := fs.String("name", "Shipgate", "the App's name on GitHub (unique across GitHub)")
	homepage := fs.String("homepage-url", "https://github.com/shipgate-app/shipgate", "the App's homepage")
	api := fs.String("github-url", envOr("SHIPGATE_GITHUB_URL", "https://api.github.com/"), "GitHub REST API URL; https://HOST/api/v3/ for GitHub Enterprise Server (SHIPGATE_GITHUB_URL)")
	web := fs.String("github-web-url", "", "GitHub web URL, where the App is created (default: derived from --github-url: https://github.com, https://HOST)")
	out := fs.String("out", "shipgate-credentials", "directory for the credentials (created 0700; files 0600)")
	force := fs.Bool("force", false, "replace existing credential files in --out")
	timeout := fs.Duration("timeout", 30*time.Minute, "give up waiting for GitHub's redirect after this long")
	if _, err := parseFlags(fs, args); err != nil {
		return flagError(err)
	}
	if err := checkWritable(*out, *force); err != nil {
		return usageError(stderr, "register", "%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageError(stderr, "register", "listening on %s: %v", *listen, err)
	}
	base := "http://" + ln.Addr().String()
	cfg := registerConfig{Listen: *listen, WebhookURL: *webhook, Org: *org, Name: *name, HomepageURL: *homepage,
		APIURL: *api, WebURL: *web, OutDir: *out, Force: *force, Timeout: *timeout,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	rg, err := newRegistrar(cfg, base)
	if err != nil {
		ln.Close()
		return usageError(stderr, "register", "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reg, err := serveRegistration(ctx, rg, ln, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "shipgate register: %v\n", err)
		return exitFail
	}
	printRegistration(stdout, reg, cfg)
	return exitOK
}

// serveRegistration serves the flow on ln until the App's credentials are
// written, ctx ends or the timeout passes.
func serveRegistration(ctx context.Context, rg *registrar, ln net.Listener, stdout io.Writer) (registration, error) {
	srv := &http.Server{Handler: rg, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, ErrorLog: slog.NewLogLogger(rg.cfg.Logger.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stdout, "Open http://%s/ in a browser signed in to GitHub, and press \"Create the GitHub App\".\n", ln.Addr())
	fmt.Fprintf(stdout, "GitHub will send the browser back to this machine; waiting (Ctrl-C to stop)...\n")
	timer := time.NewTimer(rg.cfg.Timeout)
	defer timer.Stop()
	select {
	case reg := <-rg.done:
		return reg, nil
	case err := <-errc:
		return registration{}, fmt.Errorf("the registration page stopped: %w", err)
	case <-timer.C:
		return registration{}, fmt.Errorf("no redirect from GitHub within %s; run shipgate register again", rg.cfg.Timeout)
	case <-ctx.Done():
		return registration{}, errors.New("interrupted before GitHub sent the browser back; nothing was written")
	}
}

// printRegistration says what was written (never the secrets) and what to
// do next.
func printRegistration(w io.Writer, reg registration, cfg registerConfig) {
	fmt.Fprintf(w, "\nRegistered the GitHub App %q (ID %d, slug %s)", reg.Name, reg.ID, reg.Slug)
	if reg.Owner != "" {
		fmt.Fprintf(w, " owned by %s", reg.Owner)
	}
	fmt.Fprintf(w, ".\nWrote, each with mode 0600 (keep them secret; they are not shown here):\n")
	for _, p := range reg.Files {
		fmt.Fprintf(w, "  %s\n", p)
	}
	dir := cfg.OutDir
	fmt.Fprintf(w, "\nNext:\n")
	if u := installURL(reg.HTMLURL); u != "" {
		fmt.Fprintf(w, "  1. Install the App on the repositories to gate: %s\n", u)
	}
	flags := fmt.Sprintf("--app-id %d --app-slug %s --private-key-file %s --webhook-secret-file %s",
		reg.ID, reg.Slug, filepath.Join(dir, "private-key.pem"), filepath.Join(dir, "webhook-secret"))
	if api := strings.TrimSuffix(cfg.APIURL, "/"); api != "" && api != "https://api.github.com" {
		flags += " --github-url " + cfg.APIURL
	}
	fmt.Fprintf(w, "  2. Run the App where %s reaches it:\n       shipgate serve %s\n", cfg.WebhookURL, flags)
	fmt.Fprintf(w, "     (on Kubernetes, put the two files in a Secret: see docs/operations.md)\n")
	fmt.Fprintf(w, "  3. Require the \"shipgate\" check in the default branch's protection rules.\n")
}
