package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// Skills, commands and subagents are Markdown files whose YAML frontmatter
// configures what runs: a skill's or command's `allowed-tools` pre-approve
// tools while it runs (measured on Claude Code 2.1.328: with
// `allowed-tools: Bash(npm *)`, `npm publish` ran unprompted once the skill
// was invoked), a subagent's `permissionMode` is the mode it runs in, and
// `hooks` run around the tool calls of the skill or subagent.
//
// Claude Code reads the frontmatter with the pattern /^---\s*\n([\s\S]*?)---\s*\n?/
// (the block ends at the first "---", even inside a line) and parses it as
// YAML; a block that does not parse is read once more with its plain
// values quoted (retryBlock), and only a block that does not parse then
// either is ignored whole with a warning ("YAML frontmatter in … failed
// to parse and was ignored"). Shipgate
// parses it strictly with go.yaml.in/yaml/v3, keeps every position, and
// treats a block it cannot read — or one Claude Code could read otherwise
// (duplicate keys, anchors, not a mapping) — as a finding, never a pass.

// maxFrontmatterDepth bounds the nesting Shipgate follows in a frontmatter
// block (aliases are expanded, so this also bounds alias bombs).
const maxFrontmatterDepth = 64

// maxFrontmatterNodes bounds the nodes an expanded frontmatter block may
// have (YAML aliases can make a small text expand exponentially).
const maxFrontmatterNodes = 100000

// FrontmatterKind reports whether a file kind is a Markdown file with YAML
// frontmatter.
func FrontmatterKind(k report.FileKind) bool {
	return k == report.SkillFile || k == report.CommandFile || k == report.SubagentFile
}

// SameFrontmatter reports whether two versions of a skill, command or
// subagent hold the same frontmatter block, byte for byte (as Claude Code
// finds it, frontmatterBlock): whatever a reader makes of it, it makes
// the same of both.
func SameFrontmatter(a, b []byte) bool {
	x, _, okA := frontmatterBlock(a)
	y, _, okB := frontmatterBlock(b)
	return okA && okB && bytes.Equal(x, y)
}

// frontmatterBlock finds the frontmatter as Claude Code does: the file
// (with a byte order mark dropped and CRLF read as LF) starts with "---",
// blanks and a newline; the block runs to the first "---" after that. It
// returns the block, the 1-based line its first byte is on, and whether
// there is a block at all.
func frontmatterBlock(data []byte) (block []byte, line int, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	return blockIn(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
}

// rawFrontmatterBlock is the block as Claude Code finds it in the file,
// line endings kept (its retry, retryBlock, never rewrites a CRLF line).
func rawFrontmatterBlock(data []byte) (block []byte, line int, ok bool) {
	return blockIn(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
}

// blockIn finds the frontmatter block of data (frontmatterBlock).
func blockIn(data []byte) (block []byte, line int, ok bool) {
	if !bytes.HasPrefix(data, []byte("---")) || !bytes.Contains(data[3:], []byte("---")) {
		return nil, 0, false
	}
	i := 3
	for i < len(data) && isYAMLSpace(data[i]) {
		i++
	}
	// \s* is greedy but must be followed by \n: back up to the last newline
	// in the blank run.
	j := bytes.LastIndexByte(data[3:i], '\n')
	if j < 0 {
		return nil, 0, false
	}
	start := 3 + j + 1
	end := bytes.Index(data[start:], []byte("---"))
	if end < 0 {
		return nil, 0, false
	}
	return data[start : start+end], 1 + bytes.Count(data[:start], []byte("\n")), true
}

func isYAMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// frontmatterJSON parses a frontmatter block and writes it as JSON in
// which every key and scalar sits on the line it has in the Markdown file
// (JSON allows newlines between tokens), so the settings machinery (hooks,
// positions, canonical values) reads a frontmatter block as it reads a
// settings file. An empty block is an empty object.
func frontmatterJSON(block []byte, firstLine int) ([]byte, *ParseError) {
	var root yaml.Node
	if err := yaml.Unmarshal(block, &root); err != nil {
		line, msg := yamlErrorLine(err)
		if line > 0 {
			line += firstLine - 1
		}
		pe := &ParseError{Line: line, Col: 1, Msg: "the YAML frontmatter does not parse: " + msg, notYAML: true,
			Hint: "Claude Code ignores a frontmatter block that does not parse, even once it has quoted the values that hold `: ` or YAML's special characters (allowed-tools, hooks and permissionMode included); fix the YAML"}
		if strings.Contains(msg, "exceeded max depth") {
			pe.Limit = "too_deep" // the YAML library's bound, not Claude Code's
		}
		return nil, pe
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return []byte("{}"), nil
	}
	top := root.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return []byte("{}"), nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, &ParseError{Line: top.Line + firstLine - 1, Col: top.Column, Msg: "the YAML frontmatter is a list or a single value, not a mapping of keys",
			Hint: "write the frontmatter as key: value lines"}
	}
	w := &fmWriter{offset: firstLine - 1, line: 1}
	if err := w.node(top, 0); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// yamlErrorLine pulls the line out of a yaml error ("yaml: line 3: ...").
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ":"); ok {
			if l, e := strconv.Atoi(n); e == nil {
				return l, strings.TrimSpace(tail)
			}
		}
	}
	return 0, msg
}

