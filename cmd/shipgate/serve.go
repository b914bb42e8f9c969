package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/report"
	"github.com/shipgate-app/shipgate/webhook"
)

// serveConfig is everything `shipgate serve` needs. Every field has a flag
// and an environment variable (flags win).
type serveConfig struct {
	Listen string
	// OpsListen is the address of the listener of /healthz, /readyz and
	// /metrics (serve: --ops-listen, :9090), apart from the webhook's, so
	// that whatever fills the public listener (a slowloris at its
	// connection cap) never fails the pod's own probes; "" serves them on
	// Listen with the webhook, as before.
	OpsListen      string
	AppID          int64
	AppSlug        string
	PrivateKey     []byte
	WebhookSecrets []string
	GitHubURL      string
	Workers        int
	QueueSize      int
	JobTimeout     time.Duration
	ShutdownGrace  time.Duration
	Logger         *slog.Logger
	// RedeliverFailed lets a manual redelivery of a delivery whose job
	// failed run again (GitHub reuses the delivery ID).
	RedeliverFailed bool
	// Redis is the shared job queue of several replicas (--redis-url);
	// zero: the in-process queue.
	Redis redisConfig
	// QueueDir keeps the in-process queue on disk (--queue-dir): accepted
	// deliveries survive a restart. Empty: in memory only (tests and the
	// demo); serve defaults it (defaultQueueDir). Unused with Redis.
	QueueDir string
	// QueueDirDefault is set when QueueDir is serve's default rather than
	// the operator's choice; either way a directory that cannot be opened
	// (a read-only home, as in the image) stops the start with an error
	// that says so, never a silent fall-back to memory.
	QueueDirDefault bool
	// HTTPTransport is the transport to GitHub (tests and the demo point it
	// at the fake); nil uses the default.
	HTTPTransport http.RoundTripper
	// QueueMaxAttempts and QueueBackoff tune the job queue's retries of a
	// failed evaluation (zero and nil: the queue's defaults, 4 attempts
	// with 2 s..1 min jittered backoff). Tests shorten them.
	QueueMaxAttempts int
	QueueBackoff     func(attempt int) time.Duration
	// RetrySleep replaces the GitHub transport's wait before retrying a
	// 5xx, 429 or secondary limit, and the worker's between tries of a
	// check-run write GitHub failed (nil: really wait, honouring
	// Retry-After). Tests record the wait and skip it.
	RetrySleep func(ctx context.Context, d time.Duration) error
	// HTTP are the listener's per-connection limits (zero: the webhook
	// package's defaults).
	HTTP webhook.HTTPOptions
	// RedeliverInterval is how often the App asks GitHub to redeliver its
	// failed deliveries (zero: 1 min; negative: never). RedeliverLookback
	// is how far back the first scan looks (zero: 1 h).
	RedeliverInterval time.Duration
	RedeliverLookback time.Duration
	// RedeliverByTest builds the redelivery scan without running it (the
	// test calls server.redeliver.Scan).
	RedeliverByTest bool
	// WritePace keeps each installation's check-run writes within limits
	// (serve: app.GitHubWritePace, inside GitHub's secondary limits; nil:
	// unpaced, as tests that do not test pacing want).
	WritePace []app.WritePace
	// UnsharedPace keeps WritePace per replica even with Redis (tests show
	// what the shared pace prevents).
	UnsharedPace bool
	// SweepInterval is how often every open pull request of every
	// installation is checked for a Shipgate run, and queued when its head
	// has none (serve: --sweep-interval; zero: never, as tests that do not
	// test the sweep want).
	// SweepBudget is the most API calls one sweep makes (zero: the
	// default).
	SweepInterval time.Duration
	SweepBudget   int
	// Judge replaces the engine's entry point (nil: judge.CompareContext);
	// tests wrap it.
	Judge func(ctx context.Context, in report.Input) (report.Report, error)
	// SweepStart and SweepPerPage tune the sweep for tests (zero: the
	// defaults, app.SweepOptions).
	SweepStart   time.Duration
	SweepPerPage int
	// SweepStaleAfter is how long a run may stay in progress before the
	// sweep queues its head again (zero: the sweep's default, 15 min).
	SweepStaleAfter time.Duration
	// LedgerTokens turn on GET /ledger for bearers of one of them
	// (ledger.go); none leaves it off.
	LedgerTokens []string
	// Clock is the webhook server's clock (nil: time.Now): it stamps
	// deliveries and judges which request bodies stopped moving. Tests
	// advance it instead of waiting.
	Clock func() time.Time
}

