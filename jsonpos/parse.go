package jsonpos

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits applied when Options leaves them zero.
const (
	// DefaultMaxSize is the largest input Parse accepts: 1 MiB. Real settings
	// files are a few kilobytes; anything near this is an attack or an accident.
	DefaultMaxSize = 1 << 20
	// DefaultMaxDepth is the deepest nesting Parse accepts. JSON.parse has no
	// such bound, but no settings file comes near it, and a bound keeps the
	// parser's stack small whatever the input.
	DefaultMaxDepth = 1000
	// MaxDepthLimit caps Options.MaxDepth.
	MaxDepthLimit = 10000
	// maxInput is the real bound behind "no limit": positions are stored in
	// 32 bits.
	maxInput = 1<<31 - 1
)

// Options tunes a parse. The zero Options is what Shipgate uses.
type Options struct {
	// MaxSize is the largest input in bytes; larger inputs fail with a
	// *TooLargeError before any parsing. 0 means DefaultMaxSize; a negative
	// value means no limit short of 2 GiB.
	MaxSize int
	// MaxDepth is the deepest nesting of objects and arrays; deeper input is a
	// fatal SyntaxTooDeep error. 0 (or negative) means DefaultMaxDepth; values
	// above MaxDepthLimit are lowered to it.
	MaxDepth int
	// AllowBOM skips a leading UTF-8 byte order mark instead of failing with
	// SyntaxBOM, and reports it as a ProblemBOM. Some Claude Code builds drop
	// such a file whole (see the package comment), so the default fails.
	AllowBOM bool
}

// Parse parses data as JSON.parse would, with the default Options (1 MiB
// size limit, depth 1,000, a byte order mark is fatal). It returns the
// document, the non-fatal problems in source order, and, when JSON.parse would
// throw, a nil document and a *SyntaxError (or a *TooLargeError) together with
// the problems found before the error.
func Parse(data []byte) (*Value, []Problem, error) {
	return Options{}.Parse(data)
}

// ParseLimit is Parse with a size limit of max bytes (max < 0: no limit;
// 0: DefaultMaxSize).
func ParseLimit(data []byte, max int) (*Value, []Problem, error) {
	return Options{MaxSize: max}.Parse(data)
}

// Parse parses data with these options; see the package function Parse.
func (o Options) Parse(data []byte) (*Value, []Problem, error) {
	limit := o.MaxSize
	if limit == 0 {
		limit = DefaultMaxSize
	}
	if limit < 0 || limit > maxInput {
		limit = maxInput
	}
	if len(data) > limit {
		return nil, nil, &TooLargeError{Size: len(data), Limit: limit}
	}
	depth := o.MaxDepth
	if depth <= 0 {
		depth = DefaultMaxDepth
	}
	depth = min(depth, MaxDepthLimit)
	// One copy of the input: every Raw and every escape-free decoded string is
	// a substring of it, which costs no allocation and keeps the tree valid
	// even if the caller reuses data.
	p := parser{src: string(data), maxDepth: depth, line: 1, colNum: 1}
	v := p.document(o.AllowBOM)
	if p.err != nil {
		return nil, p.problems, p.err
	}
	return v, p.problems, nil
}

// parser is the state of one parse. Values, members and element lists are cut
// from a few growing blocks (the slabs) so that a parse costs a handful of
// allocations rather than one per value.
type parser struct {
	src      string
	pos      int
	maxDepth int
	depth    int

	// Line tracking. A line feed can only occur in whitespace of a document
	// that parses (in a string it is a fatal error), so skipWS keeps line and
	// lineStart, and posAt counts columns forward from the last position it
	// computed on the current line: linear in total, even on one long line.
	line      int
	lineStart int
	colOff    int
	colNum    int

	err      *SyntaxError
	problems []Problem

	buf    []byte   // scratch for decoding strings with escapes
	mstack []Member // members of the objects being parsed
	estack []*Value // elements of the arrays being parsed

	vslab []Value
	xslab []extra
	mslab []Member
	pslab []*Value
}

const (
	minChunk    = 16
	maxChunk    = 4096
	smallObject = 16 // objects up to this size find duplicates by scanning
)

// grab returns k fresh elements cut from *slab, starting a new block when the
// current one is full. Earlier blocks stay where they are, so pointers into
// them remain valid.
func grab[T any](slab *[]T, k int) []T {
	s := *slab
	if cap(s)-len(s) < k {
		s = make([]T, 0, max(k, min(2*cap(s), maxChunk), minChunk))
	}
	l := len(s)
	s = s[:l+k]
	*slab = s
	return s[l : l+k : l+k]
}

