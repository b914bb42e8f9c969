// Package agent is the agent-neutral model every coding-agent adapter
// other than Claude Code reads its files into: rules over a surface (a
// shell command line, a path written, a URL fetched) with the decision
// each gives and the language it matches, compiled to lattice automata;
// the precedence that combines them; settings whose value lets the agent
// do more; MCP servers; and problems with positions. The adapters
// (agentfiles/<name>) parse and give meaning; package diff compares a
// scope's model at base and head and emits the report's rows. Like the
// engine it is pure: no network, clock or file system, and it does not
// import diff.
package agent

import (
	"context"
	"fmt"
	"sort"

	"github.com/shipgate-app/shipgate/lattice"
)

// Decision is what an agent does with a call. The order is permissiveness:
// Deny < Ask < Allow.
type Decision int

const (
	// Deny: the agent refuses the call.
	Deny Decision = iota
	// Ask: the agent prompts before the call.
	Ask
	// Allow: the call runs without a prompt.
	Allow
)

// String spells a decision as reports do.
func (d Decision) String() string {
	switch d {
	case Deny:
		return "deny"
	case Allow:
		return "allow"
	}
	return "ask"
}

// Surface is what a call acts on. Rules of one surface are compared with
// each other only.
type Surface string

const (
	// Shell calls are command lines.
	Shell Surface = "shell"
	// Write calls are paths the agent writes or edits.
	Write Surface = "write"
	// Read calls are paths the agent reads.
	Read Surface = "read"
	// Fetch calls are URLs or domains the agent fetches.
	Fetch Surface = "fetch"
	// MCP calls are server/tool names.
	MCP Surface = "mcp"
	// Tool calls are other tools, by name.
	Tool Surface = "tool"
)

// Pos is where something is written.
type Pos struct {
	File      string
	Line, Col int
}

// Rule is one rule of an agent's permission language.
type Rule struct {
	Surface Surface
	// Text is the rule as the file writes it, for reports.
	Text string
	// Decision is what the rule gives a call it matches.
	Decision Decision
	// Lang is the calls it matches on its surface; nil matches every call.
	Lang *lattice.Lang
	// Unknown, when set, says why Lang is not the rule's exact language
	// (a regex with a backreference, a pattern too large): the engine then
	// reads an allow rule as matching every call and a deny or ask rule as
	// matching none — it fails closed.
	Unknown string
	Pos     Pos
}

// Precedence is how an agent combines the rules that match one call.
type Precedence int

const (
	// Strictest: deny over ask over allow, in any order (Cursor, Copilot
	// CLI, VS Code terminal rules, Codex).
	Strictest Precedence = iota
	// LastMatch: the last matching rule in order decides (OpenCode).
	LastMatch
	// FirstMatch: the first matching rule in order decides (Gemini CLI,
	// after sorting by priority).
	FirstMatch
)

// Policy is the effective rule set of one scope on one side: every rule
// the agent consults, in its evaluation order, and what it does when none
// matches.
type Policy struct {
	Precedence Precedence
	Rules      []Rule
	// Default is the decision per surface when no rule matches (Ask when
	// absent).
	Default map[Surface]Decision
	// Fallback, when set, is what the agent itself decides where no rule
	// of the repository matches and the user has set none either: its
	// built-in rules (OpenCode's first rule allows everything). The
	// comparison reads the head's no-rule calls by it against a base rule
	// (so deleting a rule that asked widens to the built-in allow), while
	// a head rule is still compared with Default (the user's own
	// configuration may ask).
	Fallback *Policy
}

// DefaultFor is the decision on a surface when no rule matches.
func (p *Policy) DefaultFor(s Surface) Decision {
	if p == nil {
		return Ask
	}
	if d, ok := p.Default[s]; ok {
		return d
	}
	return Ask
}

// Effective reports the language a rule is compared with: its own, or
// for an Unknown rule the fail-closed reading (every call when it
// allows, none when it restricts).
func (r *Rule) Effective() *lattice.Lang {
	if r.Unknown != "" {
		if r.Decision == Allow {
			return nil
		}
		return none
	}
	return r.Lang
}

var none = lattice.MustCompile(lattice.Alt())

// Matches reports whether the rule (read as Effective) matches a call.
func (r *Rule) Matches(call string) bool {
	l := r.Effective()
	return l == nil || l.Match(call)
}