// server is a running App: HTTP listener, queue, worker pool.
type server struct {
	cfg     serveConfig
	http    *http.Server
	hook    *webhook.Server
	queue   webhook.Queue
	closeQ  func() // closes the queue's connections (Redis)
	worker  *app.Worker
	sweeper *app.Sweeper // nil when the sweep is off
	// redeliver is the redelivery scan (nil when off).
	redeliver *webhook.Redeliverer
	listener  net.Listener
	// ops serves health and metrics on opsListener (nil: on listener).
	ops         *http.Server
	opsListener net.Listener
	ready       *readiness
	stop        context.CancelFunc
	done        chan struct{}
	runErr      error
}

// readiness caches whether the App's credentials work (GET /app with the
// App JWT), so probes do not call GitHub every time.
type readiness struct {
	clients *app.Clients
	mu      sync.Mutex
	at      time.Time
	err     error
	slug    string
	// onSlug, when set, learns the App's slug each time GitHub answers:
	// the webhook server starts with a fallback when GitHub could not be
	// asked at startup.
	onSlug func(string)
}

func (r *readiness) check(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.at.IsZero() && time.Since(r.at) < 30*time.Second {
		return r.err
	}
	a, _, err := r.clients.App().Apps.Get(ctx, "")
	r.at = time.Now()
	if err != nil {
		r.err = fmt.Errorf("the GitHub App credentials do not work yet: %w", err)
		return r.err
	}
	r.err, r.slug = nil, a.GetSlug()
	if r.onSlug != nil {
		r.onSlug(r.slug)
	}
	return nil
}

