// Package jsregex translates JavaScript regular expressions — VS Code's
// `/…/flags` terminal auto-approve keys, Gemini's commandRegex — to the
// lattice's regular expressions, for the subset that is regular:
// literals, classes and escapes, groups, alternation, quantifiers, the
// anchors ^ and $ at the ends of an alternative, and \b where its
// neighbours decide it. What is not regular (backreferences) or not
// modelled (look-around, anchors or \b elsewhere, \B) is reported as
// Unknown with the reason; callers rate such a rule as matching
// everything when it grants and nothing when it restricts.
//
// RegExp.prototype.test searches: an unanchored pattern matches anywhere
// in the string, so Translate wraps each alternative in `.*` where no
// anchor pins it.
//
// Strings are read as runes, not UTF-16 code units: without the u flag
// JavaScript's `.` and classes see a character outside the Basic
// Multilingual Plane as two units (`/^.$/` does not match "😀"), which this
// translation does not model (a known difference, tested against node).
package jsregex

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/shipgate-app/shipgate/lattice"
)

// Unknown is a pattern outside the translated subset.
type Unknown struct{ Reason string }

func (u *Unknown) Error() string { return u.Reason }

// Syntax is a pattern JavaScript itself rejects (new RegExp throws).
type Syntax struct{ Msg string }

func (s *Syntax) Error() string { return "invalid regular expression: " + s.Msg }

// Translate returns the language of `new RegExp(pattern, flags).test(s)`
// as an RE over s. The error is a *Syntax when JavaScript would throw, an
// *Unknown when the pattern is valid but outside the subset.
func Translate(pattern, flags string) (lattice.RE, error) {
	p := &parser{src: []rune(pattern)}
	for _, f := range flags {
		switch f {
		case 'i':
			p.fold = true
		case 's':
			p.dotAll = true
		case 'u', 'v':
			p.unicode = true
		case 'g', 'd':
		case 'y':
			p.sticky = true
		case 'm':
			p.multiline = true
		default:
			return lattice.RE{}, &Syntax{Msg: fmt.Sprintf("invalid flag %q", f)}
		}
		if strings.Count(flags, string(f)) > 1 {
			return lattice.RE{}, &Syntax{Msg: fmt.Sprintf("flag %q repeated", f)}
		}
	}
	alts, err := p.alternation(0)
	if err != nil {
		return lattice.RE{}, err
	}
	if p.i < len(p.src) {
		return lattice.RE{}, &Syntax{Msg: "unmatched )"}
	}
	if p.unknown != "" {
		return lattice.RE{}, &Unknown{Reason: p.unknown}
	}
	var out []lattice.RE
	for _, a := range alts {
		r, err := p.anchor(a)
		if err != nil {
			return lattice.RE{}, err
		}
		out = append(out, r)
	}
	if p.unknown != "" {
		return lattice.RE{}, &Unknown{Reason: p.unknown}
	}
	return lattice.Alt(out...), nil
}

// node is one element of a sequence: an RE, or an assertion.
type node struct {
	re        lattice.RE
	kind      int // 0 re, 1 ^, 2 $, 3 \b
	cls       int // for a single-rune-set re: 1 all word, 2 all non-word, 0 mixed/unknown
	anyStar   bool
	canBeNull bool
	// star is the class C of a node C* (zero or more of one class), for
	// \b's split.
	star *lattice.RE
}

const (
	nRE = iota
	nStart
	nEnd
	nBoundary
)

type parser struct {
	src                                      []rune
	i                                        int
	fold, dotAll, unicode, sticky, multiline bool
	unknown                                  string
	noPad                                    bool // a trailing \b already constrains the rest
	groups                                   int
}

func (p *parser) setUnknown(format string, a ...any) {
	if p.unknown == "" {
		p.unknown = fmt.Sprintf(format, a...)
	}
}

func (p *parser) peek() (rune, bool) {
	if p.i < len(p.src) {
		return p.src[p.i], true
	}
	return 0, false
}

// alternation parses alternatives up to ')' or the end; each alternative
// is a sequence of nodes (anchors kept, resolved by the caller).
func (p *parser) alternation(depth int) ([][]node, error) {
	if depth > 200 {
		return nil, &Unknown{Reason: "groups nested too deeply"}
	}
	var alts [][]node
	var cur []node
	for {
		c, ok := p.peek()
		if !ok || c == ')' {
			alts = append(alts, cur)
			return alts, nil
		}
		if c == '|' {
			p.i++
			alts = append(alts, cur)
			cur = nil
			continue
		}
		n, err := p.atom(depth)
		if err != nil {
			return nil, err
		}
		n, err = p.quantifier(n)
		if err != nil {
			return nil, err
		}
		cur = append(cur, n)
	}
}

