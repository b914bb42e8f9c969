package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/shipgate-app/shipgate/agentfiles/codex"
)

// This file holds codex.EffectiveConfig (what a trusted project's
// .codex/config.toml sets) to `codex debug prompt-input`, which renders
// the effective sandbox mode, network access, writable roots and approval
// policy into the model's prompt without a login or the network. Each
// case is a project folder whose .codex/config.toml is generated, trusted
// by a throwaway user config (HOME and CODEX_HOME), with TMPDIR fixed.

// CodexConfigCase is one generated config.toml.
type CodexConfigCase struct {
	Class string
	TOML  string
}

// codexConfigTmp is the $TMPDIR every case runs with.
const codexConfigTmp = "/var/tmp"

// GenerateCodexConfigs makes n config.toml files from a seed.
func GenerateCodexConfigs(seed uint64, n int) []CodexConfigCase {
	rng := rand.New(rand.NewPCG(seed, 0x746f6d6c))
	one := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var out []CodexConfigCase
	for len(out) < n {
		var b strings.Builder
		class := "keys"
		if rng.IntN(4) == 0 {
			b.WriteString("# a comment\nmodel = \"o3\"\n")
		}
		if v := one("", "on-request", "on-failure", "never", "never", "granular", "bogus"); v != "" {
			fmt.Fprintf(&b, "approval_policy = %q\n", v)
			if v == "granular" || v == "bogus" {
				class = "refused"
			}
		}
		if v := one("", "read-only", "workspace-write", "workspace-write", "danger-full-access", "bogus"); v != "" {
			fmt.Fprintf(&b, "sandbox_mode = %q\n", v)
			if v == "bogus" {
				class = "refused"
			}
		}
		if rng.IntN(3) == 0 {
			class = "profile"
			b.WriteString("profile = \"yolo\"\n")
		}
		if rng.IntN(2) == 0 {
			b.WriteString("totally_unknown_key = 1\n")
		}
		if rng.IntN(2) == 0 {
			b.WriteString("\n[sandbox_workspace_write]\n")
			if v := one("", "true", "false"); v != "" {
				fmt.Fprintf(&b, "network_access = %s\n", v)
			}
			var roots []string
			for _, r := range []string{"/opt", "/", "/srv/data"} {
				if rng.IntN(3) == 0 {
					roots = append(roots, fmt.Sprintf("%q", r))
				}
			}
			if len(roots) > 0 {
				fmt.Fprintf(&b, "writable_roots = [%s]\n", strings.Join(roots, ", "))
			}
			for _, k := range []string{"exclude_slash_tmp", "exclude_tmpdir_env_var"} {
				if rng.IntN(3) == 0 {
					fmt.Fprintf(&b, "%s = %v\n", k, rng.IntN(2) == 0)
				}
			}
		}
		if class == "profile" || rng.IntN(4) == 0 {
			b.WriteString("\n[profiles.yolo]\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n")
		}
		if rng.IntN(5) == 0 {
			class = "trust"
			b.WriteString("\n[projects.\"/\"]\ntrust_level = \"trusted\"\n")
		}
		if rng.IntN(8) == 0 {
			class = "refused"
			b.WriteString("broken = \n")
		}
		out = append(out, CodexConfigCase{Class: class, TOML: b.String()})
	}
	return out
}

// CodexConfigOutcome is one config of both sides.
type CodexConfigOutcome struct {
	Case             CodexConfigCase
	Codex, Shipgate  string // "approval=… sandbox=… network=… roots=…" or "error"
	CodexDetail, Err string
}

// Agrees reports whether both sides read the same.
func (o CodexConfigOutcome) Agrees() bool { return o.Codex == o.Shipgate }

var (
	reSandbox  = regexp.MustCompile("`sandbox_mode` is `([a-z-]+)`")
	reNetwork  = regexp.MustCompile(`Network access is (enabled|restricted)`)
	reRoots    = regexp.MustCompile("writable roots are ((?:`[^`]*`(?:, )?)+)")
	reApproval = regexp.MustCompile(`Approval policy is currently never`)
)

