package lattice

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Launcher says where a launcher's operand stands in a command: the code,
// command, package or image it runs (the seed's exec-equivalent table:
// `python3 -c <code>`, `npx <package>`, `docker run <image>`, `sudo
// <command>`). The rating package asks, through Operand, whether a Bash
// rule leaves that operand to the caller; the lattice itself never
// consults launchers (Covers, Find and Matches are unchanged by them).
//
// The commands of a launcher's operand form are
//
//	W1 F W2 F … Wk F w T
//
// with W1…Wk the launcher's words (a command name, its subcommands), each F
// a flag context (zero or more words, each an option, an option with its
// value, or an assignment), w the operand word and T any tail (nothing, or
// a space and any text). When the last word is an option (`python3 -c`,
// `node --eval`), it is the marker whose value is the operand, so no flag
// context stands between it and w, and w may start with a dash; otherwise
// w does not start with a dash (a dash word is an option, not the operand).
type Launcher struct {
	// Words are the launcher's fixed words, the command name first
	// ("docker", "run"; "python3", "-c").
	Words []string
	// ValueOptions are the options that take the next word as their value
	// ("-u" for sudo, "-v" for docker): the option and its value stand
	// together in a flag context.
	ValueOptions []string
	// Assignments says NAME=VALUE words may stand in a flag context (env,
	// sudo).
	Assignments bool
	// PlusOptions says options may also start with "+" (the shells' `+o`).
	PlusOptions bool
	// Positionals is how many operand words the launcher reads after its
	// options and before the command it runs (timeout's duration: `timeout
	// 5 sh -c …`).
	Positionals int

	bare, full *machine // built by Prepared
	text       string   // the words joined, set by ParseLauncher
}

// ParseLauncher reads a launcher written as its words ("python3 -c",
// "uv tool run"), as the seed's table and a policy's extra launchers spell
// them. It returns false for text with no word or with a word that cannot
// be a fixed command word (a star, a quote, a backslash, a control
// character): such an entry names no command form and decides nothing.
func ParseLauncher(text string) (Launcher, bool) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return Launcher{}, false
	}
	for _, w := range words {
		for _, r := range w {
			if r == '*' || r == '\\' || r == '"' || r == '\'' || blankOrControl.has(r) {
				return Launcher{}, false
			}
		}
	}
	return Launcher{Words: words, text: strings.Join(words, " ")}, true
}

// String spells the launcher's words as the table does.
func (l Launcher) String() string {
	if l.text != "" {
		return l.text
	}
	return strings.Join(l.Words, " ")
}

// Excludes reports, without a search, that r cannot leave l's operand
// selectable because every reading of r is a Bash command pattern whose
// literal prefix disagrees with l's first word and a space: Operand would
// answer No having spent nothing. A caller rating a rule against a table
// of launchers skips those quickly; false decides nothing.
func (l Launcher) Excludes(r Rule) bool {
	if len(l.Words) == 0 {
		return false
	}
	r = parsed(r)
	if len(r.readings) == 0 {
		return false
	}
	first := l.Words[0]
	for _, rd := range r.readings {
		if rd.kind != readArgs || rd.tool != "Bash" || rd.arg != argShell || rd.param != "" || rd.tooLarge {
			return false
		}
		// The check decide makes: first+" " and the prefix agree when one
		// starts with the other.
		p := rd.prefix
		if len(p) <= len(first) {
			if strings.HasPrefix(first, p) {
				return false
			}
			continue
		}
		if strings.HasPrefix(p, first) && p[len(first)] == ' ' {
			return false
		}
	}
	return true
}

// marker reports whether the last word is the option whose value is the
// operand (`-c` of `python3 -c`).
func (l Launcher) marker() bool {
	return len(l.Words) > 1 && strings.HasPrefix(l.Words[len(l.Words)-1], "-")
}

// OperandFamily is an infinite family of commands a rule matches, all with
// the launcher's operand in place: Command(k) = Prefix + Word(k) + Tail and
// Word(k) = Head + Loop×k + Rest, a different operand word for every k ≥ 0.
// Prefix is the launcher's words and flag context, ending with a space;
// Tail is empty or starts with a space. It is the evidence behind a Yes (a
// pumping decomposition read off the automata), for tests and reviewers;
// its flag context and tail are the rule's own text, so a check that must
// not disclose arguments prints none of it.
type OperandFamily struct {
	Prefix, Head, Loop, Rest, Tail string
}

// Word returns the k-th operand word of the family.
func (f OperandFamily) Word(k int) string { return f.Head + strings.Repeat(f.Loop, k) + f.Rest }

// Command returns the k-th command of the family.
func (f OperandFamily) Command(k int) string { return f.Prefix + f.Word(k) + f.Tail }

