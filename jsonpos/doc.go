// Package jsonpos reads a settings file exactly as Claude Code does — with
// JavaScript's JSON.parse over the file decoded as UTF-8 — and keeps the
// position of every value and key. It owns the question "what did Claude Code
// read from these bytes, and where in the file is each piece": the review
// engine annotates the line of every permission rule with it and reports every
// problem with a line and a column.
//
// Why not encoding/json: it forgets positions, and its behaviour differs from
// JSON.parse where it matters to a reviewer (duplicate keys are not reported,
// invalid UTF-8 is replaced byte by byte). A settings file that JSON.parse
// rejects is dropped whole by Claude Code, deny rules included, so this parser
// never accepts what JSON.parse rejects and it says precisely why it rejected.
//
// Grammar: RFC 8259 (ECMA-404), which is what JSON.parse implements. Fatal
// errors (*SyntaxError) are exactly the inputs JSON.parse throws on, plus two
// fail-closed bounds: nesting deeper than Options.MaxDepth (1,000 by default;
// JSON.parse has no such bound, but no settings file needs it) and inputs over
// Options.MaxSize (1 MiB by default; *TooLargeError).
//
// Decisions where "what JSON.parse does" depends on how the bytes were read:
//
//   - A UTF-8 byte order mark is fatal (SyntaxBOM). Node's fs.readFileSync with
//     "utf8" keeps it as U+FEFF (nodejs/node#20649, closed wontfix) and
//     JSON.parse rejects U+FEFF as it is not JSON whitespace (test262
//     15.12.1.1-0-6). Claude Code rejected BOM files as "malformed JSON"
//     (anthropics/claude-code#9906); a later report says the bundled CLI now
//     tolerates the BOM while the desktop app still drops the file
//     (anthropics/claude-code#81355). Some Claude Code builds therefore drop
//     the whole file, so the safe reading is the failing one. Callers that want
//     the rules anyway (to diff them while still reporting the BOM) set
//     Options.AllowBOM.
//   - Invalid UTF-8 is decoded the way Node (V8) decodes it: every maximal
//     ill-formed subpart becomes one U+FFFD (Unicode's "substitution of maximal
//     subparts", used by V8 since 5.5 and by the WHATWG decoder). Outside a
//     string, U+FFFD is not a JSON token, so JSON.parse throws: fatal
//     (SyntaxInvalidUTF8). Inside a string, JSON.parse accepts the U+FFFD and
//     Claude Code applies the file with an altered string: non-fatal, reported
//     as a ProblemInvalidUTF8 with the position of the first bad byte, and the
//     decoded Go string holds the same U+FFFD characters Claude Code sees.
//     Failing the whole file here would misstate what Claude Code enforces (its
//     deny rules stay in force); the Problem keeps the change from being silent.
//   - A lone surrogate escape ("\ud800") is accepted by JSON.parse and kept as
//     an unpaired UTF-16 code unit. Go strings cannot hold it: the decoded
//     string has U+FFFD in its place and a ProblemLoneSurrogate is reported.
//     Object keys are still compared as JavaScript compares them, so "\ud800"
//     and "\udbff" are different keys, not duplicates.
//   - Duplicate keys: JSON.parse keeps the last value, and so does Value; each
//     overriding key is a ProblemDuplicateKey naming both positions.
//
// Positions: Offset is a 0-based byte offset. Line and Column are 1-based.
// Lines end at LF only (the CR of a CRLF is the last character of its line),
// as git and GitHub number lines. Column counts Unicode code points from the
// start of the line — a tab is one column, "é" is one column, each byte of an
// invalid UTF-8 sequence is one column, and a leading byte order mark is zero
// columns.
//
// The parser is linear in the input, allocates a handful of blocks per parse
// rather than one object per value, never panics, and holds no global state.
package jsonpos
