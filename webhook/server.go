package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/shipgate-app/shipgate/app"
)

// Defaults for Options.
const (
	// DefaultMaxBodyBytes is GitHub's own webhook payload cap (25 MiB).
	DefaultMaxBodyBytes = 25 << 20
	// DefaultMaxInFlightBytes bounds the request-body buffers of all
	// deliveries being read at once (two full-size payloads and change).
	DefaultMaxInFlightBytes = 32 << 20
	// firstBodyChunk is the first buffer a body is read into; buffers grow
	// by doubling as bytes arrive, never ahead of them.
	firstBodyChunk = 4 << 10
	// DefaultRepoPolicyPath is the per-repository policy file.
	DefaultRepoPolicyPath = ".github/shipgate.yml"
	// DefaultOrgPolicyRepo is the repository holding an organisation's default policy.
	DefaultOrgPolicyRepo = ".github"
	// DefaultOrgPolicyPath is the org default policy's path inside that repository.
	DefaultOrgPolicyPath = "shipgate.yml"
	// readyTimeout bounds one call of Options.Ready.
	readyTimeout = 5 * time.Second
	// MinSecretLength is the shortest webhook secret accepted. GitHub does
	// not enforce one; a short secret can be guessed offline from a single
	// captured delivery (its HMAC). 16 characters is the floor, 32 random
	// hex digits (`openssl rand -hex 32` gives 64) is what to use.
	MinSecretLength = 16
	// maxLoggedHeader caps unauthenticated header values in logs.
	maxLoggedHeader = 128
)

// Options configures a Server. Secrets, AppID, AppSlug and Queue are
// required; the rest have defaults.
type Options struct {
	// Secrets are the webhook secrets, any of which may sign a delivery:
	// during rotation configure old and new, then drop the old. Empty
	// strings are refused: an empty HMAC key would accept forged requests.
	Secrets []string
	// AppID identifies this App in check_run / check_suite payloads; re-run
	// requests for other apps' checks are ignored.
	AppID int64
	// AppSlug is this App's slug; deliveries whose sender is "<slug>[bot]"
	// are ignored so the App never reacts to itself.
	AppSlug string
	// Queue receives routed jobs (a *MemoryQueue, or a shared one later).
	Queue Queue
	// Deliveries de-duplicates by X-GitHub-Delivery; nil builds a
	// DeliveryCache with defaults (24 h, 100,000 IDs, no RedeliverFailed).
	// Unused when Queue implements DeliveryQueue (it de-duplicates itself).
	Deliveries Deduplicator
	// Metrics is served on /metrics; pass the same value to the queue. Nil
	// uses a private registry.
	Metrics *Metrics
	// Ready is the readiness check behind /readyz (for example "the App's
	// credentials work"). It is called per probe with a 5 s timeout, so it
	// should be cheap or cache its answer. Nil means always ready.
	Ready func(ctx context.Context) error
	// MaxBodyBytes caps request bodies (default 25 MiB); larger get 413.
	MaxBodyBytes int64
	// MaxInFlightBytes is the budget of body-buffer bytes held by all
	// requests being read and routed at once (default 32 MiB, at least
	// MaxBodyBytes). Buffers grow only as bytes arrive, whatever
	// Content-Length claims; a request whose buffer would pass the budget
	// gets 503 (GitHub records a failure that can be redelivered) and its
	// connection is closed — unless bodies that stopped moving can be cut
	// to make room (BodyEvictIdle).
	MaxInFlightBytes int64
	// BodyReserveBytes is the part of that budget only bodies of 256 KiB
	// or less may use (default 1 MiB, at most what the budget has beyond
	// one full-size body): room kept for a typical signed delivery however
	// large bodies are held.
	BodyReserveBytes int64
	// MaxClientInFlightBytes is the share of that budget one client (remote
	// host) may hold at once (default: the larger of half the budget and
	// one full-size body), so that one client never holds all of it.
	MaxClientInFlightBytes int64
	// BodyStallTimeout cuts a connection whose body has not received a
	// byte for this long (default 5 s): every read of a body sets the
	// connection's read deadline this far ahead, never past BodyTimeout.
	BodyStallTimeout time.Duration
	// BodyTimeout bounds reading one body (default DefaultReadTimeout; the
	// serve command passes its HTTPOptions.ReadTimeout). The stall deadline
	// replaces the connection's read deadline, so this is the one that
	// still holds when a client keeps bytes coming.
	BodyTimeout time.Duration
	// BodyEvictIdle and BodyEvictAge: when a request finds the budget
	// short, the bodies that have not moved for BodyEvictIdle (default 1 s)
	// or have been read for BodyEvictAge (default 5 s) are cut and their
	// room given to it, measured with Now.
	BodyEvictIdle time.Duration
	BodyEvictAge  time.Duration
	// RepoPolicyPath, OrgPolicyRepo and OrgPolicyPath name the policy files
	// whose change on a default branch triggers re-evaluation (defaults
	// ".github/shipgate.yml", ".github", "shipgate.yml").
	RepoPolicyPath string
	OrgPolicyRepo  string
	OrgPolicyPath  string
	// OnRefused, when set, is told about every authenticated delivery whose
	// jobs could not be queued (answered 503: queue full, shutting down,
	// enqueue error), so it can be redelivered later (Redeliverer.Refused).
	OnRefused func(deliveryID string, jobs []app.Job)
	// OnQueued, when set, is told about every delivery whose jobs were
	// queued (Redeliverer.Queued).
	OnQueued func(deliveryID string, jobs []app.Job)
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// RejectLogInterval: a delivery refused before its signature is checked
	// is logged in full only if it is the first of its reason in this
	// interval; the rest are summed up in one line at its end (default
	// 10 s). Anyone can send those requests; the log must not be theirs.
	RejectLogInterval time.Duration
	// Now is the clock stamping Job.ReceivedAt and judging which bodies
	// stopped moving (default time.Now; connection deadlines are wall time).
	Now func() time.Time
}