// OperandVerdict is the answer to "does the rule leave the launcher's
// operand selectable?".
type OperandVerdict struct {
	// Answer is Yes when every reading of the rule does (what it surely
	// matches holds, for one fixed flag context and tail, commands with
	// infinitely many operand words), No when no reading does, Unknown when
	// some reading does and another does not, or when the work budget ran
	// out (Undecided).
	Answer Answer
	// Undecided says the work budget or the context ended the search before
	// an answer; Answer is then Unknown, unless a reading was already found
	// to leave the operand selectable.
	Undecided bool
	// Family, for Yes and for an Unknown with a reading found, is a family
	// of commands with distinct operand words that the rule surely matches
	// (Yes) or that one reading matches (Unknown).
	Family OperandFamily
	// Reason says in a sentence why.
	Reason string
	// Spent is the work the decision took, in automaton steps.
	Spent int
}

// DefaultOperandBudget is the work Operand spends at most when given none,
// in the lattice's steps (machine words advanced on one symbol from one
// state). Real rules need at most a few tens of thousands; a rule that needs
// more is pathological, and the answer is then Undecided (the rating fails
// closed).
const DefaultOperandBudget = 1_000_000

// Operand decides whether rule r leaves l's operand selectable: whether the
// commands r surely matches include, for some fixed flag context F and
// tail T, `W1 F … Wk F w T` for infinitely many operand words w. It decides
// on the automata: a product of r's command automata with the launcher's
// prefix automaton, explored state set by state set, then a cycle through
// operand characters on a path to acceptance (which is exactly an infinite
// set of operand words for one prefix and one tail). Only Bash command
// rules can answer Yes; the whole tool does.
//
// Work is counted in the lattice's steps (see Budget): at most budget steps
// (DefaultOperandBudget when budget ≤ 0), and no more than the context's
// Budget allows one search, which the steps are then charged to. A done
// context or a spent budget answers Unknown with Undecided set.
func (l Launcher) Operand(ctx context.Context, r Rule, budget int) OperandVerdict {
	if budget <= 0 {
		budget = DefaultOperandBudget
	}
	m := newMeter(ctx)
	w := &work{ctx: m.ctx, left: int64(budget)}
	if m.budget != nil {
		w.left = min(w.left, m.limit)
	}
	v := l.operand(w, parsed(r))
	v.Spent = int(w.spent)
	m.spent = w.spent
	res := found
	if v.Undecided {
		res = gaveUp
	}
	m.done(res)
	return v
}

func (l Launcher) operand(w *work, r Rule) OperandVerdict {
	if len(l.Words) == 0 {
		return OperandVerdict{Answer: No, Reason: "the launcher has no words"}
	}
	var args []*reading
	empties, whole := 0, 0
	for _, rd := range r.readings {
		switch {
		case rd.kind == readNames && rd.names.run("Bash"):
			whole++ // every command: no constraint on the intersection
		case rd.kind == readArgs && rd.tool == "Bash" && rd.arg == argShell && rd.param == "":
			args = append(args, rd)
		default:
			empties++ // no Bash command at all
		}
	}
	if len(args) == 0 {
		if whole > 0 && empties == 0 {
			f := OperandFamily{Prefix: l.String() + " ", Head: "x", Loop: "x"}
			return OperandVerdict{Answer: Yes, Family: f, Reason: "the rule matches every command"}
		}
		if whole > 0 {
			f := OperandFamily{Prefix: l.String() + " ", Head: "x", Loop: "x"}
			return OperandVerdict{Answer: Unknown, Family: f, Reason: "one reading of the rule matches every command"}
		}
		return OperandVerdict{Answer: No, Reason: "the rule matches no Bash command"}
	}
	undecided := false
	if empties == 0 {
		f, res := l.decide(w, args)
		switch res {
		case found:
			return OperandVerdict{Answer: Yes, Family: f, Reason: "every reading of the rule matches " + l.String() + " with a selectable operand"}
		case gaveUp:
			undecided = true
		}
		if len(args) == 1 {
			if undecided {
				return OperandVerdict{Answer: Unknown, Undecided: true, Reason: w.why()}
			}
			return OperandVerdict{Answer: No, Reason: "the rule fixes " + l.String() + "'s operand or matches no " + l.String() + " command"}
		}
	}
	for _, rd := range args {
		f, res := l.decide(w, []*reading{rd})
		switch res {
		case found:
			return OperandVerdict{Answer: Unknown, Undecided: undecided, Family: f,
				Reason: "one reading of the rule matches " + l.String() + " with a selectable operand, another does not"}
		case gaveUp:
			undecided = true
		}
	}
	if undecided {
		return OperandVerdict{Answer: Unknown, Undecided: true, Reason: w.why()}
	}
	return OperandVerdict{Answer: No, Reason: "no reading of the rule leaves " + l.String() + "'s operand selectable"}
}