func (p *parser) newValue() *Value { return &grab(&p.vslab, 1)[0] }

// document parses the whole input.
func (p *parser) document(allowBOM bool) *Value {
	if strings.HasPrefix(p.src, bom) {
		if !allowBOM {
			p.fail(SyntaxBOM, 0,
				"the file starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON.parse rejects; Claude Code may drop the whole file, deny rules included",
				"save the file as UTF-8 without a byte order mark")
			return nil
		}
		p.pos, p.lineStart, p.colOff = len(bom), len(bom), len(bom)
		p.addProblem(ProblemBOM, Pos{Offset: 0, Line: 1, Column: 1},
			"the file starts with a UTF-8 byte order mark; JSON.parse rejects it and some Claude Code builds drop the whole file")
	}
	p.skipWS()
	if p.pos >= len(p.src) {
		msg := "the file is empty: JSON.parse needs a value, so Claude Code ignores the file"
		if p.pos > len(bom) || (p.pos > 0 && !strings.HasPrefix(p.src, bom)) {
			msg = "the file holds only whitespace: JSON.parse needs a value, so Claude Code ignores the file"
		}
		p.fail(SyntaxEmpty, len(p.src), msg, "write {} for a settings file with no settings, or delete the file")
		return nil
	}
	v := p.parseValue()
	if v == nil {
		return nil
	}
	p.skipWS()
	if i := p.pos; i < len(p.src) {
		if p.comment(i) {
			return nil
		}
		what := describe(p.src, i)
		if c := p.src[i]; c == '}' || c == ']' {
			p.fail(SyntaxExtraData, i,
				fmt.Sprintf("unexpected %s after the end of the document: the top-level value already closed at line %d, column %d", what, v.end.line, v.end.col),
				"remove the extra bracket (one too many?), or check that the brackets before it match")
			return nil
		}
		p.fail(SyntaxExtraData, i,
			fmt.Sprintf("unexpected %s after the end of the document (the top-level value ended at line %d, column %d)", what, v.end.line, v.end.col),
			"a settings file holds exactly one JSON value: remove the extra text, or move it inside the top-level object")
		return nil
	}
	return v
}

func (p *parser) skipWS() {
	s := p.src
	i := p.pos
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r':
			i++
		case '\n':
			i++
			p.line++
			p.lineStart = i
		default:
			p.pos = i
			return
		}
	}
	p.pos = i
}

// posAt returns the position of off, which must lie on the current line at or
// after the last position computed; anything else falls back to slowPos.
func (p *parser) posAt(off int) Pos {
	if off < p.lineStart || off > len(p.src) {
		return slowPos(p.src, off)
	}
	if p.colOff < p.lineStart {
		p.colOff, p.colNum = p.lineStart, 1
	}
	if off < p.colOff {
		return slowPos(p.src, off)
	}
	p.colNum += utf8.RuneCountInString(p.src[p.colOff:off])
	p.colOff = off
	return Pos{Offset: off, Line: p.line, Column: p.colNum}
}

// fail records the fatal error at byte offset off; the first error wins.
func (p *parser) fail(kind SyntaxKind, off int, msg, hint string) {
	p.failAt(kind, slowPos(p.src, off), msg, hint)
}

func (p *parser) failAt(kind SyntaxKind, pos Pos, msg, hint string) {
	if p.err == nil {
		p.err = &SyntaxError{Kind: kind, Pos: pos, Msg: msg, Hint: hint}
	}
}

func (p *parser) addProblem(kind ProblemKind, pos Pos, msg string) int {
	p.problems = append(p.problems, Problem{Kind: kind, Pos: pos, Message: msg})
	return len(p.problems) - 1
}

// parseValue parses the value at p.pos (whitespace skipped, not at EOF).
func (p *parser) parseValue() *Value {
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.parseObject()
	case c == '[':
		return p.parseArray()
	case c == '"':
		return p.parseString()
	case c == '-' || isDigit(c):
		return p.parseNumber()
	case isIdentStart(c):
		return p.parseWord()
	case c == '+':
		p.fail(SyntaxPlusSign, p.pos, "a JSON number cannot start with '+'", "remove the '+'")
	case c == '.':
		p.fail(SyntaxBadNumber, p.pos,
			fmt.Sprintf("the number %s starts with '.': JSON needs a digit before the decimal point", lexeme(p.src, p.pos)),
			"write a digit before the point: 0.5, not .5")
	default:
		p.unexpected(p.pos, "a JSON value")
	}
	return nil
}

