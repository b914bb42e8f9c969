package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/lattice"
)

// Error is a problem in a policy file, with the position a user needs.
type Error struct {
	Path   string
	Line   int
	Column int
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Errors is every problem found in one policy file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	var b bytes.Buffer
	for i, e := range es {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Options tells Parse what the engine knows: the check IDs and their
// default actions (so a misspelled ID or a lowered action is an error).
// The zero Options checks only the file's own shape.
type Options struct {
	// Checks maps every known check ID to its default action.
	Checks map[string]Action
	// Agents lists the agent names a policy may scope by (agents: [...]);
	// nil accepts any name.
	Agents []string
}

// Parse reads a policy file strictly: unknown keys, wrong types, bad rule
// text, unknown check IDs and actions below a check's default are errors
// naming the line and column, and nothing of a file with errors is used
// (the engine's defaults apply until it is fixed). path names the file in
// errors and findings.
func Parse(path string, data []byte, opts ...Options) (*Policy, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{Path: path, Line: 1, Msg: "the policy file is empty: it needs at least `version: 1`"}}
		}
		return nil, Errors{yamlError(path, err.Error())}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{Path: path, Line: extra.Line, Column: extra.Column, Msg: "a second YAML document: a policy file holds one"}}
	}
	l := &loader{path: path, opts: o}
	p := l.policy(&doc)
	if len(l.errs) > 0 {
		sort.SliceStable(l.errs, func(i, j int) bool { return l.errs[i].Line < l.errs[j].Line })
		return nil, l.errs
	}
	p.Source = path
	if p.Ceiling != nil {
		p.Ceiling.Source = path
	}
	return p, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError turns a yaml.v3 message ("yaml: line 3: ...") into an Error.
func yamlError(path, msg string) *Error {
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{Path: path, Line: n, Msg: "YAML syntax: " + m[2]}
	}
	return &Error{Path: path, Msg: "YAML syntax: " + msg}
}

// loader walks the YAML tree, collecting every error with its position.
type loader struct {
	path string
	opts Options
	errs Errors
}