// work is the budget of one Operand call.
type work struct {
	ctx   context.Context
	left  int64
	spent int64
	calls int
	err   error
}

// step spends n steps (the machine words one symbol advances) and reports
// whether work may go on; the context is looked at on the first call and
// every 256th.
func (w *work) step(n int) bool {
	if w.err != nil {
		return false
	}
	w.left -= int64(n)
	w.spent += int64(n)
	if w.left < 0 {
		w.err = fmt.Errorf("the operand search needed more than %d steps", w.spent-int64(n))
		return false
	}
	if w.calls&255 == 0 {
		if err := w.ctx.Err(); err != nil {
			w.err = fmt.Errorf("the operand search was stopped: %w", err)
			return false
		}
	}
	w.calls++
	return true
}

func (w *work) why() string {
	if w.err == nil {
		return "the operand search ran out of work"
	}
	return w.err.Error() + ": the rule is too complex to decide"
}

// Character classes of the launcher's prefix automaton.
var (
	dashChar     = single('-')
	dashOrPlus   = charset{spans: []span{{'+', '+'}, {'-', '-'}}}
	nameStart    = charset{spans: []span{{'A', 'Z'}, {'_', '_'}, {'a', 'z'}}}
	nameRest     = charset{spans: []span{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}}
	equalsChar   = single('=')
	operandSpace = ' '
)

// template builds the automaton of the launcher's prefixes `W1 F … Wk F `
// (ending with the space before the operand).
func (l Launcher) template() *machine {
	b := newBuilder()
	b.lit(l.Words[0])
	for _, word := range l.Words[1:] {
		l.flagContext(b)
		b.lit(" " + word)
	}
	if !l.marker() {
		l.flagContext(b)
	}
	for i := 0; i < l.Positionals; i++ {
		b.char(spaceChar)
		b.char(wordChar)
		b.star(wordChar)
	}
	b.char(spaceChar)
	return b.build()
}

// flagContext appends ( " " flag )*, a flag being an option word, an
// option that takes a value followed by its value word, or an assignment.
func (l Launcher) flagContext(b *builder) {
	g := b.pos()
	b.char(spaceChar)
	opt := dashChar
	if l.PlusOptions {
		opt = dashOrPlus
	}
	alts := []func(*builder){func(b *builder) {
		b.char(opt)
		b.star(wordChar)
	}}
	for _, v := range l.ValueOptions {
		v := v
		alts = append(alts, func(b *builder) {
			b.lit(v + " ")
			b.char(wordChar)
			b.star(wordChar)
		})
	}
	if l.Assignments {
		alts = append(alts, func(b *builder) {
			b.char(nameStart)
			b.star(nameRest)
			b.char(equalsChar)
			b.star(wordChar)
		})
	}
	alternation(b, alts)
	end := b.pos()
	b.epsilon(g, end)
	b.epsilon(end, g)
}

// alternation appends a choice between the given token programs.
func alternation(b *builder, alts []func(*builder)) {
	start := b.pos()
	ends := make([]int, 0, len(alts))
	for i, alt := range alts {
		if i > 0 {
			// A gap position that never advances keeps the previous
			// alternative from running into this one.
			b.char(noChar)
			b.epsilon(start, b.pos())
		}
		alt(b)
		ends = append(ends, b.pos())
	}
	b.char(noChar)
	for _, e := range ends {
		b.epsilon(e, b.pos())
	}
}

// Phases of the operand search.
const (
	phasePrefix  = iota // reading W1 F … Wk F (the template runs too)
	phaseEntry          // at the operand's first character
	phaseOperand        // inside the operand word
	phaseTail           // past the space after the operand
)

// opNode is one node of a search graph.
type opNode struct {
	phase  int
	parent int32
	sym    int32 // symbol read from the parent
	depth  int32 // symbols read from the start of the command
}

// opGraph is a graph of state vectors over several machines, explored
// breadth-first; nodes are deduplicated by phase and state vector.
type opGraph struct {
	ms               []*machine
	offs             []int
	total            int
	al               *opAlphabet
	nodes            []opNode
	arena            []uint64
	index            map[string]int32
	from, to, syms   []int32
	stepBuf, snap    []uint64
	keyBuf           []byte
	closures         []*closureTable
	machineOffsetInA int   // the alphabet column of ms[0]
	base             int32 // the depth of the root
	lit              []int // symbols every matched command starts with
	// closed counts the words the wide machines' closures have ORed since
	// the last charge (cost): a step of a machine of many positions full
	// of stars costs its set bits times its words, not its words.
	closed int
}

