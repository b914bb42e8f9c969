package redisqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/acktest"
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
//	go test -run '^$' -bench BenchmarkAck200Redis -benchtime 4000x ./webhook/redisqueue
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
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	if testing.Verbose() {
		logEveryCommand(ctx, b, rdb)
	}
	b.ResetTimer()
	lat := acktest.Burst(b, "http://"+addr+"/webhook", bodies, sigs, conc)
	b.StopTimer()
	acktest.ReportClient(b, lat)
	h := ackHistogram(b, reg)
	b.ReportMetric(acktest.Quantile(h, 0.50)*1000, "server-p50-ms")
	b.ReportMetric(acktest.Quantile(h, 0.99)*1000, "server-p99-ms")
	reportRedisTime(b, rdb)
}

// logEveryCommand puts every Redis command in the slow log, so that
// reportRedisTime can time each script (commandstats lumps them together
// as evalsha). It costs Redis time, so only -v runs do it.
func logEveryCommand(ctx context.Context, b *testing.B, rdb *redis.Client) {
	for _, kv := range [][2]string{{"slowlog-log-slower-than", "0"}, {"slowlog-max-len", "100000"}} {
		if err := rdb.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			b.Fatal(err)
		}
	}
	if err := rdb.SlowLogReset(ctx).Err(); err != nil {
		b.Fatal(err)
	}
}

// reportRedisTime reports the Redis server's command time (INFO
// commandstats, reset before the burst) per delivery, and logs each
// command's calls and usec_per_call: where the server's time goes. With
// -v it also logs each script's time (slow log) and reports the enqueue
// script's mean.
func reportRedisTime(b *testing.B, rdb *redis.Client) {
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var calls, usec int64
		for _, f := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "calls":
				calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				usec, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		if name == "cmdstat_config" || name == "cmdstat_info" {
			continue
		}
		total += float64(usec)
		b.Logf("%s calls=%d usec=%d usec_per_call=%.1f", strings.TrimPrefix(name, "cmdstat_"), calls, usec,
			float64(usec)/float64(max(calls, 1)))
	}
	b.ReportMetric(total/float64(b.N), "redis-us/delivery")
	if !testing.Verbose() {
		return
	}
	names := map[string]string{enqueueScript.Hash(): "enqueue", dequeueScript.Hash(): "dequeue",
		finishScript.Hash(): "finish", retryScript.Hash(): "retry", heartbeatScript.Hash(): "heartbeat",
		reclaimScript.Hash(): "reclaim"}
	log, err := rdb.SlowLogGet(context.Background(), -1).Result()
	if err != nil {
		b.Fatal(err)
	}
	type agg struct {
		n   int
		sum time.Duration
		all []time.Duration
	}
	by := map[string]*agg{}
	for _, e := range log {
		name := strings.ToLower(e.Args[0])
		if name == "evalsha" && len(e.Args) > 1 {
			name = "evalsha:" + names[e.Args[1]]
		}
		a := by[name]
		if a == nil {
			a = &agg{}
			by[name] = a
		}
		a.n++
		a.sum += e.Duration
		a.all = append(a.all, e.Duration)
	}
	for name, a := range by {
		slices.Sort(a.all)
		b.Logf("slowlog %-18s n=%5d total=%8s mean=%6.1fus p50=%6s p99=%6s max=%6s", name, a.n, a.sum,
			float64(a.sum.Microseconds())/float64(a.n), a.all[a.n/2], a.all[a.n*99/100], a.all[a.n-1])
	}
	if a := by["evalsha:enqueue"]; a != nil {
		b.ReportMetric(float64(a.sum.Microseconds())/float64(a.n), "enqueue-us/call")
	}
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

// BenchmarkEnqueueRedisTime is the Redis server's time per enqueue script
// call (INFO commandstats usec_per_call of evalsha), one delivery of one
// new pull request at a time: the server-side cost of the ack path's
// Redis call, free of the scheduling noise of a concurrent burst.
//
//	go test -run '^$' -bench BenchmarkEnqueueRedisTime -benchtime 20000x ./webhook/redisqueue
func BenchmarkEnqueueRedisTime(b *testing.B) {
	rdb := newBenchRedis(b)
	q, err := New(Options{Client: rdb, Prefix: "enq:{q}:", Capacity: 1 << 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	job := app.Job{Kind: app.KindEvaluatePR, Event: "pull_request", Action: "synchronize", InstallationID: 4242,
		Owner: "octo-org", Repo: "widgets", HeadSHA: "0123456789abcdef0123456789abcdef01234567", Sender: "octocat",
		ReceivedAt: time.Unix(1_700_000_000, 0).UTC()}
	if _, err := q.Store().Add(ctx, "warm-up", []app.Job{job}); err != nil {
		b.Fatal(err)
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		job.PRNumber = i + 1
		job.DeliveryID = fmt.Sprintf("enq-%d", i)
		res, err := q.Store().Add(ctx, job.DeliveryID, []app.Job{job})
		if err != nil || res.Status != webhook.AddOK {
			b.Fatalf("add %d: %+v %v", i, res, err)
		}
	}
	b.StopTimer()
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:"); ok {
			for _, f := range strings.Split(rest, ",") {
				if v, ok := strings.CutPrefix(f, "usec_per_call="); ok {
					us, _ := strconv.ParseFloat(v, 64)
					b.ReportMetric(us, "redis-us/enqueue")
				}
			}
		}
	}
}
