package webhook_test

import (
	"testing"

	"github.com/shipgate-app/shipgate/internal/queuetest"
	"github.com/shipgate-app/shipgate/webhook"
)

// TestMemoryQueueSuite runs the one queue suite against the in-process
// store; webhook/redisqueue runs it against Redis.
func TestMemoryQueueSuite(t *testing.T) {
	queuetest.Run(t, queuetest.Backend{
		Durable: false,
		Fresh: func(t *testing.T, so queuetest.StoreOptions) func(webhook.QueueOptions) (*webhook.StoreQueue, error) {
			st, err := webhook.NewMemoryStore(webhook.MemoryStoreOptions{Capacity: so.Capacity})
			if err != nil {
				t.Fatal(err)
			}
			return func(opts webhook.QueueOptions) (*webhook.StoreQueue, error) { return webhook.NewStoreQueue(st, opts) }
		},
	})
}

// TestFileQueueSuite runs the one queue suite against the file store (one
// database per case, its queues sharing it as replicas share a Redis).
func TestFileQueueSuite(t *testing.T) {
	queuetest.Run(t, queuetest.Backend{
		Durable: true,
		Fresh: func(t *testing.T, so queuetest.StoreOptions) func(webhook.QueueOptions) (*webhook.StoreQueue, error) {
			st, err := webhook.OpenFileStore(webhook.FileStoreOptions{Dir: t.TempDir(), Capacity: so.Capacity})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return func(opts webhook.QueueOptions) (*webhook.StoreQueue, error) { return webhook.NewStoreQueue(st, opts) }
		},
	})
}