// startServer builds and starts the App on cfg.Listen. It returns once the
// listener is open; stop it with shutdown.
func startServer(ctx context.Context, cfg serveConfig) (*server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if len(cfg.WebhookSecrets) == 0 {
		return nil, errors.New("no webhook secret: set --webhook-secret-file or SHIPGATE_WEBHOOK_SECRET (refusing to accept unsigned deliveries)")
	}
	if len(cfg.PrivateKey) == 0 {
		return nil, errors.New("no GitHub App private key: set --private-key-file or SHIPGATE_PRIVATE_KEY_FILE")
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), newBuildInfo())
	metrics, err := webhook.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	apiMetrics, err := app.NewAPIMetrics(metrics.Registerer())
	if err != nil {
		return nil, err
	}
	tr := &app.Transport{Base: cfg.HTTPTransport, Metrics: apiMetrics, Logger: cfg.Logger, Sleep: cfg.RetrySleep}
	clients, err := app.NewClients(cfg.AppID, cfg.PrivateKey, cfg.GitHubURL, tr)
	if err != nil {
		return nil, err
	}
	clients.PaceWrites(cfg.WritePace)
	clients.OnTokenRefresh(func(id int64) {
		cfg.Logger.Warn("GitHub rejected a cached installation token (401: revoked, or this machine's clock is behind); minted a new one and retried",
			"installation_id", id)
	})
	ready := &readiness{clients: clients}
	slug := cfg.AppSlug
	if slug == "" {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := ready.check(cctx); err != nil {
			cfg.Logger.Error("could not read the App at startup; readiness stays false until it works", "error", err)
		}
		cancel()
		slug = ready.slug
	}
	// The worker knows its own bot user once the slug is known (given, or
	// learned from GitHub; a readiness check corrects it later).
	var botLogin atomic.Pointer[string]
	setBot := func(slug string) {
		if slug != "" {
			login := slug + "[bot]"
			botLogin.Store(&login)
		}
	}
	setBot(slug)
	if slug == "" {
		slug = "shipgate" // until the first readiness check that reaches GitHub
	}
	worker := app.NewWorker(clients, app.Config{Version: version, Logger: cfg.Logger, SharedQueue: cfg.Redis.URL != "", Judge: cfg.Judge,
		Sleep: cfg.RetrySleep, BotLogin: func() string {
			if l := botLogin.Load(); l != nil {
				return *l
			}
			return ""
		}})
	queue, deliveries, extras, closeQ, err := newQueueAndDedup(ctx, cfg.Redis, queueDirChoice{cfg.QueueDir, cfg.QueueDirDefault}, webhook.QueueOptions{
		Capacity: cfg.QueueSize, Workers: cfg.Workers, JobTimeout: cfg.JobTimeout,
		MaxAttempts: cfg.QueueMaxAttempts, Backoff: cfg.QueueBackoff, Metrics: metrics, Logger: cfg.Logger,
	}, cfg.RedeliverFailed, cfg.WritePace)
	if err != nil {
		return nil, err
	}
	store := "memory"
	switch {
	case cfg.Redis.URL != "":
		store = "redis"
	case cfg.QueueDir != "":
		store = "disk"
	}
	reg.MustRegister(newQueueInfo(store))
	if extras.pace != nil && !cfg.UnsharedPace {
		clients.ShareWritePace(extras.pace)
	}
	var redeliver *webhook.Redeliverer
	hookOpts := webhook.Options{
		Secrets: cfg.WebhookSecrets, AppID: cfg.AppID, AppSlug: slug, Queue: queue, Deliveries: deliveries,
		Metrics: metrics, Ready: ready.check, Logger: cfg.Logger, Now: cfg.Clock,
		// The body's stall deadline replaces the connection's read
		// deadline: the whole-body bound is the listener's ReadTimeout.
		BodyTimeout: cfg.HTTP.ReadTimeout,
	}
	if cfg.RedeliverInterval >= 0 {
		capacity := cfg.QueueSize
		if capacity <= 0 {
			capacity = webhook.DefaultQueueCapacity
		}
		redeliver, err = webhook.NewRedeliverer(webhook.RedelivererOptions{
			Deliveries: webhook.GitHubHookDeliveries(clients.App()), Interval: cfg.RedeliverInterval, Lookback: cfg.RedeliverLookback,
			// Feed a backlog in at half the queue's capacity, so that what
			// is redelivered is not refused again.
			Room:   func() int { return max(capacity/2-queue.Depth(), 0) },
			Memory: extras.memory, Lease: extras.scanLease,
			Metrics: metrics, Logger: cfg.Logger,
		})
		if err != nil {
			closeQ()
			return nil, err
		}
		hookOpts.OnRefused, hookOpts.OnQueued = redeliver.Refused, redeliver.Queued
	}
	hook, err := webhook.NewServer(hookOpts)
	if err != nil {
		closeQ()
		return nil, err
	}
	if cfg.AppSlug == "" {
		// Learned from GitHub: corrected by the next readiness check if
		// GitHub could not be asked at startup.
		ready.mu.Lock()
		ready.onSlug = func(slug string) {
			hook.SetAppSlug(slug)
			setBot(slug)
		}
		ready.mu.Unlock()
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		closeQ()
		return nil, fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	var opsLn net.Listener
	if cfg.OpsListen != "" {
		if opsLn, err = net.Listen("tcp", cfg.OpsListen); err != nil {
			ln.Close()
			closeQ()
			return nil, fmt.Errorf("listening on %s (--ops-listen, health and metrics): %w", cfg.OpsListen, err)
		}
	}
	runCtx, stop := context.WithCancel(context.Background())
	httpOpts := cfg.HTTP
	if httpOpts.ErrorLog == nil {
		httpOpts.ErrorLog = cfg.Logger
	}
	var handler http.Handler = hook
	if opsLn != nil {
		handler = hook.WebhookHandler()
	}
	if len(cfg.LedgerTokens) > 0 {
		mux := http.NewServeMux()
		mux.Handle("/ledger", ledgerHandler(clients, cfg.LedgerTokens, cfg.Logger))
		mux.Handle("/", handler)
		handler = mux
	}
	hs, limit := webhook.HTTPServer(handler, httpOpts)
	s := &server{cfg: cfg, hook: hook, queue: queue, closeQ: closeQ, worker: worker, listener: ln, ready: ready, stop: stop, done: make(chan struct{}),
		http: hs, opsListener: opsLn}
	go func() {
		if err := s.http.Serve(limit(ln)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Logger.Error("HTTP server stopped", "error", err)
		}
	}()
	if opsLn != nil {
		// Probes and scrapes come from inside the cluster, a few at a time.
		ops, opsLimit := webhook.HTTPServer(hook.OpsHandler(), webhook.HTTPOptions{MaxConnections: opsMaxConnections, ErrorLog: cfg.Logger})
		s.ops = ops
		go func() {
			if err := ops.Serve(opsLimit(opsLn)); err != nil && !errors.Is(err, http.ErrServerClosed) {
				cfg.Logger.Error("health and metrics HTTP server stopped", "error", err)
			}
		}()
	}
	go func() {
		defer close(s.done)
		s.runErr = queue.Run(runCtx, worker)
	}()
	s.redeliver = redeliver
	if redeliver != nil && !cfg.RedeliverByTest {
		go redeliver.Run(runCtx)
	}
	if cfg.SweepInterval > 0 {
		capacity := cfg.QueueSize
		if capacity <= 0 {
			capacity = webhook.DefaultQueueCapacity
		}
		var lease func(context.Context) bool
		if extras.sweepLease != nil {
			lease = extras.sweepLease(cfg.SweepInterval * 9 / 10)
		}
		s.sweeper, err = app.NewSweeper(clients, app.SweepOptions{Interval: cfg.SweepInterval, Budget: cfg.SweepBudget, Lease: lease,
			Cursor: extras.sweepCursor,
			Start:  cfg.SweepStart, PerPage: cfg.SweepPerPage, StaleAfter: cfg.SweepStaleAfter, Enqueue: queue.Enqueue,
			// As the redelivery scan: at most half the queue, so what the
			// sweep queues is not refused again.
			Room:   func() int { return max(capacity/2-queue.Depth(), 0) },
			Logger: cfg.Logger})
		if err != nil {
			_ = s.shutdown(context.Background())
			return nil, err
		}
		go s.sweeper.Run(runCtx)
	}
	opsAddr := ln.Addr().String()
	if opsLn != nil {
		opsAddr = opsLn.Addr().String()
	}
	cfg.Logger.Info("shipgate listening", "addr", ln.Addr().String(), "ops_addr", opsAddr, "app_id", cfg.AppID, "github_url", cfg.GitHubURL, "workers", cfg.Workers)
	return s, nil
}

