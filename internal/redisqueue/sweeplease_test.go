package redisqueue

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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
	deadline := time.Now().Add(5 * time.Second)
	for !b(ctx) {
		if time.Now().After(deadline) {
			t.Fatal("the lease never expired")
		}
		time.Sleep(50 * time.Millisecond)
	}
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer down.Close()
	if !SweepLease(down, "", "c", time.Second, log)(ctx) {
		t.Error("with Redis unreachable the replica skipped the sweep")
	}
}
