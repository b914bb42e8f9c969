package lattice

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// A machine is a nondeterministic automaton over runes in "position" form:
// states are the positions 0..n of a token sequence, and a set of states is a
// bit vector. From position i the machine may advance to i+1 on a rune of
// adv[i], stay at i on a rune of loop[i], and follow epsilon edges i→i+shift.
// Every language Shipgate reads from a rule (a Bash glob, a gitignore path
// pattern, a host pattern, a tool-name glob) compiles to one, and inclusion
// between two of them is decided by a breadth-first product search over
// their state sets (search.go). Bit-parallel steps keep that search cheap:
// rules are short, so most machines fit one 64-bit word.
type machine struct {
	n      int // number of states (positions)
	words  int // uint64 words per state set
	start  []uint64
	accept []uint64
	eps    []epsRule
	sets   []setMasks // distinct charsets with the positions using them
	bounds []rune     // sorted starts of the rune intervals on which every charset is constant
	// univ holds the positions from which every continuation is accepted
	// (an accepting position that loops on every rune is reachable by
	// epsilon edges): a state containing one can never be escaped, which
	// prunes most of the search when this machine must reject.
	univ []uint64
	// ivAdv and ivLoop hold, per interval of bounds, the positions that
	// advance and loop on any rune of that interval (words per interval).
	ivAdv, ivLoop []uint64
	loops         bool // whether any position loops (the language may be infinite)
	// prefix is the literal text every accepted word starts with, suffix
	// the one every accepted word ends with: two machines whose prefixes
	// (or suffixes) differ share no word, which rules most pairs out of a
	// set question before any search.
	prefix, suffix string
	// required is the longest literal text every accepted word contains
	// (prefix and suffix are special cases): a call whose argument lacks
	// it cannot match, which a set question checks before running the
	// machine.
	required string
	// inner is the longest such text past the literal prefix (""
	// when none): what a set of rules sharing their prefix is indexed by.
	inner string
	// asciiIv[r] is the interval of an ASCII rune r, so that run needs no
	// binary search on the common text.
	asciiIv [128]uint16
	// oneShot is set when no epsilon edge lands on a position that has an
	// epsilon edge itself: one pass over the rules then closes any set.
	oneShot bool
	// For machines of one word: epsFrom holds the positions with an
	// epsilon edge, and clos1[p] the epsilon closure of position p, so that
	// closing a state set costs one OR per set bit that has an edge instead
	// of passes over the edges until nothing changes (the hot loop of every
	// search).
	epsFrom uint64
	clos1   []uint64
	// For wider machines the same, sparse: epsFromW marks the positions
	// with an epsilon edge, closW holds each one's closure (words per
	// position, in position order), closAt maps a position to its row.
	epsFromW []uint64
	closW    []uint64
	closAt   []int32
}

// epsRule is every epsilon edge of one shift amount: positions in mask move
// by shift (negative shifts are back edges, used for repetition).
type epsRule struct {
	shift int
	mask  []uint64
}

// setMasks records, for one distinct charset, the positions that advance on
// it and the positions that loop on it.
type setMasks struct {
	cs   charset
	adv  []uint64
	loop []uint64
}

// builder assembles a machine token by token.
type builder struct {
	adv    []charset // adv[i]: advance from position i
	loop   []charset // loop[i]: stay at position i
	eps    [][2]int  // from, to
	accept []int
}

func newBuilder() *builder {
	b := &builder{adv: make([]charset, 1, 12), loop: make([]charset, 1, 12)}
	return b
}

// pos is the current last position.
func (b *builder) pos() int { return len(b.adv) - 1 }

// char appends a token matching one rune of cs.
func (b *builder) char(cs charset) {
	b.adv[b.pos()] = cs
	b.adv = append(b.adv, noChar)
	b.loop = append(b.loop, noChar)
}

// lit appends the runes of s as literal tokens.
func (b *builder) lit(s string) {
	for _, r := range s {
		b.char(single(r))
	}
}