// Decide is the policy's decision for one call on a surface, and the rule
// that made it (nil: the default).
func (p *Policy) Decide(s Surface, call string) (Decision, *Rule) {
	if p == nil {
		return Ask, nil
	}
	var best *Rule
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Surface != s || !r.Matches(call) {
			continue
		}
		switch p.Precedence {
		case FirstMatch:
			return r.Decision, r
		case LastMatch:
			best = r
		default:
			if best == nil || r.Decision < best.Decision {
				best = r
			}
		}
	}
	if best == nil {
		return p.DefaultFor(s), nil
	}
	return best.Decision, best
}

// Region is a set of calls the policy gives one decision: the calls in
// every language of Must (all calls when empty) and in none of MustNot.
// Rule is the rule deciding them (nil: the default).
type Region struct {
	Must, MustNot []*lattice.Lang
	Decision      Decision
	Rule          *Rule
	// Builtin, on a region of no repository rule, is the Fallback rule
	// that decides it (HeadRegions).
	Builtin *Rule
}

// HeadRegions is Regions with the no-rule region split by the Fallback's
// regions, each decided by the more permissive of Default and the
// built-in decision: how the calls no repository rule decides read on the
// side that may have lost a rule.
func (p *Policy) HeadRegions(s Surface) []Region {
	rs := p.Regions(s)
	if p == nil || p.Fallback == nil {
		return rs
	}
	fb := p.Fallback.Regions(s)
	if !p.Fallback.names(s) {
		// An agent's own surface (shell@plan) the built-in rules do not
		// name follows their top-level rules.
		fb = p.Fallback.Regions(s.Kind())
	}
	var out []Region
	for _, r := range rs {
		if r.Rule != nil {
			out = append(out, r)
			continue
		}
		for _, f := range fb {
			if f.Rule == nil {
				out = append(out, r)
				continue
			}
			out = append(out, Region{
				Must:     append(append([]*lattice.Lang(nil), r.Must...), f.Must...),
				MustNot:  append(append([]*lattice.Lang(nil), r.MustNot...), f.MustNot...),
				Decision: max(r.Decision, f.Decision), Builtin: f.Rule,
			})
		}
	}
	return out
}

// Regions partitions a surface's calls by the rule that decides them.
func (p *Policy) Regions(s Surface) []Region {
	var rs []*Rule
	if p != nil {
		for i := range p.Rules {
			if p.Rules[i].Surface == s {
				rs = append(rs, &p.Rules[i])
			}
		}
	}
	var out []Region
	all := make([]*lattice.Lang, 0, len(rs))
	universal := false
	for _, r := range rs {
		l := r.Effective()
		if l == nil {
			universal = true
		}
		all = append(all, l)
	}
	mk := func(r *Rule, others []*lattice.Lang) Region {
		reg := Region{Decision: r.Decision, Rule: r}
		if l := r.Effective(); l != nil {
			reg.Must = []*lattice.Lang{l}
		}
		for _, o := range others {
			if o == nil {
				// A universal rule shadows everything: the region is empty.
				reg.Must = append(reg.Must, none)
				continue
			}
			reg.MustNot = append(reg.MustNot, o)
		}
		return reg
	}
	switch {
	case p == nil || p.Precedence == Strictest:
		for _, r := range rs {
			var stricter []*lattice.Lang
			for j, o := range rs {
				if o.Decision < r.Decision {
					stricter = append(stricter, all[j])
				}
			}
			out = append(out, mk(r, stricter))
		}
	case p.Precedence == LastMatch:
		for i, r := range rs {
			out = append(out, mk(r, all[i+1:]))
		}
	default:
		for i, r := range rs {
			out = append(out, mk(r, all[:i]))
		}
	}
	if !universal {
		def := Region{Decision: p.DefaultFor(s), MustNot: all}
		out = append(out, def)
	}
	return out
}

// names reports whether a policy has a rule on a surface.
func (p *Policy) names(s Surface) bool {
	for i := range p.Rules {
		if p.Rules[i].Surface == s {
			return true
		}
	}
	return false
}

// Overlap searches for a call in both regions.
func Overlap(ctx context.Context, a, b Region) (string, lattice.Answer) {
	must := append(append([]*lattice.Lang(nil), a.Must...), b.Must...)
	mustNot := append(append([]*lattice.Lang(nil), a.MustNot...), b.MustNot...)
	return lattice.FindLang(ctx, must, mustNot)
}

// Contains reports whether a call lies in the region.
func (r Region) Contains(call string) bool {
	for _, l := range r.Must {
		if !l.Match(call) {
			return false
		}
	}
	for _, l := range r.MustNot {
		if l.Match(call) {
			return false
		}
	}
	return true
}