func (p *parser) quantifier(n node) (node, error) {
	c, ok := p.peek()
	if !ok {
		return n, nil
	}
	lo, hi := -2, -2
	switch c {
	case '*':
		lo, hi = 0, -1
		p.i++
	case '+':
		lo, hi = 1, -1
		p.i++
	case '?':
		lo, hi = 0, 1
		p.i++
	case '{':
		save := p.i
		if l, h, ok := p.braces(); ok {
			lo, hi = l, h
		} else {
			p.i = save
			if p.unicode {
				return n, &Syntax{Msg: "lone quantifier bracket"}
			}
			return n, nil
		}
	default:
		return n, nil
	}
	if c, ok := p.peek(); ok && c == '?' {
		p.i++ // lazy: same language
	}
	if n.kind != nRE {
		if n.kind == nBoundary || n.kind == nStart || n.kind == nEnd {
			return n, &Syntax{Msg: "nothing to repeat"}
		}
	}
	if hi >= 0 && hi < lo {
		return n, &Syntax{Msg: "numbers out of order in {} quantifier"}
	}
	if lo > 1000 || hi > 1000 {
		p.setUnknown("a repetition count above 1000")
		return node{re: lattice.Everything()}, nil
	}
	anyStar := n.anyStar || (lo == 0 && hi < 0 && isAny(n.re))
	out := node{re: lattice.Repeat(n.re, lo, hi), anyStar: anyStar, canBeNull: lo == 0 || n.canBeNull}
	if lo == 0 && hi < 0 && n.re.Op == lattice.REClass {
		c := n.re
		out.star = &c
	}
	return out, nil
}

func isAny(r lattice.RE) bool { return r.Op == lattice.REClass && r.Negate && len(r.Ranges) == 0 }

// braces reads {n}, {n,}, {n,m} at p.i.
func (p *parser) braces() (int, int, bool) {
	p.i++
	num := func() (int, bool) {
		s := p.i
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
		}
		if s == p.i {
			return 0, false
		}
		v, err := strconv.Atoi(string(p.src[s:p.i]))
		if err != nil {
			return 1 << 30, true
		}
		return v, true
	}
	lo, ok := num()
	if !ok {
		return 0, 0, false
	}
	hi := lo
	if c, ok := p.peek(); ok && c == ',' {
		p.i++
		if h, ok := num(); ok {
			hi = h
		} else {
			hi = -1
		}
	}
	if c, ok := p.peek(); !ok || c != '}' {
		return 0, 0, false
	}
	p.i++
	return lo, hi, true
}

var (
	wordRanges  = []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
	digitRanges = []rune{'0', '9'}
	spaceRanges = []rune{'\t', '\r', ' ', ' ', 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff}
	lineTerms   = []rune{'\n', '\n', '\r', '\r', 0x2028, 0x2029}
)

func (p *parser) atom(depth int) (node, error) {
	c := p.src[p.i]
	p.i++
	switch c {
	case '^':
		return node{kind: nStart}, nil
	case '$':
		return node{kind: nEnd}, nil
	case '.':
		if p.dotAll {
			return node{re: lattice.AnyRune()}, nil
		}
		return node{re: lattice.Class(true, lineTerms...)}, nil
	case '(':
		return p.group(depth)
	case '[':
		return p.class()
	case '\\':
		return p.escape(false)
	case '*', '+', '?':
		return node{}, &Syntax{Msg: "nothing to repeat"}
	case '{':
		if p.unicode {
			return node{}, &Syntax{Msg: "lone quantifier bracket"}
		}
		save := p.i - 1
		p.i = save
		if _, _, ok := p.braces(); ok {
			return node{}, &Syntax{Msg: "nothing to repeat"}
		}
		p.i = save + 1
	case '}', ']':
		if p.unicode {
			return node{}, &Syntax{Msg: "lone bracket"}
		}
	}
	return p.lit(c), nil
}

func (p *parser) lit(c rune) node {
	n := node{re: p.foldRune(c)}
	n.cls = classOf(c)
	return n
}

func classOf(c rune) int {
	if c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
		return 1
	}
	return 2
}

