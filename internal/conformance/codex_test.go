package conformance

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
)

// codexCISeed and codexCIDecisions are the fixed subset CI runs against
// the pinned codex binary (about 40 ms a decision);
// SHIPGATE_CODEX_CONFORMANCE_N overrides the size.
const (
	codexCISeed      = 1
	codexCIDecisions = 2000
)

// TestCodexConformance decides the fixed-seed corpus with `codex
// execpolicy check` and with Shipgate's model and fails on any
// disagreement. Without the binary it skips, unless
// SHIPGATE_REQUIRE_CODEX=1 (CI), when it fails.
func TestCodexConformance(t *testing.T) {
	bin := FindCodex()
	if bin == "" {
		msg := "no codex binary: `make codex` installs @openai/codex@" + CodexVersion + " into " + CodexCacheDir() +
			" (or set $" + CodexBinaryEnv + ")"
		if os.Getenv(CodexRequireEnv) == "1" {
			t.Fatal(msg + "; $" + CodexRequireEnv + "=1 makes this a failure")
		}
		t.Skip(msg)
	}
	ctx := context.Background()
	if err := CheckCodexVersion(ctx, bin); err != nil {
		t.Fatal(err)
	}
	n := codexCIDecisions
	if s := os.Getenv("SHIPGATE_CODEX_CONFORMANCE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SHIPGATE_CODEX_CONFORMANCE_N: %v", err)
		}
	}
	if testing.Short() {
		n = 200
	}
	r := RunCodex(ctx, bin, GenerateCodex(codexCISeed, n), 2)
	var buf bytes.Buffer
	r.Write(&buf, 20)
	t.Log("\n" + buf.String())
	if r.Failed() {
		t.Fatalf("Codex CLI %s and Shipgate disagree (the report above lists each)", CodexVersion)
	}
}

// codexCIConfigs is how many generated config.toml files CI renders with
// `codex debug prompt-input` (about half a second each).
const codexCIConfigs = 80

// TestCodexConfigConformance renders generated .codex/config.toml files
// with the pinned binary and compares the effective approval policy,
// sandbox mode, network access and writable roots with
// codex.EffectiveConfig; a file Codex refuses must be one Shipgate
// refuses.
func TestCodexConfigConformance(t *testing.T) {
	bin := FindCodex()
	if bin == "" {
		if os.Getenv(CodexRequireEnv) == "1" {
			t.Fatal("no codex binary (make codex); $" + CodexRequireEnv + "=1 makes this a failure")
		}
		t.Skip("no codex binary: make codex")
	}
	n := codexCIConfigs
	if testing.Short() {
		n = 8
	}
	outs, errs := RunCodexConfigs(context.Background(), bin, GenerateCodexConfigs(1, n), 2)
	var buf bytes.Buffer
	ok := WriteCodexConfigs(&buf, outs, errs)
	t.Log("\n" + buf.String())
	if !ok {
		t.Fatalf("Codex CLI %s and Shipgate read config.toml differently (the report above lists each)", CodexVersion)
	}
}

// TestCodexRuntime runs real shell calls under fixed-seed project
// config.toml files (a fake Responses API asks for them) and compares what
// Codex's sandbox let through with codex.EffectiveConfig. SHIPGATE_CODEX_RUN_N
// sets the number of configs (make conformance-codex-run).
func TestCodexRuntime(t *testing.T) {
	bin := FindCodex()
	if bin == "" {
		if os.Getenv(CodexRequireEnv) == "1" {
			t.Fatal("no Codex binary (make codex); $" + CodexRequireEnv + "=1 makes this a failure")
		}
		t.Skip("no Codex binary (make codex)")
	}
	ctx := context.Background()
	if err := CheckCodexVersion(ctx, bin); err != nil {
		t.Fatal(err)
	}
	n := 6
	if s := os.Getenv("SHIPGATE_CODEX_RUN_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SHIPGATE_CODEX_RUN_N: %v", err)
		}
	}
	outs, errs := RunCodexRuntime(ctx, bin, GenerateCodexConfigs(1, n))
	agree, esc, seen := 0, map[string]int{}, map[string]int{}
	for _, o := range outs {
		seen[o.Codex]++
		if o.Codex == o.Shipgate {
			agree++
		} else {
			t.Errorf("case %d: codex %s, shipgate %s\n%s", o.Case, o.Codex, o.Shipgate, o.TOML)
		}
		if o.Escalation != "" {
			esc[o.Escalation]++
		}
	}
	for _, e := range errs {
		t.Error(e)
	}
	t.Logf("codex %s at run time: %d configs, %d agree; sandbox outcomes %v; escalated calls: %v", CodexVersion, len(outs), agree, seen, esc)
}
