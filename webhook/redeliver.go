package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/app"
)

// GitHub never redelivers a failed webhook delivery on its own. A delivery
// this App answered 503 (queue full, shutting down, the shared queue
// unreachable) or never answered (crashed, deployed, network) would leave its
// pull request without a check run. The Redeliverer closes that gap with the
// API GitHub gives an App for exactly this: it lists the App's own recent
// deliveries (GET /app/hook/deliveries, newest first, cursor-paginated) and
// asks for another attempt of each that failed for a reason that can pass
// (POST /app/hook/deliveries/{id}/attempts), when the queue has room again.
//
// Deliveries the Server refused for capacity are also remembered here with
// their job keys (Refused), so that of several refused deliveries about one
// pull request only the newest is redelivered: the job of a PR evaluates its
// newest head anyway, and a burst of 10,000 deliveries about 2,000 PRs costs
// at most 2,000 redeliveries, not 10,000 (each is an App-JWT request, 5,000
// an hour).

// HookDelivery is one delivery attempt as GitHub lists it.
type HookDelivery struct {
	ID          int64
	GUID        string
	DeliveredAt time.Time
	StatusCode  int // 0: nothing answered (timeout, connection refused)
	Redelivery  bool
	Event       string
}

// HookDeliveries is GitHub's webhook-deliveries API of this App.
type HookDeliveries interface {
	// List returns one page of deliveries, newest first, and the cursor of
	// the next page ("" on the last).
	List(ctx context.Context, cursor string, perPage int) ([]HookDelivery, string, error)
	// Redeliver asks GitHub for another attempt of delivery id.
	Redeliver(ctx context.Context, id int64) error
}

// GitHubHookDeliveries adapts a go-github client authenticated as the App
// (JWT) to HookDeliveries.
func GitHubHookDeliveries(cl *github.Client) HookDeliveries { return ghDeliveries{cl} }

type ghDeliveries struct{ cl *github.Client }

func (g ghDeliveries) List(ctx context.Context, cursor string, perPage int) ([]HookDelivery, string, error) {
	list, resp, err := g.cl.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{Cursor: cursor, PerPage: perPage})
	if err != nil {
		return nil, "", fmt.Errorf("listing the App's webhook deliveries: %w", err)
	}
	out := make([]HookDelivery, 0, len(list))
	for _, d := range list {
		out = append(out, HookDelivery{ID: d.GetID(), GUID: d.GetGUID(), DeliveredAt: d.GetDeliveredAt().Time,
			StatusCode: d.GetStatusCode(), Redelivery: d.GetRedelivery(), Event: d.GetEvent()})
	}
	return out, resp.Cursor, nil
}

func (g ghDeliveries) Redeliver(ctx context.Context, id int64) error {
	_, _, err := g.cl.Apps.RedeliverHookDelivery(ctx, id)
	var accepted *github.AcceptedError // 202 is GitHub's answer
	if err != nil && !errors.As(err, &accepted) {
		return fmt.Errorf("redelivering webhook delivery %d: %w", id, err)
	}
	return nil
}

// Defaults for RedelivererOptions.
const (
	DefaultRedeliverInterval    = time.Minute
	DefaultRedeliverLookback    = time.Hour
	DefaultRedeliverMaxAttempts = 5
	// DefaultRedeliverSettle is how far back of the newest delivery a scan
	// saw the next scan lists again. GitHub's delivery list is not ordered
	// by arrival: an attempt's ID is taken when it starts and it is listed
	// when it ends, which is up to GitHub's 10 s timeout later, and under
	// concurrency attempts with lower IDs appear after higher ones were
	// listed. A cursor that stopped at the newest ID seen never saw them (a
	// refused delivery waited for the sweep, 623 s). A minute covers the
	// timeout with room for clock skew; deliveries listed twice are
	// recognised (the same attempt ID changes nothing).
	DefaultRedeliverSettle = time.Minute
	redeliverPerPage       = 100
	// maxRemembered bounds the refused deliveries and attempt counts kept.
	maxRemembered = 100_000
)

