package lattice

import (
	"context"
	"strings"
)

// Find looks for one call that every rule in all surely matches and no rule
// in none may match. It answers Yes with the call, No when no such call
// exists, and Unknown when the question mixes shapes it cannot search
// together (rules of different tools or anchors, parameter rules) or hits
// a bound. The review engine uses it for questions over sets of rules:
// "what does this new allow rule let through that the deny and ask rules
// do not stop and the old allow rules did not already grant?".
//
// Find reads rules the way Covers does: every reading of an all rule must
// match, no reading of a none rule may. A No is therefore a claim about
// what the all rules surely match; callers claiming full coverage of an
// ambiguous rule must check Ambiguous themselves.
//
// Find draws on DefaultSearchSteps per search; FindContext is the form a
// context cancels and a Budget bounds.
func Find(all, none []Rule) (Call, Answer) { return FindContext(context.Background(), all, none) }

// FindContext is Find under a context: when the context is done or its
// Budget is spent the answer is Unknown (the Budget counts the search that
// gave up, so a caller can tell a limit from a mix of shapes).
func FindContext(ctx context.Context, all, none []Rule) (Call, Answer) {
	return findExcept(ctx, all, none, nil)
}

// exceptRules are the calls of except as rules that match exactly them.
// They are cached in the context's Budget: a caller looking past witnesses
// asks again with the same calls and one more each time.
func exceptRules(ctx context.Context, except []Call) []Rule {
	if len(except) == 0 {
		return nil
	}
	b := BudgetOf(ctx)
	out := make([]Rule, len(except))
	for i, c := range except {
		out[i] = b.exactly(c)
	}
	return out
}

// findExcept is Find with extra none rules kept apart from the indexed
// (and cached) none set: a caller that grows the set by a few exact calls
// per question does not copy or re-index thousands of rules.
func findExcept(ctx context.Context, all, none, extra []Rule) (Call, Answer) {
	c, ans := find(ctx, all, none, extra)
	if ans == Yes {
		c = recased(parsed(all[0]), c)
	}
	return c, ans
}

// mergeLiterals says find searches past the literal extra rules with one
// trie machine per chunk of them (literalUnion) rather than one machine
// each; a test turns it off to hold the two to the same answers.
var mergeLiterals = true

