package lattice

import (
	"context"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxSearchStates and maxArenaWords bound the memory of the product search
// (the time is bounded by the Budget, budget.go). Rules are short, so real
// pairs explore tens of states; a pattern that needs more is pathological,
// and the comparison answers Unknown with a reason rather than spending
// unbounded memory (the fuzz targets hold these bounds).
const (
	maxSearchStates = 1 << 16
	maxArenaWords   = 1 << 22 // 32 MiB of state vectors
)

// maxMachineStates bounds a single compiled language.
const maxMachineStates = 4096

// searchResult is the outcome of looking for a word.
type searchResult int

const (
	notFound searchResult = iota // no word exists: the inclusion holds
	found                        // a word was found (the witness)
	gaveUp                       // the bound was hit before an answer
)

// searcher holds the buffers of one search, reused through a pool so that
// the common comparison allocates almost nothing.
type searcher struct {
	machines []*machine
	offs     []int
	cursor   []int    // per machine: current interval while merging
	classes  []int32  // per symbol, per machine: interval index
	packs    []uint64 // per symbol: its interval indexes packed (see alphabet)
	cur32    []int32
	reps     []rune // per symbol: the rune a witness uses
	ranks    []int
	sortKeys []int64
	order    []int
	arena    []uint64
	parents  []int32
	syms     []int32
	table    []int32 // open-addressing set of state ids (id+1; 0 is empty)
	next     []uint64
	twins    map[uint64]int // packed key → symbol (see alphabet)
	twinsV   map[string]int // interval vector → symbol, when keys do not pack
	keyBuf   []byte
	meter    meter
	lead     string // the literal prefix every word starts with, read before the search
}

var searchers = sync.Pool{New: func() any { return &searcher{} }}

// findWord searches breadth-first for the shortest non-empty word accepted
// by every machine in must and by no machine in mustNot. Among words of
// equal length it returns the one made of the most readable runes. It is
// the one decision procedure of the package: L(b) ⊆ L(a) iff
// findWord([b], [a]) finds nothing, and a word it finds is the
// counter-example a reviewer reads.
//
// The search draws on the context's Budget (DefaultSearchSteps when it
// carries none) and stops, answering gaveUp, when the budget is spent or
// the context is done.
func findWord(ctx context.Context, must, mustNot []*machine) (string, searchResult) {
	s := searchers.Get().(*searcher)
	defer searchers.Put(s)
	s.meter = newMeter(ctx)
	var w string
	res := gaveUp
	if s.meter.limit > 0 && s.meter.ctx.Err() == nil {
		w, res = s.find(must, mustNot)
	}
	s.meter.done(res)
	s.meter = meter{}
	return w, res
}

// alphabet splits the rune line into the coarsest classes on which every
// machine behaves the same, and picks for each class its most readable rune.
// Symbols are ordered by readability, so that the breadth-first search
// returns the most readable of the shortest witnesses.
//
// It reports false when the budget ran out while splitting (a hostile set of
// rules can have hundreds of thousands of intervals).
func (s *searcher) alphabet() bool {
	nm := len(s.machines)
	if s.twins == nil {
		s.twins, s.twinsV = map[uint64]int{}, map[string]int{}
	}
	clear(s.twins)
	clear(s.twinsV)
	s.cursor = append(s.cursor[:0], make([]int, nm)...)
	s.classes = s.classes[:0]
	s.packs = s.packs[:0]
	s.reps = s.reps[:0]
	s.ranks = s.ranks[:0]
	// With at most four machines of fewer than 65,536 intervals each (the
	// common case), a symbol's interval indexes pack into one key, so that
	// finding its twin is one comparison.
	packed := nm <= 4
	for _, m := range s.machines {
		packed = packed && len(m.bounds) < 1<<16
	}
	lo := rune(0)
	for {
		// The interval [lo, hi] lies inside one interval of every machine.
		hi := maxRune
		for i, m := range s.machines {
			c := s.cursor[i]
			if c+1 < len(m.bounds) && m.bounds[c+1]-1 < hi {
				hi = m.bounds[c+1] - 1
			}
		}
		r := representative(lo, hi)
		rank := runeRank(r)
		// Find the symbol with the same behaviour, if any: compare packed
		// keys when every search's interval indexes fit, the vectors
		// otherwise.
		// One step per machine per interval: the merge reads every
		// machine's cursor.
		s.meter.spent += int64(nm)
		if s.meter.over() {
			return false
		}
		sym, ok := -1, false
		var key uint64
		if packed {
			for _, c := range s.cursor {
				key = key<<16 | uint64(c)
			}
			sym, ok = s.twins[key]
		} else {
			s.keyBuf = s.keyBuf[:0]
			for _, c := range s.cursor {
				s.keyBuf = append(s.keyBuf, byte(c), byte(c>>8), byte(c>>16), byte(c>>24))
			}
			sym, ok = s.twinsV[string(s.keyBuf)]
		}
		if !ok {
			sym = len(s.reps)
			if packed {
				s.twins[key] = sym
			} else {
				s.twinsV[string(s.keyBuf)] = sym
			}
			s.classes = append(s.classes, s.cursor32()...)
			s.packs = append(s.packs, key)
			s.reps = append(s.reps, r)
			s.ranks = append(s.ranks, rank)
		} else if rank < s.ranks[sym] {
			s.reps[sym], s.ranks[sym] = r, rank
		}
		if hi == maxRune {
			break
		}
		lo = hi + 1
		for i, m := range s.machines {
			if c := s.cursor[i]; c+1 < len(m.bounds) && m.bounds[c+1] == lo {
				s.cursor[i] = c + 1
			}
		}
	}
	// Order the symbols by rank, ties by index (a stable order): sort
	// rank<<32|index keys, which needs no comparison closure.
	s.sortKeys = s.sortKeys[:0]
	for k, rank := range s.ranks {
		s.sortKeys = append(s.sortKeys, int64(rank)<<32|int64(k))
	}
	slices.Sort(s.sortKeys)
	s.order = s.order[:0]
	for _, key := range s.sortKeys {
		s.order = append(s.order, int(key&(1<<32-1)))
	}
	return true
}

// cursor32 returns the cursor as interval indexes in a reused buffer.
func (s *searcher) cursor32() []int32 {
	s.cur32 = s.cur32[:0]
	for _, c := range s.cursor {
		s.cur32 = append(s.cur32, int32(c))
	}
	return s.cur32
}

func (s *searcher) find(must, mustNot []*machine) (string, searchResult) {
	s.machines = append(append(s.machines[:0], must...), mustNot...)
	nm := len(s.machines)
	total := 0
	s.offs = s.offs[:0]
	for _, m := range s.machines {
		s.offs = append(s.offs, total)
		total += m.words
	}
	s.offs = append(s.offs, total)
	if !s.alphabet() {
		return "", gaveUp
	}
	if len(must) == 1 && len(mustNot) == 0 {
		if w, res, ok := s.greedy(must[0]); ok {
			return w, res
		}
	}

	if cap(s.next) < total {
		s.next = make([]uint64, total)
	}
	next := s.next[:total]
	s.arena = s.arena[:0]
	s.parents = s.parents[:0]
	s.syms = s.syms[:0]
	if len(s.table) == 0 || len(s.table) > 1<<14 {
		s.table = make([]int32, 256)
	} else {
		clear(s.table)
	}

	// seen records the state v (not yet in the arena) under id and reports
	// whether it was new.
	seen := func(v []uint64, id int32) bool {
		if 2*int(id) >= len(s.table) {
			s.grow(total)
		}
		mask := len(s.table) - 1
		for h := int(hashWords(v)) & mask; ; h = (h + 1) & mask {
			e := s.table[h]
			if e == 0 {
				s.table[h] = id + 1
				return true
			}
			if slices.Equal(s.arena[int(e-1)*total:int(e)*total], v) {
				return false
			}
		}
	}
	nmust := len(must)
	live := func(v []uint64) bool {
		for i := 0; i < nmust; i++ {
			if isZero(v[s.offs[i]:s.offs[i+1]]) {
				return false
			}
		}
		for i := nmust; i < nm; i++ {
			if intersects(v[s.offs[i]:s.offs[i+1]], s.machines[i].univ) {
				return false
			}
		}
		return true
	}
	accepts := func(v []uint64) bool {
		for i, m := range s.machines {
			in := intersects(v[s.offs[i]:s.offs[i+1]], m.accept)
			if (i < nmust) != in {
				return false
			}
		}
		return true
	}

	for _, m := range s.machines {
		s.arena = append(s.arena, m.start...)
	}
	if !live(s.arena) {
		return "", notFound
	}
	// Every word starts with the longest literal prefix of the must
	// machines (when the others' prefixes are prefixes of it; otherwise no
	// word exists): read it once instead of searching through it, so a
	// long literal or a long shared prefix costs its length, not a search.
	s.lead = ""
	for _, m := range must {
		if len(m.prefix) > len(s.lead) {
			s.lead = m.prefix
		}
	}
	for _, m := range must {
		if !strings.HasPrefix(s.lead, m.prefix) {
			return "", notFound
		}
	}
	if s.lead != "" {
		cur := s.arena[:total]
		// A machine reads its own literal prefix deterministically: after
		// k runes of it its state is position k. So each machine jumps
		// over the part of the lead its prefix spells (or dies where the
		// two differ), and only the rest of the lead is stepped.
		for i, m := range s.machines {
			v := cur[s.offs[i]:s.offs[i+1]]
			k, rest, agree := commonRunes(m.prefix, s.lead)
			s.meter.spent += int64(m.words + k/8)
			clear(v)
			if !agree {
				continue // the machine rejects every word starting with the lead
			}
			setBit(v, k)
			m.closure(v)
			for _, r := range rest {
				w, o := m.words, s.offs[i]
				iv := m.interval(r)
				s.meter.spent += int64(w * (1 + len(m.eps)))
				m.stepRaw(next[o:o+w], v, m.ivAdv[iv*w:(iv+1)*w], m.ivLoop[iv*w:(iv+1)*w])
				copy(v, next[o:o+w])
				if isZero(v) {
					break
				}
			}
			if s.meter.over() {
				return "", gaveUp
			}
		}
		if !live(cur) {
			return "", notFound
		}
		// The start node is now the word lead itself: a witness, and a
		// state of the table.
		seen(cur, 0)
	}
	// Without a lead the start node stands for the empty word, which is
	// never a witness, so it stays out of the table: a non-empty word
	// reaching the same states is a node of its own.
	startWord := s.lead != ""
	s.parents = append(s.parents, -1)
	s.syms = append(s.syms, -1)
	for head := 0; head < len(s.parents); head++ {
		if (head > 0 || startWord) && accepts(s.arena[head*total:(head+1)*total]) {
			return s.spell(head), found
		}
		if s.meter.over() || head&63 == 63 && s.meter.ctx.Err() != nil {
			return "", gaveUp
		}
	symbols:
		for _, k := range s.order {
			if s.meter.over() {
				return "", gaveUp
			}
			cur := s.arena[head*total : (head+1)*total]
			// Step each machine in turn and drop the symbol as soon as one
			// of them makes the state dead (a must machine rejects every
			// continuation, a mustNot machine accepts every one): most
			// symbols die at the first machine.
			for i, m := range s.machines {
				w := m.words
				iv := int(s.classes[k*nm+i])
				o := s.offs[i]
				s.meter.spent += int64(w)
				if w == 1 {
					v := m.step1(cur[o], m.ivAdv[iv], m.ivLoop[iv])
					if (i < nmust && v == 0) || (i >= nmust && v&m.univ[0] != 0) {
						continue symbols
					}
					next[o] = v
					continue
				}
				// A wide machine closes its set by passes over its epsilon
				// rules: charge them too.
				s.meter.spent += int64(w * len(m.eps))
				m.stepRaw(next[o:s.offs[i+1]], cur[o:s.offs[i+1]],
					m.ivAdv[iv*w:(iv+1)*w], m.ivLoop[iv*w:(iv+1)*w])
				if (i < nmust && isZero(next[o:s.offs[i+1]])) || (i >= nmust && intersects(next[o:s.offs[i+1]], m.univ)) {
					continue symbols
				}
			}
			if (head > 0 || startWord) && slices.Equal(next, cur) {
				continue
			}
			id := int32(len(s.parents))
			if !seen(next, id) {
				continue
			}
			if len(s.parents) >= maxSearchStates || len(s.arena)+total > maxArenaWords {
				return "", gaveUp
			}
			s.arena = append(s.arena, next...)
			s.parents = append(s.parents, int32(head))
			s.syms = append(s.syms, int32(k))
		}
	}
	return "", notFound
}

// commonRunes compares a machine's literal prefix with text rune by rune,
// as the machine reads it (an invalid byte of text reads as U+FFFD): k is
// the number of runes of the prefix text starts with, rest the part of
// text after them, and agree is false when the two differ within the
// shorter (the machine then accepts no word starting with text).
func commonRunes(prefix, text string) (k int, rest string, agree bool) {
	i, j := 0, 0
	for i < len(prefix) && j < len(text) {
		rp, np := utf8.DecodeRuneInString(prefix[i:])
		rl, nl := utf8.DecodeRuneInString(text[j:])
		if rp != rl {
			return 0, "", false
		}
		i, j = i+np, j+nl
		k++
	}
	if i < len(prefix) {
		return k, "", true // text is a prefix of the machine's prefix
	}
	return k, text[j:], true
}

// greedy finds the shortest word of one machine without a product search:
// the distance of every position to acceptance (a 0-1 breadth-first search
// over positions: an advance costs one rune, an epsilon edge none) gives
// the length, and each rune is then the most readable symbol that advances
// some position of the current set one step closer. The breadth-first
// search returns the same word (the least of the shortest in symbol order),
// at a cost of states × symbols instead of one position per rune; for a
// pattern of 512 distinct runes between stars that is the difference
// between a search the budget stops and a few hundred thousand steps. ok is
// false when the empty word is accepted (the search handles that case).
func (s *searcher) greedy(m *machine) (string, searchResult, bool) {
	n, w := m.n, m.words
	advAny := make([]uint64, w)
	for iv := range m.bounds {
		for x := 0; x < w; x++ {
			advAny[x] |= m.ivAdv[iv*w+x]
		}
	}
	s.meter.spent += int64(len(m.bounds)*w + n*(1+len(m.eps)))
	has := func(v []uint64, p int) bool { return v[p/64]&(1<<(uint(p)%64)) != 0 }
	const inf = int32(1 << 30)
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = inf
	}
	deque := make([]int32, 2*n+2)
	head := n + 1 // the deque grows both ways from the middle of its buffer
	tail := head
	push := func(p int32, front bool) {
		if front {
			head--
			deque[head] = p
		} else {
			deque[tail] = p
			tail++
		}
	}
	for p := 0; p < n; p++ {
		if has(m.accept, p) {
			dist[p] = 0
			push(int32(p), false)
		}
	}
	for head < tail {
		if head == 0 || tail == len(deque) {
			// Re-centre the deque (each position enters it a bounded number
			// of times, so this is rare).
			live := append([]int32(nil), deque[head:tail]...)
			head = (len(deque) - len(live)) / 2
			tail = head + copy(deque[head:], live)
		}
		p := deque[head]
		head++
		d := dist[p]
		for _, e := range m.eps {
			q := int(p) - e.shift // q → q+shift = p
			if q >= 0 && q < n && has(e.mask, q) && dist[q] > d {
				dist[q] = d
				push(int32(q), true)
			}
		}
		if q := int(p) - 1; q >= 0 && has(advAny, q) && dist[q] > d+1 {
			dist[q] = d + 1
			push(int32(q), false)
		}
	}
	minDist := func(v []uint64) int32 {
		best := inf
		for x, word := range v {
			for ; word != 0; word &= word - 1 {
				if d := dist[x*64+bits.TrailingZeros64(word)]; d < best {
					best = d
				}
			}
		}
		return best
	}
	// Every word starts with the literal prefix: read it at once (after k
	// of its runes the state is position k).
	var sb strings.Builder
	cur := make([]uint64, w)
	if m.prefix != "" {
		setBit(cur, utf8.RuneCountInString(m.prefix))
		m.closure(cur)
		sb.WriteString(m.prefix)
	} else {
		copy(cur, m.start)
	}
	t := minDist(cur)
	switch {
	case t == inf:
		return "", notFound, true
	case t == 0 && m.prefix != "":
		return sb.String(), found, true
	case t == 0:
		return "", notFound, false
	}
	next := make([]uint64, w)
	closer := make([]uint64, w)
	var nz []int
	for ; t > 0; t-- {
		clear(closer)
		nz = nz[:0]
		for x, word := range cur {
			for ; word != 0; word &= word - 1 {
				p := x*64 + bits.TrailingZeros64(word)
				if dist[p] == t && p+1 < n && has(advAny, p) && dist[p+1] == t-1 {
					closer[x] |= 1 << (uint(p) % 64)
				}
			}
			if closer[x] != 0 {
				nz = append(nz, x)
			}
		}
		pick := -1
		for _, k := range s.order {
			iv := int(s.classes[k])
			s.meter.spent += int64(len(nz))
			for _, x := range nz {
				if m.ivAdv[iv*w+x]&closer[x] != 0 {
					pick = k
					break
				}
			}
			if pick >= 0 {
				break
			}
		}
		if pick < 0 {
			return "", notFound, false // cannot happen; let the search decide
		}
		iv := int(s.classes[pick])
		s.meter.spent += int64(w * (1 + len(m.eps)))
		m.stepRaw(next, cur, m.ivAdv[iv*w:(iv+1)*w], m.ivLoop[iv*w:(iv+1)*w])
		cur, next = next, cur
		sb.WriteRune(s.reps[pick])
		if s.meter.over() {
			return "", gaveUp, true
		}
	}
	return sb.String(), found, true
}

// hashWords mixes a state vector into a hash.
func hashWords(v []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range v {
		h ^= x
		h *= 0x9E3779B97F4A7C15
		h ^= h >> 29
	}
	return h
}

// grow doubles the state table and re-inserts the states of the arena.
func (s *searcher) grow(total int) {
	s.table = make([]int32, 2*len(s.table))
	mask := len(s.table) - 1
	for id := 0; id < len(s.parents); id++ {
		v := s.arena[id*total : (id+1)*total]
		h := int(hashWords(v)) & mask
		for s.table[h] != 0 {
			h = (h + 1) & mask
		}
		s.table[h] = int32(id + 1)
	}
}

// spell reconstructs the word leading to node.
func (s *searcher) spell(node int) string {
	var rs []rune
	for n := node; s.parents[n] >= 0; n = int(s.parents[n]) {
		rs = append(rs, s.reps[s.syms[n]])
	}
	var sb strings.Builder
	sb.WriteString(s.lead)
	for i := len(rs) - 1; i >= 0; i-- {
		sb.WriteRune(rs[i])
	}
	return sb.String()
}
