package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/shipgate-app/shipgate/app"
)

// metricsNamespace prefixes every metric this package registers, so Shipgate's
// series are easy to find next to the Go runtime's and the app package's.
const metricsNamespace = "shipgate"

// Metrics holds the Prometheus collectors of the webhook server and its queue,
// registered on a registry the caller owns (never the global default one, so
// tests and several servers in one process do not collide). The app package
// registers its own collectors (GitHub API calls, errors, rate-limit
// remaining) into Registerer(), so a single /metrics endpoint serves them all.
//
// Series (all prefixed "shipgate_"):
//
//	deliveries_total{event,outcome}   authenticated deliveries: queued, duplicate, ignored, logged, pong, queue_full, shutting_down, enqueue_error
//	webhook_rejections_total{reason}  deliveries refused before routing (signature, headers, size, body budget, payload)
//	webhook_body_bytes_in_flight      body-buffer bytes held by requests being read (the in-flight budget in use)
//	webhook_ack_seconds{code}         time from a delivery's headers being read to its answer, by status code
//	redeliveries_total{outcome}       failed deliveries GitHub was asked to redeliver (asked), skipped as covered by a newer one (coalesced), given up on (gave_up), or errors
//	queue_depth                       pending jobs (running ones excluded)
//	queue_full_total                  enqueues refused for capacity (deliveries answered 503 and follow-ups)
//	jobs_total{kind,outcome}          finished jobs: succeeded, failed, superseded, abandoned
//	job_duration_seconds{kind}        end-to-end from delivery receipt to the job's last attempt
//	job_panics_total                  processor panics recovered by a worker
//	job_retries_total                 failed attempts scheduled for another try
//	queue_running                     jobs holding a lease (with Redis: on any replica)
//	jobs_recovered_total              jobs put back after their lease expired (a replica died or stalled)
//
// Both queue backends record these through the one lifecycle (StoreQueue);
// with Redis, queue_depth and queue_running count every replica's jobs, and
// webhook/redisqueue adds redis_errors_total{op}.
type Metrics struct {
	registry *prometheus.Registry

	deliveries    *prometheus.CounterVec
	rejections    *prometheus.CounterVec
	ack           *prometheus.HistogramVec
	redeliveries  *prometheus.CounterVec
	queueDepth    prometheus.Gauge
	queueFull     prometheus.Counter
	jobs          *prometheus.CounterVec
	jobDuration   *prometheus.HistogramVec
	jobPanics     prometheus.Counter
	jobRetries    prometheus.Counter
	queueRunning  prometheus.Gauge
	jobsRecovered prometheus.Counter
	bodyBytes     prometheus.Gauge
}

// NewMetrics creates the webhook collectors and registers them on reg. It
// fails when reg is nil or a collector is already registered there (for
// example when NewMetrics is called twice with the same registry).
func NewMetrics(reg *prometheus.Registry) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("webhook: NewMetrics: nil registry")
	}
	m := &Metrics{
		registry: reg,
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "deliveries_total",
			Help: "Authenticated webhook deliveries by event and outcome.",
		}, []string{"event", "outcome"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "webhook_rejections_total",
			Help: "Webhook requests refused before routing, by reason.",
		}, []string{"reason"}),
		ack: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "webhook_ack_seconds",
			Help:    "Time from a webhook request's headers being read to its answer being written, by status code.",
			Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"code"}),
		redeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "redeliveries_total",
			Help: "Failed webhook deliveries GitHub was asked to redeliver (asked), skipped because a newer one covers the same pull requests (coalesced), given up on (gave_up), or that failed to be asked (error).",
		}, []string{"outcome"}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "queue_depth",
			Help: "Jobs waiting in the queue (running jobs excluded).",
		}),
		queueFull: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "queue_full_total",
			Help: "Enqueues refused because the queue was at capacity.",
		}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "jobs_total",
			Help: "Finished jobs by kind and outcome (succeeded, failed, superseded, abandoned).",
		}, []string{"kind", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "job_duration_seconds",
			Help:    "Time from webhook receipt to the end of a job's last attempt.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"kind"}),
		jobPanics: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "job_panics_total",
			Help: "Processor panics recovered by queue workers.",
		}),
		jobRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "job_retries_total",
			Help: "Failed job attempts scheduled for another try.",
		}),
		queueRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "queue_running",
			Help: "Jobs running (holding a lease); with the Redis queue, across all replicas.",
		}),
		jobsRecovered: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "jobs_recovered_total",
			Help: "Jobs put back in the queue by this replica after their lease expired (a replica died or stalled).",
		}),
		bodyBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "webhook_body_bytes_in_flight",
			Help: "Body-buffer bytes held by requests being read and routed (the in-flight body budget in use).",
		}),
	}
	for _, c := range []prometheus.Collector{
		m.deliveries, m.rejections, m.ack, m.redeliveries, m.queueDepth, m.queueFull,
		m.jobs, m.jobDuration, m.jobPanics, m.jobRetries, m.queueRunning, m.jobsRecovered,
		m.bodyBytes,
	} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("webhook: register metrics: %w", err)
		}
	}
	return m, nil
}

// Registerer is where other packages (app) register their own collectors so
// that they are served by the same /metrics endpoint.
func (m *Metrics) Registerer() prometheus.Registerer { return m.registry }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// orPrivateMetrics returns m, or, when m is nil, Metrics on a fresh private
// registry, so components constructed without Metrics still work and nil
// checks do not spread through the code.
func orPrivateMetrics(m *Metrics) (*Metrics, error) {
	if m != nil {
		return m, nil
	}
	return NewMetrics(prometheus.NewRegistry())
}

// The methods below let a Queue implemented outside this package (the Redis
// queue) record the same series as MemoryQueue, so dashboards and alerts do
// not depend on which queue runs.

// SetQueueDepth sets queue_depth (pending jobs, running ones excluded).
func (m *Metrics) SetQueueDepth(n int) { m.queueDepth.Set(float64(n)) }

// CountQueueFull counts an enqueue refused for capacity (queue_full_total).
func (m *Metrics) CountQueueFull() { m.queueFull.Inc() }

// CountJob counts a finished job by kind and outcome (jobs_total): succeeded,
// failed, superseded or abandoned.
func (m *Metrics) CountJob(job app.Job, outcome string) {
	m.jobs.WithLabelValues(kindLabel(job), outcome).Inc()
}

// ObserveJobDuration records job_duration_seconds, from the delivery's
// receipt to now; jobs without a receipt time are skipped.
func (m *Metrics) ObserveJobDuration(job app.Job) {
	if !job.ReceivedAt.IsZero() {
		m.jobDuration.WithLabelValues(kindLabel(job)).Observe(time.Since(job.ReceivedAt).Seconds())
	}
}

// CountPanic counts a processor panic recovered by a worker (job_panics_total).
func (m *Metrics) CountPanic() { m.jobPanics.Inc() }

// CountRetry counts a failed attempt scheduled for another try (job_retries_total).
func (m *Metrics) CountRetry() { m.jobRetries.Inc() }
