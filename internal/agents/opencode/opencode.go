// Package opencode reads OpenCode's repository configuration,
// opencode.json / opencode.jsonc, into the agent-neutral model: its
// `permission` rules (V1: a tool → action map whose values may be
// pattern → action maps; V2: a `permissions` list of {action, resource,
// effect}) with OpenCode's wildcard (`*` any run of characters, spaces and
// slashes included; `?` one character) and its precedence — the LAST
// matching rule wins, across every key whose tool name matches, so moving
// a rule can widen; per-agent permission blocks (agent.<name>.permission)
// appended after the top-level rules; MCP servers (mcp), plugins,
// tools switched off, and commands OpenCode runs by itself (formatter,
// lsp).
//
// Semantics follow the documentation (no offline oracle), each statement
// cited in docs/agents.md: https://opencode.ai/v1/docs/permissions/ and
// https://opencode.ai/zh/docs/permissions/ (V2), checked 2026-12-01.
package opencode

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/diff/jsonpos"
	"github.com/shipgate-app/shipgate/internal/agents/agent"
	"github.com/shipgate-app/shipgate/internal/agents/jsonc"
	"github.com/shipgate-app/shipgate/lattice"
)

// CheckedAgainst names the documentation the semantics follow.
const CheckedAgainst = "docs opencode.ai/v1/docs/permissions (2026-12-01)"

// Classify reports whether OpenCode reads a repository path, and its
// scope (the directory OpenCode is started in for it): opencode.json and
// opencode.jsonc in any directory, and in a .opencode folder.
func Classify(p string) (scope string, ok bool) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if base != "opencode.json" && base != "opencode.jsonc" {
		return "", false
	}
	if dir == ".opencode" {
		return "", true
	}
	if strings.HasSuffix(dir, "/.opencode") {
		return strings.TrimSuffix(dir, "/.opencode"), true
	}
	return dir, true
}

// Pathspecs match every path Classify accepts.
var Pathspecs = []string{":(glob)opencode.json", ":(glob)opencode.jsonc", ":(glob)**/opencode.json", ":(glob)**/opencode.jsonc"}

// Siblings are the other files of p's scope.
func Siblings(p string) []string {
	scope, ok := Classify(p)
	if !ok {
		return nil
	}
	var out []string
	for _, d := range []string{scope, path.Join(scope, ".opencode")} {
		for _, n := range []string{"opencode.json", "opencode.jsonc"} {
			if q := path.Join(d, n); q != p {
				out = append(out, q)
			}
		}
	}
	return out
}

// rawRule is one permission rule before compilation: the tool key (itself
// a wildcard), the pattern, the action, and where it is written.
type rawRule struct {
	tool, pattern, action string
	agent                 string // "" for the top level
	pos                   agent.Pos
	text                  string
}

// tools maps OpenCode's tool names to surfaces; every other tool is a
// Tool call "name:pattern".
var tools = map[string]agent.Surface{"bash": agent.Shell, "shell": agent.Shell, "edit": agent.Write, "write": agent.Write, "patch": agent.Write, "read": agent.Read, "webfetch": agent.Fetch}

// Read parses one version of an OpenCode config.
func Read(file string, data []byte) (*agent.Doc, error) {
	root, probs, err := jsonc.Parse(data, jsonc.JSONC)
	if err != nil {
		pe := &agent.ParseError{File: file, Msg: err.Error()}
		if je, ok := err.(*jsonc.Error); ok {
			pe.Line, pe.Col, pe.Msg = je.Line, je.Col, je.Msg
			pe.MayStillGrant = je.Limit // OpenCode reads it: fail closed
		}
		return nil, pe
	}
	d := &agent.Doc{File: file}
	for _, p := range probs {
		if p.Kind == jsonpos.ProblemDuplicateKey {
			d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemDuplicateKey, Key: p.Key, Message: p.String() + ": OpenCode keeps the last one", Pos: agent.Pos{File: file, Line: p.Pos.Line, Col: p.Pos.Column}})
		}
	}
	if root.Kind() != jsonpos.Object {
		return nil, &agent.ParseError{File: file, Line: root.Start().Line, Col: root.Start().Column, Msg: "the configuration is not a JSON object"}
	}
	r := &reader{file: file, doc: d}
	r.permission(members(root), "")
	for _, a := range members(root.Get("agent")) {
		r.permission(members(a.Value), a.Key)
	}
	for _, a := range members(root.Get("mode")) {
		r.permission(members(a.Value), a.Key)
	}
	r.rest(root)
	d.Rules = r.compile()
	return d, nil
}

func members(v *jsonpos.Value) []jsonpos.Member {
	var out []jsonpos.Member
	for _, m := range v.Members() {
		if !m.Overridden {
			out = append(out, m)
		}
	}
	return out
}

type reader struct {
	file  string
	doc   *agent.Doc
	rules []rawRule
}

