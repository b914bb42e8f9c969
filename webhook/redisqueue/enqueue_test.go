package redisqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/webhook"
)

// TestAddScriptEffects checks each effect of enqueueScript on the keys
// directly (the suite checks them through the lifecycle): the pending
// job, the ready entry and its score, the seen key, the reply, and
// whether a wake-up message went out.
func TestAddScriptEffects(t *testing.T) {
	job := func(pr int, head string) app.Job {
		j := prJob(pr, head)
		j.ReceivedAt = time.Unix(1_700_000_000, 0).UTC()
		return j
	}
	enc := func(j app.Job) string {
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a1, a2, b1 := job(1, "a1"), job(1, "a2"), job(2, "b1")
	future := float64(time.Now().Add(time.Hour).UnixMilli())
	tests := []struct {
		name string
		// setup runs Redis commands on the keys before the Add.
		setup    func(ctx context.Context, s *Store)
		capacity int
		delivery string
		jobs     []app.Job
		want     webhook.AddStatus
		replaced int
		started  []string // heads of the replaced jobs that had started
		wake     bool
		// pending and ready (keys of ready with a score not in the future)
		// after the Add; seen reports whether the delivery is remembered.
		pending map[string]string
		ready   []string
		seen    bool
	}{
		{name: "a new key becomes pending and ready", delivery: "g1", jobs: []app.Job{a1}, want: webhook.AddOK,
			wake: true, pending: map[string]string{a1.Key(): "0|" + enc(a1)}, ready: []string{a1.Key()}, seen: true},
		{name: "no delivery ID records nothing", jobs: []app.Job{a1}, want: webhook.AddOK,
			wake: true, pending: map[string]string{a1.Key(): "0|" + enc(a1)}, ready: []string{a1.Key()}},
		{name: "the same key twice in one call: the last wins", delivery: "g1", jobs: []app.Job{a1, a2}, want: webhook.AddOK,
			replaced: 1, wake: true, pending: map[string]string{a1.Key(): "0|" + enc(a2)}, ready: []string{a1.Key()}, seen: true},
		{name: "a ready pending job is replaced in place, no wake-up", delivery: "g1", jobs: []app.Job{a2},
			setup: func(ctx context.Context, s *Store) {
				s.rdb.HSet(ctx, s.k.pending, a1.Key(), "0|"+enc(a1))
				s.rdb.ZAdd(ctx, s.k.ready, redisZ(1, a1.Key()))
			}, want: webhook.AddOK, replaced: 1,
			pending: map[string]string{a1.Key(): "0|" + enc(a2)}, ready: []string{a1.Key()}, seen: true},
		{name: "a retry in backoff is replaced, reported and made ready now", delivery: "g1", jobs: []app.Job{a2},
			setup: func(ctx context.Context, s *Store) {
				s.rdb.HSet(ctx, s.k.pending, a1.Key(), "2|"+enc(a1))
				s.rdb.ZAdd(ctx, s.k.ready, redisZ(future, a1.Key()))
			}, want: webhook.AddOK, replaced: 1, started: []string{"a1"}, wake: true,
			pending: map[string]string{a1.Key(): "0|" + enc(a2)}, ready: []string{a1.Key()}, seen: true},
		{name: "a running key gets a pending job, not a ready entry", delivery: "g1", jobs: []app.Job{a2},
			setup: func(ctx context.Context, s *Store) {
				s.rdb.HSet(ctx, s.k.running, a1.Key(), "tok|1|"+enc(a1))
			}, want: webhook.AddOK, pending: map[string]string{a1.Key(): "0|" + enc(a2)}, seen: true},
		{name: "a duplicate delivery changes nothing", delivery: "g1", jobs: []app.Job{b1},
			setup: func(ctx context.Context, s *Store) {
				s.rdb.Set(ctx, s.k.seen("g1"), "1", time.Hour)
			}, want: webhook.AddDuplicate, pending: map[string]string{}, seen: true},
		{name: "over capacity changes nothing and does not remember the delivery", capacity: 1, delivery: "g1",
			jobs: []app.Job{a1, b1}, want: webhook.AddFull, pending: map[string]string{}},
		{name: "a replacement at capacity fits", capacity: 1, delivery: "g1", jobs: []app.Job{a2},
			setup: func(ctx context.Context, s *Store) {
				s.rdb.HSet(ctx, s.k.pending, a1.Key(), "0|"+enc(a1))
				s.rdb.ZAdd(ctx, s.k.ready, redisZ(1, a1.Key()))
			}, want: webhook.AddOK, replaced: 1,
			pending: map[string]string{a1.Key(): "0|" + enc(a2)}, ready: []string{a1.Key()}, seen: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.queue(func(o *Options) {
				if tc.capacity > 0 {
					o.Capacity = tc.capacity
				}
			})
			s := r.q.Store()
			ctx := context.Background()
			sub := e.rdb.Subscribe(ctx, s.k.wake)
			defer sub.Close()
			if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(ctx, s)
			}
			res, err := s.Add(ctx, tc.delivery, tc.jobs)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.want || res.Replaced != tc.replaced {
				t.Errorf("Add = %+v, want status %v, replaced %d", res, tc.want, tc.replaced)
			}
			var started []string
			for _, j := range res.Started {
				started = append(started, j.HeadSHA)
			}
			if !slices.Equal(started, tc.started) {
				t.Errorf("started = %v, want %v", started, tc.started)
			}
			// A sentinel published after the Add arrives after any wake-up
			// the Add published (one connection's messages keep their order).
			if err := e.rdb.Publish(ctx, s.k.wake, "sentinel").Err(); err != nil {
				t.Fatal(err)
			}
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if woke := msg.Payload != "sentinel"; woke != tc.wake {
				t.Errorf("wake-up published = %v, want %v", woke, tc.wake)
			}
			pending, err := e.rdb.HGetAll(ctx, s.k.pending).Result()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(pending) != fmt.Sprint(tc.pending) {
				t.Errorf("pending = %v\nwant %v", pending, tc.pending)
			}
			ready, err := e.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.k.ready, ByScore: true, Start: "-inf",
				Stop: time.Now().Add(time.Minute).UnixMilli()}).Result()
			if err != nil {
				t.Fatal(err)
			}
			if all, _ := e.rdb.ZCard(ctx, s.k.ready).Result(); int(all) != len(ready) {
				t.Errorf("ready holds %d keys, %d of them due now", all, len(ready))
			}
			if !slices.Equal(ready, tc.ready) {
				t.Errorf("ready = %v, want %v", ready, tc.ready)
			}
			if tc.delivery != "" {
				n, err := e.rdb.Exists(ctx, s.k.seen(tc.delivery)).Result()
				if err != nil {
					t.Fatal(err)
				}
				if (n == 1) != tc.seen {
					t.Errorf("delivery remembered = %v, want %v", n == 1, tc.seen)
				}
			}
			if tc.want == webhook.AddOK && s.Depth() != len(tc.pending) {
				t.Errorf("Depth = %d, want %d", s.Depth(), len(tc.pending))
			}
		})
	}
}

func redisZ(score float64, member string) redis.Z { return redis.Z{Score: score, Member: member} }
