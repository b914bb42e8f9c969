package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/testwait"
)

const (
	testSecret  = "it's a secret to everybody"
	testAppID   = 4242
	testAppSlug = "shipgate"
)

// Every wait for something that must happen is bounded by the test
// binary's deadline (testwait), not by a figure of wall time: tests never
// sleep, they only fail if it does not happen before go test's -timeout.

// fixture loads testdata/<name>.json (real payloads from
// @octokit/webhooks-examples) as a generic map so cases can adjust fields.
func fixture(t testing.TB, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode fixture %s: %v", name, err)
	}
	return m
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

// set assigns value at a dotted path ("check_run.app.id"); numeric segments
// index arrays. Missing maps along the path are created.
func set(t testing.TB, m map[string]any, path string, value any) {
	t.Helper()
	parts := strings.Split(path, ".")
	var cur any = m
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[p] = value
				return
			}
			next, ok := c[p]
			if !ok || next == nil {
				next = map[string]any{}
				c[p] = next
			}
			cur = next
		case []any:
			idx, err := strconv.Atoi(p)
			if err != nil || idx >= len(c) {
				t.Fatalf("set %s: bad index %q", path, p)
			}
			if last {
				c[idx] = value
				return
			}
			cur = c[idx]
		default:
			t.Fatalf("set %s: %q is not a container", path, p)
		}
	}
}

// get reads the value at a dotted path.
func get(t testing.TB, m map[string]any, path string) any {
	t.Helper()
	var cur any = m
	for _, p := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			idx, err := strconv.Atoi(p)
			if err != nil || idx >= len(c) {
				t.Fatalf("get %s: bad index %q", path, p)
			}
			cur = c[idx]
		default:
			t.Fatalf("get %s: %q is not a container", path, p)
		}
	}
	return cur
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func nopLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newTestLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// recordingQueue is a Queue that records batches, for handler tests.
type recordingQueue struct {
	mu      sync.Mutex
	batches [][]app.Job
	err     error
}

func (q *recordingQueue) Enqueue(_ context.Context, jobs []app.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.batches = append(q.batches, append([]app.Job(nil), jobs...))
	return nil
}
func (q *recordingQueue) Run(context.Context, app.Processor) error { return nil }
func (q *recordingQueue) Shutdown(context.Context) error           { return nil }
func (q *recordingQueue) Depth() int                               { return 0 }

func (q *recordingQueue) all() [][]app.Job {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([][]app.Job(nil), q.batches...)
}

type testEnv struct {
	srv   *Server
	reg   *prometheus.Registry
	m     *Metrics
	queue Queue
	rec   *recordingQueue
	logs  *syncBuffer
}

// newTestEnv builds a Server with a recording queue unless edit sets one.
func newTestEnv(t testing.TB, edit func(*Options)) *testEnv {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	log, buf := newTestLogger()
	rec := &recordingQueue{}
	opts := Options{
		Secrets: []string{testSecret},
		AppID:   testAppID,
		AppSlug: testAppSlug,
		Queue:   rec,
		Metrics: m,
		Logger:  log,
	}
	if edit != nil {
		edit(&opts)
	}
	srv, err := NewServer(opts)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	return &testEnv{srv: srv, reg: reg, m: m, queue: opts.Queue, rec: rec, logs: buf}
}

// request builds a signed GitHub-style delivery.
func request(event, delivery string, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(headerEvent, event)
	r.Header.Set(headerDelivery, delivery)
	r.Header.Set(headerSignature, Sign([]byte(testSecret), body))
	r.RemoteAddr = "192.0.2.7:4711"
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func decodeResponse(t testing.TB, w *httptest.ResponseRecorder) response {
	t.Helper()
	var resp response
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatalf("response %q is not JSON: %v", w.Body.String(), err)
	}
	return resp
}

// metricValue reads a counter or gauge value (or a histogram's sample
// count) for the series with exactly these labels; 0 when absent.
func metricValue(t testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, mt := range f.GetMetric() {
			if !labelsMatch(mt.GetLabel(), labels) {
				continue
			}
			switch {
			case mt.Counter != nil:
				return mt.GetCounter().GetValue()
			case mt.Gauge != nil:
				return mt.GetGauge().GetValue()
			case mt.Histogram != nil:
				return float64(mt.GetHistogram().GetSampleCount())
			}
		}
	}
	return 0
}

func labelsMatch(pairs []*dto.LabelPair, want map[string]string) bool {
	if len(pairs) != len(want) {
		return false
	}
	for _, p := range pairs {
		if want[p.GetName()] != p.GetValue() {
			return false
		}
	}
	return true
}

// wait receives from ch or fails the test at the binary's deadline.
func wait[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return testwait.Recv(t, ch, what)
}

// processorFunc adapts a function to app.Processor.
type processorFunc func(ctx context.Context, job app.Job) ([]app.Job, error)

func (f processorFunc) Process(ctx context.Context, job app.Job) ([]app.Job, error) {
	return f(ctx, job)
}

func prJob(pr int, head string) app.Job {
	return app.Job{
		Kind: app.KindEvaluatePR, DeliveryID: "d-" + head, Event: "pull_request", Action: "synchronize",
		InstallationID: 1, Owner: "o", Repo: "r", PRNumber: pr, HeadSHA: head, ReceivedAt: time.Now(),
	}
}
