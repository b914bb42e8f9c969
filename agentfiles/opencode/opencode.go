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

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
)

// CheckedAgainst names the documentation the semantics follow.
const CheckedAgainst = "docs opencode.ai/v1/docs/permissions (2026-12-01)"

// Classify reports whether OpenCode reads a repository path, and its
// scope (the directory OpenCode is started in for it): opencode.json and
// opencode.jsonc in any directory, and every file of a .opencode folder
// (its configs, agent and mode definitions, plugins and custom tools it
// loads at startup, the package.json it installs, and the files its
// configs pull in with {file:…}; the list OpenCode 1.18.33 opens is
// pinned in testdata/opened-1.18.33.txt).
func Classify(p string) (scope string, ok bool) {
	s, k := classify(p)
	return s, k != ""
}

// File kinds within OpenCode's surface.
const (
	kindConfig  = "config"  // opencode.json, opencode.jsonc
	kindAgent   = "agent"   // .opencode/{agent,agents,mode,modes}/**/*.md
	kindCode    = "code"    // .opencode/{plugin,plugins,tool,tools}/**: code OpenCode loads
	kindPackage = "package" // .opencode/package.json: installed at startup
	kindData    = "data"    // any other file of a .opencode folder
)

// classify is Classify with the file's kind ("" when OpenCode reads no
// such path).
func classify(p string) (scope, kind string) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if base == "opencode.json" || base == "opencode.jsonc" {
		if dir == ".opencode" {
			return "", kindConfig
		}
		if strings.HasSuffix(dir, "/.opencode") {
			return strings.TrimSuffix(dir, "/.opencode"), kindConfig
		}
		return dir, kindConfig
	}
	scope, rel, ok := inOpencodeDir(p)
	if !ok {
		return "", ""
	}
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case (first == "agent" || first == "agents" || first == "mode" || first == "modes") && strings.HasSuffix(rel, ".md") && rel != first+".md":
		return scope, kindAgent
	case first == "plugin" || first == "plugins" || first == "tool" || first == "tools":
		if rel != first {
			return scope, kindCode
		}
	case rel == "package.json":
		return scope, kindPackage
	}
	return scope, kindData
}

// inOpencodeDir splits a path inside a .opencode folder into the folder's
// scope and the path within it.
func inOpencodeDir(p string) (scope, rel string, ok bool) {
	if j := strings.LastIndex(p, "/.opencode/"); j >= 0 {
		// The innermost .opencode folder is the file's.
		if rel := p[j+len("/.opencode/"):]; rel != "" {
			return p[:j], rel, true
		}
		return "", "", false
	}
	if rest, ok := strings.CutPrefix(p, ".opencode/"); ok && rest != "" {
		return "", rest, true
	}
	return "", "", false
}

// Pathspecs match every path Classify accepts.
var Pathspecs = []string{":(glob)opencode.json", ":(glob)opencode.jsonc", ":(glob)**/opencode.json", ":(glob)**/opencode.jsonc",
	":(glob).opencode/**", ":(glob)**/.opencode/**"}

// Siblings are the other files of p's scope the comparison needs: its
// configs (an agent file or a {file:…} target is read with them).
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
	unknown               string // why its language or action is not known
}

// tools maps OpenCode's tool names to surfaces; every other tool is a
// Tool call "name:pattern".
var tools = map[string]agent.Surface{"bash": agent.Shell, "shell": agent.Shell, "edit": agent.Write, "write": agent.Write, "patch": agent.Write, "read": agent.Read, "webfetch": agent.Fetch}

// Lookup returns another repository file of the same side for a {file:…}
// reference: its content and whether it exists; known is false when the
// comparison was not given the file (its content is then unknown).
type Lookup func(path string) (data []byte, exists, known bool)

// Read parses one version of one OpenCode file with no other file at
// hand: a {file:…} reference reads as unknown (ReadWith).
func Read(file string, data []byte) (*agent.Doc, error) { return ReadWith(file, data, nil) }