func (r *reader) pos(p jsonpos.Pos) agent.Pos {
	return agent.Pos{File: r.file, Line: p.Line, Col: p.Column}
}

func (r *reader) problem(kind, key, msg string, p jsonpos.Pos, restricts bool) {
	r.doc.Problems = append(r.doc.Problems, agent.Problem{Kind: kind, Key: key, Message: msg, Pos: r.pos(p), Restricts: restricts})
}

func validAction(s string) bool { return s == "allow" || s == "ask" || s == "deny" }

// permission reads the permission keys of one object (the top level or an
// agent's block).
func (r *reader) permission(obj []jsonpos.Member, agentName string) {
	where := "permission"
	if agentName != "" {
		where = "agent." + agentName + ".permission"
	}
	for _, m := range obj {
		switch m.Key {
		case "permission":
			v := m.Value
			switch v.Kind() {
			case jsonpos.String:
				r.add(rawRule{tool: "*", pattern: "*", action: v.Text(), agent: agentName, pos: r.pos(v.Start()), text: where + `: "` + v.Text() + `"`}, where)
			case jsonpos.Object:
				for _, t := range members(v) {
					switch t.Value.Kind() {
					case jsonpos.String:
						r.add(rawRule{tool: t.Key, pattern: "*", action: t.Value.Text(), agent: agentName, pos: r.pos(t.KeyStart), text: fmt.Sprintf("%s.%s: %q", where, t.Key, t.Value.Text())}, where+"."+t.Key)
					case jsonpos.Object:
						for _, p := range members(t.Value) {
							if p.Value.Kind() != jsonpos.String {
								r.problem(agent.ProblemInvalidRule, where+"."+t.Key+"."+p.Key, fmt.Sprintf("%s.%s[%q] is a %s, not allow, ask or deny: OpenCode refuses the configuration", where, t.Key, p.Key, p.Value.Kind()), p.KeyStart, false)
								continue
							}
							r.add(rawRule{tool: t.Key, pattern: p.Key, action: p.Value.Text(), agent: agentName, pos: r.pos(p.KeyStart), text: fmt.Sprintf("%s.%s[%q]: %q", where, t.Key, p.Key, p.Value.Text())}, where+"."+t.Key+"."+p.Key)
						}
					default:
						r.problem(agent.ProblemInvalidRule, where+"."+t.Key, fmt.Sprintf("%s.%s is a %s, not an action or a pattern map", where, t.Key, t.Value.Kind()), t.KeyStart, false)
					}
				}
			default:
				r.problem(agent.ProblemInvalidRule, where, where+" is a "+v.Kind().String()+", not an action or a tool map", m.KeyStart, false)
			}
		case "permissions":
			// V2: [{action, resource, effect}], last match wins.
			for i, e := range m.Value.Elements() {
				tool, res, eff := e.Get("action").Text(), e.Get("resource").Text(), e.Get("effect").Text()
				if e.Get("resource").Kind() == jsonpos.Invalid {
					res = "*"
				}
				if tool == "" {
					r.problem(agent.ProblemInvalidRule, fmt.Sprintf("permissions[%d]", i), fmt.Sprintf("permissions[%d] has no action (the tool)", i), e.Start(), validAction(eff) && eff != "allow")
					continue
				}
				r.add(rawRule{tool: tool, pattern: res, action: eff, agent: agentName, pos: r.pos(e.Start()),
					text: fmt.Sprintf("permissions[%d]: %s %q %s", i, tool, res, eff)}, fmt.Sprintf("permissions[%d]", i))
			}
		}
	}
}

func (r *reader) add(rr rawRule, key string) {
	if !validAction(rr.action) {
		r.doc.Problems = append(r.doc.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: key,
			Message: fmt.Sprintf("%s: %q is not allow, ask or deny (OpenCode refuses the configuration)", key, rr.action), Pos: rr.pos})
		return
	}
	r.rules = append(r.rules, rr)
}

// surfaces are the surfaces a rule's tool key (a wildcard) reaches: a
// shell/write/read/fetch tool, or the Tool surface.
func surfacesOf(tool string) []agent.Surface {
	l := lattice.MustCompile(agent.Glob(tool))
	var out []agent.Surface
	seen := map[agent.Surface]bool{}
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if s := tools[n]; l.Match(n) && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if _, named := tools[tool]; !named {
		out = append(out, agent.Tool)
	}
	return out
}

