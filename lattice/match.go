package lattice

import (
	"context"
	"strings"
)

// Call is one concrete tool use: what a rule allows, asks about or denies.
// Witnesses are Calls, and Matches decides whether a rule matches one.
type Call struct {
	// Tool is the canonical tool name ("Bash", "Read", "WebFetch",
	// "mcp__github__get_issue", "Agent").
	Tool string
	// Arg is the argument the tool's rules are matched against: the command
	// for Bash and PowerShell (as Claude Code hands it to the matcher, one
	// subcommand), the path for Read and Edit ("/etc/passwd" from the
	// filesystem root, "~/.ssh/id_rsa" from home, "src/app.go" from the
	// project root), the host name for WebFetch, the specifier text for
	// other tools (a subagent type, a skill name). Empty for none.
	Arg string
	// Param and Value name one input field set on the call, for parameter
	// rules such as Agent(model:opus); empty when none.
	Param, Value string
}

// String renders the call the way a reviewer reads it: a Bash command as
// itself, a path as a path, a host as a host, an MCP tool by its name, and
// any other tool as Tool(arg).
func (c Call) String() string {
	var s string
	switch {
	case c.Tool == "" && c.Arg == "":
		return ""
	case c.Arg == "" && c.Tool != "":
		s = c.Tool
	case c.Tool == "Bash" || c.Tool == "Monitor" || c.Tool == "PowerShell":
		s = c.Arg
	case c.Tool == "Read" || c.Tool == "Edit" || c.Tool == "WebFetch":
		s = c.Arg
	default:
		s = c.Tool + "(" + c.Arg + ")"
	}
	if c.Param != "" {
		s += " [" + c.Param + "=" + c.Value + "]"
	}
	return s
}

// Answer is a three-valued result: Yes and No are claims Shipgate stands
// behind; Unknown is reserved for documented ambiguities in Claude Code.
type Answer int

const (
	No Answer = iota
	Yes
	Unknown
)

// String spells the answer as the JSON contract does.
func (a Answer) String() string {
	switch a {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unknown"
}

// Matches reports whether the rule surely matches the call: every reading
// of the rule matches it. It is the oracle the containment decision is
// tested against.
func Matches(r Rule, c Call) bool { return Match(r, c) == Yes }

// Match answers Yes when every reading of the rule matches the call, No
// when none does, and Unknown when only some do (the rule is ambiguous).
func Match(r Rule, c Call) Answer { return MatchContext(context.Background(), r, c) }

// MatchContext is Match under a context and its Budget: matching a home or
// project path against a filesystem-root pattern is a search, and a search
// that stops short counts as "does not surely match" for that reading
// (Match then answers No or Unknown, never a Yes it has not proved).
func MatchContext(ctx context.Context, r Rule, c Call) Answer {
	if len(r.readings) == 0 {
		r = ParseIn(r.List, r.Text)
	}
	yes, no := 0, 0
	for _, rd := range r.readings {
		if rd.matches(ctx, c) {
			yes++
		} else {
			no++
		}
	}
	if no > 0 {
		for _, rd := range r.also {
			if rd.matches(ctx, c) {
				return Yes // a union part (Rule.also) matches
			}
		}
	}
	switch {
	case no == 0:
		return Yes
	case yes == 0:
		return No
	}
	return Unknown
}

// matches reports whether one reading matches a call.
func (rd *reading) matches(ctx context.Context, c Call) bool {
	switch rd.kind {
	case readNames:
		return rd.names.run(c.Tool)
	case readArgs:
		if c.Tool != rd.tool {
			return false
		}
		if rd.param != "" {
			return c.Param == rd.param && rd.args.run(c.Value)
		}
		return rd.matchArg(ctx, c.Arg)
	}
	return false
}

// matchArg reports whether the reading's argument language holds arg.
func (rd *reading) matchArg(ctx context.Context, arg string) bool {
	switch rd.arg {
	case argPath:
		z, rel := splitPath(arg)
		if !pathDomain.run(rel) {
			return false
		}
		if z == rd.zone {
			return rd.args.run(rel)
		}
		if rd.zone != zoneRoot {
			return false
		}
		// A root pattern matches a home or project path only if it matches
		// it wherever home or the project lies: under every directory.
		lit := newBuilder()
		lit.char(segChar)
		lit.star(segChar)
		start := 0
		lit.char(single('/'))
		lit.epsilon(lit.pos(), start)
		lit.lit(rel)
		_, res := findWord(ctx, []*machine{lit.build()}, []*machine{rd.args})
		return res == notFound
	case argHost:
		h := strings.TrimSuffix(strings.ToLower(arg), ".")
		return rd.args.run(h)
	}
	if rd.fold {
		arg = strings.ToLower(arg)
	}
	if rd.tool == "PowerShell" {
		arg = psCanonicalCommand(arg) // powershell.go: aliases read as their cmdlets
	}
	if rd.isLit {
		return runesEqual(arg, rd.literal) || rd.arg == argShell && rd.tool != "PowerShell" && runesEqual(collapseBlanks(arg), rd.literal)
	}
	if rd.args.run(arg) {
		return true
	}
	// Claude Code collapses runs of blanks between a command's words before
	// it matches (measured on 2.1.328: `docker  run x` is denied by
	// Bash(docker run *)); the collapsed text counts too.
	n := ""
	if rd.arg == argShell && rd.tool != "PowerShell" {
		n = collapseBlanks(arg)
	}
	return n != "" && rd.args.run(n)
}

// collapseBlanks is a shell command with the runs of blanks between its
// words reduced to one space (normalizedCommand), or "" when there is no
// such run or the command is not one plain simple command.
func collapseBlanks(arg string) string {
	if n := normalizedCommand(arg); n != arg {
		return n
	}
	return ""
}

// hasBlankRun reports whether a call's argument has a run of blanks or a
// tab, which Match reads collapsed too: the cheap prefilters (mayMatch,
// the rule index) must not rule a rule out on the raw text then.
func hasBlankRun(c Call) bool {
	return strings.Contains(c.Arg, "  ") || strings.ContainsRune(c.Arg, '\t')
}

// runesEqual compares two strings rune by rune, as the automata read them
// (an invalid UTF-8 byte reads as U+FFFD on both sides).
func runesEqual(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if ra[i] != rb[i] {
			return false
		}
	}
	return true
}
