package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
)

// The files beyond opencode.json that OpenCode reads from a repository,
// each measured with OpenCode 1.18.33 (docs/agents.md gives the commands):
//
//   - {file:path} and {env:NAME} in a config are replaced by the file's
//     content (trimmed, JSON-escaped, the path relative to the config's
//     folder; a missing file is a configuration error; a {file:…} on a
//     line starting with // is left alone) and by the variable's value
//     before the JSON is parsed, so a pull request that edits only the
//     referenced file changes the config;
//   - .opencode/{agent,agents,mode,modes}/**/*.md define agents (named by
//     their path without .md): their frontmatter's permission: block and
//     tools: map (true → allow, false → deny) come after the top-level
//     rules for that agent — build.md overrides the default agent;
//   - .opencode/{plugin,plugins}/* and custom tools in
//     .opencode/{tool,tools}/* are code OpenCode imports and runs at
//     startup, without a prompt (a plugin's permission.ask hook can
//     answer allow);
//   - .opencode/package.json's dependencies are installed at startup for
//     plugins to import.

// unknownMark stands in the text for a value Shipgate cannot see: an
// environment variable, or a file outside the repository or not given.
const unknownMark = "\u00abshipgate-unknown:"

var (
	envRef  = regexp.MustCompile(`\{env:([^}]+)\}`)
	fileRef = regexp.MustCompile(`\{file:([^}]+)\}`)
	markRef = regexp.MustCompile(unknownMark + `([^\x{bb}]*)\x{bb}`)
)

// unknownNames lists the references a text's unknown marks stand for.
func unknownNames(s string) string {
	var out []string
	for _, m := range markRef.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		return "a value"
	}
	return strings.Join(out, ", ")
}

// mark is the stand-in text for an unknown reference.
func mark(ref string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r == '\u00bb' {
			return '_'
		}
		return r
	}, ref)
	return unknownMark + clean + "\u00bb"
}

// resolveRef is the repository path a {file:…} of a config names, or ""
// when it lies outside the repository (absolute, ~, or above the root).
func resolveRef(config, name string) string {
	if strings.HasPrefix(name, "~") || strings.HasPrefix(name, "/") {
		return ""
	}
	q := path.Join(path.Dir(config), name)
	if q == ".." || strings.HasPrefix(q, "../") {
		return ""
	}
	return q
}

// commentLine reports whether the line holding offset i starts with //
// (OpenCode leaves {file:…} on such a line alone).
func commentLine(data []byte, i int) bool {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	return bytes.HasPrefix(bytes.TrimLeft(data[start:i], " \t"), []byte("//"))
}

// MayReference reports whether a file at p may hold {file:…}
// references: a config.
func MayReference(p string) bool {
	_, k := classify(p)
	return k == kindConfig
}

