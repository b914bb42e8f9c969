package webhook

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the body budget's defences (Options).
const (
	// DefaultBodyStallTimeout is how long a body may stop moving before its
	// connection is cut: GitHub sends a delivery's body in one go, so a body
	// with no byte for 5 s is not a delivery in progress.
	DefaultBodyStallTimeout = 5 * time.Second
	// DefaultBodyEvictIdle: when the budget is short, a body that has not
	// moved for this long gives its room up to the request that needs it.
	DefaultBodyEvictIdle = time.Second
	// DefaultBodyEvictAge: when the budget is short, a body still being read
	// after this long gives its room up too, moving or not (GitHub gives the
	// whole delivery 10 s; a body this slow cannot be answered in time, and
	// one trickled a byte at a time to stay "moving" is not a delivery).
	DefaultBodyEvictAge = 5 * time.Second
	// DefaultBodyReserveBytes is the part of the in-flight budget kept for
	// small bodies (smallBody or less, what nearly every delivery is: 5–50
	// KB): a large body never takes it, so however large bodies are held,
	// a typical signed delivery still has room.
	DefaultBodyReserveBytes = 1 << 20
	// smallBody is the largest body that may use the reserve.
	smallBody = maxPooledBody
	// roomWait bounds how long a request waits for evicted bodies to give
	// their room back.
	roomWait = 2 * time.Second
)

// errBodyBudget is readBody's error when the in-flight body budget is spent.
var errBodyBudget = errors.New("webhook: in-flight body budget exhausted")

// errBodyEvicted is readBody's error for a body cut to make room.
var errBodyEvicted = errors.New("webhook: body evicted from the in-flight budget: it stopped moving while others needed the room")

// bodyBudget counts the bytes of body buffers held by requests being read
// and routed, across all connections and per client (remote host).
//
// A budget must not be a lever (issue 20 §2: two connections that each
// declared 16 MiB, sent all but a byte and stalled held all 32 MiB, and
// every real delivery got 503 for as long as they held). Four defences:
//   - a reserve: the last reserve bytes of the budget are only for bodies
//     of smallBody or less, so large stalled bodies never leave a typical
//     delivery without room;
//   - per client: one remote host holds at most perClient bytes, so one
//     client never spends the whole budget;
//   - room on demand: a request that finds the budget short cuts the bodies
//     that stopped moving (idle evictIdle) or have been read for too long
//     (evictAge), and takes the room they give back — a delivery that is
//     being sent is never refused in favour of one that is not;
//   - stall deadline: every read of a body gets a connection read deadline
//     stallTimeout ahead (readBody), so a stalled body is cut even when
//     no one needs its room.
type bodyBudget struct {
	limit     int64
	reserve   int64
	perClient int64
	evictIdle time.Duration
	evictAge  time.Duration
	now       func() time.Time
	// onChange, when set, is told the bytes in use after every change
	// (the in-flight gauge).
	onChange func(int64)

	// used mirrors total for lock-free reads (tests, the gauge).
	used atomic.Int64

	mu       sync.Mutex
	total    int64
	byClient map[string]int64
	holds    map[*bodyHold]struct{}
	// freed is closed (and replaced) whenever bytes are given back.
	freed chan struct{}
}

// bodyHold is one request's share of the budget.
type bodyHold struct {
	client string
	// cut interrupts the request's body read (its connection's read
	// deadline set to the past); nil when the request cannot be cut.
	cut func()
	// Guarded by bodyBudget.mu.
	held     int64
	start    time.Time
	progress time.Time
	evicted  bool
}

func newBodyBudget(limit, reserve, perClient int64, evictIdle, evictAge time.Duration, now func() time.Time) *bodyBudget {
	return &bodyBudget{limit: limit, reserve: reserve, perClient: perClient, evictIdle: evictIdle, evictAge: evictAge, now: now,
		byClient: map[string]int64{}, holds: map[*bodyHold]struct{}{}, freed: make(chan struct{})}
}

