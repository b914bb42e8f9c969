// Package conformance holds Shipgate's model of Claude Code's permission
// decisions to the real, pinned Claude Code binary.
//
// It runs the binary offline in print mode (`claude -p go --output-format
// json`) in a throwaway trusted project whose HOME is a throwaway folder,
// with ANTHROPIC_BASE_URL pointing at a fake of the Messages API on
// loopback. The fake answers the first request with a whole batch of tool
// calls in one assistant message and records the tool_result blocks of
// the next request; every command word is a stub that only echoes, so a
// call that runs is told from one that asks or is denied by the text of
// its result. The same (settings, call) pairs are put to the engine's
// effective view (judge.Effective) and every disagreement is reported,
// grouped by corpus class; the ones listed in known.txt are reported
// without failing the run.
package conformance

import (
	"os"
	"path/filepath"

	"github.com/shipgate-app/shipgate/lattice"
)

// ClaudeCodeVersion is the version of @anthropic-ai/claude-code the
// harness pins and installs: the one the model names,
// lattice.ClaudeCodeVersion in lattice/version.go, its one source (the
// Makefile and .ci/run read it from there too).
const ClaudeCodeVersion = lattice.ClaudeCodeVersion

// BinaryEnv names the environment variable that points the harness at a
// claude executable.
const BinaryEnv = "SHIPGATE_CLAUDE_BIN"

// RequireEnv, set to 1, makes a missing binary a failure instead of a skip
// (CI sets it).
const RequireEnv = "SHIPGATE_REQUIRE_CLAUDE"

// CacheDir is where `make claude-code` installs the pinned package:
// $SHIPGATE_CLAUDE_CACHE, else $XDG_CACHE_HOME/shipgate/claude-code/<version>,
// else ~/.cache/shipgate/claude-code/<version>.
func CacheDir() string {
	if d := os.Getenv("SHIPGATE_CLAUDE_CACHE"); d != "" {
		return d
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "shipgate", "claude-code", ClaudeCodeVersion)
}

// FindBinary returns the claude executable to run: $SHIPGATE_CLAUDE_BIN,
// else the native linux-x64 binary of the package installed in CacheDir.
// It returns "" when there is none.
func FindBinary() string {
	if b := os.Getenv(BinaryEnv); b != "" {
		return b
	}
	for _, p := range []string{
		filepath.Join(CacheDir(), "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude"),
		filepath.Join(CacheDir(), "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"),
	} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}