// cost is the steps one more step charges: the graph's words and the
// closure work since the last charge.
func (g *opGraph) cost() int {
	c := g.total + g.closed
	g.closed = 0
	return c
}

// symbols returns the symbols to try from node id: the next symbol of the
// literal text every matched command starts with while inside it (one
// symbol instead of the whole alphabet: a long literal rule costs its
// length, not its length times the alphabet), every symbol after it.
func (g *opGraph) symbols(id int32) []int {
	if d := int(g.nodes[id].depth); d < len(g.lit) {
		return g.lit[d : d+1]
	}
	return g.al.order
}

func newOpGraph(ms []*machine, al *opAlphabet, column int) *opGraph {
	g := &opGraph{ms: ms, al: al, index: map[string]int32{}, machineOffsetInA: column}
	g.offs = make([]int, len(ms)+1)
	for i, m := range ms {
		g.offs[i+1] = g.offs[i] + m.words
	}
	g.total = g.offs[len(ms)]
	g.stepBuf = make([]uint64, g.total)
	g.snap = make([]uint64, g.total)
	return g
}

func (g *opGraph) vec(id int32) []uint64 {
	return g.arena[int(id)*g.total : int(id+1)*g.total]
}

// wordsKey spells a state vector as a map key.
func wordsKey(v []uint64) string {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return string(b)
}

// add records the node (phase, v) reached from parent by sym, with its
// edge, and reports whether it is new.
func (g *opGraph) add(phase int, v []uint64, parent, sym int32) (int32, bool) {
	g.keyBuf = append(g.keyBuf[:0], byte(phase))
	for _, x := range v {
		g.keyBuf = binary.LittleEndian.AppendUint64(g.keyBuf, x)
	}
	k := string(g.keyBuf)
	id, ok := g.index[k]
	if !ok {
		id = int32(len(g.nodes))
		g.index[k] = id
		d := g.base
		if parent >= 0 {
			d = g.nodes[parent].depth
			if sym >= 0 {
				d++
			}
		}
		g.nodes = append(g.nodes, opNode{phase: phase, parent: parent, sym: sym, depth: d})
		g.arena = append(g.arena, v...)
	}
	if parent >= 0 {
		g.from, g.to, g.syms = append(g.from, parent), append(g.to, id), append(g.syms, sym)
	}
	return id, !ok
}

// step reads symbol k from node cur into g.stepBuf, stepping the machines
// from index lo on (the others are left empty), and reports whether every
// stepped machine is still alive.
func (g *opGraph) step(cur []uint64, k, lo int) bool {
	next := g.stepBuf
	clear(next)
	for i := lo; i < len(g.ms); i++ {
		m := g.ms[i]
		iv := g.al.classes[k*g.al.width+g.machineOffsetInA+i]
		mw := m.words
		adv, loop := m.ivAdv[iv*mw:(iv+1)*mw], m.ivLoop[iv*mw:(iv+1)*mw]
		o := g.offs[i]
		if mw == 1 {
			v := m.step1(cur[o], adv[0], loop[0])
			if v == 0 {
				return false
			}
			next[o] = v
			continue
		}
		dst := next[o:g.offs[i+1]]
		var carry uint64
		for x := range dst {
			a := cur[o+x] & adv[x]
			dst[x] = a<<1 | carry | cur[o+x]&loop[x]
			carry = a >> 63
		}
		if isZero(dst) {
			return false
		}
		g.closed += g.closure(i).apply(dst, g.snap[o:g.offs[i+1]])
	}
	return true
}

// closure returns the epsilon-closure table of machine i, built on first use.
func (g *opGraph) closure(i int) *closureTable {
	if g.closures == nil {
		g.closures = make([]*closureTable, len(g.ms))
	}
	if g.closures[i] == nil {
		g.closures[i] = closureOf(g.ms[i])
	}
	return g.closures[i]
}

// closureTable is a multi-word machine's epsilon closure per position: a
// state set is closed by OR-ing the closures of its positions that have an
// edge, one pass (the large templates have hundreds of edges, which the
// machine's own pass-until-stable closure walks many times per step).
type closureTable struct {
	from []uint64   // positions with an epsilon edge
	clos [][]uint64 // per position: its closure (nil without an edge)
}

// templateClosures caches the closure tables of the cached templates.
var templateClosures sync.Map