// foldRune is a rune, or under the i flag the class of its cases.
func (p *parser) foldRune(c rune) lattice.RE {
	if p.fold {
		var rs []rune
		for _, v := range caseVariants(c) {
			rs = append(rs, v, v)
		}
		if len(rs) > 2 {
			return lattice.Class(false, rs...)
		}
	}
	return lattice.Lit(string(c))
}

func caseVariants(c rune) []rune {
	out := []rune{c}
	for v := unicode.SimpleFold(c); v != c; v = unicode.SimpleFold(v) {
		out = append(out, v)
	}
	return out
}

func (p *parser) group(depth int) (node, error) {
	if strings.HasPrefix(string(p.src[p.i:min(p.i+3, len(p.src))]), "?<=") || strings.HasPrefix(string(p.src[p.i:min(p.i+3, len(p.src))]), "?<!") {
		p.setUnknown("look-behind is not modelled")
		p.i += 3
	} else if p.i+1 < len(p.src) && p.src[p.i] == '?' && (p.src[p.i+1] == '=' || p.src[p.i+1] == '!') {
		p.setUnknown("look-ahead is not modelled")
		p.i += 2
	} else if p.i+1 < len(p.src) && p.src[p.i] == '?' && p.src[p.i+1] == ':' {
		p.i += 2
	} else if p.i+1 < len(p.src) && p.src[p.i] == '?' && p.src[p.i+1] == '<' {
		end := strings.IndexRune(string(p.src[p.i:]), '>')
		if end < 0 {
			return node{}, &Syntax{Msg: "invalid capture group name"}
		}
		p.i += len([]rune(string(p.src[p.i:])[:end+1]))
		p.groups++
	} else if p.i < len(p.src) && p.src[p.i] == '?' {
		p.setUnknown("a group modifier (?%c is not modelled", p.src[min(p.i+1, len(p.src)-1)])
		p.i++
	} else {
		p.groups++
	}
	alts, err := p.alternation(depth + 1)
	if err != nil {
		return node{}, err
	}
	if c, ok := p.peek(); !ok || c != ')' {
		return node{}, &Syntax{Msg: "unterminated group"}
	}
	p.i++
	var res []lattice.RE
	for _, a := range alts {
		r, err := p.plain(a)
		if err != nil {
			return node{}, err
		}
		res = append(res, r)
	}
	n := node{re: lattice.Alt(res...)}
	if len(res) == 1 {
		n.re = res[0]
	}
	return n, nil
}

// plain is a sequence inside a group: anchors there are not modelled
// (except that a group holding nothing but .* is still .*).
func (p *parser) plain(seq []node) (lattice.RE, error) {
	return p.sequence(seq, false)
}

// sequence builds the RE of a sequence of nodes, resolving \b from its
// neighbours. top says the sequence is a whole alternative whose ends the
// caller pads.
func (p *parser) sequence(seq []node, top bool) (lattice.RE, error) {
	var parts []lattice.RE
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		switch n.kind {
		case nStart, nEnd:
			p.setUnknown("an anchor (^ or $) inside a group or the middle of a pattern is not modelled")
			return lattice.Everything(), nil
		case nBoundary:
			r, ok := p.boundary(seq, i, top)
			if !ok {
				p.setUnknown(`\b where its neighbours do not decide it is not modelled`)
				return lattice.Everything(), nil
			}
			parts = append(parts, r)
			return lattice.Cat(parts...), nil
		}
		parts = append(parts, n.re)
	}
	if len(parts) == 0 {
		return lattice.RE{Op: lattice.REEmpty}, nil
	}
	return lattice.Cat(parts...), nil
}

