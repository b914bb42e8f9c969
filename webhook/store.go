package webhook

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/shipgate-app/shipgate/app"
)

// Store is where a StoreQueue keeps its jobs. The queue's lifecycle
// (workers, attempts, timeouts, retries with backoff, leases and their
// heartbeat, reclaiming, failure and supersession reports, shutdown) is
// written once, in StoreQueue; a Store only keeps the state, and every
// method is one atomic step on it. Two implementations exist: MemoryStore
// (in process) and the Redis store of webhook/redisqueue (shared by
// replicas), and one test suite (internal/queuetest) runs against both.
//
// The state, for each job key (app.Job.Key):
//   - at most one pending job, with the number of attempts it has had and
//     the earliest time it may start (backoff);
//   - at most one running job, owned by a lease token until a lease
//     expiry (extended by Heartbeat);
//   - a pending key that is not running is ready: Claim takes the ready key
//     that became ready first among those whose time has come.
//
// plus the delivery IDs accepted within a TTL (de-duplication).
type Store interface {
	// Add admits jobs all-or-nothing: AddFull when their new keys would
	// pass the capacity (a key already pending does not count again),
	// AddDuplicate when deliveryID (if not empty) was accepted within the
	// TTL. Otherwise a pending job of the same key is replaced (the newest
	// wins, keeps its place in line, and a pending retry's backoff is
	// cancelled), new keys become ready unless running, and deliveryID is
	// recorded, all in one step.
	Add(ctx context.Context, deliveryID string, jobs []app.Job) (AddResult, error)
	// Claim leases the first ready job whose time has come, under token,
	// for lease. With none, it returns a nil Claim and how long until the
	// next pending job is due (-1: none is pending).
	Claim(ctx context.Context, token string, lease time.Duration) (*Claim, time.Duration, error)
	// Finish ends the job key holds under token for good (succeeded, or
	// failed after its last attempt) and adds followUps in the same step
	// (all-or-nothing against the capacity: FinishFull changes nothing);
	// forgetDelivery, when not empty, is forgotten, so that a manual
	// redelivery of it runs. FinishLost: the token no longer owns the key.
	Finish(ctx context.Context, key, token string, followUps []app.Job, forgetDelivery string) (FinishResult, error)
	// Release settles a failed or interrupted attempt (see ReleaseMode). A
	// newer pending job for the key supersedes the failed one in every
	// mode (ReleaseSuperseded: the lease is ended).
	Release(ctx context.Context, key, token string, mode ReleaseMode, delay time.Duration) (ReleaseStatus, error)
	// Heartbeat extends the leases held (key → token) to now + lease and
	// returns the keys whose lease the token no longer holds.
	Heartbeat(ctx context.Context, lease time.Duration, held map[string]string) ([]string, error)
	// Reclaim puts the jobs of expired leases back (ready at once, the
	// interrupted attempt counted) or, when a newer job is pending, drops
	// them as superseded.
	Reclaim(ctx context.Context) ([]Reclaimed, error)
	// Stats counts pending and running jobs.
	Stats(ctx context.Context) (QueueStats, error)
	// Depth is the number of pending jobs as last known (exact in memory;
	// refreshed by Stats and Add for a remote store).
	Depth() int
	// Durable reports whether jobs outlive the process: a durable store's
	// queue keeps accepting jobs while shutting down, and hands running
	// jobs back instead of draining pending ones.
	Durable() bool
	// Ready reports whether the store can be used (for /readyz).
	Ready(ctx context.Context) error
	// Watch calls poke whenever another process may have made a job
	// runnable, until ctx ends. An in-process store returns at once: the
	// queue pokes itself.
	Watch(ctx context.Context, poke func())
	// TakePending removes and returns every pending job (a non-durable
	// queue abandoning them at a shutdown deadline). A durable store
	// returns nothing: its jobs stay for the other replicas.
	TakePending(ctx context.Context) []app.Job
}

// AddStatus is Store.Add's verdict.
type AddStatus int

// Add verdicts.
const (
	AddOK AddStatus = iota
	AddDuplicate
	AddFull
)

