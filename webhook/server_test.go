package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipgate-app/shipgate/app"
)

func TestNewServerRefusesBadConfig(t *testing.T) {
	q := &recordingQueue{}
	base := func() Options {
		return Options{Secrets: []string{testSecret}, AppID: 1, AppSlug: "s", Queue: q}
	}
	cases := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no secrets", func(o *Options) { o.Secrets = nil }, "no webhook secret"},
		{"empty secret", func(o *Options) { o.Secrets = []string{""} }, "secret 1 of 1 is empty"},
		{"empty rotated secret", func(o *Options) { o.Secrets = []string{testSecret, ""} }, "secret 2 of 2 is empty"},
		{"short secret", func(o *Options) { o.Secrets = []string{"hunter2"} }, "secret 1 of 1 has 7 characters; use at least 16"},
		{"short rotated secret", func(o *Options) { o.Secrets = []string{testSecret, "0123456789abcde"} }, "secret 2 of 2 has 15 characters"},
		{"negative body budget", func(o *Options) { o.MaxInFlightBytes = -1 }, "in-flight body budget"},
		{"body budget below body cap", func(o *Options) { o.MaxBodyBytes = 2 << 20; o.MaxInFlightBytes = 1 << 20 }, "below the body limit"},
		{"no app id", func(o *Options) { o.AppID = 0 }, "app id"},
		{"no slug", func(o *Options) { o.AppSlug = "" }, "slug"},
		{"no queue", func(o *Options) { o.Queue = nil }, "queue"},
		{"negative body cap", func(o *Options) { o.MaxBodyBytes = -1 }, "body limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.edit(&o)
			if _, err := NewServer(o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want containing %q", err, tc.want)
			}
		})
	}
	if _, err := NewServer(base()); err != nil {
		t.Fatalf("valid options refused: %v", err)
	}
}

func TestSignature(t *testing.T) {
	body := mustJSON(t, fixture(t, "ping"))
	sha1Sig := func(secret string) string {
		mac := hmac.New(sha1.New, []byte(secret))
		mac.Write(body)
		return "sha1=" + hex.EncodeToString(mac.Sum(nil))
	}
	tampered := append(bytes.Clone(body[:len(body)-1]), ' ', '}')
	cases := []struct {
		name       string
		secrets    []string
		sig256     string // "-" means absent
		sig1       string
		body       []byte
		wantStatus int
		wantReason string
	}{
		{name: "valid", sig256: Sign([]byte(testSecret), body), wantStatus: 200},
		{name: "valid with sha1 also present", sig256: Sign([]byte(testSecret), body), sig1: sha1Sig(testSecret), wantStatus: 200},
		{name: "rotated: second secret signs", secrets: []string{"old-secret-0123456789", testSecret}, sig256: Sign([]byte(testSecret), body), wantStatus: 200},
		{name: "rotated: first secret signs", secrets: []string{testSecret, "new-secret-0123456789"}, sig256: Sign([]byte(testSecret), body), wantStatus: 200},
		{name: "missing", sig256: "-", wantStatus: 401, wantReason: reasonMissingSignature},
		{name: "sha1 only", sig256: "-", sig1: sha1Sig(testSecret), wantStatus: 401, wantReason: reasonSHA1Only},
		{name: "wrong secret", sig256: Sign([]byte("not the secret"), body), wantStatus: 401, wantReason: reasonBadSignature},
		{name: "tampered body", sig256: Sign([]byte(testSecret), body), body: tampered, wantStatus: 401, wantReason: reasonBadSignature},
		{name: "no prefix", sig256: strings.TrimPrefix(Sign([]byte(testSecret), body), "sha256="), wantStatus: 401, wantReason: reasonMalformedSignature},
		{name: "sha1 value in sha256 header", sig256: sha1Sig(testSecret), wantStatus: 401, wantReason: reasonMalformedSignature},
		{name: "not hex", sig256: "sha256=" + strings.Repeat("zz", 32), wantStatus: 401, wantReason: reasonMalformedSignature},
		{name: "truncated", sig256: Sign([]byte(testSecret), body)[:40], wantStatus: 401, wantReason: reasonMalformedSignature},
		{name: "empty-secret signature", sig256: Sign(nil, body), wantStatus: 401, wantReason: reasonBadSignature},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) {
				if tc.secrets != nil {
					o.Secrets = tc.secrets
				}
			})
			b := body
			if tc.body != nil {
				b = tc.body
			}
			r := request("ping", "sig-"+tc.name, b)
			r.Header.Del(headerSignature)
			if tc.sig256 != "-" {
				r.Header.Set(headerSignature, tc.sig256)
			}
			if tc.sig1 != "" {
				r.Header.Set(headerSignatureV1, tc.sig1)
			}
			w := serve(env.srv, r)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.wantStatus, w.Body)
			}
			if tc.wantReason == "" {
				return
			}
			if got := metricValue(t, env.reg, "shipgate_webhook_rejections_total", map[string]string{"reason": tc.wantReason}); got != 1 {
				t.Errorf("rejections{reason=%s} = %v, want 1", tc.wantReason, got)
			}
			logs := env.logs.String()
			for _, want := range []string{`"reason":"` + tc.wantReason + `"`, `"delivery_id":"sig-` + tc.name + `"`, `"event":"ping"`, `"remote_addr":"192.0.2.7:4711"`} {
				if !strings.Contains(logs, want) {
					t.Errorf("rejection log lacks %s: %s", want, logs)
				}
			}
		})
	}
}

