package webhook

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/shipgate-app/shipgate/app"
)

// Deduplicator remembers accepted X-GitHub-Delivery IDs so that a delivery
// reaching the App twice is queued once. DeliveryCache is the in-process
// implementation. A Queue that also implements DeliveryQueue de-duplicates
// itself, atomically with storing the jobs, and the Server then does not
// consult its Deduplicator at all (the Redis queue does this, so that a
// replica dying between "seen" and "stored" cannot swallow a delivery).
type Deduplicator interface {
	// Reserve claims id and reports whether it was new. Reserving before
	// enqueueing makes two concurrent requests with one ID race safely:
	// exactly one wins. An error means the store is unusable; the Server
	// answers 503 so GitHub records the failure.
	Reserve(ctx context.Context, id string) (fresh bool, err error)
	// Release forgets id because its jobs could not be queued, so that a
	// redelivery is accepted.
	Release(ctx context.Context, id string)
}

var _ Deduplicator = (*DeliveryCache)(nil)

// Defaults for DeliveryCacheOptions.
const (
	DefaultDedupTTL  = 24 * time.Hour
	DefaultDedupSize = 100_000
)

// DeliveryCacheOptions configures a DeliveryCache.
type DeliveryCacheOptions struct {
	// TTL is how long a delivery ID is remembered (default 24 h). GitHub
	// does not redeliver by itself; duplicates come from manual or API
	// redeliveries and from proxies retrying, usually within minutes.
	TTL time.Duration
	// Size bounds the number of remembered IDs (default 100,000, about
	// 10 MB); the least recently accepted ID is forgotten first.
	Size int
	// RedeliverFailed, when set, forgets a delivery once one of its jobs is
	// dropped after exhausting its retries (wire QueueOptions.OnDropped to
	// JobFailed), so an operator's manual redelivery, which reuses the same
	// X-GitHub-Delivery GUID, is processed instead of answered "duplicate".
	// Recommended: the cost is at most one repeated, idempotent evaluation.
	RedeliverFailed bool
	// Now is the clock (default time.Now); tests inject one.
	Now func() time.Time
}

// DeliveryCache remembers accepted X-GitHub-Delivery IDs for a TTL window, so
// a delivery that reaches us twice is queued once.
//
// Trade-off: GitHub's manual redelivery (UI or REST) reuses the original
// GUID, so strict de-duplication also swallows the redelivery an operator
// sends because the first attempt's work failed. The cache therefore only
// records deliveries that were actually enqueued (a 503 "queue full" is
// forgotten at once, so its redelivery is accepted), and with
// RedeliverFailed it forgets deliveries whose jobs failed for good. A
// redelivery of a delivery that succeeded stays a duplicate within the TTL:
// to force re-evaluation, use the check run's "Re-run" button instead. The
// cache is per process: after a restart, or across replicas, a duplicate can
// slip through; evaluation is idempotent, so that costs API calls, not
// correctness. With several replicas, the Redis queue (webhook/redisqueue)
// de-duplicates across them, atomically with storing the jobs.
type DeliveryCache struct {
	mu              sync.Mutex
	lru             *simplelru.LRU[string, time.Time] // delivery ID → expiry
	ttl             time.Duration
	now             func() time.Time
	redeliverFailed bool
}

// NewDeliveryCache builds a DeliveryCache, applying defaults to zero options.
func NewDeliveryCache(opts DeliveryCacheOptions) (*DeliveryCache, error) {
	if opts.TTL < 0 || opts.Size < 0 {
		return nil, fmt.Errorf("webhook: delivery cache: negative TTL (%s) or size (%d)", opts.TTL, opts.Size)
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultDedupTTL
	}
	if opts.Size == 0 {
		opts.Size = DefaultDedupSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	lru, err := simplelru.NewLRU[string, time.Time](opts.Size, nil)
	if err != nil {
		return nil, fmt.Errorf("webhook: delivery cache: %w", err)
	}
	return &DeliveryCache{lru: lru, ttl: opts.TTL, now: opts.Now, redeliverFailed: opts.RedeliverFailed}, nil
}

// Reserve implements Deduplicator; it never fails.
func (c *DeliveryCache) Reserve(_ context.Context, id string) (bool, error) {
	return c.reserve(id), nil
}

// Release implements Deduplicator.
func (c *DeliveryCache) Release(_ context.Context, id string) { c.release(id) }

// reserve records id and reports true when it was not already present (or
// had expired). Reserving before enqueueing makes two concurrent requests with
// the same ID race safely: exactly one of them wins.
func (c *DeliveryCache) reserve(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if exp, ok := c.lru.Peek(id); ok && now.Before(exp) {
		return false
	}
	c.lru.Add(id, now.Add(c.ttl))
	return true
}

// release forgets id: its enqueue failed, so a redelivery must be accepted.
func (c *DeliveryCache) release(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(id)
}

// JobFailed is meant for QueueOptions.OnDropped: when RedeliverFailed is set
// it forgets the job's delivery so that a manual redelivery runs again. It is
// a no-op otherwise.
func (c *DeliveryCache) JobFailed(job app.Job, _ error) {
	if !c.redeliverFailed || job.DeliveryID == "" {
		return
	}
	c.release(job.DeliveryID)
}

// Len reports how many delivery IDs are remembered, expired ones included
// until the LRU evicts them.
func (c *DeliveryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
