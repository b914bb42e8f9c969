package diff

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shipgate-app/shipgate/diff/claudeschema"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// doc is one parsed version of an agent-config file.
type doc struct {
	path   string
	kind   report.FileKind
	root   *jsonpos.Value
	rules  []ruleDecl
	byList map[lattice.List][]ruleDecl // rules by list, built on first use
	// problems are entries Claude Code reads differently from how they
	// look: duplicate keys, non-string or blank rules, unknown keys.
	problems []docProblem

	// allTools are the lines of a frontmatter `allowed-tools: *` (every
	// tool pre-approved while the skill runs).
	allTools []int

	// dropped is the value of a settings file that fails Claude Code's
	// settings schema (claudeschema): the binary then ignores the whole
	// file, so the document is read as {} — no rules, no settings — and
	// the engine says why.
	dropped *claudeschema.Violation
}

// emptyRoot is the document Claude Code reads from a file it drops.
var emptyRoot = func() *jsonpos.Value {
	v, _, _ := jsonpos.Parse([]byte("{}"))
	return v
}()

// ruleDecl is one permission rule as declared in a file.
type ruleDecl struct {
	rule  lattice.Rule
	line  int
	col   int
	index int
}

// docProblem is a non-fatal problem of a document.
type docProblem struct {
	kind    string // duplicate_key, invalid_rule, unknown_key, invalid_utf8, lone_surrogate
	line    int
	col     int
	key     string // the key path or list ("permissions.allow[3]")
	list    string
	message string
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

// parseError is why a version could not be read at all.
type parseError struct {
	// limit names a limit of Shipgate's own that the version is over
	// (too_deep, too_many_rules): Claude Code may well read it.
	limit    string
	tooLarge bool
	line     int
	col      int
	msg      string
	hint     string
}

func (e *parseError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
	}
	return e.msg
}

// ruleCache shares parsed rules between the base and head of every file of
// one comparison: most rules are unchanged, and a Rule is immutable.
type ruleCache map[string]lattice.Rule

func (c ruleCache) parse(l lattice.List, text string) lattice.Rule {
	k := string(l) + "\x00" + text
	if r, ok := c[k]; ok {
		return r
	}
	r := lattice.ParseIn(l, text)
	c[k] = r
	return r
}

// lists are the permission lists, in evaluation order.
var lists = []lattice.List{lattice.Deny, lattice.Ask, lattice.Allow}

// looksBinary applies git's test for binary content: a NUL byte in the
// first 8,000 bytes.
func looksBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// parseDoc reads one version of a file strictly, as Claude Code does.
func parseDoc(p string, kind report.FileKind, v report.Version, rules ruleCache) (*doc, *parseError) {
	if frontmatterKind(kind) {
		return parseFrontmatterDoc(p, kind, v, rules)
	}
	if v.Unreadable != "" {
		return nil, &parseError{tooLarge: v.TooLarge, msg: v.Unreadable}
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
			return nil, &parseError{limit: "too_deep", line: se.Line, col: se.Column, msg: se.Msg, hint: se.Hint}
		case errors.As(err, &se):
			hint := se.Hint
			if looksBinary(v.Data) {
				// A repair of the first bad character (`write "K"`) is no
				// advice for a file that is not text at all.
				hint = "the file holds binary data (NUL bytes), not JSON text: restore the settings file's text, or delete it"
			}
			return nil, &parseError{line: se.Line, col: se.Column, msg: se.Msg, hint: hint}
		case errors.As(err, &tl):
			return nil, &parseError{tooLarge: true, msg: tl.Error()}
		}
		return nil, &parseError{msg: err.Error()}
	}
	if root.Kind() != jsonpos.Object {
		s := root.Start()
		return nil, &parseError{line: s.Line, col: s.Column, msg: fmt.Sprintf("the document is a JSON %s, not an object", root.Kind()),
			hint: "a settings file is one JSON object: { \"permissions\": { ... } }"}
	}
	d := &doc{path: p, kind: kind, root: root}
	for _, pr := range probs {
		dp := docProblem{line: pr.Line, col: pr.Column, key: pr.Key, message: pr.Message}
		switch pr.Kind {
		case jsonpos.ProblemDuplicateKey:
			dp.kind = "duplicate_key"
			dp.message = fmt.Sprintf("key %q appears twice in one object (also at line %d); Claude Code keeps the last one and ignores the first", pr.Key, pr.Other.Line)
		case jsonpos.ProblemInvalidUTF8:
			dp.kind = "invalid_utf8"
		case jsonpos.ProblemLoneSurrogate:
			dp.kind = "lone_surrogate"
		default:
			dp.kind = pr.Kind.String()
		}
		d.problems = append(d.problems, dp)
	}
	if kind == report.SettingsFile {
		if n := d.countRules(); n > MaxRules {
			return nil, &parseError{limit: "too_many_rules", msg: fmt.Sprintf("it declares %d permission rules, over Shipgate's limit of %d", n, MaxRules)}
		}
		if pe := d.checkRuleSizes(); pe != nil {
			return nil, pe
		}
		if v := claudeschema.Pinned().Validate(root); v != nil {
			d.dropped, d.root, d.problems = v, emptyRoot, nil
			return d, nil
		}
		d.readRules(rules)
		d.readUnknownKeys()
	}
	return d, nil
}