// fmWriter writes YAML nodes as line-aligned JSON.
type fmWriter struct {
	buf    bytes.Buffer
	offset int // lines before the block
	line   int // the output's current line
	nodes  int
}

// at moves the output to the node's line (never back).
func (w *fmWriter) at(n *yaml.Node) {
	for w.line < n.Line+w.offset {
		w.buf.WriteByte('\n')
		w.line++
	}
}

func (w *fmWriter) fail(n *yaml.Node, msg string) *ParseError {
	return &ParseError{Line: n.Line + w.offset, Col: n.Column, Msg: msg,
		Hint: "Shipgate reads frontmatter strictly: write plain keys and values"}
}

func (w *fmWriter) node(n *yaml.Node, depth int) *ParseError {
	w.nodes++
	if depth > maxFrontmatterDepth || w.nodes > maxFrontmatterNodes {
		pe := w.fail(n, "the YAML frontmatter is nested or expanded too deeply to review")
		pe.Limit = "too_deep" // Shipgate's bound: Claude Code may read it
		return pe
	}
	if n.Anchor != "" {
		return w.fail(n, fmt.Sprintf("a YAML anchor (&%s) in the frontmatter: Claude Code refuses anchors in untrusted frontmatter, and an alias makes one value stand for another", n.Anchor))
	}
	switch n.Kind {
	case yaml.AliasNode:
		return w.fail(n, "a YAML alias (*"+n.Value+") in the frontmatter: Shipgate does not follow aliases")
	case yaml.MappingNode:
		w.at(n)
		w.buf.WriteByte('{')
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return w.fail(k, "a frontmatter key that is not a plain value")
			}
			if k.Tag == "!!merge" {
				return w.fail(k, "a YAML merge key (<<) in the frontmatter: Shipgate does not follow merges")
			}
			if prev, dup := seen[k.Value]; dup {
				return w.fail(k, fmt.Sprintf("the key %q appears twice in the frontmatter (also at line %d): YAML parsers disagree on which one wins", k.Value, prev+w.offset))
			}
			seen[k.Value] = k.Line
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.at(k)
			kb, _ := json.Marshal(k.Value)
			w.buf.Write(kb)
			w.buf.WriteByte(':')
			if err := w.node(v, depth+1); err != nil {
				return err
			}
		}
		w.buf.WriteByte('}')
	case yaml.SequenceNode:
		w.at(n)
		w.buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.node(c, depth+1); err != nil {
				return err
			}
		}
		w.buf.WriteByte(']')
	case yaml.ScalarNode:
		w.at(n)
		w.buf.Write(scalarJSON(n))
	default:
		return w.fail(n, "an unexpected YAML node in the frontmatter")
	}
	return nil
}

// legacyOctal is an integer with a leading zero (YAML 1.1's octal).
var legacyOctal = regexp.MustCompile(`^[-+]?0[0-9]+$`)

