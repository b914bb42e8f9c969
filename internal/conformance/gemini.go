package conformance

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/gemini"
)

// This file holds Shipgate's Gemini CLI model (agentfiles/gemini) to
// the policy engine shipped in the pinned @google/gemini-cli package: a
// small node script (gemini_oracle.mjs) imports its PolicyEngine and
// createPolicyEngineConfig and decides generated (settings, call) pairs;
// the same settings are read with gemini.Read and decided with
// gemini.Decide.

// GeminiVersion is the @google/gemini-cli release the harness installs
// (make gemini) and the model names.
const GeminiVersion = gemini.Version

// GeminiRequireEnv, set to 1, makes a missing package a failure instead
// of a skip (CI sets it).
const GeminiRequireEnv = "SHIPGATE_REQUIRE_GEMINI"

// geminiChunk is the bundle chunk of 0.61.0 that exports the policy
// engine (the CLI's entry imports it).
const geminiChunk = "chunk-JDPZ4CE3.js"

//go:embed gemini_oracle.mjs
var geminiOracle []byte

// GeminiCacheDir is where `make gemini` installs the pinned package:
// $SHIPGATE_GEMINI_CACHE, else <cache>/shipgate/gemini-cli/<version>.
func GeminiCacheDir() string {
	if d := os.Getenv("SHIPGATE_GEMINI_CACHE"); d != "" {
		return d
	}
	return filepath.Join(cacheBase(), "shipgate", "gemini-cli", GeminiVersion)
}

// FindGemini returns the policy-engine chunk of the installed package and
// checks its version ("" if it is not installed).
func FindGemini() (string, error) {
	pkg := filepath.Join(GeminiCacheDir(), "node_modules", "@google", "gemini-cli")
	data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return "", nil
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("%s/package.json: %w", pkg, err)
	}
	if meta.Version != GeminiVersion {
		return "", fmt.Errorf("%s is @google/gemini-cli %s, the harness is pinned to %s (make gemini)", pkg, meta.Version, GeminiVersion)
	}
	chunk := filepath.Join(pkg, "bundle", geminiChunk)
	if _, err := os.Stat(chunk); err != nil {
		return "", fmt.Errorf("the policy engine chunk of %s: %w", GeminiVersion, err)
	}
	return chunk, nil
}

// GeminiCase is one settings file and the calls decided under it.
type GeminiCase struct {
	Class    string
	Settings string // the .gemini/settings.json text
	Calls    []gemini.Call
}

// GeminiClasses are the corpus classes, in report order.
var GeminiClasses = []string{"allowed", "core", "exclude", "mixed", "mcp", "boundary"}

// GenerateGemini makes about n decisions from a seed.
func GenerateGemini(seed uint64, n int) []GeminiCase {
	rng := rand.New(rand.NewPCG(seed, 0x67656d696e69))
	pick := func(xs []string, k int) []string {
		out := []string{}
		for _, i := range rng.Perm(len(xs))[:min(k, len(xs))] {
			out = append(out, xs[i])
		}
		return out
	}
	allowed := []string{"run_shell_command(git)", "run_shell_command(git status)", "ShellTool(npm)", "run_shell_command(npm test)",
		"run_shell_command", "read_file", "write_file(docs/x.md)", "run_shell_command()", "web_fetch", "run_shell_command(ls -la)",
		"ShellTool", "glob"}
	core := []string{"run_shell_command(git)", "read_file", "glob", "run_shell_command(ls)", "write_file", "run_shell_command"}
	exclude := []string{"run_shell_command", "run_shell_command(rm)", "write_file", "ShellTool", "web_fetch", "read_file"}
	confirm := []string{"run_shell_command", "write_file", "web_fetch"}
	commands := []string{"git", "git status", "git statusx", "git status --short", "git  status", "npm", "npm test", "npm i", "npx x",
		"ls", "ls -la", "ls -lax", "echo hi", "cat README.md", "rm -rf build", "git\u00a0status", "gitx", "npm testing", "git log --oneline"}
	tools := []string{"read_file", "write_file", "web_fetch", "glob", "mcp_srv_query", "mcp_other_query", "mcp_my_srv_query", "mcp_srv"}
	var out []GeminiCase
	for len(out) == 0 || total(out) < n {
		class := GeminiClasses[len(out)%len(GeminiClasses)]
		s := map[string]any{}
		t := map[string]any{}
		switch class {
		case "allowed":
			t["allowed"] = pick(allowed, 1+rng.IntN(3))
		case "core":
			t["core"] = pick(core, 1+rng.IntN(3))
		case "exclude":
			t["exclude"] = pick(exclude, 1+rng.IntN(2))
			if rng.IntN(2) == 0 {
				t["allowed"] = pick(allowed, 1+rng.IntN(2))
			}
		case "mixed":
			// Each list absent, empty (an empty tools.core denies every
			// tool) or with a few entries.
			for k, xs := range map[string][]string{"allowed": allowed, "core": core, "exclude": exclude, "confirmationRequired": confirm} {
				if rng.IntN(3) > 0 {
					t[k] = pick(xs, rng.IntN(3))
				}
			}
		case "mcp":
			servers := map[string]any{}
			for _, name := range pick([]string{"srv", "other", "my_srv"}, 1+rng.IntN(3)) {
				servers[name] = map[string]any{"command": "true", "trust": rng.IntN(2) == 0}
			}
			s["mcpServers"] = servers
			mcp := map[string]any{}
			if rng.IntN(2) == 0 {
				mcp["allowed"] = pick([]string{"srv", "*", "other", "my_srv"}, 1+rng.IntN(2))
			}
			if rng.IntN(3) == 0 {
				mcp["excluded"] = pick([]string{"srv", "*"}, 1)
			}
			s["mcp"] = mcp
			if rng.IntN(3) == 0 {
				t["core"] = pick(core, 1+rng.IntN(2))
			}
		case "boundary":
			p := pick([]string{"git", "git status", "npm test", "ls -la"}, 1)[0]
			seps := []string{" ", "", "x", "\"", "\u00a0", "\u2003", "\t", "-", "'"}
			t["allowed"] = []string{"run_shell_command(" + p + ")"}
			var calls []gemini.Call
			for _, sp := range seps {
				calls = append(calls, gemini.Call{Tool: gemini.ShellTool, Command: p + sp}, gemini.Call{Tool: gemini.ShellTool, Command: p + sp + "y"})
			}
			if len(t) > 0 {
				s["tools"] = t
			}
			b, _ := json.MarshalIndent(s, "", "  ")
			out = append(out, GeminiCase{Class: class, Settings: string(b), Calls: calls})
			continue
		}
		if len(t) > 0 {
			s["tools"] = t
		}
		b, _ := json.MarshalIndent(s, "", "  ")
		var calls []gemini.Call
		for _, c := range commands {
			calls = append(calls, gemini.Call{Tool: gemini.ShellTool, Command: c})
		}
		for _, tl := range tools {
			calls = append(calls, gemini.Call{Tool: tl})
		}
		out = append(out, GeminiCase{Class: class, Settings: string(b), Calls: calls})
	}
	return out
}

