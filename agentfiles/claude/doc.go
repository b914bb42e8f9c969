// Package claude is Claude Code's settings model: how one version of a
// settings file (.claude/settings.json, settings.local.json), an .mcp.json,
// or a skill's, command's or subagent's frontmatter is read, strictly and
// with positions, as the Claude Code binary reads it. ParseDoc keeps the
// rules of each list with their lines, the problems the binary reads
// differently from how they look (duplicate keys, non-string rules,
// unknown keys against the binary's own schema, claudeschema), and drops a
// file the schema rejects (Doc.Dropped), as the loader does. The places
// table (SettingPlaces, Lookup, At) says where the binary reads each key;
// Locks are the restrictive settings it honours from a project file;
// HookHandlers and MCPServers flatten hooks and servers; SandboxAsks and
// SandboxExcluded are what the sandbox still asks about when it
// auto-allows Bash; Ignores, FixHint and LostRules word a file the loader
// drops.
//
// It is pure (no network, clock or file system) and knows nothing of the
// comparison: the engine (judge) compares two Docs.
package claude