// boundary is the RE of seq[i:] where seq[i] is \b: decided when the rune
// before it is a literal of one class and what follows starts with a
// literal (kept or ruled out), is .* (split into its two cases), or is
// the end of an alternative the caller pads with .*.
func (p *parser) boundary(seq []node, i int, top bool) (lattice.RE, bool) {
	if i == 0 || seq[i-1].kind != nRE || seq[i-1].cls == 0 {
		return lattice.RE{}, false
	}
	prev := seq[i-1].cls
	opp := lattice.Class(true, wordRanges...) // non-word
	if prev == 2 {
		opp = lattice.Class(false, wordRanges...)
	}
	rest := seq[i+1:]
	if !top && len(rest) == 0 {
		return lattice.RE{}, false // what follows the group decides it
	}
	if len(rest) == 0 || (len(rest) == 1 && rest[0].kind == nEnd) {
		// \b at the end: the end (when the rune before is a word rune) or
		// an opposite rune, then anything (the caller's padding).
		if len(rest) == 1 {
			if prev == 2 {
				return lattice.Alt(), true
			}
			return lattice.RE{Op: lattice.REEmpty}, true // \b$ after a word rune: just $
		}
		p.noPad = true // the rest is spelled out here: no padding after it
		if prev == 1 {
			return lattice.Alt(lattice.RE{Op: lattice.REEmpty}, lattice.Cat(opp, lattice.Everything())), true
		}
		return lattice.Cat(opp, lattice.Everything()), true
	}
	next := rest[0]
	switch {
	case next.kind == nRE && next.cls != 0:
		if next.cls == prev {
			return lattice.Alt(), true // no boundary between two runes of one class
		}
		r, err := p.sequence(rest, top)
		return r, err == nil
	case next.kind == nRE && next.star != nil:
		// \bC*R = a rune of C on the other side of the boundary, then C*R;
		// or (C* empty) \bR.
		first, ok := meet(opp, *next.star)
		if !ok {
			return lattice.RE{}, false
		}
		r1, err := p.sequence(rest, top)
		if err != nil {
			return lattice.RE{}, false
		}
		opp = first
		r2, ok := p.boundary(append(append([]node{seq[i-1]}, node{kind: nBoundary}), rest[1:]...), 1, top)
		if !ok {
			return lattice.RE{}, false
		}
		return lattice.Alt(lattice.Cat(opp, r1), r2), true
	}
	return lattice.RE{}, false
}

// meet intersects the class on the far side of a \b (word or non-word)
// with a class C (any rune, or a negated class disjoint from the word
// runes, such as . without the s flag); ok is false otherwise.
func meet(opp, c lattice.RE) (lattice.RE, bool) {
	if !c.Negate {
		return lattice.RE{}, false
	}
	for i := 0; i+1 < len(c.Ranges); i += 2 {
		for j := 0; j+1 < len(wordRanges); j += 2 {
			if c.Ranges[i] <= wordRanges[j+1] && wordRanges[j] <= c.Ranges[i+1] {
				return lattice.RE{}, false
			}
		}
	}
	if opp.Negate { // non-word ∩ ¬L = ¬(word ∪ L)
		return lattice.Class(true, append(append([]rune(nil), wordRanges...), c.Ranges...)...), true
	}
	return opp, true // word ∩ ¬L = word (L holds no word rune)
}

// anchor pads one top-level alternative: `.*` before unless it starts
// with ^, after unless it ends with $.
func (p *parser) anchor(seq []node) (lattice.RE, error) {
	start := len(seq) > 0 && seq[0].kind == nStart
	if start {
		seq = seq[1:]
	}
	end := false
	if n := len(seq); n > 0 && seq[n-1].kind == nEnd {
		// A trailing \b$ is resolved by boundary; a plain $ ends here.
		if !(n > 1 && seq[n-2].kind == nBoundary) {
			end = true
			seq = seq[:n-1]
		}
	}
	if p.sticky {
		start = true
	}
	if p.multiline && (start || end) {
		p.setUnknown("the m flag with ^ or $ is not modelled")
		return lattice.Everything(), nil
	}
	p.noPad = false
	body, err := p.sequence(seq, true)
	if err != nil {
		return lattice.RE{}, err
	}
	if p.noPad {
		end = true
	}
	// A trailing \b$ consumed the $.
	if n := len(seq); n > 1 && seq[n-1].kind == nEnd && seq[n-2].kind == nBoundary {
		end = true
	}
	parts := []lattice.RE{}
	if !start {
		parts = append(parts, lattice.Everything())
	}
	parts = append(parts, body)
	if !end {
		parts = append(parts, lattice.Everything())
	}
	return lattice.Cat(parts...), nil
}

func (p *parser) escape(inClass bool) (node, error) {
	c, ok := p.peek()
	if !ok {
		return node{}, &Syntax{Msg: `\ at end of pattern`}
	}
	p.i++
	switch c {
	case 'd':
		return node{re: lattice.Class(false, digitRanges...), cls: 1}, nil
	case 'D':
		return node{re: lattice.Class(true, digitRanges...)}, nil
	case 'w':
		return node{re: p.foldClass(false, wordRanges), cls: 1}, nil
	case 'W':
		return node{re: lattice.Class(true, wordRanges...), cls: 2}, nil
	case 's':
		return node{re: lattice.Class(false, spaceRanges...), cls: 2}, nil
	case 'S':
		return node{re: lattice.Class(true, spaceRanges...)}, nil
	case 'b':
		if inClass {
			return p.lit('\b'), nil
		}
		return node{kind: nBoundary}, nil
	case 'B':
		if inClass {
			return node{}, &Syntax{Msg: `invalid class escape \B`}
		}
		p.setUnknown(`\B is not modelled`)
		return node{re: lattice.Everything()}, nil
	case 't':
		return p.lit('\t'), nil
	case 'n':
		return p.lit('\n'), nil
	case 'r':
		return p.lit('\r'), nil
	case 'v':
		return p.lit('\v'), nil
	case 'f':
		return p.lit('\f'), nil
	case '0':
		if n, ok := p.peek(); ok && n >= '0' && n <= '9' {
			if p.unicode {
				return node{}, &Syntax{Msg: "invalid decimal escape"}
			}
			p.setUnknown("a legacy octal escape is not modelled")
		}
		return p.lit(0), nil
	case 'c':
		if n, ok := p.peek(); ok && ((n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z')) {
			p.i++
			return p.lit(n % 32), nil
		}
		if p.unicode {
			return node{}, &Syntax{Msg: "invalid unicode escape"}
		}
		p.i--
		return p.lit('\\'), nil
	case 'x':
		if r, ok := p.hex(2); ok {
			return p.lit(r), nil
		}
		if p.unicode {
			return node{}, &Syntax{Msg: "invalid escape"}
		}
		return p.lit('x'), nil
	case 'u':
		if p.unicode {
			if n, ok := p.peek(); ok && n == '{' {
				end := strings.IndexRune(string(p.src[p.i:]), '}')
				if end < 0 {
					return node{}, &Syntax{Msg: "invalid unicode escape"}
				}
				v, err := strconv.ParseUint(string(p.src[p.i+1:p.i+len([]rune(string(p.src[p.i:])[:end]))]), 16, 32)
				if err != nil || v > unicode.MaxRune {
					return node{}, &Syntax{Msg: "invalid unicode escape"}
				}
				p.i += len([]rune(string(p.src[p.i:])[:end+1]))
				return p.lit(rune(v)), nil
			}
		}
		if r, ok := p.hex(4); ok {
			return p.lit(r), nil
		}
		if p.unicode {
			return node{}, &Syntax{Msg: "invalid unicode escape"}
		}
		return p.lit('u'), nil
	case 'k':
		if p.groups > 0 || strings.Contains(string(p.src), "(?<") || p.unicode {
			p.setUnknown("a backreference is not regular")
			return node{re: lattice.Everything()}, nil
		}
		return p.lit('k'), nil
	case 'p', 'P':
		if p.unicode {
			p.setUnknown(`a Unicode property escape \p is not modelled`)
			if n, ok := p.peek(); ok && n == '{' {
				if end := strings.IndexRune(string(p.src[p.i:]), '}'); end >= 0 {
					p.i += len([]rune(string(p.src[p.i:])[:end+1]))
				}
			}
			return node{re: lattice.AnyRune()}, nil
		}
		return p.lit(c), nil
	}
	if c >= '1' && c <= '9' && inClass {
		if p.unicode {
			return node{}, &Syntax{Msg: "invalid class escape"}
		}
		p.setUnknown("a legacy octal escape is not modelled")
		return p.lit(c), nil
	}
	if c >= '1' && c <= '9' {
		// A backreference when that many groups exist (anywhere in the
		// pattern); else a legacy octal or identity escape.
		p.setUnknown("a backreference (or legacy octal escape) is not regular")
		return node{re: lattice.Everything()}, nil
	}
	if p.unicode && !strings.ContainsRune(`^$\.*+?()[]{}|/-`, c) {
		return node{}, &Syntax{Msg: "invalid escape"}
	}
	return p.lit(c), nil
}

func (p *parser) hex(n int) (rune, bool) {
	if p.i+n > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.src[p.i:p.i+n]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += n
	return rune(v), true
}

func (p *parser) foldClass(neg bool, ranges []rune) lattice.RE {
	if !p.fold || neg {
		return lattice.Class(neg, ranges...)
	}
	out := append([]rune(nil), ranges...)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		// ASCII letters fold by offset; other runes one by one (bounded).
		for _, pair := range [][2]rune{{'a', 'z'}, {'A', 'Z'}} {
			a, b := max(lo, pair[0]), min(hi, pair[1])
			if a <= b {
				d := rune('a' - 'A')
				if pair[0] == 'a' {
					d = -d
				}
				out = append(out, a+d, b+d)
			}
		}
		if hi-lo < 256 {
			for r := max(lo, 128); r <= hi; r++ {
				for _, v := range caseVariants(r) {
					out = append(out, v, v)
				}
			}
		}
	}
	return lattice.Class(false, out...)
}

