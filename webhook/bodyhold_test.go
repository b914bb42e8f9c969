package webhook

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/internal/testwait"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// holdFrom opens a connection from local (a loopback address: on Linux any
// 127.x.y.z is one) and sends the headers of a forged POST declaring
// contentLength bytes and prefix of them, then stalls.
func holdFrom(t *testing.T, addr, local string, contentLength, prefix int) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dialing from %s (needs Linux's 127/8 loopback): %v", local, err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-GitHub-Event: pull_request\r\n"+
		"X-GitHub-Delivery: hold-%s\r\nX-Hub-Signature-256: sha256=%s\r\nContent-Length: %d\r\n\r\n", local, strings.Repeat("0", 64), contentLength)
	if _, err := c.Write([]byte(strings.Repeat(" ", prefix))); err != nil {
		t.Fatal(err)
	}
	return c
}

// signedPing sends a signed ping over a new connection and returns the status.
func signedPing(t *testing.T, addr string) int {
	t.Helper()
	body := `{"zen":"hold on"}`
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerEvent, "ping")
	req.Header.Set(headerDelivery, fmt.Sprintf("real-%d", time.Now().UnixNano()))
	req.Header.Set(headerSignature, Sign([]byte(testSecret), []byte(body)))
	req.Close = true
	resp, err := (&http.Client{Timeout: testwait.Bound(t)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestBodyHoldPerClient: one client's stalled bodies may hold at most its
// share of the budget (issue 20 §2). Two connections of one client each
// declare 30,000 bytes and send 20,000: before, both buffers fitted (64
// KiB, the whole budget) and a real delivery got 503; now the second is
// refused past the client's share and the real delivery is answered.
func TestBodyHoldPerClient(t *testing.T) {
	const budget = 64 << 10
	env := newTestEnv(t, func(o *Options) {
		o.MaxBodyBytes, o.MaxInFlightBytes = 32<<10, budget
		o.BodyEvictIdle, o.BodyEvictAge = time.Hour, time.Hour // no eviction: the share alone
		o.BodyStallTimeout = time.Hour                         // nor the stall deadline, however slow the machine
	})
	addr := startLoopback(t, env.srv, HTTPOptions{ErrorLog: nopLogger()})
	first := holdFrom(t, addr, "127.0.0.2", 30_000, 20_000)
	waitFor(t, "the first body to be held", func() bool { return env.srv.budget.used.Load() == 32<<10 })
	second := holdFrom(t, addr, "127.0.0.2", 30_000, 20_000)
	_ = second.SetReadDeadline(testwait.Deadline(t))
	resp, err := http.ReadResponse(bufio.NewReader(second), nil)
	if err != nil {
		t.Fatalf("the second body of one client was not refused: %v (budget in use %d)", err, env.srv.budget.used.Load())
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second body of one client: %d, want 503", resp.StatusCode)
	}
	if code := signedPing(t, addr); code != http.StatusOK {
		t.Fatalf("a signed delivery from another client while one client holds its share: %d, want 200", code)
	}
	first.Close()
	waitFor(t, "the body budget to be given back", func() bool { return env.srv.budget.used.Load() == 0 })
}

// TestBodyHoldIsEvicted: two clients each hold a stalled body, together the
// whole budget. A real delivery arriving while they are fresh is refused
// (the budget is a budget); once they have not moved for BodyEvictIdle
// (the server's clock, advanced by the test), the next delivery cuts them
// and is answered. Before, it got 503 for as long as they held.
func TestBodyHoldIsEvicted(t *testing.T) {
	const budget = 64 << 10
	clock := newFakeClock()
	env := newTestEnv(t, func(o *Options) {
		o.MaxBodyBytes, o.MaxInFlightBytes = 32<<10, budget
		o.Now = clock.Now
		o.BodyStallTimeout = time.Hour // eviction alone, however slow the machine
	})
	addr := startLoopback(t, env.srv, HTTPOptions{ErrorLog: nopLogger()})
	a := holdFrom(t, addr, "127.0.0.2", 30_000, 20_000)
	b := holdFrom(t, addr, "127.0.0.3", 30_000, 20_000)
	waitFor(t, "two bodies to hold the budget", func() bool { return env.srv.budget.used.Load() == budget })
	if code := signedPing(t, addr); code != http.StatusServiceUnavailable {
		t.Fatalf("a delivery while the holders are still moving: %d, want 503", code)
	}
	clock.Advance(DefaultBodyEvictIdle)
	if code := signedPing(t, addr); code != http.StatusOK {
		t.Fatalf("a delivery once the holders stopped moving: %d, want 200 (they must give their room up)", code)
	}
	for _, c := range []net.Conn{a, b} {
		_ = c.SetReadDeadline(testwait.Deadline(t))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("a cut holder got no answer: %v", err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a cut holder: %d, want 503", resp.StatusCode)
		}
	}
	if got := metricValue(t, env.reg, "shipgate_webhook_rejections_total", map[string]string{"reason": reasonBodyEvicted}); got != 2 {
		t.Fatalf("body_evicted rejections = %v, want 2", got)
	}
	waitFor(t, "the body budget to be given back", func() bool { return env.srv.budget.used.Load() == 0 })
}

// TestStalledBodyIsCut: a body that stops moving is cut after
// BodyStallTimeout, well before the whole-request ReadTimeout (20 s here);
// the test waits for the server to close the connection.
func TestStalledBodyIsCut(t *testing.T) {
	env := newTestEnv(t, func(o *Options) { o.BodyStallTimeout = 100 * time.Millisecond })
	addr := startLoopback(t, env.srv, HTTPOptions{ErrorLog: nopLogger()})
	c := halfOpen(t, addr, 100_000, 50_000)
	defer c.Close()
	_ = c.SetReadDeadline(testwait.Deadline(t))
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("the stalled body's connection was not closed: %v", err)
	}
	waitFor(t, "the body budget to be given back", func() bool { return env.srv.budget.used.Load() == 0 })
}

// TestSlowlorisIsShed: at MaxConnections, connections still sending their
// headers (a slowloris) are closed, oldest first, to make room for new
// ones; before, a new connection waited in the backlog until one of them
// timed out (ReadHeaderTimeout, a minute here), and a real request behind
// them was never served in time.
func TestSlowlorisIsShed(t *testing.T) {
	env := newTestEnv(t, nil)
	addr := startLoopback(t, env.srv, HTTPOptions{MaxConnections: 4, ReadHeaderTimeout: time.Minute, ErrorLog: nopLogger()})
	var slow []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nX-Trickle: a")
		slow = append(slow, c)
	}
	for i := range 3 {
		if code := signedPing(t, addr); code != http.StatusOK {
			t.Fatalf("request %d behind a slowloris at the cap: %d", i, code)
		}
	}
	// The oldest trickling connections were closed to make that room.
	closed := 0
	for _, c := range slow {
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed == 0 {
		t.Fatal("no trickling connection was closed")
	}
}