func TestRequestValidation(t *testing.T) {
	body := mustJSON(t, fixture(t, "ping"))
	cases := []struct {
		name       string
		edit       func(r *http.Request)
		wantStatus int
		wantError  string
	}{
		{"missing event", func(r *http.Request) { r.Header.Del(headerEvent) }, 400, "missing X-GitHub-Event header"},
		{"missing delivery", func(r *http.Request) { r.Header.Del(headerDelivery) }, 400, "missing X-GitHub-Delivery header"},
		{"missing content type", func(r *http.Request) { r.Header.Del("Content-Type") }, 415, "application/json"},
		{"form content type", func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }, 415, "application/json"},
		{"text content type", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, 415, "application/json"},
		{"json with charset", func(r *http.Request) { r.Header.Set("Content-Type", "application/json; charset=utf-8") }, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			r := request("ping", "v-1", body)
			tc.edit(r)
			w := serve(env.srv, r)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.wantStatus, w.Body)
			}
			if tc.wantError != "" && !strings.Contains(decodeResponse(t, w).Error, tc.wantError) {
				t.Fatalf("error %q lacks %q", w.Body, tc.wantError)
			}
		})
	}
	t.Run("GET is not allowed", func(t *testing.T) {
		env := newTestEnv(t, nil)
		if w := serve(env.srv, httptest.NewRequest(http.MethodGet, "/webhook", nil)); w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("status %d, want 405", w.Code)
		}
	})
}

func TestBodyCap(t *testing.T) {
	if DefaultMaxBodyBytes != 25<<20 {
		t.Fatalf("default cap %d, want 25 MiB", DefaultMaxBodyBytes)
	}
	const limit = 1024
	pad := func(n int) []byte { // a valid ping payload of exactly n bytes
		b := []byte(`{"zen":"x"}`)
		return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
	}
	cases := []struct {
		name       string
		body       []byte
		chunked    bool
		wantStatus int
	}{
		{"at the limit", pad(limit), false, 200},
		{"over, declared length", pad(limit + 1), false, 413},
		{"over, chunked (no length)", pad(4 * limit), true, 413},
		{"at the limit, chunked", pad(limit), true, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.MaxBodyBytes = limit })
			r := request("ping", "cap", tc.body)
			if tc.chunked {
				r.Body = io.NopCloser(bytes.NewReader(tc.body))
				r.ContentLength = -1
			}
			w := serve(env.srv, r)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.wantStatus, w.Body)
			}
			if tc.wantStatus == 413 {
				if got := metricValue(t, env.reg, "shipgate_webhook_rejections_total", map[string]string{"reason": reasonBodyTooLarge}); got != 1 {
					t.Fatalf("body_too_large = %v", got)
				}
			}
		})
	}
}

func TestLogsNeverContainPayload(t *testing.T) {
	env := newTestEnv(t, nil)
	const marker = "PAYLOAD-MARKER-7f3a"
	m := fixture(t, "pull_request.synchronize")
	set(t, m, "pull_request.title", marker)
	set(t, m, "pull_request.body", marker)
	body := mustJSON(t, m)

	bad := request("pull_request", "bad-sig", body)
	bad.Header.Set(headerSignature, Sign([]byte("wrong"), body))
	if w := serve(env.srv, bad); w.Code != 401 {
		t.Fatalf("status %d", w.Code)
	}
	if w := serve(env.srv, request("pull_request", "good", body)); w.Code != 202 {
		t.Fatalf("status %d", w.Code)
	}
	logs := env.logs.String()
	if strings.Contains(logs, marker) {
		t.Fatalf("payload content leaked into logs: %s", logs)
	}
	for _, want := range []string{`"delivery_id":"good"`, `"event":"pull_request"`, `"action":"synchronize"`,
		`"installation_id":1`, `"repo":"Codertocat/Hello-World"`, `"pr":2`} {
		if !strings.Contains(logs, want) {
			t.Errorf("queued-delivery log lacks %s", want)
		}
	}
}

