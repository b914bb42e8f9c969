package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/webhook"
	"github.com/shipgate-app/shipgate/webhook/redisqueue"
)

// redisConfig selects the job queue of `shipgate serve`: empty URL, the
// in-process queue (one replica); a Redis URL, the shared queue that lets
// several replicas split the work without losing a delivery.
type redisConfig struct {
	// URL is redis://[user:password@]host:port/db, rediss:// for TLS, or
	// unix:///path/to/socket. Never logged with its password.
	URL string
	// Prefix starts every key (default "shipgate:{queue}:").
	Prefix string
	// LeaseTTL is how long a running job stays owned without a heartbeat:
	// a killed replica's jobs run again elsewhere after about this long.
	LeaseTTL time.Duration
	// DedupTTL is how long delivery IDs are remembered.
	DedupTTL time.Duration
}

// addRedisFlags registers the shared-queue flags of `shipgate serve` and
// returns a function that reads them once the flags are parsed. Each flag
// has an environment variable; flags win.
func addRedisFlags(fs *flag.FlagSet) func() (redisConfig, error) {
	u := fs.String("redis-url", os.Getenv("SHIPGATE_REDIS_URL"), "Redis URL of the shared job queue for several replicas: redis://[:PASSWORD@]HOST:6379/0, rediss:// for TLS; empty: the in-process queue (SHIPGATE_REDIS_URL)")
	uFile := fs.String("redis-url-file", os.Getenv("SHIPGATE_REDIS_URL_FILE"), "file holding the Redis URL (a mounted secret, as the password is in it); wins over --redis-url (SHIPGATE_REDIS_URL_FILE)")
	prefix := fs.String("redis-prefix", envOr("SHIPGATE_REDIS_PREFIX", redisqueue.DefaultPrefix), "prefix of the queue's Redis keys; keep one {hash tag} for Redis Cluster (SHIPGATE_REDIS_PREFIX)")
	lease := fs.Duration("redis-lease", envDuration("SHIPGATE_REDIS_LEASE", redisqueue.DefaultLeaseTTL), "how long a running job stays owned without a heartbeat; a killed replica's jobs are taken over after about this long (SHIPGATE_REDIS_LEASE)")
	dedup := fs.Duration("redis-dedup-ttl", envDuration("SHIPGATE_REDIS_DEDUP_TTL", redisqueue.DefaultDedupTTL), "how long delivery IDs are remembered across replicas (SHIPGATE_REDIS_DEDUP_TTL)")
	return func() (redisConfig, error) {
		rc := redisConfig{URL: strings.TrimSpace(*u), Prefix: *prefix, LeaseTTL: *lease, DedupTTL: *dedup}
		if *uFile != "" {
			b, err := os.ReadFile(*uFile)
			if err != nil {
				return rc, fmt.Errorf("--redis-url-file: %w", err)
			}
			rc.URL = strings.TrimSpace(string(b))
		}
		if rc.URL == "" {
			return rc, nil
		}
		if _, err := redis.ParseURL(rc.URL); err != nil {
			return rc, fmt.Errorf("--redis-url %s: %w", redactURL(rc.URL), redactErr(err, rc.URL))
		}
		if rc.LeaseTTL < time.Second {
			return rc, fmt.Errorf("--redis-lease %s: use at least 1s", rc.LeaseTTL)
		}
		if rc.DedupTTL <= 0 {
			return rc, fmt.Errorf("--redis-dedup-ttl %s: must be positive", rc.DedupTTL)
		}
		return rc, nil
	}
}