// Server is Shipgate's HTTP handler: POST /webhook, GET /healthz, GET /readyz
// and GET /metrics. It is safe for concurrent use.
type Server struct {
	handler    http.Handler
	hooks      http.Handler // POST /webhook alone
	ops        http.Handler // /healthz, /readyz, /metrics
	secrets    [][]byte
	maxBody    int64
	budget     *bodyBudget
	stall      time.Duration
	bodyTime   time.Duration
	router     *router
	queue      Queue
	deliveries Deduplicator
	m          *Metrics
	ready      func(context.Context) error
	onRefused  func(string, []app.Job)
	onQueued   func(string, []app.Job)
	log        *slog.Logger
	rejects    *rejectLog
	now        func() time.Time
	closing    atomic.Bool
}

// SetAppSlug replaces the App's slug, whose bot's own deliveries are
// ignored. The serve command starts with a configured or fallback slug when
// GitHub cannot be asked at startup, and sets the real one once it can.
func (s *Server) SetAppSlug(slug string) {
	if slug == "" {
		return
	}
	login := slug + "[bot]"
	s.router.botLogin.Store(&login)
}

// NewServer validates opts and builds a Server. It refuses to start without
// at least one non-empty secret, without the App's id and slug, or without a
// queue, because each would silently accept forged deliveries or drop work.
func NewServer(opts Options) (*Server, error) {
	if len(opts.Secrets) == 0 {
		return nil, errors.New("webhook: no webhook secret configured")
	}
	secrets := make([][]byte, len(opts.Secrets))
	for i, s := range opts.Secrets {
		if s == "" {
			return nil, fmt.Errorf("webhook: webhook secret %d of %d is empty", i+1, len(opts.Secrets))
		}
		if len(s) < MinSecretLength {
			return nil, fmt.Errorf("webhook: webhook secret %d of %d has %d characters; use at least %d (openssl rand -hex 32)",
				i+1, len(opts.Secrets), len(s), MinSecretLength)
		}
		secrets[i] = []byte(s)
	}
	if opts.AppID <= 0 {
		return nil, fmt.Errorf("webhook: app id must be positive, got %d", opts.AppID)
	}
	if opts.AppSlug == "" {
		return nil, errors.New("webhook: app slug is empty")
	}
	if opts.Queue == nil {
		return nil, errors.New("webhook: no job queue")
	}
	if opts.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("webhook: negative body limit %d", opts.MaxBodyBytes)
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxInFlightBytes < 0 {
		return nil, fmt.Errorf("webhook: negative in-flight body budget %d", opts.MaxInFlightBytes)
	}
	if opts.MaxInFlightBytes == 0 {
		opts.MaxInFlightBytes = max(DefaultMaxInFlightBytes, opts.MaxBodyBytes+firstBodyChunk)
	}
	if opts.MaxInFlightBytes < opts.MaxBodyBytes {
		return nil, fmt.Errorf("webhook: in-flight body budget %d is below the body limit %d: a full-size delivery could never be read",
			opts.MaxInFlightBytes, opts.MaxBodyBytes)
	}
	if opts.BodyReserveBytes < 0 {
		return nil, fmt.Errorf("webhook: negative body reserve %d", opts.BodyReserveBytes)
	}
	if opts.BodyReserveBytes == 0 {
		opts.BodyReserveBytes = max(min(DefaultBodyReserveBytes, opts.MaxInFlightBytes-opts.MaxBodyBytes-firstBodyChunk), 0)
	}
	if opts.MaxInFlightBytes-opts.BodyReserveBytes <= opts.MaxBodyBytes {
		return nil, fmt.Errorf("webhook: body reserve %d leaves %d bytes of the in-flight budget for large bodies, not more than the body limit %d: a full-size delivery could never be read",
			opts.BodyReserveBytes, opts.MaxInFlightBytes-opts.BodyReserveBytes, opts.MaxBodyBytes)
	}
	if opts.MaxClientInFlightBytes == 0 {
		opts.MaxClientInFlightBytes = max(opts.MaxInFlightBytes/2, min(opts.MaxBodyBytes+firstBodyChunk, opts.MaxInFlightBytes))
	}
	if opts.MaxClientInFlightBytes < opts.MaxBodyBytes {
		return nil, fmt.Errorf("webhook: per-client body budget %d is below the body limit %d: a full-size delivery could never be read",
			opts.MaxClientInFlightBytes, opts.MaxBodyBytes)
	}
	if opts.BodyStallTimeout < 0 || opts.BodyTimeout < 0 || opts.BodyEvictIdle < 0 || opts.BodyEvictAge < 0 {
		return nil, errors.New("webhook: negative body timeout")
	}
	opts.BodyStallTimeout = cmp.Or(opts.BodyStallTimeout, DefaultBodyStallTimeout)
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, DefaultReadTimeout)
	opts.BodyEvictIdle = cmp.Or(opts.BodyEvictIdle, DefaultBodyEvictIdle)
	opts.BodyEvictAge = cmp.Or(opts.BodyEvictAge, DefaultBodyEvictAge)
	if opts.RepoPolicyPath == "" {
		opts.RepoPolicyPath = DefaultRepoPolicyPath
	}
	if opts.OrgPolicyRepo == "" {
		opts.OrgPolicyRepo = DefaultOrgPolicyRepo
	}
	if opts.OrgPolicyPath == "" {
		opts.OrgPolicyPath = DefaultOrgPolicyPath
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Deliveries == nil {
		d, err := NewDeliveryCache(DeliveryCacheOptions{})
		if err != nil {
			return nil, err
		}
		opts.Deliveries = d
	}
	m, err := orPrivateMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	s := &Server{
		secrets: secrets,
		maxBody: opts.MaxBodyBytes,
		budget: newBodyBudget(opts.MaxInFlightBytes, opts.BodyReserveBytes, opts.MaxClientInFlightBytes, opts.BodyEvictIdle, opts.BodyEvictAge,
			opts.Now),
		stall:    opts.BodyStallTimeout,
		bodyTime: opts.BodyTimeout,
		router: &router{
			appID:          opts.AppID,
			repoPolicyPath: opts.RepoPolicyPath,
			orgPolicyRepo:  opts.OrgPolicyRepo,
			orgPolicyPath:  opts.OrgPolicyPath,
			logger:         opts.Logger,
		},
		queue:      opts.Queue,
		deliveries: opts.Deliveries,
		m:          m,
		ready:      opts.Ready,
		onRefused:  opts.OnRefused,
		onQueued:   opts.OnQueued,
		log:        opts.Logger,
		rejects:    newRejectLog(opts.Logger, cmp.Or(opts.RejectLogInterval, DefaultRejectLogInterval)),
		now:        opts.Now,
	}
	s.budget.onChange = func(n int64) { m.bodyBytes.Set(float64(n)) }
	s.SetAppSlug(opts.AppSlug)
	hooks := func(r chi.Router) { r.With(s.timeAck).Post("/webhook", s.handleWebhook) }
	ops := func(r chi.Router) {
		r.Get("/healthz", s.handleHealthz)
		r.Get("/readyz", s.handleReadyz)
		r.Method(http.MethodGet, "/metrics", m.Handler())
	}
	all, hr, or := chi.NewRouter(), chi.NewRouter(), chi.NewRouter()
	for _, r := range []chi.Router{all, hr, or} {
		r.Use(s.recoverer)
	}
	hooks(all)
	ops(all)
	hooks(hr)
	ops(or)
	s.handler, s.hooks, s.ops = all, hr, or
	return s, nil
}

