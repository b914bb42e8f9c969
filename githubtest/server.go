package githubtest

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value is usable: it describes app 1,
// slug "shipgate", with no public key (so no JWT verifies until one is
// given) and no webhook URL (deliveries are recorded but not sent).
type Options struct {
	// AppID is the primary GitHub App's ID (default 1). JWTs whose `iss` is
	// this ID (as a string or a number) or the app's client ID verify
	// against AppPublicKey.
	AppID int64
	// AppSlug is the primary app's slug (default "shipgate"); its bot user
	// is "<slug>[bot]".
	AppSlug string
	// AppName is the primary app's display name (default: the slug).
	AppName string
	// AppOwner is the login of the organisation that owns the app
	// (default "shipgate-app").
	AppOwner string
	// AppPublicKey verifies the primary app's JWTs. GenerateAppKey makes a
	// key pair for tests and the demo.
	AppPublicKey *rsa.PublicKey
	// AppPermissions are the permissions the app requests; installations
	// get them unless InstallationOptions say otherwise. Default:
	// checks and pull_requests write; contents, metadata and members read.
	AppPermissions map[string]string
	// WebhookURL is where deliveries for the primary app are POSTed. Empty:
	// deliveries are recorded, not sent.
	WebhookURL string
	// WebhookSecret signs deliveries (X-Hub-Signature-256, HMAC-SHA256).
	WebhookSecret string
	// Clock returns the fake's current time (default time.Now). ManualClock
	// gives tests a clock they can advance.
	Clock func() time.Time
	// RateLimit is the primary rate limit of each installation, in requests
	// an hour (default 5,000, GitHub's minimum for an installation).
	RateLimit int
	// DeliveryTimeout bounds one webhook delivery, as GitHub's 10 s does
	// (default 10 s).
	DeliveryTimeout time.Duration
	// HTTPClient sends webhook deliveries (default: a client with
	// DeliveryTimeout).
	HTTPClient *http.Client
	// HTMLURL is the base of html_url links (default "https://github.com").
	HTMLURL string
	// ContentLimits are the secondary limits on content-creating requests
	// enforced per installation (GitHubContentLimits are GitHub's: 80 a
	// minute, 500 an hour); nil enforces none. A request past one gets 403
	// with Retry-After, as on GitHub, so a test catches a burst of writes.
	ContentLimits []ContentLimit
}

// Server is a running fake GitHub. All of its methods are safe for
// concurrent use.
type Server struct {
	opts    Options
	clock   func() time.Time
	handler http.Handler
	hooks   *http.Client
	closing chan struct{}

	mu      sync.Mutex
	st      *state
	baseURL string
	err     error

	lifeMu    sync.Mutex
	httpSrv   *http.Server
	serveDone chan struct{}
	closeOnce sync.Once
}

// New returns a Server already serving on a loopback listener, like
// httptest.NewServer. It never panics: if no loopback port can be opened,
// URL is empty and Err says why.
func New(opts Options) *Server {
	s := NewUnstarted(opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		var err6 error
		if l, err6 = net.Listen("tcp", "[::1]:0"); err6 != nil {
			s.setErr(fmt.Errorf("githubtest: listen on loopback: %w", errors.Join(err, err6)))
			return s
		}
	}
	s.Start(l)
	return s
}

// NewUnstarted returns a Server that is not yet listening, for callers that
// choose the listener (Start) or mount Handler in their own server, such as
// `shipgate demo --listen`.
func NewUnstarted(opts Options) *Server {
	if opts.AppID == 0 {
		opts.AppID = 1
	}
	if opts.AppSlug == "" {
		opts.AppSlug = "shipgate"
	}
	if opts.AppName == "" {
		opts.AppName = opts.AppSlug
	}
	if opts.AppOwner == "" {
		opts.AppOwner = "shipgate-app"
	}
	if opts.AppPermissions == nil {
		opts.AppPermissions = defaultPermissions()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.RateLimit <= 0 {
		opts.RateLimit = 5000
	}
	if opts.DeliveryTimeout <= 0 {
		opts.DeliveryTimeout = 10 * time.Second
	}
	if opts.HTMLURL == "" {
		opts.HTMLURL = "https://github.com"
	}
	opts.HTMLURL = strings.TrimRight(opts.HTMLURL, "/")
	hooks := opts.HTTPClient
	if hooks == nil {
		hooks = &http.Client{Timeout: opts.DeliveryTimeout}
	}
	s := &Server{
		opts:    opts,
		clock:   opts.Clock,
		hooks:   hooks,
		closing: make(chan struct{}),
	}
	s.st = newState(s.now())
	s.st.addPrimaryApp(opts, s.now())
	s.handler = s.newRouter()
	return s
}

// Start serves the fake on l in a background goroutine until Close. URL
// becomes "http://" + l.Addr(). Start must be called at most once.
func (s *Server) Start(l net.Listener) {
	s.mu.Lock()
	s.baseURL = "http://" + l.Addr().String()
	s.mu.Unlock()
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 30 * time.Second}
	done := make(chan struct{})
	s.lifeMu.Lock()
	s.httpSrv, s.serveDone = srv, done
	s.lifeMu.Unlock()
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.setErr(fmt.Errorf("githubtest: serve on %s: %w", l.Addr(), err))
		}
	}()
}

// SetURL sets the base URL that payloads and links use when the fake is
// served through Handler by someone else's server (Start sets it itself).
func (s *Server) SetURL(base string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.baseURL = strings.TrimRight(base, "/")
}

// Handler returns the fake's HTTP handler, for mounting in another server.
func (s *Server) Handler() http.Handler { return s.handler }

// URL returns the fake's base URL, e.g. "http://127.0.0.1:41234". Clients
// may use it directly (api.github.com style) or with "/api/v3" appended
// (GitHub Enterprise Server style).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.baseURL
}

// Err reports a failure to listen or serve, if any.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Server) setErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// Close stops serving, cuts injected latency short and waits for in-flight
// requests to finish. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.lifeMu.Lock()
		srv, done := s.httpSrv, s.serveDone
		s.lifeMu.Unlock()
		if srv == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
		<-done
	})
}

// now returns the fake's current time, truncated to seconds as GitHub's
// timestamps are.
func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }

// apiBase returns the base URL used inside payloads (never empty).
func (s *Server) apiBaseLocked() string {
	if s.baseURL == "" {
		return "https://api.github.com"
	}
	return s.baseURL
}

// ManualClock is a clock for tests: it stands still until Advance or Set.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a ManualClock reading t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now returns the clock's time; pass it as Options.Clock.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
