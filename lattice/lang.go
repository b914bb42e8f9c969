package lattice

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// This file is the agent-neutral face of the lattice: a regular expression
// tree (RE) any agent adapter builds from its own rule language (a
// Cursor or OpenCode glob, a VS Code JavaScript regex, a Codex token
// prefix), compiled to the same automata Claude Code's rules compile to,
// and one decision procedure over them (FindLang). Precedence, defaults
// and what a rule means stay in the adapter; the lattice only answers
// "is there a string in these languages and in none of those".

// REOp is the operator of an RE node.
type REOp int

const (
	// RENone matches nothing.
	RENone REOp = iota
	// REEmpty matches the empty string only.
	REEmpty
	// RELiteral matches Text.
	RELiteral
	// REClass matches one rune of Ranges (pairs lo, hi), or of their
	// complement when Negate is set.
	REClass
	// RECat matches its Subs in sequence.
	RECat
	// REAlt matches any of its Subs.
	REAlt
	// RERepeat matches Subs[0] between Min and Max times (Max < 0:
	// unbounded).
	RERepeat
)

// RE is a regular expression over runes. Build it with the constructors
// (Lit, AnyRune, Class, Cat, Alt, Star, Plus, Opt, Repeat).
type RE struct {
	Op       REOp
	Text     string
	Ranges   []rune
	Negate   bool
	Subs     []RE
	Min, Max int
}

// Lit matches s exactly.
func Lit(s string) RE { return RE{Op: RELiteral, Text: s} }

// AnyRune matches any one rune.
func AnyRune() RE { return RE{Op: REClass, Negate: true} }

// Class matches one rune of the ranges (pairs lo, hi), or of their
// complement when negate is set.
func Class(negate bool, ranges ...rune) RE {
	return RE{Op: REClass, Negate: negate, Ranges: append([]rune(nil), ranges...)}
}

// Cat matches its parts in sequence.
func Cat(parts ...RE) RE { return RE{Op: RECat, Subs: parts} }

// Alt matches any one of its alternatives (none: nothing).
func Alt(alts ...RE) RE { return RE{Op: REAlt, Subs: alts} }

// Star matches zero or more repetitions of r.
func Star(r RE) RE { return Repeat(r, 0, -1) }

// Plus matches one or more repetitions of r.
func Plus(r RE) RE { return Repeat(r, 1, -1) }

// Opt matches r or the empty string.
func Opt(r RE) RE { return Repeat(r, 0, 1) }

// Repeat matches between lo and hi repetitions of r (hi < 0: unbounded).
func Repeat(r RE, lo, hi int) RE { return RE{Op: RERepeat, Subs: []RE{r}, Min: lo, Max: hi} }

// Everything matches every string.
func Everything() RE { return Star(AnyRune()) }

// Lang is a compiled regular language: the automaton of an RE.
type Lang struct {
	m     *machine
	empty bool // accepts the empty string
	none  bool // accepts nothing
}

// ErrLangTooLarge is returned by Compile for an expression whose
// automaton would exceed the lattice's bound (a bounded repetition of a
// long group); callers treat the rule as Unknown and fail closed.
var ErrLangTooLarge = errors.New("the pattern is too large to decide (its automaton exceeds the lattice's bound)")

// Compile builds the automaton of an RE.
func Compile(r RE) (*Lang, error) {
	b := newBuilder()
	c := &reCompiler{b: b}
	if err := c.emit(r); err != nil {
		return nil, err
	}
	if len(b.adv) > maxMachineStates {
		return nil, ErrLangTooLarge
	}
	l := &Lang{m: b.build()}
	l.empty = intersects(l.m.start, l.m.accept)
	l.none = !c.any
	return l, nil
}

// MustCompile is Compile for expressions known to be small (tests, tables).
func MustCompile(r RE) *Lang {
	l, err := Compile(r)
	if err != nil {
		panic(fmt.Sprintf("lattice.MustCompile: %v", err))
	}
	return l
}

// Match reports whether s is in the language.
func (l *Lang) Match(s string) bool {
	if l == nil || l.none {
		return false
	}
	if s == "" {
		return l.empty
	}
	return l.m.run(s)
}

var universe = MustCompile(Everything())

// FindLang searches for the shortest readable non-empty string in every
// language of must (every string when must is empty) and in none of
// mustNot. Yes comes with the string (a witness); No means there is none;
// Unknown means the context's Budget or the context itself stopped the
// search: callers count it as a grant.
func FindLang(ctx context.Context, must, mustNot []*Lang) (string, Answer) {
	var ms, ns []*machine
	for _, l := range must {
		if l == nil || l.none {
			return "", No
		}
		ms = append(ms, l.m)
	}
	if len(ms) == 0 {
		ms = append(ms, universe.m)
	}
	for _, l := range mustNot {
		if l != nil && !l.none {
			ns = append(ns, l.m)
		}
	}
	w, res := findWord(ctx, ms, ns)
	switch res {
	case found:
		return w, Yes
	case notFound:
		return "", No
	}
	return "", Unknown
}