// RedelivererOptions configures a Redeliverer.
type RedelivererOptions struct {
	// Deliveries is GitHub's deliveries API (required).
	Deliveries HookDeliveries
	// Interval between scans (default 1 min); Nudge starts one sooner.
	Interval time.Duration
	// Lookback is how far back the first scan after start looks (default
	// 1 h; GitHub lets an App redeliver the past 3 days).
	Lookback time.Duration
	// MaxAttempts is the most redeliveries asked for one delivery (default 5).
	MaxAttempts int
	// Settle is how far back of the previous scan's newest delivery a scan
	// lists again (default DefaultRedeliverSettle), so that an attempt
	// listed late, below IDs already seen, is not skipped.
	Settle time.Duration
	// Room reports how many more jobs the queue can comfortably take; a
	// scan asks for at most that many redeliveries, the rest wait for the
	// next scan (so a backlog is fed in as it drains, not refused again).
	// Nil: no limit.
	Room func() int
	// Memory keeps what the Redeliverer remembers (the deliveries the queue
	// refused and their pull requests, the failures not yet redelivered,
	// the redeliveries asked, the newest delivery scanned) outside the
	// process, so a restart resumes instead of forgetting: the Redis store
	// (webhook/redisqueue) with Redis; nil keeps it in memory only (after a
	// restart the first scan looks back Lookback again, and the periodic
	// sweep of open pull requests covers what that misses).
	Memory RedeliveryMemory
	// Lease, when set, is taken before each scan and released after it;
	// a scan that cannot take it is skipped (another replica is scanning:
	// two scans at once could both ask for the same redelivery). Replicas
	// sharing a Redis pass one (redisqueue.RedeliveryScanLease); ok true
	// with a no-op release when the lease cannot be asked.
	Lease func(ctx context.Context) (release func(), ok bool)
	// Metrics counts redeliveries (redeliveries_total{outcome}).
	Metrics *Metrics
	Logger  *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Redeliverer asks GitHub to redeliver the App's failed deliveries. Start
// it with Run; wire Refused into Options.OnRefused.
type Redeliverer struct {
	o     RedelivererOptions
	nudge chan struct{}

	mu sync.Mutex
	// lastTop is the newest delivery ID the previous scan listed and
	// lastTopAt when it was delivered; the next scan stops at the first
	// delivery at or below lastTop delivered Settle before lastTopAt (0:
	// not scanned yet; the first looks back Lookback).
	lastTop   int64
	lastTopAt time.Time
	// pending: GUID → the newest listed attempt of a delivery whose
	// attempts all failed, until one succeeds or it is given up.
	pending map[string]HookDelivery
	// tries counts the redeliveries asked per GUID (or -1: covered by a
	// newer refused delivery of the same pull request).
	tries map[string]int
	// refused: GUID → the job keys of a delivery the queue refused, and
	// newest: job key → the newest refused GUID about it.
	refused map[string]refusal
	newest  map[string]refusal
	// dirty is what changed since the last flush to Memory.
	dirty RedeliveryChange
}

type refusal struct {
	guid string
	keys []string
	at   time.Time
}

// Refusal is a delivery the queue refused: its GUID, the job keys of its
// pull requests, and when.
type Refusal struct {
	GUID string    `json:"guid"`
	Keys []string  `json:"keys"`
	At   time.Time `json:"at"`
}

// RedeliveryState is everything a Redeliverer remembers.
type RedeliveryState struct {
	// Top is the newest delivery ID a scan listed, TopAt when it was
	// delivered (the next scan stops Settle before it).
	Top   int64
	TopAt time.Time
	// Pending: GUID → the newest attempt of a delivery whose attempts all failed.
	Pending map[string]HookDelivery
	// Tries: GUID → redeliveries asked (-1: covered by a newer delivery).
	Tries map[string]int
	// Refused: GUID → the refused delivery; Newest: job key → the newest
	// refused (or since queued) delivery about it.
	Refused, Newest map[string]Refusal
}

// RedeliveryChange is what one step of a Redeliverer changed: entries set
// and deleted per map, and the new Top and TopAt (zero: unchanged; a store
// keeps the largest and latest it was given).
type RedeliveryChange struct {
	Top                   int64
	TopAt                 time.Time
	SetPending            map[string]HookDelivery
	SetTries              map[string]int
	SetRefused, SetNewest map[string]Refusal
	DelPending, DelTries  []string
	DelRefused, DelNewest []string
}

func (c *RedeliveryChange) empty() bool {
	return c.Top == 0 && c.TopAt.IsZero() && len(c.SetPending)+len(c.SetTries)+len(c.SetRefused)+len(c.SetNewest)+
		len(c.DelPending)+len(c.DelTries)+len(c.DelRefused)+len(c.DelNewest) == 0
}

// RedeliveryMemory is a Redeliverer's memory outside the process. Apply
// records one change (the Redeliverer calls it after each step, outside its
// lock); Load returns everything recorded. Replicas sharing one memory
// treat it as the source of truth: each scan first records what the
// replica changed and then reads the whole memory again, so it works from
// what every replica has learnt — the deliveries another replica refused
// (to coalesce those about one pull request), the redeliveries another
// asked (not asked again) and the newest delivery any scanned.
type RedeliveryMemory interface {
	Load(ctx context.Context) (RedeliveryState, error)
	Apply(ctx context.Context, c RedeliveryChange) error
}

func (f refusal) export() Refusal { return Refusal{GUID: f.guid, Keys: f.keys, At: f.at} }

func (f Refusal) internal() refusal { return refusal{guid: f.GUID, keys: f.Keys, at: f.At} }

// The mutations below keep the maps and record the change for the memory.
// Callers hold r.mu.

func (r *Redeliverer) setPending(guid string, d HookDelivery) {
	r.pending[guid] = d
	if r.o.Memory != nil {
		if r.dirty.SetPending == nil {
			r.dirty.SetPending = map[string]HookDelivery{}
		}
		r.dirty.SetPending[guid] = d
	}
}

func (r *Redeliverer) delPending(guid string) {
	if _, ok := r.pending[guid]; !ok {
		return
	}
	delete(r.pending, guid)
	if r.o.Memory != nil {
		delete(r.dirty.SetPending, guid)
		r.dirty.DelPending = append(r.dirty.DelPending, guid)
	}
}

func (r *Redeliverer) setTries(guid string, n int) {
	track(r.o.Memory != nil, r.tries, &r.dirty.SetTries, guid, n, n)
}

func (r *Redeliverer) delTries(guid string) {
	untrack(r.o.Memory != nil, r.tries, r.dirty.SetTries, &r.dirty.DelTries, guid)
}

func (r *Redeliverer) setRefused(guid string, f refusal) {
	track(r.o.Memory != nil, r.refused, &r.dirty.SetRefused, guid, f, f.export())
}

func (r *Redeliverer) delRefused(guid string) {
	untrack(r.o.Memory != nil, r.refused, r.dirty.SetRefused, &r.dirty.DelRefused, guid)
}

func (r *Redeliverer) setNewest(key string, f refusal) {
	track(r.o.Memory != nil, r.newest, &r.dirty.SetNewest, key, f, f.export())
}

func (r *Redeliverer) delNewest(key string) {
	untrack(r.o.Memory != nil, r.newest, r.dirty.SetNewest, &r.dirty.DelNewest, key)
}

// track sets m[k] = v and, when the memory is on (shared), records the
// change as set[k] = exported for the next flush.
func track[V, X any](shared bool, m map[string]V, set *map[string]X, k string, v V, exported X) {
	m[k] = v
	if !shared {
		return
	}
	if *set == nil {
		*set = map[string]X{}
	}
	(*set)[k] = exported
}

// untrack deletes m[k] if it is there and, when the memory is on, records
// the deletion (dropping a set of k not flushed yet).
func untrack[V, X any](shared bool, m map[string]V, set map[string]X, dels *[]string, k string) {
	if _, ok := m[k]; !ok {
		return
	}
	delete(m, k)
	if shared {
		delete(set, k)
		*dels = append(*dels, k)
	}
}

// flush hands the recorded change to the memory. A failure is logged: the
// maps stay right for this process, and the next change is recorded anew.
func (r *Redeliverer) flush(ctx context.Context) {
	if r.o.Memory == nil {
		return
	}
	r.mu.Lock()
	c := r.dirty
	r.dirty = RedeliveryChange{}
	r.mu.Unlock()
	if c.empty() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.o.Memory.Apply(ctx, c); err != nil {
		r.o.Logger.Warn("could not record the redelivery memory; a restart may redeliver or miss what this change recorded (the sweep of open pull requests covers it)", "error", err)
	}
}

// Restore loads what the memory holds (a restart: the refusals, failures,
// redeliveries asked and the scan cursor of the previous run, and of every
// other replica sharing the memory), replacing this process's copy. Run
// calls it before its first scan and Scan before each scan; it is a no-op
// without Memory.
func (r *Redeliverer) Restore(ctx context.Context) error {
	if r.o.Memory == nil {
		return nil
	}
	st, err := r.o.Memory.Load(ctx)
	if err != nil {
		return fmt.Errorf("webhook: restoring the redelivery memory: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastTop = max(r.lastTop, st.Top)
	if st.TopAt.After(r.lastTopAt) {
		r.lastTopAt = st.TopAt
	}
	// What this process changed since its last flush is not in st yet:
	// keep it on top of what the memory says.
	d := r.dirty
	r.pending = orEmpty(st.Pending)
	r.tries = orEmpty(st.Tries)
	r.refused = make(map[string]refusal, len(st.Refused))
	for g, f := range st.Refused {
		r.refused[g] = f.internal()
	}
	r.newest = make(map[string]refusal, len(st.Newest))
	for k, f := range st.Newest {
		r.newest[k] = f.internal()
	}
	for g, v := range d.SetPending {
		r.pending[g] = v
	}
	for g, v := range d.SetTries {
		r.tries[g] = v
	}
	for g, f := range d.SetRefused {
		r.refused[g] = f.internal()
	}
	for k, f := range d.SetNewest {
		r.newest[k] = f.internal()
	}
	for _, g := range d.DelPending {
		delete(r.pending, g)
	}
	for _, g := range d.DelTries {
		delete(r.tries, g)
	}
	for _, g := range d.DelRefused {
		delete(r.refused, g)
	}
	for _, k := range d.DelNewest {
		delete(r.newest, k)
	}
	return nil
}

func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// NewRedeliverer validates o and builds a Redeliverer.
func NewRedeliverer(o RedelivererOptions) (*Redeliverer, error) {
	if o.Deliveries == nil {
		return nil, errors.New("webhook: redeliverer without a deliveries API")
	}
	if o.Interval <= 0 {
		o.Interval = DefaultRedeliverInterval
	}
	if o.Lookback <= 0 {
		o.Lookback = DefaultRedeliverLookback
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultRedeliverMaxAttempts
	}
	if o.Settle <= 0 {
		o.Settle = DefaultRedeliverSettle
	}
	if o.Room == nil {
		o.Room = func() int { return int(^uint(0) >> 1) }
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	m, err := orPrivateMetrics(o.Metrics)
	if err != nil {
		return nil, err
	}
	o.Metrics = m
	return &Redeliverer{o: o, nudge: make(chan struct{}, 1), pending: map[string]HookDelivery{},
		tries: map[string]int{}, refused: map[string]refusal{}, newest: map[string]refusal{}}, nil
}

// Refused records that the queue refused delivery guid with these jobs, and
// brings the next scan forward. Wire it into Options.OnRefused.
func (r *Redeliverer) Refused(guid string, jobs []app.Job) {
	f := refusal{guid: guid, at: r.o.Now()}
	for _, j := range jobs {
		f.keys = append(f.keys, j.Key())
	}
	r.mu.Lock()
	if len(r.refused) < maxRemembered {
		r.setRefused(guid, f)
		for _, k := range f.keys {
			r.setNewest(k, f)
		}
	}
	r.mu.Unlock()
	r.flush(context.Background())
	r.Nudge()
}

// Queued records that a delivery's jobs were queued: earlier refused
// deliveries about the same pull requests need no redelivery any more.
// Wire it into Options.OnQueued.
func (r *Redeliverer) Queued(guid string, jobs []app.Job) {
	r.mu.Lock()
	changed := false
	defer func() {
		r.mu.Unlock()
		if changed {
			r.flush(context.Background())
		}
	}()
	for _, j := range jobs {
		k := j.Key()
		if _, ok := r.newest[k]; ok {
			changed = true
			r.setNewest(k, refusal{guid: guid, keys: []string{k}, at: r.o.Now()})
		}
	}
}

// Nudge starts a scan soon (at most one is pending).
func (r *Redeliverer) Nudge() {
	select {
	case r.nudge <- struct{}{}:
	default:
	}
}

// Run scans every Interval, and soon after a Nudge (but at most once every
// 10 s, or every Interval when shorter: each scan costs at least one App-JWT
// request, 5,000 an hour), until ctx ends. Errors are logged; the next scan
// tries again.
func (r *Redeliverer) Run(ctx context.Context) {
	tick := time.NewTicker(r.o.Interval)
	defer tick.Stop()
	minGap := min(10*time.Second, r.o.Interval)
	var last time.Time
	for {
		nudged := false
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-r.nudge:
			nudged = true
			if wait := minGap - time.Since(last); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
		}
		last = time.Now()
		_, skipped, err := r.leasedScan(ctx)
		if err != nil && ctx.Err() == nil {
			r.o.Logger.Warn("redelivering failed webhook deliveries", "error", err)
		}
		if skipped && nudged {
			// Another replica was scanning, perhaps from before the
			// refusal that nudged this one: scan again soon.
			time.AfterFunc(minGap, r.Nudge)
		}
	}
}

// retryable reports whether a failed attempt may succeed when sent again:
// nothing answered, or this App answered 5xx / 429. A 4xx other than 429
// (bad signature, bad payload) would fail the same way again.
func retryable(code int) bool {
	return code == 0 || code >= 500 || code == http.StatusTooManyRequests
}

// Scan lists the deliveries GitHub recorded since the previous scan (on the
// first scan, since Lookback), newest first, stopping at the first at or
// below the newest ID the previous scan saw that was delivered Settle
// before that one — so a scan costs one request plus one per 100 new (or
// settling) deliveries, and an attempt GitHub lists late, below IDs
// already seen, is still found — and remembers each delivery whose
// attempts all failed. Then
// it asks for another attempt of every remembered delivery whose last
// attempt failed retryably, newest first, with backoff between attempts and
// at most Room() of them. It returns how many redeliveries it asked for.
//
// With a Memory, a scan first records this replica's changes and reads the
// memory again (what other replicas refused, asked and scanned), and runs
// only while it holds the Lease (a scan that cannot take it is skipped and
// returns 0: another replica is scanning).
func (r *Redeliverer) Scan(ctx context.Context) (int, error) {
	n, _, err := r.leasedScan(ctx)
	return n, err
}

// leasedScan is Scan; skipped reports that another replica held the lease.
func (r *Redeliverer) leasedScan(ctx context.Context) (n int, skipped bool, err error) {
	if r.o.Lease != nil {
		release, ok := r.o.Lease(ctx)
		if !ok {
			r.o.Logger.Debug("redelivery scan skipped: another replica is scanning")
			return 0, true, nil
		}
		defer release()
	}
	if r.o.Memory != nil {
		r.flush(ctx)
		if err := r.Restore(ctx); err != nil {
			r.o.Logger.Warn("could not read the shared redelivery memory; scanning with what this replica knows", "error", err)
		}
	}
	n, err = r.scan(ctx)
	r.flush(ctx)
	return n, false, err
}

func (r *Redeliverer) scan(ctx context.Context) (int, error) {
	start := r.o.Now()
	r.mu.Lock()
	stopAt, prevTopAt, horizon := r.lastTop, r.lastTopAt, start.Add(-r.o.Lookback)
	r.mu.Unlock()
	stopAtTime := prevTopAt.Add(-r.o.Settle)

	type seen struct {
		latest    HookDelivery // newest attempt listed
		succeeded bool
	}
	byGUID := map[string]*seen{}
	var order []string
	top, topAt := stopAt, prevTopAt
	cursor := ""
list:
	for {
		page, next, err := r.o.Deliveries.List(ctx, cursor, redeliverPerPage)
		if err != nil {
			return 0, err
		}
		for _, d := range page {
			if (d.ID <= stopAt && d.DeliveredAt.Before(stopAtTime)) || d.DeliveredAt.Before(horizon) {
				break list
			}
			if d.ID > top {
				top = d.ID
			}
			if d.DeliveredAt.After(topAt) {
				topAt = d.DeliveredAt
			}
			st := byGUID[d.GUID]
			if st == nil {
				st = &seen{latest: d}
				byGUID[d.GUID] = st
				order = append(order, d.GUID)
			}
			if d.StatusCode >= 200 && d.StatusCode <= 299 {
				st.succeeded = true
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if top != r.lastTop {
		r.lastTop = top
		r.dirty.Top = top
	}
	if topAt.After(r.lastTopAt) {
		r.lastTopAt = topAt
		r.dirty.TopAt = topAt
	}
	for _, guid := range order {
		st := byGUID[guid]
		switch {
		case st.succeeded:
			r.forget(guid)
		case !retryable(st.latest.StatusCode):
			r.delPending(guid) // a 4xx would fail the same way again
		case r.tries[guid] < 0 || r.tries[guid] >= r.o.MaxAttempts:
			// Listed again in the settle window: covered by a newer
			// delivery, or given up already.
		default:
			if old, ok := r.pending[guid]; !ok || st.latest.ID > old.ID {
				if ok || len(r.pending) < maxRemembered {
					r.setPending(guid, st.latest)
				}
			}
		}
	}

	// The remembered failures, newest first.
	todo := make([]HookDelivery, 0, len(r.pending))
	for guid, d := range r.pending {
		if d.DeliveredAt.Before(horizon) {
			r.forget(guid) // past the lookback: given up silently, as GitHub's log ages
			continue
		}
		todo = append(todo, d)
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].ID > todo[j].ID })
	asked, room := 0, r.o.Room()
	for _, d := range todo {
		guid := d.GUID
		n := r.tries[guid]
		if n < 0 {
			continue // covered by a newer delivery about the same pull requests
		}
		if n >= r.o.MaxAttempts {
			r.o.Metrics.redeliveries.WithLabelValues("gave_up").Inc()
			r.o.Logger.Error("webhook delivery still failing after redeliveries; not asking again (redeliver it by hand once the cause is fixed)",
				"delivery_id", guid, "event", d.Event, "redeliveries", n, "status_code", d.StatusCode)
			r.delPending(guid)
			continue
		}
		if f, ok := r.refused[guid]; ok && r.superseded(f) {
			// A newer delivery about the same pull requests was queued, or
			// will be redelivered instead: this one adds nothing.
			r.setTries(guid, -1)
			r.delPending(guid)
			r.o.Metrics.redeliveries.WithLabelValues("coalesced").Inc()
			continue
		}
		// A redelivery that failed again waits Interval, 2×, 4×… after its
		// last attempt, so a queue or Redis that is down for a while is not
		// given all the attempts in its first seconds.
		if n > 0 && start.Sub(d.DeliveredAt) < min(r.o.Interval<<(n-1), r.o.Lookback) {
			continue
		}
		if asked >= room {
			continue // still mark the covered ones above; ask next scan
		}
		r.mu.Unlock()
		err := r.o.Deliveries.Redeliver(ctx, d.ID)
		r.mu.Lock()
		if err != nil {
			r.o.Metrics.redeliveries.WithLabelValues("error").Inc()
			return asked, err
		}
		r.setTries(guid, n+1)
		asked++
		r.o.Metrics.redeliveries.WithLabelValues("asked").Inc()
		r.o.Logger.Info("asked GitHub to redeliver a failed webhook delivery", "delivery_id", guid, "event", d.Event,
			"attempt_id", d.ID, "status_code", d.StatusCode, "redelivery", n+1)
	}
	r.prune(start)
	return asked, nil
}

// superseded reports whether every job key of refusal f has a newer refused
// delivery. Callers hold r.mu.
func (r *Redeliverer) superseded(f refusal) bool {
	if len(f.keys) == 0 {
		return false
	}
	for _, k := range f.keys {
		if n, ok := r.newest[k]; !ok || n.guid == f.guid {
			return false
		}
	}
	return true
}

// forget drops what is remembered of a delivery that succeeded or is given
// up. Its pull requests stay recorded as covered by it (newest), so older
// refused deliveries about them are still not redelivered; prune ages that
// out. Callers hold r.mu.
func (r *Redeliverer) forget(guid string) {
	r.delRefused(guid)
	r.delTries(guid)
	r.delPending(guid)
}

// prune drops refusals older than the lookback. Callers hold r.mu.
func (r *Redeliverer) prune(now time.Time) {
	cut := now.Add(-r.o.Lookback)
	for guid, f := range r.refused {
		if f.at.Before(cut) {
			r.forget(guid)
		}
	}
	for k, f := range r.newest {
		if f.at.Before(cut) {
			r.delNewest(k)
		}
	}
	if len(r.tries) >= maxRemembered {
		keep := make([]string, 0, len(r.refused))
		for g := range r.refused {
			keep = append(keep, g)
		}
		sort.Strings(keep)
		kept := make(map[string]bool, len(keep))
		for _, g := range keep {
			kept[g] = true
		}
		for g := range r.tries {
			if !kept[g] {
				r.delTries(g)
			}
		}
	}
}
