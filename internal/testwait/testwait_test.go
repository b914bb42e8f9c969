package testwait

import (
	"fmt"
	"testing"
	"time"
)

// fakeT is a testing.TB with a chosen deadline that records failures.
type fakeT struct {
	testing.TB
	end    time.Time
	has    bool
	failed string
}

func (f *fakeT) Deadline() (time.Time, bool) { return f.end, f.has }
func (f *fakeT) Helper()                     {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
}

func TestDeadline(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name     string
		ft       *fakeT
		min, max time.Duration
	}{
		{"the binary's deadline less the margin", &fakeT{end: now.Add(5 * time.Minute), has: true}, 4*time.Minute + 29*time.Second, 4*time.Minute + 31*time.Second},
		{"a deadline nearer than the margin leaves a second", &fakeT{end: now.Add(10 * time.Second), has: true}, 900 * time.Millisecond, 1100 * time.Millisecond},
		{"no deadline: the fallback", &fakeT{}, fallback - time.Second, fallback + time.Second},
	} {
		if d := Deadline(c.ft).Sub(now); d < c.min || d > c.max {
			t.Errorf("%s: %s from now, want between %s and %s", c.name, d, c.min, c.max)
		}
	}
	// A real test has the binary's deadline (go test sets one by default).
	if _, ok := t.Deadline(); ok && Deadline(t).After(time.Now().Add(time.Hour*24)) {
		t.Errorf("Deadline(t) = %s ignores the binary's deadline", Deadline(t))
	}
}

func TestWaits(t *testing.T) {
	n := 0
	For(t, "the third poll", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("polled %d times, want 3", n)
	}
	ch := make(chan int, 1)
	ch <- 7
	if v := Recv(t, ch, "seven"); v != 7 {
		t.Errorf("Recv = %d", v)
	}
	// Past the deadline a wait fails, naming what it waited for.
	ft := &fakeT{end: time.Now(), has: true}
	Until(ft, "a condition that never holds", func() (bool, string) { return false, "still false" })
	if ft.failed != "timed out waiting for a condition that never holds; last state: still false" {
		t.Errorf("failure %q", ft.failed)
	}
	ft = &fakeT{end: time.Now(), has: true}
	Recv(ft, make(chan int), "nothing")
	if ft.failed != "timed out waiting for nothing" {
		t.Errorf("failure %q", ft.failed)
	}
}
