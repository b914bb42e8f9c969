// Package claudeschema is Claude Code's settings schema, taken from the
// pinned binary: the keys a settings file may hold, their types, and
// which wrong value makes the loader drop the whole file. Claude Code
// 2.1.328 validates a project or local settings file against this schema
// and, when one value fails, ignores the entire file — deny and ask rules
// included — without a word on the console.
//
// The schema is the file settings-2.1.328.schema.json, written by
// TestSchemaFromBinary from the binary's own code (zod's toJSONSchema of
// the schema its loader validates with, input side) and checked against
// it, so a new Claude Code version shows its differences as failing rows.
// Three marks the extractor adds say where the loader is more lenient
// than JSON Schema: "x-catch" (zod replaces a failing value with a
// default), "x-repaired" (a pre-filter of the loader strips or rewrites a
// wrong value of those JSON kinds before validation: measured on probe
// documents). The loads file beside it is the loader's own verdict on a
// few thousand probe documents; TestAgreesWithLoader holds Validate to it.
package claudeschema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// Version is the Claude Code release the pinned schema was taken from.
const Version = "2.1.328"

// The pinned files, relative to this package.
const (
	SchemaFile = "settings-" + Version + ".schema.json"
	LoadsFile  = "settings-" + Version + ".loads.jsonl"
)

//go:embed settings-2.1.328.schema.json
var schemaJSON []byte

// node is one schema node.
type node struct {
	types      []string
	props      map[string]*node
	required   []string
	additional *node // nil: any value
	items      *node
	propNames  *node
	enum       []any
	accepts    []string // more spellings a transformed enum takes (x-accepts)
	constant   any
	hasConst   bool
	anyOf      []*node
	minLen     int
	maxLen     int // -1: none
	pattern    *regexp.Regexp
	format     string
	min, max   *float64
	exclMin    *float64
	exclMax    *float64
	minItems   int
	maxItems   int // -1: none
	catch      bool
	opaque     bool // a check JSON Schema cannot state (z.custom, a transform)
	never      bool // a type no JSON value has (z.undefined() in a union)
	repaired   map[string]bool
	desc       string
	// refined: zod checks the node with a refinement JSON Schema cannot
	// state (x-refined); refineKept: every breaking value the extractor
	// tried was kept by the loader (x-refine-kept, strings only).
	refined, refineKept bool
	// where names the node as the loads file does
	// ("strictKnownMarketplaces[]|.plugins[]"); refine is Shipgate's
	// reading of its refinement (refinements.go), set from where.
	where  string
	refine *refinement
}

// Schema is a parsed settings schema.
type Schema struct {
	root *node
	// Gates are the feature gates of the binary the schema was built with.
	Gates []string
}

// Pinned is the schema of the pinned Claude Code version. It is parsed
// once, on first use (about 4 ms and 2 MB: a process that compares no
// Claude Code settings file — `shipgate version`, `serve` starting — does
// not pay for it); a pinned file that does not parse is a build defect
// (the tests fail on it), and Pinned then returns an empty schema that
// accepts everything and knows no key.
func Pinned() *Schema { return pinned() }

var pinned = sync.OnceValue(func() *Schema { return mustParse(schemaJSON) })

func mustParse(data []byte) *Schema {
	s, err := Parse(data)
	if err != nil {
		return &Schema{root: &node{maxLen: -1, maxItems: -1}}
	}
	return s
}

// Parse reads a schema file written by TestSchemaFromBinary.
func Parse(data []byte) (*Schema, error) {
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("claudeschema: %w", err)
	}
	root, err := build(raw)
	if err != nil {
		return nil, err
	}
	for k, c := range root.props {
		place(c, k)
	}
	s := &Schema{root: root}
	if g, ok := raw["x-gates"].([]any); ok {
		for _, x := range g {
			if str, ok := x.(string); ok {
				s.Gates = append(s.Gates, str)
			}
		}
	}
	return s, nil
}