// star appends a token matching any number (zero included) of runes of cs.
func (b *builder) star(cs charset) {
	p := b.pos()
	b.loop[p] = cs
	b.adv = append(b.adv, noChar)
	b.loop = append(b.loop, noChar)
	b.epsilon(p, p+1)
}

// epsilon adds an epsilon edge between two positions.
func (b *builder) epsilon(from, to int) { b.eps = append(b.eps, [2]int{from, to}) }

// acceptHere marks the current position accepting.
func (b *builder) acceptHere() { b.accept = append(b.accept, b.pos()) }

// build freezes the builder into a machine. The last position always accepts.
func (b *builder) build() *machine {
	n := len(b.adv)
	w := (n + 63) / 64
	m := &machine{n: n, words: w, prefix: b.literalPrefix(), suffix: b.literalSuffix(), required: b.requiredLiteral(), inner: b.innerLiteral()}
	// One backing array for the fixed-size vectors: accept, start, univ.
	vecs := make([]uint64, 3*w)
	m.accept, m.start, m.univ = vecs[:w:w], vecs[w:2*w:2*w], vecs[2*w:]
	setBit(m.accept, n-1)
	for _, a := range b.accept {
		setBit(m.accept, a)
	}
	for _, e := range b.eps {
		s := e[1] - e[0]
		if s == 0 {
			continue
		}
		j := slices.IndexFunc(m.eps, func(r epsRule) bool { return r.shift == s })
		if j < 0 {
			j = len(m.eps)
			m.eps = append(m.eps, epsRule{shift: s, mask: make([]uint64, w)})
		}
		setBit(m.eps[j].mask, e[0])
	}
	// oneShot: no epsilon edge lands on a position with an edge of its own
	// (one pass over the edges, not every pair of them).
	m.oneShot = true
	from := make([]bool, n)
	for _, e := range b.eps {
		from[e[0]] = true
	}
	for _, e := range b.eps {
		if from[e[1]] {
			m.oneShot = false
		}
	}
	// Distinct charsets first, so their masks share one allocation.
	var distinct []charset
	index := func(cs charset) int {
		for j := range distinct {
			if distinct[j].equal(cs) {
				return j
			}
		}
		distinct = append(distinct, cs)
		return len(distinct) - 1
	}
	advIdx := make([]int, 2*n)
	loopIdx := advIdx[n:]
	advIdx = advIdx[:n]
	for i := 0; i < n; i++ {
		advIdx[i], loopIdx[i] = -1, -1
		if !b.adv[i].isEmpty() {
			advIdx[i] = index(b.adv[i])
		}
		if !b.loop[i].isEmpty() {
			loopIdx[i] = index(b.loop[i])
			m.loops = true
		}
	}
	masks := make([]uint64, 2*w*len(distinct))
	m.sets = make([]setMasks, len(distinct))
	for j, cs := range distinct {
		m.sets[j] = setMasks{cs: cs, adv: masks[2*j*w : (2*j+1)*w : (2*j+1)*w], loop: masks[(2*j+1)*w : (2*j+2)*w]}
		m.bounds = cs.boundaries(m.bounds)
	}
	for i := 0; i < n; i++ {
		if j := advIdx[i]; j >= 0 {
			setBit(m.sets[j].adv, i)
		}
		if j := loopIdx[i]; j >= 0 {
			setBit(m.sets[j].loop, i)
		}
	}
	m.bounds = append(m.bounds, 0)
	slices.Sort(m.bounds)
	m.bounds = slices.Compact(m.bounds)
	if len(m.bounds) < 1<<16 {
		// One walk over the sorted bounds (bounds[0] is 0).
		iv := 0
		for r := range m.asciiIv {
			for iv+1 < len(m.bounds) && m.bounds[iv+1] <= rune(r) {
				iv++
			}
			m.asciiIv[r] = uint16(iv)
		}
	}
	iv := make([]uint64, 2*w*len(m.bounds))
	m.ivAdv, m.ivLoop = iv[:w*len(m.bounds)], iv[w*len(m.bounds):]
	for i, lo := range m.bounds {
		for _, set := range m.sets {
			if !set.cs.has(lo) {
				continue
			}
			for x := 0; x < w; x++ {
				m.ivAdv[i*w+x] |= set.adv[x]
				m.ivLoop[i*w+x] |= set.loop[x]
			}
		}
	}
	if w == 1 && len(m.eps) > 0 {
		// Computed with the general closure, before clos1 is set.
		clos := make([]uint64, n)
		for i := 0; i < n; i++ {
			v := []uint64{1 << uint(i)}
			m.closure(v)
			clos[i] = v[0]
			if v[0] != 1<<uint(i) {
				m.epsFrom |= 1 << uint(i)
			}
		}
		m.clos1 = clos
	}
	if w > 1 && len(m.eps) > 0 {
		// Computed with the general closure, before closW is set; skipped
		// when the table would be large (the general closure remains).
		from := make([]uint64, w)
		srcs := 0
		for _, e := range b.eps {
			if e[0] != e[1] && from[e[0]/64]&(1<<(uint(e[0])%64)) == 0 {
				setBit(from, e[0])
				srcs++
			}
		}
		if srcs*w <= 1<<20 {
			reach := epsReach(n, w, b.eps)
			closW := make([]uint64, 0, srcs*w)
			at := make([]int32, n)
			for i := 0; i < n; i++ {
				if from[i/64]&(1<<(uint(i)%64)) == 0 {
					continue
				}
				at[i] = int32(len(closW))
				closW = append(closW, reach(i)...)
			}
			m.epsFromW, m.closW, m.closAt = from, closW, at
		}
	}
	setBit(m.start, 0)
	m.closure(m.start)
	// A sink loops on every rune and reaches acceptance by epsilon edges:
	// once there, every continuation is accepted. A position is universal
	// when its closure holds a sink.
	var sink, one []uint64
	for i := 0; i < n; i++ {
		if b.loop[i].neg && len(b.loop[i].spans) == 0 {
			if one == nil {
				one = make([]uint64, w)
				sink = make([]uint64, w)
			}
			clear(one)
			setBit(one, i)
			m.closure(one)
			if intersects(one, m.accept) {
				setBit(sink, i)
			}
		}
	}
	if sink != nil && !isZero(sink) {
		for i := 0; i < n; i++ {
			clear(one)
			setBit(one, i)
			m.closure(one)
			if intersects(one, sink) {
				setBit(m.univ, i)
			}
		}
	}
	return m
}

