package webhook

import (
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
	// MaxConnections caps connections open at once; past it new ones wait
	// in the kernel's accept backlog (costing this process nothing) until
	// one closes. Each open connection costs roughly 10–20 KiB.
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
	srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(o.ErrorLog.Handler(), slog.LevelWarn),
	}
	n := o.MaxConnections
	return srv, func(ln net.Listener) net.Listener { return LimitListener(ln, n) }
}

// LimitListener returns a listener that has at most n accepted connections
// open at once: Accept waits for one to close.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	closeOnce sync.Once
	done      chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
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
