package redisqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/webhook"
)

// topScript keeps the largest number it was given (a delivery ID, or the
// Unix milliseconds of its delivery). KEYS: the key. ARGV: the number.
var topScript = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1]) end
return 0
`)

// RedeliveryMemory is a webhook.RedeliveryMemory kept in Redis, so that a
// restarted replica (or a new one) resumes the redelivery scan where the
// last one stopped, with the deliveries the queue refused and their pull
// requests, the failures not yet redelivered and the redeliveries asked.
// Keys (under the queue's prefix): redeliver:top and redeliver:top_at (the
// scan cursor: the newest delivery ID listed and when it was delivered, in
// Unix milliseconds; strings), and the hashes
// redeliver:pending, redeliver:tries, redeliver:refused, redeliver:newest
// (values JSON, tries a number). Every replica's scan reads it afresh, so
// it is the replicas' one memory, not a backup of each one's.
type RedeliveryMemory struct {
	rdb                                         redis.UniversalClient
	top, topAt, pending, tries, refused, newest string
}

var _ webhook.RedeliveryMemory = (*RedeliveryMemory)(nil)

// NewRedeliveryMemory builds the memory under prefix (Options.Prefix; ""
// is DefaultPrefix).
func NewRedeliveryMemory(rdb redis.UniversalClient, prefix string) *RedeliveryMemory {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	p := prefix + "redeliver:"
	return &RedeliveryMemory{rdb: rdb, top: p + "top", topAt: p + "top_at", pending: p + "pending", tries: p + "tries", refused: p + "refused", newest: p + "newest"}
}

// Apply implements webhook.RedeliveryMemory, in one transaction.
func (m *RedeliveryMemory) Apply(ctx context.Context, c webhook.RedeliveryChange) error {
	if c.Top > 0 {
		if err := topScript.Run(ctx, m.rdb, []string{m.top}, c.Top).Err(); err != nil {
			return fmt.Errorf("redisqueue: recording the redelivery cursor: %w", err)
		}
	}
	if !c.TopAt.IsZero() {
		if err := topScript.Run(ctx, m.rdb, []string{m.topAt}, c.TopAt.UnixMilli()).Err(); err != nil {
			return fmt.Errorf("redisqueue: recording the redelivery cursor's time: %w", err)
		}
	}
	pipe := m.rdb.TxPipeline()
	set := func(key string, vals map[string]any) {
		if len(vals) > 0 {
			pipe.HSet(ctx, key, vals)
		}
	}
	del := func(key string, fields []string) {
		if len(fields) > 0 {
			pipe.HDel(ctx, key, fields...)
		}
	}
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	del(m.pending, c.DelPending)
	del(m.tries, c.DelTries)
	del(m.refused, c.DelRefused)
	del(m.newest, c.DelNewest)
	vals := map[string]any{}
	for g, d := range c.SetPending {
		vals[g] = enc(d)
	}
	set(m.pending, vals)
	vals = map[string]any{}
	for g, n := range c.SetTries {
		vals[g] = n
	}
	set(m.tries, vals)
	vals = map[string]any{}
	for g, f := range c.SetRefused {
		vals[g] = enc(f)
	}
	set(m.refused, vals)
	vals = map[string]any{}
	for k, f := range c.SetNewest {
		vals[k] = enc(f)
	}
	set(m.newest, vals)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("redisqueue: recording the redelivery memory: %w", err)
	}
	return nil
}

// Load implements webhook.RedeliveryMemory. Unreadable entries are skipped.
func (m *RedeliveryMemory) Load(ctx context.Context) (webhook.RedeliveryState, error) {
	st := webhook.RedeliveryState{Pending: map[string]webhook.HookDelivery{}, Tries: map[string]int{},
		Refused: map[string]webhook.Refusal{}, Newest: map[string]webhook.Refusal{}}
	pipe := m.rdb.Pipeline()
	top, topAt := pipe.Get(ctx, m.top), pipe.Get(ctx, m.topAt)
	pending, tries, refused, newest := pipe.HGetAll(ctx, m.pending), pipe.HGetAll(ctx, m.tries),
		pipe.HGetAll(ctx, m.refused), pipe.HGetAll(ctx, m.newest)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return st, fmt.Errorf("redisqueue: reading the redelivery memory: %w", err)
	}
	st.Top, _ = strconv.ParseInt(top.Val(), 10, 64)
	if ms, err := strconv.ParseInt(topAt.Val(), 10, 64); err == nil && ms > 0 {
		st.TopAt = time.UnixMilli(ms)
	}
	for g, v := range pending.Val() {
		var d webhook.HookDelivery
		if json.Unmarshal([]byte(v), &d) == nil {
			st.Pending[g] = d
		}
	}
	for g, v := range tries.Val() {
		if n, err := strconv.Atoi(v); err == nil {
			st.Tries[g] = n
		}
	}
	for g, v := range refused.Val() {
		var f webhook.Refusal
		if json.Unmarshal([]byte(v), &f) == nil {
			st.Refused[g] = f
		}
	}
	for k, v := range newest.Val() {
		var f webhook.Refusal
		if json.Unmarshal([]byte(v), &f) == nil {
			st.Newest[k] = f
		}
	}
	return st, nil
}

// releaseScript deletes a lease if its value is still the holder's. KEYS:
// the lease. ARGV: the holder.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`)

// RedeliveryScanLease returns the lease of the redelivery scan
// (webhook.RedelivererOptions.Lease) shared by the replicas of one Redis
// (key <prefix>redeliver:scan, SET NX with ttl, deleted when the scan
// ends): one replica scans at a time, so two never ask for the same
// redelivery together. ttl bounds a scan whose replica died mid-way. When
// Redis cannot be asked the replica scans anyway (GitHub answers a second
// redelivery of one delivery with a second attempt, which the queue
// de-duplicates; a skipped scan could leave a delivery unredelivered).
func RedeliveryScanLease(rdb redis.UniversalClient, prefix, replica string, ttl time.Duration, log *slog.Logger) func(ctx context.Context) (func(), bool) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if log == nil {
		log = slog.Default()
	}
	key := prefix + "redeliver:scan"
	var seq atomic.Uint64
	return func(ctx context.Context) (func(), bool) {
		holder := replica + "." + strconv.FormatUint(seq.Add(1), 10)
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		ok, err := rdb.SetNX(rctx, key, holder, ttl).Result()
		if err != nil {
			log.Warn("could not ask Redis for the redelivery scan's lease; scanning anyway", "error", err)
			return func() {}, true
		}
		if !ok {
			return nil, false
		}
		return func() {
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := releaseScript.Run(rctx, rdb, []string{key}, holder).Err(); err != nil {
				log.Warn("could not release the redelivery scan's lease; it expires by itself", "error", err, "ttl", ttl)
			}
		}, true
	}
}
