package app

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestJobTimeout: the job's clock runs outside pace waits and stops inside
// them; the parent's end and cancel end the job too; a pace wait has its own
// bound. The waits are long against the timeouts so that a slow machine can
// only make a case pass later, never fail it (a deschedule longer than the
// margin before the first pause would be needed).
func TestJobTimeout(t *testing.T) {
	const timeout = time.Second
	waitDone := func(t *testing.T, ctx context.Context) {
		t.Helper()
		select {
		case <-ctx.Done():
		case <-time.After(30 * time.Second):
			t.Fatal("the job context never ended")
		}
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ends after its time", func(t *testing.T) {
			ctx, cancel := WithJobTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			waitDone(t, ctx)
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Errorf("Err %v, want DeadlineExceeded", ctx.Err())
			}
		}},
		{"a pace wait longer than the timeout does not end it", func(t *testing.T) {
			ctx, cancel := WithJobTimeout(context.Background(), timeout)
			defer cancel()
			err := paceWait(ctx, time.Minute, func(wctx context.Context) error {
				select {
				case <-time.After(timeout + timeout/2):
					return nil
				case <-wctx.Done():
					return wctx.Err()
				}
			})
			if err != nil || ctx.Err() != nil {
				t.Fatalf("after a pace wait of 1.5× the timeout: wait %v, job %v; want neither ended", err, ctx.Err())
			}
			if w := PaceWaited(ctx); w < timeout+timeout/2 {
				t.Errorf("PaceWaited %s, want at least 1.5 s", w)
			}
			if dl, ok := ctx.Deadline(); !ok || time.Until(dl) <= 0 {
				t.Errorf("deadline %v after the wait, want one still ahead", dl)
			}
			waitDone(t, ctx) // the time it had left still runs out
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Errorf("Err %v, want DeadlineExceeded", ctx.Err())
			}
		}},
		{"the parent's end ends it, also mid-wait", func(t *testing.T) {
			parent, stop := context.WithCancel(context.Background())
			ctx, cancel := WithJobTimeout(parent, time.Hour)
			defer cancel()
			err := paceWait(ctx, time.Hour, func(wctx context.Context) error {
				stop()
				<-wctx.Done()
				return wctx.Err()
			})
			if !errors.Is(err, context.Canceled) || !errors.Is(ctx.Err(), context.Canceled) {
				t.Errorf("wait %v, job %v; want both canceled", err, ctx.Err())
			}
		}},
		{"cancel ends it", func(t *testing.T) {
			ctx, cancel := WithJobTimeout(context.Background(), time.Hour)
			cancel()
			waitDone(t, ctx)
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Errorf("Err %v, want Canceled", ctx.Err())
			}
		}},
		{"a pace wait past its own bound fails as transient", func(t *testing.T) {
			ctx, cancel := WithJobTimeout(context.Background(), time.Hour)
			defer cancel()
			err := paceWait(ctx, 20*time.Millisecond, func(wctx context.Context) error {
				<-wctx.Done()
				return wctx.Err()
			})
			if !errors.Is(err, errPaceTooLong) || ctx.Err() != nil {
				t.Errorf("wait %v, job %v; want errPaceTooLong and the job going on", err, ctx.Err())
			}
		}},
		{"values pass through", func(t *testing.T) {
			type key struct{}
			ctx, cancel := WithJobTimeout(context.WithValue(context.Background(), key{}, "v"), time.Hour)
			defer cancel()
			if ctx.Value(key{}) != "v" {
				t.Error("the parent's value is lost")
			}
			if PaceWaited(context.Background()) != 0 {
				t.Error("PaceWaited outside a job is not 0")
			}
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestPaceWaitLimit(t *testing.T) {
	for _, tc := range []struct {
		limits []WritePace
		want   time.Duration
	}{
		{nil, time.Hour + time.Minute},
		{GitHubWritePace, time.Hour + time.Minute},
		{[]WritePace{{Per: 2 * time.Second, N: 2}}, 2*time.Second + time.Minute},
	} {
		if got := paceWaitLimit(tc.limits); got != tc.want {
			t.Errorf("paceWaitLimit(%v) = %s, want %s", tc.limits, got, tc.want)
		}
	}
}
