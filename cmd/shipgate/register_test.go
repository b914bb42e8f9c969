package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v62/github"
	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/testwait"
)

// registerFlow is a registration page served on loopback against the fake
// GitHub, as `shipgate register` runs it.
type registerFlow struct {
	t    *testing.T
	gh   *githubtest.Server
	rg   *registrar
	base string
	dir  string
	out  *lockedWriter
	res  chan registration
	errc chan error
	stop context.CancelFunc
}

type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func startRegisterFlow(t *testing.T, edit func(*registerConfig)) *registerFlow {
	t.Helper()
	gh := githubtest.New(githubtest.Options{})
	if gh.Err() != nil {
		t.Fatal(gh.Err())
	}
	t.Cleanup(gh.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	dir := filepath.Join(t.TempDir(), "creds")
	cfg := registerConfig{WebhookURL: "https://shipgate.example.com/webhook", Name: "Shipgate Test",
		HomepageURL: "https://shipgate.example.com", APIURL: gh.URL() + "/", WebURL: "https://github.example",
		OutDir: dir, Timeout: time.Minute}
	if edit != nil {
		edit(&cfg)
	}
	rg, err := newRegistrar(cfg, base)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &registerFlow{t: t, gh: gh, rg: rg, base: base, dir: dir, out: &lockedWriter{}, res: make(chan registration, 1), errc: make(chan error, 1), stop: cancel}
	go func() {
		reg, err := serveRegistration(ctx, rg, ln, f.out)
		if err != nil {
			f.errc <- err
			return
		}
		f.res <- reg
	}()
	t.Cleanup(cancel)
	return f
}

func (f *registerFlow) get(path string) (int, string) {
	f.t.Helper()
	resp, err := http.Get(f.base + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		f.t.Errorf("%s: Content-Type %q", path, ct)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action https://github.example") {
		f.t.Errorf("%s: CSP %q does not restrict the form to GitHub", path, csp)
	}
	return resp.StatusCode, string(b)
}

var (
	formAction    = regexp.MustCompile(`<form action="([^"]+)" method="post">`)
	formManifest  = regexp.MustCompile(`<input type="hidden" name="manifest" value="([^"]+)">`)
	credentialSet = []string{"app-id", "app-slug", "private-key.pem", "webhook-secret", "client-id", "client-secret"}
)

// form reads the page's form as a browser would submit it to GitHub.
func (f *registerFlow) form() (action *url.URL, manifest []byte) {
	f.t.Helper()
	code, body := f.get("/")
	if code != http.StatusOK {
		f.t.Fatalf("GET / = %d", code)
	}
	a, m := formAction.FindStringSubmatch(body), formManifest.FindStringSubmatch(body)
	if a == nil || m == nil {
		f.t.Fatalf("no manifest form in the page:\n%s", body)
	}
	u, err := url.Parse(html.UnescapeString(a[1]))
	if err != nil {
		f.t.Fatal(err)
	}
	return u, []byte(html.UnescapeString(m[1]))
}

func (f *registerFlow) noFiles() {
	f.t.Helper()
	for _, name := range credentialSet {
		if _, err := os.Stat(filepath.Join(f.dir, name)); err == nil {
			f.t.Errorf("%s was written", name)
		}
	}
}

func TestRegisterManifestFlow(t *testing.T) {
	f := startRegisterFlow(t, nil)
	action, manifest := f.form()

	// The form posts the manifest to GitHub's "new App" page with a state.
	state := action.Query().Get("state")
	if action.Scheme+"://"+action.Host+action.Path != "https://github.example/settings/apps/new" || len(state) != 64 {
		t.Fatalf("form action %s", action)
	}
	var m appManifest
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatalf("manifest %s: %v", manifest, err)
	}
	if m.RedirectURL != f.base+"/callback" || m.HookAttributes.URL != "https://shipgate.example.com/webhook" || !m.HookAttributes.Active ||
		m.Public || m.Name != "Shipgate Test" || m.URL == "" {
		t.Errorf("manifest %+v", m)
	}
	if len(m.DefaultPermissions) != 5 || m.DefaultPermissions["checks"] != "write" || m.DefaultPermissions["members"] != "read" {
		t.Errorf("permissions %v", m.DefaultPermissions)
	}
	if !slices.Equal(m.DefaultEvents, []string{"pull_request", "pull_request_review", "check_run", "check_suite", "push"}) {
		t.Errorf("events %v", m.DefaultEvents)
	}

	// Refused callbacks write nothing and say why.
	for _, c := range []struct {
		name, query string
		status      int
		says        string
	}{
		{"no state", "?code=abc", 400, "does not belong to this registration"},
		{"forged state", "?code=abc&state=" + strings.Repeat("0", 64), 400, "does not belong to this registration"},
		{"no code", "?state=" + state, 400, "No usable code"},
		{"code with a path", "?code=a%2Fb&state=" + state, 400, "No usable code"},
		{"user declined", "?error=access_denied&state=" + state, 400, "GitHub did not create the App"},
		{"unknown code", "?code=nope&state=" + state, 502, "GitHub refused the code"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := f.get("/callback" + c.query)
			if code != c.status || !strings.Contains(body, c.says) {
				t.Errorf("status %d, want %d with %q:\n%s", code, c.status, c.says, body)
			}
			if !strings.Contains(body, `href="/"`) {
				t.Error("no way back to the registration page")
			}
			f.noFiles()
		})
	}

	// GitHub creates the App from the posted manifest and redirects back.
	code := f.gh.IssueManifestCode(manifest)
	status, body := f.get("/callback?code=" + code + "&state=" + state)
	if status != http.StatusOK || !strings.Contains(body, "Shipgate is registered") {
		t.Fatalf("callback: %d\n%s", status, body)
	}
	var reg registration
	select {
	case reg = <-f.res:
	case err := <-f.errc:
		t.Fatal(err)
	case <-testwait.After(t):
		t.Fatal("the flow did not finish")
	}

	// The files: present, 0600, in a 0700 directory.
	if len(reg.Files) != len(credentialSet) {
		t.Fatalf("wrote %v", reg.Files)
	}
	if fi, err := os.Stat(f.dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	read := map[string]string{}
	for _, name := range credentialSet {
		p := filepath.Join(f.dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode().Perm())
		}
		b, _ := os.ReadFile(p)
		read[name] = strings.TrimSpace(string(b))
		if read[name] == "" {
			t.Errorf("%s is empty", name)
		}
	}
	id, err := strconv.ParseInt(read["app-id"], 10, 64)
	if err != nil || id != reg.ID || read["app-slug"] != "shipgate-test" {
		t.Errorf("app-id %q, slug %q; registration %+v", read["app-id"], read["app-slug"], reg)
	}

	// The written key signs App JWTs that the fake (GitHub) accepts.
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, id, []byte(read["private-key.pem"]))
	if err != nil {
		t.Fatalf("the written key: %v", err)
	}
	atr.BaseURL = f.gh.URL()
	client := github.NewClient(&http.Client{Transport: atr})
	client.BaseURL, _ = url.Parse(f.gh.URL() + "/")
	got, _, err := client.Apps.Get(context.Background(), "")
	if err != nil {
		t.Fatalf("GET /app with the written key: %v", err)
	}
	if got.GetID() != id || got.GetSlug() != "shipgate-test" || got.GetPermissions().GetChecks() != "write" {
		t.Errorf("GET /app = %+v", got)
	}

	// The terminal says what was written and what to do, never the secrets.
	var out bytes.Buffer
	printRegistration(&out, reg, f.rg.cfg)
	printed := f.out.String() + out.String()
	for _, secret := range []string{"private-key.pem", "webhook-secret", "client-secret"} {
		v := read[secret]
		if secret == "private-key.pem" {
			v = strings.Split(v, "\n")[1] // a line of the key's body
		}
		if strings.Contains(printed, v) {
			t.Errorf("the output shows the %s", secret)
		}
	}
	for _, want := range []string{"Open " + f.base + "/", "ID " + read["app-id"],
		"shipgate serve --app-id " + read["app-id"] + " --app-slug shipgate-test --private-key-file " + filepath.Join(f.dir, "private-key.pem"),
		"--webhook-secret-file " + filepath.Join(f.dir, "webhook-secret"), "/installations/new", "mode 0600"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output lacks %q:\n%s", want, printed)
		}
	}
}