// Surfaces lists the surfaces a policy's rules (or defaults) name, sorted.
func Surfaces(ps ...*Policy) []Surface {
	seen := map[Surface]bool{}
	for _, p := range ps {
		if p == nil {
			continue
		}
		for _, r := range p.Rules {
			seen[r.Surface] = true
		}
		for s := range p.Default {
			seen[s] = true
		}
	}
	out := make([]Surface, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Setting is one configuration value that changes what the agent may do
// (chat.tools.autoApprove, a sandbox switch, a hook).
type Setting struct {
	// Key names the setting (dotted path).
	Key string
	// Value is its canonical text, for reports.
	Value string
	Pos   Pos
	// Grant is how much the value lets through beyond the agent's default:
	// 0 is the default (an absent setting), higher lets more through,
	// negative is stricter. Two values are compared by Grant only.
	Grant int
	// Exec says the value lets the agent run arbitrary code without a
	// prompt: a widening to it blocks (WILDCARD-ALLOW).
	Exec bool
	// Check is the kind of finding a widening raises: CheckAllow,
	// CheckSandbox, CheckHook, CheckPlugin, CheckEnv, CheckDirectory,
	// CheckDeny.
	Check string
	// Why says what the value does, for the row.
	Why string
	// QuietRemoval says removing the setting lets nothing more through
	// though adding or changing it is reviewed (a hook-class setting
	// removed is otherwise reviewed, as a guard may go with it): a
	// marketplace entry for a remote plugin, whose removal, like an
	// enabledPlugins entry's, only stops offering the plugin.
	QuietRemoval bool
}

// Setting check kinds.
const (
	CheckAllow     = "allow"     // ALLOW-EXPANDED (WILDCARD-ALLOW when Exec)
	CheckSandbox   = "sandbox"   // SANDBOX-LOOSENED
	CheckHook      = "hook"      // HOOK-CHANGED: any change, either way
	CheckPlugin    = "plugin"    // PLUGIN-ADDED
	CheckEnv       = "env"       // ENV-CHANGED
	CheckDirectory = "directory" // ADDITIONAL-DIRECTORY-ADDED
	CheckDeny      = "deny"      // DENY-REMOVED (a protection switched off)
)

// Server is an MCP server a file declares.
type Server struct {
	Name string
	// Summary names its transport and what it runs or reaches (never
	// arguments, environment values or headers).
	Summary string
	// Canon is its canonical text: two versions differ when Canon does.
	Canon string
	Pos   Pos
}

// Problem kinds.
const (
	ProblemParse        = "parse"         // the agent cannot read the file: it drops it
	ProblemInvalidRule  = "invalid_rule"  // a rule the agent skips
	ProblemUnknownKey   = "unknown_key"   // a key the agent ignores
	ProblemDuplicateKey = "duplicate_key" // a key written twice (the last applies)
	ProblemRecovered    = "recovered"     // a syntax error the agent's reader recovers from, read as it reads it
)

// Problem is something in a file that is read differently from how it
// looks, or not at all.
type Problem struct {
	Kind    string
	Key     string
	Message string
	Pos     Pos
	// Restricts says the problem concerns a deny or ask rule (the skipped
	// entry would have protected something).
	Restricts bool
}

// Doc is one version of one agent file, read.
type Doc struct {
	// File is the file's repository path (adapters order a scope's docs
	// by it).
	File     string
	Rules    []Rule
	Settings []Setting
	Servers  []Server
	Problems []Problem
}

// ParseError is a file the agent cannot read at all, with its position.
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
	// MayStillGrant says the agent's own reader is tolerant (it recovers
	// and applies what it can read) or Shipgate could not read the file
	// at all: the version may grant anything, so it blocks.
	MayStillGrant bool
	// Blocks, when set, says why the agent failing to read this file
	// widens it beyond the file itself (Codex drops every execpolicy rule
	// when one .rules file does not load): the finding blocks and says so.
	Blocks string
	// Inert, when set, says why nothing the agent may recover from this
	// version can reach the agent (a VS Code settings file with no text
	// that could name an agent setting): it is reported, not held.
	Inert string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Kind is the surface without a qualifier: "shell@plan" (the shell calls
// of an agent's named sub-agent or mode) is of kind "shell".
func (s Surface) Kind() Surface {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			return s[:i]
		}
	}
	return s
}