// ReadWith parses one version of one OpenCode file; look finds the files
// a config's {file:…} references name (nil: none is known).
func ReadWith(file string, data []byte, look Lookup) (*agent.Doc, error) {
	_, kind := classify(file)
	switch kind {
	case kindAgent:
		return readAgent(file, data)
	case kindCode:
		return readCode(file, data), nil
	case kindPackage:
		return readPackage(file, data)
	case kindData:
		return &agent.Doc{File: file}, nil
	}
	data, unknown, perr := substitute(file, data, look)
	if perr != nil {
		return nil, perr
	}
	root, probs, err := jsonc.Parse(data, jsonc.JSONC)
	if err != nil {
		pe := &agent.ParseError{File: file, Msg: err.Error()}
		if je, ok := err.(*jsonc.Error); ok {
			pe.Line, pe.Col, pe.Msg = je.Line, je.Col, je.Msg
			pe.MayStillGrant = je.Limit // OpenCode reads it: fail closed
		}
		if len(unknown) > 0 {
			// What the references hold may make it valid.
			pe.MayStillGrant = true
			pe.Msg += " (after substituting " + strings.Join(unknown, ", ") + ", whose values Shipgate cannot see)"
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
	if strings.Contains(rr.tool+"\x00"+rr.pattern+"\x00"+rr.action, unknownMark) {
		// A value from {env:…} or a file Shipgate was not given: read as
		// granting (fail closed).
		rr.unknown = "it is built from " + unknownNames(rr.tool+rr.pattern+rr.action) + ", whose value Shipgate cannot see"
		if !validAction(rr.action) {
			rr.action = "allow"
		}
		if strings.Contains(rr.tool, unknownMark) {
			rr.tool = "*"
		}
	}
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
	return compileRules(r.rules)
}

// compileRules compiles raw rules in order: a top-level rule on its
// surfaces, an agent's rule on that agent's own (shell@plan); Combine
// puts the top-level rules before every agent's own.
func compileRules(rules []rawRule) []agent.Rule {
	var out []agent.Rule
	for _, rr := range rules {
		suffix := ""
		if rr.agent != "" {
			suffix = "@" + rr.agent
		}
		for _, s := range surfacesOf(rr.tool) {
			rule := agent.Rule{Surface: s + agent.Surface(suffix), Text: rr.text, Decision: decision(rr.action), Pos: rr.pos}
			if rr.unknown != "" {
				rule.Unknown = rr.unknown
			} else if l, err := lattice.Compile(ruleRE(s, rr.tool, rr.pattern)); err != nil {
				rule.Unknown = err.Error()
			} else {
				rule.Lang = l
			}
			out = append(out, rule)
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

// Combine is a scope's effective policy: the configs' rules in
// OpenCode's load order (opencode.json, then opencode.jsonc, then the
// .opencode folder's: later configs are merged over earlier ones), then
// per agent the top-level rules followed by that agent's own (its config
// blocks, then its .opencode/agent file), last match wins. Where no rule
// of the repository matches, the user's own configuration is assumed to
// ask (a repository rule that allows widens whatever the user set), and
// OpenCode's built-in rules (Builtin: everything allowed but .env reads
// and other folders) are the Fallback a removed rule falls to.
func Combine(docs []*agent.Doc) *agent.Policy {
	p := &agent.Policy{Precedence: agent.LastMatch, Fallback: builtin}
	var ds []*agent.Doc
	for _, d := range docs {
		if d != nil {
			ds = append(ds, d)
		}
	}
	rank := func(f string) int {
		r := 0
		if _, k := classify(f); k == kindAgent {
			return 10
		}
		if strings.Contains(f, ".opencode/") {
			r += 2
		}
		if strings.HasSuffix(f, ".jsonc") {
			r++
		}
		return r
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if ri, rj := rank(ds[i].File), rank(ds[j].File); ri != rj {
			return ri < rj
		}
		return ds[i].File < ds[j].File
	})
	agents := map[string]bool{}
	for _, d := range ds {
		for _, r := range d.Rules {
			if r.Surface.Kind() == r.Surface {
				p.Rules = append(p.Rules, r)
			} else {
				agents[strings.TrimPrefix(string(r.Surface), string(r.Surface.Kind())+"@")] = true
			}
		}
	}
	top := len(p.Rules)
	names := make([]string, 0, len(agents))
	for a := range agents {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		for _, r := range p.Rules[:top] {
			r.Surface += agent.Surface("@" + a)
			p.Rules = append(p.Rules, r)
		}
		for _, d := range ds {
			for _, r := range d.Rules {
				if strings.TrimPrefix(string(r.Surface), string(r.Surface.Kind())+"@") == a && r.Surface.Kind() != r.Surface {
					p.Rules = append(p.Rules, r)
				}
			}
		}
	}
	return p
}