// newQueueAndDedup builds the job queue and the delivery de-duplication of
// `shipgate serve`: the one queue lifecycle (webhook.StoreQueue) over Redis
// with a Redis URL; without one, over the file store in queueDir, or the
// memory store when queueDir is empty. Either
// de-duplicates deliveries itself, atomically with storing the jobs
// (webhook.DeliveryQueue; failed deliveries forgotten when
// redeliverFailed), so the returned Deduplicator is nil and the Server does
// not need one. Redis must answer
// within 10 s: a wrong URL fails the start instead of every delivery.
// qo.OnDropped is set here. The returned function releases the Redis
// connections; call it after the queue has stopped.
func newQueueAndDedup(ctx context.Context, rc redisConfig, dir queueDirChoice, qo webhook.QueueOptions, redeliverFailed bool, pace []app.WritePace) (webhook.Queue, webhook.Deduplicator, redisExtras, func(), error) {
	var st *webhook.FileStore
	if rc.URL == "" && dir.path != "" {
		var err error
		st, err = webhook.OpenFileStore(webhook.FileStoreOptions{Dir: dir.path, Capacity: qo.Capacity})
		if err != nil {
			// Never a silent fall-back to memory: a process that answers
			// 202 and loses the job at its next restart is the failure the
			// queue on disk is there to prevent (a read-only root file
			// system, as in the image, made the default directory unusable).
			what := "--queue-dir"
			if dir.isDefault {
				what = "the default --queue-dir (under the home directory)"
			}
			return nil, nil, redisExtras{}, nil, fmt.Errorf("the job queue cannot be kept in %s, %s: %w; give --queue-dir (SHIPGATE_QUEUE_DIR) a writable directory "+
				"(in a container with a read-only root file system, one on a volume), or --queue-dir memory to keep accepted deliveries in memory only, lost when the process stops",
				dir.path, what, err)
		}
	}
	if st != nil {
		// One process, its accepted jobs on disk (webhook.FileStore): a
		// delivery is answered 202 once its jobs are synced, and a restart
		// runs what the last process left.
		qo.RedeliverFailed = redeliverFailed
		q, err := webhook.NewStoreQueue(st, qo)
		if err != nil {
			st.Close()
			return nil, nil, redisExtras{}, nil, err
		}
		if qo.Logger != nil {
			qo.Logger.Info("job queue: in process, kept on disk", "file", st.Path(),
				"pending_from_last_run", st.Loaded.Pending, "running_when_last_run_stopped", st.Loaded.Running,
				"deliveries_remembered", st.Loaded.Deliveries, "unreadable_dropped", st.Loaded.Unreadable)
		}
		return q, nil, redisExtras{sweepCursor: st}, func() {
			if err := st.Close(); err != nil && qo.Logger != nil {
				qo.Logger.Warn("closing the queue database", "error", err)
			}
		}, nil
	}
	if rc.URL == "" {
		// The in-process queue de-duplicates itself too (webhook.DeliveryQueue),
		// atomically with storing the jobs, like the Redis one.
		qo.RedeliverFailed = redeliverFailed
		q, err := webhook.NewMemoryQueue(qo)
		if err != nil {
			return nil, nil, redisExtras{}, nil, err
		}
		if qo.Logger != nil {
			qo.Logger.Warn("job queue: in memory only: deliveries accepted and not yet run are lost if this process stops (set --queue-dir, or --redis-url for several replicas)")
		}
		return q, nil, redisExtras{}, func() {}, nil
	}
	opts, err := redis.ParseURL(rc.URL)
	if err != nil {
		return nil, nil, redisExtras{}, nil, fmt.Errorf("redis URL %s: %w", redactURL(rc.URL), redactErr(err, rc.URL))
	}
	if opts.ClientName == "" {
		opts.ClientName = "shipgate"
	}
	client := redis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		return nil, nil, redisExtras{}, nil, fmt.Errorf("the Redis job queue at %s does not answer: %w", redactURL(rc.URL), redactErr(err, rc.URL))
	}
	q, err := redisqueue.New(redisqueue.Options{
		Client: client, Prefix: rc.Prefix, Capacity: qo.Capacity, Workers: qo.Workers, JobTimeout: qo.JobTimeout,
		MaxAttempts: qo.MaxAttempts, Backoff: qo.Backoff, LeaseTTL: rc.LeaseTTL, DedupTTL: rc.DedupTTL,
		RedeliverFailed: redeliverFailed, Metrics: qo.Metrics, Logger: qo.Logger,
	})
	if err != nil {
		client.Close()
		return nil, nil, redisExtras{}, nil, err
	}
	if qo.Logger != nil {
		qo.Logger.Info("job queue: Redis (shared by every replica)", "redis", redactURL(rc.URL),
			"prefix", rc.Prefix, "lease", rc.LeaseTTL, "replica", q.Replica())
	}
	// Check-run writes are paced per installation across every replica
	// sharing the Redis (GitHub counts them whichever replica sends them).
	extras := redisExtras{memory: redisqueue.NewRedeliveryMemory(client, rc.Prefix),
		sweepCursor: redisqueue.NewSweepCursor(client, rc.Prefix),
		scanLease:   redisqueue.RedeliveryScanLease(client, rc.Prefix, q.Replica(), 2*time.Minute, qo.Logger),
		sweepLease: func(ttl time.Duration) func(context.Context) bool {
			return redisqueue.SweepLease(client, rc.Prefix, q.Replica(), ttl, qo.Logger)
		}}
	if wp := redisqueue.NewWritePacer(client, rc.Prefix, q.Replica(), pace, qo.Logger); wp != nil {
		extras.pace = wp
	}
	return q, nil, extras, func() {
		if err := client.Close(); err != nil && !errors.Is(err, redis.ErrClosed) && qo.Logger != nil {
			qo.Logger.Warn("closing the Redis connections", "error", err)
		}
	}, nil
}

// queueDirChoice is serve's --queue-dir: the directory ("" for none) and
// whether it is serve's default rather than the operator's choice.
type queueDirChoice struct {
	path      string
	isDefault bool
}

// redisExtras are what else the App keeps in Redis when it has one.
type redisExtras struct {
	pace   app.WriteLimiter         // the check-run write pace of every replica
	memory webhook.RedeliveryMemory // the redelivery scan's memory
	// scanLease lets one replica at a time scan for redeliveries.
	scanLease func(ctx context.Context) (func(), bool)
	// sweepCursor is where the next sweep of any replica resumes.
	sweepCursor app.SweepCursorStore
	// sweepLease makes the lease that lets one replica sweep per interval.
	sweepLease func(ttl time.Duration) func(context.Context) bool
}

// redactURL hides a URL's user name and password, for logs and errors.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	return u.String()
}

// redactErr is err's message with the URL (which may hold a password)
// replaced by its redacted form: URL parsers quote their input in errors.
func redactErr(err error, raw string) error {
	if err == nil || raw == "" {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), raw, redactURL(raw)))
}
