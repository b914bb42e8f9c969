// Package webhook is Shipgate's HTTP front door. It owns everything between a
// GitHub webhook delivery arriving and an app.Processor being called:
//
//   - authentication: HMAC-SHA256 (X-Hub-Signature-256 only, no SHA-1
//     fallback) over the raw body, compared in constant time against one or
//     more secrets so secrets can be rotated without downtime; bodies are
//     capped (25 MiB by default, GitHub's own payload limit);
//   - routing: the few (event, action) pairs that can change a check result
//     become app.Job values; everything else is answered 200 "ignored" with a
//     reason, so GitHub's delivery log explains itself;
//   - de-duplication by X-GitHub-Delivery over a bounded, TTL'd window
//     (the Deduplicator interface; DeliveryCache in process), or by the
//     queue itself, atomically with storing the jobs (DeliveryQueue);
//   - a bounded job queue behind the transport-neutral Queue interface: one
//     lifecycle (StoreQueue) that coalesces work per app.Job.Key, runs at
//     most one job per key at a time under a lease, retries failures with
//     jittered exponential backoff, survives panics, reports failures and
//     supersessions, and drains (in process) or hands back (shared) on
//     shutdown, over a Store: MemoryStore in process (NewMemoryQueue), or the
//     Redis store of webhook/redisqueue for several replicas; both pass one
//     suite (internal/queuetest) and implement DeliveryQueue, DurableQueue
//     and ReadyChecker;
//   - operational endpoints (/healthz, /readyz, /metrics) and Prometheus
//     metrics on a registry the caller supplies (Metrics).
//
// GitHub gives a webhook receiver 10 seconds and never redelivers on its own,
// so the handler only authenticates, routes and enqueues, then answers 202;
// all GitHub API work happens later in the queue's workers, on contexts that
// do not depend on the HTTP request.
//
// Wiring, in the order a main function does it:
//
//	reg := prometheus.NewRegistry()
//	m, _ := webhook.NewMetrics(reg)            // app registers its own collectors into m.Registerer()
//	q, _ := webhook.NewMemoryQueue(webhook.QueueOptions{Metrics: m, RedeliverFailed: true}) // de-duplicates deliveries itself
//	srv, _ := webhook.NewServer(webhook.Options{Secrets: secrets, AppID: id, AppSlug: slug,
//		Queue: q, Metrics: m, Ready: credentialsCheck})
//	go q.Run(ctx, processor)                   // processor is the app package's app.Processor
//	// serve srv; on SIGTERM: srv.Shutdown(ctx) (readiness flips, 503s, queue drains), then http.Server.Shutdown.
package webhook