// RunCodexConfigs renders each case with the binary and compares.
func RunCodexConfigs(ctx context.Context, bin string, cases []CodexConfigCase, workers int) ([]CodexConfigOutcome, []string) {
	out := make([]CodexConfigOutcome, len(cases))
	var errs []string
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o, err := codexConfigOne(ctx, bin, cases[i])
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
				}
				out[i] = o
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
	return out, errs
}

func codexConfigOne(ctx context.Context, bin string, c CodexConfigCase) (CodexConfigOutcome, error) {
	o := CodexConfigOutcome{Case: c}
	dir, err := os.MkdirTemp("", "shipgate-codexcfg-")
	if err != nil {
		return o, err
	}
	defer os.RemoveAll(dir)
	home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	for _, d := range []string{filepath.Join(home, ".codex"), filepath.Join(proj, ".codex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return o, err
		}
	}
	user := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", proj)
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(user), 0o644); err != nil {
		return o, err
	}
	if err := os.WriteFile(filepath.Join(proj, ".codex", "config.toml"), []byte(c.TOML), 0o644); err != nil {
		return o, err
	}
	cmd := exec.CommandContext(ctx, bin, "debug", "prompt-input", "hi")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "TMPDIR="+codexConfigTmp, "RUST_BACKTRACE=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); ok && strings.Contains(stderr.String(), "Error") {
			o.Codex, o.CodexDetail = "error", firstLine(stderr.String(), "Error")
		} else {
			return o, fmt.Errorf("codex debug prompt-input: %v: %s", err, stderr.String())
		}
	} else {
		o.Codex = renderPrompt(stdout.String(), proj)
	}
	e, err := codex.EffectiveConfig(".codex/config.toml", []byte(c.TOML), "<project>", codexConfigTmp)
	if err != nil {
		o.Shipgate, o.Err = "error", err.Error()
	} else {
		approval := "asks"
		if e.Approval == "never" {
			approval = "never"
		}
		o.Shipgate = fmt.Sprintf("approval=%s sandbox=%s network=%v roots=%s", approval, e.Sandbox, e.Network, strings.Join(e.Roots, ","))
	}
	return o, nil
}

// renderPrompt reads the effective settings out of the rendered prompt.
func renderPrompt(s, proj string) string {
	approval := "asks"
	if reApproval.MatchString(s) {
		approval = "never"
	}
	sandbox := ""
	if m := reSandbox.FindStringSubmatch(s); m != nil {
		sandbox = m[1]
	}
	network := false
	if m := reNetwork.FindStringSubmatch(s); m != nil {
		network = m[1] == "enabled"
	}
	var roots []string
	if sandbox == "workspace-write" {
		if m := reRoots.FindStringSubmatch(s); m != nil {
			for _, r := range strings.Split(m[1], ", ") {
				r = strings.Trim(r, "`")
				if r == proj {
					r = "<project>"
				}
				roots = append(roots, r)
			}
		}
	}
	sort.Strings(roots)
	return fmt.Sprintf("approval=%s sandbox=%s network=%v roots=%s", approval, sandbox, network, strings.Join(roots, ","))
}

func firstLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(s)
}

// WriteCodexConfigs prints the figures and every disagreement.
func WriteCodexConfigs(w io.Writer, os []CodexConfigOutcome, errs []string) bool {
	agree := 0
	by := map[string][2]int{}
	for _, o := range os {
		s := by[o.Case.Class]
		s[0]++
		if o.Agrees() {
			agree++
			s[1]++
		}
		by[o.Case.Class] = s
	}
	fmt.Fprintf(w, "Codex CLI %s config.toml (debug prompt-input): %d configs, %d agree (%.1f %%)\n", CodexVersion, len(os), agree, pct(agree, len(os)))
	var classes []string
	for c := range by {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		fmt.Fprintf(w, "  %-8s %4d configs, %4d agree\n", c, by[c][0], by[c][1])
	}
	for _, o := range os {
		if !o.Agrees() {
			fmt.Fprintf(w, "DISAGREE [%s] codex: %s %s\n  shipgate: %s %s\n%s", o.Case.Class, o.Codex, o.CodexDetail, o.Shipgate, o.Err, indent(o.Case.TOML))
		}
	}
	for _, e := range errs {
		fmt.Fprintf(w, "ERROR %s\n", e)
	}
	return agree == len(os) && len(errs) == 0 && len(os) > 0
}
