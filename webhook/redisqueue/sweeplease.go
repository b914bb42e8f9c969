package redisqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
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

// SweepCursor is the sweep's resume cursor (app.SweepOptions.Cursor) kept
// in Redis (key <prefix>sweep:cursor, JSON, kept 7 days after its last
// write), so that whichever replica sweeps next resumes where the last
// sweep of any replica stopped, and a restart does not start over.
type SweepCursor struct {
	rdb redis.UniversalClient
	key string
}

var _ app.SweepCursorStore = (*SweepCursor)(nil)

// sweepCursorTTL is how long a cursor no sweep updates is kept.
const sweepCursorTTL = 7 * 24 * time.Hour

// NewSweepCursor builds the cursor under prefix (Options.Prefix; "" is
// DefaultPrefix).
func NewSweepCursor(rdb redis.UniversalClient, prefix string) *SweepCursor {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &SweepCursor{rdb: rdb, key: prefix + "sweep:cursor"}
}

// LoadSweepCursor implements app.SweepCursorStore; no cursor (or an
// unreadable one) is the zero cursor: start at the beginning.
func (c *SweepCursor) LoadSweepCursor(ctx context.Context) (app.SweepCursor, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var cur app.SweepCursor
	b, err := c.rdb.Get(ctx, c.key).Bytes()
	if errors.Is(err, redis.Nil) {
		return cur, nil
	}
	if err != nil {
		return cur, fmt.Errorf("redisqueue: reading the sweep cursor: %w", err)
	}
	if json.Unmarshal(b, &cur) != nil {
		return app.SweepCursor{}, nil
	}
	return cur, nil
}

// SaveSweepCursor implements app.SweepCursorStore.
func (c *SweepCursor) SaveSweepCursor(ctx context.Context, cur app.SweepCursor) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	b, err := json.Marshal(cur)
	if err != nil {
		return fmt.Errorf("redisqueue: encoding the sweep cursor: %w", err)
	}
	if err := c.rdb.Set(ctx, c.key, b, sweepCursorTTL).Err(); err != nil {
		return fmt.Errorf("redisqueue: recording the sweep cursor: %w", err)
	}
	return nil
}
