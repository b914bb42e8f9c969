package githubtest

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v62/github"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// testKey is one RSA key shared by the package's tests (generating one
// takes a noticeable fraction of a second).
var testKey = sync.OnceValues(func() (*rsa.PrivateKey, []byte) {
	key, pemBytes, err := GenerateAppKey()
	if err != nil {
		panic(err)
	}
	return key, pemBytes
})

const testAppID = 4242

// fixture is a fake with an org, a private repository, an installation
// and clients that validate every request and response against GitHub's
// OpenAPI schemas.
type fixture struct {
	t      *testing.T
	srv    *Server
	clock  *ManualClock
	key    *rsa.PrivateKey
	pem    []byte
	inst   Installation
	schema *schemaSet
	vt     *validatingTransport
}

type fixtureOption func(*Options)

func newFixture(t *testing.T, opts ...fixtureOption) *fixture {
	t.Helper()
	key, pemBytes := testKey()
	o := Options{AppID: testAppID, AppSlug: "shipgate", AppPublicKey: &key.PublicKey, WebhookSecret: "s3cret"}
	for _, f := range opts {
		f(&o)
	}
	var clock *ManualClock
	if o.Clock == nil {
		clock = NewManualClock(time.Now().UTC().Truncate(time.Second))
		o.Clock = clock.Now
	}
	srv := New(o)
	if err := srv.Err(); err != nil {
		t.Fatalf("start fake: %v", err)
	}
	t.Cleanup(srv.Close)
	f := &fixture{t: t, srv: srv, clock: clock, key: key, pem: pemBytes, schema: loadSchemas(t)}
	f.vt = &validatingTransport{t: t, schemas: f.schema, base: http.DefaultTransport}
	createRepo(t, srv, RepoOptions{Owner: "acme", Name: "widgets", Private: true, Files: map[string]string{
		"README.md":             "# widgets\n",
		".claude/settings.json": "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test)\"]\n  }\n}\n",
	}})
	inst, _, err := srv.Install(InstallationOptions{Account: "acme", Repositories: []string{"widgets"}})
	must(t, err)
	f.inst = inst
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func createRepo(t *testing.T, s *Server, opts RepoOptions) Repo {
	t.Helper()
	r, err := s.CreateRepo(opts)
	must(t, err)
	return r
}

// appClient returns a go-github client authenticating as the app through
// ghinstallation's AppsTransport; ghes selects the /api/v3 base URL.
func (f *fixture) appClient(ghes bool) (*github.Client, *ghinstallation.AppsTransport) {
	f.t.Helper()
	atr, err := ghinstallation.NewAppsTransport(f.vt, testAppID, f.pem)
	must(f.t, err)
	atr.BaseURL = f.srv.URL()
	c := github.NewClient(&http.Client{Transport: atr})
	if ghes {
		atr.BaseURL = f.srv.URL() + "/api/v3"
		c, err = c.WithEnterpriseURLs(f.srv.URL(), f.srv.URL())
		must(f.t, err)
	} else {
		c.BaseURL, _ = url.Parse(f.srv.URL() + "/")
	}
	return c, atr
}

// instClient returns a go-github client authenticating as installation id
// through ghinstallation.New.
func (f *fixture) instClient(id int64, ghes bool) *github.Client {
	f.t.Helper()
	itr, err := ghinstallation.New(f.vt, testAppID, id, f.pem)
	must(f.t, err)
	itr.BaseURL = f.srv.URL()
	c := github.NewClient(&http.Client{Transport: itr})
	if ghes {
		itr.BaseURL = f.srv.URL() + "/api/v3"
		c, err = c.WithEnterpriseURLs(f.srv.URL(), f.srv.URL())
		must(f.t, err)
	} else {
		c.BaseURL, _ = url.Parse(f.srv.URL() + "/")
	}
	return c
}

// token mints an installation token for the fixture's installation.
func (f *fixture) token() string {
	tok, _, err := f.srv.MintInstallationToken(f.inst.ID)
	must(f.t, err)
	return tok
}

// jwt signs an app JWT on the fake's clock.
func (f *fixture) jwt() string {
	j, err := AppJWT(f.key, testAppID, f.clock.Now())
	must(f.t, err)
	return j
}

// do sends a raw request through the validating transport. auth is the
// whole Authorization value ("" for none).
func (f *fixture) do(method, path, auth string, body any, header map[string]string) (*http.Response, []byte) {
	f.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		must(f.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, f.srv.URL()+path, rd)
	must(f.t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: f.vt}).Do(req)
	must(f.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(f.t, err)
	return resp, data
}

func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return m
}

