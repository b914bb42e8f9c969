package redisqueue

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// SweepLease returns the lease of the periodic sweep of open pull requests
// (app.SweepOptions.Lease) shared by the replicas of one Redis: the first
// replica to ask within ttl gets it (key <prefix>sweep, SET NX with the
// TTL), the others skip that interval. Give it a little less than the
// sweep interval. When Redis cannot be asked the replica sweeps anyway:
// repeated listings cost API calls, a skipped sweep could leave a pull
// request without a check run.
func SweepLease(rdb redis.UniversalClient, prefix, replica string, ttl time.Duration, log *slog.Logger) func(ctx context.Context) bool {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if log == nil {
		log = slog.Default()
	}
	key := prefix + "sweep"
	return func(ctx context.Context) bool {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		ok, err := rdb.SetNX(rctx, key, replica, ttl).Result()
		if err != nil {
			log.Warn("could not ask Redis for the sweep's lease; sweeping anyway", "error", err)
			return true
		}
		return ok
	}
}
