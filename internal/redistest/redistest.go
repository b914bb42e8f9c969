// Package redistest starts a real, private redis-server for tests: on a free
// loopback port, with its files in a temporary directory, without
// persistence, stopped when the test ends. Tests that need Redis call Start;
// it skips the test when redis-server is not installed, unless the
// environment variable SHIPGATE_REQUIRE_REDIS is set (CI sets it), in which
// case a missing binary fails the test instead of hiding it.
//
// There is deliberately no in-memory imitation of Redis here: the queue's
// Lua scripts, blocking reads and expiry are exercised against the server
// that runs in production.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireEnv names the environment variable that turns "redis-server is not
// installed" from a skip into a failure.
const RequireEnv = "SHIPGATE_REQUIRE_REDIS"

// Server is a running redis-server.
type Server struct {
	// Addr is host:port on loopback.
	Addr string
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
	err  error // the process's exit status, valid after done closes
}

// URL is the server's redis:// URL, selecting database 0.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// Binary returns the path of redis-server, or "" when it is not installed.
func Binary() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// Start runs a redis-server for the test and stops it at cleanup. It skips
// the test when the binary is missing and RequireEnv is unset.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("redis-server is not installed but %s is set: install it (apt-get install -y redis-server)", RequireEnv)
		}
		t.Skipf("redis-server is not installed (apt-get install -y redis-server); set %s=1 to make this a failure", RequireEnv)
	}
	var lastErr error
	for range 5 { // a free port can be taken between choosing and binding it
		s, err := start(t, bin)
		if err == nil {
			t.Cleanup(s.stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("starting redis-server: %v", lastErr)
	return nil
}

func start(t testing.TB, bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, done: make(chan struct{})}
	s.cmd = exec.Command(bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--dir", dir, "--save", "", "--appendonly", "no",
		"--protected-mode", "yes", "--daemonize", "no", "--loglevel", "warning",
		"--logfile", filepath.Join(dir, "redis.log"))
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("exec %s: %w", bin, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("redis-server exited at start (%v): %s", s.err, s.logTail())
		default:
		}
		if err := ping(s.Addr); err == nil {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("redis-server did not answer PING on %s within 10s: %s", s.Addr, s.logTail())
}

// stop kills the server and waits for it.
func (s *Server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

func (s *Server) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if err != nil {
		return "(no log)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping speaks just enough RESP to ask PING, so this helper needs no client.
func ping(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return errors.New("unexpected reply " + strings.TrimSpace(line))
	}
	return nil
}