func TestRegisterOrganisationAndEnterpriseURLs(t *testing.T) {
	f := startRegisterFlow(t, func(c *registerConfig) { c.Org = "acme-corp" })
	action, _ := f.form()
	if action.Path != "/organizations/acme-corp/settings/apps/new" {
		t.Errorf("org form action %s", action)
	}
	for _, c := range []struct{ api, web, want string }{
		{"https://api.github.com/", "", "https://github.com"},
		{"https://api.octo.ghe.com/", "", "https://octo.ghe.com"},
		{"https://ghes.example.com/api/v3/", "", "https://ghes.example.com"},
		{"https://ghes.example.com/api/v3/", "https://github.internal/", "https://github.internal"},
	} {
		if got, err := webURL(c.api, c.web); err != nil || got != c.want {
			t.Errorf("webURL(%s, %s) = %s, %v; want %s", c.api, c.web, got, err, c.want)
		}
	}
	for _, bad := range []registerConfig{
		{Name: "x", APIURL: "https://api.github.com/"},                                 // no webhook URL
		{Name: "x", APIURL: "https://api.github.com/", WebhookURL: "/webhook"},         // relative
		{Name: "x", APIURL: "https://api.github.com/", WebhookURL: "ftp://h/webhook"},  // scheme
		{Name: "", APIURL: "https://api.github.com/", WebhookURL: "https://h/webhook"}, // no name
		{Name: "x", APIURL: "https://api.github.com/", WebhookURL: "https://h/webhook", Org: "a/b"},
	} {
		if _, err := newRegistrar(bad, "http://127.0.0.1:1"); err == nil {
			t.Errorf("newRegistrar(%+v) accepted", bad)
		}
	}
}

func TestRegisterRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "private-key.pem"), []byte("old key"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("register", "--webhook-url", "https://h.example/webhook", "--out", dir, "--listen", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, "already exist") || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, stderr %q; want a refusal naming --force", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "private-key.pem")); string(b) != "old key" {
		t.Error("the existing key was touched")
	}
	app := &github.AppConfig{ID: github.Int64(7), Slug: github.String("s"), PEM: github.String("new key"),
		WebhookSecret: github.String("w"), ClientID: github.String("c"), ClientSecret: github.String("cs")}
	if _, err := writeCredentials(dir, false, app); err == nil {
		t.Error("writeCredentials replaced a file without force")
	}
	if _, err := writeCredentials(dir, true, app); err != nil {
		t.Fatalf("with force: %v", err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "private-key.pem"))
	if b, _ := os.ReadFile(filepath.Join(dir, "private-key.pem")); string(b) != "new key" || fi.Mode().Perm() != 0o600 {
		t.Errorf("after --force: %q mode %v, want the new key with mode 0600", b, fi.Mode().Perm())
	}

	// A callback when the files appeared meanwhile: refused before the
	// one-time code is spent.
	f := startRegisterFlow(t, nil)
	action, manifest := f.form()
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "app-id"), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	ghCode := f.gh.IssueManifestCode(manifest)
	status, body := f.get("/callback?code=" + ghCode + "&state=" + action.Query().Get("state"))
	if status != http.StatusConflict || !strings.Contains(body, "already exist") {
		t.Errorf("status %d:\n%s", status, body)
	}
	if f.gh.RequestCount("POST", "/app-manifests/{code}/conversions") != 0 {
		t.Error("the code was exchanged although the files could not be written")
	}
}

func TestRegisterCLIUsage(t *testing.T) {
	code, _, stderr := runCLI("register", "--out", t.TempDir(), "--listen", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, "--webhook-url") {
		t.Errorf("without --webhook-url: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI("register", "-h"); code != exitOK {
		t.Errorf("register -h: exit %d", code)
	}
}

// TestAppManifestFileMatchesRegister holds deploy/app-manifest.yml (for
// people registering by hand) to the manifest `shipgate register` posts.
func TestAppManifestFileMatchesRegister(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "app-manifest.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name           string `yaml:"name"`
		URL            string `yaml:"url"`
		HookAttributes struct {
			URL    string `yaml:"url"`
			Active bool   `yaml:"active"`
		} `yaml:"hook_attributes"`
		RedirectURL        string            `yaml:"redirect_url"`
		Public             *bool             `yaml:"public"`
		DefaultPermissions map[string]string `yaml:"default_permissions"`
		DefaultEvents      []string          `yaml:"default_events"`
		Description        string            `yaml:"description"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("deploy/app-manifest.yml: %v", err)
	}
	if m.Public == nil || *m.Public {
		t.Error("public must be false")
	}
	if m.HookAttributes.URL == "" || !m.HookAttributes.Active || m.RedirectURL == "" || m.Name == "" || m.URL == "" {
		t.Errorf("incomplete manifest %+v", m)
	}
	if len(m.DefaultPermissions) != len(manifestPermissions) {
		t.Errorf("permissions %v, register uses %v", m.DefaultPermissions, manifestPermissions)
	}
	for k, v := range manifestPermissions {
		if m.DefaultPermissions[k] != v {
			t.Errorf("permission %s: file %q, register %q", k, m.DefaultPermissions[k], v)
		}
	}
	if !slices.Equal(m.DefaultEvents, manifestEvents) {
		t.Errorf("events %v, register uses %v", m.DefaultEvents, manifestEvents)
	}
}
