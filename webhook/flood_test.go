package webhook

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/internal/testwait"
)

// startLoopback serves srv on 127.0.0.1 with HTTPServer's limits.
func startLoopback(t *testing.T, srv *Server, o HTTPOptions) string {
	t.Helper()
	hs, limit := HTTPServer(srv, o)
	return startListener(t, hs, limit)
}

func startListener(t testing.TB, hs *http.Server, limit func(net.Listener) net.Listener) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(limit(ln)) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// halfOpen opens a connection and sends the headers of a signed-looking
// POST that declares contentLength bytes, then sends only prefix of them.
func halfOpen(t *testing.T, addr string, contentLength int, prefix int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-GitHub-Event: pull_request\r\n"+
		"X-GitHub-Delivery: flood\r\nX-Hub-Signature-256: sha256=%s\r\nContent-Length: %d\r\n\r\n", strings.Repeat("0", 64), contentLength)
	if prefix > 0 {
		if _, err := c.Write([]byte(strings.Repeat(" ", prefix))); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// waitFor polls cond until it holds, or fails at the binary's deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, what, cond)
}

// TestHalfOpenFloodIsBounded is the attack of issue 11 on a real server on
// loopback: connections that send the headers of a POST declaring GitHub's
// maximum body (25 MiB) and then nothing, or a little of it. Before the fix
// the handler sized its buffer from Content-Length, so 100 such connections
// cost 2.2 GB. Now buffers follow the bytes received: the heap grows by a
// few KiB per connection. The bound asserted is generous (16 MiB for 200
// connections; 25 MiB per connection before), not a timing.
func TestHalfOpenFloodIsBounded(t *testing.T) {
	env := newTestEnv(t, nil)
	addr := startLoopback(t, env.srv, HTTPOptions{ErrorLog: nopLogger()})
	before := heapInuse()
	const headerOnly, trickling, sent = 100, 100, 10_000
	var conns []net.Conn
	for range headerOnly {
		conns = append(conns, halfOpen(t, addr, DefaultMaxBodyBytes, 0))
	}
	for range trickling {
		conns = append(conns, halfOpen(t, addr, DefaultMaxBodyBytes, sent))
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Every handler is reading: a header-only one holds its first 4 KiB
	// buffer, a trickling one has grown to 16 KiB for its 10,000 bytes.
	want := int64(headerOnly*firstBodyChunk + trickling*4*firstBodyChunk)
	waitFor(t, "every handler to hold its body buffer", func() bool { return env.srv.budget.used.Load() == want })
	grown := int64(heapInuse()) - int64(before)
	t.Logf("%d half-open connections declaring %d bytes each: heap grew %.1f MiB (%.1f KiB per connection); body buffers %d KiB in all",
		len(conns), DefaultMaxBodyBytes, float64(grown)/(1<<20), float64(grown)/1024/float64(len(conns)), want>>10)
	if grown > 16<<20 {
		t.Fatalf("heap grew %d bytes for %d half-open connections, want at most 16 MiB", grown, len(conns))
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	waitFor(t, "the body budget to be given back", func() bool { return env.srv.budget.used.Load() == 0 })
}

// TestBodyBudget: once the in-flight budget is spent, a request that needs
// more gets 503 body_budget (and its connection is closed), and the
// requests already holding buffers complete normally.
func TestBodyBudget(t *testing.T) {
	const budget = 64 << 10
	// One client may spend the whole budget here, and nothing is old enough
	// to be cut for room: this is the budget alone (TestBodyHold* test the
	// defences).
	env := newTestEnv(t, func(o *Options) {
		o.MaxBodyBytes, o.MaxInFlightBytes, o.MaxClientInFlightBytes = 32<<10, budget, budget
		o.BodyEvictIdle, o.BodyEvictAge = time.Hour, time.Hour
	})
	addr := startLoopback(t, env.srv, HTTPOptions{ErrorLog: nopLogger()})
	// Each holder has sent 10,000 bytes of a 16,000-byte ping: its buffer
	// has grown to the declared length (plus the byte that sees EOF),
	// rounded up to its 16 KiB size class.
	const size, class = 16_000, 16 << 10
	body := `{"zen":"x"}` + strings.Repeat(" ", size-len(`{"zen":"x"}`))
	const holding = budget / class
	var holders []net.Conn
	for range holding {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-GitHub-Event: ping\r\n"+
			"X-GitHub-Delivery: hold\r\nX-Hub-Signature-256: %s\r\nContent-Length: %d\r\n\r\n%s",
			Sign([]byte(testSecret), []byte(body)), len(body), body[:10_000])
		holders = append(holders, c)
	}
	waitFor(t, "the budget to be spent", func() bool { return env.srv.budget.used.Load() == holding*class })
	// One more: refused.
	late := halfOpen(t, addr, 20_000, 10_000)
	defer late.Close()
	resp, err := http.ReadResponse(bufio.NewReader(late), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !resp.Close || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over budget: %d close=%v retry-after=%q %s, want 503, Connection: close, Retry-After", resp.StatusCode, resp.Close, resp.Header.Get("Retry-After"), b)
	}
	if got := metricValue(t, env.reg, "shipgate_webhook_rejections_total", map[string]string{"reason": reasonBodyBudget}); got != 1 {
		t.Fatalf("body_budget rejections = %v, want 1", got)
	}
	// The holders finish and are answered.
	for _, c := range holders {
		if _, err := c.Write([]byte(body[10_000:])); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("holder answered %d, want 200", resp.StatusCode)
		}
	}
	waitFor(t, "the body budget to be given back", func() bool { return env.srv.budget.used.Load() == 0 })
}