// ServeHTTP makes Server an http.Handler of every endpoint (one listener).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// WebhookHandler serves POST /webhook alone: the handler of the public
// listener when health and metrics have their own (OpsHandler), so that
// whatever fills the public one (a slowloris at its connection cap) never
// reaches the probes.
func (s *Server) WebhookHandler() http.Handler { return s.hooks }

// OpsHandler serves GET /healthz, /readyz and /metrics alone, for a
// listener of their own inside the cluster.
func (s *Server) OpsHandler() http.Handler { return s.ops }

// Shutdown flips /readyz to 503, answers new work-bearing deliveries 503
// (GitHub records the failure; an operator can redeliver to the next
// replica), and drains the queue until ctx expires. Call it before
// http.Server.Shutdown so the load balancer stops routing here first.
// With a DurableQueue, deliveries keep being accepted (their jobs are
// stored for the other replicas) and the queue only finishes this
// replica's running jobs.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	s.rejects.flush()
	s.log.Info("webhook server shutting down: refusing new deliveries, draining queue", "pending", s.queue.Depth())
	if err := s.queue.Shutdown(ctx); err != nil {
		return fmt.Errorf("webhook: shutdown: %w", err)
	}
	return nil
}

type response struct {
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Jobs   int    `json:"jobs,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, body response) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body) // the client is gone if this fails; nothing to do
}

// reject answers a delivery refused before routing and logs why — event,
// delivery ID, reason and remote address; never the payload — at most once
// per reason and RejectLogInterval, the rest summed up (rejectLog).
func (s *Server) reject(w http.ResponseWriter, r *http.Request, code int, reason, msg string) {
	s.m.rejections.WithLabelValues(reason).Inc()
	s.rejects.reject(reason,
		"event", truncate(r.Header.Get(headerEvent)),
		"delivery_id", truncate(r.Header.Get(headerDelivery)),
		"remote_addr", r.RemoteAddr,
		"status", code)
	writeJSON(w, code, response{Error: msg})
}

func truncate(s string) string {
	if len(s) > maxLoggedHeader {
		return s[:maxLoggedHeader] + "…"
	}
	return s
}

func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	received := s.now()
	event := r.Header.Get(headerEvent)
	delivery := r.Header.Get(headerDelivery)
	switch {
	case event == "":
		s.reject(w, r, http.StatusBadRequest, reasonMissingEvent, "missing X-GitHub-Event header")
		return
	case delivery == "":
		s.reject(w, r, http.StatusBadRequest, reasonMissingDelivery, "missing X-GitHub-Delivery header")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		s.reject(w, r, http.StatusUnsupportedMediaType, reasonContentType,
			"Content-Type must be application/json (set the webhook content type to JSON)")
		return
	}
	if r.ContentLength > s.maxBody {
		s.reject(w, r, http.StatusRequestEntityTooLarge, reasonBodyTooLarge,
			fmt.Sprintf("body exceeds %d bytes", s.maxBody))
		return
	}
	hold := s.budget.open(clientOf(r.RemoteAddr), cutBody(w))
	body, err := s.readBody(w, r, hold)
	defer func() {
		if body != nil {
			putBodyBuffer(body) // nothing keeps the body: jobs hold copies of what they need
		}
		s.budget.close(hold)
	}()
	if err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			s.reject(w, r, http.StatusRequestEntityTooLarge, reasonBodyTooLarge,
				fmt.Sprintf("body exceeds %d bytes", s.maxBody))
			return
		}
		if errors.Is(err, errBodyBudget) {
			// Stop reading: the rest of the body would only be drained.
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "10")
			s.reject(w, r, http.StatusServiceUnavailable, reasonBodyBudget,
				"too many request bodies being read at once; redeliver later")
			return
		}
		if errors.Is(err, errBodyEvicted) {
			w.Header().Set("Connection", "close")
			s.reject(w, r, http.StatusServiceUnavailable, reasonBodyEvicted,
				"the body stopped arriving while other deliveries needed its room")
			return
		}
		s.reject(w, r, http.StatusBadRequest, reasonReadError, "could not read request body")
		return
	}
	if reason := verifySignature(s.secrets, r.Header.Get(headerSignature), r.Header.Get(headerSignatureV1), body); reason != "" {
		msg := map[string]string{
			reasonMissingSignature:   "missing X-Hub-Signature-256 header",
			reasonSHA1Only:           "X-Hub-Signature (SHA-1) is not accepted; X-Hub-Signature-256 is required",
			reasonMalformedSignature: "malformed X-Hub-Signature-256 header",
			reasonBadSignature:       "X-Hub-Signature-256 does not match",
		}[reason]
		s.reject(w, r, http.StatusUnauthorized, reason, msg)
		return
	}

	// Authenticated from here on.
	meta := app.Job{DeliveryID: delivery, Event: event, ReceivedAt: received}
	rt, err := s.router.route(event, body, meta)
	// Attributes are formatted only for lines that are logged: slog's With
	// formats them up front, on every delivery.
	log := deliveryLog{l: s.log, attrs: []any{"delivery_id", delivery, "event", event, "action", rt.action,
		"installation_id", rt.installationID, "repo", rt.repo, "pr", rt.pr}}
	if err != nil {
		s.m.rejections.WithLabelValues(reasonBadPayload).Inc()
		log.log(slog.LevelWarn, "webhook delivery rejected", "reason", reasonBadPayload, "error", err, "remote_addr", r.RemoteAddr)
		writeJSON(w, http.StatusBadRequest, response{Error: "unusable payload: " + err.Error()})
		return
	}
	if len(rt.jobs) == 0 {
		s.m.deliveries.WithLabelValues(event, rt.outcome).Inc()
		switch rt.outcome {
		case "pong":
			log.log(slog.LevelInfo, "webhook ping received")
			writeJSON(w, http.StatusOK, response{Status: "pong"})
		default:
			log.log(slog.LevelDebug, "webhook delivery ignored", "reason", rt.reason)
			writeJSON(w, http.StatusOK, response{Status: "ignored", Reason: rt.reason})
		}
		return
	}
	if s.closing.Load() && !isDurable(s.queue) {
		s.m.deliveries.WithLabelValues(event, "shutting_down").Inc()
		log.log(slog.LevelWarn, "webhook delivery refused: shutting down", "jobs", len(rt.jobs))
		s.refused(delivery, rt.jobs)
		writeJSON(w, http.StatusServiceUnavailable, response{Error: "shutting down; redeliver later"})
		return
	}
	if err := s.enqueue(r.Context(), delivery, rt.jobs); err != nil {
		if !errors.Is(err, ErrDuplicateDelivery) {
			s.refused(delivery, rt.jobs)
		}
		switch {
		case errors.Is(err, ErrDuplicateDelivery):
			s.m.deliveries.WithLabelValues(event, "duplicate").Inc()
			log.log(slog.LevelInfo, "webhook delivery is a duplicate", "jobs", len(rt.jobs))
			writeJSON(w, http.StatusAccepted, response{Status: "duplicate"})
		case errors.Is(err, ErrQueueFull):
			s.m.deliveries.WithLabelValues(event, "queue_full").Inc()
			s.m.queueFull.Inc()
			log.log(slog.LevelError, "webhook delivery refused: job queue full", "jobs", len(rt.jobs), "depth", s.queue.Depth())
			writeJSON(w, http.StatusServiceUnavailable, response{Error: "job queue full; redeliver later"})
		case errors.Is(err, ErrQueueClosed):
			s.m.deliveries.WithLabelValues(event, "shutting_down").Inc()
			log.log(slog.LevelWarn, "webhook delivery refused: queue shut down", "jobs", len(rt.jobs))
			writeJSON(w, http.StatusServiceUnavailable, response{Error: "shutting down; redeliver later"})
		default:
			s.m.deliveries.WithLabelValues(event, "enqueue_error").Inc()
			log.log(slog.LevelError, "webhook delivery refused: enqueue failed", "error", err, "jobs", len(rt.jobs))
			writeJSON(w, http.StatusServiceUnavailable, response{Error: "could not queue the delivery; redeliver later"})
		}
		return
	}
	s.m.deliveries.WithLabelValues(event, "queued").Inc()
	if s.onQueued != nil {
		s.onQueued(delivery, rt.jobs)
	}
	log.log(slog.LevelInfo, "webhook delivery queued", "jobs", len(rt.jobs), "keys", jobKeys(rt.jobs))
	writeJSON(w, http.StatusAccepted, response{Status: "queued", Jobs: len(rt.jobs)})
}

// deliveryLog logs lines about one delivery with its attributes.
type deliveryLog struct {
	l     *slog.Logger
	attrs []any
}

func (d deliveryLog) log(level slog.Level, msg string, args ...any) {
	if !d.l.Enabled(context.Background(), level) {
		return
	}
	d.l.Log(context.Background(), level, msg, append(d.attrs[:len(d.attrs):len(d.attrs)], args...)...)
}

// refused tells OnRefused about a delivery answered 503.
func (s *Server) refused(delivery string, jobs []app.Job) {
	if s.onRefused != nil {
		s.onRefused(delivery, jobs)
	}
}

// enqueue de-duplicates a delivery and queues its jobs: in one atomic step
// when the queue can (DeliveryQueue), otherwise by reserving the delivery
// ID, enqueueing, and releasing the ID if the jobs were not queued so that a
// redelivery is accepted. ErrDuplicateDelivery reports a duplicate.
func (s *Server) enqueue(ctx context.Context, delivery string, jobs []app.Job) error {
	if dq, ok := s.queue.(DeliveryQueue); ok {
		return dq.EnqueueDelivery(ctx, delivery, jobs)
	}
	fresh, err := s.deliveries.Reserve(ctx, delivery)
	if err != nil {
		return fmt.Errorf("de-duplicating delivery: %w", err)
	}
	if !fresh {
		return ErrDuplicateDelivery
	}
	if err := s.queue.Enqueue(ctx, jobs); err != nil {
		s.deliveries.Release(ctx, delivery) // not queued: a redelivery must be accepted
		return err
	}
	return nil
}

// isDurable reports whether q's jobs outlive this process (DurableQueue).
func isDurable(q Queue) bool {
	d, ok := q.(DurableQueue)
	return ok && d.Durable()
}

// Body buffers of up to maxPooledBody bytes are reused (sync.Pool per
// power-of-two size class from firstBodyChunk): most deliveries are 5–50
// KB, and allocating their buffers afresh made the garbage collector a
// visible share of a delivery's cost.
const maxPooledBody = 256 << 10

var bodyPools = func() []*sync.Pool {
	var ps []*sync.Pool
	for size := firstBodyChunk; size <= maxPooledBody; size *= 2 {
		ps = append(ps, &sync.Pool{New: func() any { b := make([]byte, size); return &b }})
	}
	return ps
}()

// bodyClass returns the pool index whose buffers hold n bytes, or -1.
func bodyClass(n int64) int {
	for i, size := 0, int64(firstBodyChunk); size <= maxPooledBody; i, size = i+1, size*2 {
		if n <= size {
			return i
		}
	}
	return -1
}

// newBodyBuffer returns a buffer of capacity at least n (exactly a class
// size when pooled).
func newBodyBuffer(n int64) []byte {
	if c := bodyClass(n); c >= 0 {
		return (*bodyPools[c].Get().(*[]byte))[:0]
	}
	return make([]byte, 0, n)
}

// putBodyBuffer gives a buffer from newBodyBuffer back for reuse.
func putBodyBuffer(b []byte) {
	if c := bodyClass(int64(cap(b))); c >= 0 && int64(cap(b)) == int64(firstBodyChunk)<<c {
		b = b[:cap(b)]
		bodyPools[c].Put(&b)
	}
}

// readBody reads the request body before anything in it is trusted. The
// buffer starts small and doubles only when full, so memory follows the
// bytes actually received, never the Content-Length a client claims (a
// client that declares 25 MiB and sends nothing costs one 4 KiB buffer).
// With a declared length the buffer never outgrows it by more than
// rounding up to a power of two (up to 256 KiB; exactly, above). Every
// byte of capacity is reserved from the server's in-flight budget first,
// in hold, which the caller gives back (bodyBudget.close) with the buffer
// (putBodyBuffer) once it no longer needs the body. Before every read the
// connection's read deadline is set BodyStallTimeout ahead (never past
// BodyTimeout from the start): a body that stops moving is cut. More than
// maxBody bytes is an *http.MaxBytesError, a spent budget errBodyBudget, a
// body cut to make room errBodyEvicted.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, hold *bodyHold) (body []byte, err error) {
	limit := s.maxBody + 1 // one spare byte sees EOF (or the overrun) without growing again
	if n := r.ContentLength; n >= 0 && n < s.maxBody {
		limit = n + 1
	}
	rc := http.NewResponseController(w)
	hard := time.Now().Add(s.bodyTime)
	arm := func() {
		// Not every ResponseWriter has a connection (httptest's recorder);
		// without one there is nothing to cut.
		d := time.Now().Add(s.stall)
		if d.After(hard) {
			d = hard
		}
		_ = rc.SetReadDeadline(d)
	}
	rd := http.MaxBytesReader(w, r.Body, s.maxBody)
	var buf []byte
	fail := func(err error) ([]byte, error) {
		if buf != nil {
			putBodyBuffer(buf)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && hold.wasEvicted(s.budget) {
			err = errBodyEvicted
		}
		return nil, err
	}
	if err := s.budget.moved(hold, arm); err != nil {
		return fail(err)
	}
	for {
		if len(buf) == cap(buf) {
			want := min(max(2*int64(cap(buf)), firstBodyChunk), limit)
			if want <= int64(cap(buf)) {
				want = int64(cap(buf)) + firstBodyChunk // a body longer than declared: MaxBytesReader still caps it
			}
			if c := bodyClass(want); c >= 0 {
				want = int64(firstBodyChunk) << c
			}
			if err := s.budget.take(r.Context(), hold, want-int64(cap(buf)), want); err != nil {
				return fail(err)
			}
			nb := newBodyBuffer(want)[:len(buf)]
			copy(nb, buf)
			if buf != nil {
				putBodyBuffer(buf)
			}
			buf = nb
		}
		n, rerr := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr == io.EOF {
			return buf, nil
		}
		if rerr != nil {
			return fail(rerr)
		}
		if n > 0 {
			if err := s.budget.moved(hold, arm); err != nil {
				return fail(err)
			}
		}
	}
}

// cutBody returns the function that interrupts w's body read from another
// goroutine (its connection's read deadline set to the past), or nil when
// w has no connection to cut.
func cutBody(w http.ResponseWriter) func() {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		return nil
	}
	return func() { _ = rc.SetReadDeadline(time.Unix(1, 0)) }
}

func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, response{Status: "ok"})
}

func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		writeJSON(w, http.StatusServiceUnavailable, response{Status: "not ready", Reason: "shutting down"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if rc, ok := s.queue.(ReadyChecker); ok {
		if err := rc.Ready(ctx); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, response{Status: "not ready", Reason: err.Error()})
			return
		}
	}
	if s.ready != nil {
		if err := s.ready(ctx); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, response{Status: "not ready", Reason: err.Error()})
			return
		}
	}
	writeJSON(w, http.StatusOK, response{Status: "ready"})
}

// timeAck records shipgate_webhook_ack_seconds: from the handler's start
// (headers read) to the answer written, by status code.
func (s *Server) timeAck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(sw, r)
		s.m.ack.WithLabelValues(strconv.Itoa(sw.code)).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recoverer turns a handler panic into a logged 500, so a bug never crosses
// into net/http (which would log without our context) or kills the process.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("http handler panicked", "path", r.URL.Path, "panic", fmt.Sprint(v),
					"stack", string(debug.Stack()), "delivery_id", truncate(r.Header.Get(headerDelivery)))
				writeJSON(w, http.StatusInternalServerError, response{Error: "internal error"})
			}
		}()
		next.ServeHTTP(w, r)
	})
}
