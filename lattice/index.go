package lattice

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// ruleIndex indexes the readings of a set of rules (the none side of a Find)
// by their literal ends, so that a set question over thousands of rules
// visits only the rules that could matter: for a search, those whose
// literal prefix and suffix agree with the target's; for a candidate call,
// those whose prefix, suffix and required literal the call's text has.
// Indexing is exact: a reading it leaves out cannot match (or cannot share
// a word with the target); the checks that follow are the ones Find always
// made.
type ruleIndex struct {
	// always are the rules verify checks whatever the call: tool-name
	// readings, case-folded, parameter, host and text readings.
	always []int32
	// names are the tool-name readings (a search over a tool's arguments
	// ends at once when one of them names the tool).
	names []*reading
	// groups hold the argument readings without a parameter, by tool,
	// zone and argument kind.
	groups map[groupKey]*endBuckets
	// byTool lists each tool's groups.
	byTool map[string][]*endBuckets
	// texts holds the rules' list and text (hasRule), built on first use.
	textsOnce sync.Once
	texts     map[ruleText]struct{}
	// amb lists the ambiguous rules (ambiguousRules), built on first use.
	ambOnce sync.Once
	amb     []int32
}

type ruleText struct {
	list List
	text string
}

// ambiguousRules lists, in order, the rules of rules (the set ix
// indexes) that have two readings, computed once: CoveredBy looks at them
// for each question it proves.
func (ix *ruleIndex) ambiguousRules(rules []Rule) []int32 {
	ix.ambOnce.Do(func() { ix.amb = ambiguousRules(rules) })
	return ix.amb
}

// ambiguousRules lists the indexes of the ambiguous rules, in order.
func ambiguousRules(rules []Rule) []int32 {
	var out []int32
	for i := range rules {
		if o := &rules[i]; o.Ambiguous() || len(o.readings) == 0 && parsed(*o).Ambiguous() {
			out = append(out, int32(i))
		}
	}
	return out
}

// hasRule reports whether rules (the set ix indexes) holds a rule of r's
// list and text: CoveredBy's "the same rule" answer without a scan of
// thousands of rules per question.
func (ix *ruleIndex) hasRule(rules []Rule, r *Rule) bool {
	ix.textsOnce.Do(func() {
		ix.texts = make(map[ruleText]struct{}, len(rules))
		for i := range rules {
			ix.texts[ruleText{rules[i].List, rules[i].Text}] = struct{}{}
		}
	})
	_, ok := ix.texts[ruleText{r.List, r.Text}]
	return ok
}

type groupKey struct {
	tool string
	zone zone
	arg  argKind
}

// indexed is one reading of rule number rule.
type indexed struct {
	rd   *reading
	rule int32
}

// endBuckets holds a group's readings by the first rune of their literal
// prefix and the last rune of their literal suffix (noEnd when empty).
type endBuckets struct {
	key  groupKey
	all  []indexed
	ends map[[2]rune][]indexed
	// pre indexes a large group by its readings' literal prefixes, built
	// on first use (eachPrefix).
	preOnce sync.Once
	pre     *prefixIndex
	// req indexes a large group by its readings' required literals, built
	// on first use (see candidates; the index may be shared).
	req     *reqIndex
	reqOnce sync.Once
}

// reqIndex finds, for a call's text, the readings of a group whose
// required literals the text contains, without testing each: each reading
// is filed under one literal every word it matches contains (the longest
// past its prefix, else its required literal), and the text's substrings
// of each length such a literal has are looked up.
type reqIndex struct {
	byReq map[string][]int32 // required literal → positions in all
	lens  []int              // the distinct lengths of the required literals
	empty []int32            // readings with no required literal
}

// minReqIndex is the size of a group from which mayStop looks readings up
// by their required literal rather than testing each (3,000 deny rules
// full of ** used to cost 3,000 tests per witness).
const minReqIndex = 64