// opsMaxConnections caps the health and metrics listener's connections.
const opsMaxConnections = 64

// URL is the server's base URL (the webhook).
func (s *server) URL() string { return "http://" + s.listener.Addr().String() }

// OpsURL is the base URL of /healthz, /readyz and /metrics.
func (s *server) OpsURL() string {
	if s.opsListener == nil {
		return s.URL()
	}
	return "http://" + s.opsListener.Addr().String()
}

// shutdown stops accepting deliveries (503), lets accepted jobs finish
// until ctx ends, and closes the listener. No accepted job is dropped
// silently: the queue logs any it had to abandon.
func (s *server) shutdown(ctx context.Context) error {
	errHook := s.hook.Shutdown(ctx)
	errHTTP := s.http.Shutdown(ctx)
	if s.ops != nil {
		errHTTP = errors.Join(errHTTP, s.ops.Shutdown(ctx))
	}
	s.stop()
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	s.closeQ()
	return errors.Join(errHook, errHTTP)
}

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "[flags]", stderr)
	listen := fs.String("listen", envOr("SHIPGATE_LISTEN", ":8080"), "address of the webhook listener, POST /webhook (SHIPGATE_LISTEN)")
	opsListen := fs.String("ops-listen", envOr("SHIPGATE_OPS_LISTEN", ":9090"), "address of the health and metrics listener, GET /healthz, /readyz, /metrics, apart from the webhook's so a flood of it cannot fail the probes; \"same\" serves them on --listen (SHIPGATE_OPS_LISTEN)")
	appID := fs.String("app-id", os.Getenv("SHIPGATE_APP_ID"), "GitHub App ID (SHIPGATE_APP_ID)")
	appSlug := fs.String("app-slug", os.Getenv("SHIPGATE_APP_SLUG"), "GitHub App slug; read from GitHub when empty (SHIPGATE_APP_SLUG)")
	keyFile := fs.String("private-key-file", os.Getenv("SHIPGATE_PRIVATE_KEY_FILE"), "PEM file of the App's private key, not readable by others (SHIPGATE_PRIVATE_KEY_FILE; or SHIPGATE_PRIVATE_KEY with the PEM itself, removed from the environment once read)")
	secretFile := fs.String("webhook-secret-file", os.Getenv("SHIPGATE_WEBHOOK_SECRET_FILE"), "file with the webhook secret, at least 16 characters; one secret per line to rotate (SHIPGATE_WEBHOOK_SECRET_FILE; or SHIPGATE_WEBHOOK_SECRET with one secret, plus SHIPGATE_WEBHOOK_SECRET_PREVIOUS during a rotation)")
	redeliverEvery := fs.Duration("redeliver-interval", envDuration("SHIPGATE_REDELIVER_INTERVAL", webhook.DefaultRedeliverInterval), "how often to ask GitHub to redeliver deliveries this App failed to take (503, or no answer); sooner after a refusal; 0 turns it off (SHIPGATE_REDELIVER_INTERVAL)")
	redeliverBack := fs.Duration("redeliver-lookback", envDuration("SHIPGATE_REDELIVER_LOOKBACK", webhook.DefaultRedeliverLookback), "how far back the first redelivery scan after a start looks, at most 72h (SHIPGATE_REDELIVER_LOOKBACK)")
	maxConns := fs.Int("max-connections", envInt("SHIPGATE_MAX_CONNECTIONS", webhook.DefaultMaxConnections), "HTTP connections open at once; more wait in the kernel's backlog (SHIPGATE_MAX_CONNECTIONS)")
	ghURL := fs.String("github-url", envOr("SHIPGATE_GITHUB_URL", "https://api.github.com/"), "GitHub REST API URL; https://HOST/api/v3/ for GitHub Enterprise Server (SHIPGATE_GITHUB_URL)")
	workers := fs.Int("workers", envInt("SHIPGATE_WORKERS", 4), "concurrent evaluations (SHIPGATE_WORKERS)")
	queueSize := fs.Int("queue-size", envInt("SHIPGATE_QUEUE_SIZE", 1000), "pending pull requests before deliveries get 503 (SHIPGATE_QUEUE_SIZE)")
	jobTimeout := fs.Duration("job-timeout", envDuration("SHIPGATE_JOB_TIMEOUT", 2*time.Minute), "time limit of one evaluation attempt, not counting waits for the write pace (SHIPGATE_JOB_TIMEOUT)")
	grace := fs.Duration("shutdown-grace", envDuration("SHIPGATE_SHUTDOWN_GRACE", 25*time.Second), "time to finish accepted jobs on SIGTERM (SHIPGATE_SHUTDOWN_GRACE)")
	sweepEvery := fs.Duration("sweep-interval", envDuration("SHIPGATE_SWEEP_INTERVAL", app.DefaultSweepInterval), "how often to check every open pull request of every installation for a Shipgate check run and queue those whose head has none (a refused or lost delivery, a restart of the in-process queue); 0 turns it off (SHIPGATE_SWEEP_INTERVAL)")
	sweepBudget := fs.Int("sweep-budget", envInt("SHIPGATE_SWEEP_BUDGET", app.DefaultSweepBudget), "most GitHub API calls one sweep makes; a sweep that spends it resumes at the next interval (SHIPGATE_SWEEP_BUDGET)")
	writePace := fs.String("write-pace", os.Getenv("SHIPGATE_WRITE_PACE"), "check-run writes allowed per installation, as N/DURATION windows (default 75/1m,480/1h, inside GitHub's secondary limits; shared by every replica with Redis); off for a GitHub Enterprise Server without secondary limits (SHIPGATE_WRITE_PACE)")
	queueDir := fs.String("queue-dir", envOr("SHIPGATE_QUEUE_DIR", defaultQueueDir()), "directory where the in-process queue keeps accepted deliveries, so that a restart loses none; one process per directory; \"memory\" keeps them in memory only; unused with --redis-url (SHIPGATE_QUEUE_DIR)")
	redisFlags := addRedisFlags(fs)
	logFormat := fs.String("log-format", envOr("SHIPGATE_LOG_FORMAT", "json"), "log format: json or text (SHIPGATE_LOG_FORMAT)")
	logLevel := fs.String("log-level", envOr("SHIPGATE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (SHIPGATE_LOG_LEVEL)")
	ledgerFile := fs.String("ledger-token-file", os.Getenv("SHIPGATE_LEDGER_TOKEN_FILE"), "file of bearer tokens (one a line, 16+ characters) that may read GET /ledger, the organisation's decisions and approvals; unset: the endpoint is off (SHIPGATE_LEDGER_TOKEN_FILE; or SHIPGATE_LEDGER_TOKEN with one token)")
	redeliver := fs.Bool("redeliver-failed", envBool("SHIPGATE_REDELIVER_FAILED", true), "accept a redelivery of a delivery whose job failed (SHIPGATE_REDELIVER_FAILED)")
	if _, err := parseFlags(fs, args); err != nil {
		return flagError(err)
	}
	if err := checkEnv(fs, os.Environ()); err != nil {
		return usageError(stderr, "serve", "%v", err)
	}
	logger, err := newLogger(stderr, *logFormat, *logLevel)
	if err != nil {
		return usageError(stderr, "serve", "%v", err)
	}
	if *opsListen == "same" || *opsListen == "" {
		*opsListen = ""
	}
	cfg := serveConfig{Listen: *listen, OpsListen: *opsListen, AppSlug: *appSlug, GitHubURL: *ghURL, Workers: *workers, QueueSize: *queueSize,
		JobTimeout: *jobTimeout, ShutdownGrace: *grace, Logger: logger, RedeliverFailed: *redeliver}
	if cfg.Redis, err = redisFlags(); err != nil {
		return usageError(stderr, "serve", "%v", err)
	}
	switch d := strings.TrimSpace(*queueDir); {
	case cfg.Redis.URL != "", d == "memory":
	case d == "" && !flagGiven(fs, "queue-dir") && os.Getenv("SHIPGATE_QUEUE_DIR") == "":
		return usageError(stderr, "serve", "no default --queue-dir: neither $XDG_STATE_HOME nor $HOME names a directory; give a writable directory (or \"memory\" to lose accepted deliveries on a restart)")
	case d == "":
		return usageError(stderr, "serve", "--queue-dir is empty: give a writable directory (or \"memory\" to lose accepted deliveries on a restart)")
	default:
		cfg.QueueDir = d
		cfg.QueueDirDefault = os.Getenv("SHIPGATE_QUEUE_DIR") == "" && !flagGiven(fs, "queue-dir")
	}
	if cfg.AppID, err = strconv.ParseInt(strings.TrimSpace(*appID), 10, 64); err != nil || cfg.AppID <= 0 {
		return usageError(stderr, "serve", "--app-id %q: give the GitHub App's numeric ID (SHIPGATE_APP_ID)", *appID)
	}
	cfg.HTTP.MaxConnections = *maxConns
	if cfg.WritePace, err = parseWritePace(*writePace); err != nil {
		return usageError(stderr, "serve", "--write-pace: %v", err)
	}
	cfg.RedeliverInterval, cfg.RedeliverLookback = *redeliverEvery, *redeliverBack
	if *redeliverEvery == 0 {
		cfg.RedeliverInterval = -1
	}
	cfg.SweepInterval, cfg.SweepBudget = *sweepEvery, *sweepBudget
	if *sweepEvery < 0 || *sweepBudget <= 0 {
		return usageError(stderr, "serve", "--sweep-interval %s / --sweep-budget %d: use a positive interval (0 turns the sweep off) and a positive budget", *sweepEvery, *sweepBudget)
	}
	if *redeliverBack < 0 || *redeliverBack > 72*time.Hour {
		return usageError(stderr, "serve", "--redeliver-lookback %s: use 0 to 72h (GitHub redelivers the past 3 days)", *redeliverBack)
	}
	if cfg.PrivateKey, err = readPrivateKey(*keyFile, logger); err != nil || len(cfg.PrivateKey) == 0 {
		return usageError(stderr, "serve", "private key: %v", orMissing(err, "set --private-key-file or SHIPGATE_PRIVATE_KEY_FILE"))
	}
	if cfg.LedgerTokens, err = readLedgerTokens(*ledgerFile, logger); err != nil {
		return usageError(stderr, "serve", "ledger token: %v", err)
	}
	if cfg.WebhookSecrets, err = readWebhookSecrets(*secretFile, logger); err != nil {
		return usageError(stderr, "serve", "webhook secret: %v", err)
	}
	if len(cfg.WebhookSecrets) == 0 {
		return usageError(stderr, "serve", "no webhook secret: set --webhook-secret-file or SHIPGATE_WEBHOOK_SECRET (Shipgate refuses to start without one)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	s, err := startServer(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "shipgate serve: %v\n", err)
		return exitFail
	}
	<-ctx.Done()
	logger.Info("shutting down: finishing accepted jobs", "grace", cfg.ShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := s.shutdown(sctx); err != nil {
		logger.Error("shutdown", "error", err)
		return exitFail
	}
	logger.Info("stopped")
	return exitOK
}

// defaultQueueDir is where serve keeps its queue without --queue-dir: the
// user's state directory ($XDG_STATE_HOME, else ~/.local/state) under
// shipgate/queue; "" when there is no home to put it in (serve then asks
// for --queue-dir rather than keep accepted deliveries in memory).
func defaultQueueDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "shipgate", "queue")
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "shipgate", "queue")
	}
	return ""
}