// countRules counts the entries of permissions.allow, ask and deny before
// any of them is parsed.
func (d *doc) countRules() int {
	perms := d.root.Get("permissions")
	if perms == nil || perms.Kind() != jsonpos.Object {
		return 0
	}
	n := 0
	for _, l := range lists {
		if arr := perms.Get(string(l)); arr != nil && arr.Kind() == jsonpos.Array {
			n += arr.Len()
		}
	}
	return n
}

// checkRuleSizes refuses a file whose rules are too large to compile
// exactly (see MaxRuleRunes), before any is compiled.
func (d *doc) checkRuleSizes() *parseError {
	perms := d.root.Get("permissions")
	if perms == nil || perms.Kind() != jsonpos.Object {
		return nil
	}
	total := 0
	seen := map[rune]bool{}
	for _, l := range lists {
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
				return &parseError{limit: "rule_too_large", line: st.Line, col: st.Column,
					msg:  fmt.Sprintf("permissions.%s[%d] is over %d characters, Shipgate's limit for a rule it compares exactly", l, i, MaxRuleRunes),
					hint: "write the grant as a command prefix (Bash(git status *)) or an exact command"}
			case cost > maxRuleCost:
				return &parseError{limit: "rule_too_large", line: st.Line, col: st.Column,
					msg:  fmt.Sprintf("permissions.%s[%d] has %d characters, %d of them distinct: too complex for Shipgate to compile exactly", l, i, n, len(seen)),
					hint: "write the grant as a command prefix (Bash(git status *)) or an exact command"}
			case total > maxFileRuleCost:
				return &parseError{limit: "rules_too_large", line: st.Line, col: st.Column,
					msg:  "its rules together are too long and varied for Shipgate to compile exactly",
					hint: "split the rules or write them as command prefixes"}
			}
		}
	}
	return nil
}

// readRules collects permissions.allow, ask and deny.
func (d *doc) readRules(cache ruleCache) {
	perms := d.root.Get("permissions")
	if perms == nil {
		return
	}
	if perms.Kind() != jsonpos.Object {
		s := perms.Start()
		d.problems = append(d.problems, docProblem{kind: "invalid_rule", line: s.Line, col: s.Column, key: "permissions",
			message: fmt.Sprintf("\"permissions\" is a JSON %s, not an object: Claude Code reads no rules from it", perms.Kind())})
		return
	}
	for _, l := range lists {
		arr := perms.Get(string(l))
		if arr == nil {
			continue
		}
		if arr.Kind() != jsonpos.Array {
			s := arr.Start()
			d.problems = append(d.problems, docProblem{kind: "invalid_rule", line: s.Line, col: s.Column, key: "permissions." + string(l), list: string(l),
				message: fmt.Sprintf("permissions.%s is a JSON %s, not an array of rules: Claude Code reads no %s rules from it", l, arr.Kind(), l)})
			continue
		}
		d.rules = slices.Grow(d.rules, arr.Len())
		for i, e := range arr.Elements() {
			s := e.Start()
			key := func() string { return fmt.Sprintf("permissions.%s[%d]", l, i) }
			if e.Kind() != jsonpos.String {
				d.problems = append(d.problems, docProblem{kind: "invalid_rule", line: s.Line, col: s.Column, key: key(), list: string(l),
					message: fmt.Sprintf("a %s entry that is a JSON %s, not a rule string: Claude Code skips it", l, e.Kind())})
				continue
			}
			text := e.Text()
			if strings.TrimSpace(text) == "" {
				d.problems = append(d.problems, docProblem{kind: "invalid_rule", line: s.Line, col: s.Column, key: key(), list: string(l),
					message: fmt.Sprintf("a blank %s rule: Claude Code skips it", l)})
				continue
			}
			d.rules = append(d.rules, ruleDecl{rule: cache.parse(l, text), line: s.Line, col: s.Column, index: i})
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
func (d *doc) readUnknownKeys() {
	for _, m := range d.root.Members() {
		if !isKnownKey(m.Key) && settingPlace(m.Key) != placePermissions {
			d.problems = append(d.problems, docProblem{kind: "unknown_key", line: m.KeyStart.Line, col: m.KeyStart.Column, key: m.Key,
				message: unknownKeyMessage(m.Key, claudeschema.Pinned().Keys())})
		}
	}
	if perms := d.root.Get("permissions"); perms.Kind() == jsonpos.Object {
		for _, m := range perms.Members() {
			if !isKnownKey("permissions", m.Key) {
				d.problems = append(d.problems, docProblem{kind: "unknown_key", line: m.KeyStart.Line, col: m.KeyStart.Column, key: "permissions." + m.Key,
					message: unknownKeyMessage(m.Key, claudeschema.Pinned().KeysAt("permissions"))})
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

// rulesIn returns the document's rules of one list (nil-safe). The slice
// is shared: do not modify it.
func (d *doc) rulesIn(l lattice.List) []ruleDecl {
	if d == nil {
		return nil
	}
	if d.byList == nil {
		d.byList = map[lattice.List][]ruleDecl{}
		for _, r := range d.rules {
			d.byList[r.rule.List] = append(d.byList[r.rule.List], r)
		}
	}
	return d.byList[l]
}

// listLine returns the line of a permissions list key, or of the
// permissions key, or 1 (where an annotation about a removal goes).
func (d *doc) listLine(l lattice.List) int {
	if d == nil {
		return 1
	}
	perms, ok := d.root.Lookup("permissions")
	if !ok {
		return 1
	}
	if m, ok := perms.Value.Lookup(string(l)); ok {
		return m.KeyStart.Line
	}
	return perms.KeyStart.Line
}