func num(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

func build(m map[string]any) (*node, error) {
	n := &node{maxLen: -1, maxItems: -1}
	switch t := m["type"].(type) {
	case string:
		n.types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				n.types = append(n.types, s)
			}
		}
	}
	sub := func(v any) (*node, error) {
		if c, ok := v.(map[string]any); ok {
			return build(c)
		}
		return nil, nil
	}
	var err error
	if props, ok := m["properties"].(map[string]any); ok {
		n.props = map[string]*node{}
		for k, v := range props {
			if n.props[k], err = sub(v); err != nil {
				return nil, err
			}
		}
	}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				n.required = append(n.required, s)
			}
		}
	}
	if n.additional, err = sub(m["additionalProperties"]); err != nil {
		return nil, err
	}
	if n.items, err = sub(m["items"]); err != nil {
		return nil, err
	}
	if n.propNames, err = sub(m["propertyNames"]); err != nil {
		return nil, err
	}
	if e, ok := m["enum"].([]any); ok {
		n.enum = e
	}
	if a, ok := m["x-accepts"].([]any); ok {
		for _, x := range a {
			if str, ok := x.(string); ok {
				n.accepts = append(n.accepts, str)
			}
		}
	}
	if c, ok := m["const"]; ok {
		n.constant, n.hasConst = c, true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			for _, a := range alts {
				c, err := sub(a)
				if err != nil {
					return nil, err
				}
				if c != nil {
					n.anyOf = append(n.anyOf, c)
				}
			}
		}
	}
	if f := num(m["minLength"]); f != nil {
		n.minLen = int(*f)
	}
	if f := num(m["maxLength"]); f != nil {
		n.maxLen = int(*f)
	}
	if p, ok := m["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("claudeschema: pattern %q: %w", p, err)
		}
		n.pattern = re
	}
	n.format, _ = m["format"].(string)
	n.min, n.max, n.exclMin, n.exclMax = num(m["minimum"]), num(m["maximum"]), num(m["exclusiveMinimum"]), num(m["exclusiveMaximum"])
	if f := num(m["minItems"]); f != nil {
		n.minItems = int(*f)
	}
	if f := num(m["maxItems"]); f != nil {
		n.maxItems = int(*f)
	}
	n.catch, _ = m["x-catch"].(bool)
	n.opaque, _ = m["x-opaque"].(bool)
	n.never, _ = m["x-never"].(bool)
	n.refined, _ = m["x-refined"].(bool)
	n.refineKept, _ = m["x-refine-kept"].(bool)
	// A key zod's input side calls optional that the parse still refuses
	// to miss (x-required): the loader requires it.
	if r, ok := m["x-required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				n.required = append(n.required, s)
			}
		}
	}
	if r, ok := m["x-repaired"].([]any); ok {
		n.repaired = map[string]bool{}
		for _, x := range r {
			if s, ok := x.(string); ok {
				n.repaired[s] = true
			}
		}
	}
	n.desc, _ = m["description"].(string)
	return n, nil
}

// Violation is the first value of a document the loader refuses: Claude
// Code then ignores the whole file.
type Violation struct {
	// Path names the value: "model", "permissions.additionalDirectories",
	// "hooks.PreToolUse[0].hooks"; "" is the document itself.
	Path string
	// Line and Column locate the value (1-based).
	Line, Column int
	// Expected says what the schema wants ("a string", "one of \"disable\"").
	Expected string
	// Got describes the value found ("the number 5", "the string \"yes\"").
	Got string
	// Uncertain says the value is none of the forms Shipgate can check,
	// and one form the loader accepts is a check the schema cannot state
	// (z.custom, a transform): Claude Code may keep the file or drop it.
	// Shipgate then fails closed and treats the file as dropped.
	Uncertain bool
}

// Message is the violation as a sentence fragment: "`model` must be a
// string (it is the number 5)".
func (v *Violation) Message() string {
	what := "the file"
	if v.Path != "" {
		what = "`" + v.Path + "`"
	}
	if v.Uncertain {
		return fmt.Sprintf("%s is %s, which is not %s, and Shipgate cannot tell whether Claude Code's other accepted form takes it", what, v.Got, v.Expected)
	}
	return fmt.Sprintf("%s must be %s (it is %s)", what, v.Expected, v.Got)
}

