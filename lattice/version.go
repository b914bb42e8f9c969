package lattice

// ClaudeCodeVersion is the Claude Code release whose permission behaviour
// the lattice, the read-only classifier and the engine model: every
// semantics that differs from the documentation was measured on this
// binary (see /docs/conformance.md). Reports name it so a reader knows
// which version a verdict was checked against; a new Claude Code version
// is adopted by re-running the conformance harness and changing it here.
const ClaudeCodeVersion = "2.1.328"
