package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/shipgate-app/shipgate/agentfiles/codex"
)

// This file holds Shipgate's Codex CLI model (agentfiles/codex) to
// the pinned @openai/codex binary: `codex execpolicy check --rules F… --
// argv…` decides each generated (rules files, argv) pair, and the same
// pair is put to codex.ParseRules and codex.Policy.Decide.

// CodexVersion is the @openai/codex release the harness installs (make
// codex) and the model names.
const CodexVersion = codex.Version

// CodexBinaryEnv points the harness at a codex executable.
const CodexBinaryEnv = "SHIPGATE_CODEX_BIN"

// CodexRequireEnv, set to 1, makes a missing codex binary a failure
// instead of a skip (CI sets it).
const CodexRequireEnv = "SHIPGATE_REQUIRE_CODEX"

// CodexCacheDir is where `make codex` installs the pinned package:
// $SHIPGATE_CODEX_CACHE, else $XDG_CACHE_HOME/shipgate/codex/<version>,
// else ~/.cache/shipgate/codex/<version>.
func CodexCacheDir() string {
	if d := os.Getenv("SHIPGATE_CODEX_CACHE"); d != "" {
		return d
	}
	return filepath.Join(cacheBase(), "shipgate", "codex", CodexVersion)
}

func cacheBase() string {
	if b := os.Getenv("XDG_CACHE_HOME"); b != "" {
		return b
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache")
}

// FindCodex returns the codex executable: $SHIPGATE_CODEX_BIN, else the
// native linux-x64 binary of the package in CodexCacheDir ("" if none).
func FindCodex() string {
	if b := os.Getenv(CodexBinaryEnv); b != "" {
		return b
	}
	p := filepath.Join(CodexCacheDir(), "node_modules", "@openai", "codex-linux-x64", "vendor",
		"x86_64-unknown-linux-musl", "bin", "codex")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// CheckCodexVersion runs `codex --version` and refuses another release.
func CheckCodexVersion(ctx context.Context, bin string) error {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}
	if got := strings.TrimSpace(string(out)); got != "codex-cli "+CodexVersion {
		return fmt.Errorf("%s is %q, the harness is pinned to codex-cli %s (make codex)", bin, got, CodexVersion)
	}
	return nil
}

// CodexOutcome is one decision of both sides.
type CodexOutcome struct {
	Case CodexCase
	// Codex and Shipgate are "allow", "prompt", "forbidden", "none" (no
	// rule matched) or "error" (the rules do not load).
	Codex, Shipgate string
	// Detail is Codex's error text or Shipgate's, for the report.
	Detail string
}

// Agrees reports whether both sides decided the same.
func (o CodexOutcome) Agrees() bool { return o.Codex == o.Shipgate }

// CodexRun is the outcome of a corpus run.
type CodexRun struct {
	Outcomes []CodexOutcome
	Errors   []string
}

// RunCodex decides every case with the binary and with the model, workers
// at a time.
func RunCodex(ctx context.Context, bin string, cases []CodexCase, workers int) *CodexRun {
	if workers < 1 {
		workers = 1
	}
	dir, err := os.MkdirTemp("", "shipgate-codex-")
	if err != nil {
		return &CodexRun{Errors: []string{err.Error()}}
	}
	defer os.RemoveAll(dir)
	// Write each distinct file set once.
	paths := map[string][]string{}
	for _, c := range cases {
		k := strings.Join(c.Files, "\x00")
		if _, ok := paths[k]; ok {
			continue
		}
		var ps []string
		for _, f := range c.Files {
			p := filepath.Join(dir, fmt.Sprintf("r%d.rules", len(paths)*8+len(ps)))
			if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
				return &CodexRun{Errors: []string{err.Error()}}
			}
			ps = append(ps, p)
		}
		paths[k] = ps
	}
	run := &CodexRun{Outcomes: make([]CodexOutcome, len(cases))}
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := cases[i]
				o := CodexOutcome{Case: c}
				var err error
				o.Codex, o.Detail, err = codexDecide(ctx, bin, paths[strings.Join(c.Files, "\x00")], c.Argv)
				if err != nil {
					mu.Lock()
					run.Errors = append(run.Errors, err.Error())
					mu.Unlock()
				}
				var sd string
				o.Shipgate, sd = ShipgateCodexDecide(c.Files, c.Argv)
				if o.Detail == "" {
					o.Detail = sd
				}
				run.Outcomes[i] = o
			}
		}()
	}
	for i := range cases {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return run
}

