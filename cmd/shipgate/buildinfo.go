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
