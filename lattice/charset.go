package lattice

import (
	"slices"
	"sync"
	"unicode"
)

// span is a closed interval of runes.
type span struct{ lo, hi rune }

// charset is a set of runes: the union of its spans, or its complement when
// neg is set. The zero value is the empty set; anyChar is every rune.
type charset struct {
	spans []span
	neg   bool
}

var (
	anyChar   = charset{neg: true}
	noChar    = charset{}
	notSlash  = charset{spans: []span{{'/', '/'}}, neg: true}
	notDot    = charset{spans: []span{{'.', '.'}}, neg: true}
	maxRune   = rune(unicode.MaxRune)
	spaceChar = single(' ')
)

// single is the set holding one rune.
func single(r rune) charset {
	if r >= 0 && r < 128 {
		return asciiSingles[r]
	}
	return charset{spans: []span{{r, r}}}
}

// asciiSingles shares the one-rune sets of ASCII: rules are mostly ASCII,
// and compiling one allocates no set per character.
var asciiSingles = func() (t [128]charset) {
	spans := make([]span, 128)
	for i := range t {
		spans[i] = span{rune(i), rune(i)}
		t[i] = charset{spans: spans[i : i+1 : i+1]}
	}
	return t
}()

// has reports whether r is in the set.
func (c charset) has(r rune) bool {
	in := false
	for _, s := range c.spans {
		if r >= s.lo && r <= s.hi {
			in = true
			break
		}
	}
	return in != c.neg
}

// equal reports whether two charsets are spelled the same way.
func (c charset) equal(d charset) bool {
	return c.neg == d.neg && slices.Equal(c.spans, d.spans)
}

// isEmpty reports whether the set holds no rune.
func (c charset) isEmpty() bool { return !c.neg && len(c.spans) == 0 }

// minus returns c without the runes of d (d given by spans, not negated).
func (c charset) minus(d charset) charset {
	if c.neg && !d.neg {
		// complement(A) \ B = complement(A ∪ B)
		out := charset{neg: true, spans: append(append([]span(nil), c.spans...), d.spans...)}
		return out
	}
	// Positive set minus a set: filter span by span.
	var out []span
	for _, s := range c.spans {
		lo := s.lo
		for lo <= s.hi {
			if d.has(lo) {
				lo++
				continue
			}
			hi := lo
			for hi < s.hi && !d.has(hi+1) {
				hi++
			}
			out = append(out, span{lo, hi})
			lo = hi + 1
		}
	}
	return charset{spans: out}
}

// boundaries appends to dst every rune at which membership in c may change:
// for each span, its low end and one past its high end. Splitting the rune
// line at these points yields intervals on which c is constant.
func (c charset) boundaries(dst []rune) []rune {
	for _, s := range c.spans {
		dst = append(dst, s.lo)
		if s.hi < maxRune {
			dst = append(dst, s.hi+1)
		}
	}
	return dst
}

// witnessPreference lists the runes a witness prefers, in order, when an
// interval of equivalent runes must be rendered by one of them: readable
// letters first, then digits and path punctuation.
const witnessPreference = "xabcdefghijklmnopqrstuvwyz0123456789-._/ ~:=@+,"

var (
	preferred = []rune(witnessPreference)
	// bestASCII[lo][hi] is the first rune of witnessPreference within
	// [lo, hi], or 0 when none is.
	bestASCII = func() (t [128][128]uint8) {
		for lo := 0; lo < 128; lo++ {
			for hi := lo; hi < 128; hi++ {
				for _, r := range witnessPreference {
					if int(r) >= lo && int(r) <= hi {
						t[lo][hi] = uint8(r)
						break
					}
				}
			}
		}
		return t
	}()
	asciiRank = func() (t [128]int8) {
		for i, r := range preferred {
			t[r] = int8(i + 1)
		}
		return t
	}()
)

// representative picks the most readable rune of [lo, hi].
func representative(lo, hi rune) rune {
	if lo == hi {
		return lo
	}
	if lo < 128 {
		// Every preferred rune is ASCII: the table answers for the ASCII
		// part of the interval.
		if r := bestASCII[lo][min(hi, 127)]; r != 0 {
			return rune(r)
		}
	}
	// The first printable, non-blank rune among the interval's first 256:
	// one binary search over the printable spans instead of up to 256
	// table lookups (a hostile rule's runes spread over unassigned planes
	// made this loop most of a comparison's time).
	end := min(hi, lo+255)
	ps := printSpans()
	i, _ := slices.BinarySearchFunc(ps, lo, func(s span, r rune) int {
		if s.hi < r {
			return -1
		}
		return 1
	})
	if i < len(ps) {
		if r := max(lo, ps[i].lo); r <= end {
			return r
		}
	}
	return lo
}

// printSpans are the runes for which unicode.IsPrint holds and
// unicode.IsSpace does not (the categories L, M, N, P and S), as sorted,
// disjoint, non-adjacent spans; built once, on first use.
var printSpans = sync.OnceValue(func() []span {
	var all []span
	for _, t := range []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S} {
		for _, r := range t.R16 {
			all = appendRange(all, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			all = appendRange(all, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	slices.SortFunc(all, func(a, b span) int { return int(a.lo - b.lo) })
	var out []span
	for _, s := range all {
		if n := len(out); n > 0 && s.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
})

// appendRange appends the runes lo, lo+stride, …, hi as spans.
func appendRange(out []span, lo, hi, stride rune) []span {
	if stride == 1 {
		return append(out, span{lo, hi})
	}
	for r := lo; r <= hi; r += stride {
		out = append(out, span{r, r})
	}
	return out
}

// runeRank orders representatives so that the breadth-first search tries
// readable runes first, and among equally short witnesses returns the most
// readable one.
func runeRank(r rune) int {
	if r < 128 && asciiRank[r] > 0 {
		return int(asciiRank[r]) - 1
	}
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return 100 + int(r)%1000
	case unicode.IsPrint(r) && r < 128:
		return 2000 + int(r)
	case unicode.IsPrint(r):
		return 3000 + int(r)%100000
	default:
		return 200000 + int(r)%100000
	}
}
