package webhook

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/shipgate-app/shipgate/app"
)

// FileStore is the Store of a single App process whose accepted jobs must
// survive a restart: the MemoryStore's state, every change of which is
// written to an embedded database (bbolt, one file in a directory) and
// synced to disk before the method that made it returns. A delivery is
// therefore answered 202 only once its jobs are on disk, a SIGTERM or a
// crash loses nothing accepted, and a restarted process runs what the last
// one left:
//
//   - pending jobs keep their place in line, their attempts and their
//     backoff;
//   - jobs running when the process died come back as expired leases: the
//     first Reclaim (the queue's Run calls it at once) puts each back with
//     the interrupted attempt counted, or reports it superseded when a
//     newer job for its key is pending — as a dead replica's jobs with
//     Redis;
//   - accepted delivery IDs (and the heads they queued, app.Job.Once) stay
//     remembered for their TTL, so GitHub's redelivery of a delivery the
//     last process accepted is a duplicate, not a second run.
//
// Concurrent changes share one disk sync (group commit), so a burst of
// deliveries costs a sync per batch, not per delivery. One process at a
// time may open a directory: the database file is locked, and a second
// process waits up to LockTimeout, then fails to start with a message
// naming the directory. It is Durable, so the queue treats it as Redis:
// deliveries are accepted while the process shuts down, and running jobs
// it cannot finish in the shutdown grace are handed back instead of
// abandoned.
type FileStore struct {
	*MemoryStore
	db   *bolt.DB
	path string
	// Loaded is what OpenFileStore found on disk.
	Loaded FileStoreLoad
}

// FileStoreLoad is what OpenFileStore found in the directory.
type FileStoreLoad struct {
	// Pending and Running are the jobs the previous process left waiting
	// and running; Deliveries the delivery IDs (and heads) still
	// remembered; Unreadable the records it could not decode (written by
	// an incompatible version), dropped.
	Pending, Running, Deliveries, Unreadable int
}

// FileStoreOptions configures OpenFileStore. Zero values take the
// MemoryStore's defaults.
type FileStoreOptions struct {
	// Dir is the directory of the database (created, mode 0700, if
	// missing). Required.
	Dir string
	// Capacity, DedupTTL, DedupSize and Now: as in MemoryStoreOptions.
	Capacity  int
	DedupTTL  time.Duration
	DedupSize int
	Now       func() time.Time
	// LockTimeout is how long to wait for another process holding the
	// directory (default 30 s: an old process finishing its shutdown).
	LockTimeout time.Duration
}

// FileStoreName is the database file in FileStoreOptions.Dir.
const FileStoreName = "queue.db"

// Buckets of the database: one record per job key in pending and in
// running (a key can have one of each: a newer push waiting behind a
// running job), one per remembered delivery ID in seen, and small records
// of other parts of the App in meta.
var (
	bucketPending = []byte("pending")
	bucketRunning = []byte("running")
	bucketSeen    = []byte("seen")
	bucketHeads   = []byte("heads")
	bucketMeta    = []byte("meta")
)

// headRecord is a head mark's value (JSON).
type headRecord struct {
	Delivery string `json:"delivery"`
	ExpMS    int64  `json:"exp_ms"`
}

// pendingRecord and runningRecord are the database's values (JSON).
type pendingRecord struct {
	Job      app.Job `json:"job"`
	Attempts int     `json:"attempts"`
	AtMS     int64   `json:"at_ms"`
	Seq      uint64  `json:"seq"`
}

type runningRecord struct {
	Token   string  `json:"token"`
	Attempt int     `json:"attempt"`
	Job     app.Job `json:"job"`
}

var _ Store = (*FileStore)(nil)

// OpenFileStore opens (or creates) the queue database in opts.Dir and
// loads what the previous process left there.
func OpenFileStore(opts FileStoreOptions) (*FileStore, error) {
	if opts.Dir == "" {
		return nil, errors.New("webhook: file store: no directory")
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 30 * time.Second
	}
	ms, err := NewMemoryStore(MemoryStoreOptions{Capacity: opts.Capacity, DedupTTL: opts.DedupTTL, DedupSize: opts.DedupSize, Now: opts.Now})
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("webhook: queue directory %s: %w", opts.Dir, err)
	}
	path := filepath.Join(opts.Dir, FileStoreName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("webhook: queue database %s is held by another process (waited %s): one shipgate process per --queue-dir; stop the other one or give this one its own directory", path, opts.LockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("webhook: opening the queue database %s: %w", path, err)
	}
	fs := &FileStore{MemoryStore: ms, db: db, path: path}
	if err := fs.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("webhook: reading the queue database %s: %w", path, err)
	}
	ms.j = newJournal(db)
	return fs, nil
}