// AddResult is what Store.Add did.
type AddResult struct {
	Status AddStatus
	// Replaced is how many pending jobs a newer job replaced.
	Replaced int
	// Started are the replaced jobs that had started before (a retry, or
	// a job recovered from an expired lease): each may have left a check
	// run open, which the queue reports (SupersededReporter).
	Started []app.Job
	// Skipped are the jobs not stored because a job of another delivery
	// had already marked their head within the TTL (app.Job.HeadMark): the
	// head is queued, running or evaluated already.
	Skipped []app.Job
}

// Claim is a job leased by Store.Claim.
type Claim struct {
	Key, Token string
	// Attempt is this attempt's number, 1 for the first.
	Attempt int
	Job     app.Job
	// Unreadable is set when the stored job cannot be decoded (written by
	// an incompatible version): the queue drops it, loudly.
	Unreadable error
}

// FinishStatus is Store.Finish's verdict.
type FinishStatus int

// Finish verdicts.
const (
	FinishOK FinishStatus = iota
	FinishLost
	FinishFull
)

// FinishResult is what Store.Finish did.
type FinishResult struct {
	Status FinishStatus
	// Started: as in AddResult, for the follow-ups.
	Started []app.Job
}

// ReleaseMode says how Store.Release settles an attempt.
type ReleaseMode string

// Release modes.
const (
	// ReleaseRetry counts the attempt and makes the job ready after the delay.
	ReleaseRetry ReleaseMode = "retry"
	// ReleaseFinal keeps the lease (the last attempt failed): the caller
	// reports the failure, then calls Finish.
	ReleaseFinal ReleaseMode = "final"
	// ReleaseHandBack (shutdown) does not count the attempt: the job is
	// ready at once, for another replica, marked app.Job.Resumed (the
	// attempt may have published before it was interrupted: the next one
	// looks first).
	ReleaseHandBack ReleaseMode = "handback"
)

// ReleaseStatus is Store.Release's verdict: the mode it applied, or
// ReleaseSuperseded, or ReleaseLost.
type ReleaseStatus string

// Release verdicts besides the modes themselves.
const (
	ReleaseSuperseded ReleaseStatus = "superseded"
	ReleaseLost       ReleaseStatus = "lost"
)

// Reclaimed is a job Store.Reclaim took back from an expired lease.
type Reclaimed struct {
	Key, Token string
	Attempt    int
	// Superseded: a newer job was pending, so the interrupted one was
	// dropped; Job is the interrupted job (it had started).
	Superseded bool
	Job        app.Job
}

// QueueStats is a snapshot of a queue's size.
type QueueStats struct {
	Pending int // jobs waiting (one per key), retries in backoff included
	Running int // jobs holding a lease, on any replica
}