func find(ctx context.Context, all, none, extra []Rule) (Call, Answer) {
	if len(all) == 0 {
		return Call{}, No
	}
	if !ask(ctx) {
		return Call{}, Unknown
	}
	if alts, ok, complete := unionAlternatives(all); ok {
		// A rule with union parts (Rule.also) matches a call when one of
		// its parts does: look for a call of each choice of parts.
		ans := No
		for _, alt := range alts {
			c, a := find(ctx, alt, none, extra)
			switch a {
			case Yes:
				return c, Yes
			case Unknown:
				ans = Unknown
			}
		}
		if !complete {
			ans = Unknown
		}
		return Call{}, ans
	}
	var must []*reading
	for _, r := range all {
		r = parsed(r)
		for _, rd := range r.readings {
			if rd.kind == readEmpty {
				return Call{}, No
			}
			switch _, res := rd.shortest(ctx); res {
			case notFound:
				return Call{}, No
			case gaveUp:
				return Call{}, Unknown
			}
			must = append(must, rd)
		}
	}
	// noneRs visits every reading of the none rules without copying them.
	noneRs := func(yield func(*reading) bool) {
		for _, set := range [2][]Rule{none, extra} {
			for i := range set {
				rs := set[i].readings
				also := set[i].also
				if len(rs) == 0 {
					p := parsed(set[i])
					rs, also = p.readings, p.also
				}
				if len(also) > 0 {
					rs = append(rs[:len(rs):len(rs)], also...) // a union part may match too
				}
				for _, rd := range rs {
					if !yield(rd) {
						return
					}
				}
			}
		}
	}
	ix := indexOf(ctx, none)
	verify := func(c Call) bool {
		for _, r := range all {
			if MatchContext(ctx, r, c) != Yes {
				return false
			}
		}
		for i := range extra {
			if mayMatch(&extra[i], c) && MatchContext(ctx, extra[i], c) != No {
				return false
			}
		}
		return !ix.mayStop(ctx, none, c)
	}
	var target *reading
	for _, rd := range must {
		if rd.kind != readArgs {
			continue
		}
		if target == nil {
			target = rd
			continue
		}
		if rd.tool != target.tool || rd.arg != target.arg || rd.param != target.param || rd.zone != target.zone || rd.fold != target.fold {
			return findByExamples(verify)
		}
	}
	if target == nil {
		return findName(ctx, must, noneRs, verify)
	}
	if target.param != "" {
		return findByExamples(verify)
	}
	for _, rd := range must {
		if rd.kind == readNames && !rd.names.run(target.tool) {
			return Call{}, No
		}
	}
	var mustM, notM []*machine
	prefix, suffix := "", ""
	nargs := 0
	for _, rd := range must {
		if rd.kind == readArgs {
			nargs++
			mustM = append(mustM, rd.args)
			if len(rd.prefix) > len(prefix) {
				prefix = rd.prefix
			}
			if len(rd.args.suffix) > len(suffix) {
				suffix = rd.args.suffix
			}
		}
	}
	if nargs == len(must) {
		// Early exit: a must reading's shortest member, when every all
		// rule matches it and no none rule does, is the shortest call the
		// search would find (the least word of a language stays least in
		// any sublanguage holding it), found in one pass over the rules.
		for _, rd := range must {
			if c, res := rd.shortest(ctx); res == found && verify(c) {
				return c, Yes
			}
		}
	}
	for _, rd := range ix.names {
		if rd.names.run(target.tool) {
			return Call{}, No
		}
	}
	compatible := func(rd *reading) bool {
		if !strings.HasPrefix(prefix, rd.prefix) && !strings.HasPrefix(rd.prefix, prefix) {
			return false // starts with other text: it cannot match any call of the target
		}
		rs := rd.args.suffix
		return strings.HasSuffix(suffix, rs) || strings.HasSuffix(rs, suffix) // or ends with other text
	}
	var lits []*reading
	for i := range extra {
		for _, rd := range extra[i].readings {
			if rd.kind == readArgs && rd.tool == target.tool && rd.param == "" && rd.zone == target.zone && rd.arg == target.arg && compatible(rd) {
				if mergeLiterals && rd.isLit && rd.literal != "" {
					lits = append(lits, rd)
					continue
				}
				notM = append(notM, rd.args)
			}
		}
	}
	if len(lits) == 1 {
		notM = append(notM, lits[0].args)
	} else if len(lits) > 1 {
		// The calls a caller looks past, one machine for many: the same
		// language, so the same witness, for fewer steps.
		words := make([]string, len(lits))
		for i, rd := range lits {
			words[i] = rd.literal
		}
		notM = append(notM, literalUnion(words)...)
	}
	// Readings of other tools, zones or with a parameter are checked on
	// the witness by verify; the index yields the others whose literal
	// ends could agree with the target's.
	if g := ix.groups[groupKey{tool: target.tool, zone: target.zone, arg: target.arg}]; g != nil {
		g.each(prefix, suffix, func(e indexed) bool {
			if compatible(e.rd) {
				notM = append(notM, e.rd.args)
			}
			return true
		})
	}
	mk := func(w string) Call {
		if target.arg == argPath {
			return Call{Tool: target.tool, Arg: formatPath(target.zone, w)}
		}
		return Call{Tool: target.tool, Arg: w}
	}
	w, res := findWord(ctx, with(domainOf(target.arg), mustM...), notM)
	switch res {
	case notFound:
		return Call{}, No
	case gaveUp:
		return Call{}, Unknown
	}
	if target.arg == argShell && !isTidyCommand(w) {
		if w2, res2 := findWord(ctx, append(append([]*machine(nil), mustM...), tidyCommandDomain), notM); res2 == found {
			w = w2
		}
	}
	if c := mk(w); verify(c) {
		return c, Yes
	}
	if target.arg == argPath && target.zone != zoneRoot && len(must) == 1 {
		// A filesystem-root rule of none matched the witness wherever the
		// project or home lies. Search where they lie: a path under some
		// directory that the target matches and the root rules do not.
		var rootM []*machine
		for rd := range noneRs {
			if rd.kind == readArgs && rd.tool == target.tool && rd.param == "" && rd.zone == zoneRoot {
				rootM = append(rootM, rd.args)
			}
		}
		w, res := findWord(ctx, []*machine{target.anyDirMachine(), pathDomain}, rootM)
		switch res {
		case notFound:
			return Call{}, No // the root rules alone cover the target everywhere
		case found:
			for i := 0; i < len(w); i++ {
				if w[i] == '/' {
					if c := mk(w[i+1:]); verify(c) {
						return c, Yes
					}
				}
			}
		}
	}
	return findByExamples(verify)
}

