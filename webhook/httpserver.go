package webhook

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults for HTTPOptions. GitHub gives a webhook receiver 10 seconds for
// the whole delivery, so nothing legitimate needs longer than these.
const (
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 20 * time.Second
	DefaultWriteTimeout      = 20 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultMaxConnections    = 512
)

// HTTPOptions are the per-connection limits of the listener in front of a
// Server. Zero values take the defaults above.
type HTTPOptions struct {
	// ReadHeaderTimeout bounds reading a request's headers: a client that
	// opens a connection and trickles headers is cut off after it.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (the body
	// read deadline): a client that declares a large body and sends it
	// slowly, or not at all, is cut off after it.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing the answer.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long.
	IdleTimeout time.Duration
	// MaxHeaderBytes caps request headers (GitHub's are a few KiB).
	MaxHeaderBytes int
	// MaxConnections caps connections open at once. At the cap, accepting
	// a new connection first closes the open one that has waited longest
	// without a request being handled (idle keep-alives, and connections
	// still sending their headers: a slowloris), so trickling connections
	// cannot keep real ones out; when every open one is being handled, new
	// ones wait in the kernel's accept backlog (costing this process
	// nothing) until one closes. Each open connection costs roughly 10–20
	// KiB.
	MaxConnections int
	// ErrorLog receives net/http's own errors (nil: slog.Default at warn).
	ErrorLog *slog.Logger
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.ErrorLog == nil {
		o.ErrorLog = slog.Default()
	}
	return o
}

// HTTPServer returns an http.Server for h with the limits of o, and the
// listener wrapper that enforces o.MaxConnections: serve with
// srv.Serve(limit(ln)). Anyone on the internet can reach a webhook, and
// nothing is authenticated until the whole body is read, so every
// unauthenticated resource is bounded: header bytes, the time to send
// headers and body, idle keep-alives, and open connections; body buffers
// are bounded by Options.MaxInFlightBytes.
func HTTPServer(h http.Handler, o HTTPOptions) (srv *http.Server, limit func(net.Listener) net.Listener) {
	o = o.withDefaults()
	conns := &connTracker{open: map[*limitConn]*connInfo{}}
	srv = &http.Server{
		Handler:           conns.track(h),
		ConnState:         conns.state,
		ConnContext:       conns.context,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(o.ErrorLog.Handler(), slog.LevelWarn),
	}
	n := o.MaxConnections
	return srv, func(ln net.Listener) net.Listener {
		l := LimitListener(ln, n).(*limitListener)
		l.shed = conns.shedOldest
		return l
	}
}

// connTracker knows, per open connection, whether a request on it is being
// handled and since when it is not: what the listener sheds at its cap.
type connTracker struct {
	mu   sync.Mutex
	open map[*limitConn]*connInfo
}

type connInfo struct {
	handling int       // requests in the handler (0 or 1 with HTTP/1.1)
	since    time.Time // when it was accepted or last finished a request
}

type connKey struct{}

// context remembers the connection in each of its requests' contexts.
func (t *connTracker) context(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// state follows net/http's connection states.
func (t *connTracker) state(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case http.StateNew:
		t.open[lc] = &connInfo{since: time.Now()}
	case http.StateIdle:
		if ci := t.open[lc]; ci != nil {
			ci.since = time.Now()
		}
	case http.StateClosed, http.StateHijacked:
		delete(t.open, lc)
	}
}

// track marks a connection as handling a request while h runs.
func (t *connTracker) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lc, _ := r.Context().Value(connKey{}).(*limitConn)
		t.mark(lc, 1)
		defer t.mark(lc, -1)
		h.ServeHTTP(w, r)
	})
}

func (t *connTracker) mark(lc *limitConn, d int) {
	if lc == nil {
		return
	}
	t.mu.Lock()
	if ci := t.open[lc]; ci != nil {
		ci.handling += d
	}
	t.mu.Unlock()
}

// shedOldest closes the open connection that has gone longest with no
// request in the handler, and reports whether there was one.
func (t *connTracker) shedOldest() bool {
	t.mu.Lock()
	var oldest *limitConn
	var at time.Time
	for lc, ci := range t.open {
		if ci.handling == 0 && (oldest == nil || ci.since.Before(at)) {
			oldest, at = lc, ci.since
		}
	}
	if oldest != nil {
		delete(t.open, oldest) // closing it is enough; never pick it twice
	}
	t.mu.Unlock()
	if oldest == nil {
		return false
	}
	_ = oldest.Close()
	return true
}

// LimitListener returns a listener that has at most n accepted connections
// open at once: Accept waits for one to close.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem chan struct{}
	// shed, when set, closes one open connection that is not being
	// handled (HTTPServer's connTracker); Accept calls it at the cap.
	shed      func() bool
	closeOnce sync.Once
	done      chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	default:
		if l.shed == nil {
			select {
			case l.sem <- struct{}{}:
			case <-l.done:
				return nil, net.ErrClosed
			}
			break
		}
		// At the cap: wait for a connection that really arrives (the
		// server calls Accept again at once, with nothing pending), then
		// shed an unhandled one to make its room.
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.shed()
		select {
		case l.sem <- struct{}{}:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
		return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