// clientOf is the budget's client key of a request's remote address: its
// host (every connection of one machine shares one share).
func clientOf(remoteAddr string) string {
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return host
	}
	return remoteAddr
}

// open registers a request of client; cut interrupts its body read.
func (b *bodyBudget) open(client string, cut func()) *bodyHold {
	now := b.now()
	h := &bodyHold{client: client, cut: cut, start: now, progress: now}
	b.mu.Lock()
	b.holds[h] = struct{}{}
	b.mu.Unlock()
	return h
}

// close gives back everything h holds and forgets it.
func (b *bodyBudget) close(h *bodyHold) {
	b.mu.Lock()
	delete(b.holds, h)
	b.giveLocked(h, h.held)
	b.mu.Unlock()
}

// giveLocked returns n of h's bytes and wakes requests waiting for room.
func (b *bodyBudget) giveLocked(h *bodyHold, n int64) {
	if n == 0 {
		return
	}
	h.held -= n
	b.total -= n
	if b.byClient[h.client] -= n; b.byClient[h.client] <= 0 {
		delete(b.byClient, h.client)
	}
	b.used.Store(b.total)
	if b.onChange != nil {
		b.onChange(b.total)
	}
	close(b.freed)
	b.freed = make(chan struct{})
}

// take reserves n more bytes for h, whose buffer then has size bytes (a
// size above smallBody may not use the reserve). When the whole budget is short (not
// h's client's share: a client does not cut others to pass its own share),
// it cuts the bodies that stopped moving or are too old and waits, at most
// roomWait or until ctx ends, for their room. errBodyBudget when there is
// no room to be had; errBodyEvicted when h itself was cut meanwhile.
func (b *bodyBudget) take(ctx context.Context, h *bodyHold, n, size int64) error {
	limit := b.limit
	if size > smallBody {
		limit -= b.reserve
	}
	var wait *time.Timer
	defer func() {
		if wait != nil {
			wait.Stop()
		}
	}()
	for {
		b.mu.Lock()
		if h.evicted {
			b.mu.Unlock()
			return errBodyEvicted
		}
		if b.byClient[h.client]+n > b.perClient {
			b.mu.Unlock()
			return errBodyBudget
		}
		if b.total+n <= limit {
			h.held += n
			b.total += n
			b.byClient[h.client] += n
			b.used.Store(b.total)
			if b.onChange != nil {
				b.onChange(b.total)
			}
			b.mu.Unlock()
			return nil
		}
		// Short: cut what is not moving, then wait for it to be given back.
		now := b.now()
		cutting := int64(0)
		for o := range b.holds {
			if o == h || o.cut == nil || o.held == 0 {
				continue
			}
			if o.evicted || now.Sub(o.progress) >= b.evictIdle || now.Sub(o.start) >= b.evictAge {
				if !o.evicted {
					o.evicted = true
					o.cut()
				}
				cutting += o.held
			}
		}
		freed := b.freed
		b.mu.Unlock()
		if cutting == 0 {
			return errBodyBudget // every holder is moving: refuse, as before
		}
		if wait == nil {
			wait = time.NewTimer(roomWait)
		}
		select {
		case <-freed:
		case <-wait.C:
			return errBodyBudget
		case <-ctx.Done():
			return errBodyBudget
		}
	}
}

// moved records that h's body received bytes, and then runs arm (which
// sets the connection's next stall deadline) unless h has been cut: under
// the lock, so a cut's past deadline is never overwritten by a new one.
func (b *bodyBudget) moved(h *bodyHold, arm func()) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h.evicted {
		return errBodyEvicted
	}
	h.progress = b.now()
	if arm != nil {
		arm()
	}
	return nil
}

// wasEvicted reports whether h was cut to make room.
func (h *bodyHold) wasEvicted(b *bodyBudget) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return h.evicted
}