// findName answers Find when every all-reading is a tool-name language.
func findName(ctx context.Context, must []*reading, none func(func(*reading) bool), verify func(Call) bool) (Call, Answer) {
	for _, t := range sampleNames {
		if c := (Call{Tool: t}); verify(c) {
			return c, Yes
		}
	}
	var mustM, notM []*machine
	for _, rd := range must {
		mustM = append(mustM, rd.names)
	}
	for rd := range none {
		if rd.kind == readNames {
			notM = append(notM, rd.names)
		}
	}
	w, res := findWord(ctx, append(mustM, nameDomain), notM)
	switch res {
	case notFound:
		return Call{}, No
	case gaveUp:
		return Call{}, Unknown
	}
	if c := (Call{Tool: w}); verify(c) {
		return c, Yes
	}
	// Some argument rule of that tool excludes the bare call: try one with
	// an argument no rule names.
	for _, arg := range []string{"x", "/etc/passwd", "evil.example.com"} {
		if c := (Call{Tool: w, Arg: arg}); verify(c) {
			return c, Yes
		}
	}
	return findByExamples(verify)
}

// findByExamples falls back to the recognisable example calls.
func findByExamples(verify func(Call) bool) (Call, Answer) {
	for _, c := range exampleCalls {
		if verify(c) {
			return c, Yes
		}
	}
	return Call{}, Unknown
}

// CoveredBy decides whether the rules of others together allow every call r
// allows: Yes, No with a witness r matches and none of others does, or
// Unknown. It is Covers for a set: `Bash(npm test *)` and `Bash(npm run *)`
// together cover `Bash(npm run lint)`. With ambiguous rules involved it
// answers Yes only when what r may match lies inside what the others surely
// match.
func CoveredBy(r Rule, others []Rule) Verdict {
	return CoveredByContext(context.Background(), r, others)
}

// CoveredByContext is CoveredBy under a context and its Budget; an answer
// the budget or the context cut short is Unknown with TooComplex set.
func CoveredByContext(ctx context.Context, r Rule, others []Rule) Verdict {
	return coveredBy(ctx, r, others, nil)
}

// CoveredByExceptContext is CoveredByContext with the calls of except
// counted among the others (each as a rule matching exactly it), without
// copying others: see FindNExceptContext.
func CoveredByExceptContext(ctx context.Context, r Rule, others []Rule, except []Call) Verdict {
	return coveredBy(ctx, r, others, exceptRules(ctx, except))
}

func coveredBy(ctx context.Context, r Rule, others, extra []Rule) Verdict {
	r = parsed(r)
	gave := gaveUpCount(ctx)
	if BudgetOf(ctx) != nil && len(others) >= minCachedRules {
		// A large pool: its (cached) index holds the rules' texts.
		if indexOf(ctx, others).hasRule(others, &r) {
			return Verdict{Answer: Yes, Reason: "the same rule"}
		}
	} else {
		for i := range others { // by index: a Rule is large to copy
			if o := &others[i]; o.Text == r.Text && o.List == r.List {
				return Verdict{Answer: Yes, Reason: "the same rule"}
			}
		}
	}
	c, ans := findExcept(ctx, []Rule{r}, others, extra)
	switch ans {
	case Yes:
		return Verdict{Answer: No, Witness: c, Reason: label(r) + " matches " + c.String() + ", none of the other rules does"}
	case Unknown:
		if gaveUpCount(ctx) != gave || ctx.Err() != nil {
			return Verdict{Answer: Unknown, TooComplex: true, Reason: tooComplexReason(ctx)}
		}
		return Verdict{Answer: Unknown, Reason: "the rules mix tools, anchors or parameters the search cannot compare together"}
	}
	// Find read r narrowly and the others widely. That is exact unless an
	// ambiguous rule is involved; then only a single rule covering r in
	// every reading proves it.
	var doubt *Rule
	if r.Ambiguous() {
		doubt = &r
	}
	var amb []int32 // the ambiguous others, in order
	if doubt == nil {
		if BudgetOf(ctx) != nil && len(others) >= minCachedRules {
			amb = indexOf(ctx, others).ambiguousRules(others)
		} else {
			amb = ambiguousRules(others)
		}
	}
	for _, i := range amb {
		if doubt != nil {
			break
		}
		// others[i] matters when the others without it no longer cover r.
		rest := append(append([]Rule(nil), others[:i]...), others[i+1:]...)
		if _, a := findExcept(ctx, []Rule{r}, rest, extra); a != No {
			doubt = &others[i]
		}
	}
	if doubt == nil {
		return Verdict{Answer: Yes, Reason: "every call " + label(r) + " matches, one of the other rules matches too"}
	}
	for _, o := range others {
		if v := CoversContext(ctx, o, r); v.Answer == Yes {
			return Verdict{Answer: Yes, Reason: v.Reason}
		}
	}
	return Verdict{Answer: Unknown, Reason: label(*doubt) + ": " + doubt.Ambiguity}
}

