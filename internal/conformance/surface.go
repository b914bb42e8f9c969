package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The traced surface: which repository paths each agent's binary opens,
// stats or lists when it starts in a repository and when it runs a tool
// call (against a fake model: fakeapi.go, fakemodels.go), recorded with `strace -f -e trace=file` over
// a fixture repository that holds a file of every kind the agent is known
// to read. The lists are pinned in judge/testdata/surface/<agent>-<version>.txt
// and diff's TestTracedSurfaceClassified fails when one names a path
// Shipgate does not classify (or exempt with a reason). `make surfaces`
// (SHIPGATE_TRACE_SURFACE=update) records them again; with
// SHIPGATE_TRACE_SURFACE=1 the test fails when a trace differs from the
// pinned list.

// SurfaceEnv selects the traced-surface test: "1" compares, "update"
// rewrites the pinned lists.
const SurfaceEnv = "SHIPGATE_TRACE_SURFACE"

// quoted is an strace argument: a double-quoted string.
var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// ParseTrace lists the paths under root an strace output names (opened,
// statted, listed, whether they exist or not), relative to root, sorted
// and unique. A relative path is resolved against the working directory
// of the process that names it, as strace -f shows it (straceArgs traces
// chdir, fchdir and the calls that start processes): the first process
// starts in root, a child starts where its parent was when it was
// started, a successful chdir moves it, and after fchdir, chroot or
// pivot_root its working directory is unknown and its relative paths are
// not the repository's. A relative path counts only as the first argument
// of a call that takes one path or right after AT_FDCWD (mount's target,
// never its source); execve's arguments and paths relative to another
// directory descriptor are not paths of the repository. What lies under a
// node_modules folder is listed as that folder (the agents install their
// own packages there).
func ParseTrace(trace []byte, root string) []string {
	root = filepath.Clean(root)
	seen := map[string]bool{}
	add := func(cwd, p string) {
		if p == "" || strings.Contains(p, "\\") {
			return
		}
		if !filepath.IsAbs(p) {
			if cwd == "" {
				return // unknown working directory
			}
			p = filepath.Join(cwd, p)
		}
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return
		}
		rel = filepath.ToSlash(rel)
		if i := strings.Index("/"+rel+"/", "/node_modules/"); i >= 0 {
			rel = rel[:i+len("node_modules")]
		}
		seen[rel] = true
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	// Pass 1: which line starts each child (the parent's clone, fork or
	// vfork whose result is the child's pid).
	startedAt := map[string]int{} // child pid -> index of the starting line
	pending := map[string]int{}   // pid -> index of its unfinished starting call
	for i, line := range lines {
		pid, name, rest, resumed := traceLine(line)
		if !processStart[name] {
			continue
		}
		if strings.HasSuffix(rest, "<unfinished ...>") {
			pending[pid] = i
			continue
		}
		child, ok := traceResult(rest)
		if !ok || child == "0" {
			continue
		}
		at := i
		if resumed {
			if j, ok := pending[pid]; ok {
				at = j
			}
			delete(pending, pid)
		}
		startedAt[child] = at
	}
	// Pass 2: each process's working directory, and the paths.
	cwd := map[string]string{}
	known := map[string]bool{}
	atStart := map[int]string{} // index of a starting line -> the parent's cwd then
	chdirArg := map[string]string{}
	dirOf := func(pid string) string {
		if !known[pid] {
			known[pid] = true
			cwd[pid] = root
			if at, ok := startedAt[pid]; ok {
				cwd[pid] = atStart[at]
			}
		}
		return cwd[pid]
	}
	for i, line := range lines {
		pid, name, rest, resumed := traceLine(line)
		if name == "" || name == "execve" || name == "execveat" {
			continue
		}
		dir := dirOf(pid)
		if processStart[name] && !resumed {
			atStart[i] = dir
			continue
		}
		switch name {
		case "chdir":
			if !resumed {
				if q := quoted.FindStringSubmatch(rest); q != nil {
					chdirArg[pid] = q[1]
				}
			}
			if r, ok := traceResult(rest); ok {
				if r == "0" {
					if a := chdirArg[pid]; filepath.IsAbs(a) {
						cwd[pid] = filepath.Clean(a)
					} else if dir != "" {
						cwd[pid] = filepath.Join(dir, a)
					}
				}
				delete(chdirArg, pid)
			}
			if !resumed {
				if q := quoted.FindStringSubmatch(rest); q != nil {
					add(dir, q[1])
				}
			}
			continue
		case "fchdir", "chroot", "pivot_root":
			if r, ok := traceResult(rest); ok && r == "0" {
				cwd[pid] = ""
			}
			if name == "fchdir" {
				continue
			}
		}
		if resumed {
			continue
		}
		for j, q := range quoted.FindAllStringSubmatchIndex(rest, -1) {
			str := rest[q[2]:q[3]]
			if name == "mount" && j == 0 {
				continue // the source: a device or a file system's name
			}
			if filepath.IsAbs(str) {
				add(dir, str)
				continue
			}
			before := strings.TrimSpace(rest[:q[0]])
			if (j == 0 && before == "") || strings.HasSuffix(before, "AT_FDCWD,") || (name == "mount" && j == 1) {
				add(dir, str)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// processStart are the calls that start a process (their result is the
// child's pid).
var processStart = map[string]bool{"clone": true, "clone3": true, "fork": true, "vfork": true}

// syscallLine is the start of an strace line: an optional pid, the call's
// name and its opening parenthesis; resumedLine a call strace split.
var (
	syscallLine = regexp.MustCompile(`^(?:\[?pid\s+)?(?:(\d+)\]?\s+)?([a-z0-9_]+)\(`)
	resumedLine = regexp.MustCompile(`^(?:\[?pid\s+)?(?:(\d+)\]?\s+)?<\.\.\. ([a-z0-9_]+) resumed>`)
	resultTail  = regexp.MustCompile(`\)\s+= (-?\d+)(?:\s|$)`)
)

// traceLine splits an strace line: the pid ("" without -f), the call,
// what follows its opening parenthesis (or the resumed marker), and
// whether it resumes a call strace split.
func traceLine(line string) (pid, name, rest string, resumed bool) {
	if m := resumedLine.FindStringSubmatch(line); m != nil {
		return m[1], m[2], line[len(m[0]):], true
	}
	if m := syscallLine.FindStringSubmatch(line); m != nil {
		return m[1], m[2], line[len(m[0]):], false
	}
	return "", "", "", false
}

// traceResult is a finished call's return value.
func traceResult(rest string) (string, bool) {
	m := resultTail.FindAllStringSubmatch(rest, -1)
	if m == nil {
		return "", false
	}
	return m[len(m)-1][1], true
}

// SurfaceFile is where an agent's pinned list lives, relative to the
// module root: <agent>-<version>.txt for a start, with a suffix for
// another kind of run ("tool": a session that runs tool calls).
func SurfaceFile(agentName, version, kind string) string {
	name := agentName + "-" + version
	if kind != "" {
		name += "-" + kind
	}
	return filepath.Join("judge", "testdata", "surface", name+".txt")
}

// WriteSurface renders a pinned list: a header naming the agent, its
// version and how the list was recorded, then one path a line.
func WriteSurface(agentName, version, how string, paths []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s %s: repository paths its binary opens, stats or lists (strace -f -e trace=file)\n", agentName, version)
	fmt.Fprintf(&b, "# recorded by `make surfaces` (internal/conformance/surface.go): %s\n", how)
	for _, p := range paths {
		b.WriteString(p + "\n")
	}
	return b.Bytes()
}

// traceRun runs a command under strace in dir with env and returns the
// repository paths it touched.
func traceRun(ctx context.Context, dir string, env []string, bin string, args ...string) ([]string, error) {
	out, err := os.CreateTemp("", "shipgate-strace-")
	if err != nil {
		return nil, err
	}
	out.Close()
	defer os.Remove(out.Name())
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "strace", append(straceArgs(out.Name()), append([]string{bin}, args...)...)...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	runErr := cmd.Run()
	data, err := os.ReadFile(out.Name())
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("strace %s %v: no trace (%v): %s", bin, args, runErr, clip(stderr.String(), 400))
	}
	return ParseTrace(data, dir), nil
}

// writeTree writes files under dir.
func writeTree(dir string, files map[string]string) error {
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// traceWrap is the command that runs an agent under strace, writing to
// out.
func traceWrap(out string) []string {
	return append([]string{"strace"}, straceArgs(out)...)
}

// straceArgs are strace's options for a trace written to out: every call
// that names a file, and those ParseTrace follows working directories
// with (fchdir, and the calls that start processes).
func straceArgs(out string) []string {
	return []string{"-f", "-qq", "-e", "trace=file,fchdir,clone,clone3,fork,vfork", "-o", out}
}

// traceSession runs an agent session under strace and returns the
// repository paths it touched with the session's result.
func traceSession(ctx context.Context, s AgentSession) ([]string, AgentResult, error) {
	f, err := os.CreateTemp("", "shipgate-strace-")
	if err != nil {
		return nil, AgentResult{}, err
	}
	f.Close()
	defer os.Remove(f.Name())
	s.Wrap = traceWrap(f.Name())
	res, err := RunAgent(ctx, s)
	if err != nil {
		return nil, res, err
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return nil, res, err
	}
	if len(data) == 0 {
		return nil, res, fmt.Errorf("strace %s: no trace: %s", s.Agent, clip(res.Stderr, 400))
	}
	return ParseTrace(data, s.Proj), res, nil
}
