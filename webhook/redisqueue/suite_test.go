package redisqueue

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/shipgate-app/shipgate/internal/queuetest"
	"github.com/shipgate-app/shipgate/webhook"
)

var suitePrefix atomic.Int64

// TestRedisQueueSuite runs the one queue suite against a real redis-server
// (internal/redistest; SHIPGATE_REQUIRE_REDIS=1 makes its absence a
// failure). Every case gets its own key prefix: one store per case, its
// queues sharing it as replicas share a Redis.
func TestRedisQueueSuite(t *testing.T) {
	e := newEnv(t)
	queuetest.Run(t, queuetest.Backend{
		Durable: true,
		Fresh: func(t *testing.T, so queuetest.StoreOptions) func(webhook.QueueOptions) (*webhook.StoreQueue, error) {
			prefix := fmt.Sprintf("suite%d:{q}:", suitePrefix.Add(1))
			return func(o webhook.QueueOptions) (*webhook.StoreQueue, error) {
				q, err := New(Options{Client: e.rdb, Prefix: prefix, Capacity: so.Capacity, Workers: o.Workers,
					JobTimeout: o.JobTimeout, MaxAttempts: o.MaxAttempts, Backoff: o.Backoff, LeaseTTL: o.LeaseTTL,
					RedeliverFailed: o.RedeliverFailed, OnDropped: o.OnDropped, PollInterval: o.PollInterval,
					ReplicaID: o.ReplicaID, Metrics: o.Metrics, Logger: o.Logger})
				if err != nil {
					return nil, err
				}
				return q.StoreQueue, nil
			}
		},
	})
}
