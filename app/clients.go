package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v62/github"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// Clients makes GitHub clients for the App and its installations. One
// transport per installation is cached, so the installation token
// (valid an hour, refreshed by ghinstallation a minute before expiry) is
// reused across jobs instead of minted per event.
type Clients struct {
	appID   int64
	key     []byte
	baseURL string // API base URL with a trailing slash
	base    http.RoundTripper
	app     *github.Client
	cache   *lru.Cache[int64, *github.Client]
	mu      sync.Mutex
	// onTokenRefresh: see OnTokenRefresh.
	onTokenRefresh func(installationID int64)
	// pace: see PaceWrites; shared: see ShareWritePace.
	pace   []WritePace
	shared WriteLimiter
}

// NewClients builds the client factory. baseURL is the REST API root
// (https://api.github.com/ or https://ghe.example.com/api/v3/); it is set
// on the go-github client and on the token transports, which go-github's
// enterprise URLs alone do not cover.
func NewClients(appID int64, privateKeyPEM []byte, baseURL string, rt http.RoundTripper) (*Clients, error) {
	if appID <= 0 {
		return nil, errors.New("the GitHub App ID must be a positive number")
	}
	if baseURL == "" {
		baseURL = "https://api.github.com/"
	}
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/"
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	atr, err := ghinstallation.NewAppsTransport(rt, appID, privateKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("reading the GitHub App private key: %w", err)
	}
	atr.BaseURL = strings.TrimSuffix(baseURL, "/")
	app, err := newClient(&http.Client{Transport: atr}, baseURL)
	if err != nil {
		return nil, err
	}
	cache, _ := lru.New[int64, *github.Client](1024)
	return &Clients{appID: appID, key: privateKeyPEM, baseURL: baseURL, base: rt, app: app, cache: cache}, nil
}

func newClient(hc *http.Client, baseURL string) (*github.Client, error) {
	c := github.NewClient(hc)
	u, err := c.BaseURL.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("GitHub API URL %q: %w", baseURL, err)
	}
	c.BaseURL = u
	c.UploadURL = u
	c.UserAgent = "shipgate"
	return c, nil
}

// App returns the client authenticated as the App itself (a JWT).
func (c *Clients) App() *github.Client { return c.app }