// References are the repository files a config's {file:…} references
// name, as OpenCode resolves them (nil for a file of another kind).
func References(file string, data []byte) []string {
	if _, k := classify(file); k != kindConfig {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range fileRef.FindAllSubmatchIndex(data, -1) {
		if commentLine(data, m[0]) {
			continue
		}
		if q := resolveRef(file, string(data[m[2]:m[3]])); q != "" && !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

// substitute replaces a config's references as OpenCode does before it
// parses the JSON; a reference whose value Shipgate cannot see becomes an
// unknown mark (listed in unknown), read fail-closed by the rules.
func substitute(file string, data []byte, look Lookup) (out []byte, unknown []string, perr *agent.ParseError) {
	if !bytes.Contains(data, []byte("{env:")) && !bytes.Contains(data, []byte("{file:")) {
		return data, nil, nil
	}
	lineOf := func(i int) int { return bytes.Count(data[:i], []byte("\n")) + 1 }
	out = envRef.ReplaceAllFunc(data, func(m []byte) []byte {
		unknown = append(unknown, string(m))
		return []byte(mark(string(m)))
	})
	var b bytes.Buffer
	last := 0
	for _, m := range fileRef.FindAllSubmatchIndex(out, -1) {
		b.Write(out[last:m[0]])
		last = m[1]
		ref := string(out[m[0]:m[1]])
		if commentLine(out, m[0]) {
			b.WriteString(ref)
			continue
		}
		name := string(out[m[2]:m[3]])
		q := resolveRef(file, name)
		var content []byte
		exists, known := false, false
		if q != "" && look != nil {
			content, exists, known = look(q)
		}
		switch {
		case !known:
			unknown = append(unknown, ref)
			b.WriteString(mark(ref))
		case !exists:
			return nil, nil, &agent.ParseError{File: file, Line: lineOf(m[0]), Col: 1,
				Msg: fmt.Sprintf("bad file reference %s: %s does not exist, so OpenCode refuses the configuration", ref, q)}
		default:
			esc, _ := json.Marshal(strings.TrimSpace(string(content)))
			b.Write(esc[1 : len(esc)-1])
		}
	}
	b.Write(out[last:])
	return b.Bytes(), unknown, nil
}

// agentName is the name OpenCode gives an agent file: its path under the
// agent (or mode) folder without .md.
func agentName(file string) string {
	_, rel, _ := inOpencodeDir(file)
	_, rest, _ := strings.Cut(rel, "/")
	return strings.TrimSuffix(rest, ".md")
}

// readAgent reads an agent definition's frontmatter: tools (true allows
// the tool, false denies it) and permission (as a config's), the agent's
// own rules.
func readAgent(file string, data []byte) (*agent.Doc, error) {
	d := &agent.Doc{File: file}
	m, err := agent.Frontmatter(file, data)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return d, nil // no frontmatter: the default agent's rules (or not a mapping)
	}
	name := agentName(file)
	r := &reader{file: file, doc: d}
	pos := func(y *yaml.Node) agent.Pos { return agent.Pos{File: file, Line: y.Line + 1, Col: y.Column} }
	var tools, perm []rawRule
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "tools":
			if v.Kind != yaml.MappingNode {
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				t, b := v.Content[j], v.Content[j+1]
				act := ""
				switch b.Value {
				case "true":
					act = "allow"
				case "false":
					act = "deny"
				default:
					r.problem(agent.ProblemInvalidRule, "tools."+t.Value, fmt.Sprintf("tools.%s is %q, not true or false", t.Value, b.Value), jsonpos.Pos{Line: t.Line + 1, Column: t.Column}, false)
					continue
				}
				tools = append(tools, rawRule{tool: t.Value, pattern: "*", action: act, agent: name, pos: pos(t), text: fmt.Sprintf("%s tools.%s: %s", name, t.Value, b.Value)})
			}
		case "permission":
			switch v.Kind {
			case yaml.ScalarNode:
				perm = append(perm, rawRule{tool: "*", pattern: "*", action: v.Value, agent: name, pos: pos(v), text: fmt.Sprintf("%s permission: %q", name, v.Value)})
			case yaml.MappingNode:
				for j := 0; j+1 < len(v.Content); j += 2 {
					t, a := v.Content[j], v.Content[j+1]
					switch a.Kind {
					case yaml.ScalarNode:
						perm = append(perm, rawRule{tool: t.Value, pattern: "*", action: a.Value, agent: name, pos: pos(t), text: fmt.Sprintf("%s permission.%s: %q", name, t.Value, a.Value)})
					case yaml.MappingNode:
						for x := 0; x+1 < len(a.Content); x += 2 {
							pk, pv := a.Content[x], a.Content[x+1]
							perm = append(perm, rawRule{tool: t.Value, pattern: pk.Value, action: pv.Value, agent: name, pos: pos(pk), text: fmt.Sprintf("%s permission.%s[%q]: %q", name, t.Value, pk.Value, pv.Value)})
						}
					}
				}
			}
		}
	}
	// tools: becomes rules before the permission block's (measured: a
	// tools entry alone gives its rule after the top-level ones), except
	// that a tool the permission block names takes the block's rules only:
	// OpenCode merges the block over the tools entries key by key
	// (measured with `opencode debug agent build`, 1.18.33: tools bash:
	// true beside permission bash {"rm *": allow} lists no bash allow-all,
	// and tools bash: false beside it no deny).
	named := map[string]bool{}
	for _, rr := range perm {
		named[rr.tool] = true
	}
	var kept []rawRule
	for _, rr := range tools {
		if !named[rr.tool] {
			kept = append(kept, rr)
		}
	}
	for _, rr := range append(kept, perm...) {
		r.add(rr, rr.text)
	}
	d.Rules = r.compile()
	return d, nil
}