func TestDeduplication(t *testing.T) {
	body := mustJSON(t, fixture(t, "pull_request.synchronize"))
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	seen, err := NewDeliveryCache(DeliveryCacheOptions{TTL: 24 * time.Hour, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, func(o *Options) { o.Deliveries = seen })
	status := func(delivery string) string {
		w := serve(env.srv, request("pull_request", delivery, body))
		if w.Code != http.StatusAccepted {
			t.Fatalf("status %d; body %s", w.Code, w.Body)
		}
		return decodeResponse(t, w).Status
	}
	steps := []struct {
		do       func()
		delivery string
		want     string
	}{
		{nil, "a", "queued"},
		{nil, "a", "duplicate"},
		{nil, "b", "queued"},
		{func() { advance(23 * time.Hour) }, "a", "duplicate"},
		{func() { advance(2 * time.Hour) }, "a", "queued"}, // TTL passed
		{nil, "a", "duplicate"},
		{func() { seen.JobFailed(app.Job{DeliveryID: "a"}, errors.New("boom")) }, "a", "duplicate"}, // RedeliverFailed off
	}
	for i, st := range steps {
		if st.do != nil {
			st.do()
		}
		if got := status(st.delivery); got != st.want {
			t.Fatalf("step %d (%s): %s, want %s", i, st.delivery, got, st.want)
		}
	}
	if got := len(env.rec.all()); got != 3 {
		t.Fatalf("%d batches queued, want 3", got)
	}
	if got := metricValue(t, env.reg, "shipgate_deliveries_total", map[string]string{"event": "pull_request", "outcome": "duplicate"}); got != 4 {
		t.Fatalf("duplicates = %v, want 4", got)
	}
}

func TestRedeliveryOfFailedDelivery(t *testing.T) {
	seen, err := NewDeliveryCache(DeliveryCacheOptions{RedeliverFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, func(o *Options) { o.Deliveries = seen })
	body := mustJSON(t, fixture(t, "pull_request.opened"))
	for i, want := range []string{"queued", "duplicate"} {
		if got := decodeResponse(t, serve(env.srv, request("pull_request", "g-1", body))).Status; got != want {
			t.Fatalf("delivery %d: %s, want %s", i, got, want)
		}
	}
	// The queue drops the job after its retries: the operator's manual
	// redelivery (same GUID) must now be processed.
	seen.JobFailed(env.rec.all()[0][0], errors.New("github 502"))
	if got := decodeResponse(t, serve(env.srv, request("pull_request", "g-1", body))).Status; got != "queued" {
		t.Fatalf("redelivery after failure: %s, want queued", got)
	}
}

func TestDeduplicationIsRaceFree(t *testing.T) {
	env := newTestEnv(t, nil)
	body := mustJSON(t, fixture(t, "pull_request.opened"))
	const n = 32
	var queued atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			w := serve(env.srv, request("pull_request", "same-guid", body))
			if w.Code == http.StatusAccepted && strings.Contains(w.Body.String(), `"queued"`) {
				queued.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if queued.Load() != 1 || len(env.rec.all()) != 1 {
		t.Fatalf("queued %d times (%d batches), want exactly once", queued.Load(), len(env.rec.all()))
	}
}

func TestDeliveryCacheIsBounded(t *testing.T) {
	c, err := NewDeliveryCache(DeliveryCacheOptions{Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if !c.reserve(id) {
			t.Fatalf("reserve(%s) = false", id)
		}
	}
	if c.Len() != 2 {
		t.Fatalf("len %d, want 2", c.Len())
	}
	if !c.reserve("a") { // evicted as least recent
		t.Fatal("oldest id was not evicted")
	}
	if c.reserve("c") {
		t.Fatal("recent id forgotten")
	}
	if _, err := NewDeliveryCache(DeliveryCacheOptions{TTL: -1}); err == nil {
		t.Fatal("negative TTL accepted")
	}
}

func TestQueueFullAnswers503(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewMemoryQueue(QueueOptions{Capacity: 1, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, func(o *Options) { o.Queue = q; o.Metrics = m })
	env.reg = reg
	pr := func(n int) []byte {
		f := fixture(t, "pull_request.synchronize")
		set(t, f, "number", float64(n))
		return mustJSON(t, f)
	}
	if w := serve(env.srv, request("pull_request", "f-1", pr(1))); w.Code != http.StatusAccepted {
		t.Fatalf("first: %d", w.Code)
	}
	// Same PR again: coalesced, needs no capacity.
	if w := serve(env.srv, request("pull_request", "f-2", pr(1))); w.Code != http.StatusAccepted {
		t.Fatalf("same key: %d", w.Code)
	}
	w := serve(env.srv, request("pull_request", "f-3", pr(2)))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "queue full") {
		t.Fatalf("full: %d %s", w.Code, w.Body)
	}
	if got := metricValue(t, reg, "shipgate_queue_full_total", nil); got != 1 {
		t.Fatalf("queue_full_total = %v", got)
	}
	if got := metricValue(t, reg, "shipgate_deliveries_total", map[string]string{"event": "pull_request", "outcome": "queue_full"}); got != 1 {
		t.Fatalf("deliveries{queue_full} = %v", got)
	}
	if got := metricValue(t, reg, "shipgate_queue_depth", nil); got != 1 {
		t.Fatalf("queue_depth = %v", got)
	}
	// The refused delivery was not remembered: once there is room, its
	// redelivery (same GUID) is accepted.
	processed := make(chan app.Job, 4)
	go func() {
		_ = q.Run(context.Background(), processorFunc(func(_ context.Context, j app.Job) ([]app.Job, error) {
			processed <- j
			return nil, nil
		}))
	}()
	wait(t, processed, "the pending job")
	if w := serve(env.srv, request("pull_request", "f-3", pr(2))); w.Code != http.StatusAccepted || decodeResponse(t, w).Status != "queued" {
		t.Fatalf("redelivery of a 503'd delivery: %d %s", w.Code, w.Body)
	}
	if j := wait(t, processed, "the redelivered job"); j.PRNumber != 2 || j.DeliveryID != "f-3" {
		t.Fatalf("processed %+v", j)
	}
	if err := env.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestReadinessAndHealth(t *testing.T) {
	var mu sync.Mutex
	var readyErr error
	setReady := func(err error) { mu.Lock(); readyErr = err; mu.Unlock() }
	q, err := NewMemoryQueue(QueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, func(o *Options) {
		o.Queue = q
		o.Ready = func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				return errors.New("readiness check called without a deadline")
			}
			mu.Lock()
			defer mu.Unlock()
			return readyErr
		}
	})
	probe := func(path string) (int, response) {
		w := serve(env.srv, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, decodeResponse(t, w)
	}
	steps := []struct {
		name       string
		do         func()
		path       string
		wantStatus int
		wantReason string
	}{
		{"ready", nil, "/readyz", 200, ""},
		{"credentials broken", func() { setReady(errors.New("github app credentials rejected: 401")) }, "/readyz", 503, "credentials rejected"},
		{"alive while not ready", nil, "/healthz", 200, ""},
		{"credentials fixed", func() { setReady(nil) }, "/readyz", 200, ""},
		{"shutting down", func() {
			if err := env.srv.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, "/readyz", 503, "shutting down"},
		{"alive while shutting down", nil, "/healthz", 200, ""},
	}
	for _, st := range steps {
		if st.do != nil {
			st.do()
		}
		code, resp := probe(st.path)
		if code != st.wantStatus || !strings.Contains(resp.Reason, st.wantReason) {
			t.Fatalf("%s: %s = %d %+v, want %d reason ~%q", st.name, st.path, code, resp, st.wantStatus, st.wantReason)
		}
	}
	// After Shutdown, work-bearing deliveries get 503; pings still 200.
	if w := serve(env.srv, request("pull_request", "late", mustJSON(t, fixture(t, "pull_request.opened")))); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("delivery during shutdown: %d", w.Code)
	}
	if w := serve(env.srv, request("ping", "late-ping", mustJSON(t, fixture(t, "ping")))); w.Code != http.StatusOK {
		t.Fatalf("ping during shutdown: %d", w.Code)
	}
	// A queue closed under a request that passed the server's own check
	// also yields 503 (ErrQueueClosed).
	env2 := newTestEnv(t, func(o *Options) { o.Queue = q })
	if w := serve(env2.srv, request("pull_request", "late-2", mustJSON(t, fixture(t, "pull_request.opened")))); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("closed queue: %d", w.Code)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	env := newTestEnv(t, nil)
	q, err := NewMemoryQueue(QueueOptions{Metrics: env.m})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Options{Secrets: []string{testSecret}, AppID: testAppID, AppSlug: testAppSlug,
		Queue: q, Metrics: env.m, Logger: nopLogger()})
	if err != nil {
		t.Fatal(err)
	}
	env.srv = srv
	// The app package registers its own collectors on the same registry.
	apiCalls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shipgate_github_api_calls_total", Help: "x"}, []string{"endpoint"})
	if err := env.m.Registerer().Register(apiCalls); err != nil {
		t.Fatal(err)
	}
	apiCalls.WithLabelValues("checks.create").Inc()

	serve(env.srv, request("pull_request", "m-1", mustJSON(t, fixture(t, "pull_request.opened"))))
	r := request("pull_request", "m-2", []byte(`{}`))
	r.Header.Del(headerSignature)
	serve(env.srv, r)

	w := serve(env.srv, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if w.Code != 200 {
		t.Fatalf("/metrics: %d", w.Code)
	}
	text := w.Body.String()
	for _, want := range []string{
		`shipgate_deliveries_total{event="pull_request",outcome="queued"} 1`,
		`shipgate_webhook_rejections_total{reason="missing_signature"} 1`,
		`shipgate_queue_depth 1`,
		`shipgate_github_api_calls_total{endpoint="checks.create"} 1`,
		`# TYPE shipgate_queue_full_total counter`,
		`# TYPE shipgate_job_panics_total counter`,
		`# TYPE shipgate_job_retries_total counter`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if _, err := NewMetrics(env.reg); err == nil {
		t.Error("registering the metrics twice on one registry succeeded")
	}
	if _, err := NewMetrics(nil); err == nil {
		t.Error("nil registry accepted")
	}
}

func TestHandlerPanicIsContained(t *testing.T) {
	env := newTestEnv(t, func(o *Options) {
		o.Ready = func(context.Context) error { panic("boom") }
	})
	w := serve(env.srv, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if w.Code != http.StatusInternalServerError || !strings.Contains(env.logs.String(), "http handler panicked") {
		t.Fatalf("status %d, logs %s", w.Code, env.logs)
	}
}

func TestEnqueueErrorReleasesDelivery(t *testing.T) {
	env := newTestEnv(t, nil)
	env.rec.err = fmt.Errorf("redis: %w", errors.New("connection refused"))
	body := mustJSON(t, fixture(t, "pull_request.opened"))
	if w := serve(env.srv, request("pull_request", "e-1", body)); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", w.Code)
	}
	env.rec.mu.Lock()
	env.rec.err = nil
	env.rec.mu.Unlock()
	if w := serve(env.srv, request("pull_request", "e-1", body)); decodeResponse(t, w).Status != "queued" {
		t.Fatalf("redelivery after enqueue error: %s", w.Body)
	}
}

func BenchmarkHandler(b *testing.B) {
	q, err := NewMemoryQueue(QueueOptions{})
	if err != nil {
		b.Fatal(err)
	}
	env := newTestEnv(b, func(o *Options) { o.Queue = q; o.Logger = nopLogger() })
	body := mustJSON(b, fixture(b, "pull_request.synchronize"))
	sig := Sign([]byte(testSecret), body)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(headerEvent, "pull_request")
		r.Header.Set(headerDelivery, fmt.Sprintf("bench-%d", i))
		r.Header.Set(headerSignature, sig)
		w := httptest.NewRecorder()
		env.srv.ServeHTTP(w, r)
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// TestSetAppSlug: the slug learned after startup replaces the fallback, so
// the App's own bot is recognised from then on.
func TestSetAppSlug(t *testing.T) {
	e := newTestEnv(t, func(o *Options) { o.AppSlug = "shipgate" }) // the fallback
	m := fixture(t, "pull_request.synchronize")
	set(t, m, "sender.login", "acme-shipgate[bot]")
	body := mustJSON(t, m)
	if w := serve(e.srv, request("pull_request", "d-1", body)); w.Code != http.StatusAccepted {
		t.Fatalf("before the slug is known: %d %s, want 202 (another bot's delivery)", w.Code, w.Body)
	}
	e.srv.SetAppSlug("acme-shipgate")
	w := serve(e.srv, request("pull_request", "d-2", body))
	if resp := decodeResponse(t, w); w.Code != http.StatusOK || !strings.Contains(resp.Reason, "is this app") {
		t.Fatalf("after SetAppSlug: %d %+v, want 200 ignored as this app's own", w.Code, resp)
	}
	e.srv.SetAppSlug("") // ignored
	w = serve(e.srv, request("pull_request", "d-3", body))
	if resp := decodeResponse(t, w); !strings.Contains(resp.Reason, "is this app") {
		t.Fatalf("an empty slug replaced the known one: %+v", resp)
	}
}
