// Package testwait bounds a test's waits for an event that must happen by
// the test binary's own deadline (go test -timeout), never by a figure of
// wall time: a job that takes 40 s under -race on a loaded machine is slow,
// not wrong, and a wait of "15 s" would call it a failure.
//
// A test waits on the event itself (a channel, a condition it polls); the
// bound only turns a hang into a failure that names what was awaited, a
// little before the binary's -timeout would kill every test with a stack
// dump. Waits that assert something does NOT happen within a time are a
// different thing and keep their own short, explicit durations.
package testwait

import (
	"testing"
	"time"
)

// fallback bounds a wait when the binary has no deadline (-timeout 0).
const fallback = 10 * time.Minute

// margin is left before the binary's deadline for the failure to be
// reported (and the other tests' cleanups to run).
const margin = 30 * time.Second

// deadliner is what *testing.T has and testing.TB does not.
type deadliner interface {
	Deadline() (time.Time, bool)
}

// Deadline is the time by which a wait of t gives up: the test binary's
// deadline less a margin (at least a second from now), or ten minutes from
// now when the binary has none.
func Deadline(t testing.TB) time.Time {
	now := time.Now()
	if d, ok := t.(deadliner); ok {
		if end, ok := d.Deadline(); ok {
			if end = end.Add(-margin); end.After(now.Add(time.Second)) {
				return end
			}
			return now.Add(time.Second)
		}
	}
	return now.Add(fallback)
}

// Bound is how long from now a wait of t may last (see Deadline).
func Bound(t testing.TB) time.Duration { return time.Until(Deadline(t)) }

// After fires at Deadline(t): the bound of a select on an event.
func After(t testing.TB) <-chan time.Time { return time.After(Bound(t)) }

// For polls cond every few milliseconds until it holds, and fails t,
// naming what it waited for, if it has not by Deadline(t).
func For(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Until(t, what, func() (bool, string) { return cond(), "" })
}

// Until is For with a condition that also reports the state it saw, for
// the failure message.
func Until(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := Deadline(t)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if state != "" {
				t.Fatalf("timed out waiting for %s; last state: %s", what, state)
			} else {
				t.Fatalf("timed out waiting for %s", what)
			}
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Recv receives from ch, failing t if nothing arrives by Deadline(t).
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-After(t):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}