func (p *parser) parseObject() *Value {
	s := p.src
	open := p.pos
	sp := p.posAt(open)
	if p.depth >= p.maxDepth {
		p.tooDeep(sp)
		return nil
	}
	p.depth++
	p.pos++
	base := len(p.mstack)
	var index map[string]int32
	dups := 0
	p.skipWS()
	if p.pos >= len(s) {
		p.unterminated(sp, "object", '}')
		return nil
	}
	if s[p.pos] == '}' {
		p.pos++
	} else {
		for {
			if s[p.pos] != '"' {
				p.badKey()
				return nil
			}
			kstart := p.pos
			kp := p.posAt(kstart)
			key, id, ok := p.scanString(kp, true)
			if !ok {
				return nil
			}
			kraw := s[kstart:p.pos]
			p.skipWS()
			if p.pos >= len(s) {
				p.unterminated(sp, "object", '}')
				return nil
			}
			if s[p.pos] != ':' {
				if !p.comment(p.pos) {
					p.fail(SyntaxMissingColon, p.pos,
						fmt.Sprintf("expected ':' after the key %s, found %s", clipQuote(key), describe(s, p.pos)),
						fmt.Sprintf("write %s: followed by the value", kraw))
				}
				return nil
			}
			p.pos++
			p.skipWS()
			if p.pos >= len(s) {
				p.unterminated(sp, "object", '}')
				return nil
			}
			if c := s[p.pos]; c == '}' || c == ',' {
				p.fail(SyntaxMissingValue, p.pos,
					fmt.Sprintf("missing value for the key %s: found %s after ':'", clipQuote(key), describe(s, p.pos)),
					"write a value after ':', or remove the key")
				return nil
			}
			val := p.parseValue()
			if val == nil {
				return nil
			}

			m := Member{Key: key, KeyRaw: kraw, KeyStart: kp, Value: val, id: id}
			ident := m.ident()
			count := len(p.mstack) - base
			prev := -1
			if index != nil {
				if j, ok := index[ident]; ok {
					prev = int(j)
				}
			} else {
				for j := len(p.mstack) - 1; j >= base; j-- {
					if p.mstack[j].ident() == ident {
						prev = j - base
						break
					}
				}
			}
			if prev >= 0 {
				earlier := &p.mstack[base+prev]
				earlier.Overridden = true
				dups++
				i := p.addProblem(ProblemDuplicateKey, kp,
					fmt.Sprintf("duplicate key %s: this value replaces the one at line %d, column %d, which JSON.parse (and Claude Code) ignore",
						clipQuote(key), earlier.KeyStart.Line, earlier.KeyStart.Column))
				p.problems[i].Key = key
				p.problems[i].Other = earlier.KeyStart
			}
			p.mstack = append(p.mstack, m)
			if index != nil {
				index[ident] = int32(count)
			} else if count+1 > smallObject {
				index = make(map[string]int32, 2*smallObject)
				for j, mm := range p.mstack[base:] {
					index[mm.ident()] = int32(j)
				}
			}

			p.skipWS()
			if p.pos >= len(s) {
				p.unterminated(sp, "object", '}')
				return nil
			}
			c := s[p.pos]
			if c == ',' {
				comma := p.pos
				p.pos++
				p.skipWS()
				if p.pos >= len(s) {
					p.unterminated(sp, "object", '}')
					return nil
				}
				if s[p.pos] == '}' {
					p.trailingComma(comma, '}', "member of an object")
					return nil
				}
				continue
			}
			if c == '}' {
				p.pos++
				break
			}
			p.afterItem(val.End(), sp, '}', "member")
			return nil
		}
	}

	v := p.newValue()
	v.kind, v.start, v.end, v.raw = Object, compact(sp), compact(p.posAt(p.pos)), s[open:p.pos]
	if n := len(p.mstack) - base; n > 0 {
		o := &grab(&p.xslab, 1)[0]
		o.all = grab(&p.mslab, n)
		copy(o.all, p.mstack[base:])
		o.live = o.all
		if dups > 0 {
			o.live = grab(&p.mslab, n-dups)
			k := 0
			for _, m := range o.all {
				if !m.Overridden {
					o.live[k] = m
					k++
				}
			}
		}
		o.idx = index
		v.x = o
		clear(p.mstack[base:])
		p.mstack = p.mstack[:base]
	}
	p.depth--
	return v
}