// Validate checks a parsed settings document as Claude Code's loader
// does and returns the first value in document order that makes it drop
// the file, or nil when the file is kept.
func (s *Schema) Validate(doc *jsonpos.Value) *Violation {
	var found []*Violation
	validate(s.root, doc, "", &found, true)
	if len(found) == 0 {
		return nil
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Line != found[j].Line {
			return found[i].Line < found[j].Line
		}
		return found[i].Column < found[j].Column
	})
	return found[0]
}

// kindOf is a value's JSON kind as the x-repaired mark names it.
func kindOf(v *jsonpos.Value) string {
	switch v.Kind() {
	case jsonpos.Object:
		return "object"
	case jsonpos.Array:
		return "array"
	case jsonpos.String:
		return "string"
	case jsonpos.Number:
		return "number"
	case jsonpos.Bool:
		return "boolean"
	case jsonpos.Null:
		return "null"
	}
	return "invalid"
}

func describe(v *jsonpos.Value) string {
	switch v.Kind() {
	case jsonpos.String:
		t := v.Text()
		if len(t) > 40 {
			t = t[:40] + "…"
		}
		return "the string " + strconv.Quote(t)
	case jsonpos.Number:
		return "the number " + v.Raw()
	case jsonpos.Bool:
		return v.Raw()
	case jsonpos.Null:
		return "null"
	case jsonpos.Array:
		return "an array"
	case jsonpos.Object:
		return "an object"
	}
	return "a value"
}

func childPath(p, key string) string {
	if p == "" {
		return key
	}
	return p + "." + key
}

