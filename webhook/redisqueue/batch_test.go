package redisqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/webhook"
)

// TestConcurrentEnqueuesAreBatchedCorrectly: 300 deliveries, each sent
// twice at once by 600 goroutines (so most go out in pipelines of many):
// every delivery is stored exactly once and the other copy answered as a
// duplicate, each caller gets its own reply, and the queue holds one
// pending job per pull request.
func TestConcurrentEnqueuesAreBatchedCorrectly(t *testing.T) {
	e := newEnv(t)
	r := e.queue(func(o *Options) { o.Capacity = 10_000 })
	const n = 300
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		ok, dup    = map[string]int{}, map[string]int{}
		unexpected []error
	)
	for i := range 2 * n {
		wg.Go(func() {
			id := fmt.Sprintf("d-%d", i%n)
			job := app.Job{Kind: app.KindEvaluatePR, DeliveryID: id, InstallationID: 1, Owner: "acme", Repo: "web", PRNumber: i%n + 1, HeadSHA: id}
			err := r.q.EnqueueDelivery(context.Background(), id, []app.Job{job})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok[id]++
			case errors.Is(err, webhook.ErrDuplicateDelivery):
				dup[id]++
			default:
				unexpected = append(unexpected, err)
			}
		})
	}
	wg.Wait()
	if len(unexpected) > 0 {
		t.Fatalf("%d enqueues failed, first: %v", len(unexpected), unexpected[0])
	}
	for i := range n {
		id := fmt.Sprintf("d-%d", i)
		if ok[id] != 1 || dup[id] != 1 {
			t.Errorf("%s: stored %d times, duplicate %d times; want 1 and 1", id, ok[id], dup[id])
		}
	}
	if st := stats(t, r.q); st.Pending != n {
		t.Errorf("%d pending, want %d", st.Pending, n)
	}
	if b := r.q.Store().adds.batched.Load(); b == 0 {
		t.Error("no enqueue went out in a pipeline with others: the test did not exercise the batching")
	} else {
		t.Logf("%d of %d enqueues sent in pipelines with others", b, 2*n)
	}
	if d := r.q.Depth(); d != n {
		t.Errorf("depth %d, want %d (the newest read of the pending count)", d, n)
	}
}
