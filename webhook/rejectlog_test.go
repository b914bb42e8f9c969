package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRejectionsAreAggregated: 500 forged deliveries (bad signature) and
// 300 without an event header, through the handler. Before, each was one
// WARN line (800 lines); now the first of each reason is logged in full
// and the rest are summed up in one line when the interval ends (the test
// ends it). Every rejection is still counted in
// shipgate_webhook_rejections_total.
func TestRejectionsAreAggregated(t *testing.T) {
	// An interval far longer than the test: it ends when the test says
	// (flush, what the interval's timer calls), not when a loaded machine
	// happens to take long enough.
	env := newTestEnv(t, func(o *Options) { o.RejectLogInterval = time.Hour })
	const forged, headerless = 500, 300
	body := []byte(`{"zen":"x"}`)
	for range forged {
		r := request("ping", "forged", body)
		r.Header.Set(headerSignature, "sha256="+strings.Repeat("0", 64))
		if w := serve(env.srv, r); w.Code != http.StatusUnauthorized {
			t.Fatalf("forged: %d", w.Code)
		}
	}
	for range headerless {
		r := request("ping", "x", body)
		r.Header.Del(headerEvent)
		if w := serve(env.srv, r); w.Code != http.StatusBadRequest {
			t.Fatalf("no event: %d", w.Code)
		}
	}
	type line struct {
		Msg      string         `json:"msg"`
		Reason   string         `json:"reason"`
		Rejected int            `json:"rejected"`
		ByReason map[string]int `json:"by_reason"`
	}
	lines := func() (full []line, summaries []line) {
		for _, l := range bytes.Split([]byte(env.logs.String()), []byte("\n")) {
			var v line
			if json.Unmarshal(l, &v) != nil {
				continue
			}
			switch v.Msg {
			case "webhook delivery rejected":
				full = append(full, v)
			case "webhook deliveries rejected and not logged one by one":
				summaries = append(summaries, v)
			}
		}
		return full, summaries
	}
	if full, _ := lines(); len(full) != 2 {
		t.Fatalf("%d rejections logged one by one, want 2 (the first of each reason)", len(full))
	}
	env.srv.rejects.flush() // the interval ends
	full, summaries := lines()
	if len(full) != 2 || len(summaries) != 1 {
		t.Fatalf("%d full lines and %d summaries, want 2 and 1", len(full), len(summaries))
	}
	got := summaries[0]
	if got.Rejected != forged+headerless-2 || got.ByReason[reasonBadSignature] != forged-1 || got.ByReason[reasonMissingEvent] != headerless-1 {
		t.Fatalf("summary %+v, want %d in all: %d bad_signature, %d missing_event", got, forged+headerless-2, forged-1, headerless-1)
	}
	for reason, want := range map[string]float64{reasonBadSignature: forged, reasonMissingEvent: headerless} {
		if n := metricValue(t, env.reg, "shipgate_webhook_rejections_total", map[string]string{"reason": reason}); n != want {
			t.Errorf("rejections_total{reason=%q} = %v, want %v", reason, n, want)
		}
	}
	// A new interval logs its first rejection in full again.
	r := request("ping", "forged-later", body)
	r.Header.Set(headerSignature, "sha256="+strings.Repeat("0", 64))
	serve(env.srv, r)
	if full, _ := lines(); len(full) != 3 {
		t.Fatalf("after the interval: %d full lines, want 3", len(full))
	}
}
