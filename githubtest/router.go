package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// authMode says which credentials a route accepts.
type authMode int

const (
	authNone authMode = iota // any or no credentials (manifest conversion, rate_limit)
	authApp                  // an app JWT only
	authRepo                 // an installation token, or none for public data
)

// route is one REST operation the fake serves.
type route struct {
	method  string
	pattern string // OpenAPI-style path, e.g. /repos/{owner}/{repo}/pulls/{pull_number}
	auth    authMode
	doc     string
	// handle runs with Server.mu held unless selfLocking, and returns the
	// status and body to write (or an error).
	handle      func(c *call) (int, any, *apiError)
	selfLocking bool
}

// rawBody is a non-JSON response body.
type rawBody struct {
	contentType string
	data        []byte
}

// call is one request being served.
type call struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	rt      *route
	base    string // scheme://host[/api/v3], for URLs in responses
	who     caller
	body    []byte
	status  int
	reqID   string
	faulted bool
}

// maxRequestBody bounds request bodies, like GitHub's own limits.
const maxRequestBody = 50 << 20

func (s *Server) routes() []*route {
	return append([]*route{
		{method: "GET", pattern: "/app", auth: authApp, doc: "https://docs.github.com/rest/apps/apps#get-the-authenticated-app", handle: s.getApp},
		{method: "GET", pattern: "/app/installations", auth: authApp, doc: "https://docs.github.com/rest/apps/apps#list-installations-for-the-authenticated-app", handle: s.listInstallations},
		{method: "POST", pattern: "/app/installations/{installation_id}/access_tokens", auth: authApp, doc: "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app", handle: s.createAccessToken},
		{method: "GET", pattern: "/repos/{owner}/{repo}/installation", auth: authApp, doc: "https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app", handle: s.getRepoInstallation},
		{method: "GET", pattern: "/installation/repositories", auth: authRepo, doc: "https://docs.github.com/rest/apps/installations#list-repositories-accessible-to-the-app-installation", handle: s.listInstallationRepos},
		{method: "GET", pattern: "/app/hook/deliveries", auth: authApp, doc: "https://docs.github.com/rest/apps/webhooks#list-deliveries-for-an-app-webhook", handle: s.listDeliveries},
		{method: "GET", pattern: "/app/hook/deliveries/{delivery_id}", auth: authApp, doc: "https://docs.github.com/rest/apps/webhooks#get-a-delivery-for-an-app-webhook", handle: s.getDelivery},
		{method: "POST", pattern: "/app/hook/deliveries/{delivery_id}/attempts", auth: authApp, doc: "https://docs.github.com/rest/apps/webhooks#redeliver-a-delivery-for-an-app-webhook", handle: s.redeliverDelivery, selfLocking: true},
		{method: "POST", pattern: "/app-manifests/{code}/conversions", auth: authNone, doc: "https://docs.github.com/rest/apps/apps#create-a-github-app-from-a-manifest", handle: s.convertManifest},
		{method: "GET", pattern: "/rate_limit", auth: authNone, doc: "https://docs.github.com/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user", handle: s.getRateLimit},
		{method: "GET", pattern: "/repos/{owner}/{repo}", auth: authRepo, doc: "https://docs.github.com/rest/repos/repos#get-a-repository", handle: s.getRepo},
		{method: "GET", pattern: "/repos/{owner}/{repo}/pulls", auth: authRepo, doc: "https://docs.github.com/rest/pulls/pulls#list-pull-requests", handle: s.listPulls},
		{method: "GET", pattern: "/repos/{owner}/{repo}/pulls/{pull_number}", auth: authRepo, doc: "https://docs.github.com/rest/pulls/pulls#get-a-pull-request", handle: s.getPull},
		{method: "GET", pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/files", auth: authRepo, doc: "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files", handle: s.listPullFiles},
		{method: "GET", pattern: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", auth: authRepo, doc: "https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request", handle: s.listReviews},
		{method: "GET", pattern: "/repos/{owner}/{repo}/contents/{path}", auth: authRepo, doc: "https://docs.github.com/rest/repos/contents#get-repository-content", handle: s.getContents},
		{method: "GET", pattern: "/repos/{owner}/{repo}/git/trees/{tree_sha}", auth: authRepo, doc: "https://docs.github.com/rest/git/trees#get-a-tree", handle: s.getTree},
		{method: "GET", pattern: "/repos/{owner}/{repo}/git/blobs/{file_sha}", auth: authRepo, doc: "https://docs.github.com/rest/git/blobs#get-a-blob", handle: s.getBlob},
		{method: "POST", pattern: "/repos/{owner}/{repo}/check-runs", auth: authRepo, doc: "https://docs.github.com/rest/checks/runs#create-a-check-run", handle: s.createCheckRun},
		{method: "GET", pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}", auth: authRepo, doc: "https://docs.github.com/rest/checks/runs#get-a-check-run", handle: s.getCheckRun},
		{method: "PATCH", pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}", auth: authRepo, doc: "https://docs.github.com/rest/checks/runs#update-a-check-run", handle: s.updateCheckRun},
		{method: "GET", pattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", auth: authRepo, doc: "https://docs.github.com/rest/checks/runs#list-check-run-annotations", handle: s.listAnnotations},
		{method: "GET", pattern: "/repos/{owner}/{repo}/commits/{ref}/check-runs", auth: authRepo, doc: "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference", handle: s.listCheckRunsForRef},
		{method: "GET", pattern: "/orgs/{org}/teams/{team_slug}/memberships/{username}", auth: authRepo, doc: "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user", handle: s.getTeamMembership},
	}, s.reviewRoutes()...)
}

// Routes lists the operations the fake serves as "METHOD /pattern", the
// names Requests and Fault.PathPattern use.
func (s *Server) Routes() []string {
	var out []string
	for _, rt := range s.routes() {
		out = append(out, rt.method+" "+rt.pattern)
	}
	return out
}

func (s *Server) newRouter() http.Handler {
	mux := chi.NewRouter()
	for _, rt := range s.routes() {
		rt := rt
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(rt, w, r) })
		mux.Method(rt.method, strings.Replace(rt.pattern, "{path}", "*", 1), h)
		if strings.HasSuffix(rt.pattern, "/contents/{path}") {
			mux.Method(rt.method, strings.TrimSuffix(rt.pattern, "/{path}"), h)
		}
	}
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(nil, w, r) })
	mux.NotFound(notFound)
	mux.MethodNotAllowed(notFound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		escaped := r.URL.EscapedPath()
		prefix := ""
		if escaped == "/api/v3" || strings.HasPrefix(escaped, "/api/v3/") {
			prefix = "/api/v3"
			escaped = strings.TrimPrefix(escaped, prefix)
			if escaped == "" {
				escaped = "/"
			}
		}
		escaped = s.rewriteRepositoryID(escaped)
		unescaped, err := url.PathUnescape(escaped)
		if err != nil {
			unescaped = escaped
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = unescaped, ""
		if unescaped != escaped {
			r2.URL.RawPath = escaped
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		r2 = r2.WithContext(withReqInfo(r2.Context(), reqInfo{base: scheme + "://" + r.Host + prefix, path: r.URL.Path}))
		mux.ServeHTTP(w, r2)
	})
}

