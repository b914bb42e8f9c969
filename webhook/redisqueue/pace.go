package redisqueue

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
)

// paceScript admits one check-run write of an installation if it fits every
// window, on the Redis server's clock (replicas with skewed clocks agree).
// KEYS: the installation's write log (a sorted set: member = a unique write
// ID, score = its time in ms). ARGV: the write ID, then per window: its
// length in ms and its count. Returns 0 (admitted and recorded) or the ms
// to wait before asking again.
var paceScript = redis.NewScript(luaPrelude + `
local longest = 0
for i = 2, #ARGV, 2 do longest = math.max(longest, tonumber(ARGV[i])) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - longest)
local wait = 0
for i = 2, #ARGV, 2 do
  local per, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local inside = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - per), '+inf')
  if #inside >= n then
    -- the write that must leave the window before one more fits
    local oldest = tonumber(redis.call('ZSCORE', KEYS[1], inside[#inside - n + 1]))
    wait = math.max(wait, oldest + per - now + 1)
  end
end
if wait > 0 then return wait end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], longest)
return 0
`)

// WritePacer is an app.WriteLimiter kept in Redis: the check-run writes of
// each installation, by every replica sharing the Redis, are kept within
// the windows (a sliding-window log per installation, key
// <prefix>pace:<installation id>). When Redis cannot be reached it falls
// back on a per-process pace, so writes go on (GitHub's secondary limit,
// which the transport honours, is the backstop).
type WritePacer struct {
	rdb      redis.UniversalClient
	prefix   string
	args     []any
	fallback app.WriteLimiter
	seq      atomic.Uint64
	replica  string
	log      *slog.Logger
}

// NewWritePacer builds the shared pace over limits (windows with a
// non-positive length or count are ignored); nil when none is usable.
// prefix is the queue's key prefix (Options.Prefix); replica names this
// process in write IDs.
func NewWritePacer(rdb redis.UniversalClient, prefix, replica string, limits []app.WritePace, log *slog.Logger) *WritePacer {
	var args []any
	for _, l := range limits {
		if l.Per > 0 && l.N > 0 {
			args = append(args, l.Per.Milliseconds(), l.N)
		}
	}
	if len(args) == 0 || rdb == nil {
		return nil
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if log == nil {
		log = slog.Default()
	}
	return &WritePacer{rdb: rdb, prefix: prefix, args: args, fallback: app.LocalWritePace(limits), replica: replica, log: log}
}

// WaitWrite implements app.WriteLimiter.
func (p *WritePacer) WaitWrite(ctx context.Context, installationID int64) error {
	key := p.prefix + "pace:" + strconv.FormatInt(installationID, 10)
	id := p.replica + "." + strconv.FormatUint(p.seq.Add(1), 10)
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		ms, err := paceScript.Run(rctx, p.rdb, []string{key}, append([]any{id}, p.args...)...).Int64()
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.log.Warn("the shared check-run write pace is unreachable in Redis; pacing this replica's writes alone",
				"installation_id", installationID, "error", err)
			return p.fallback.WaitWrite(ctx, installationID)
		}
		if ms <= 0 {
			return nil
		}
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting %dms for the shared write pace: %w", ms, ctx.Err())
		case <-t.C:
		}
	}
}
