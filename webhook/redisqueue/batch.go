package redisqueue

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Webhook acknowledgement waits for the delivery's jobs to be stored in
// Redis (one enqueueScript call). A burst of concurrent deliveries, each
// sending its own call, needs as many pool connections as deliveries in
// flight (go-redis keeps 10 per CPU): the rest queue for a connection, and
// every call is a write and a read on each side. enqueueBatcher sends the
// calls that arrive while others are in flight together, as one pipeline
// on one connection: each call is still its own atomic script on the
// server (the batch adds no ordering that concurrent calls did not have),
// and a lone delivery goes out at once, unbatched.

// maxEnqueueBatches is how many pipelines of enqueues may be in flight at
// once (each on its own connection); more calls wait for one to return
// and go in the next.
const maxEnqueueBatches = 4

// maxEnqueueBatch bounds the calls of one pipeline.
const maxEnqueueBatch = 128

// batchTimeout bounds one pipeline (the queue's store timeout).
const batchTimeout = 5 * time.Second

// enqueueBatcher groups concurrent enqueueScript calls into pipelines.
type enqueueBatcher struct {
	rdb redis.UniversalClient

	mu       sync.Mutex
	waiting  []*enqueueCall
	inFlight int
	// batched counts the calls sent in pipelines of more than one.
	batched atomic.Int64
}

// enqueueCall is one caller's script call and its reply.
type enqueueCall struct {
	keys []string
	args []any
	res  []any
	err  error
	done chan struct{} // closed when res and err are set
	// lead is closed when this caller is to send batch (itself first).
	lead  chan struct{}
	batch []*enqueueCall
}

// run calls enqueueScript with keys and args, batched with the calls of
// other callers in flight at the same time. The batch is bounded by
// batchTimeout (ctx is checked first; its values pass on).
func (b *enqueueBatcher) run(ctx context.Context, keys []string, args []any) ([]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &enqueueCall{keys: keys, args: args, done: make(chan struct{}), lead: make(chan struct{})}
	b.mu.Lock()
	if b.inFlight < maxEnqueueBatches {
		b.inFlight++
		b.mu.Unlock()
		b.send(ctx, []*enqueueCall{c})
		return c.res, c.err
	}
	b.waiting = append(b.waiting, c)
	b.mu.Unlock()
	// A batch in flight returns soon: then this call goes in the next,
	// sent by this caller (promoted) or by the one whose turn it is. It
	// does not leave the line early (a promoted caller that left would
	// stall the ones behind it); the pipelines are bounded by batchTimeout.
	select {
	case <-c.done:
	case <-c.lead:
		b.send(ctx, c.batch)
	}
	<-c.done
	return c.res, c.err
}

// send sends batch as one pipeline (a lone call as itself), then hands
// the turn to the first waiting call with the next batch, or gives it up.
func (b *enqueueBatcher) send(ctx context.Context, batch []*enqueueCall) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
	defer cancel()
	if len(batch) == 1 {
		c := batch[0]
		c.res, c.err = enqueueScript.Run(bctx, b.rdb, c.keys, c.args...).Slice()
		close(c.done)
	} else {
		b.batched.Add(int64(len(batch)))
		pipe := b.rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(batch))
		for i, c := range batch {
			cmds[i] = enqueueScript.EvalSha(bctx, pipe, c.keys, c.args...)
		}
		_, _ = pipe.Exec(bctx) // each command's error is its caller's
		for i, c := range batch {
			c.res, c.err = cmds[i].Slice()
			if c.err != nil && strings.HasPrefix(c.err.Error(), "NOSCRIPT") {
				// The script is not cached on this server yet (a restart,
				// a failover): Run loads it.
				c.res, c.err = enqueueScript.Run(bctx, b.rdb, c.keys, c.args...).Slice()
			}
			close(c.done)
		}
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiting) == 0 {
		b.inFlight--
		return
	}
	n := min(len(b.waiting), maxEnqueueBatch)
	next := b.waiting[:n:n]
	b.waiting = b.waiting[n:]
	next[0].batch = next
	close(next[0].lead) // its caller sends the next batch
}