// FindN is Find returning up to n calls: recognisable consequential calls
// first (publishing, force-pushing, running code, reading credentials),
// then the one the search found. The Answer is Find's.
func FindN(all, none []Rule, n int) ([]Call, Answer) {
	return FindNContext(context.Background(), all, none, n)
}

// FindNContext is FindN under a context and its Budget.
func FindNContext(ctx context.Context, all, none []Rule, n int) ([]Call, Answer) {
	return findN(ctx, all, none, nil, n)
}

// FindNExceptContext is FindNContext with the calls of except counted
// among the none rules (each as a rule matching exactly it) without copying
// none: a caller that sets aside a few calls per question and asks again
// keeps the large rule set, and its cached index, as it is.
func FindNExceptContext(ctx context.Context, all, none []Rule, except []Call, n int) ([]Call, Answer) {
	return findN(ctx, all, none, exceptRules(ctx, except), n)
}

func findN(ctx context.Context, all, none, extra []Rule, n int) ([]Call, Answer) {
	c, ans := findExcept(ctx, all, none, extra)
	if ans != Yes || n <= 0 {
		return nil, ans
	}
	ix := indexOf(ctx, none)
	var out []Call
	for _, e := range exampleCalls {
		if len(out) >= n-1 {
			break
		}
		if e == c {
			continue
		}
		if e.Tool != c.Tool {
			continue
		}
		ok := true
		for _, r := range all {
			if MatchContext(ctx, r, e) != Yes {
				ok = false
				break
			}
		}
		for i := 0; ok && i < len(extra); i++ {
			if mayMatch(&extra[i], e) && MatchContext(ctx, extra[i], e) != No {
				ok = false
			}
		}
		if ok && ix.mayStop(ctx, none, e) {
			ok = false
		}
		if ok {
			out = append(out, e)
		}
	}
	if c.Arg == "" && len(out) > 0 && KnownTool(c.Tool) {
		// A bare tool name ("Bash") says less than the concrete calls
		// already listed.
		return out, Yes
	}
	return append(out, c), Yes
}

// MayMatch is a cheap, exact test that rules out rule r matching call c:
// when it reports false, Match(r, c) answers No (r is of another tool, or
// every argument it matches starts, ends or runs with other text than c's).
// True decides nothing.
func MayMatch(r Rule, c Call) bool { return mayMatch(&r, c) }