func (g *endBuckets) reqIndex() *reqIndex {
	g.reqOnce.Do(g.buildReqIndex)
	return g.req
}

func (g *endBuckets) buildReqIndex() {
	x := &reqIndex{byReq: map[string][]int32{}}
	seen := map[int]bool{}
	for i, e := range g.all {
		// The text past the prefix when there is one: a group sharing a
		// prefix would otherwise share its key.
		r := e.rd.args.inner
		if r == "" {
			r = e.rd.args.required
		}
		if r == "" {
			x.empty = append(x.empty, int32(i))
			continue
		}
		x.byReq[r] = append(x.byReq[r], int32(i))
		if !seen[len(r)] {
			seen[len(r)] = true
			x.lens = append(x.lens, len(r))
		}
	}
	g.req = x
}

// candidates calls f, in the order each visits them, on the readings of g
// that could match text: its literal prefix, suffix and required literal
// are in text. It reports false when looking them up would cost more than
// testing every reading (the caller then uses each).
func (g *endBuckets) candidates(text string, f func(indexed) bool) (bool, bool) {
	if len(g.all) < minReqIndex || text == "" {
		return false, true
	}
	x := g.reqIndex()
	cost := 0
	for _, l := range x.lens {
		if l <= len(text) {
			cost += len(text) - l + 1
		}
	}
	if cost > len(g.all) {
		return false, true
	}
	pos := append([]int32(nil), x.empty...)
	for _, l := range x.lens {
		for i := 0; i+l <= len(text); i++ {
			pos = append(pos, x.byReq[text[i:i+l]]...)
		}
	}
	// each's order: the buckets by their ends, (first, last), (first,
	// none), (none, last), (none, none), each in insertion order.
	type cand struct {
		rank int
		pos  int32
	}
	var cs []cand
	for _, p := range pos {
		e := g.all[p]
		rd := e.rd
		if !strings.HasPrefix(text, rd.prefix) || !strings.HasSuffix(text, rd.args.suffix) {
			continue
		}
		rank := 0
		if rd.prefix == "" {
			rank += 2
		}
		if rd.args.suffix == "" {
			rank++
		}
		cs = append(cs, cand{rank, p})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return int(a.pos - b.pos)
	})
	cs = slices.Compact(cs)
	for _, c := range cs {
		if !f(g.all[c.pos]) {
			return true, false
		}
	}
	return true, true
}

const noEnd = rune(-1)