func closureOf(m *machine) *closureTable {
	if t, ok := templateClosures.Load(m); ok {
		return t.(*closureTable)
	}
	n := m.n
	adj := make([][]int, n)
	t := &closureTable{from: make([]uint64, m.words), clos: make([][]uint64, n)}
	for _, e := range m.eps {
		for p := 0; p < n; p++ {
			if e.mask[p/64]&(1<<(uint(p)%64)) != 0 && p+e.shift >= 0 && p+e.shift < n {
				adj[p] = append(adj[p], p+e.shift)
			}
		}
	}
	for p := 0; p < n; p++ {
		if len(adj[p]) == 0 {
			continue
		}
		setBit(t.from, p)
		v := make([]uint64, m.words)
		setBit(v, p)
		stack := []int{p}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range adj[x] {
				if v[y/64]&(1<<(uint(y)%64)) == 0 {
					setBit(v, y)
					stack = append(stack, y)
				}
			}
		}
		t.clos[p] = v
	}
	return t
}

// apply closes the state set v, using snap (as long as v) as scratch; a
// table is shared between searches and never written after it is built.
func (t *closureTable) apply(v, snap []uint64) int {
	copy(snap, v)
	n := 0
	for x, word := range snap {
		for b := word & t.from[x]; b != 0; b &= b - 1 {
			c := t.clos[x*64+bits.TrailingZeros64(b)]
			for y := range v {
				v[y] |= c[y]
			}
			n += len(v)
		}
	}
	return n
}

// universal reports whether every machine from index lo on accepts every
// continuation of the state vector.
func (g *opGraph) universal(v []uint64, lo int) bool {
	for i := lo; i < len(g.ms); i++ {
		if !intersects(v[g.offs[i]:g.offs[i+1]], g.ms[i].univ) {
			return false
		}
	}
	return true
}

// accepts reports whether every machine from index lo on accepts.
func (g *opGraph) accepts(v []uint64, lo int) bool {
	for i := lo; i < len(g.ms); i++ {
		if !intersects(v[g.offs[i]:g.offs[i+1]], g.ms[i].accept) {
			return false
		}
	}
	return true
}

// spell returns the symbols read on the discovery path to id, stopping at
// a node of phase stop (exclusive) or the root.
func (g *opGraph) spell(id int32, stop int) string {
	var rs []rune
	for x := id; g.nodes[x].parent >= 0 && g.nodes[x].phase != stop; x = g.nodes[x].parent {
		rs = append(rs, g.al.reps[g.nodes[x].sym])
	}
	slices.Reverse(rs)
	return string(rs)
}

// decide looks for an operand family every reading matches. It first
// reads flag contexts of option words only (a small template, which
// answers every rule with a star before the operand); only when that finds
// none are option values read too (the full template: docker's is large,
// but a rule that fixes its flag region keeps the product small).
func (l Launcher) decide(w *work, rds []*reading) (OperandFamily, searchResult) {
	first := l.Words[0] + " "
	for _, rd := range rds {
		if rd.tooLarge {
			w.err = fmt.Errorf("the rule's pattern has more than %d positions", maxMachineStates)
			return OperandFamily{}, gaveUp
		}
		// Every command of the family starts with the first word and a
		// space: a reading whose literal prefix disagrees matches none.
		if !strings.HasPrefix(first, rd.prefix) && !strings.HasPrefix(rd.prefix, first) {
			return OperandFamily{}, notFound
		}
		// A reading without a loop matches finitely many commands: no
		// infinite set of operand words.
		if !rd.args.loops {
			return OperandFamily{}, notFound
		}
	}
	bare, full := l.bare, l.full
	if bare == nil {
		b := l
		b.ValueOptions = nil
		bare = b.cachedTemplate()
	}
	f, res, died := l.search(w, bare, rds)
	if res != notFound || len(l.ValueOptions) == 0 {
		return f, res
	}
	if died >= 0 && !l.valueBefore(rds, died) {
		// The option-words template died inside the literal text every
		// matched command starts with, before any value option: the value
		// options cannot help.
		return OperandFamily{}, notFound
	}
	if full == nil {
		full = l.cachedTemplate()
	}
	f, res, _ = l.search(w, full, rds)
	return f, res
}

// valueBefore reports whether a value option stands among the words before
// rune index at of the literal text every matched command starts with: only
// then can the full template read a different flag context there than the
// option-words template did (a parse that uses a value needs its option).
func (l Launcher) valueBefore(rds []*reading, at int) bool {
	lit, _ := literalSymbols(nil, rds)
	rs := []rune(lit)
	if at > len(rs) {
		return true
	}
	for _, f := range strings.Fields(string(rs[:at])) {
		if slices.Contains(l.ValueOptions, f) {
			return true
		}
	}
	return false
}

// Prepared returns the launcher with its automata built, for a caller that
// asks about many rules (the rating's table): Operand then builds and looks
// up nothing. A prepared launcher must not have its fields changed.
func (l Launcher) Prepared() Launcher {
	b := l
	b.ValueOptions, b.bare, b.full = nil, nil, nil
	l.bare = b.cachedTemplate()
	if len(l.ValueOptions) > 0 {
		l.full = l.cachedTemplate()
	}
	return l
}

