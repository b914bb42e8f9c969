package webhook

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipgate-app/shipgate/app"
)

// fakeDeliveries is GitHub's deliveries API in memory: newest first,
// cursor pages, and a redelivery appends a new attempt with the outcome
// answer gives it.
type fakeDeliveries struct {
	mu       sync.Mutex
	list     []HookDelivery // oldest first
	asked    []int64
	pages    int
	answer   func(guid string) int
	now      time.Time
	failList error
}

func (f *fakeDeliveries) add(guid string, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(time.Minute) // far apart: the scans' 2-minute overlap reaches back two deliveries
	f.list = append(f.list, HookDelivery{ID: int64(len(f.list) + 1), GUID: guid, DeliveredAt: f.now, StatusCode: code, Event: "pull_request"})
}

func (f *fakeDeliveries) List(_ context.Context, cursor string, per int) ([]HookDelivery, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failList != nil {
		return nil, "", f.failList
	}
	f.pages++
	end := len(f.list)
	if cursor != "" {
		end, _ = strconv.Atoi(cursor)
	}
	var page []HookDelivery
	for i := end - 1; i >= 0 && len(page) < per; i-- {
		page = append(page, f.list[i])
	}
	next := ""
	if start := end - len(page); start > 0 {
		next = strconv.Itoa(start)
	}
	return page, next, nil
}

func (f *fakeDeliveries) Redeliver(_ context.Context, id int64) error {
	f.mu.Lock()
	f.asked = append(f.asked, id)
	guid := f.list[id-1].GUID
	f.mu.Unlock()
	code := 202
	if f.answer != nil {
		code = f.answer(guid)
	}
	f.add(guid, code)
	f.mu.Lock()
	f.list[len(f.list)-1].Redelivery = true
	f.mu.Unlock()
	return nil
}

func newTestRedeliverer(t *testing.T, f *fakeDeliveries, room func() int) (*Redeliverer, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRedeliverer(RedelivererOptions{Deliveries: f, Room: room, Metrics: m, Logger: nopLogger(), Lookback: 72 * time.Hour,
		Now: func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now.Add(time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	return r, reg
}

// TestRedelivererScan: which failed deliveries are redelivered, across
// pages, and which are not.
func TestRedelivererScan(t *testing.T) {
	f := &fakeDeliveries{now: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)}
	for i := range 250 { // more than two pages of successes
		f.add(fmt.Sprintf("ok-%d", i), 202)
	}
	f.add("full-1", 503)  // refused for capacity: redeliver
	f.add("noanswer", 0)  // nothing answered: redeliver
	f.add("badsig", 401)  // would fail again: leave
	f.add("badbody", 400) // would fail again: leave
	f.add("flaky", 503)   // failed, then succeeded: leave
	f.add("flaky", 200)
	for i := range 120 {
		f.add(fmt.Sprintf("ok2-%d", i), 200)
	}
	r, reg := newTestRedeliverer(t, f, nil)
	n, err := r.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, id := range f.asked {
		got[f.list[id-1].GUID] = true
	}
	if n != 2 || !got["full-1"] || !got["noanswer"] || len(got) != 2 {
		t.Fatalf("redelivered %v (%d), want full-1 and noanswer", got, n)
	}
	if f.pages < 4 {
		t.Fatalf("read %d pages, want all 4", f.pages)
	}
	// The next scan reads only what is new, and finds the redeliveries
	// succeeded: nothing more to ask.
	f.pages = 0
	if n, err := r.Scan(context.Background()); err != nil || n != 0 {
		t.Fatalf("second scan: %d, %v; want nothing redelivered", n, err)
	}
	if f.pages != 1 {
		t.Fatalf("second scan read %d pages, want 1 (only deliveries since the first scan)", f.pages)
	}
	if got := metricValue(t, reg, "shipgate_redeliveries_total", map[string]string{"outcome": "asked"}); got != 2 {
		t.Fatalf("redeliveries asked = %v", got)
	}
}

// TestRedelivererCoalescesAndPaces: of several refused deliveries about
// one pull request only the newest is redelivered, one covered by a later
// accepted delivery is not redelivered at all, at most Room() are asked per
// scan, and a delivery that keeps failing is given up after MaxAttempts.
func TestRedelivererCoalescesAndPaces(t *testing.T) {
	f := &fakeDeliveries{now: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)}
	room := 2
	r, reg := newTestRedeliverer(t, f, func() int { return room })
	pr := func(n int) []app.Job { return []app.Job{prJob(n, "h")} }
	for i, d := range []struct {
		guid string
		pr   int
	}{{"a1", 1}, {"b1", 2}, {"a2", 1}, {"c1", 3}, {"d1", 4}, {"e1", 5}, {"a3", 1}} {
		f.add(d.guid, 503)
		r.Refused(d.guid, pr(d.pr))
		_ = i
	}
	r.Queued("ok-d", pr(4)) // a later delivery about PR 4 was queued
	f.add("ok-d", 202)
	asked := func() []string {
		var out []string
		for _, id := range f.asked {
			out = append(out, f.list[id-1].GUID)
		}
		return out
	}
	if n, _ := r.Scan(context.Background()); n != 2 {
		t.Fatalf("first scan asked %d, want the room of 2", n)
	}
	room = 10
	if _, err := r.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, g := range asked() {
		got[g] = true
	}
	for _, want := range []string{"a3", "b1", "c1", "e1"} {
		if !got[want] {
			t.Errorf("%s not redelivered; asked %v", want, asked())
		}
	}
	for _, not := range []string{"a1", "a2", "d1"} {
		if got[not] {
			t.Errorf("%s redelivered though a newer delivery covers its PR; asked %v", not, asked())
		}
	}
	if c := metricValue(t, reg, "shipgate_redeliveries_total", map[string]string{"outcome": "coalesced"}); c != 3 {
		t.Errorf("coalesced = %v, want 3", c)
	}

	// A delivery whose redeliveries keep failing: given up after 5.
	g := &fakeDeliveries{now: f.now, answer: func(string) int { return 503 }}
	r2, reg2 := newTestRedeliverer(t, g, nil)
	g.add("stuck", 503)
	var asks []int
	for range 40 {
		if _, err := r2.Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		asks = append(asks, len(g.asked))
		g.mu.Lock()
		g.now = g.now.Add(time.Minute) // one scan interval
		g.mu.Unlock()
	}
	// Redelivered at once, then 1, 2, 4 and 8 scan intervals apart.
	for scan, want := range map[int]int{0: 1, 1: 2, 2: 2, 3: 3, 6: 3, 7: 4, 14: 4, 15: 5, 39: 5} {
		if asks[scan] != want {
			t.Errorf("after scan %d: %d redeliveries, want %d (backoff); all: %v", scan, asks[scan], want, asks)
		}
	}
	if len(g.asked) != DefaultRedeliverMaxAttempts {
		t.Fatalf("asked %d redeliveries of a delivery that always fails, want %d", len(g.asked), DefaultRedeliverMaxAttempts)
	}
	if c := metricValue(t, reg2, "shipgate_redeliveries_total", map[string]string{"outcome": "gave_up"}); c != 1 {
		t.Fatalf("gave_up = %v, want 1", c)
	}
}
