package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/shipgate-app/shipgate/internal/conformance"
)

// agentFlag selects the agent whose model is held to its real binary:
// Claude Code (the default), the Codex CLI (`codex execpolicy check`) or
// the Gemini CLI (its bundled PolicyEngine).
var agentFlag = flag.String("agent", "claude-code",
	"the agent to check: claude-code, codex (make codex; $"+conformance.CodexBinaryEnv+" names another binary, and "+
		conformance.CodexRequireEnv+"=1 makes `go test`'s subset fail without it) or gemini (make gemini; "+
		conformance.GeminiRequireEnv+"=1 likewise)")

// runAgent runs the Codex or Gemini corpus; handled reports whether the
// agent was one of them.
func runAgent(seed uint64, n, workers int, all bool) (handled bool, err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	examples := 5
	if all {
		examples = -1
	}
	switch *agentFlag {
	case "codex":
		bin := conformance.FindCodex()
		if bin == "" {
			return true, fmt.Errorf("no codex binary: run `make codex` (installs @openai/codex@%s into %s) or set $%s",
				conformance.CodexVersion, conformance.CodexCacheDir(), conformance.CodexBinaryEnv)
		}
		if err := conformance.CheckCodexVersion(ctx, bin); err != nil {
			return true, err
		}
		r := conformance.RunCodex(ctx, bin, conformance.GenerateCodex(seed, n), workers)
		r.Write(os.Stdout, examples)
		// config.toml, one `codex debug prompt-input` per file: a file for
		// every 30 decisions, at most 400.
		outs, errs := conformance.RunCodexConfigs(ctx, bin, conformance.GenerateCodexConfigs(seed, min(max(n/30, 1), 400)), workers)
		if !conformance.WriteCodexConfigs(os.Stdout, outs, errs) {
			return true, fmt.Errorf("the Codex CLI %s and Shipgate read config.toml differently (see above)", conformance.CodexVersion)
		}
		if r.Failed() {
			return true, fmt.Errorf("the Codex CLI %s and Shipgate disagree (see above)", conformance.CodexVersion)
		}
		return true, nil
	case "gemini":
		chunk, err := conformance.FindGemini()
		if err != nil {
			return true, err
		}
		if chunk == "" {
			return true, fmt.Errorf("no Gemini CLI package: run `make gemini` (installs @google/gemini-cli@%s into %s)",
				conformance.GeminiVersion, conformance.GeminiCacheDir())
		}
		r := conformance.RunGemini(ctx, chunk, conformance.GenerateGemini(seed, n))
		r.Write(os.Stdout, examples)
		if r.Failed() {
			return true, fmt.Errorf("the Gemini CLI %s and Shipgate disagree (see above)", conformance.GeminiVersion)
		}
		return true, nil
	case "claude-code", "":
		return false, nil
	}
	return true, fmt.Errorf("-agent %q: want claude-code, codex or gemini", *agentFlag)
}
