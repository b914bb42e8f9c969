package claude

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// Doc is one parsed version of an agent-config file.
type Doc struct {
	path   string
	kind   report.FileKind
	Root   *jsonpos.Value
	Rules  []RuleDecl
	byList map[lattice.List][]RuleDecl // rules by list, built on first use
	// problems are entries Claude Code reads differently from how they
	// look: duplicate keys, non-string or blank rules, unknown keys.
	Problems []DocProblem

	// allTools are the lines of a frontmatter `allowed-tools: *` (every
	// tool pre-approved while the skill runs).
	AllTools []int

	// dropped is the value of a settings file that fails Claude Code's
	// settings schema (claudeschema): the binary then ignores the whole
	// file, so the document is read as {} — no rules, no settings — and
	// the engine says why.
	Dropped *claudeschema.Violation
}

// emptyRoot is the document Claude Code reads from a file it drops.
var emptyRoot = func() *jsonpos.Value {
	v, _, _ := jsonpos.Parse([]byte("{}"))
	return v
}()

// RuleDecl is one permission rule as declared in a file.
type RuleDecl struct {
	Rule  lattice.Rule
	Line  int
	col   int
	Index int
}

// DocProblem is a non-fatal problem of a document: an entry Claude Code
// reads differently from how it looks.
type DocProblem struct {
	Kind    string // duplicate_key, invalid_rule, unknown_key, invalid_utf8, lone_surrogate
	Line    int
	col     int
	Key     string // the key path or list ("permissions.allow[3]")
	List    string
	Message string
}

// MaxRules is the most permission rules a settings file may declare (all
// lists together). A file with more is not compared rule by rule: like a
// file over MaxFileSize it is reported and fails closed. Real files hold
// tens of rules; the limit keeps the engine's work bounded on 1 MiB of
// short rules.
const MaxRules = 6000

// Rule size limits. A rule compiles to an automaton whose tables grow with
// its length times the number of distinct characters in it; past these
// limits Shipgate does not compile the file's rules (the file is reported
// and fails closed, as one over MaxFileSize): no real rule comes near them,
// and a hostile one must not cost gigabytes or minutes.
const (
	// MaxRuleRunes is the longest rule text compiled exactly.
	MaxRuleRunes = 16384
	// maxRuleCost bounds one rule's length × distinct characters.
	maxRuleCost = 1 << 22
	// maxFileRuleCost bounds the sum of that cost over a file's rules.
	maxFileRuleCost = 1 << 25
)

