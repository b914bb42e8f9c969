package redisqueue

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/app"
)

// TestWritePacerIsSharedAcrossReplicas: two replicas' pacers on one Redis
// admit an installation's writes within the windows together (checked on
// the admission times Redis recorded), while another installation has its
// own pace; a cancelled wait returns its context's error.
func TestWritePacerIsSharedAcrossReplicas(t *testing.T) {
	e := newEnv(t)
	limits := []app.WritePace{{Per: 400 * time.Millisecond, N: 3}}
	log := slog.New(slog.DiscardHandler)
	a := NewWritePacer(e.rdb, "pace:{q}:", "a", limits, log)
	b := NewWritePacer(e.rdb, "pace:{q}:", "b", limits, log)
	if NewWritePacer(e.rdb, "x", "c", nil, log) != nil {
		t.Error("a pacer without windows")
	}
	ctx := context.Background()
	began := time.Now()
	var wg sync.WaitGroup
	for i := range 8 {
		p := []*WritePacer{a, b}[i%2]
		wg.Go(func() {
			if err := p.WaitWrite(ctx, 7); err != nil {
				t.Error(err)
			}
		})
	}
	// Another installation is not held by installation 7's writes.
	start := time.Now()
	for range 3 {
		if err := a.WaitWrite(ctx, 8); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Logf("note: installation 8's three writes took %s", d)
	}
	wg.Wait()
	// 8 writes at 3 per 400 ms by the two replicas together need two full
	// windows after the first three (a lower bound: never flaky). Paced per
	// replica they would take one window.
	if d := time.Since(began); d < 780*time.Millisecond {
		t.Errorf("8 writes of one installation by two replicas took %s, want at least 800ms at 3 per 400ms", d)
	}
	n, err := e.rdb.ZCard(ctx, "pace:{q}:pace:7").Result()
	if err != nil || n < 1 || n > 3 {
		t.Errorf("write log holds %d entries (%v), want the last window's, at most 3", n, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for range 4 {
		if err := a.WaitWrite(cctx, 9); err != nil {
			return // the cancelled context ends a wait
		}
	}
	t.Error("a wait with a cancelled context kept admitting writes past the window")
}