func (l *loader) errorf(n *yaml.Node, format string, a ...any) {
	e := &Error{Path: l.path, Msg: fmt.Sprintf(format, a...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	l.errs = append(l.errs, e)
}

// fields walks a mapping: for each key, the matching handler reads the
// value; an unknown key is an error naming the known ones.
func (l *loader) fields(n *yaml.Node, where string, handlers map[string]func(key, val *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "%s must be a mapping of keys, not %s", where, kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			l.errorf(k, "%s: key %q appears twice", where, k.Value)
			continue
		}
		seen[k.Value] = true
		h, ok := handlers[k.Value]
		if !ok {
			known := make([]string, 0, len(handlers))
			for name := range handlers {
				known = append(known, name)
			}
			sort.Strings(known)
			msg := fmt.Sprintf("%s: unknown key %q (known: %s)", where, k.Value, strings.Join(known, ", "))
			if s := closest(k.Value, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			l.errorf(k, "%s", msg)
			continue
		}
		h(k, v)
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return "the value " + strconv.Quote(n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// str reads a scalar string.
func (l *loader) str(n *yaml.Node, where string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.errorf(n, "%s must be a string, not %s", where, kindName(n))
		return "", false
	}
	return n.Value, true
}

// items reads a list of strings with their positions.
func (l *loader) items(n *yaml.Node, where string) []Item {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "%s must be a list of strings, not %s", where, kindName(n))
		return nil
	}
	var out []Item
	for i, e := range n.Content {
		s, ok := l.str(e, fmt.Sprintf("%s[%d]", where, i))
		if !ok {
			continue
		}
		if strings.TrimSpace(s) == "" {
			l.errorf(e, "%s[%d] is blank", where, i)
			continue
		}
		out = append(out, Item{Value: s, Line: e.Line, Column: e.Column, Source: l.path})
	}
	return out
}

func (l *loader) action(n *yaml.Node, where string) Action {
	s, ok := l.str(n, where)
	if !ok {
		return ""
	}
	a, ok := ParseAction(s)
	if !ok {
		l.errorf(n, "%s %q: use advisory, require_review or block", where, s)
	}
	return a
}

func (l *loader) policy(doc *yaml.Node) *Policy {
	p := &Policy{}
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	version := false
	l.fields(root, "the policy", map[string]func(k, v *yaml.Node){
		"version": func(k, v *yaml.Node) {
			version = true
			if v.Kind != yaml.ScalarNode || v.Value != "1" {
				l.errorf(v, "version %s is not supported: write `version: 1`", strconv.Quote(v.Value))
				return
			}
			p.Version = 1
		},
		"paths": func(k, v *yaml.Node) {
			l.fields(v, "paths", map[string]func(k, v *yaml.Node){
				"watch":  func(k, v *yaml.Node) { p.Paths.Watch = l.globs(v, "paths.watch") },
				"ignore": func(k, v *yaml.Node) { p.Paths.Ignore = l.globs(v, "paths.ignore") },
			})
		},
		"checks":    func(k, v *yaml.Node) { p.Checks = l.checks(v) },
		"exec_tier": func(k, v *yaml.Node) { p.ExecTier = l.execTier(v) },
		"ceiling":   func(k, v *yaml.Node) { p.Ceiling = l.ceiling(v) },
		"intent":    func(k, v *yaml.Node) { p.Intent = l.intent(v) },
		"reviewers": func(k, v *yaml.Node) { p.Reviewers = l.reviewers(v) },
	})
	if !version && root.Kind == yaml.MappingNode {
		l.errorf(root, "missing `version: 1` (the policy format version)")
	}
	return p
}

func (l *loader) globs(n *yaml.Node, where string) []Item {
	out := l.items(n, where)
	for _, g := range out {
		if strings.Contains(g.Value, "\\") {
			l.errorf(&yaml.Node{Line: g.Line, Column: g.Column}, "%s %q: use forward slashes", where, g.Value)
		}
	}
	return out
}

func (l *loader) checks(n *yaml.Node) map[string]CheckRule {
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "checks must be a mapping of check IDs, not %s", kindName(n))
		return nil
	}
	out := map[string]CheckRule{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		id := k.Value
		if full, ok := ResolveCheckID(id, l.opts.Checks); ok {
			id = full // a short ID (PERMISSION-DENY-REMOVED) names its check
		}
		if prev, dup := out[id]; dup {
			l.errorf(k, "checks: %s names %s, already raised on line %d", k.Value, id, prev.Line)
			continue
		}
		def, known := l.opts.Checks[id]
		if l.opts.Checks != nil && !known {
			ids := make([]string, 0, len(l.opts.Checks))
			for c := range l.opts.Checks {
				ids = append(ids, c)
			}
			msg := fmt.Sprintf("checks: unknown check ID %q (docs/checks.md lists them)", id)
			if s := closest(id, ids); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else if s := closestShort(id, ids); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			l.errorf(k, "%s", msg)
			continue
		}
		r := CheckRule{Line: k.Line}
		l.fields(v, "checks."+id, map[string]func(k, v *yaml.Node){
			"action": func(k, v *yaml.Node) {
				r.Action = l.action(v, "checks."+id+".action")
				if known && r.Action != "" && r.Action.Rank() < def.Rank() {
					l.errorf(v, "checks.%s.action %s is below the default %s: a policy may only raise an action (the default applies)", id, r.Action, def)
				}
			},
			"risk": func(k, v *yaml.Node) {
				s, ok := l.str(v, "checks."+id+".risk")
				if ok && RiskRank(s) == 0 {
					l.errorf(v, "checks.%s.risk %q: use low, medium, high or critical", id, s)
				}
				r.Risk = s
			},
			"agents": func(k, v *yaml.Node) { r.Agents = l.agents(v, "checks."+id+".agents") },
		})
		out[id] = r
	}
	return out
}

func (l *loader) execTier(n *yaml.Node) ExecTier {
	var t ExecTier
	l.fields(n, "exec_tier", map[string]func(k, v *yaml.Node){
		"extra": func(k, v *yaml.Node) {
			for _, it := range l.items(v, "exec_tier.extra") {
				switch {
				case strings.ContainsAny(it.Value, "*:"):
					l.errorf(&yaml.Node{Line: it.Line, Column: it.Column}, "exec_tier.extra %q: give the launcher prefix without a wildcard (npm exec, not npm exec *)", it.Value)
				case strings.TrimSpace(it.Value) != it.Value || strings.Contains(it.Value, "  "):
					l.errorf(&yaml.Node{Line: it.Line, Column: it.Column}, "exec_tier.extra %q: single spaces between words, none around", it.Value)
				default:
					t.Extra = append(t.Extra, it)
				}
			}
		},
	})
	return t
}