func firstRune(s string) rune {
	if s == "" {
		return noEnd
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	if s == "" {
		return noEnd
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func newRuleIndex(rules []Rule) *ruleIndex {
	ix := &ruleIndex{groups: map[groupKey]*endBuckets{}, byTool: map[string][]*endBuckets{}}
	for i := range rules {
		rs, also := rules[i].readings, rules[i].also
		if len(rs) == 0 {
			p := parsed(rules[i])
			rs, also = p.readings, p.also
		}
		if len(also) > 0 {
			rs = append(rs[:len(rs):len(rs)], also...) // a union part stops calls too
		}
		always := false
		for _, rd := range rs {
			switch rd.kind {
			case readNames:
				ix.names = append(ix.names, rd)
				always = true
			case readArgs:
				if rd.param != "" || rd.fold || (rd.arg != argShell && rd.arg != argPath) {
					always = true
				}
				if rd.param != "" {
					continue
				}
				k := groupKey{tool: rd.tool, zone: rd.zone, arg: rd.arg}
				g := ix.groups[k]
				if g == nil {
					g = &endBuckets{key: k, ends: map[[2]rune][]indexed{}}
					ix.groups[k] = g
					ix.byTool[rd.tool] = append(ix.byTool[rd.tool], g)
				}
				e := indexed{rd: rd, rule: int32(i)}
				g.all = append(g.all, e)
				ek := [2]rune{firstRune(rd.prefix), lastRune(rd.args.suffix)}
				g.ends[ek] = append(g.ends[ek], e)
			}
		}
		if always {
			ix.always = append(ix.always, int32(i))
		}
	}
	return ix
}

// each calls f on every reading of g whose prefix and suffix could agree
// with text (startsWith and endsWith select which ends are known: a search
// knows the target's literal prefix and suffix, a call knows its whole
// text), stopping when f returns false.
func (g *endBuckets) each(prefix, suffix string, f func(indexed) bool) bool {
	if prefix != "" && len(g.all) >= minPrefixIndexed {
		g.preOnce.Do(func() { g.pre = newPrefixIndex(g.all) })
		n := g.pre.count(prefix)
		if suffix == "" || n < g.endsCount(prefix, suffix) {
			return g.pre.each(prefix, f)
		}
	}
	if prefix == "" || suffix == "" {
		for _, e := range g.all {
			if !f(e) {
				return false
			}
		}
		return true
	}
	fr, lr := firstRune(prefix), lastRune(suffix)
	for _, k := range [4][2]rune{{fr, lr}, {fr, noEnd}, {noEnd, lr}, {noEnd, noEnd}} {
		for _, e := range g.ends[k] {
			if !f(e) {
				return false
			}
		}
	}
	return true
}

// indexKey names a slice of rules for the cache of one Budget: the rules
// of a slice do not change while a comparison runs (the engine builds its
// pools once), and the cache keeps the slice alive, so its address cannot
// be reused for another slice.
type indexKey struct {
	first        *Rule
	n            int
	head, tail   string
	headL, tail2 List
}

// indexOf returns the index of rules, cached in the context's Budget when
// there is one.
func indexOf(ctx context.Context, rules []Rule) *ruleIndex {
	b := BudgetOf(ctx)
	if b == nil || len(rules) == 0 {
		return newRuleIndex(rules)
	}
	k := indexKey{first: &rules[0], n: len(rules), head: rules[0].Text, tail: rules[len(rules)-1].Text,
		headL: rules[0].List, tail2: rules[len(rules)-1].List}
	cache := &b.indexes
	if len(rules) < minCachedRules {
		// Small sets are often built afresh per question: they have their
		// own, larger cache, so they never evict the pools' indexes.
		cache = &b.small
	}
	b.mu.Lock()
	ix, ok := (*cache)[k]
	b.mu.Unlock()
	if ok {
		return ix.ix
	}
	ix = cachedIndex{rules: rules, ix: newRuleIndex(rules)}
	limit := maxCachedIndexes
	if cache == &b.small {
		limit = maxCachedSmall
	}
	b.mu.Lock()
	if *cache == nil || len(*cache) >= limit {
		// A caller building a fresh slice per question gains nothing
		// from the cache; keep it from holding them all.
		*cache = map[indexKey]cachedIndex{}
	}
	(*cache)[k] = ix
	b.mu.Unlock()
	return ix.ix
}

// minCachedRules is the size from which a rule set's index is kept in the
// Budget's main cache; maxCachedSmall bounds the cache of smaller ones.
const (
	minCachedRules = 8
	maxCachedSmall = 256
)

// maxCachedIndexes bounds the indexes one Budget keeps.
const maxCachedIndexes = 64

// cachedIndex keeps the indexed slice with its index.
type cachedIndex struct {
	rules []Rule
	ix    *ruleIndex
}

// mayStop reports whether some rule of none may match c (a call escaping
// every one of them is a witness): the indexed form of checking every rule
// with mayMatch and Match.
func (ix *ruleIndex) mayStop(ctx context.Context, none []Rule, c Call) bool {
	if hasBlankRun(c) {
		// Match reads a run of blanks collapsed too (match.go); the
		// index's literal tests read the raw text: ask every rule.
		for i := range none {
			if MatchContext(ctx, none[i], c) != No {
				return true
			}
		}
		return false
	}
	for _, i := range ix.always {
		if mayMatch(&none[i], c) && MatchContext(ctx, none[i], c) != No {
			return true
		}
	}
	stop := false
	check := func(text string) func(indexed) bool {
		return func(e indexed) bool {
			rd := e.rd
			if rd.fold {
				return true // in always
			}
			if !strings.HasPrefix(text, rd.prefix) || !strings.HasSuffix(text, rd.args.suffix) || !strings.Contains(text, rd.args.required) {
				return true
			}
			if MatchContext(ctx, none[e.rule], c) != No {
				stop = true
				return false
			}
			return true
		}
	}
	visit := func(g *endBuckets, text string) {
		if ok, _ := g.candidates(text, check(text)); !ok {
			g.each(text, text, check(text))
		}
	}
	for _, g := range ix.byTool[c.Tool] {
		switch g.key.arg {
		case argShell:
			visit(g, c.Arg)
		case argPath:
			z, rel := splitPath(c.Arg)
			switch {
			case g.key.zone == z:
				visit(g, rel)
			case g.key.zone == zoneRoot:
				// A root pattern matches a home or project path through
				// the directories above it: check each.
				for _, e := range g.all {
					if MatchContext(ctx, none[e.rule], c) != No {
						return true
					}
				}
			}
		}
		if stop {
			return true
		}
	}
	return false
}

// RuleSet is a set of rules indexed for many questions of one kind: may
// some rule of the set match this call? The engine asks it of the deny
// and ask rules of a project for every candidate call it words a finding
// with; the index visits only the rules whose literal ends and required
// run the call has.
type RuleSet struct {
	rules []Rule
	ix    *ruleIndex
}

// NewRuleSet indexes rules (the slice is kept, not copied: it must not
// change afterwards).
func NewRuleSet(rules []Rule) *RuleSet { return &RuleSet{rules: rules, ix: newRuleIndex(rules)} }

// MayMatch reports whether some rule of the set may match c: whether
// Match answers Yes or Unknown for one of them.
func (s *RuleSet) MayMatch(c Call) bool {
	return s.ix.mayStop(context.Background(), s.rules, c)
}

// CallSet is a set of calls indexed by their argument text, for a caller
// asking of many rules which calls of the set each may match: Each visits
// only the calls that start with the literal prefix of one of the rule's
// readings, not all of them.
type CallSet struct {
	calls  []Call
	sorted []int32 // positions in calls, by tool and argument
	blanks []int32 // calls with a run of blanks (Match reads them collapsed too)
}

// NewCallSet indexes calls (the slice is kept: it must not change).
func NewCallSet(calls []Call) *CallSet {
	s := &CallSet{calls: calls}
	for i, c := range calls {
		if hasBlankRun(c) {
			s.blanks = append(s.blanks, int32(i))
			continue
		}
		s.sorted = append(s.sorted, int32(i))
	}
	slices.SortFunc(s.sorted, func(a, b int32) int {
		ca, cb := calls[a], calls[b]
		if ca.Tool != cb.Tool {
			return strings.Compare(ca.Tool, cb.Tool)
		}
		return strings.Compare(ca.Arg, cb.Arg)
	})
	return s
}

// Each calls f, in the set's order, on every call of the set MayMatch does
// not rule out for r (with its position in the slice NewCallSet was
// given), until f returns false.
func (s *CallSet) Each(r Rule, f func(int, Call) bool) {
	r = parsed(r)
	var pos []int32
	all := false
	for _, rd := range r.readings {
		if rd.kind != readArgs || rd.arg != argShell || rd.fold || rd.param != "" {
			all = true
			break
		}
		lo, _ := slices.BinarySearchFunc(s.sorted, Call{Tool: rd.tool, Arg: rd.prefix}, func(i int32, c Call) int {
			x := s.calls[i]
			if x.Tool != c.Tool {
				return strings.Compare(x.Tool, c.Tool)
			}
			return strings.Compare(x.Arg, c.Arg)
		})
		for j := lo; j < len(s.sorted); j++ {
			x := s.calls[s.sorted[j]]
			if x.Tool != rd.tool || !strings.HasPrefix(x.Arg, rd.prefix) {
				break
			}
			pos = append(pos, s.sorted[j])
		}
	}
	if all {
		for i, c := range s.calls {
			if mayMatch(&r, c) && !f(i, c) {
				return
			}
		}
		return
	}
	pos = append(pos, s.blanks...)
	slices.Sort(pos)
	pos = slices.Compact(pos)
	for _, i := range pos {
		if c := s.calls[i]; mayMatch(&r, c) && !f(int(i), c) {
			return
		}
	}
}

// minPrefixIndexed is the group size from which each looks readings up by
// their literal prefix: a search whose target has a literal prefix but no
// literal suffix (Bash(tool3 sub17 *)) would otherwise visit every reading
// of the group, and a file of thousands of such rules asks thousands of
// times (quadratic work the budget did not count).
const minPrefixIndexed = 64

// endsCount is the number of readings each visits by the literal ends.
func (g *endBuckets) endsCount(prefix, suffix string) int {
	fr, lr := firstRune(prefix), lastRune(suffix)
	n := 0
	for _, k := range [4][2]rune{{fr, lr}, {fr, noEnd}, {noEnd, lr}, {noEnd, noEnd}} {
		n += len(g.ends[k])
	}
	return n
}

// prefixIndex holds a group's readings by literal prefix: exactly the
// readings whose prefix is a prefix of a text or extends it (the ones
// whose literal start could agree with it) are found without a scan.
type prefixIndex struct {
	exact  map[string][]indexed // by prefix
	lens   []int                // the distinct prefix lengths, ascending
	sorted []indexed            // by prefix (stable)
}

func newPrefixIndex(all []indexed) *prefixIndex {
	p := &prefixIndex{exact: map[string][]indexed{}, sorted: slices.Clone(all)}
	seen := map[int]bool{}
	for _, e := range all {
		p.exact[e.rd.prefix] = append(p.exact[e.rd.prefix], e)
		if !seen[len(e.rd.prefix)] {
			seen[len(e.rd.prefix)] = true
			p.lens = append(p.lens, len(e.rd.prefix))
		}
	}
	slices.Sort(p.lens)
	slices.SortStableFunc(p.sorted, func(a, b indexed) int { return strings.Compare(a.rd.prefix, b.rd.prefix) })
	return p
}

// longer is the range of sorted whose prefixes extend prefix strictly.
func (p *prefixIndex) longer(prefix string) (lo, hi int) {
	lo = sort.Search(len(p.sorted), func(i int) bool { return p.sorted[i].rd.prefix > prefix })
	hi = sort.Search(len(p.sorted), func(i int) bool {
		s := p.sorted[i].rd.prefix
		return s > prefix && !strings.HasPrefix(s, prefix)
	})
	return lo, hi
}

// count is the number of readings each(prefix) visits.
func (p *prefixIndex) count(prefix string) int {
	n := 0
	for _, l := range p.lens {
		if l > len(prefix) {
			break
		}
		n += len(p.exact[prefix[:l]])
	}
	lo, hi := p.longer(prefix)
	return n + hi - lo
}

// each calls f on every reading whose literal prefix is a prefix of
// prefix or extends it, stopping when f returns false.
func (p *prefixIndex) each(prefix string, f func(indexed) bool) bool {
	for _, l := range p.lens {
		if l > len(prefix) {
			break
		}
		for _, e := range p.exact[prefix[:l]] {
			if !f(e) {
				return false
			}
		}
	}
	lo, hi := p.longer(prefix)
	for _, e := range p.sorted[lo:hi] {
		if !f(e) {
			return false
		}
	}
	return true
}