func (p *parser) parseArray() *Value {
	s := p.src
	open := p.pos
	sp := p.posAt(open)
	if p.depth >= p.maxDepth {
		p.tooDeep(sp)
		return nil
	}
	p.depth++
	p.pos++
	base := len(p.estack)
	p.skipWS()
	if p.pos >= len(s) {
		p.unterminated(sp, "array", ']')
		return nil
	}
	if s[p.pos] == ']' {
		p.pos++
	} else {
		for {
			if s[p.pos] == ',' {
				p.fail(SyntaxUnexpected, p.pos, "unexpected ',' where an array element should be (an empty element?)",
					"remove the extra comma")
				return nil
			}
			el := p.parseValue()
			if el == nil {
				return nil
			}
			p.estack = append(p.estack, el)
			p.skipWS()
			if p.pos >= len(s) {
				p.unterminated(sp, "array", ']')
				return nil
			}
			c := s[p.pos]
			if c == ',' {
				comma := p.pos
				p.pos++
				p.skipWS()
				if p.pos >= len(s) {
					p.unterminated(sp, "array", ']')
					return nil
				}
				if s[p.pos] == ']' {
					p.trailingComma(comma, ']', "element of an array")
					return nil
				}
				continue
			}
			if c == ']' {
				p.pos++
				break
			}
			p.afterItem(el.End(), sp, ']', "element")
			return nil
		}
	}
	v := p.newValue()
	v.kind, v.start, v.end, v.raw = Array, compact(sp), compact(p.posAt(p.pos)), s[open:p.pos]
	if n := len(p.estack) - base; n > 0 {
		x := &grab(&p.xslab, 1)[0]
		x.elems = grab(&p.pslab, n)
		copy(x.elems, p.estack[base:])
		v.x = x
		clear(p.estack[base:])
		p.estack = p.estack[:base]
	}
	p.depth--
	return v
}

func (p *parser) parseString() *Value {
	start := p.pos
	sp := p.posAt(start)
	str, _, ok := p.scanString(sp, false)
	if !ok {
		return nil
	}
	raw := p.src[start:p.pos]
	v := p.newValue()
	v.kind, v.start, v.end, v.raw = String, compact(sp), compact(p.posAt(p.pos)), raw
	if str != raw[1:len(raw)-1] { // escapes or invalid UTF-8; equal strings share memory, so this is cheap
		x := &grab(&p.xslab, 1)[0]
		x.text = str
		v.x = x
	}
	return v
}

// scanString decodes the string whose opening quote is at p.pos (position sp)
// and moves p.pos past its closing quote. For a key holding a lone surrogate,
// id is the key as JavaScript compares it; otherwise id is empty.
func (p *parser) scanString(sp Pos, key bool) (str, id string, ok bool) {
	s := p.src
	i := p.pos + 1
	for i < len(s) {
		b := s[i]
		if b == '"' {
			str = s[p.pos+1 : i]
			p.pos = i + 1
			if p.colOff == sp.Offset && sp.Line == p.line {
				// All ASCII: the closing quote's column needs no recount.
				p.colOff, p.colNum = p.pos, sp.Column+p.pos-sp.Offset
			}
			return str, "", true
		}
		if b == '\\' || b < 0x20 || b >= utf8.RuneSelf {
			break
		}
		i++
	}
	return p.scanStringSlow(sp, i, key)
}

// scanStringSlow continues scanString from s[i], the first byte that is an
// escape, a control character or non-ASCII.
func (p *parser) scanStringSlow(sp Pos, i int, key bool) (string, string, bool) {
	s := p.src
	content := p.pos + 1
	buf := append(p.buf[:0], s[content:i]...)
	changed := false // the decoded text differs from the source text
	lone := false
	badProblem, bad := -1, 0
scan:
	for i < len(s) {
		b := s[i]
		switch {
		case b == '"':
			var str, id string
			if changed {
				str = string(buf)
			} else {
				str = s[content:i]
			}
			if key && lone {
				id = jsKey(s[content:i])
			}
			if bad > 1 {
				p.problems[badProblem].Message = invalidUTF8Message(bad)
			}
			p.buf = buf
			p.pos = i + 1
			return str, id, true
		case b == '\\':
			changed = true
			if i+1 >= len(s) {
				break scan // the input ends after the backslash
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				buf = append(buf, unescape(e))
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					p.badEscape(i)
					return "", "", false
				}
				j := i + 6
				if utf16.IsSurrogate(r) {
					if r < 0xDC00 && j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
						if r2, ok := hex4(s, j+2); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
							buf = utf8.AppendRune(buf, utf16.DecodeRune(r, r2))
							i = j + 6
							continue
						}
					}
					lone = true
					p.addProblem(ProblemLoneSurrogate, p.posAt(i),
						fmt.Sprintf("lone surrogate escape %s: JSON.parse keeps it as an unpaired UTF-16 code unit, which is not a character (read here as U+FFFD)", s[i:j]))
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
				i = j
				continue
			default:
				p.badEscape(i)
				return "", "", false
			}
			i += 2
		case b < 0x20:
			p.controlChar(sp, i)
			return "", "", false
		case b < utf8.RuneSelf:
			buf = append(buf, b)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				changed = true
				bad++
				if badProblem < 0 {
					badProblem = p.addProblem(ProblemInvalidUTF8, p.posAt(i), invalidUTF8Message(1))
				}
				buf = utf8.AppendRune(buf, utf8.RuneError)
				i += invalidLen(s, i)
				continue
			}
			buf = append(buf, s[i:i+size]...)
			i += size
		}
	}
	p.buf = buf
	p.failAt(SyntaxUnterminatedString, sp,
		fmt.Sprintf("unterminated string: the string that starts at line %d, column %d has no closing quote before the end of the file", sp.Line, sp.Column),
		`add the closing double quote`)
	return "", "", false
}