// rewriteRepositoryID maps /repositories/{id}/… (the form GitHub uses in
// Link headers) to /repos/{owner}/{repo}/….
func (s *Server) rewriteRepositoryID(p string) string {
	rest, ok := strings.CutPrefix(p, "/repositories/")
	if !ok {
		return p
	}
	idText, tail, _ := strings.Cut(rest, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return p
	}
	s.mu.Lock()
	r := s.st.reposByID[id]
	s.mu.Unlock()
	if r == nil {
		return p
	}
	out := "/repos/" + url.PathEscape(r.owner.login) + "/" + url.PathEscape(r.name)
	if tail != "" {
		out += "/" + tail
	}
	return out
}

// serve runs one request through authentication, rate limiting, fault
// injection and the route's handler, then records it.
func (s *Server) serve(rt *route, w http.ResponseWriter, r *http.Request) {
	c := &call{s: s, w: w, r: r, rt: rt, base: reqInfoFrom(r.Context()).base}
	c.reqID = s.nextRequestID()
	w.Header().Set("X-GitHub-Request-Id", c.reqID)
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	defer s.record(c)
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil || len(body) > maxRequestBody {
		c.writeError(&apiError{status: http.StatusBadRequest, message: "Problems parsing JSON", docURL: docREST})
		return
	}
	c.body = body
	if rt == nil {
		c.writeError(errNotFound(docREST))
		return
	}
	who, authErr := s.authenticate(r)
	c.who = who
	if authErr != nil {
		authErr.docURL = rt.doc
		if authErr.status == http.StatusUnauthorized {
			authErr.docURL = docREST
		}
		c.writeError(authErr)
		return
	}
	if e := c.checkAuthMode(); e != nil {
		c.writeError(e)
		return
	}
	if rt.pattern != "/rate_limit" && rt.auth != authNone {
		if e := s.consumeRate(c); e != nil {
			c.writeError(e)
			return
		}
	}
	if e := s.consumeContent(c, r.Method, rt.pattern); e != nil {
		c.writeError(e)
		return
	}
	var after *apiError // a fault answered once the request is served
	if f, ok := s.takeFault(r.Method, rt.pattern); ok {
		if f.Latency > 0 {
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
			case <-s.closing:
			}
			t.Stop()
		}
		if e := s.faultError(f, who, c.reqID); e != nil {
			if f.AfterApply {
				after = e
			} else {
				c.faulted = true
				c.writeError(e)
				return
			}
		}
	}
	var (
		status int
		out    any
		e      *apiError
	)
	if rt.selfLocking {
		status, out, e = rt.handle(c)
	} else {
		s.mu.Lock()
		status, out, e = rt.handle(c)
		s.mu.Unlock()
	}
	if e == nil && after != nil {
		c.faulted = true
		e = after
	}
	if e != nil {
		c.writeError(e)
		return
	}
	c.write(status, out)
}

