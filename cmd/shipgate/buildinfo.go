package main

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
)

// newBuildInfo is the shipgate_build_info gauge: always 1, labelled with the
// version, commit and Go version the running binary was built with, so an
// operator can see which release each replica runs (and join it onto other
// series with `* on(instance) group_left(version) shipgate_build_info`).
func newBuildInfo() prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "shipgate_build_info",
		Help:        "The running Shipgate's version, commit and Go version (always 1).",
		ConstLabels: prometheus.Labels{"version": version, "commit": buildCommit(), "goversion": runtime.Version()},
	})
	g.Set(1)
	return g
}

// newQueueInfo is the shipgate_queue_info gauge: always 1, labelled with
// where the job queue keeps what it accepted — "disk" (--queue-dir),
// "redis", or "memory" (lost when the process stops) — so an alert can
// say so: a replica on memory has chosen to lose accepted deliveries at
// its next restart.
func newQueueInfo(store string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "shipgate_queue_info",
		Help:        "Where the job queue keeps accepted deliveries: disk, redis, or memory (lost on a restart); always 1.",
		ConstLabels: prometheus.Labels{"store": store},
	})
	g.Set(1)
	return g
}