// load fills the memory state from the database (before the journal is
// attached, so nothing is written back but the clean-up of expired and
// unreadable records).
func (f *FileStore) load() error {
	s := f.MemoryStore
	now := s.now()
	type seenRec struct {
		id  string
		exp time.Time
	}
	var seen []seenRec
	return f.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketPending, bucketRunning, bucketSeen, bucketHeads, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		var drop [][2][]byte // bucket, key
		err := tx.Bucket(bucketPending).ForEach(func(k, v []byte) error {
			var r pendingRecord
			if err := json.Unmarshal(v, &r); err != nil {
				f.Loaded.Unreadable++
				drop = append(drop, [2][]byte{bucketPending, slices.Clone(k)})
				return nil
			}
			r.Job.Resumed = true
			s.pending[string(k)] = &memPending{job: r.Job, attempts: r.Attempts, at: time.UnixMilli(r.AtMS), seq: r.Seq}
			s.seq = max(s.seq, r.Seq)
			f.Loaded.Pending++
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Bucket(bucketRunning).ForEach(func(k, v []byte) error {
			var r runningRecord
			if err := json.Unmarshal(v, &r); err != nil {
				f.Loaded.Unreadable++
				drop = append(drop, [2][]byte{bucketRunning, slices.Clone(k)})
				return nil
			}
			// Its process died mid-run: an expired lease, which the
			// queue's first Reclaim takes back.
			r.Job.Resumed = true
			s.running[string(k)] = &memRunning{token: r.Token, attempt: r.Attempt, job: r.Job}
			f.Loaded.Running++
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Bucket(bucketSeen).ForEach(func(k, v []byte) error {
			if len(v) != 8 {
				drop = append(drop, [2][]byte{bucketSeen, slices.Clone(k)})
				return nil
			}
			exp := time.UnixMilli(int64(binary.BigEndian.Uint64(v)))
			if !now.Before(exp) {
				drop = append(drop, [2][]byte{bucketSeen, slices.Clone(k)})
				return nil
			}
			seen = append(seen, seenRec{string(k), exp})
			return nil
		})
		if err != nil {
			return err
		}
		type headRec struct {
			mark string
			headMark
		}
		var heads []headRec
		err = tx.Bucket(bucketHeads).ForEach(func(k, v []byte) error {
			var r headRecord
			if err := json.Unmarshal(v, &r); err != nil || !now.Before(time.UnixMilli(r.ExpMS)) {
				drop = append(drop, [2][]byte{bucketHeads, slices.Clone(k)})
				return nil
			}
			heads = append(heads, headRec{string(k), headMark{delivery: r.Delivery, exp: time.UnixMilli(r.ExpMS)}})
			return nil
		})
		if err != nil {
			return err
		}
		slices.SortFunc(heads, func(a, b headRec) int { return a.exp.Compare(b.exp) })
		for _, h := range heads {
			s.heads.Add(h.mark, h.headMark)
		}
		// Oldest first, so the LRU forgets the same ones it would have.
		slices.SortFunc(seen, func(a, b seenRec) int { return a.exp.Compare(b.exp) })
		for _, r := range seen {
			s.seen.Add(r.id, r.exp)
		}
		f.Loaded.Deliveries = s.seen.Len()
		for _, d := range drop {
			if err := tx.Bucket(d[0]).Delete(d[1]); err != nil {
				return err
			}
		}
		return nil
	})
}

// Durable reports true: the jobs are on disk and a restarted process runs
// them.
func (f *FileStore) Durable() bool { return true }

// Ready reports whether the database can still be written.
func (f *FileStore) Ready(context.Context) error {
	if err := f.j.failed(); err != nil {
		return fmt.Errorf("the queue database %s cannot be written: %w", f.path, err)
	}
	return nil
}

// TakePending implements Store: pending jobs stay on disk for the next
// process.
func (f *FileStore) TakePending(context.Context) []app.Job { return nil }

// Close closes the database; call it after the queue has stopped.
func (f *FileStore) Close() error { return f.db.Close() }

// Path is the database file.
func (f *FileStore) Path() string { return f.path }

// sweepCursorKey is the sweep cursor's record in the meta bucket.
var sweepCursorKey = []byte("sweep_cursor")

// LoadSweepCursor implements app.SweepCursorStore: where the last sweep
// of this process, or of the one before a restart, stopped.
func (f *FileStore) LoadSweepCursor(context.Context) (app.SweepCursor, error) {
	var c app.SweepCursor
	err := f.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(sweepCursorKey)
		if v == nil {
			return nil
		}
		return json.Unmarshal(v, &c)
	})
	if err != nil {
		return app.SweepCursor{}, fmt.Errorf("webhook: reading the sweep cursor from %s: %w", f.path, err)
	}
	return c, nil
}