// Installation returns the (cached) client of one installation.
func (c *Clients) Installation(id int64) (*github.Client, error) {
	if cl, ok := c.cache.Get(id); ok {
		return cl, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.cache.Get(id); ok {
		return cl, nil
	}
	tr, err := newInstallationTransport(c, id)
	if err != nil {
		return nil, err
	}
	cl, err := newClient(&http.Client{Transport: tr}, c.baseURL)
	if err != nil {
		return nil, err
	}
	cl.UserAgent = fmt.Sprintf("shipgate (installation: %d)", id)
	c.cache.Add(id, cl)
	return cl, nil
}

// installationTransport authenticates an installation's requests with its
// cached access token (ghinstallation mints one and renews it a minute
// before it expires). When GitHub answers 401 anyway — the token was revoked,
// or this machine's clock is behind so a token GitHub has expired still
// looks valid here — the cached token is thrown away, a new one is minted,
// and the request is sent once more. Without that every later request of
// the installation would fail with the same 401 until the process restarts.
type installationTransport struct {
	id   int64
	mint func() (*ghinstallation.Transport, error)
	cur  atomic.Pointer[ghinstallation.Transport]
	mu   sync.Mutex // serialises replacing cur
	// onRefresh, when set, is told each time a rejected token is replaced.
	onRefresh func(installationID int64)
	// pacer spaces this installation's check-run writes (nil: unpaced);
	// shared, when set, is used instead (the pace of every replica).
	pacer  *pacer
	shared WriteLimiter
	// paceLimit bounds one write's wait for the pace.
	paceLimit time.Duration
}

func newInstallationTransport(c *Clients, id int64) (*installationTransport, error) {
	t := &installationTransport{id: id, onRefresh: c.onTokenRefresh, pacer: newPacer(c.pace), shared: c.shared,
		paceLimit: paceWaitLimit(c.pace)}
	t.mint = func() (*ghinstallation.Transport, error) {
		tr, err := ghinstallation.New(c.base, c.appID, id, c.key)
		if err != nil {
			return nil, fmt.Errorf("installation %d: %w", id, err)
		}
		tr.BaseURL = strings.TrimSuffix(c.baseURL, "/")
		return tr, nil
	}
	tr, err := t.mint()
	if err != nil {
		return nil, err
	}
	t.cur.Store(tr)
	return t, nil
}

// RoundTrip sends req with the current token, and once more with a fresh
// token if GitHub answers 401.
func (t *installationTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if (t.pacer != nil || t.shared != nil) && isCheckRunWrite(req) {
		wait := func(ctx context.Context) error { return t.pacer.wait(ctx) }
		if t.shared != nil {
			wait = func(ctx context.Context) error { return t.shared.WaitWrite(ctx, t.id) }
		}
		// The wait does not count against the job's time limit
		// (WithJobTimeout); it has its own bound.
		if err := paceWait(req.Context(), t.paceLimit, wait); err != nil {
			return nil, fmt.Errorf("%s %s: waiting for the installation's write pace: %w", req.Method, Endpoint(req.URL.Path), err)
		}
	}
	tr := t.cur.Load()
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil // cannot resend this body; the caller sees the 401
	}
	fresh, merr := t.replace(tr)
	if merr != nil {
		return resp, nil
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		body, berr := req.GetBody()
		if berr != nil {
			return resp, nil
		}
		retry.Body = body
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return fresh.RoundTrip(retry)
}

// replace swaps the transport whose token was rejected for a new one
// (which mints a new token on its first request), unless a concurrent
// request already did: then the newer transport is returned.
func (t *installationTransport) replace(rejected *ghinstallation.Transport) (*ghinstallation.Transport, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.cur.Load(); cur != rejected {
		return cur, nil
	}
	fresh, err := t.mint()
	if err != nil {
		return nil, err
	}
	t.cur.Store(fresh)
	if t.onRefresh != nil {
		t.onRefresh(t.id)
	}
	return fresh, nil
}

// WritePace is one window of the pace an installation's check-run writes
// are kept to: at most N per Per.
type WritePace struct {
	Per time.Duration
	N   int
}

// GitHubWritePace keeps writes inside GitHub's documented secondary limits
// on content-creating requests (80 a minute, 500 an hour), with a margin.
var GitHubWritePace = []WritePace{{Per: time.Minute, N: 75}, {Per: time.Hour, N: 480}}

// PaceWrites makes every installation keep its check-run writes (POST and
// PATCH of check runs) within limits: a write that would pass one waits
// (honouring its context) until the window has room, instead of being
// refused by GitHub's secondary limit and retried blind. Set it before the
// first Installation call; nil leaves writes unpaced.
func (c *Clients) PaceWrites(limits []WritePace) { c.pace = limits }

// WriteLimiter paces check-run writes per installation across every
// replica of the App: GitHub's secondary limits count an installation's
// writes whichever replica sends them, so with several replicas a
// per-process pace lets them pass the limit together. WaitWrite blocks
// (honouring ctx) until one more write of the installation fits, and
// records it. webhook/redisqueue's WritePacer implements it in Redis.
type WriteLimiter interface {
	WaitWrite(ctx context.Context, installationID int64) error
}

// ShareWritePace paces every installation's check-run writes with l (the
// pace shared by all replicas) instead of PaceWrites' per-process one. Set
// it before the first Installation call; nil keeps the per-process pace.
func (c *Clients) ShareWritePace(l WriteLimiter) { c.shared = l }

// LocalWritePace is a WriteLimiter kept in this process (one sliding
// window per installation): what PaceWrites does, for a shared limiter to
// fall back on when its store cannot be reached. Nil when limits holds no
// usable window.
func LocalWritePace(limits []WritePace) WriteLimiter {
	if newPacer(limits) == nil {
		return nil
	}
	return &localPace{limits: limits, by: map[int64]*pacer{}}
}

type localPace struct {
	limits []WritePace
	mu     sync.Mutex
	by     map[int64]*pacer
}

func (l *localPace) WaitWrite(ctx context.Context, id int64) error {
	l.mu.Lock()
	p := l.by[id]
	if p == nil {
		p = newPacer(l.limits)
		l.by[id] = p
	}
	l.mu.Unlock()
	return p.wait(ctx)
}

// isCheckRunWrite reports whether req creates or updates a check run.
func isCheckRunWrite(req *http.Request) bool {
	return (req.Method == http.MethodPost || req.Method == http.MethodPatch) && strings.Contains(req.URL.Path, "/check-runs")
}

// pacer is a sliding-window log of one installation's writes.
type pacer struct {
	limits []WritePace
	mu     sync.Mutex
	log    []time.Time // oldest first; one entry per admitted write
	now    func() time.Time
}

func newPacer(limits []WritePace) *pacer {
	var ls []WritePace
	for _, l := range limits {
		if l.Per > 0 && l.N > 0 {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return nil
	}
	return &pacer{limits: ls, now: time.Now}
}

// wait blocks until one more write fits every window, then records it.
func (p *pacer) wait(ctx context.Context) error {
	for {
		p.mu.Lock()
		now := p.now()
		longest := time.Duration(0)
		for _, l := range p.limits {
			longest = max(longest, l.Per)
		}
		for len(p.log) > 0 && !p.log[0].After(now.Add(-longest)) {
			p.log = p.log[1:]
		}
		var wait time.Duration
		for _, l := range p.limits {
			in, oldest := 0, time.Time{}
			for i := len(p.log) - 1; i >= 0 && p.log[i].After(now.Add(-l.Per)); i-- {
				in++
				oldest = p.log[i]
			}
			if in >= l.N {
				wait = max(wait, oldest.Add(l.Per).Sub(now)+time.Millisecond)
			}
		}
		if wait == 0 {
			p.log = append(p.log, now)
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		if err := sleepCtx(ctx, wait); err != nil {
			return err
		}
	}
}

// OnTokenRefresh sets a function told each time an installation's access
// token is replaced after GitHub rejected it with 401 (for logs and
// metrics). Set it before the first Installation call.
func (c *Clients) OnTokenRefresh(f func(installationID int64)) { c.onTokenRefresh = f }

// Transport is the HTTP middleware under every GitHub request (the token
// requests included): it counts calls and errors by endpoint, records the
// rate limit left, and retries what GitHub rejected without processing —
// 5xx on idempotent requests (not POSTs, not annotation appends), 429 and
// secondary rate limits on any — with backoff that honours Retry-After.
type Transport struct {
	Base     http.RoundTripper
	Metrics  *APIMetrics
	Logger   *slog.Logger
	Attempts int           // total attempts per request (default 4)
	MaxWait  time.Duration // longest single wait (default 60 s)
	// Sleep waits; tests replace it. It returns early when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// APIMetrics are the App's GitHub API metrics.
type APIMetrics struct {
	Requests  *prometheus.CounterVec
	Errors    *prometheus.CounterVec
	Retries   *prometheus.CounterVec
	Remaining *prometheus.GaugeVec
}

// NewAPIMetrics registers the GitHub API metrics.
func NewAPIMetrics(reg prometheus.Registerer) (*APIMetrics, error) {
	m := &APIMetrics{
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shipgate_github_requests_total",
			Help: "GitHub API requests by endpoint, method and status code."}, []string{"endpoint", "method", "code"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shipgate_github_request_errors_total",
			Help: "GitHub API requests that failed (network error or status >= 400) by endpoint."}, []string{"endpoint"}),
		Retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shipgate_github_retries_total",
			Help: "GitHub API requests retried, by reason."}, []string{"reason"}),
		Remaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "shipgate_github_rate_limit_remaining",
			Help: "X-RateLimit-Remaining of the last GitHub response, by rate-limit resource."}, []string{"resource"}),
	}
	for _, c := range []prometheus.Collector{m.Requests, m.Errors, m.Retries, m.Remaining} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering GitHub API metrics: %w", err)
		}
	}
	return m, nil
}