// flagGiven reports whether the command line set the named flag.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func orMissing(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// readPrivateKey reads the App's private key from file, or else from
// SHIPGATE_PRIVATE_KEY, which is then removed from the environment so that
// nothing started later (or reading os.Environ) sees it. A key file that
// anyone on the machine may read is refused; one readable by its group
// (Kubernetes' fsGroup with defaultMode 0440) gets a warning.
func readPrivateKey(file string, log *slog.Logger) ([]byte, error) {
	if file == "" {
		key := os.Getenv("SHIPGATE_PRIVATE_KEY")
		if err := os.Unsetenv("SHIPGATE_PRIVATE_KEY"); err != nil {
			return nil, fmt.Errorf("removing SHIPGATE_PRIVATE_KEY from the environment: %w", err)
		}
		return []byte(key), nil
	}
	return readSecretFile(file, "private key", log)
}

// readSecretFile reads a file holding a secret (what names it in the
// messages). A file that anyone on the machine may read is refused — its
// secret is no longer one; a file readable by its group (Kubernetes'
// fsGroup with defaultMode 0440) gets a warning. The private key, the
// webhook secrets and the ledger tokens are all read through it, so a
// world-readable webhook secret (which lets anyone on the host forge
// deliveries) is refused exactly as a world-readable key is.
func readSecretFile(file, what string, log *slog.Logger) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	switch mode := st.Mode().Perm(); {
	case mode&0o007 != 0:
		return nil, fmt.Errorf("%s (the %s) is readable by every user of this machine (mode %04o): chmod 600 %s (or 440 with the group that runs shipgate)",
			file, what, mode, file)
	case mode&0o070 != 0:
		log.Warn("the "+what+" file is readable by its group; make sure that group is only shipgate's",
			"file", file, "mode", fmt.Sprintf("%04o", mode))
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return b, nil
}

