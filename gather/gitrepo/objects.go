package gitrepo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ObjectInfo is what git cat-file --batch-check says of an object.
type ObjectInfo struct {
	Oid  string
	Type string // blob, tree, commit or tag
	Size int64
}

// Objects reads objects of one repository through two long-lived git
// processes (git cat-file --batch-check for types and sizes, git cat-file
// --batch for content), started on first use: a gather that reads a
// hundred files costs two git processes instead of two hundred (on a
// 200,000-object repository each short-lived git costs a few milliseconds
// of CPU to start). The size is always asked first, so an oversized blob
// is never streamed. Objects is safe for concurrent use (requests are
// serialised); Close ends the processes.
type Objects struct {
	r      *Repo
	mu     sync.Mutex
	check  *catProc
	cat    *catProc
	closed bool
}

// Objects returns a reader of r's objects; the caller must Close it.
func (r *Repo) Objects() *Objects { return &Objects{r: r} }

// errObjectsClosed is returned by a read after Close.
var errObjectsClosed = errors.New("object reader closed")

// Info says what name (an object id, or REV:PATH with PATH from the top
// of the tree, never following a symlink) is; found is false when it names
// nothing. A name git's batch protocol cannot carry (a newline) is an error.
func (o *Objects) Info(ctx context.Context, name string) (info ObjectInfo, found bool, err error) {
	if strings.ContainsAny(name, "\n\r\x00") || name == "" || strings.HasPrefix(name, "-") {
		return ObjectInfo{}, false, fmt.Errorf("object name %q cannot be asked of git cat-file --batch-check", name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.proc(&o.check, "--batch-check")
	if err != nil {
		return ObjectInfo{}, false, err
	}
	header, err := p.ask(ctx, name)
	if err != nil {
		o.drop(&o.check)
		return ObjectInfo{}, false, fmt.Errorf("looking up %s in %s: %w", name, o.r.root, err)
	}
	info, found, err = parseBatchHeader(header, name)
	if err != nil {
		o.drop(&o.check)
		return ObjectInfo{}, false, fmt.Errorf("looking up %s in %s: %w", name, o.r.root, err)
	}
	return info, found, nil
}

// Blob reads the content of blob oid, which Info said is at most max
// bytes (a larger one is a *TooLargeError, not read).
func (o *Objects) Blob(ctx context.Context, oid string, max int64) ([]byte, error) {
	if strings.ContainsAny(oid, "\n\r\x00 ") || oid == "" || strings.HasPrefix(oid, "-") {
		return nil, fmt.Errorf("object id %q cannot be asked of git cat-file --batch", oid)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.proc(&o.cat, "--batch")
	if err != nil {
		return nil, err
	}
	data, err := p.blob(ctx, oid, max)
	if err != nil {
		var tl *TooLargeError
		if !errors.As(err, &tl) {
			o.drop(&o.cat)
		}
		return nil, err
	}
	return data, nil
}

// Close ends the git processes; reads after it fail.
func (o *Objects) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.drop(&o.check)
	o.drop(&o.cat)
	return nil
}

func (o *Objects) proc(slot **catProc, mode string) (*catProc, error) {
	if o.closed {
		return nil, errObjectsClosed
	}
	if *slot != nil {
		return *slot, nil
	}
	p, err := startCat(o.r, mode)
	if err != nil {
		return nil, err
	}
	*slot = p
	return p, nil
}

// drop ends the process in slot (after an error its stream position is
// unknown; the next request starts a new one).
func (o *Objects) drop(slot **catProc) {
	if *slot != nil {
		(*slot).close()
		*slot = nil
	}
}

// catProc is one running git cat-file --batch or --batch-check.
type catProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	done chan struct{}
}

func startCat(r *Repo, mode string) (*catProc, error) {
	cmd := exec.Command(r.git, "--no-pager", "-c", "core.quotepath=off", "-c", "color.ui=false", "cat-file", mode)
	cmd.Dir = r.root
	cmd.Env = gitEnv(cmd.Environ())
	cmd.WaitDelay = 2 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("starting git cat-file %s in %s: %w", mode, r.root, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("starting git cat-file %s in %s: %w", mode, r.root, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting git cat-file %s in %s: %w", mode, r.root, err)
	}
	p := &catProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *catProc) close() {
	p.in.Close() // git exits at the end of its input
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// ask sends one request line and returns the header line of the answer.
// A context that ends while git answers kills the process.
func (p *catProc) ask(ctx context.Context, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	stop := context.AfterFunc(ctx, func() { _ = p.cmd.Process.Kill() })
	defer stop()
	if _, err := io.WriteString(p.in, name+"\n"); err != nil {
		return "", p.failed(ctx, err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return "", p.failed(ctx, err)
	}
	return strings.TrimSuffix(line, "\n"), nil
}

// blob asks for oid's content and reads it (bounded by max: the header's
// size is checked before the content is read).
func (p *catProc) blob(ctx context.Context, oid string, max int64) ([]byte, error) {
	header, err := p.ask(ctx, oid)
	if err != nil {
		return nil, err
	}
	info, found, err := parseBatchHeader(header, oid)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("object %s is missing", oid)
	}
	if info.Type != "blob" {
		return nil, fmt.Errorf("object %s is a %s, not a blob", oid, info.Type)
	}
	if info.Size > max {
		// The content follows on the stream: the caller drops this process.
		return nil, fmt.Errorf("object %s is %d bytes, over the %d asked for", oid, info.Size, max)
	}
	stop := context.AfterFunc(ctx, func() { _ = p.cmd.Process.Kill() })
	defer stop()
	buf := make([]byte, info.Size+1) // the content and its closing newline
	if _, err := io.ReadFull(p.out, buf); err != nil {
		return nil, p.failed(ctx, err)
	}
	if buf[info.Size] != '\n' {
		return nil, fmt.Errorf("git cat-file --batch: object %s not followed by a newline", oid)
	}
	return buf[:info.Size], nil
}

func (p *catProc) failed(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return fmt.Errorf("git cat-file: %w", err)
}

// parseBatchHeader parses "OID TYPE SIZE" or "NAME missing" (also
// "NAME ambiguous", an error).
func parseBatchHeader(line, name string) (ObjectInfo, bool, error) {
	if rest, ok := strings.CutPrefix(line, name+" "); ok && (rest == "missing" || rest == "ambiguous") {
		if rest == "ambiguous" {
			return ObjectInfo{}, false, fmt.Errorf("object name %s is ambiguous", name)
		}
		return ObjectInfo{}, false, nil
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return ObjectInfo{}, false, fmt.Errorf("unexpected git cat-file answer %q", line)
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n < 0 {
		return ObjectInfo{}, false, fmt.Errorf("unexpected git cat-file answer %q", line)
	}
	return ObjectInfo{Oid: f[0], Type: f[1], Size: n}, true, nil
}