// ParseError is why a version could not be read at all.
type ParseError struct {
	// limit names a limit of Shipgate's own that the version is over
	// (too_deep, too_many_rules): Claude Code may well read it.
	Limit    string
	TooLarge bool
	Line     int
	Col      int
	Msg      string
	Hint     string
	// notYAML marks a frontmatter block the YAML parser refused, which
	// Claude Code reads once more respelt (retryBlock).
	notYAML bool
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// RuleCache shares parsed rules between the base and head of every file of
// one comparison: most rules are unchanged, and a Rule is immutable.
type RuleCache map[string]lattice.Rule

func (c RuleCache) parse(l lattice.List, text string) lattice.Rule {
	k := string(l) + "\x00" + text
	if r, ok := c[k]; ok {
		return r
	}
	r := lattice.ParseIn(l, text)
	c[k] = r
	return r
}

// Lists are the permission lists, in evaluation order.
var Lists = []lattice.List{lattice.Deny, lattice.Ask, lattice.Allow}

// looksBinary applies git's test for binary content: a NUL byte in the
// first 8,000 bytes.
func looksBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// ParseDoc reads one version of a file strictly, as Claude Code does.
func ParseDoc(p string, kind report.FileKind, v report.Version, rules RuleCache) (*Doc, *ParseError) {
	if FrontmatterKind(kind) {
		return parseFrontmatterDoc(p, kind, v, rules)
	}
	if v.Unreadable != "" {
		return nil, &ParseError{TooLarge: v.TooLarge, Msg: v.Unreadable}
	}
	// Claude Code 2.1.328 reads a settings file that starts with a UTF-8
	// byte order mark (measured: its rules apply), so the mark is skipped
	// there; other files keep JSON.parse's refusal.
	root, probs, err := jsonpos.Options{MaxSize: report.MaxFileSize, AllowBOM: kind == report.SettingsFile}.Parse(v.Data)
	if err != nil {
		var se *jsonpos.SyntaxError
		var tl *jsonpos.TooLargeError
		switch {
		case errors.As(err, &se) && se.Kind == jsonpos.SyntaxTooDeep:
			// JSON.parse accepts it; Shipgate does not read it.
			return nil, &ParseError{Limit: "too_deep", Line: se.Line, Col: se.Column, Msg: se.Msg, Hint: se.Hint}
		case errors.As(err, &se):
			hint := se.Hint
			if looksBinary(v.Data) {
				// A repair of the first bad character (`write "K"`) is no
				// advice for a file that is not text at all.
				hint = "the file holds binary data (NUL bytes), not JSON text: restore the settings file's text, or delete it"
			}
			return nil, &ParseError{Line: se.Line, Col: se.Column, Msg: se.Msg, Hint: hint}
		case errors.As(err, &tl):
			return nil, &ParseError{TooLarge: true, Msg: tl.Error()}
		}
		return nil, &ParseError{Msg: err.Error()}
	}
	if root.Kind() != jsonpos.Object {
		s := root.Start()
		return nil, &ParseError{Line: s.Line, Col: s.Column, Msg: fmt.Sprintf("the document is a JSON %s, not an object", root.Kind()),
			Hint: "a settings file is one JSON object: { \"permissions\": { ... } }"}
	}
	d := &Doc{path: p, kind: kind, Root: root}
	for _, pr := range probs {
		dp := DocProblem{Line: pr.Line, col: pr.Column, Key: pr.Key, Message: pr.Message}
		switch pr.Kind {
		case jsonpos.ProblemDuplicateKey:
			dp.Kind = "duplicate_key"
			dp.Message = fmt.Sprintf("key %q appears twice in one object (also at line %d); Claude Code keeps the last one and ignores the first", pr.Key, pr.Other.Line)
		case jsonpos.ProblemInvalidUTF8:
			dp.Kind = "invalid_utf8"
		case jsonpos.ProblemLoneSurrogate:
			dp.Kind = "lone_surrogate"
		default:
			dp.Kind = pr.Kind.String()
		}
		d.Problems = append(d.Problems, dp)
	}
	if kind == report.SettingsFile {
		if n := d.countRules(); n > MaxRules {
			return nil, &ParseError{Limit: "too_many_rules", Msg: fmt.Sprintf("it declares %d permission rules, over Shipgate's limit of %d", n, MaxRules)}
		}
		if pe := d.checkRuleSizes(); pe != nil {
			return nil, pe
		}
		if v := claudeschema.Pinned().Validate(root); v != nil {
			d.Dropped, d.Root, d.Problems = v, emptyRoot, nil
			return d, nil
		}
		d.readRules(rules)
		d.readUnknownKeys()
	}
	return d, nil
}

// countRules counts the entries of permissions.allow, ask and deny before
// any of them is parsed.
func (d *Doc) countRules() int {
	perms := d.Root.Get("permissions")
	if perms == nil || perms.Kind() != jsonpos.Object {
		return 0
	}
	n := 0
	for _, l := range Lists {
		if arr := perms.Get(string(l)); arr != nil && arr.Kind() == jsonpos.Array {
			n += arr.Len()
		}
	}
	return n
}

// checkRuleSizes refuses a file whose rules are too large to compile
// exactly (see MaxRuleRunes), before any is compiled.
func (d *Doc) checkRuleSizes() *ParseError {
	perms := d.Root.Get("permissions")
	if perms == nil || perms.Kind() != jsonpos.Object {
		return nil
	}
	total := 0
	seen := map[rune]bool{}
	for _, l := range Lists {
		arr := perms.Get(string(l))
		if arr == nil || arr.Kind() != jsonpos.Array {
			continue
		}
		for i, e := range arr.Elements() {
			if e.Kind() != jsonpos.String {
				continue
			}
			text := e.Text()
			clear(seen)
			n := 0
			for _, r := range text {
				seen[r] = true
				n++
				if n > MaxRuleRunes {
					break
				}
			}
			cost := n * len(seen)
			total += cost
			st := e.Start()
			switch {
			case n > MaxRuleRunes:
				return &ParseError{Limit: "rule_too_large", Line: st.Line, Col: st.Column,
					Msg:  fmt.Sprintf("permissions.%s[%d] is over %d characters, Shipgate's limit for a rule it compares exactly", l, i, MaxRuleRunes),
					Hint: "write the grant as a command prefix (Bash(git status *)) or an exact command"}
			case cost > maxRuleCost:
				return &ParseError{Limit: "rule_too_large", Line: st.Line, Col: st.Column,
					Msg:  fmt.Sprintf("permissions.%s[%d] has %d characters, %d of them distinct: too complex for Shipgate to compile exactly", l, i, n, len(seen)),
					Hint: "write the grant as a command prefix (Bash(git status *)) or an exact command"}
			case total > maxFileRuleCost:
				return &ParseError{Limit: "rules_too_large", Line: st.Line, Col: st.Column,
					Msg:  "its rules together are too long and varied for Shipgate to compile exactly",
					Hint: "split the rules or write them as command prefixes"}
			}
		}
	}
	return nil
}

// readRules collects permissions.allow, ask and deny.
func (d *Doc) readRules(cache RuleCache) {
	perms := d.Root.Get("permissions")
	if perms == nil {
		return
	}
	if perms.Kind() != jsonpos.Object {
		s := perms.Start()
		d.Problems = append(d.Problems, DocProblem{Kind: "invalid_rule", Line: s.Line, col: s.Column, Key: "permissions",
			Message: fmt.Sprintf("\"permissions\" is a JSON %s, not an object: Claude Code reads no rules from it", perms.Kind())})
		return
	}
	for _, l := range Lists {
		arr := perms.Get(string(l))
		if arr == nil {
			continue
		}
		if arr.Kind() != jsonpos.Array {
			s := arr.Start()
			d.Problems = append(d.Problems, DocProblem{Kind: "invalid_rule", Line: s.Line, col: s.Column, Key: "permissions." + string(l), List: string(l),
				Message: fmt.Sprintf("permissions.%s is a JSON %s, not an array of rules: Claude Code reads no %s rules from it", l, arr.Kind(), l)})
			continue
		}
		d.Rules = slices.Grow(d.Rules, arr.Len())
		for i, e := range arr.Elements() {
			s := e.Start()
			key := func() string { return fmt.Sprintf("permissions.%s[%d]", l, i) }
			if e.Kind() != jsonpos.String {
				d.Problems = append(d.Problems, DocProblem{Kind: "invalid_rule", Line: s.Line, col: s.Column, Key: key(), List: string(l),
					Message: fmt.Sprintf("a %s entry that is a JSON %s, not a rule string: Claude Code skips it", l, e.Kind())})
				continue
			}
			text := e.Text()
			if strings.TrimSpace(text) == "" {
				d.Problems = append(d.Problems, DocProblem{Kind: "invalid_rule", Line: s.Line, col: s.Column, Key: key(), List: string(l),
					Message: fmt.Sprintf("a blank %s rule: Claude Code skips it", l)})
				continue
			}
			d.Rules = append(d.Rules, RuleDecl{Rule: cache.parse(l, text), Line: s.Line, col: s.Column, Index: i})
		}
	}
}

// The keys Claude Code knows are those of its settings schema, taken from
// the pinned binary (claudeschema): a key it defines is never "unknown"
// (on real repositories' histories 1,058 of 1,887 unknown-key findings
// were keys the binary defines, from the hand-written list this replaced).
// The top-level keys Claude Code reads only inside "permissions"
// (defaultMode, …) are left to misplacedKeys, which says where to write
// them.

// isKnownKey reports whether the schema defines a key at a path of keys.
func isKnownKey(path ...string) bool { return claudeschema.Pinned().Has(path...) }

// readUnknownKeys notes keys Claude Code ignores, with a likely intent.
func (d *Doc) readUnknownKeys() {
	for _, m := range d.Root.Members() {
		if !isKnownKey(m.Key) && settingPlace(m.Key) != PlacePermissions {
			d.Problems = append(d.Problems, DocProblem{Kind: "unknown_key", Line: m.KeyStart.Line, col: m.KeyStart.Column, Key: m.Key,
				Message: unknownKeyMessage(m.Key, claudeschema.Pinned().Keys())})
		}
	}
	if perms := d.Root.Get("permissions"); perms.Kind() == jsonpos.Object {
		for _, m := range perms.Members() {
			if !isKnownKey("permissions", m.Key) {
				d.Problems = append(d.Problems, DocProblem{Kind: "unknown_key", Line: m.KeyStart.Line, col: m.KeyStart.Column, Key: "permissions." + m.Key,
					Message: unknownKeyMessage(m.Key, claudeschema.Pinned().KeysAt("permissions"))})
			}
		}
	}
}

// unknownKeyMessage names a likely intended key (same letters ignoring
// case, or an edit or two away) among the known ones (sorted).
func unknownKeyMessage(key string, known []string) string {
	msg := fmt.Sprintf("Claude Code ignores the unknown key %q", key)
	if best := policy.Suggest(key, known); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return msg
}

// RulesIn returns the document's rules of one list (nil-safe). The slice
// is shared: do not modify it.
func (d *Doc) RulesIn(l lattice.List) []RuleDecl {
	if d == nil {
		return nil
	}
	if d.byList == nil {
		d.byList = map[lattice.List][]RuleDecl{}
		for _, r := range d.Rules {
			d.byList[r.Rule.List] = append(d.byList[r.Rule.List], r)
		}
	}
	return d.byList[l]
}

// ListLine returns the line of a permissions list key, or of the
// permissions key, or 1 (where an annotation about a removal goes).
func (d *Doc) ListLine(l lattice.List) int {
	if d == nil {
		return 1
	}
	perms, ok := d.Root.Lookup("permissions")
	if !ok {
		return 1
	}
	if m, ok := perms.Value.Lookup(string(l)); ok {
		return m.KeyStart.Line
	}
	return perms.KeyStart.Line
}