// MemoryStoreOptions configures a MemoryStore. Zero values take defaults.
type MemoryStoreOptions struct {
	// Capacity bounds pending jobs (distinct keys); DefaultQueueCapacity.
	Capacity int
	// DedupTTL is how long a delivery ID is remembered (DefaultDedupTTL).
	DedupTTL time.Duration
	// DedupSize bounds the remembered delivery IDs (DefaultDedupSize); the
	// oldest is forgotten first.
	DedupSize int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// MemoryStore is the in-process Store: the same state as the Redis store,
// in maps under one mutex. Several StoreQueues may share one (as replicas
// share a Redis), which the shared test suite uses.
type MemoryStore struct {
	capacity int
	ttl      time.Duration
	now      func() time.Time

	mu      sync.Mutex
	seq     uint64
	pending map[string]*memPending
	running map[string]*memRunning
	seen    *simplelru.LRU[string, time.Time] // delivery ID → expiry
	heads   *simplelru.LRU[string, headMark]  // app.Job.HeadMark → who marked it, until when

	// j, when set (FileStore), receives every change before the method
	// that made it returns: dirty and dirtySeen collect the job keys and
	// delivery IDs a method changed, and commitLocked stages their new
	// state in the journal.
	j          *journal
	dirty      map[string]struct{}
	dirtySeen  map[string]struct{}
	dirtyHeads map[string]struct{}
}

// headMark is a marked head: the delivery whose job marked it, and when
// the mark expires.
type headMark struct {
	delivery string
	exp      time.Time
}

type memPending struct {
	job      app.Job
	attempts int       // attempts already made
	at       time.Time // earliest start
	seq      uint64    // place in line (kept when replaced)
}

type memRunning struct {
	token   string
	attempt int
	job     app.Job
	expiry  time.Time
}

// touch records that key's pending or running job changed (for the journal).
func (s *MemoryStore) touch(key string) {
	if s.j != nil {
		s.dirty[key] = struct{}{}
	}
}

// touchSeen records that a remembered delivery ID changed (for the journal).
func (s *MemoryStore) touchSeen(id string) {
	if s.j != nil {
		s.dirtySeen[id] = struct{}{}
	}
}

// touchHead records that a head mark changed (for the journal).
func (s *MemoryStore) touchHead(mark string) {
	if s.j != nil {
		s.dirtyHeads[mark] = struct{}{}
	}
}

// commitLocked stages what the current method changed in the journal and
// returns the version to wait for (0: nothing to wait for).
func (s *MemoryStore) commitLocked() uint64 {
	if s.j == nil || (len(s.dirty) == 0 && len(s.dirtySeen) == 0 && len(s.dirtyHeads) == 0) {
		return 0
	}
	v := s.j.stage(s, s.dirty, s.dirtySeen, s.dirtyHeads)
	clear(s.dirty)
	clear(s.dirtySeen)
	clear(s.dirtyHeads)
	return v
}

// durable waits until version v of the journal is on disk (nil at once
// without a journal).
func (s *MemoryStore) durable(v uint64) error {
	if s.j == nil || v == 0 {
		return nil
	}
	return s.j.wait(v)
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore builds a MemoryStore.
func NewMemoryStore(opts MemoryStoreOptions) (*MemoryStore, error) {
	if opts.Capacity < 0 || opts.DedupTTL < 0 || opts.DedupSize < 0 {
		return nil, fmt.Errorf("webhook: memory store: negative capacity (%d), dedup TTL (%s) or dedup size (%d)",
			opts.Capacity, opts.DedupTTL, opts.DedupSize)
	}
	if opts.Capacity == 0 {
		opts.Capacity = DefaultQueueCapacity
	}
	if opts.DedupTTL == 0 {
		opts.DedupTTL = DefaultDedupTTL
	}
	if opts.DedupSize == 0 {
		opts.DedupSize = DefaultDedupSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &MemoryStore{capacity: opts.Capacity, ttl: opts.DedupTTL, now: opts.Now,
		pending: map[string]*memPending{}, running: map[string]*memRunning{},
		dirty: map[string]struct{}{}, dirtySeen: map[string]struct{}{}, dirtyHeads: map[string]struct{}{}}
	// An ID the LRU forgets (the oldest, past DedupSize) is forgotten by
	// the journal too.
	seen, err := simplelru.NewLRU[string, time.Time](opts.DedupSize, func(id string, _ time.Time) { s.touchSeen(id) })
	if err != nil {
		return nil, fmt.Errorf("webhook: memory store: %w", err)
	}
	heads, err := simplelru.NewLRU[string, headMark](opts.DedupSize, func(m string, _ headMark) { s.touchHead(m) })
	if err != nil {
		return nil, fmt.Errorf("webhook: memory store: %w", err)
	}
	s.seen, s.heads = seen, heads
	return s, nil
}

// fitsLocked reports whether jobs fit the capacity.
func (s *MemoryStore) fitsLocked(jobs []app.Job) bool {
	fresh := map[string]bool{}
	for _, j := range jobs {
		if k := j.Key(); s.pending[k] == nil {
			fresh[k] = true
		}
	}
	return len(s.pending)+len(fresh) <= s.capacity
}

// addLocked stores jobs (see Store.Add).
func (s *MemoryStore) addLocked(jobs []app.Job, now time.Time) (int, []app.Job) {
	replaced, started := 0, []app.Job(nil)
	for _, j := range jobs {
		k := j.Key()
		if old := s.pending[k]; old != nil {
			s.touch(k)
			replaced++
			if old.attempts > 0 {
				started = append(started, old.job)
			}
			old.job, old.attempts = j, 0
			if old.at.After(now) {
				old.at = now
			}
			continue
		}
		s.seq++
		s.pending[k] = &memPending{job: j, at: now, seq: s.seq}
		s.touch(k)
	}
	return replaced, started
}

// Add implements Store.
func (s *MemoryStore) Add(_ context.Context, deliveryID string, jobs []app.Job) (AddResult, error) {
	s.mu.Lock()
	now := s.now()
	if deliveryID != "" {
		if exp, ok := s.seen.Peek(deliveryID); ok && now.Before(exp) {
			s.mu.Unlock()
			return AddResult{Status: AddDuplicate}, nil
		}
	}
	kept, skipped := s.unmarkedLocked(jobs, now)
	if !s.fitsLocked(kept) {
		s.mu.Unlock()
		return AddResult{Status: AddFull}, nil
	}
	r, started := s.addLocked(kept, now)
	for _, j := range kept {
		if m, _ := j.HeadMark(); m != "" {
			s.heads.Add(m, headMark{delivery: j.DeliveryID, exp: now.Add(s.ttl)})
			s.touchHead(m)
		}
	}
	if deliveryID != "" {
		s.seen.Add(deliveryID, now.Add(s.ttl))
		s.touchSeen(deliveryID)
	}
	v := s.commitLocked()
	s.mu.Unlock()
	if err := s.durable(v); err != nil {
		return AddResult{}, err
	}
	return AddResult{Status: AddOK, Replaced: r, Started: started, Skipped: skipped}, nil
}

// unmarkedLocked splits jobs into those to store and those whose head a
// job of another delivery marked within the TTL (see app.Job.HeadMark).
func (s *MemoryStore) unmarkedLocked(jobs []app.Job, now time.Time) (kept, skipped []app.Job) {
	for _, j := range jobs {
		if m, skippable := j.HeadMark(); skippable {
			if hm, ok := s.heads.Peek(m); ok && now.Before(hm.exp) && hm.delivery != j.DeliveryID {
				skipped = append(skipped, j)
				continue
			}
		}
		kept = append(kept, j)
	}
	return kept, skipped
}

// Claim implements Store.
func (s *MemoryStore) Claim(_ context.Context, token string, lease time.Duration) (*Claim, time.Duration, error) {
	s.mu.Lock()
	now := s.now()
	var best *memPending
	bestKey := ""
	wait := time.Duration(-1)
	for k, p := range s.pending {
		if s.running[k] != nil {
			continue
		}
		if d := p.at.Sub(now); d > 0 {
			if wait < 0 || d < wait {
				wait = d
			}
			continue
		}
		if best == nil || p.seq < best.seq {
			best, bestKey = p, k
		}
	}
	if best == nil {
		s.mu.Unlock()
		return nil, wait, nil
	}
	delete(s.pending, bestKey)
	attempt := best.attempts + 1
	s.running[bestKey] = &memRunning{token: token, attempt: attempt, job: best.job, expiry: now.Add(lease)}
	s.touch(bestKey)
	v := s.commitLocked()
	s.mu.Unlock()
	// Journaled before the job runs, so that an attempt a crash interrupts
	// counts (a job that kills its process every time ends too).
	if err := s.durable(v); err != nil {
		return nil, 0, err
	}
	return &Claim{Key: bestKey, Token: token, Attempt: attempt, Job: best.job}, 0, nil
}

// ownedLocked returns key's running entry when token owns it.
func (s *MemoryStore) ownedLocked(key, token string) *memRunning {
	if r := s.running[key]; r != nil && r.token == token {
		return r
	}
	return nil
}

// Finish implements Store.
func (s *MemoryStore) Finish(_ context.Context, key, token string, followUps []app.Job, forgetDelivery string) (FinishResult, error) {
	s.mu.Lock()
	if s.ownedLocked(key, token) == nil {
		s.mu.Unlock()
		return FinishResult{Status: FinishLost}, nil
	}
	if !s.fitsLocked(followUps) {
		s.mu.Unlock()
		return FinishResult{Status: FinishFull}, nil
	}
	delete(s.running, key)
	s.touch(key)
	_, started := s.addLocked(followUps, s.now())
	if forgetDelivery != "" {
		s.seen.Remove(forgetDelivery)
		s.touchSeen(forgetDelivery)
	}
	v := s.commitLocked()
	s.mu.Unlock()
	if err := s.durable(v); err != nil {
		return FinishResult{}, err
	}
	return FinishResult{Status: FinishOK, Started: started}, nil
}

// Release implements Store.
func (s *MemoryStore) Release(_ context.Context, key, token string, mode ReleaseMode, delay time.Duration) (ReleaseStatus, error) {
	s.mu.Lock()
	r := s.ownedLocked(key, token)
	if r == nil {
		s.mu.Unlock()
		return ReleaseLost, nil
	}
	if mode == ReleaseFinal && s.pending[key] == nil {
		s.mu.Unlock()
		return ReleaseStatus(ReleaseFinal), nil
	}
	st := ReleaseStatus(mode)
	if s.pending[key] != nil {
		delete(s.running, key)
		st = ReleaseSuperseded
	} else {
		now := s.now()
		tries, at, job := r.attempt, now.Add(delay), r.job
		if mode == ReleaseHandBack {
			tries, at = r.attempt-1, now
			job.Resumed = true // an attempt had started (see ReleaseHandBack)
		}
		delete(s.running, key)
		s.seq++
		s.pending[key] = &memPending{job: job, attempts: tries, at: at, seq: s.seq}
	}
	s.touch(key)
	v := s.commitLocked()
	s.mu.Unlock()
	if err := s.durable(v); err != nil {
		return "", err
	}
	return st, nil
}

// Heartbeat implements Store.
func (s *MemoryStore) Heartbeat(_ context.Context, lease time.Duration, held map[string]string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var lost []string
	for k, token := range held {
		if r := s.ownedLocked(k, token); r != nil {
			r.expiry = now.Add(lease)
		} else {
			lost = append(lost, k)
		}
	}
	return lost, nil
}

// Reclaim implements Store.
func (s *MemoryStore) Reclaim(context.Context) ([]Reclaimed, error) {
	s.mu.Lock()
	out := s.reclaimLocked()
	v := s.commitLocked()
	s.mu.Unlock()
	if err := s.durable(v); err != nil {
		return nil, err
	}
	return out, nil
}

// reclaimLocked puts the jobs of expired leases back (see Reclaim).
func (s *MemoryStore) reclaimLocked() []Reclaimed {
	now := s.now()
	var out []Reclaimed
	for k, r := range s.running {
		if r.expiry.After(now) {
			continue
		}
		delete(s.running, k)
		s.touch(k)
		if p := s.pending[k]; p != nil {
			out = append(out, Reclaimed{Key: k, Token: r.token, Attempt: r.attempt, Superseded: true, Job: r.job})
			continue
		}
		s.seq++
		s.pending[k] = &memPending{job: r.job, attempts: r.attempt, at: now, seq: s.seq}
		out = append(out, Reclaimed{Key: k, Token: r.token, Attempt: r.attempt, Job: r.job})
	}
	return out
}

// Stats implements Store.
func (s *MemoryStore) Stats(context.Context) (QueueStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return QueueStats{Pending: len(s.pending), Running: len(s.running)}, nil
}

// Depth implements Store.
func (s *MemoryStore) Depth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Durable reports false: the jobs die with the process.
func (s *MemoryStore) Durable() bool { return false }

// Ready implements Store; memory is always usable.
func (s *MemoryStore) Ready(context.Context) error { return nil }

// Watch implements Store: nothing outside the process changes the state.
func (s *MemoryStore) Watch(context.Context, func()) {}

// TakePending implements Store, in order of their place in line.
func (s *MemoryStore) TakePending(context.Context) []app.Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := make([]*memPending, 0, len(s.pending))
	for _, p := range s.pending {
		ps = append(ps, p)
	}
	clear(s.pending)
	slices.SortFunc(ps, func(a, b *memPending) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]app.Job, len(ps))
	for i, p := range ps {
		out[i] = p.job
	}
	return out
}