// compile turns the raw rules into the model's rules, in order: the
// top-level rules apply to every call; an agent's rules are appended after
// them on that agent's own surfaces (shell@plan, …).
func (r *reader) compile() []agent.Rule {
	var out []agent.Rule
	agents := map[string]bool{}
	for _, rr := range r.rules {
		if rr.agent != "" {
			agents[rr.agent] = true
		}
	}
	names := make([]string, 0, len(agents))
	for a := range agents {
		names = append(names, a)
	}
	sort.Strings(names)
	emit := func(rr rawRule, suffix string) {
		for _, s := range surfacesOf(rr.tool) {
			re := ruleRE(s, rr.tool, rr.pattern)
			rule := agent.Rule{Surface: s + agent.Surface(suffix), Text: rr.text, Decision: decision(rr.action), Pos: rr.pos}
			l, err := lattice.Compile(re)
			if err != nil {
				rule.Unknown = err.Error()
			} else {
				rule.Lang = l
			}
			out = append(out, rule)
		}
	}
	for _, rr := range r.rules {
		if rr.agent == "" {
			emit(rr, "")
		}
	}
	for _, a := range names {
		for _, rr := range r.rules {
			if rr.agent == "" {
				emit(rr, "@"+a)
			}
		}
		for _, rr := range r.rules {
			if rr.agent == a {
				emit(rr, "@"+a)
			}
		}
	}
	return out
}

// ruleRE is the language of one rule on a surface.
func ruleRE(s agent.Surface, tool, pattern string) lattice.RE {
	g := agent.Glob(pattern)
	if s == agent.Shell && strings.HasSuffix(pattern, " *") {
		// A shell pattern ending in " *" also matches the bare command
		// ("git status *" matches "git status"), per the V2 docs.
		g = lattice.Alt(g, agent.Glob(strings.TrimSuffix(pattern, " *")))
	}
	if s == agent.Tool {
		return lattice.Cat(agent.Glob(tool), lattice.Lit(":"), g)
	}
	return g
}

func decision(a string) agent.Decision {
	switch a {
	case "allow":
		return agent.Allow
	case "deny":
		return agent.Deny
	}
	return agent.Ask
}

// rest reads the other keys that change what OpenCode may do.
func (r *reader) rest(root *jsonpos.Value) {
	for _, m := range members(root.Get("mcp")) {
		sum := jsonc.ServerSummary(m.Value)
		if e := m.Value.Get("enabled"); e.Kind() == jsonpos.Bool && !e.Bool() {
			sum += " (disabled)"
		}
		r.doc.Servers = append(r.doc.Servers, agent.Server{Name: m.Key, Summary: sum, Canon: jsonc.Canon(m.Value), Pos: r.pos(m.KeyStart)})
	}
	for _, p := range root.Get("plugin").Elements() {
		r.doc.Settings = append(r.doc.Settings, agent.Setting{Key: "plugin[" + p.Text() + "]", Value: p.Text(), Pos: r.pos(p.Start()), Grant: 1,
			Check: agent.CheckPlugin, Why: "an OpenCode plugin is code OpenCode loads and runs, with hooks on every tool call"})
	}
	for _, t := range members(root.Get("tools")) {
		g := 0
		if t.Value.Kind() == jsonpos.Bool && !t.Value.Bool() {
			g = -1
		}
		r.doc.Settings = append(r.doc.Settings, agent.Setting{Key: "tools." + t.Key, Value: jsonc.Canon(t.Value), Pos: r.pos(t.KeyStart), Grant: g,
			Check: agent.CheckAllow, Why: "tools." + t.Key + ": false turns the tool off; removing it turns it back on"})
	}
	for _, k := range []string{"formatter", "lsp"} {
		if m, ok := root.Lookup(k); ok && m.Value.Kind() == jsonpos.Object {
			for _, x := range members(m.Value) {
				if x.Value.Get("command").Kind() == jsonpos.Invalid {
					continue
				}
				r.doc.Settings = append(r.doc.Settings, agent.Setting{Key: k + "." + x.Key, Value: jsonc.Canon(x.Value.Get("command")), Pos: r.pos(x.KeyStart), Grant: 1,
					Check: agent.CheckHook, Why: "OpenCode runs this command by itself (a " + k + " starts on the files it edits), without a prompt"})
			}
		}
	}
}

// Combine is a scope's effective policy: the files' rules in OpenCode's
// load order (opencode.json, then opencode.jsonc, then the .opencode
// folder's: later configs are merged over earlier ones), last match wins,
// and Ask where no rule matches (the user's own configuration is assumed
// to ask: a repository rule that allows widens whatever the user set).
func Combine(docs []*agent.Doc) *agent.Policy {
	p := &agent.Policy{Precedence: agent.LastMatch}
	var ds []*agent.Doc
	for _, d := range docs {
		if d != nil {
			ds = append(ds, d)
		}
	}
	rank := func(f string) int {
		r := 0
		if strings.Contains(f, ".opencode/") {
			r += 2
		}
		if strings.HasSuffix(f, ".jsonc") {
			r++
		}
		return r
	}
	sort.SliceStable(ds, func(i, j int) bool { return rank(ds[i].File) < rank(ds[j].File) })
	for _, d := range ds {
		p.Rules = append(p.Rules, d.Rules...)
	}
	return p
}