// TestSlowClientsAreCutOff: a connection that never finishes its headers,
// and one that never sends its declared body, are closed by the server
// after ReadHeaderTimeout and ReadTimeout.
func TestSlowClientsAreCutOff(t *testing.T) {
	env := newTestEnv(t, func(o *Options) { o.BodyTimeout = 200 * time.Millisecond })
	addr := startLoopback(t, env.srv, HTTPOptions{ReadHeaderTimeout: 100 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, ErrorLog: nopLogger()})
	partialHeaders, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer partialHeaders.Close()
	fmt.Fprintf(partialHeaders, "POST /webhook HTTP/1.1\r\nHost: x\r\n")
	noBody := halfOpen(t, addr, 1000, 10)
	defer noBody.Close()
	for name, c := range map[string]net.Conn{"partial headers": partialHeaders, "missing body": noBody} {
		_ = c.SetReadDeadline(testwait.Deadline(t))
		_, err := io.ReadAll(c) // returns when the server closes the connection
		if err != nil {
			t.Fatalf("%s: %v (the server did not close the connection)", name, err)
		}
	}
	waitFor(t, "the body budget to be given back", func() bool { return env.srv.budget.used.Load() == 0 })
}

// TestMaxHeaderBytes: headers past the cap are refused with 431 before any
// handler runs.
func TestMaxHeaderBytes(t *testing.T) {
	env := newTestEnv(t, nil)
	addr := startLoopback(t, env.srv, HTTPOptions{MaxHeaderBytes: 8 << 10, ErrorLog: nopLogger()})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n", strings.Repeat("a", 64<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d, want 431", resp.StatusCode)
	}
}

// TestLimitListener: past MaxConnections, a new connection is not served
// until an open one closes.
func TestLimitListener(t *testing.T) {
	env := newTestEnv(t, nil)
	addr := startLoopback(t, env.srv, HTTPOptions{MaxConnections: 2, ErrorLog: nopLogger()})
	a, b := halfOpen(t, addr, 100, 0), halfOpen(t, addr, 100, 0)
	defer a.Close()
	defer b.Close()
	waitFor(t, "two handlers reading", func() bool { return env.srv.budget.used.Load() == 2*firstBodyChunk })
	third, err := net.Dial("tcp", addr) // the kernel completes the handshake; Accept waits
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	fmt.Fprintf(third, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	got := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(third), nil)
		if err != nil {
			got <- 0
			return
		}
		got <- resp.StatusCode
	}()
	select {
	case code := <-got:
		t.Fatalf("third connection served (%d) while two were open and the limit is 2", code)
	case <-time.After(100 * time.Millisecond):
	}
	a.Close()
	if code := wait(t, got, "the third connection's answer"); code != http.StatusOK {
		t.Fatalf("healthz %d", code)
	}
}