// validate appends the violations of v under n; all reports whether to
// collect every one (false: stop at the first, for anyOf branches).
func validate(n *node, v *jsonpos.Value, path string, out *[]*Violation, all bool) {
	if n == nil || n.catch || n.refine != nil && n.refine.unread {
		return
	}
	if n.refined {
		// The refinement runs on a value that passes the rest of the node.
		before := len(*out)
		defer func() {
			if len(*out) == before && !n.repaired[kindOf(v)] {
				checkRefinement(n, v, path, out)
			}
		}()
	}
	if n.never {
		st := v.Start()
		*out = append(*out, &Violation{Path: path, Line: st.Line, Column: st.Column, Expected: "absent", Got: describe(v)})
		return
	}
	if n.repaired[kindOf(v)] {
		return
	}
	fail := func(expected string) {
		st := v.Start()
		*out = append(*out, &Violation{Path: path, Line: st.Line, Column: st.Column, Expected: expected, Got: describe(v)})
	}
	if len(n.anyOf) > 0 {
		var maybe []*Violation
		for _, alt := range n.anyOf {
			if alt.opaque && len(alt.types) == 0 {
				// Its check cannot be run here: it makes a failure
				// Uncertain below rather than counting as a match.
				continue
			}
			var sub []*Violation
			validate(alt, v, path, &sub, false)
			if len(sub) == 0 {
				goto own
			}
			if maybe == nil && allUncertain(sub) {
				maybe = sub
			}
		}
		if maybe != nil {
			// A branch fails only on a refinement Shipgate cannot run:
			// the loader may take the value there.
			*out = append(*out, maybe...)
			return
		}
		// The branch of the value's type with the fewest violations (the
		// one its discriminator selects) explains best what is wrong.
		var best []*Violation
		for _, alt := range n.anyOf {
			if len(alt.types) > 0 && typeMatches(alt.types, v) && (len(alt.props) > 0 || alt.items != nil) {
				var sub []*Violation
				validate(alt, v, path, &sub, true)
				if best == nil || len(sub) < len(best) {
					best = sub
				}
			}
		}
		if len(best) > 0 {
			*out = append(*out, best...)
			return
		}
		fail(n.expected())
		for _, alt := range n.anyOf {
			if alt.opaque {
				(*out)[len(*out)-1].Uncertain = true
			}
		}
		return
	}
own:
	if n.opaque && len(n.types) == 0 {
		// Standalone, a check the schema cannot state decides: the value
		// is taken as it is (measured rows in the loads file hold this).
		return
	}
	if len(n.types) > 0 && !typeMatches(n.types, v) {
		fail(n.expected())
		return
	}
	if n.hasConst && !equal(n.constant, v) {
		fail(n.expected())
		return
	}
	if n.enum != nil {
		ok := false
		for _, e := range n.enum {
			ok = ok || equal(e, v)
		}
		for _, a := range n.accepts {
			ok = ok || equal(a, v)
		}
		if !ok {
			fail(n.expected())
			return
		}
	}
	switch v.Kind() {
	case jsonpos.String:
		s := v.Text()
		l := len(utf16.Encode([]rune(s)))
		switch {
		case l < n.minLen:
			fail(fmt.Sprintf("at least %s long", plural(n.minLen, "character")))
		case n.maxLen >= 0 && l > n.maxLen:
			fail(fmt.Sprintf("at most %s long", plural(n.maxLen, "character")))
		case n.pattern != nil && !n.pattern.MatchString(s):
			fail("a string matching /" + n.pattern.String() + "/")
		case n.format == "uri" && !isURL(s):
			fail("a URL")
		}
	case jsonpos.Number:
		f, _ := v.Float()
		switch {
		case n.min != nil && f < *n.min:
			fail("at least " + fmtNum(*n.min))
		case n.max != nil && f > *n.max:
			fail("at most " + fmtNum(*n.max))
		case n.exclMin != nil && f <= *n.exclMin:
			fail("more than " + fmtNum(*n.exclMin))
		case n.exclMax != nil && f >= *n.exclMax:
			fail("less than " + fmtNum(*n.exclMax))
		}
	case jsonpos.Array:
		els := v.Elements()
		switch {
		case len(els) < n.minItems:
			fail(fmt.Sprintf("a list of at least %s", plural(n.minItems, "entry")))
			return
		case n.maxItems >= 0 && len(els) > n.maxItems:
			fail(fmt.Sprintf("a list of at most %s", plural(n.maxItems, "entry")))
			return
		}
		for i, e := range els {
			validate(n.items, e, fmt.Sprintf("%s[%d]", path, i), out, all)
			if !all && len(*out) > 0 {
				return
			}
		}
	case jsonpos.Object:
		for _, r := range n.required {
			if v.Get(r) == nil {
				fail(fmt.Sprintf("an object with the key %q", r))
				if !all {
					return
				}
			}
		}
		for _, m := range v.Members() {
			p := childPath(path, m.Key)
			if c, ok := n.props[m.Key]; ok {
				validate(c, m.Value, p, out, all)
			} else if n.refine != nil && n.refine.entries {
				// An invalid entry is ignored, the file read; only an
				// unknown kind of source drops it.
				var sub []*Violation
				validate(n.additional, m.Value, p, &sub, all)
				if len(sub) > 0 && unknownSource(n.additional, m.Value) {
					*out = append(*out, sub...)
				}
			} else {
				if n.propNames != nil {
					var sub []*Violation
					validate(n.propNames, keyValue(m), p, &sub, false)
					if len(sub) > 0 {
						st := m.KeyStart
						*out = append(*out, &Violation{Path: p, Line: st.Line, Column: st.Column, Expected: "under a key that is " + n.propNames.expected(), Got: "under the key " + strconv.Quote(m.Key), Uncertain: allUncertain(sub)})
					}
				}
				validate(n.additional, m.Value, p, out, all)
			}
			if !all && len(*out) > 0 {
				return
			}
		}
	}
}

func allUncertain(vs []*Violation) bool {
	for _, v := range vs {
		if !v.Uncertain {
			return false
		}
	}
	return len(vs) > 0
}

// keyValue is a member's key as a string value, for propertyNames.
func keyValue(m jsonpos.Member) *jsonpos.Value {
	v, _, err := jsonpos.Parse([]byte(strconv.Quote(m.Key)))
	if err != nil {
		return nil
	}
	return v
}

