package redisqueue

import (
	"context"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/internal/testwait"
)

// TestSweepLeaseIsOneReplicaPerInterval: of two replicas asking for the
// sweep's lease within its TTL one gets it; after the TTL the next asker
// does; with Redis unreachable a replica sweeps anyway.
func TestSweepLeaseIsOneReplicaPerInterval(t *testing.T) {
	e := newEnv(t)
	log := slog.New(slog.DiscardHandler)
	a := SweepLease(e.rdb, "l:{q}:", "a", 400*time.Millisecond, log)
	b := SweepLease(e.rdb, "l:{q}:", "b", 400*time.Millisecond, log)
	ctx := context.Background()
	if !a(ctx) {
		t.Fatal("the first replica did not get the lease")
	}
	if b(ctx) || a(ctx) {
		t.Fatal("a second sweep within the TTL got the lease")
	}
	testwait.For(t, "the lease to expire", func() bool { return b(ctx) })
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer down.Close()
	if !SweepLease(down, "", "c", time.Second, log)(ctx) {
		t.Error("with Redis unreachable the replica skipped the sweep")
	}
}

// TestSweepCursor: the cursor one replica saves is what another loads; no
// cursor and an unreadable one start at the beginning; a complete sweep's
// zero cursor is saved too.
func TestSweepCursor(t *testing.T) {
	e := newEnv(t)
	a, b := NewSweepCursor(e.rdb, "cur:{q}:"), NewSweepCursor(e.rdb, "cur:{q}:")
	ctx := context.Background()
	if c, err := b.LoadSweepCursor(ctx); err != nil || !reflect.DeepEqual(c, app.SweepCursor{}) {
		t.Fatalf("no cursor yet: %+v %v, want the zero cursor", c, err)
	}
	want := app.SweepCursor{Next: 9, Installations: map[int64]app.InstallationCursor{
		7: {Repo: "acme/web", RepoPage: 3, PRPage: 4, PR: 41}, 8: {}}}
	if err := a.SaveSweepCursor(ctx, want); err != nil {
		t.Fatal(err)
	}
	if c, err := b.LoadSweepCursor(ctx); err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("loaded %+v %v, want %+v", c, err, want)
	}
	if ttl := e.rdb.TTL(ctx, "cur:{q}:sweep:cursor").Val(); ttl <= 0 {
		t.Errorf("cursor TTL %s, want one", ttl)
	}
	if err := a.SaveSweepCursor(ctx, app.SweepCursor{}); err != nil {
		t.Fatal(err)
	}
	if c, _ := b.LoadSweepCursor(ctx); !reflect.DeepEqual(c, app.SweepCursor{}) {
		t.Errorf("after a complete sweep: %+v, want the zero cursor", c)
	}
	e.rdb.Set(ctx, "cur:{q}:sweep:cursor", "{not json", 0)
	if c, err := b.LoadSweepCursor(ctx); err != nil || !reflect.DeepEqual(c, app.SweepCursor{}) {
		t.Errorf("unreadable cursor: %+v %v, want the zero cursor", c, err)
	}
}