// literalSuffix returns the text every word of the builder's language ends
// with: the literal runes read on the way into the last position once no
// choice remains. Positions t..n-1 are a literal tail when only the last one
// accepts and no epsilon edge or loop touches t+1..n-1: a word can then only
// end by reading adv[t], ..., adv[n-2] from position t.
func (b *builder) literalSuffix() string {
	n := len(b.adv)
	for _, a := range b.accept {
		if a != n-1 {
			return ""
		}
	}
	touched := make([]bool, n)
	for _, e := range b.eps {
		touched[e[0]], touched[e[1]] = true, true
	}
	t := n - 1
	for t > 0 {
		cs := b.adv[t-1]
		if touched[t] || !b.loop[t].isEmpty() || cs.neg || len(cs.spans) != 1 || cs.spans[0].lo != cs.spans[0].hi {
			break
		}
		t--
	}
	var sb strings.Builder
	for p := t; p < n-1; p++ {
		sb.WriteRune(b.adv[p].spans[0].lo)
	}
	return sb.String()
}

// requiredLiteral returns the longest run of literal runes every word of
// the builder's language reads in sequence. The gap between positions i
// and i+1 is clean when no epsilon edge crosses it; a word then crosses it
// by reading adv[i]. A run of clean gaps over single-rune tokens, with no
// loop inside and no accepting position before its end, is read by every
// accepted word.
func (b *builder) requiredLiteral() string { return b.longestRun(false) }