// codexDecide asks the binary.
func codexDecide(ctx context.Context, bin string, files, argv []string) (decision, detail string, err error) {
	args := []string{"execpolicy", "check"}
	for _, f := range files {
		args = append(args, "--rules", f)
	}
	args = append(append(args, "--"), argv...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "RUST_BACKTRACE=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if runErr != nil {
		if _, ok := runErr.(*exec.ExitError); ok && strings.Contains(stderr.String(), "failed to parse policy") {
			return "error", firstErrorLine(stderr.String()), nil
		}
		return "unclassified", stderr.String(), fmt.Errorf("codex %v: %v: %s", argv, runErr, stderr.String())
	}
	var res struct {
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return "unclassified", stdout.String(), fmt.Errorf("codex output %q: %v", stdout.String(), err)
	}
	if res.Decision == "" {
		return "none", "", nil
	}
	return res.Decision, "", nil
}

// firstErrorLine picks the line of Codex's error that says what is wrong.
func firstErrorLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "error:") || strings.Contains(l, "expected ") {
			return l
		}
	}
	return strings.TrimSpace(s)
}

// ShipgateCodexDecide is the model's decision: every file parsed with
// codex.ParseRules (one failure fails the whole load, as in Codex) and the
// union decided with Policy.Decide.
func ShipgateCodexDecide(files, argv []string) (decision, detail string) {
	var pol codex.Policy
	for i, f := range files {
		rf, err := codex.ParseRules(fmt.Sprintf("r%d.rules", i), []byte(f))
		if err != nil {
			return "error", err.Error()
		}
		pol = append(pol, rf.Rules...)
	}
	d, _ := pol.Decide(argv)
	if d == codex.NoMatch {
		return "none", ""
	}
	return d.String(), ""
}

// Failed reports whether the run must fail: any disagreement or error.
func (r *CodexRun) Failed() bool {
	if len(r.Errors) > 0 || len(r.Outcomes) == 0 {
		return true
	}
	for _, o := range r.Outcomes {
		if !o.Agrees() {
			return true
		}
	}
	return false
}

// Write prints the figures per class and up to examples disagreements.
func (r *CodexRun) Write(w io.Writer, examples int) {
	type st struct{ n, agree int }
	by := map[string]*st{}
	total := &st{}
	byCodex := map[string]int{}
	for _, o := range r.Outcomes {
		s := by[o.Case.Class]
		if s == nil {
			s = &st{}
			by[o.Case.Class] = s
		}
		s.n++
		total.n++
		byCodex[o.Codex]++
		if o.Agrees() {
			s.agree++
			total.agree++
		}
	}
	fmt.Fprintf(w, "Codex CLI %s execpolicy: %d decisions, %d agree (%.1f %%)\n", CodexVersion, total.n, total.agree, pct(total.agree, total.n))
	for _, c := range CodexClasses {
		if s := by[c]; s != nil {
			fmt.Fprintf(w, "  %-13s %5d decisions, %5d agree (%.1f %%)\n", c, s.n, s.agree, pct(s.agree, s.n))
		}
	}
	var ds []string
	for d := range byCodex {
		ds = append(ds, fmt.Sprintf("%s %d", d, byCodex[d]))
	}
	sort.Strings(ds)
	fmt.Fprintf(w, "  Codex decided: %s\n", strings.Join(ds, ", "))
	shown := 0
	for _, o := range r.Outcomes {
		if o.Agrees() || (examples >= 0 && shown >= examples) {
			continue
		}
		shown++
		fmt.Fprintf(w, "DISAGREE [%s] codex=%s shipgate=%s argv=%q (%s)\n", o.Case.Class, o.Codex, o.Shipgate, o.Case.Argv, o.Detail)
		for i, f := range o.Case.Files {
			fmt.Fprintf(w, "  --- r%d.rules\n%s", i, indent(f))
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "ERROR %s\n", e)
	}
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}