// scalarJSON renders a YAML scalar as the JSON value a YAML 1.2 reader
// gives it: booleans, null, numbers (finite ones; others as text), else a
// string.
func scalarJSON(n *yaml.Node) []byte {
	switch n.ShortTag() {
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			if b {
				return []byte("true")
			}
			return []byte("false")
		}
	case "!!null":
		return []byte("null")
	case "!!int", "!!float":
		if legacyOctal.MatchString(n.Value) {
			// YAML 1.1's octal (010 is 8 to go.yaml.in/yaml/v3); YAML 1.2
			// and Bun, Claude Code's parser, read the digits in base 10
			// (TestFrontmatterBlocksAgainstBun).
			if f, err := strconv.ParseFloat(strings.TrimLeft(n.Value, "+"), 64); err == nil {
				return []byte(strconv.FormatFloat(f, 'g', -1, 64))
			}
		}
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return []byte(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	b, _ := json.Marshal(n.Value)
	return b
}

// parseFrontmatterDoc reads one version of a skill, command or subagent
// file: its frontmatter as a document (root), and its tool lists as rules
// (allowed-tools as allow rules, disallowed-tools / disallowedTools as
// deny rules).
func parseFrontmatterDoc(p string, kind report.FileKind, v report.Version, cache RuleCache) (*Doc, *ParseError) {
	if v.Unreadable != "" {
		return nil, &ParseError{TooLarge: v.TooLarge, Msg: v.Unreadable}
	}
	if len(v.Data) > report.MaxFileSize {
		return nil, &ParseError{TooLarge: true, Msg: fmt.Sprintf("the file is %d bytes, over Shipgate's limit of %d", len(v.Data), report.MaxFileSize)}
	}
	js := []byte("{}")
	if block, line, ok := frontmatterBlock(v.Data); ok {
		var pe *ParseError
		js, pe = frontmatterJSON(block, line)
		if pe != nil && pe.notYAML && pe.Limit == "" {
			// Claude Code's own retry (retryBlock): what it makes of the
			// block when the block is not YAML. Any error of the retried
			// block's reading stands (a duplicate key, an anchor); a
			// retry that is not YAML either leaves the first error.
			if raw, _, ok := rawFrontmatterBlock(v.Data); ok {
				if rb, ok := retryBlock(raw); ok {
					if js2, pe2 := frontmatterJSON(bytes.ReplaceAll(rb, []byte("\r\n"), []byte("\n")), line); pe2 == nil || !pe2.notYAML {
						js, pe = js2, pe2
					}
				}
			}
		}
		if pe != nil {
			return nil, pe
		}
	}
	root, _, err := jsonpos.ParseLimit(js, 64*report.MaxFileSize)
	if err != nil {
		return nil, &ParseError{Msg: "the frontmatter could not be read: " + err.Error()}
	}
	d := &Doc{path: p, kind: kind, Root: root}
	for _, l := range []struct {
		key  string
		list lattice.List
	}{{"allowed-tools", lattice.Allow}, {"disallowed-tools", lattice.Deny}, {"disallowedTools", lattice.Deny}} {
		if kind == report.SubagentFile && l.key == "allowed-tools" {
			continue // a subagent's tool list is `tools`, which pre-approves nothing
		}
		m, ok := root.Lookup(l.key)
		if !ok {
			continue
		}
		for i, t := range toolList(m.Value) {
			if t.text == "*" && l.list == lattice.Allow {
				d.AllTools = append(d.AllTools, t.line)
				continue
			}
			d.Rules = append(d.Rules, RuleDecl{Rule: cache.parse(l.list, t.text), Line: t.line, col: 1, Index: i})
		}
	}
	return d, nil
}

// toolEntry is one tool rule of a frontmatter tool list, with its line.
type toolEntry struct {
	text string
	line int
}

// toolList reads allowed-tools as Claude Code 2.1.328 does: a string or a
// list of strings (other entries dropped), each split on commas and spaces
// outside parentheses (an opening parenthesis starts a group, the next
// closing one ends it: groups do not nest), blanks trimmed. A "*" anywhere
// stands for every tool.
func toolList(v *jsonpos.Value) []toolEntry {
	var src []*jsonpos.Value
	switch v.Kind() {
	case jsonpos.String:
		src = []*jsonpos.Value{v}
	case jsonpos.Array:
		for _, e := range v.Elements() {
			if e.Kind() == jsonpos.String {
				src = append(src, e)
			}
		}
	}
	var out []toolEntry
	for _, s := range src {
		for _, t := range SplitToolList(s.Text()) {
			out = append(out, toolEntry{text: t, line: s.Start().Line})
		}
	}
	for _, t := range out {
		if t.text == "*" {
			return []toolEntry{t}
		}
	}
	return out
}

// SplitToolList splits one allowed-tools string into rules the way Claude
// Code does: commas and spaces separate rules outside parentheses; inside
// a group they are part of the rule; leading blanks of a rule are dropped
// and each rule is trimmed.
func SplitToolList(s string) []string {
	var out []string
	var cur strings.Builder
	inParen := false
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, c := range s {
		switch c {
		case '(':
			inParen = true
			cur.WriteRune(c)
		case ')':
			inParen = false
			cur.WriteRune(c)
		case ',', ' ':
			if inParen {
				cur.WriteRune(c)
			} else {
				flush()
			}
		default:
			if cur.Len() > 0 || strings.TrimSpace(string(c)) != "" {
				cur.WriteRune(c)
			}
		}
	}
	flush()
	return out
}
