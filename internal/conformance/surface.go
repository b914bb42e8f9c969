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

// ParseTrace lists the paths under root an strace -e trace=file output
// names (opened, statted, listed, whether they exist or not), relative
// to root, sorted and unique. A relative path counts only where it is
// relative to the working directory (root): the first argument of a call
// that takes one path, or the path after AT_FDCWD; execve's arguments and
// paths relative to another directory descriptor are not paths of the
// repository. What lies under a node_modules folder is listed as that
// folder (the agents install their own packages there).
func ParseTrace(trace []byte, root string) []string {
	root = filepath.Clean(root)
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" || strings.Contains(p, "\\") {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
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
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		m := syscallLine.FindStringSubmatch(line)
		if m == nil || m[1] == "execve" || m[1] == "execveat" {
			continue
		}
		args := line[len(m[0]):]
		for i, q := range quoted.FindAllStringSubmatchIndex(args, -1) {
			str := args[q[2]:q[3]]
			if filepath.IsAbs(str) {
				add(str)
				continue
			}
			// A relative path: the call's first argument, or right after
			// AT_FDCWD.
			before := strings.TrimSpace(args[:q[0]])
			if (i == 0 && before == "") || strings.HasSuffix(before, "AT_FDCWD,") {
				add(str)
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

// syscallLine is the start of an strace line: an optional pid, the call's
// name and its opening parenthesis.
var syscallLine = regexp.MustCompile(`^(?:\[?pid\s+)?(?:\d+\]?\s+)?([a-z0-9_]+)\(`)

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
	cmd := exec.CommandContext(ctx, "strace", append([]string{"-f", "-qq", "-e", "trace=file", "-o", out.Name(), bin}, args...)...)
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
	return []string{"strace", "-f", "-qq", "-e", "trace=file", "-o", out}
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