// templates caches launcher templates, with option words only and with
// value options (a few dozen launchers, each looked at for every Bash
// rule; policy launchers add theirs).
var (
	templates       sync.Map
	cachedTemplates atomic.Int64
)

// maxCachedTemplates bounds the template cache.
const maxCachedTemplates = 1024

func (l Launcher) cachedTemplate() *machine {
	key := fmt.Sprintf("%q %v %v %q %d", l.Words, l.Assignments, l.PlusOptions, l.ValueOptions, l.Positionals)
	if m, ok := templates.Load(key); ok {
		return m.(*machine)
	}
	m := l.template()
	if cachedTemplates.Add(1) > maxCachedTemplates {
		return m // a policy with endless launchers does not grow the cache
	}
	if m.words > 1 {
		templateClosures.Store(m, closureOf(m))
	}
	templates.Store(key, m)
	return m
}

// search looks for an operand family every reading matches: breadth-first
// over the product of the template and the readings' automata, and at
// every completed prefix (a state vector of the readings) an operand
// search from there.
func (l Launcher) search(w *work, tmpl *machine, rds []*reading) (OperandFamily, searchResult, int) {
	ms := make([]*machine, 0, len(rds)+1)
	ms = append(ms, tmpl)
	for _, rd := range rds {
		ms = append(ms, rd.args)
	}
	al := newOpAlphabet(ms)
	g := newOpGraph(ms, al, 0)
	cur := make([]uint64, g.total)
	for i, m := range ms {
		copy(cur[g.offs[i]:g.offs[i+1]], m.start)
	}
	litText, lit := literalSymbols(al, rds)
	g.lit = lit
	marker := l.marker()
	// The literal text every matched command starts with is one path: walk
	// it without keeping its states (a long literal rule costs its length).
	litRunes := []rune(litText)
	for d := 0; ; d++ {
		if g.universal(cur, 1) {
			rest, res := g.completePrefix(w, cur[:g.offs[1]])
			if res != found {
				return OperandFamily{}, res, -1
			}
			return OperandFamily{Prefix: string(litRunes[:d]) + rest, Head: "x", Loop: "x"}, found, -1
		}
		if intersects(cur[:g.offs[1]], tmpl.accept) {
			f, res := operandFrom(w, al, ms[1:], slices.Clone(cur[g.offs[1]:]), marker, int32(d), lit)
			switch res {
			case found:
				f.Prefix = string(litRunes[:d])
				return f, found, -1
			case gaveUp:
				return OperandFamily{}, gaveUp, -1
			}
		}
		if d == len(lit) {
			break
		}
		if !w.step(g.cost()) {
			return OperandFamily{}, gaveUp, -1
		}
		if !g.step(cur, lit[d], 0) {
			return OperandFamily{}, notFound, d
		}
		copy(cur, g.stepBuf)
	}
	// Past the literal: breadth-first over the product.
	g.base = int32(len(lit))
	g.add(phasePrefix, cur, -1, -1)
	tried := map[string]bool{}
	for head := int32(0); int(head) < len(g.nodes); head++ {
		cur := g.vec(head)
		if head > 0 && g.universal(cur, 1) {
			// Every continuation is matched: complete the prefix, and any
			// operand word follows.
			rest, res := g.completePrefix(w, cur[:g.offs[1]])
			if res != found {
				return OperandFamily{}, res, -1
			}
			return OperandFamily{Prefix: litText + g.spell(head, -1) + rest, Head: "x", Loop: "x"}, found, -1
		}
		if head > 0 && intersects(cur[:g.offs[1]], tmpl.accept) {
			mv := slices.Clone(cur[g.offs[1]:])
			mk := wordsKey(mv)
			if !tried[mk] {
				tried[mk] = true
				f, res := operandFrom(w, al, ms[1:], mv, marker, g.nodes[head].depth, lit)
				switch res {
				case found:
					f.Prefix = litText + g.spell(head, -1)
					return f, found, -1
				case gaveUp:
					return OperandFamily{}, gaveUp, -1
				}
			}
			cur = g.vec(head)
		}
		for _, k := range g.symbols(head) {
			if !w.step(g.cost()) {
				return OperandFamily{}, gaveUp, -1
			}
			if !g.step(cur, k, 0) {
				continue
			}
			g.add(phasePrefix, g.stepBuf, head, int32(k))
			cur = g.vec(head)
		}
	}
	return OperandFamily{}, notFound, -1
}