// schemaSet holds GitHub's schemas as extracted by scripts/extract-openapi.mjs.
type schemaSet struct {
	ops      []*operation
	webhooks map[string]*jsonschema.Schema
}

type operation struct {
	method    string
	path      string
	re        *regexp.Regexp
	request   *jsonschema.Schema
	responses map[string]*jsonschema.Schema
	media     map[string]map[string]*jsonschema.Schema // media type → status → schema
}

var schemaCache = sync.OnceValues(compileSchemas)

// repositoriesRE matches GitHub's /repositories/{id} path form.
var repositoriesRE = regexp.MustCompile(`^/repositories/[0-9]+`)

func loadSchemas(t *testing.T) *schemaSet {
	t.Helper()
	s, err := schemaCache()
	if err != nil {
		t.Fatalf("load OpenAPI schemas: %v", err)
	}
	return s
}

func compileSchemas() (*schemaSet, error) {
	dir := filepath.Join("testdata", "openapi")
	var index struct {
		Operations []struct {
			Method, Path, File string
		}
		Webhooks []string
	}
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	// The library's uri-template check splits on "/" and so rejects
	// RFC 6570 path expansions such as "{/number}" that GitHub's payloads
	// use; check the expressions properly instead.
	c.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: validateURITemplate})
	load := func(file string) (map[string]any, string, error) {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", file, err)
		}
		loc := "file:///openapi/" + file
		if err := c.AddResource(loc, doc); err != nil {
			return nil, "", fmt.Errorf("%s: %w", file, err)
		}
		m, _ := doc.(map[string]any)
		return m, loc, nil
	}
	set := &schemaSet{webhooks: map[string]*jsonschema.Schema{}}
	for _, op := range index.Operations {
		doc, loc, err := load(op.File)
		if err != nil {
			return nil, err
		}
		o := &operation{method: op.Method, path: op.Path, responses: map[string]*jsonschema.Schema{}, media: map[string]map[string]*jsonschema.Schema{}}
		pattern := regexp.QuoteMeta(op.Path)
		pattern = strings.ReplaceAll(pattern, `/\{path\}`, `(/.*)?`)
		pattern = regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(pattern, `[^/]+`)
		o.re = regexp.MustCompile("^" + pattern + "$")
		if _, ok := doc["request"]; ok {
			if o.request, err = c.Compile(loc + "#/request"); err != nil {
				return nil, err
			}
		}
		resps, _ := doc["responses"].(map[string]any)
		for status := range resps {
			if o.responses[status], err = c.Compile(loc + "#/responses/" + status); err != nil {
				return nil, err
			}
		}
		media, _ := doc["media"].(map[string]any)
		for typ, byStatus := range media {
			o.media[typ] = map[string]*jsonschema.Schema{}
			for status := range byStatus.(map[string]any) {
				ptr := "#/media/" + strings.ReplaceAll(typ, "/", "~1") + "/" + status
				if o.media[typ][status], err = c.Compile(loc + ptr); err != nil {
					return nil, err
				}
			}
		}
		set.ops = append(set.ops, o)
	}
	for _, name := range index.Webhooks {
		_, loc, err := load(filepath.Join("webhooks", name+".json"))
		if err != nil {
			return nil, err
		}
		if set.webhooks[name], err = c.Compile(loc + "#/schema"); err != nil {
			return nil, err
		}
	}
	return set, nil
}

var uriTemplateExpr = regexp.MustCompile(`\{([+#./;?&]?[A-Za-z0-9_%.,*:]+)\}`)

// validateURITemplate accepts RFC 6570 templates: every brace opens a
// well-formed expression and closes it.
func validateURITemplate(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	rest := uriTemplateExpr.ReplaceAllString(s, "")
	if strings.ContainsAny(rest, "{}") {
		return fmt.Errorf("malformed URI template expression in %q", s)
	}
	return nil
}

