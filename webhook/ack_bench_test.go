package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/shipgate-app/shipgate/app"
)

// BenchmarkAck200 measures webhook acknowledgement latency the way GitHub
// sees it: b.N signed pull_request.synchronize deliveries (each a distinct
// PR, ~25 KB as GitHub sends them) POSTed by 200 concurrent connections to
// a real server on loopback (HTTPServer's limits, the MemoryQueue, a
// processor that returns at once). It reports the client-side p50/p99 and
// the server-side p99 of shipgate_webhook_ack_seconds (bucket-interpolated).
//
//	go test -run '^$' -bench BenchmarkAck200 -benchtime 4000x ./webhook
func BenchmarkAck200(b *testing.B) {
	const conc = 200
	q, err := NewMemoryQueue(QueueOptions{Capacity: 1 << 20, Logger: nopLogger()})
	if err != nil {
		b.Fatal(err)
	}
	env := newTestEnv(b, func(o *Options) { o.Queue = q; o.Logger = nopLogger() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = q.Run(ctx, processorFunc(func(context.Context, app.Job) ([]app.Job, error) { return nil, nil }))
	}()
	hs, limit := HTTPServer(env.srv, HTTPOptions{ErrorLog: nopLogger()})
	addr := startListener(b, hs, limit)
	m := fixture(b, "pull_request.synchronize")
	bodies := make([][]byte, b.N)
	sigs := make([]string, b.N)
	for i := range bodies {
		set(b, m, "number", float64(i+1))
		bodies[i] = mustJSON(b, m)
		sigs[i] = Sign([]byte(testSecret), bodies[i])
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
				req.Header.Set(headerEvent, "pull_request")
				req.Header.Set(headerDelivery, fmt.Sprintf("ack-%d", i))
				req.Header.Set(headerSignature, sigs[i])
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
	b.ReportMetric(histQuantile(b, env, 0.50)*1000, "server-p50-ms")
	b.ReportMetric(histQuantile(b, env, 0.99)*1000, "server-p99-ms")
}

// histQuantile is the q-quantile of shipgate_webhook_ack_seconds{code="202"},
// interpolated inside its bucket as Prometheus' histogram_quantile does.
func histQuantile(b *testing.B, env *testEnv, q float64) float64 {
	mfs, err := env.reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "shipgate_webhook_ack_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !labelsMatch(m.GetLabel(), map[string]string{"code": "202"}) {
				continue
			}
			return quantileOf(m.GetHistogram(), q)
		}
	}
	return 0
}

func quantileOf(h *dto.Histogram, q float64) float64 {
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