func hex4(s string, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func (p *parser) parseNumber() *Value {
	s := p.src
	start := p.pos
	i := start
	if s[i] == '-' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			if strings.HasPrefix(s[i:], "Infinity") {
				p.fail(SyntaxNonFinite, start, "-Infinity is not a JSON value: JSON numbers are finite",
					`use a finite number, or a string such as "-Infinity"`)
			} else {
				p.fail(SyntaxBadNumber, start, "'-' must be followed by a digit", "write a number such as -1, or remove the '-'")
			}
			return nil
		}
	}
	if s[i] == '0' {
		i++
		if i < len(s) && isDigit(s[i]) {
			p.fail(SyntaxLeadingZero, start,
				fmt.Sprintf("the number %s has a leading zero: JSON allows 0 only alone or before '.' or an exponent", lexeme(s, start)),
				`remove the leading zero, or quote the value if it is not a number ("0644")`)
			return nil
		}
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			p.fail(SyntaxBadNumber, start,
				fmt.Sprintf("the number %s is hexadecimal: JSON numbers are decimal", lexeme(s, start)),
				"write the number in decimal")
			return nil
		}
	} else {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			p.fail(SyntaxBadNumber, start,
				fmt.Sprintf("the number %s has no digit after the decimal point", lexeme(s, start)),
				"write a digit after the point (1.0), or drop the point")
			return nil
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			p.fail(SyntaxBadNumber, start,
				fmt.Sprintf("the number %s has no digit in its exponent", lexeme(s, start)),
				"write digits after the e (1e3), or drop the exponent")
			return nil
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	sp := p.posAt(start)
	p.pos = i
	v := p.newValue()
	v.kind, v.start, v.end, v.raw = Number, compact(sp), compact(p.posAt(i)), s[start:i]
	return v
}

// parseWord parses true, false or null, and explains any other bare word.
func (p *parser) parseWord() *Value {
	s := p.src
	start := p.pos
	j := start
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	w := s[start:j]
	var kind Kind
	switch w {
	case "true", "false":
		kind = Bool
	case "null":
		kind = Null
	}
	if kind != Invalid {
		sp := p.posAt(start)
		p.pos = j
		v := p.newValue()
		v.kind, v.start, v.end, v.raw, v.boolean = kind, compact(sp), compact(p.posAt(j)), w, w == "true"
		return v
	}
	shown := clip(w)
	switch {
	case strings.EqualFold(w, "NaN") || strings.EqualFold(w, "Infinity"):
		p.fail(SyntaxNonFinite, start, fmt.Sprintf("%s is not a JSON value: JSON numbers are finite", shown),
			fmt.Sprintf("use a finite number, or a string such as %s", strconv.Quote(shown)))
	case w == "undefined":
		p.fail(SyntaxBadLiteral, start, "undefined is not a JSON value", "use null, or remove the entry")
	case strings.EqualFold(w, "true") || strings.EqualFold(w, "false") || strings.EqualFold(w, "null") ||
		w == "None" || w == "nil" || w == "Nil":
		p.fail(SyntaxBadLiteral, start,
			fmt.Sprintf("%s is not a JSON literal: the literals are true, false and null, in lower case", shown),
			"write true, false or null")
	default:
		p.fail(SyntaxBadLiteral, start,
			fmt.Sprintf("unexpected word %s: text must be a double-quoted string, and the only bare words are true, false and null", shown),
			fmt.Sprintf("write %s", strconv.Quote(shown)))
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }
