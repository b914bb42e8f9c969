// Package cursor reads Cursor's repository configuration into the
// agent-neutral model: .cursor/cli.json's permissions (allow and deny
// lists of Shell(commandBase[:args]), Read(glob), Write(glob),
// WebFetch(domain), Mcp(server, tool); deny wins, no match asks) and
// .cursor/mcp.json's servers.
//
// Semantics follow the documentation only (no offline oracle): Cursor CLI
// permissions, https://docs.cursor.com/en/cli/reference/permissions, and
// its June 2026 mirror (command:args and globs in Shell, WebFetch), Mcp()
// from a third-party page — each cited in docs/agents.md. Where the
// documentation leaves a reading open (how a glob inside Shell() spans
// words, whether Shell(git push) also matches its arguments), an allow
// rule is read the widest way and a deny rule the narrowest: the
// comparison fails closed either way.
package cursor

import (
	"fmt"
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
)

// CheckedAgainst names the documentation the semantics follow.
const CheckedAgainst = "docs docs.cursor.com/en/cli/reference/permissions (mirror 2026-06-26)"

// Classify reports whether Cursor reads a path (.cursor/cli.json,
// .cursor/mcp.json and .cursor/hooks.json in any folder, and the scripts
// of its .cursor/hooks folder) and its scope (the folder holding
// .cursor).
func Classify(p string) (scope string, ok bool) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if dir == ".cursor/hooks" || strings.HasSuffix(dir, "/.cursor/hooks") {
		return strings.TrimSuffix(strings.TrimSuffix(dir, ".cursor/hooks"), "/"), true
	}
	if dir != ".cursor" && !strings.HasSuffix(dir, "/.cursor") {
		return "", false
	}
	if base != "cli.json" && base != "mcp.json" && base != "hooks.json" {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimSuffix(dir, ".cursor"), "/"), true
}

// Pathspecs match every path Classify accepts.
var Pathspecs = []string{":(glob).cursor/cli.json", ":(glob)**/.cursor/cli.json", ":(glob).cursor/mcp.json", ":(glob)**/.cursor/mcp.json",
	":(glob).cursor/hooks.json", ":(glob)**/.cursor/hooks.json", ":(glob).cursor/hooks/*", ":(glob)**/.cursor/hooks/*"}

// Siblings are the other files of p's scope.
func Siblings(p string) []string {
	scope, ok := Classify(p)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range []string{"cli.json", "mcp.json", "hooks.json"} {
		if q := path.Join(scope, ".cursor", n); q != p {
			out = append(out, q)
		}
	}
	return out
}

// hookWhy is what a hook can do, by event
// (https://cursor.com/docs/agent/hooks: beforeShellExecution,
// beforeMCPExecution and beforeReadFile answer {"permission": "allow" |
// "deny" | "ask"}).
func hookWhy(event string) string {
	switch event {
	case "beforeShellExecution", "beforeMCPExecution", "beforeReadFile":
		return "Cursor runs this hook before each such call, and its answer can be \"permission\": \"allow\": the call then runs without a prompt whatever the rules say"
	}
	return "Cursor runs this hook's command by itself around the agent's actions, without a prompt"
}

// readHooks reads .cursor/hooks.json: each event's hooks are commands
// Cursor runs; any change to them is a change to what runs.
func readHooks(file string, root *jsonpos.Value, d *agent.Doc) {
	for _, ev := range root.Get("hooks").Members() {
		if ev.Overridden {
			continue
		}
		d.Settings = append(d.Settings, agent.Setting{Key: "hooks." + ev.Key, Value: jsonc.Canon(ev.Value), Pos: agent.Pos{File: file, Line: ev.KeyStart.Line, Col: ev.KeyStart.Column},
			Grant: 1, Check: agent.CheckHook, Why: hookWhy(ev.Key)})
	}
}

// hookScript is a file of .cursor/hooks: a script hooks.json runs (any
// change to it is a change to the hook).
func hookScript(file string, data []byte) *agent.Doc {
	return &agent.Doc{File: file, Settings: []agent.Setting{{Key: "hook script " + file, Value: fmt.Sprintf("%d bytes, fnv %016x", len(data), fnv64(data)),
		Pos: agent.Pos{File: file, Line: 1, Col: 1}, Grant: 1, Check: agent.CheckHook,
		Why: "a script of .cursor/hooks: the hooks of .cursor/hooks.json run such scripts, and a beforeShellExecution hook's answer can allow a call without a prompt"}}}
}

func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// Read parses one version of a Cursor file (JSONC: Cursor's docs show
// comments in cli.json). A file that does not parse may still be read by
// a tolerant parser: the error says so (fail closed).
func Read(file string, data []byte) (*agent.Doc, error) {
	if dir := path.Dir(file); dir == ".cursor/hooks" || strings.HasSuffix(dir, "/.cursor/hooks") {
		return hookScript(file, data), nil
	}
	root, probs, err := jsonc.Parse(data, jsonc.JSONC)
	if err != nil {
		pe := &agent.ParseError{File: file, Msg: err.Error(), MayStillGrant: true}
		if je, ok := err.(*jsonc.Error); ok {
			pe.Line, pe.Col, pe.Msg = je.Line, je.Col, je.Msg
		}
		return nil, pe
	}
	if root.Kind() != jsonpos.Object {
		return nil, &agent.ParseError{File: file, Line: root.Start().Line, Col: root.Start().Column, Msg: "the file is not a JSON object", MayStillGrant: true}
	}
	d := &agent.Doc{File: file}
	for _, p := range probs {
		if p.Kind == jsonpos.ProblemDuplicateKey {
			d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemDuplicateKey, Key: p.Key, Message: p.String(), Pos: agent.Pos{File: file, Line: p.Pos.Line, Col: p.Pos.Column}})
		}
	}
	if strings.HasSuffix(file, "hooks.json") {
		readHooks(file, root, d)
		return d, nil
	}
	if strings.HasSuffix(file, "mcp.json") {
		for _, m := range root.Get("mcpServers").Members() {
			if m.Overridden {
				continue
			}
			d.Servers = append(d.Servers, agent.Server{Name: m.Key, Summary: jsonc.ServerSummary(m.Value), Canon: jsonc.Canon(m.Value), Pos: agent.Pos{File: file, Line: m.KeyStart.Line, Col: m.KeyStart.Column}})
		}
		return d, nil
	}
	perms := root.Get("permissions")
	for _, list := range []string{"allow", "deny"} {
		dec := agent.Allow
		if list == "deny" {
			dec = agent.Deny
		}
		for i, e := range perms.Get(list).Elements() {
			pos := agent.Pos{File: file, Line: e.Start().Line, Col: e.Start().Column}
			if e.Kind() != jsonpos.String {
				d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: fmt.Sprintf("permissions.%s[%d]", list, i), Message: fmt.Sprintf("permissions.%s[%d] is a %s, not a rule", list, i, e.Kind()), Pos: pos, Restricts: dec == agent.Deny})
				continue
			}
			r, err := Rule(e.Text(), dec)
			if err != nil {
				d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: e.Text(), Message: fmt.Sprintf("permissions.%s %q: %v", list, e.Text(), err), Pos: pos, Restricts: dec == agent.Deny})
				continue
			}
			r.Pos = pos
			d.Rules = append(d.Rules, r)
		}
	}
	return d, nil
}

// Rule reads one permission entry.
func Rule(text string, d agent.Decision) (agent.Rule, error) {
	r := agent.Rule{Text: text, Decision: d}
	open := strings.IndexByte(text, '(')
	if open <= 0 || !strings.HasSuffix(text, ")") {
		return r, fmt.Errorf("write Kind(argument): Shell(git), Read(src/**), Write(**), WebFetch(example.com), Mcp(server, tool)")
	}
	kind, arg := text[:open], strings.TrimSpace(text[open+1:len(text)-1])
	var re lattice.RE
	switch kind {
	case "Shell":
		r.Surface = agent.Shell
		if arg == "" {
			return r, fmt.Errorf("Shell() needs a command")
		}
		re = shellRE(arg, d == agent.Allow)
	case "Read", "Write":
		r.Surface = agent.Read
		if kind == "Write" {
			r.Surface = agent.Write
		}
		if arg == "" {
			return r, fmt.Errorf("%s() needs a path or glob", kind)
		}
		re = agent.PathGlob(strings.TrimPrefix(arg, "./"))
	case "WebFetch":
		r.Surface = agent.Fetch
		if arg == "" || arg == "*" {
			re = lattice.Everything()
		} else {
			re = agent.Glob(arg)
		}
	case "Mcp":
		r.Surface = agent.MCP
		server, tool, _ := strings.Cut(arg, ",")
		if !strings.Contains(arg, ",") {
			server, tool, _ = strings.Cut(arg, ":")
		}
		server, tool = strings.TrimSpace(server), strings.TrimSpace(tool)
		if tool == "" {
			tool = "*"
		}
		re = lattice.Cat(agent.Glob(server), lattice.Lit(":"), agent.Glob(tool))
	default:
		return r, fmt.Errorf("unknown kind %q (Shell, Read, Write, WebFetch or Mcp)", kind)
	}
	l, err := lattice.Compile(re)
	if err != nil {
		r.Unknown = err.Error()
	} else {
		r.Lang = l
	}
	return r, nil
}

var (
	space   = lattice.Lit(" ")
	anyArgs = lattice.Opt(lattice.Cat(space, lattice.Everything()))
	notSp   = lattice.Class(true, ' ', ' ')
)

// shellRE is a Shell() rule's language over a command line: the first
// token is commandBase (any arguments follow); commandBase:args fixes
// the arguments by a glob. A glob in the base spans only the token for a
// deny rule, anything for an allow rule (the docs leave it open).
func shellRE(arg string, wide bool) lattice.RE {
	base, args, hasArgs := strings.Cut(arg, ":")
	var b lattice.RE
	if strings.ContainsAny(base, "*?") {
		if wide {
			b = agent.Glob(base)
		} else {
			b = tokenGlob(base)
		}
	} else {
		b = lattice.Lit(base)
	}
	if !hasArgs {
		return lattice.Cat(b, anyArgs)
	}
	args = strings.TrimSpace(args)
	if args == "*" || args == "" {
		return lattice.Cat(b, anyArgs)
	}
	if wide {
		// Shell(git:push) may be read as git push and its arguments.
		return lattice.Cat(b, space, agent.Glob(args), anyArgs)
	}
	return lattice.Cat(b, space, agent.Glob(args))
}

// tokenGlob is a glob whose * and ? stay inside one word.
func tokenGlob(p string) lattice.RE {
	var parts []lattice.RE
	for _, r := range p {
		switch r {
		case '*':
			parts = append(parts, lattice.Star(notSp))
		case '?':
			parts = append(parts, notSp)
		default:
			parts = append(parts, lattice.Lit(string(r)))
		}
	}
	return lattice.Cat(parts...)
}

// Combine is a scope's effective policy: deny wins, no match asks.
func Combine(docs []*agent.Doc) *agent.Policy {
	p := &agent.Policy{Precedence: agent.Strictest}
	for _, d := range docs {
		if d != nil {
			p.Rules = append(p.Rules, d.Rules...)
		}
	}
	return p
}
