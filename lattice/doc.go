// Package lattice decides containment between Claude Code permission
// rules exactly: whether one rule allows every call another allows
// (Covers), which concrete calls separate two rules (Witnesses), and
// whether some call matches every rule of one set and no rule of another
// (Find). The review engine (package diff) builds on it to say whether a
// change to a settings file widens, narrows or respells what the agent may
// do without a prompt.
//
// A Rule is parsed once (Parse, ParseIn for a deny or ask list) into the
// readings Claude Code may give it: a tool name and a specifier
// (`Bash(npm test:*)`, `Read(src/**)`, `WebFetch(domain:example.com)`,
// `mcp__server__tool`). Specifiers are compiled to automata over a small
// alphabet of the characters that matter (interval classes), and questions
// are answered by searching products of those automata: a No always comes
// with a witness, a real call (a command, a path, a host) that one rule
// matches and the other does not, short and readable. Where Claude Code's
// own reading is ambiguous or a bound is hit (a work budget, a context,
// a pattern too large) the answer is Unknown, and callers fail closed.
//
// Semantics follow what Claude Code was measured to do (see
// docs/lattice.md and the measured tests), not only its documentation:
// commands are split on shell operators before they are matched,
// launchers such as `npx` and `python3 -c` reach arbitrary code, paths are
// normalised as Claude Code normalises them. The package is pure: no
// network, no clock, no file system.
package lattice
