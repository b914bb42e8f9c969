package redisqueue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/webhook"
)

// BenchmarkAck200Redis is webhook.BenchmarkAck200 with the shared Redis
// queue behind the handler (a real redis-server on loopback): b.N signed
// pull_request.synchronize deliveries (each a distinct PR, ~25 KB) POSTed
// by 200 concurrent connections to a real server with HTTPServer's
// limits. The ack path then includes the queue's Redis round trip (one
// EVALSHA that de-duplicates the delivery and stores its job). It reports
// client-side p50/p99 and the server-side p50/p99 of
// shipgate_webhook_ack_seconds{code="202"} (bucket-interpolated).
//
//	go test -run '^$' -bench BenchmarkAck200Redis -benchtime 4000x ./internal/redisqueue
func BenchmarkAck200Redis(b *testing.B) {
	const conc = 200
	rdb := newBenchRedis(b)
	reg := prometheus.NewRegistry()
	m, err := webhook.NewMetrics(reg)
	if err != nil {
		b.Fatal(err)
	}
	q, err := New(Options{Client: rdb, Prefix: "ack:{q}:", Capacity: 1 << 20, Workers: 4, Metrics: m,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := webhook.NewServer(webhook.Options{Secrets: []string{benchSecret}, AppID: 4242, AppSlug: "shipgate",
		Queue: q, Metrics: m, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = q.Run(ctx, benchProcessor{})
	}()
	hs, limit := webhook.HTTPServer(srv, webhook.HTTPOptions{ErrorLog: slog.New(slog.DiscardHandler)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = hs.Serve(limit(ln)) }()
	defer hs.Close()
	addr := ln.Addr().String()

	raw, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "pull_request.synchronize.json"))
	if err != nil {
		b.Fatal(err)
	}
	var fix map[string]any
	if err := json.Unmarshal(raw, &fix); err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, b.N)
	sigs := make([]string, b.N)
	for i := range bodies {
		fix["number"] = float64(i + 1)
		if bodies[i], err = json.Marshal(fix); err != nil {
			b.Fatal(err)
		}
		sigs[i] = webhook.Sign([]byte(benchSecret), bodies[i])
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("ack-%d", i))
				req.Header.Set("X-Hub-Signature-256", sigs[i])
				start := time.Now()
				resp, err := client.Do(req)
				lat[i] = time.Since(start)
				if err != nil {
					b.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "client-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "client-p99-ms")
	h := ackHistogram(b, reg)
	b.ReportMetric(histogramQuantile(h, 0.50)*1000, "server-p50-ms")
	b.ReportMetric(histogramQuantile(h, 0.99)*1000, "server-p99-ms")
}

const benchSecret = "it's a secret to everybody"

type benchProcessor struct{}

func (benchProcessor) Process(context.Context, app.Job) ([]app.Job, error) { return nil, nil }

// newBenchRedis starts a redis-server for a benchmark and returns a client.
func newBenchRedis(b *testing.B) *redis.Client {
	b.Helper()
	srv := redistest.Start(b)
	opts, err := redis.ParseURL(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	b.Cleanup(func() { rdb.Close() })
	return rdb
}

// ackHistogram is shipgate_webhook_ack_seconds{code="202"} from reg.
func ackHistogram(b *testing.B, reg *prometheus.Registry) *dto.Histogram {
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "shipgate_webhook_ack_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "code" && l.GetValue() == "202" {
					return m.GetHistogram()
				}
			}
		}
	}
	b.Fatal("no shipgate_webhook_ack_seconds{code=\"202\"}")
	return nil
}

// histogramQuantile interpolates the q-quantile inside its bucket, as
// Prometheus' histogram_quantile does.
func histogramQuantile(h *dto.Histogram, q float64) float64 {
	rank := q * float64(h.GetSampleCount())
	prevLE, prevN := 0.0, 0.0
	for _, bk := range h.GetBucket() {
		n := float64(bk.GetCumulativeCount())
		if n >= rank {
			if n == prevN {
				return bk.GetUpperBound()
			}
			return prevLE + (bk.GetUpperBound()-prevLE)*(rank-prevN)/(n-prevN)
		}
		prevLE, prevN = bk.GetUpperBound(), n
	}
	return prevLE
}