// reCompiler lays an RE out on the position builder: every sub-expression
// enters at the builder's current position and leaves at its new one.
type reCompiler struct {
	b   *builder
	any bool // some path reads a word (RENone everywhere: nothing)
}

// fresh adds a position reached from the current one by no rune.
func (c *reCompiler) fresh() int {
	c.b.char(noChar)
	return c.b.pos()
}

func (c *reCompiler) emit(r RE) error {
	if len(c.b.adv) > maxMachineStates {
		return ErrLangTooLarge
	}
	switch r.Op {
	case RENone:
		c.fresh() // a dead position: nothing crosses it
		return nil
	case REEmpty:
		c.any = true
		return nil
	case RELiteral:
		c.any = true
		c.b.lit(r.Text)
		return nil
	case REClass:
		c.any = true
		c.b.char(classSet(r))
		return nil
	case RECat:
		c.any = true
		for _, s := range r.Subs {
			if err := c.emit(s); err != nil {
				return err
			}
		}
		return nil
	case REAlt:
		if len(r.Subs) == 0 {
			c.fresh()
			return nil
		}
		if len(r.Subs) == 1 {
			return c.emit(r.Subs[0])
		}
		c.any = true
		entry := c.b.pos()
		var exits []int
		for _, s := range r.Subs {
			start := c.fresh()
			c.b.epsilon(entry, start)
			if err := c.emit(s); err != nil {
				return err
			}
			exits = append(exits, c.b.pos())
		}
		join := c.fresh()
		for _, x := range exits {
			c.b.epsilon(x, join)
		}
		return nil
	case RERepeat:
		if len(r.Subs) != 1 {
			return fmt.Errorf("lattice: a repetition takes one expression, not %d", len(r.Subs))
		}
		s := r.Subs[0]
		lo, hi := r.Min, r.Max
		if lo < 0 || (hi >= 0 && hi < lo) {
			return fmt.Errorf("lattice: repetition {%d,%d} is not valid", lo, hi)
		}
		c.any = true
		for i := 0; i < lo; i++ {
			if err := c.emit(s); err != nil {
				return err
			}
		}
		if hi < 0 {
			if s.Op == REClass {
				c.b.star(classSet(s))
				return nil
			}
			entry := c.b.pos()
			start := c.fresh()
			c.b.epsilon(entry, start)
			if err := c.emit(s); err != nil {
				return err
			}
			end := c.b.pos()
			c.b.epsilon(end, start)
			exit := c.fresh()
			c.b.epsilon(end, exit)
			c.b.epsilon(entry, exit)
			return nil
		}
		for i := lo; i < hi; i++ {
			entry := c.b.pos()
			start := c.fresh()
			c.b.epsilon(entry, start)
			if err := c.emit(s); err != nil {
				return err
			}
			c.b.epsilon(entry, c.b.pos())
		}
		return nil
	}
	return fmt.Errorf("lattice: unknown expression operator %d", r.Op)
}

func classSet(r RE) charset {
	var spans []span
	for i := 0; i+1 < len(r.Ranges); i += 2 {
		if r.Ranges[i] <= r.Ranges[i+1] {
			spans = append(spans, span{r.Ranges[i], r.Ranges[i+1]})
		}
	}
	return charset{spans: spans, neg: r.Negate}
}

// String writes the RE in a regex-like notation, for messages and tests.
func (r RE) String() string {
	var sb strings.Builder
	r.write(&sb)
	return sb.String()
}

func (r RE) write(sb *strings.Builder) {
	switch r.Op {
	case RENone:
		sb.WriteString("∅")
	case REEmpty:
		sb.WriteString("()")
	case RELiteral:
		sb.WriteString(fmt.Sprintf("%q", r.Text))
	case REClass:
		if r.Negate && len(r.Ranges) == 0 {
			sb.WriteString(".")
			return
		}
		sb.WriteString("[")
		if r.Negate {
			sb.WriteString("^")
		}
		for i := 0; i+1 < len(r.Ranges); i += 2 {
			sb.WriteRune(r.Ranges[i])
			if r.Ranges[i+1] != r.Ranges[i] {
				sb.WriteString("-")
				sb.WriteRune(r.Ranges[i+1])
			}
		}
		sb.WriteString("]")
	case RECat:
		for _, s := range r.Subs {
			s.write(sb)
		}
	case REAlt:
		sb.WriteString("(")
		for i, s := range r.Subs {
			if i > 0 {
				sb.WriteString("|")
			}
			s.write(sb)
		}
		sb.WriteString(")")
	case RERepeat:
		sb.WriteString("(")
		if len(r.Subs) == 1 {
			r.Subs[0].write(sb)
		}
		sb.WriteString(fmt.Sprintf("){%d,%d}", r.Min, r.Max))
	}
}