// completePrefix returns the shortest text that takes the template from
// its state set v to acceptance.
func (g *opGraph) completePrefix(w *work, v []uint64) (string, searchResult) {
	tmpl := g.ms[0]
	if intersects(v, tmpl.accept) {
		return "", found
	}
	t := newOpGraph([]*machine{tmpl}, g.al, 0)
	t.add(phasePrefix, slices.Clone(v), -1, -1)
	for head := int32(0); int(head) < len(t.nodes); head++ {
		for _, k := range g.al.order {
			if !w.step(t.cost()) {
				return "", gaveUp
			}
			if !t.step(t.vec(head), k, 0) {
				continue
			}
			id, isNew := t.add(phasePrefix, t.stepBuf, head, int32(k))
			if isNew && intersects(t.vec(id), tmpl.accept) {
				return t.spell(id, -1), found
			}
		}
	}
	// Every template state completes (its flag contexts are optional).
	w.err = fmt.Errorf("the launcher template does not complete")
	return "", gaveUp
}

// operandFrom looks, from the readings' state vector v at the operand's
// first character, for infinitely many operand words with one tail: a
// cycle of operand characters on a path to acceptance.
func operandFrom(w *work, al *opAlphabet, ms []*machine, v []uint64, marker bool, depth int32, lit []int) (OperandFamily, searchResult) {
	// Inside the literal text every matched command starts with, each node
	// has one depth, so no cycle: an operand word that ends (at a space)
	// inside it is fixed.
	if int(depth) < len(lit) && slices.Contains(lit[depth:], al.symbolOf(operandSpace)) {
		return OperandFamily{}, notFound
	}
	g := newOpGraph(ms, al, 1)
	g.base, g.lit = depth, lit
	g.add(phaseEntry, v, -1, -1)
	for head := int32(0); int(head) < len(g.nodes); head++ {
		phase := g.nodes[head].phase
		cur := g.vec(head)
		if phase == phaseOperand && g.universal(cur, 0) {
			// Every continuation is matched: the word goes on with any
			// operand character.
			return OperandFamily{Head: g.spell(head, phaseEntry), Loop: "x"}, found
		}
		for _, k := range g.symbols(head) {
			r := al.reps[k]
			nphase := phase
			switch phase {
			case phaseEntry:
				if !wordChar.has(r) || (!marker && r == '-') {
					continue
				}
				nphase = phaseOperand
			case phaseOperand:
				switch {
				case r == operandSpace:
					nphase = phaseTail
				case !wordChar.has(r):
					continue
				}
			}
			if !w.step(g.cost()) {
				return OperandFamily{}, gaveUp
			}
			if !g.step(cur, k, 0) {
				continue
			}
			g.add(nphase, g.stepBuf, head, int32(k))
			cur = g.vec(head)
		}
	}
	n := len(g.nodes)
	good := make([]bool, n)
	for i, nd := range g.nodes {
		good[i] = (nd.phase == phaseOperand || nd.phase == phaseTail) && g.accepts(g.vec(int32(i)), 0)
	}
	from, to, syms := g.from, g.to, g.syms
	rev := make([][]int32, n)
	fwd := make([][]int32, n)
	for e := range from {
		rev[to[e]] = append(rev[to[e]], int32(e))
		fwd[from[e]] = append(fwd[from[e]], int32(e))
	}
	// live: the node reaches a good node.
	live := slices.Clone(good)
	queue := make([]int32, 0, n)
	for i := range good {
		if good[i] {
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range rev[x] {
			if p := from[e]; !live[p] {
				live[p] = true
				queue = append(queue, p)
			}
		}
	}
	// The operand subgraph: live operand nodes and the operand-character
	// edges between them. A cycle there is an infinite set of operand
	// words for one tail.
	inSub := func(i int32) bool { return g.nodes[i].phase == phaseOperand && live[i] }
	subEdge := func(e int32) bool { return inSub(from[e]) && inSub(to[e]) }
	indeg := make([]int, n)
	for e := range from {
		if subEdge(int32(e)) {
			indeg[to[e]]++
		}
	}
	removed := make([]bool, n)
	queue = queue[:0]
	for i := 0; i < n; i++ {
		if inSub(int32(i)) && indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		removed[x] = true
		for _, e := range fwd[x] {
			if subEdge(e) {
				if indeg[to[e]]--; indeg[to[e]] == 0 {
					queue = append(queue, to[e])
				}
			}
		}
	}
	q := int32(-1)
	for i := 0; i < n; i++ {
		if inSub(int32(i)) && !removed[i] {
			q = int32(i)
			break
		}
	}
	if q < 0 {
		return OperandFamily{}, notFound
	}
	// Every node left has a predecessor left: walking back n steps lands
	// on a cycle.
	for step := 0; step < n; step++ {
		for _, e := range rev[q] {
			if subEdge(e) && !removed[from[e]] {
				q = from[e]
				break
			}
		}
	}
	spell := func(path []int32) string {
		var sb strings.Builder
		for _, s := range path {
			sb.WriteRune(al.reps[s])
		}
		return sb.String()
	}
	loop := pathBetween(q, func(x int32) bool { return x == q }, fwd, to, syms, subEdge, true)
	rest := pathBetween(q, func(x int32) bool { return good[x] }, fwd, to, syms,
		func(e int32) bool { return live[to[e]] }, false)
	if len(loop) == 0 || (rest == nil && !good[q]) {
		// Cannot happen for a cycle of live nodes; fail closed rather than
		// claim a family that was not found.
		w.err = fmt.Errorf("the operand search lost its path")
		return OperandFamily{}, gaveUp
	}
	cut := len(rest)
	for i, s := range rest {
		if al.reps[s] == operandSpace {
			cut = i
			break
		}
	}
	return OperandFamily{Head: g.spell(q, phaseEntry), Loop: spell(loop), Rest: spell(rest[:cut]), Tail: spell(rest[cut:])}, found
}

// pathBetween returns the symbols of a shortest path from src to a node
// satisfying goal, over the edges ok allows. With nonEmpty the path has at
// least one edge (src may be its own goal: a cycle); otherwise a src that is
// a goal gives the empty path. It returns nil when no path exists.
func pathBetween(src int32, goal func(int32) bool, fwd [][]int32, to, syms []int32, ok func(int32) bool, nonEmpty bool) []int32 {
	if !nonEmpty && goal(src) {
		return nil
	}
	type back struct{ node, edge int32 }
	prev := map[int32]back{}
	seen := map[int32]bool{src: true}
	queue := []int32{src}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range fwd[x] {
			if !ok(e) {
				continue
			}
			y := to[e]
			if goal(y) {
				path := []int32{syms[e]}
				for z := x; z != src; z = prev[z].node {
					path = append(path, syms[prev[z].edge])
				}
				slices.Reverse(path)
				return path
			}
			if !seen[y] {
				seen[y] = true
				prev[y] = back{x, e}
				queue = append(queue, y)
			}
		}
	}
	return nil
}

