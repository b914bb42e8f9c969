package webhook

import (
	"context"
	"testing"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/acktest"
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
	q, err := NewMemoryQueue(QueueOptions{Capacity: 1 << 20, Logger: nopLogger()})
	if err != nil {
		b.Fatal(err)
	}
	benchAck(b, q)
}

// BenchmarkAck200File is BenchmarkAck200 with the queue kept on disk
// (FileStore, serve's single-process default): each 202 waits for its jobs
// to be synced, concurrent deliveries sharing one sync.
//
//	go test -run '^$' -bench BenchmarkAck200File -benchtime 4000x ./webhook
func BenchmarkAck200File(b *testing.B) {
	st, err := OpenFileStore(FileStoreOptions{Dir: b.TempDir(), Capacity: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	q, err := NewStoreQueue(st, QueueOptions{Logger: nopLogger()})
	if err != nil {
		b.Fatal(err)
	}
	benchAck(b, q)
}

func benchAck(b *testing.B, q *StoreQueue) {
	const conc = 200
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
	b.ResetTimer()
	lat := acktest.Burst(b, "http://"+addr+"/webhook", bodies, sigs, conc)
	b.StopTimer()
	acktest.ReportClient(b, lat)
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
			return acktest.Quantile(m.GetHistogram(), q)
		}
	}
	return 0
}