// class reads a character class after '['.
func (p *parser) class() (node, error) {
	neg := false
	if c, ok := p.peek(); ok && c == '^' {
		neg = true
		p.i++
	}
	var ranges []rune
	cls := 0
	set := func(c int) {
		if cls == 0 {
			cls = c
		} else if cls != c {
			cls = -1
		}
	}
	var negParts []lattice.RE
	for {
		c, ok := p.peek()
		if !ok {
			return node{}, &Syntax{Msg: "unterminated character class"}
		}
		if c == ']' {
			p.i++
			break
		}
		lo, single, err := p.classAtom()
		if err != nil {
			return node{}, err
		}
		if !single.isRune {
			if single.negated {
				negParts = append(negParts, single.re)
				cls = -1
			} else {
				ranges = append(ranges, single.ranges...)
				set(single.cls)
			}
			continue
		}
		hi := lo
		if c, ok := p.peek(); ok && c == '-' && p.i+1 < len(p.src) && p.src[p.i+1] != ']' {
			p.i++
			h, hs, err := p.classAtom()
			if err != nil {
				return node{}, err
			}
			if !hs.isRune {
				if p.unicode {
					return node{}, &Syntax{Msg: "invalid character class"}
				}
				ranges = append(ranges, lo, lo, '-', '-')
				ranges = append(ranges, hs.ranges...)
				cls = -1
				continue
			}
			if h < lo {
				return node{}, &Syntax{Msg: "range out of order in character class"}
			}
			hi = h
		}
		ranges = append(ranges, lo, hi)
		for r := lo; r <= hi && r-lo < 64; r++ {
			set(classOf(r))
		}
		if hi-lo >= 64 {
			cls = -1
		}
	}
	if len(negParts) > 0 {
		// [\W\d] and the like: a union with negated sets.
		if neg {
			p.setUnknown("a negated class holding a negated escape is not modelled")
			return node{re: lattice.AnyRune()}, nil
		}
		alts := append([]lattice.RE{p.foldClass(false, ranges)}, negParts...)
		return node{re: lattice.Alt(alts...)}, nil
	}
	if p.fold {
		r := p.foldClass(false, ranges)
		if neg {
			r = lattice.Class(true, r.Ranges...)
		}
		return node{re: r}, nil
	}
	n := node{re: lattice.Class(neg, ranges...)}
	if !neg && cls > 0 {
		n.cls = cls
	}
	return n, nil
}

type classPart struct {
	isRune  bool
	negated bool
	ranges  []rune
	re      lattice.RE
	cls     int
}

func (p *parser) classAtom() (rune, classPart, error) {
	c := p.src[p.i]
	p.i++
	if c != '\\' {
		return c, classPart{isRune: true}, nil
	}
	e, ok := p.peek()
	if !ok {
		return 0, classPart{}, &Syntax{Msg: `\ at end of pattern`}
	}
	switch e {
	case 'd', 'w', 's':
		p.i++
		rs := map[rune][]rune{'d': digitRanges, 'w': wordRanges, 's': spaceRanges}[e]
		cl := 1
		if e == 's' {
			cl = 2
		}
		return 0, classPart{ranges: rs, cls: cl}, nil
	case 'D', 'W', 'S':
		p.i++
		rs := map[rune][]rune{'D': digitRanges, 'W': wordRanges, 'S': spaceRanges}[e]
		return 0, classPart{negated: true, re: lattice.Class(true, rs...)}, nil
	case 'b':
		p.i++
		return '\b', classPart{isRune: true}, nil
	case '-':
		p.i++
		return '-', classPart{isRune: true}, nil
	}
	n, err := p.escape(true)
	if err != nil {
		return 0, classPart{}, err
	}
	if n.re.Op == lattice.RELiteral {
		r := []rune(n.re.Text)
		if len(r) == 1 {
			return r[0], classPart{isRune: true}, nil
		}
	}
	if n.re.Op == lattice.REClass && !n.re.Negate && len(n.re.Ranges) >= 2 {
		// A folded rune: keep its first case as the range end.
		return n.re.Ranges[0], classPart{isRune: true}, nil
	}
	p.setUnknown("an escape inside a character class is not modelled")
	return 0, classPart{ranges: []rune{0, unicode.MaxRune}}, nil
}