func typeMatches(types []string, v *jsonpos.Value) bool {
	for _, t := range types {
		switch t {
		case "string":
			if v.Kind() == jsonpos.String {
				return true
			}
		case "number":
			if v.Kind() == jsonpos.Number {
				return true
			}
		case "integer":
			if v.Kind() == jsonpos.Number {
				f, ok := v.Float()
				if ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53-1 {
					return true
				}
			}
		case "boolean":
			if v.Kind() == jsonpos.Bool {
				return true
			}
		case "null":
			if v.Kind() == jsonpos.Null {
				return true
			}
		case "array":
			if v.Kind() == jsonpos.Array {
				return true
			}
		case "object":
			if v.Kind() == jsonpos.Object {
				return true
			}
		}
	}
	return false
}

// equal compares a schema constant with a document value.
func equal(c any, v *jsonpos.Value) bool {
	switch x := c.(type) {
	case string:
		return v.Kind() == jsonpos.String && v.Text() == x
	case float64:
		f, ok := v.Float()
		return v.Kind() == jsonpos.Number && ok && f == x
	case bool:
		return v.Kind() == jsonpos.Bool && v.Bool() == x
	case nil:
		return v.Kind() == jsonpos.Null
	}
	return false
}

// expected says what a node accepts, for a message.
func (n *node) expected() string {
	if n.hasConst {
		b, _ := json.Marshal(n.constant)
		return string(b)
	}
	if len(n.enum) > 0 {
		var parts []string
		for _, e := range n.enum {
			b, _ := json.Marshal(e)
			parts = append(parts, string(b))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "one of " + strings.Join(parts, ", ")
	}
	if len(n.anyOf) > 0 {
		var parts []string
		seen := map[string]bool{}
		for _, a := range n.anyOf {
			if a.never || a.opaque {
				continue
			}
			e := a.expected()
			if !seen[e] {
				seen[e] = true
				parts = append(parts, e)
			}
		}
		return strings.Join(parts, " or ")
	}
	var parts []string
	for _, t := range n.types {
		switch t {
		case "string":
			parts = append(parts, "a string")
		case "number":
			parts = append(parts, "a number")
		case "integer":
			parts = append(parts, "a whole number")
		case "boolean":
			parts = append(parts, "true or false")
		case "null":
			parts = append(parts, "null")
		case "array":
			parts = append(parts, "a list")
		case "object":
			parts = append(parts, "an object")
		}
	}
	if len(parts) == 0 {
		return "a valid value"
	}
	return strings.Join(parts, " or ")
}

// isURL is what the WHATWG URL parser (new URL) accepts, closely enough:
// a scheme, and a host for the schemes that need one.
func isURL(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	scheme := strings.ToLower(s[:i])
	for j, c := range scheme {
		if !(c >= 'a' && c <= 'z' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	switch scheme {
	case "http", "https", "ws", "wss", "ftp":
		rest := strings.TrimLeft(s[i+1:], "/\\")
		host := rest
		if k := strings.IndexAny(rest, "/\\?#"); k >= 0 {
			host = rest[:k]
		}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		return host != "" && !strings.ContainsAny(host, " <>^|%")
	}
	return true
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Keys are the top-level keys the schema defines, sorted.
func (s *Schema) Keys() []string { return s.KeysAt() }

// KeysAt are the keys the schema defines for the object at a path of
// keys ("permissions"), sorted; nil where the schema has no object with
// named keys there.
func (s *Schema) KeysAt(path ...string) []string {
	n := s.root
	for _, k := range path {
		if n == nil || n.props == nil {
			return nil
		}
		n = n.props[k]
	}
	if n == nil {
		return nil
	}
	out := make([]string, 0, len(n.props))
	for k := range n.props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Has reports whether the schema defines the key at a path of keys
// ("permissions", "defaultMode").
func (s *Schema) Has(path ...string) bool {
	n := s.root
	for _, k := range path {
		if n == nil || n.props == nil {
			return false
		}
		n = n.props[k]
	}
	return n != nil
}