// innerLiteral is requiredLiteral among the runs after the literal prefix:
// the longest text every word contains past its first loop or choice, ""
// when there is none. Rules sharing a prefix ("git ") differ there, so a
// set of them is indexed by it (index.go).
func (b *builder) innerLiteral() string { return b.longestRun(true) }

// longestRun finds the longest literal run every word reads (see
// requiredLiteral), past the literal prefix when pastPrefix is set.
func (b *builder) longestRun(pastPrefix bool) string {
	n := len(b.adv)
	if n < 2 {
		return ""
	}
	firstAccept := n - 1
	for _, a := range b.accept {
		firstAccept = min(firstAccept, a)
	}
	// crossing[i] counts epsilon edges over gap i (a difference array).
	crossing := make([]int, n+1)
	for _, e := range b.eps {
		lo, hi := min(e[0], e[1]), max(e[0], e[1])
		crossing[lo]++
		crossing[hi]--
	}
	bestLo, bestLen := 0, 0
	runLo, depth := -1, 0
	for i := 0; i < n-1; i++ {
		depth += crossing[i]
		cs := b.adv[i]
		ok := depth == 0 && !cs.neg && len(cs.spans) == 1 && cs.spans[0].lo == cs.spans[0].hi && i+1 <= firstAccept
		if ok && runLo >= 0 && !b.loop[i].isEmpty() {
			runLo = -1 // a loop inside the run breaks it; a new run starts here
		}
		if !ok {
			runLo = -1
			continue
		}
		if runLo < 0 {
			runLo = i
		}
		if l := i + 1 - runLo; l > bestLen && !(pastPrefix && runLo == 0) {
			bestLo, bestLen = runLo, l
		}
	}
	var sb strings.Builder
	for i := bestLo; i < bestLo+bestLen; i++ {
		sb.WriteRune(b.adv[i].spans[0].lo)
	}
	return sb.String()
}

// interval returns the index of the interval of m.bounds holding r.
func (m *machine) interval(r rune) int {
	i, ok := slices.BinarySearch(m.bounds, r)
	if !ok {
		i--
	}
	return i
}

func setBit(v []uint64, i int) { v[i/64] |= 1 << (uint(i) % 64) }