// opAlphabet is the rune line cut into the classes on which every machine
// of a search behaves the same, each with its most readable rune; order
// lists the symbols most readable first, so that families read well.
type opAlphabet struct {
	reps    []rune
	classes []int // per symbol, per machine: interval index
	width   int   // machines per symbol
	order   []int
	ms      []*machine
	byKey   map[string]int
}

// symbolOf returns the symbol of rune r.
func (al *opAlphabet) symbolOf(r rune) int {
	kb := make([]byte, 0, 4*len(al.ms))
	for _, m := range al.ms {
		kb = binary.LittleEndian.AppendUint32(kb, uint32(m.interval(r)))
	}
	return al.byKey[string(kb)]
}

// literalSymbols returns the literal text every command the readings match
// starts with (the longest of their literal prefixes), and its symbols.
func literalSymbols(al *opAlphabet, rds []*reading) (string, []int) {
	lit := ""
	for _, rd := range rds {
		if len(rd.prefix) > len(lit) {
			lit = rd.prefix
		}
	}
	if al == nil {
		return lit, nil
	}
	out := make([]int, 0, len(lit))
	for _, r := range lit {
		out = append(out, al.symbolOf(r))
	}
	return lit, out
}

func newOpAlphabet(ms []*machine) *opAlphabet {
	var bounds []rune
	for _, m := range ms {
		bounds = append(bounds, m.bounds...)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	al := &opAlphabet{width: len(ms), ms: ms}
	seen := map[string]int{}
	al.byKey = seen
	vec := make([]int, len(ms))
	kb := make([]byte, 0, 4*len(ms))
	for i, lo := range bounds {
		hi := maxRune
		if i+1 < len(bounds) {
			hi = bounds[i+1] - 1
		}
		kb = kb[:0]
		for j, m := range ms {
			vec[j] = m.interval(lo)
			kb = binary.LittleEndian.AppendUint32(kb, uint32(vec[j]))
		}
		r := representative(lo, hi)
		if k, ok := seen[string(kb)]; ok {
			if runeRank(r) < runeRank(al.reps[k]) {
				al.reps[k] = r
			}
			continue
		}
		seen[string(kb)] = len(al.reps)
		al.reps = append(al.reps, r)
		al.classes = append(al.classes, vec...)
	}
	al.order = make([]int, len(al.reps))
	for k := range al.order {
		al.order[k] = k
	}
	slices.SortStableFunc(al.order, func(a, b int) int { return runeRank(al.reps[a]) - runeRank(al.reps[b]) })
	return al
}