// rules reads a list of rules in Claude Code's syntax, refusing rules
// Claude Code could not read or reads two ways.
func (l *loader) rules(n *yaml.Node, where string, list lattice.List) []Item {
	out := l.items(n, where)
	for _, it := range out {
		r := lattice.ParseIn(list, it.Value)
		pos := &yaml.Node{Line: it.Line, Column: it.Column}
		switch {
		case r.Malformed != "":
			l.errorf(pos, "%s %q is not a rule Claude Code can read: %s", where, it.Value, r.Malformed)
		case r.Ambiguous():
			l.errorf(pos, "%s %q can be read two ways (%s): write it unambiguously", where, it.Value, r.Ambiguity)
		case list == lattice.Deny && r.Dead():
			// A deny the ceiling demands must stop something: a rule
			// Claude Code matches with nothing (Bash(rm :*)) cannot.
			why := r.Note
			if why == "" {
				why = "Claude Code " + lattice.ClaudeCodeVersion + " matches no call with it"
			}
			l.errorf(pos, "%s %q denies nothing (%s): write the rule you mean", where, it.Value, why)
		}
	}
	return out
}

func (l *loader) ceiling(n *yaml.Node) *Ceiling {
	c := &Ceiling{}
	l.fields(n, "ceiling", map[string]func(k, v *yaml.Node){
		"allow": func(k, v *yaml.Node) {
			c.Allow = l.rules(v, "ceiling.allow", lattice.Allow)
			c.HasAllow = true
		},
		"must_deny": func(k, v *yaml.Node) { c.MustDeny = l.rules(v, "ceiling.must_deny", lattice.Deny) },
		"action": func(k, v *yaml.Node) {
			c.Action = l.action(v, "ceiling.action")
			if c.Action == Advisory {
				l.errorf(v, "ceiling.action advisory is below the default block: use require_review or block")
			}
		},
	})
	return c
}

func (l *loader) intent(n *yaml.Node) Intent {
	var in Intent
	calls := func(v *yaml.Node, where string) []Item {
		out := l.items(v, where)
		for _, it := range out {
			if _, err := ParseCall(it.Value); err != nil {
				l.errorf(&yaml.Node{Line: it.Line, Column: it.Column}, "%s %q: %v", where, it.Value, err)
			}
		}
		return out
	}
	l.fields(n, "intent", map[string]func(k, v *yaml.Node){
		"allowed": func(k, v *yaml.Node) { in.Allowed = calls(v, "intent.allowed") },
		"asked":   func(k, v *yaml.Node) { in.Asked = calls(v, "intent.asked") },
		"denied":  func(k, v *yaml.Node) { in.Denied = calls(v, "intent.denied") },
		"agents":  func(k, v *yaml.Node) { in.Agents = l.agents(v, "intent.agents") },
		"action": func(k, v *yaml.Node) {
			in.Action = l.action(v, "intent.action")
			if in.Action == Advisory {
				l.errorf(v, "intent.action advisory is below the default block: use require_review or block")
			}
		},
	})
	return in
}

// agents reads a list of agent names, refusing unknown and repeated ones.
func (l *loader) agents(n *yaml.Node, where string) []Item {
	out := l.items(n, where)
	if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		l.errorf(n, "%s is empty: name at least one agent, or leave the key out to cover every agent", where)
	}
	seen := map[string]bool{}
	for _, it := range out {
		pos := &yaml.Node{Line: it.Line, Column: it.Column}
		if seen[it.Value] {
			l.errorf(pos, "%s names %q twice", where, it.Value)
		}
		seen[it.Value] = true
		if l.opts.Agents == nil {
			continue
		}
		known := false
		for _, a := range l.opts.Agents {
			known = known || a == it.Value
		}
		if !known {
			msg := fmt.Sprintf("%s: unknown agent %q (known: %s)", where, it.Value, strings.Join(l.opts.Agents, ", "))
			if s := closest(it.Value, l.opts.Agents); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			l.errorf(pos, "%s", msg)
		}
	}
	return out
}

