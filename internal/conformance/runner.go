package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The runtime oracles of the agents that are not Claude Code
// (copilotrun.go, geminirun.go, opencoderun.go) share their runner: each
// case is one session in a throwaway project (newRunProject), the cases
// run on a few workers (runCases), and their reports list a capped number
// of outcomes (writeCapped). What differs is the agent's session, how a
// tool result reads as a decision, and what counts as a disagreement.

// runCases runs one for every case index 0..n-1 on workers goroutines (at
// least one) and hands each case's outcomes to collect, one call at a
// time (the caller's report needs no lock of its own).
func runCases[O any](n, workers int, one func(i int) ([]O, error), collect func(i int, outs []O, err error)) {
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs, err := one(i)
				mu.Lock()
				collect(i, outs, err)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// newRunProject makes a throwaway folder (its name starting with prefix,
// under $TMPDIR) holding the project proj/ — files and an empty .git, so
// the agent sees a repository root — and an empty home/ for the session's
// HOME. done removes the folder.
func newRunProject(prefix string, files map[string]string) (proj, home string, done func(), err error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	proj, home = filepath.Join(dir, "proj"), filepath.Join(dir, "home")
	if err := writeTree(proj, files); err != nil {
		done()
		return "", "", nil, err
	}
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		done()
		return "", "", nil, fmt.Errorf("making the project a repository: %w", err)
	}
	return proj, home, done, nil
}

// writeCapped prints line(x) for the first max items, one a line.
func writeCapped[T any](w *strings.Builder, max int, items []T, line func(T) string) {
	for i, x := range items {
		if i == max {
			break
		}
		w.WriteString(line(x))
		w.WriteByte('\n')
	}
}

// errorLine is a report's line for one error.
func errorLine(e string) string { return "  error: " + e }