func isZero(v []uint64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func intersects(a, b []uint64) bool {
	for i := range a {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}

// epsReach returns, for a position, the positions its epsilon edges
// reach (itself included) as a w-word row: what m.closure computes for
// that one bit, the least fixed point of the shift rules. It is worked out
// on the edge graph instead, one strongly connected component at a time in
// reverse topological order (Tarjan), each row the union of its
// successors' rows: linear in the edges, where a fixed point per source
// costs sources × rounds × rules × words (a launcher's template, built on
// a process's first rating, spent 15 ms of `shipgate check`'s 26 there).
func epsReach(n, w int, eps [][2]int) func(i int) []uint64 {
	succ := make([][]int32, n)
	for _, e := range eps {
		if e[0] != e[1] {
			succ[e[0]] = append(succ[e[0]], int32(e[1]))
		}
	}
	const unseen = -1
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	for i := range index {
		index[i], comp[i] = unseen, unseen
	}
	var rows [][]uint64 // one per component, in completion order
	var stack []int32
	next := int32(0)
	var visit func(v int32)
	visit = func(v int32) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		for _, u := range succ[v] {
			switch {
			case index[u] == unseen:
				visit(u)
				low[v] = min(low[v], low[u])
			case comp[u] == unseen: // on the stack
				low[v] = min(low[v], index[u])
			}
		}
		if low[v] != index[v] {
			return
		}
		c := int32(len(rows))
		row := make([]uint64, w)
		var members []int32
		for {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp[u] = c
			members = append(members, u)
			setBit(row, int(u))
			if u == v {
				break
			}
		}
		// Successors outside the component completed before it.
		for _, u := range members {
			for _, x := range succ[u] {
				if cx := comp[x]; cx != c {
					for k, word := range rows[cx] {
						row[k] |= word
					}
				}
			}
		}
		rows = append(rows, row)
	}
	return func(i int) []uint64 {
		if index[i] == unseen {
			visit(int32(i))
		}
		return rows[comp[i]]
	}
}

// orShifted sets dst |= (src & mask) shifted by s bits (towards higher
// positions for s > 0), and reports whether dst changed.
func orShifted(dst, src, mask []uint64, s int) bool {
	n := len(dst)
	if n == 1 {
		v := src[0] & mask[0]
		if s > 0 {
			v <<= uint(s)
		} else {
			v >>= uint(-s)
		}
		old := dst[0]
		dst[0] |= v
		return dst[0] != old
	}
	changed := false
	if s > 0 {
		q, r := s/64, uint(s%64)
		for i := n - 1; i >= q; i-- {
			v := (src[i-q] & mask[i-q]) << r
			if r != 0 && i-q-1 >= 0 {
				v |= (src[i-q-1] & mask[i-q-1]) >> (64 - r)
			}
			if v&^dst[i] != 0 {
				dst[i] |= v
				changed = true
			}
		}
		return changed
	}
	q, r := (-s)/64, uint((-s)%64)
	for i := 0; i+q < n; i++ {
		v := (src[i+q] & mask[i+q]) >> r
		if r != 0 && i+q+1 < n {
			v |= (src[i+q+1] & mask[i+q+1]) << (64 - r)
		}
		if v&^dst[i] != 0 {
			dst[i] |= v
			changed = true
		}
	}
	return changed
}

// closure adds to v every state reachable through epsilon edges.
func (m *machine) closure(v []uint64) {
	if len(m.eps) == 0 {
		return
	}
	if m.clos1 != nil {
		for x := v[0] & m.epsFrom; x != 0; x &= x - 1 {
			v[0] |= m.clos1[bits.TrailingZeros64(x)]
		}
		return
	}
	if m.closW != nil && m.closeSparse(v) {
		return
	}
	if m.words == 1 {
		for {
			v0 := v[0]
			add := uint64(0)
			for _, e := range m.eps {
				if e.shift > 0 {
					add |= (v0 & e.mask[0]) << uint(e.shift)
				} else {
					add |= (v0 & e.mask[0]) >> uint(-e.shift)
				}
			}
			v[0] = v0 | add
			if m.oneShot || v[0] == v0 {
				return
			}
		}
	}
	for {
		changed := false
		for _, e := range m.eps {
			if orShifted(v, v, e.mask, e.shift) {
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

// closeSparse closes v as the union of its positions' closures when few
// of its positions have epsilon edges (a long literal with a star or two);
// with many (a pattern of many stars) the passes over the edges are
// cheaper, and it reports false without touching v.
func (m *machine) closeSparse(v []uint64) bool {
	const most = 4
	var srcs [most]int
	k := 0
	for i, x := range v {
		for x &= m.epsFromW[i]; x != 0; x &= x - 1 {
			if k == most {
				return false
			}
			srcs[k] = i*64 + bits.TrailingZeros64(x)
			k++
		}
	}
	w := m.words
	for _, p := range srcs[:k] {
		o := int(m.closAt[p])
		row := m.closW[o : o+w]
		for i := range v {
			v[i] |= row[i]
		}
	}
	return true
}

// step1 is stepRaw for a machine whose states fit one word.
func (m *machine) step1(c, adv, loop uint64) uint64 {
	v := (c&adv)<<1 | c&loop
	for x := v & m.epsFrom; x != 0; x &= x - 1 {
		v |= m.clos1[bits.TrailingZeros64(x)]
	}
	return v
}

// stepRaw computes into dst the states reached from cur, given the masks
// of the positions that advance and loop on the symbol read.
func (m *machine) stepRaw(dst, cur, adv, loop []uint64) {
	if m.words == 1 {
		dst[0] = (cur[0]&adv[0])<<1 | cur[0]&loop[0]
	} else {
		var carry uint64
		for i := range dst {
			a := cur[i] & adv[i]
			dst[i] = a<<1 | carry | cur[i]&loop[i]
			carry = a >> 63
		}
	}
	m.closure(dst)
}

// run simulates the machine on s and reports acceptance.
func (m *machine) run(s string) bool {
	w := m.words
	if w == 1 {
		// One word: no buffers.
		cur := m.start[0]
		ascii := len(m.bounds) < 1<<16
		for _, r := range s {
			var i int
			if r < 128 && ascii {
				i = int(m.asciiIv[r])
			} else {
				i = m.interval(r)
			}
			if cur = m.step1(cur, m.ivAdv[i], m.ivLoop[i]); cur == 0 {
				return false
			}
		}
		return cur&m.accept[0] != 0
	}
	cur := make([]uint64, w)
	if m.prefix != "" {
		// The literal prefix is read deterministically: after k of its
		// runes the state is position k.
		k, rest, agree := commonRunes(m.prefix, s)
		if !agree {
			return false
		}
		setBit(cur, k)
		m.closure(cur)
		s = rest
	} else {
		copy(cur, m.start)
	}
	next := make([]uint64, w)
	for _, r := range s {
		i := m.interval(r)
		m.stepRaw(next, cur, m.ivAdv[i*w:(i+1)*w], m.ivLoop[i*w:(i+1)*w])
		if isZero(next) {
			return false
		}
		cur, next = next, cur
	}
	return intersects(cur, m.accept)
}

// literalUnion compiles a set of literal words (the exact calls a search
// looks past) into as few one-word machines as it can: a trie per chunk of
// the sorted words, each word's end accepting. Their union language is the
// words' — every word, and nothing else — so a search that must avoid them
// finds what it finds with one machine per word, with the same alphabet
// (the machines' rune boundaries are the words' runes either way), but
// steps one machine instead of one per word. A word too long for one
// machine word keeps a machine of its own.
func literalUnion(words []string) []*machine {
	words = slices.Clone(words)
	slices.Sort(words)
	words = slices.Compact(words)
	var out []*machine
	var chunk []string
	flush := func() {
		if len(chunk) > 0 {
			out = append(out, trieMachine(chunk))
			chunk = nil
		}
	}
	for _, w := range words {
		if trieSize(append(chunk, w)) > 64 {
			flush()
		}
		chunk = append(chunk, w)
	}
	flush()
	return out
}

// trieSize is the number of positions trieMachine lays out for words
// (sorted, distinct): one per rune of the trie's edges, one gap per branch
// after the first, and the start.
func trieSize(words []string) int {
	n := 1
	for i, w := range words {
		common := 0
		if i > 0 {
			common = commonPrefixRunes(words[i-1], w)
			n++ // the gap that starts this branch
		}
		n += utf8.RuneCountInString(w) - common
	}
	return n
}

// commonPrefixRunes is the number of whole runes two strings start with.
func commonPrefixRunes(a, b string) int {
	k := 0
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb || na != nb || a[:na] != b[:nb] {
			break
		}
		a, b, k = a[na:], b[nb:], k+1
	}
	return k
}

// trieMachine is the machine of a trie of sorted, distinct words: from the
// position where several words part, an epsilon edge leads to a gap
// position that starts each further branch (the gap never advances, so no
// branch runs into the next one); each word's end accepts.
func trieMachine(words []string) *machine {
	b := newBuilder()
	var emit func(ws []string, depth int)
	emit = func(ws []string, depth int) {
		// ws share their first depth bytes; the position reads them.
		if len(ws[0]) == depth {
			b.acceptHere()
			ws = ws[1:]
		}
		start := b.pos()
		for i := 0; i < len(ws); {
			r, size := utf8.DecodeRuneInString(ws[i][depth:])
			j := i + 1
			for j < len(ws) && strings.HasPrefix(ws[j][depth:], ws[i][depth:depth+size]) {
				j++
			}
			if i > 0 {
				b.char(noChar)
				b.epsilon(start, b.pos())
			}
			b.char(single(r))
			emit(ws[i:j], depth+size)
			i = j
		}
	}
	emit(words, 0)
	return b.build()
}