// find returns the operation serving method and path (without /api/v3).
func (s *schemaSet) find(method, path string) *operation {
	path = strings.TrimPrefix(path, "/api/v3")
	path = repositoriesRE.ReplaceAllString(path, "/repos/owner/repo")
	for _, o := range s.ops {
		if o.method == method && o.re.MatchString(path) {
			return o
		}
	}
	return nil
}

// validateJSON validates a JSON document against a schema.
func validateJSON(sch *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(v)
}

// validatingTransport checks every request body and JSON response body
// against GitHub's schema for the operation, and fails the test otherwise.
type validatingTransport struct {
	t       *testing.T
	schemas *schemaSet
	base    http.RoundTripper

	mu        sync.Mutex
	validated int
}

// expectInvalid is a request header (stripped before sending) that marks a
// body the test knows breaks GitHub's request schema: the transport then
// checks that the schema does reject it.
const expectInvalid = "X-Githubtest-Expect-Schema-Invalid"

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	wantInvalid := req.Header.Get(expectInvalid) != ""
	if wantInvalid {
		req = req.Clone(req.Context())
		req.Header.Del(expectInvalid)
	}
	op := v.schemas.find(req.Method, req.URL.Path)
	if op == nil {
		v.t.Errorf("no OpenAPI operation for %s %s", req.Method, req.URL.Path)
	}
	if req.Body != nil && op != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
		trimmed := bytes.TrimSpace(body)
		if op.request != nil && len(trimmed) > 0 && string(trimmed) != "null" {
			err := validateJSON(op.request, trimmed)
			switch {
			case err != nil && !wantInvalid:
				v.t.Errorf("request %s %s does not match GitHub's schema: %v\n%s", req.Method, req.URL.Path, err, clip(trimmed))
			case err == nil && wantInvalid:
				v.t.Errorf("request %s %s was meant to break GitHub's schema but matches it:\n%s", req.Method, req.URL.Path, clip(trimmed))
			}
		}
	}
	resp, err := v.base.RoundTrip(req)
	if err != nil || op == nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return resp, nil
	}
	status := fmt.Sprint(resp.StatusCode)
	sch := op.responses[status]
	for typ, byStatus := range op.media {
		if strings.Contains(req.Header.Get("Accept"), strings.TrimPrefix(typ, "application/")) && byStatus[status] != nil {
			sch = byStatus[status]
		}
	}
	if sch == nil && resp.StatusCode >= 400 {
		var e struct {
			Message          *string `json:"message"`
			DocumentationURL *string `json:"documentation_url"`
		}
		if json.Unmarshal(body, &e) != nil || e.Message == nil || e.DocumentationURL == nil {
			v.t.Errorf("error response %s %s %d is not GitHub's error shape: %s", req.Method, req.URL.Path, resp.StatusCode, clip(body))
		}
		return resp, nil
	}
	if sch == nil {
		v.t.Errorf("no schema for %s %s status %d", req.Method, op.path, resp.StatusCode)
		return resp, nil
	}
	if err := validateJSON(sch, body); err != nil {
		v.t.Errorf("response %s %s %d does not match GitHub's schema: %v\n%s", req.Method, req.URL.Path, resp.StatusCode, err, clip(body))
	}
	v.mu.Lock()
	v.validated++
	v.mu.Unlock()
	return resp, nil
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// receiver is a webhook endpoint that verifies X-Hub-Signature-256 and
// records what it received.
type receiver struct {
	t      *testing.T
	secret string
	status int

	mu   sync.Mutex
	got  []received
	fail []string
}

type received struct {
	header http.Header
	body   []byte
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err := github.ValidateSignature(r.Header.Get("X-Hub-Signature-256"), body, []byte(rc.secret)); err != nil {
		rc.fail = append(rc.fail, fmt.Sprintf("delivery %s: bad signature: %v", r.Header.Get("X-GitHub-Delivery"), err))
	}
	rc.got = append(rc.got, received{header: r.Header.Clone(), body: body})
	status := rc.status
	if status == 0 {
		status = http.StatusAccepted
	}
	w.WriteHeader(status)
}

func (rc *receiver) deliveries() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, f := range rc.fail {
		rc.t.Error(f)
	}
	rc.fail = nil
	return append([]received(nil), rc.got...)
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