// mayMatch is a cheap test that rules out a rule matching a call: a rule
// of another tool, or whose every argument starts with other text.
func mayMatch(r *Rule, c Call) bool {
	rs := r.readings
	if len(rs) == 0 {
		p := parsed(*r)
		r = &p
		rs = p.readings
	}
	if len(r.also) > 0 {
		rs = append(rs[:len(rs):len(rs)], r.also...)
	}
	if hasBlankRun(c) {
		return true // Match reads the blanks collapsed too (match.go)
	}
	for _, rd := range rs {
		switch rd.kind {
		case readNames:
			return true
		case readArgs:
			if rd.tool != c.Tool {
				continue
			}
			if rd.arg == argShell && !rd.fold && !strings.HasPrefix(c.Arg, rd.prefix) {
				continue
			}
			// Every argument the reading matches contains its required
			// literal (and, for shell and path readings, ends with its
			// suffix): one text search rules most rules out.
			if rd.fold || rd.param != "" {
				return true
			}
			text := c.Arg
			switch rd.arg {
			case argShell:
			case argPath:
				// Only within one zone: a root pattern matches a home or
				// project path through the directories above it.
				z, rel := splitPath(c.Arg)
				if z != rd.zone {
					return true
				}
				text = rel
			default:
				return true
			}
			if !strings.HasSuffix(text, rd.args.suffix) || !strings.Contains(text, rd.args.required) {
				continue
			}
			return true
		}
	}
	return false
}

// guardedFlags are the find options Claude Code (2.1.113+) never lets a
// wildcard allow rule approve: `Bash(find *)` does not run `find -exec`
// or `find -delete` without a prompt (earlier versions did).
var guardedFlags = []string{"-exec", "-execdir", "-ok", "-okdir", "-delete"}

// guardedForms are the commands of guardedFlags: "find … -delete …".
var guardedForms = func() []*machine {
	var out []*machine
	for _, f := range guardedFlags {
		b := newBuilder()
		b.lit("find ")
		b.star(anyChar)
		b.lit(f)
		b.acceptHere()
		b.lit(" ")
		b.star(anyChar)
		out = append(out, b.build())
	}
	return out
}()

// GuardedCall returns a command a Bash rule matches that Claude Code
// 2.1.113+ never approves through a wildcard allow rule (find with -exec,
// -execdir, -ok, -okdir or -delete), and false when the rule matches none.
// An allow rule that names such a command explicitly is new authority even
// where a base rule such as Bash(find *) textually covers it.
func GuardedCall(r Rule) (Call, bool) { return GuardedCallContext(context.Background(), r) }

// GuardedCallContext is GuardedCall under a context and its Budget. A
// search cut short reports the first guarded form as possible (true, with
// a representative call): the guard then errs towards new authority.
func GuardedCallContext(ctx context.Context, r Rule) (Call, bool) {
	r = parsed(r)
	for _, rd := range r.readings {
		if rd.kind != readArgs || rd.arg != argShell || rd.fold {
			continue
		}
		if !strings.HasPrefix(rd.prefix, "find") && !strings.HasPrefix("find ", rd.prefix) {
			continue
		}
		for _, g := range guardedForms {
			switch w, res := findWord(ctx, []*machine{rd.args, g}, nil); res {
			case found:
				return Call{Tool: rd.tool, Arg: w}, true
			case gaveUp:
				return Call{Tool: rd.tool, Arg: "find . -delete"}, true
			}
		}
	}
	return Call{}, false
}

// gaveUpCount is the number of searches under ctx's Budget that stopped on
// a limit (0 without a Budget).
func gaveUpCount(ctx context.Context) int64 {
	if b := BudgetOf(ctx); b != nil {
		return b.GaveUp() + b.Canceled()
	}
	return 0
}

// maxUnionAlternatives bounds the choices unionAlternatives makes (each is
// a search of its own).
const maxUnionAlternatives = 16

// unionAlternatives splits a set of rules that must all match, when one of
// them has union parts (Rule.also), into the sets of one-part rules a call
// matching them all must match one of: each rule with parts is replaced by
// its own readings or by one of its parts. split is false when no rule of
// all has parts; complete is false when the choices were cut at
// maxUnionAlternatives.
func unionAlternatives(all []Rule) (alts [][]Rule, split, complete bool) {
	alts, complete = [][]Rule{nil}, true
	for _, r := range all {
		r = parsed(r)
		parts := r.unionParts()
		if len(parts) == 1 {
			for i := range alts {
				alts[i] = append(alts[i], r)
			}
			continue
		}
		split = true
		var next [][]Rule
		for _, alt := range alts {
			for _, p := range parts {
				next = append(next, append(alt[:len(alt):len(alt)], p))
			}
		}
		if len(next) > maxUnionAlternatives {
			next, complete = next[:maxUnionAlternatives], false
		}
		alts = next
	}
	return alts, split, complete
}