// RoundTrip sends the request, retrying when GitHub asks to.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	attempts := t.Attempts
	if attempts <= 0 {
		attempts = 4
	}
	endpoint := Endpoint(req.URL.Path)
	for attempt := 1; ; attempt++ {
		if attempt > 1 && req.Body != nil && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("rewinding a request body to retry: %w", err)
			}
			req.Body = body
		}
		resp, err := base.RoundTrip(req)
		t.observe(req, endpoint, resp, err)
		wait, reason := t.retryable(req, resp, err, attempt)
		if reason == "" || attempt >= attempts {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if t.Metrics != nil {
			t.Metrics.Retries.WithLabelValues(reason).Inc()
		}
		if t.Logger != nil {
			t.Logger.Warn("retrying a GitHub request", "endpoint", endpoint, "method", req.Method, "reason", reason, "attempt", attempt, "wait", wait)
		}
		sleep := t.Sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, fmt.Errorf("%s %s: waiting to retry (%s): %w", req.Method, endpoint, reason, err)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func (t *Transport) observe(req *http.Request, endpoint string, resp *http.Response, err error) {
	if t.Metrics == nil {
		return
	}
	code := "error"
	if resp != nil {
		code = strconv.Itoa(resp.StatusCode)
		if rem := resp.Header.Get("X-RateLimit-Remaining"); rem != "" {
			if n, perr := strconv.ParseFloat(rem, 64); perr == nil {
				res := resp.Header.Get("X-RateLimit-Resource")
				if res == "" {
					res = "core"
				}
				t.Metrics.Remaining.WithLabelValues(res).Set(n)
			}
		}
	}
	t.Metrics.Requests.WithLabelValues(endpoint, req.Method, code).Inc()
	if err != nil || (resp != nil && resp.StatusCode >= 400 && !routineNotFound(req, endpoint, resp)) {
		t.Metrics.Errors.WithLabelValues(endpoint).Inc()
	}
}

// routineNotFound reports a 404 on reading a file: GitHub's way of saying
// the file does not exist (a repository without .github/shipgate.yml, a
// settings file the base lacks). It is an answer, not a failure, so it is
// counted in shipgate_github_requests_total{code="404"} but not as an error.
func routineNotFound(req *http.Request, endpoint string, resp *http.Response) bool {
	return resp.StatusCode == http.StatusNotFound && req.Method == http.MethodGet && endpoint == "/repos/{owner}/{repo}/contents/{path}"
}

var secondaryLimit = regexp.MustCompile(`(?i)secondary rate limit|abuse detection`)

// appendKey marks a request's context as not idempotent whatever its
// method: a check-run PATCH carrying annotations appends them, so a retry
// after a 5xx or a lost connection (which GitHub may have applied) would
// post them twice.
type appendKey struct{}

// appending marks ctx's requests as appending (see appendKey); the caller
// learns what landed before it sends them again.
func appending(ctx context.Context) context.Context { return context.WithValue(ctx, appendKey{}, true) }

// retryable decides whether to retry, how long to wait, and why.
func (t *Transport) retryable(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, string) {
	idempotent := req.Method != http.MethodPost && req.Context().Value(appendKey{}) == nil
	backoff := func() time.Duration {
		d := time.Duration(250<<uint(attempt-1)) * time.Millisecond
		return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	}
	maxWait := t.MaxWait
	if maxWait <= 0 {
		maxWait = 60 * time.Second
	}
	capWait := func(d time.Duration) time.Duration {
		return min(d, maxWait)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || !idempotent {
			return 0, ""
		}
		return backoff(), "network"
	}
	retryAfter := func() (time.Duration, bool) {
		if s := resp.Header.Get("Retry-After"); s != "" {
			if n, err := strconv.Atoi(s); err == nil {
				return capWait(time.Duration(n) * time.Second), true
			}
		}
		return 0, false
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		if d, ok := retryAfter(); ok {
			return d, "429"
		}
		return capWait(backoff()), "429"
	case resp.StatusCode == http.StatusForbidden:
		if d, ok := retryAfter(); ok {
			return d, "secondary_limit"
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				d := time.Until(time.Unix(reset, 0)) + time.Second
				if d > maxWait {
					return 0, "" // the job fails and is retried later by the queue
				}
				return max(d, time.Second), "primary_limit"
			}
		}
		// A secondary limit without Retry-After: the body says so.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		if secondaryLimit.Match(body) {
			return capWait(time.Minute), "secondary_limit"
		}
	case resp.StatusCode >= 500 && idempotent:
		return backoff(), "5xx"
	}
	return 0, ""
}

