// Package acktest drives the webhook acknowledgement benchmarks: signed
// deliveries POSTed to a real server by concurrent connections, the way
// GitHub sends them. The in-process queue's benchmark (webhook) and the
// Redis queue's (webhook/redisqueue) share it so that their figures are
// taken alike.
package acktest

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// Burst POSTs bodies[i], signed sigs[i], as pull_request deliveries with
// ids ack-<i> to url from conc connections at once, and returns the
// client-side latencies, sorted. Any error or a status other than 202
// fails tb.
func Burst(tb testing.TB, url string, bodies [][]byte, sigs []string, conc int) []time.Duration {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	defer client.CloseIdleConnections()
	lat := make([]time.Duration, len(bodies))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(bodies[i]))
				if err != nil {
					tb.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("ack-%d", i))
				req.Header.Set("X-Hub-Signature-256", sigs[i])
				start := time.Now()
				resp, err := client.Do(req)
				lat[i] = time.Since(start)
				if err != nil {
					tb.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					tb.Errorf("delivery ack-%d: status %d, want 202", i, resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(lat)
	return lat
}

// ReportClient reports the p50 and p99 of sorted latencies on b as
// client-p50-ms and client-p99-ms.
func ReportClient(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "client-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "client-p99-ms")
}

// Quantile is the q-quantile of h, interpolated inside its bucket as
// Prometheus' histogram_quantile does (the server-side ack figures).
func Quantile(h *dto.Histogram, q float64) float64 {
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
