package lattice

import (
	"context"
	"sync"
	"sync/atomic"
)

// Work is counted in steps: one step is one machine word advanced on one
// symbol from one search state (a search of m one-word machines expanding s
// states over an alphabet of k symbols costs at most s·k·m steps), plus one
// step per alphabet interval examined. States alone do not bound the time:
// a pattern with 512 distinct runes has an alphabet of over 500 symbols, so
// each state costs hundreds of times more than in a typical rule. A step is
// a few nanoseconds on one core.
const (
	// DefaultSearchSteps bounds one search (one Covers, Find or Match
	// question) when the context carries no Budget: about 30 ms of CPU.
	// Real rules need a few hundred steps.
	DefaultSearchSteps = 2_000_000
	// DefaultTotalSteps is the budget NewBudget(0, 0) gives a whole
	// comparison: about half a second of CPU on one core. The engine
	// charges to it everything that grows with the input, not only the
	// searches: each question's set-up, compiling each rule, reading other
	// agents' files, parsing shell lines (a step stands for about 25 ns of
	// that work; see docs/benchmarks.md, "Round 3"). The costliest
	// realistic shape measured, 2,000 rules with stars mid-pattern that
	// the engine looks past read-only witnesses of, needs 17.1 M (14.4 M
	// of searches, the rest compiling its rules).
	DefaultTotalSteps = 20_000_000
)

// Budget bounds the work of every lattice search that runs under one
// context: a total for all of them and a cap for each one. A search that
// would exceed either stops and answers Unknown, so that a hostile rule
// costs at most the budget and the caller fails closed. A Budget is safe for
// concurrent use; one is meant for one comparison.
type Budget struct {
	total, per int64
	used       atomic.Int64
	gaveUp     atomic.Int64
	canceled   atomic.Int64

	// indexes caches the rule indexes of the comparison's rule sets
	// (index.go): the engine asks about one pool of rules many times.
	mu      sync.Mutex
	indexes map[indexKey]cachedIndex
	// small caches the indexes of sets too small to index by rule
	// (under minCachedRules) apart, so that callers building a fresh small
	// slice per question never evict the large ones.
	small map[indexKey]cachedIndex
	// exact caches Exactly by call (exceptRules).
	exact map[Call]Rule
}

// maxCachedExact bounds the exact rules one Budget keeps.
const maxCachedExact = 4096

// exactly is Exactly(c), cached in b when b is not nil.
func (b *Budget) exactly(c Call) Rule {
	if b == nil {
		return Exactly(c)
	}
	b.mu.Lock()
	r, ok := b.exact[c]
	b.mu.Unlock()
	if ok {
		return r
	}
	r = Exactly(c)
	b.mu.Lock()
	if b.exact == nil || len(b.exact) >= maxCachedExact {
		b.exact = map[Call]Rule{}
	}
	b.exact[c] = r
	b.mu.Unlock()
	return r
}

// NewBudget returns a budget of total steps for every search together and
// perSearch steps for each (zero or less takes DefaultTotalSteps and
// DefaultSearchSteps).
func NewBudget(total, perSearch int64) *Budget {
	if total <= 0 {
		total = DefaultTotalSteps
	}
	if perSearch <= 0 {
		perSearch = DefaultSearchSteps
	}
	return &Budget{total: total, per: perSearch}
}

// Used is the number of steps spent so far.
func (b *Budget) Used() int64 { return b.used.Load() }

// Total is the budget's total in steps.
func (b *Budget) Total() int64 { return b.total }

// GaveUp is the number of searches that stopped on a limit of the budget
// (their questions answered Unknown).
func (b *Budget) GaveUp() int64 { return b.gaveUp.Load() }

// Canceled is the number of searches that stopped because the context was
// done.
func (b *Budget) Canceled() int64 { return b.canceled.Load() }

// Exhausted reports whether the total is spent: every later search under
// this budget answers Unknown at once.
func (b *Budget) Exhausted() bool { return b.used.Load() >= b.total }

// Spend charges n steps of work done outside the searches (compiling a
// file's rules, say) to the budget and reports whether any was left
// before it: once the total is spent, a caller must not start such work
// but fail closed, as a search does.
func (b *Budget) Spend(n int64) bool {
	if b.used.Load() >= b.total {
		return false
	}
	b.used.Add(n)
	return true
}

// limit is what the next search may spend.
func (b *Budget) limit() int64 {
	return min(b.per, b.total-b.used.Load())
}

// questionSteps is what one question (a Covers, Equivalent, Find or
// CoveredBy) is charged before any search: its set-up (parsing the
// rules' readings, looking up indexes and memos, building the verdict)
// costs about as much as a dozen search steps, and a question answered by
// a fast path (prefixes that cannot agree, a memoized shortest call)
// spends no step at all otherwise. Charging it bounds the number of
// questions a comparison can ask, so that a loop over pairs of rules is
// bounded by the budget too.
const questionSteps = 16

// ask charges one question to the budget ctx carries and reports whether
// it may be answered: once the total is spent (or the context is done)
// every question answers Unknown at once, counted as a search that gave
// up, whatever fast path it could have taken — after the budget, each
// question costs a few nanoseconds, not its set-up.
func ask(ctx context.Context) bool {
	b := BudgetOf(ctx)
	if b == nil {
		return true
	}
	if ctx.Err() != nil {
		b.canceled.Add(1)
		return false
	}
	if b.used.Load() >= b.total {
		b.gaveUp.Add(1)
		return false
	}
	b.used.Add(questionSteps)
	return true
}

type budgetKey struct{}

// WithBudget returns a context whose lattice searches draw on b.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetOf returns the budget the context carries, or nil.
func BudgetOf(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// meter is the accounting of one search.
type meter struct {
	ctx    context.Context
	budget *Budget // nil: DefaultSearchSteps per search, no total
	limit  int64
	spent  int64
}

func newMeter(ctx context.Context) meter {
	if ctx == nil {
		ctx = context.Background()
	}
	m := meter{ctx: ctx, budget: BudgetOf(ctx), limit: DefaultSearchSteps}
	if m.budget != nil {
		m.limit = m.budget.limit()
	}
	return m
}

// over reports whether the search has spent its limit.
func (m *meter) over() bool { return m.spent > m.limit }

// done settles the search's spending with the budget; res says how it
// ended.
func (m *meter) done(res searchResult) {
	if m.budget == nil {
		return
	}
	m.budget.used.Add(m.spent)
	if res == gaveUp {
		if m.ctx.Err() != nil {
			m.budget.canceled.Add(1)
		} else {
			m.budget.gaveUp.Add(1)
		}
	}
}