var endpointRules = []struct {
	re   *regexp.Regexp
	name string
}{
	{regexp.MustCompile(`^/app/installations/\d+/access_tokens$`), "/app/installations/{id}/access_tokens"},
	{regexp.MustCompile(`^/app/hook/deliveries/\d+/attempts$`), "/app/hook/deliveries/{id}/attempts"},
	{regexp.MustCompile(`^/app/hook/deliveries/\d+$`), "/app/hook/deliveries/{id}"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/pulls/\d+/files$`), "/repos/{owner}/{repo}/pulls/{number}/files"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/pulls/\d+/reviews$`), "/repos/{owner}/{repo}/pulls/{number}/reviews"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/pulls/\d+$`), "/repos/{owner}/{repo}/pulls/{number}"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/pulls$`), "/repos/{owner}/{repo}/pulls"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/contents/.*$`), "/repos/{owner}/{repo}/contents/{path}"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/check-runs/\d+/annotations$`), "/repos/{owner}/{repo}/check-runs/{id}/annotations"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/check-runs/\d+$`), "/repos/{owner}/{repo}/check-runs/{id}"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/check-runs$`), "/repos/{owner}/{repo}/check-runs"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/commits/[^/]+/check-runs$`), "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+/installation$`), "/repos/{owner}/{repo}/installation"},
	{regexp.MustCompile(`^/orgs/[^/]+/teams/[^/]+/memberships/[^/]+$`), "/orgs/{org}/teams/{team}/memberships/{user}"},
	{regexp.MustCompile(`^/installation/repositories$`), "/installation/repositories"},
	{regexp.MustCompile(`^/repos/[^/]+/[^/]+$`), "/repos/{owner}/{repo}"},
}

// Endpoint names a request path by its route template, so metrics have a
// bounded set of labels and never carry repository names.
func Endpoint(path string) string {
	path = strings.TrimPrefix(path, "/api/v3")
	for _, r := range endpointRules {
		if r.re.MatchString(path) {
			return r.name
		}
	}
	switch path {
	case "/app", "/app/installations", "/app/hook/deliveries", "/rate_limit":
		return path
	}
	return "other"
}