// readWebhookSecrets returns the webhook secrets: the lines of file (one
// secret per line, surrounding blanks trimmed, empty lines skipped; a file
// readable by every user is refused, as readSecretFile says), or
// else SHIPGATE_WEBHOOK_SECRET (one secret, verbatim apart from surrounding
// blanks; a comma is part of it) followed by SHIPGATE_WEBHOOK_SECRET_PREVIOUS
// during a rotation. Newlines never occur in a GitHub webhook secret, so a
// line is unambiguous; commas may, so they no longer separate secrets (a
// value with a comma gets a warning saying so). Each secret must have at
// least webhook.MinSecretLength characters; the error names where it came
// from. The environment variables are removed once read.
func readWebhookSecrets(file string, log *slog.Logger) ([]string, error) {
	type source struct{ where, value string }
	var sources []source
	if file != "" {
		b, err := readSecretFile(file, "webhook secret", log)
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(string(b), "\n") {
			sources = append(sources, source{fmt.Sprintf("%s line %d", file, i+1), line})
		}
	} else {
		v := os.Getenv("SHIPGATE_WEBHOOK_SECRET")
		if strings.Contains(v, ",") {
			log.Warn("SHIPGATE_WEBHOOK_SECRET contains a comma: it is used as ONE secret, commas included " +
				"(older versions split it there); to rotate, put the old secret in SHIPGATE_WEBHOOK_SECRET_PREVIOUS " +
				"or use --webhook-secret-file with one secret per line")
		}
		for i, line := range strings.Split(v, "\n") {
			sources = append(sources, source{fmt.Sprintf("SHIPGATE_WEBHOOK_SECRET line %d", i+1), line})
		}
	}
	if prev := os.Getenv("SHIPGATE_WEBHOOK_SECRET_PREVIOUS"); prev != "" {
		sources = append(sources, source{"SHIPGATE_WEBHOOK_SECRET_PREVIOUS", prev})
	}
	for _, k := range []string{"SHIPGATE_WEBHOOK_SECRET", "SHIPGATE_WEBHOOK_SECRET_PREVIOUS"} {
		if err := os.Unsetenv(k); err != nil {
			return nil, fmt.Errorf("removing %s from the environment: %w", k, err)
		}
	}
	var secrets []string
	for _, src := range sources {
		v := strings.TrimSpace(src.value)
		if v == "" {
			continue
		}
		if len(v) < webhook.MinSecretLength {
			return nil, fmt.Errorf("%s: the secret has %d characters; use at least %d (openssl rand -hex 32), and set the same in the App's webhook settings",
				src.where, len(v), webhook.MinSecretLength)
		}
		secrets = append(secrets, v)
	}
	return secrets, nil
}

func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use json or text", format)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return n
	}
	return def
}

func envBool(k string, def bool) bool {
	if b, err := strconv.ParseBool(os.Getenv(k)); err == nil {
		return b
	}
	return def
}

func envDuration(k string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(k)); err == nil {
		return d
	}
	return def
}