// SaveSweepCursor implements app.SweepCursorStore.
func (f *FileStore) SaveSweepCursor(_ context.Context, c app.SweepCursor) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := f.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(sweepCursorKey, b) }); err != nil {
		return fmt.Errorf("webhook: recording the sweep cursor in %s: %w", f.path, err)
	}
	return nil
}

// journal writes a MemoryStore's changes to the database. Changes are
// staged under the store's lock (so in the order they were made, the
// newest state of a record winning) and written by whichever waiter finds
// no write under way: every change staged by then goes into one
// transaction and one sync (group commit).
type journal struct {
	db *bolt.DB

	mu        sync.Mutex
	cond      *sync.Cond
	staged    map[journalKey][]byte // nil value: delete
	version   uint64                // of the newest staged change
	committed uint64                // every change up to it is on disk (or failed)
	writing   bool
	err       error // the first failed write: the store is broken from then on
}

type journalKey struct {
	bucket string
	key    string
}

func newJournal(db *bolt.DB) *journal {
	j := &journal{db: db, staged: map[journalKey][]byte{}}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// stage records the current state of the given job keys and delivery IDs
// of s (whose lock the caller holds) and returns the version to wait for.
func (j *journal) stage(s *MemoryStore, keys, ids, marks map[string]struct{}) uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k := range keys {
		var pv, rv []byte
		if p := s.pending[k]; p != nil {
			pv, _ = json.Marshal(pendingRecord{Job: p.job, Attempts: p.attempts, AtMS: p.at.UnixMilli(), Seq: p.seq})
		}
		if r := s.running[k]; r != nil {
			rv, _ = json.Marshal(runningRecord{Token: r.token, Attempt: r.attempt, Job: r.job})
		}
		j.staged[journalKey{string(bucketPending), k}] = pv
		j.staged[journalKey{string(bucketRunning), k}] = rv
	}
	for id := range ids {
		var v []byte
		if exp, ok := s.seen.Peek(id); ok {
			v = binary.BigEndian.AppendUint64(nil, uint64(exp.UnixMilli()))
		}
		j.staged[journalKey{string(bucketSeen), id}] = v
	}
	for m := range marks {
		var v []byte
		if hm, ok := s.heads.Peek(m); ok {
			v, _ = json.Marshal(headRecord{Delivery: hm.delivery, ExpMS: hm.exp.UnixMilli()})
		}
		j.staged[journalKey{string(bucketHeads), m}] = v
	}
	j.version++
	return j.version
}

// wait returns once version v is on disk, writing it (and whatever else is
// staged) itself when no other waiter is.
func (j *journal) wait(v uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.committed < v && j.err == nil {
		if j.writing {
			j.cond.Wait()
			continue
		}
		batch, upTo := j.staged, j.version
		j.staged = make(map[journalKey][]byte, len(batch))
		j.writing = true
		j.mu.Unlock()
		err := j.db.Update(func(tx *bolt.Tx) error {
			// In a fixed order: bbolt writes sorted keys cheapest.
			keys := make([]journalKey, 0, len(batch))
			for k := range batch {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b journalKey) int {
				return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.key, b.key))
			})
			for _, k := range keys {
				b := tx.Bucket([]byte(k.bucket))
				var err error
				if v := batch[k]; v == nil {
					err = b.Delete([]byte(k.key))
				} else {
					err = b.Put([]byte(k.key), v)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		j.mu.Lock()
		j.writing = false
		if err != nil && j.err == nil {
			j.err = err
		}
		j.committed = max(j.committed, upTo)
		j.cond.Broadcast()
	}
	if j.err != nil {
		return fmt.Errorf("webhook: writing the queue database: %w", j.err)
	}
	return nil
}

// failed is the write error that broke the journal, if any.
func (j *journal) failed() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