func (c *call) checkAuthMode() *apiError {
	switch c.rt.auth {
	case authApp:
		switch c.who.kind {
		case callerAnonymous:
			return errRequiresAuth(docREST)
		case callerToken:
			return errJWT("A JSON web token could not be decoded")
		}
	case authRepo:
		if c.who.kind == callerApp {
			return errNotAccessible(c.rt.doc)
		}
	}
	return nil
}

func (c *call) write(status int, out any) {
	if rb, ok := out.(rawBody); ok {
		c.w.Header().Set("Content-Type", rb.contentType)
		c.w.Header().Set("Content-Length", strconv.Itoa(len(rb.data)))
		c.status = status
		c.w.WriteHeader(status)
		_, _ = c.w.Write(rb.data)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		c.writeError(&apiError{status: http.StatusInternalServerError, message: fmt.Sprintf("githubtest: encode response: %v", err)})
		return
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.status = status
	c.w.WriteHeader(status)
	_, _ = c.w.Write(buf.Bytes())
}

func (c *call) writeError(e *apiError) {
	for k, v := range e.header {
		c.w.Header().Set(k, v)
	}
	if e.docURL == "" && c.rt != nil {
		e.docURL = c.rt.doc
	}
	c.write(e.status, e.body())
}

// param returns a path parameter, unescaped.
func (c *call) param(name string) string {
	if name == "path" {
		name = "*"
	}
	v := chi.URLParam(c.r, name)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

func (c *call) query(name string) string { return c.r.URL.Query().Get(name) }

// decodeBody decodes a JSON request body into a generic map. An empty body
// or "null" decodes to an empty map.
func (c *call) decodeBody() (map[string]any, *apiError) {
	trimmed := bytes.TrimSpace(c.body)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, &apiError{status: http.StatusBadRequest, message: "Problems parsing JSON", docURL: c.rt.doc}
	}
	return m, nil
}

// remoteIP is the client's address, the key of anonymous rate limits.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (s *Server) nextRequestID() string {
	s.mu.Lock()
	s.st.requests++
	n := s.st.requests
	s.mu.Unlock()
	return fmt.Sprintf("%04X:%04X:%06X:%07X:%08X", 0xC0DE, n%0xFFFF, n*7919%0xFFFFFF, n*104729%0xFFFFFFF, n)
}