var teamSlug = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (l *loader) reviewers(n *yaml.Node) Reviewers {
	var r Reviewers
	teams := func(v *yaml.Node, where string) []Item {
		out := l.items(v, where)
		for _, it := range out {
			if !teamSlug.MatchString(it.Value) {
				l.errorf(&yaml.Node{Line: it.Line, Column: it.Column}, "%s %q: name a team as org/team-slug", where, it.Value)
			}
		}
		return out
	}
	l.fields(n, "reviewers", map[string]func(k, v *yaml.Node){
		"review": func(k, v *yaml.Node) { r.Review = teams(v, "reviewers.review") },
		"block":  func(k, v *yaml.Node) { r.Block = teams(v, "reviewers.block") },
	})
	return r
}

// ParseCall reads an intent call: `Tool(argument)` for a known tool, an
// MCP tool name, or else a Bash command.
func ParseCall(s string) (lattice.Call, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return lattice.Call{}, errors.New("empty call")
	}
	if strings.HasPrefix(s, "mcp__") && !strings.ContainsAny(s, " ()") {
		return lattice.Call{Tool: s}, nil
	}
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		tool := s[:i]
		if lattice.KnownTool(tool) {
			r := lattice.Parse(tool)
			c := lattice.Call{Tool: r.Canonical, Arg: s[i+1 : len(s)-1]}
			return c, checkCommand(c)
		}
	}
	if strings.ContainsAny(s, "\n") {
		return lattice.Call{}, errors.New("a command on one line")
	}
	c := lattice.Call{Tool: "Bash", Arg: s}
	return c, checkCommand(c)
}

// checkCommand rejects a Bash intent Claude Code could not split into the
// commands its rules are matched against (an unclosed quote, a loop), so
// an intent is never silently judged on text no rule would see.
func checkCommand(c lattice.Call) error {
	if c.Tool != "Bash" {
		return nil
	}
	if _, err := lattice.ParseCommand(c.Arg); err != nil {
		return err
	}
	return nil
}

// Suggest returns the candidate one or two edits away from s (case aside)
// — "did you mean …?" for misspelled keys, here and in settings files.
func Suggest(s string, candidates []string) string { return closest(s, candidates) }

// closest returns the candidate one or two edits from s (case aside).
// ResolveCheckID returns the full check ID that id names: the ID itself, or
// a short form without the SHIP-<AREA>-<SUBJECT>- prefix
// (PERMISSION-DENY-REMOVED for SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED),
// in any letter case, when exactly one known ID ends with it. ok is false
// when nothing, or more than one ID, matches.
func ResolveCheckID[V any](id string, known map[string]V) (full string, ok bool) {
	if _, exact := known[id]; exact {
		return id, true
	}
	up := strings.ToUpper(strings.TrimSpace(id))
	if up == "" {
		return "", false
	}
	if _, exact := known[up]; exact {
		return up, true
	}
	for k := range known {
		if strings.HasSuffix(k, "-"+up) {
			if full != "" {
				return "", false // ambiguous
			}
			full = k
		}
	}
	return full, full != ""
}

// closestShort suggests a full check ID for a mistyped short one
// (PERMISION-DENY-REMOVED): the ID whose short form (without its first three
// segments, SHIP-HOST-BOUNDARY-) is nearest.
func closestShort(s string, ids []string) string {
	short := map[string]string{}
	var shorts []string
	for _, id := range ids {
		if parts := strings.SplitN(id, "-", 4); len(parts) == 4 {
			short[parts[3]] = id
			shorts = append(shorts, parts[3])
		}
	}
	return short[closest(strings.ToUpper(s), shorts)]
}

func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := EditDistance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the number of single-rune edits — insertions,
// deletions, substitutions and swaps of two neighbours — that turn a into
// b (the optimal string alignment distance): "bsae" is one swap from
// "base". Every "did you mean" of Shipgate (policy keys, settings keys,
// flags, commands, SHIPGATE_* variables) measures with it.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: two back for a swap, one back, and the current one.
	back := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], back[j-2]+1)
			}
		}
		back, prev, cur = prev, cur, back
	}
	return prev[len(rb)]
}