func total(cs []GeminiCase) int {
	n := 0
	for _, c := range cs {
		n += len(c.Calls)
	}
	return n
}

// GeminiOutcome is one decision of both sides.
type GeminiOutcome struct {
	Class    string
	Settings string
	Call     gemini.Call
	// Gemini is the engine's decision and the source and priority of the
	// rule that made it.
	Gemini   string
	Source   string
	Priority float64
	// Shipgate is the model's decision, "default" when no settings rule
	// decides (Gemini's default policies and heuristics do).
	Shipgate string
	// Explained, when set, is why a disagreement is expected (Shipgate's
	// reading is the stricter, fail-closed one).
	Explained string
}

// Agrees reports whether both sides decided the same: the same decision
// by a settings rule, or both left it to Gemini's defaults.
func (o GeminiOutcome) Agrees() bool {
	if o.Shipgate == "default" {
		return o.Priority < 4 || !strings.HasPrefix(o.Source, "Settings")
	}
	return o.Gemini == o.Shipgate && o.Priority >= 4
}

// GeminiRun is a corpus run's outcome.
type GeminiRun struct {
	Outcomes []GeminiOutcome
	Errors   []string
}

// RunGemini decides every case with the engine (one node process) and
// with the model.
func RunGemini(ctx context.Context, chunk string, cases []GeminiCase) *GeminiRun {
	run := &GeminiRun{}
	dir, err := os.MkdirTemp("", "shipgate-gemini-")
	if err != nil {
		run.Errors = append(run.Errors, err.Error())
		return run
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "oracle.mjs")
	if err := os.WriteFile(script, geminiOracle, 0o644); err != nil {
		run.Errors = append(run.Errors, err.Error())
		return run
	}
	var input []map[string]any
	for _, c := range cases {
		var s map[string]any
		if err := json.Unmarshal([]byte(c.Settings), &s); err != nil {
			run.Errors = append(run.Errors, err.Error())
			return run
		}
		var calls []map[string]string
		for _, cl := range c.Calls {
			calls = append(calls, map[string]string{"tool": cl.Tool, "command": cl.Command})
		}
		input = append(input, map[string]any{"settings": s, "calls": calls})
	}
	body, _ := json.Marshal(input)
	cmd := exec.CommandContext(ctx, "node", script, chunk)
	cmd.Dir = dir
	// A throwaway HOME: no user policies or settings of this machine.
	cmd.Env = append(os.Environ(), "HOME="+dir, "USERPROFILE="+dir, "GEMINI_CLI_NO_RELAUNCH=1", "NO_COLOR=1")
	cmd.Stdin = bytes.NewReader(body)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		run.Errors = append(run.Errors, fmt.Sprintf("node %s: %v: %s", script, err, tail(stderr.String(), 2000)))
		return run
	}
	// The engine logs to stdout too: the result is the last line.
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res []struct {
		Decision string   `json:"decision"`
		Source   *string  `json:"source"`
		Priority *float64 `json:"priority"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		run.Errors = append(run.Errors, fmt.Sprintf("the oracle's output: %v", err))
		return run
	}
	i := 0
	for _, c := range cases {
		doc, err := gemini.Read(".gemini/settings.json", []byte(c.Settings))
		for _, cl := range c.Calls {
			if i >= len(res) {
				run.Errors = append(run.Errors, "the oracle answered fewer calls than asked")
				return run
			}
			r := res[i]
			i++
			o := GeminiOutcome{Class: c.Class, Settings: c.Settings, Call: cl, Gemini: r.Decision}
			if r.Source != nil {
				o.Source = *r.Source
			}
			if r.Priority != nil {
				o.Priority = *r.Priority
			}
			if err != nil {
				o.Shipgate = "error: " + err.Error()
			} else if d, rule, ok := gemini.Decide(doc.Rules, cl); ok {
				o.Shipgate = d.String()
				if !o.Agrees() && d == gemini.Allow && !rule.HasPrefix && (cl.Tool == gemini.ShellTool) && o.Gemini == "ask_user" {
					o.Explained = "a shell allow without a prefix: Gemini's dangerous-command heuristic asks for this command; Shipgate reads the allow as granting it (stricter)"
				}
				if !o.Agrees() && d == gemini.AskUser && !rule.HasPrefix && cl.Tool == gemini.ShellTool && o.Gemini == "allow" && o.Priority >= 4 {
					o.Explained = "tools.confirmationRequired on the shell: Gemini's known-safe heuristic still runs this read-only command without a prompt; Shipgate reads the rule as asking (it grants nothing either way, and the defaults beneath it do the same)"
				}
				if !o.Agrees() && d == gemini.Allow && rule.HasPrefix && o.Gemini != "allow" && strings.ContainsAny(cl.Command, "\"'") {
					o.Explained = "a command Gemini's shell parser cannot read (an unbalanced quote) falls back to its default decision; Shipgate reads the prefix allow as granting it (stricter)"
				}
			} else {
				o.Shipgate = "default"
			}
			run.Outcomes = append(run.Outcomes, o)
		}
	}
	if i != len(res) {
		run.Errors = append(run.Errors, fmt.Sprintf("the oracle answered %d calls, %d were asked", len(res), i))
	}
	return run
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Failed reports whether the run must fail: an error, or a disagreement
// that is not explained.
func (r *GeminiRun) Failed() bool {
	if len(r.Errors) > 0 || len(r.Outcomes) == 0 {
		return true
	}
	for _, o := range r.Outcomes {
		if !o.Agrees() && o.Explained == "" {
			return true
		}
	}
	return false
}

// Write prints the figures per class and the disagreements.
func (r *GeminiRun) Write(w io.Writer, examples int) {
	type st struct{ n, agree, explained int }
	by := map[string]*st{}
	tot := &st{}
	dec := map[string]int{}
	for _, o := range r.Outcomes {
		s := by[o.Class]
		if s == nil {
			s = &st{}
			by[o.Class] = s
		}
		for _, x := range []*st{s, tot} {
			x.n++
			switch {
			case o.Agrees():
				x.agree++
			case o.Explained != "":
				x.explained++
			}
		}
		dec[o.Gemini]++
	}
	fmt.Fprintf(w, "Gemini CLI %s policy engine: %d decisions, %d agree (%.1f %%), %d explained\n", GeminiVersion, tot.n, tot.agree, pct(tot.agree, tot.n), tot.explained)
	for _, c := range GeminiClasses {
		if s := by[c]; s != nil {
			fmt.Fprintf(w, "  %-9s %5d decisions, %5d agree (%.1f %%), %d explained\n", c, s.n, s.agree, pct(s.agree, s.n), s.explained)
		}
	}
	var ds []string
	for d, n := range dec {
		ds = append(ds, fmt.Sprintf("%s %d", d, n))
	}
	sort.Strings(ds)
	fmt.Fprintf(w, "  Gemini decided: %s\n", strings.Join(ds, ", "))
	shown := map[string]int{}
	for _, o := range r.Outcomes {
		if o.Agrees() {
			continue
		}
		label := "DISAGREE"
		if o.Explained != "" {
			label = "EXPLAINED"
		}
		if examples >= 0 && shown[label] >= examples {
			continue
		}
		shown[label]++
		fmt.Fprintf(w, "%s [%s] %s %q: gemini=%s (%s @%g) shipgate=%s %s\n  settings: %s\n", label, o.Class, o.Call.Tool, o.Call.Command,
			o.Gemini, o.Source, o.Priority, o.Shipgate, o.Explained, strings.Join(strings.Fields(o.Settings), " "))
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "ERROR %s\n", e)
	}
}