// readCode reads a plugin or custom tool: code OpenCode runs at startup.
// Any change to it is a change to what runs (a hook, either way).
func readCode(file string, data []byte) *agent.Doc {
	h := fnv.New64a()
	h.Write(data)
	return &agent.Doc{File: file, Settings: []agent.Setting{{
		Key: "code " + file, Value: fmt.Sprintf("%d bytes, fnv %016x", len(data), h.Sum64()), Pos: agent.Pos{File: file, Line: 1, Col: 1}, Grant: 1,
		Check: agent.CheckHook,
		Why:   "OpenCode imports and runs a plugin or custom tool of .opencode at startup, without a prompt; a plugin's hooks see every tool call and its permission.ask hook can answer allow",
	}}}
}

// readPackage reads .opencode/package.json: OpenCode installs its
// dependencies at startup (bun install) for plugins to import, and the
// install runs its scripts.
func readPackage(file string, data []byte) (*agent.Doc, error) {
	root, _, err := jsonc.Parse(data, jsonc.Options{})
	if err != nil {
		pe := &agent.ParseError{File: file, Msg: err.Error(), MayStillGrant: true}
		if je, ok := err.(*jsonc.Error); ok {
			pe.Line, pe.Col, pe.Msg = je.Line, je.Col, je.Msg
		}
		return nil, pe
	}
	d := &agent.Doc{File: file}
	for _, k := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "scripts", "trustedDependencies", "overrides"} {
		for _, m := range members(root.Get(k)) {
			d.Settings = append(d.Settings, agent.Setting{Key: k + "." + m.Key, Value: jsonc.Canon(m.Value), Pos: agent.Pos{File: file, Line: m.KeyStart.Line, Col: m.KeyStart.Column},
				Grant: 1, Check: agent.CheckHook, Why: "OpenCode installs .opencode/package.json at startup (bun install) for its plugins to import: this is code it runs"})
		}
	}
	return d, nil
}

// Builtin is OpenCode 1.18.33's own rule list for the default agent, in
// order, with no configuration (measured: `opencode debug agent build` in
// an empty HOME; the rules for its own data folders outside the
// repository are left out). The first allows everything.
var Builtin = [][3]string{
	{"*", "*", "allow"},
	{"doom_loop", "*", "ask"},
	{"external_directory", "*", "ask"},
	{"question", "*", "deny"},
	{"plan_enter", "*", "deny"},
	{"plan_exit", "*", "deny"},
	{"read", "*", "allow"},
	{"read", "*.env", "ask"},
	{"read", "*.env.*", "ask"},
	{"read", "*.env.example", "allow"},
	{"question", "*", "allow"},
	{"plan_enter", "*", "allow"},
}

var builtin = func() *agent.Policy {
	var rr []rawRule
	for _, b := range Builtin {
		rr = append(rr, rawRule{tool: b[0], pattern: b[1], action: b[2], text: fmt.Sprintf("%s %q: %s", b[0], b[1], b[2])})
	}
	return &agent.Policy{Precedence: agent.LastMatch, Rules: compileRules(rr)}
}()
