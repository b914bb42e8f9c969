package lattice

import (
	"context"
	"fmt"
	"strings"
)

// Verdict is the answer to "does rule A allow every call rule B allows?".
type Verdict struct {
	// Answer is Yes, No or Unknown.
	Answer Answer
	// Witness, for No, is a concrete call B matches and A does not: the
	// shortest one the search finds, made of the most readable characters.
	Witness Call
	// Reason explains the answer: for Unknown, which documented ambiguity
	// of Claude Code caused it; for No, a short account of the witness.
	Reason string
	// TooComplex is set on an Unknown that a limit caused rather than an
	// ambiguity: the work budget was spent, the context ended, or a pattern
	// is over the size limit. Callers fail closed on it and tell the author
	// to write the rule more simply.
	TooComplex bool
}

// HasWitness reports whether the verdict carries a witness.
func (v Verdict) HasWitness() bool {
	return v.Answer == No && (v.Witness.Tool != "" || v.Witness.Arg != "")
}

// Covers decides whether rule a allows every call rule b allows
// (non-strict: a rule covers itself and its respellings). Where a rule has
// two readings, Covers answers Yes iff what a surely matches includes what b
// may match, No iff some call b surely matches escapes everything a may
// match (that call is the witness), and Unknown otherwise.
//
// Covers draws on DefaultSearchSteps per search; CoversContext is the form
// that a context cancels and a Budget bounds.
func Covers(a, b Rule) Verdict { return CoversContext(context.Background(), a, b) }

// CoversContext is Covers under a context: the searches stop when it is
// done or its Budget (WithBudget) is spent, and the verdict is then Unknown
// with TooComplex set.
func CoversContext(ctx context.Context, a, b Rule) Verdict { return covers(ctx, a, b, true) }

// CoversAnswer is CoversContext's Answer alone, without the Reason's
// sentence: the engine asks it thousands of times where only the answer
// decides (is an added rule covered, does a deny stop it), and the same
// searches run, so the answer is the same.
func CoversAnswer(ctx context.Context, a, b Rule) Answer { return covers(ctx, a, b, false).Answer }

// covers is CoversContext; without explain it leaves the Reason empty and
// the witness in the search's case (Equivalent and StrictlyWider need
// only the answer, and pairing thousands of rewritten rules asks it often).
func covers(ctx context.Context, a, b Rule, explain bool) Verdict {
	a, b = parsed(a), parsed(b)
	if a.Text == b.Text && a.List == b.List {
		return Verdict{Answer: Yes, Reason: "the same rule"}
	}
	if !ask(ctx) {
		return Verdict{Answer: Unknown, TooComplex: true, Reason: tooComplexReason(ctx)}
	}
	if len(a.also)+len(b.also) > 0 {
		return coversUnion(ctx, a, b, explain)
	}
	var candidates []Call
	allYes, gave := true, false
	for _, rb := range b.readings {
		for _, ra := range a.readings {
			ans, w := include(ctx, ra, rb)
			switch ans {
			case Yes:
				continue
			case No:
				candidates = append(candidates, w)
			default:
				gave = true
			}
			allYes = false
		}
	}
	if allYes {
		if !explain {
			return Verdict{Answer: Yes}
		}
		return Verdict{Answer: Yes, Reason: yesReason(a, b)}
	}
	if !explain && len(candidates) > 0 && len(a.readings) == 1 && len(b.readings) == 1 {
		return Verdict{Answer: No, Witness: candidates[0]}
	}
	if len(a.readings) == 1 && len(b.readings) == 1 && len(candidates) == 1 {
		// One reading each: the pairwise counter-example is the witness.
		w := recased(b, candidates[0])
		return Verdict{Answer: No, Witness: w, Reason: noReasonIf(explain, a, b, w)}
	}
	for _, w := range candidates {
		if MatchContext(ctx, b, w) == Yes && MatchContext(ctx, a, w) == No {
			w = recased(b, w)
			return Verdict{Answer: No, Witness: w, Reason: noReasonIf(explain, a, b, w)}
		}
	}
	if w, ok := productWitness(ctx, a, b); ok {
		w = recased(b, w)
		return Verdict{Answer: No, Witness: w, Reason: noReasonIf(explain, a, b, w)}
	}
	reason := ambiguityOf(a, b)
	if gave && reason == "" {
		return Verdict{Answer: Unknown, TooComplex: true, Reason: tooComplexReason(ctx)}
	}
	if reason == "" {
		reason = "no call is surely matched by the second rule and never by the first"
	}
	return Verdict{Answer: Unknown, Reason: reason}
}

// coversUnion is covers for rules of which one has union parts
// (Rule.also): a covers b when a part of a covers each part of b; a call
// of a part of b that no part of a matches is the witness.
func coversUnion(ctx context.Context, a, b Rule, explain bool) Verdict {
	aparts, bparts := a.unionParts(), b.unionParts()
	allYes, gave := true, false
	var candidates []Call
	for _, bp := range bparts {
		covered := false
		for _, ap := range aparts {
			v := covers(ctx, ap, bp, false)
			switch v.Answer {
			case Yes:
				covered = true
			case No:
				candidates = append(candidates, v.Witness)
			default:
				gave = gave || v.TooComplex
			}
			if covered {
				break
			}
		}
		if !covered {
			allYes = false
			if c, res := firstMember(ctx, bp); res == found {
				candidates = append(candidates, c)
			}
		}
	}
	if allYes {
		if !explain {
			return Verdict{Answer: Yes}
		}
		return Verdict{Answer: Yes, Reason: yesReason(a, b)}
	}
	for _, w := range candidates {
		if MatchContext(ctx, b, w) == Yes && MatchContext(ctx, a, w) == No {
			return Verdict{Answer: No, Witness: w, Reason: noReasonIf(explain, a, b, w)}
		}
	}
	if gave {
		return Verdict{Answer: Unknown, TooComplex: true, Reason: tooComplexReason(ctx)}
	}
	reason := ambiguityOf(a, b)
	if reason == "" {
		reason = "a rule Claude Code reads as a parameter rule and a command pattern at once, compared part by part: no call of the second rule's parts is surely outside the first rule"
	}
	return Verdict{Answer: Unknown, Reason: reason}
}

// firstMember is the shortest call a one-reading rule matches.
func firstMember(ctx context.Context, r Rule) (Call, searchResult) {
	if len(r.readings) != 1 {
		return Call{}, gaveUp
	}
	return r.readings[0].shortest(ctx)
}

// tooComplexReason says why a search stopped short of an answer.
func tooComplexReason(ctx context.Context) string {
	if ctx.Err() != nil {
		return "the comparison was stopped before it finished (" + ctx.Err().Error() + ")"
	}
	if n := searchLimit(ctx); n != DefaultSearchSteps {
		return fmt.Sprintf(tooComplexFormat, maxMachineStates, n)
	}
	return defaultTooComplex
}

// tooComplexFormat is tooComplexReason's message; defaultTooComplex is it
// under the default limits, formatted once (a comparison whose budget is
// spent asks thousands of questions that all answer it).
const tooComplexFormat = "the patterns are too long or complex to compare within Shipgate's work budget (limits: %d pattern positions, %d search steps per comparison)"

var defaultTooComplex = fmt.Sprintf(tooComplexFormat, maxMachineStates, DefaultSearchSteps)

// searchLimit is the per-search step limit under ctx.
func searchLimit(ctx context.Context) int64 {
	if b := BudgetOf(ctx); b != nil {
		return b.per
	}
	return DefaultSearchSteps
}

// Equivalent reports whether two rules are respellings of one grant: each
// covers the other.
func Equivalent(a, b Rule) Answer { return EquivalentContext(context.Background(), a, b) }

// EquivalentContext is Equivalent under a context and its Budget.
func EquivalentContext(ctx context.Context, a, b Rule) Answer {
	ab := covers(ctx, a, b, false).Answer
	if ab == No {
		return No
	}
	ba := covers(ctx, b, a, false).Answer
	switch {
	case ab == Yes && ba == Yes:
		return Yes
	case ab == No || ba == No:
		return No
	}
	return Unknown
}

// StrictlyWider reports whether a covers b and b does not cover a.
func StrictlyWider(a, b Rule) Answer { return StrictlyWiderContext(context.Background(), a, b) }

// StrictlyWiderContext is StrictlyWider under a context and its Budget.
func StrictlyWiderContext(ctx context.Context, a, b Rule) Answer {
	ab := covers(ctx, a, b, false).Answer
	if ab != Yes {
		if ab == No {
			return No
		}
		return Unknown
	}
	switch covers(ctx, b, a, false).Answer {
	case No:
		return Yes
	case Yes:
		return No
	}
	return Unknown
}

// parsed makes sure a Rule built as a literal (Rule{Text: ...}) is compiled.
func parsed(r Rule) Rule {
	if len(r.readings) == 0 {
		list := r.List
		if list == "" {
			list = Allow
		}
		return ParseIn(list, r.Text)
	}
	return r
}

func ambiguityOf(a, b Rule) string {
	var rs []string
	if a.Ambiguity != "" {
		rs = append(rs, label(a)+": "+a.Ambiguity)
	}
	if b.Ambiguity != "" {
		rs = append(rs, label(b)+": "+b.Ambiguity)
	}
	return strings.Join(rs, "; ")
}

func yesReason(a, b Rule) string {
	if b.Dead() {
		return label(b) + " matches nothing"
	}
	return "every call " + label(b) + " matches, " + label(a) + " matches too"
}

// noReasonIf is noReason when explain is set and "" otherwise: formatting
// the sentence (quoting the witness, labelling both rules) cost a sixth of
// the CPU of a comparison that asks thousands of answer-only questions
// about rules read two ways.
func noReasonIf(explain bool, a, b Rule, w Call) string {
	if !explain {
		return ""
	}
	return noReason(a, b, w)
}

func noReason(a, b Rule, w Call) string {
	return label(b) + " matches " + w.String() + ", " + label(a) + " does not"
}

// label names a rule in a sentence.
func label(r Rule) string {
	switch {
	case strings.TrimSpace(r.Text) == "":
		return fmt.Sprintf("the blank rule %q", r.Text)
	case strings.TrimSpace(r.Text) != r.Text:
		return fmt.Sprintf("%q", r.Text)
	}
	return r.Text
}

// include decides whether reading b's language is inside reading a's. It
// answers Unknown only when the search bound was hit.
func include(ctx context.Context, a, b *reading) (Answer, Call) {
	bm, res := b.shortest(ctx)
	switch res {
	case notFound:
		return Yes, Call{}
	case gaveUp:
		return Unknown, Call{}
	}
	if a.kind == readEmpty {
		return No, bm
	}
	if a.kind == readNames && b.kind == readArgs {
		// b's calls are all of one tool: a covers them iff it names it
		// (whatever a matches among plausible tool names).
		if a.names.run(b.tool) {
			return Yes, Call{}
		}
		return No, bm
	}
	switch _, res := a.shortest(ctx); res {
	case notFound:
		return No, bm
	case gaveUp:
		return Unknown, Call{}
	}
	if a.kind == readNames {
		if w, ok := knownName(b, func(t string) bool { return a.names.run(t) }); ok {
			return No, Call{Tool: w}
		}
		if !strings.HasPrefix(a.prefix, b.prefix) && !strings.HasPrefix(b.prefix, a.prefix) {
			return No, bm
		}
		w, res := findWord(ctx, []*machine{b.names, nameDomain}, []*machine{a.names})
		return outcome(Call{Tool: w}, res)
	}
	if b.kind == readNames {
		if w, ok := knownName(b, func(t string) bool { return t == a.tool }); ok {
			return No, Call{Tool: w}
		}
		lit := newBuilder()
		lit.lit(a.tool)
		if w, res := findWord(ctx, []*machine{b.names, nameDomain}, []*machine{lit.build()}); res != notFound {
			return outcome(Call{Tool: w}, res)
		}
		return outcome(a.outside(ctx))
	}
	if a.tool != b.tool {
		return No, bm
	}
	if a.param != b.param {
		if b.param == "" || a.param != "" {
			// b's call lacks a's parameter, or names another one.
			return No, bm
		}
		// b matches calls with its parameter set whatever the argument; a
		// matches only some arguments.
		c, res := a.outside(ctx)
		c.Param, c.Value = b.param, bm.Value
		return outcome(c, res)
	}
	return includeArgs(ctx, a, b, bm)
}

// includeArgs compares two argument languages of one tool.
func includeArgs(ctx context.Context, a, b *reading, bm Call) (Answer, Call) {
	mk := func(arg string) Call {
		if b.param != "" {
			return Call{Tool: b.tool, Param: b.param, Value: arg}
		}
		return Call{Tool: b.tool, Arg: arg}
	}
	if b.arg == argPath {
		switch {
		case a.zone == b.zone:
		case a.zone == zoneRoot:
			w, res := findWord(ctx, []*machine{b.anyDirMachine(), pathDomain}, []*machine{a.args})
			if res != found {
				return outcome(Call{}, res)
			}
			// Name the path in b's own notation: find where the directory
			// prefix ends.
			for i := 0; i < len(w); i++ {
				if w[i] != '/' {
					continue
				}
				rel := w[i+1:]
				if b.args.run(rel) && !a.matchArg(ctx, formatPath(b.zone, rel)) {
					return No, mk(formatPath(b.zone, rel))
				}
			}
			return Unknown, Call{}
		default:
			return No, bm
		}
		w, res := findWord(ctx, []*machine{b.args, pathDomain}, []*machine{a.args})
		return outcome(mk(formatPath(b.zone, w)), res)
	}
	if disjointEnds(a, b) {
		// The languages start (or end) with different texts, so they are
		// disjoint: any argument of b escapes a.
		return No, bm
	}
	if b.isLit && b.param == "" {
		if a.matchArg(ctx, b.literal) {
			return Yes, Call{}
		}
		return No, mk(b.literal)
	}
	if b.isLit && a.isLit {
		if a.literal == b.literal {
			return Yes, Call{}
		}
		return No, mk(b.literal)
	}
	if bm.Param == "" && bm.Arg != "" && !a.matchArg(ctx, bm.Arg) {
		// Early exit: b's shortest member escapes a, so it is also the
		// shortest counter-example (the search would return it).
		return No, bm
	}
	w, res := findWord(ctx, with(domainOf(b.arg), b.args), []*machine{a.args})
	if res == found && b.arg == argShell && !isTidyCommand(w) {
		if w2, res2 := findWord(ctx, []*machine{b.args, tidyCommandDomain}, []*machine{a.args}); res2 == found {
			w = w2
		}
	}
	if res == found {
		var ok bool
		if w, ok = psTrueWitness(ctx, b, a, w); !ok {
			return Unknown, Call{}
		}
	}
	return outcome(mk(w), res)
}

func outcome(w Call, res searchResult) (Answer, Call) {
	switch res {
	case notFound:
		return Yes, Call{}
	case found:
		return No, w
	}
	return Unknown, Call{}
}

// domainOf is the language of plausible arguments of a kind, as the list
// of machines a witness must also satisfy (the search itself only ever
// returns non-empty words, which is all a command or text must be).
func domainOf(k argKind) []*machine {
	switch k {
	case argPath:
		return []*machine{pathDomain}
	case argHost:
		return []*machine{hostDomain}
	}
	return nil
}

// with returns ms followed by the machines of extra, in a fresh slice.
func with(ms []*machine, extra ...*machine) []*machine {
	return append(append(make([]*machine, 0, len(ms)+len(extra)), extra...), ms...)
}

// memberMemo is a reading's shortest member, once known (found, or the
// language is empty).
type memberMemo struct {
	call Call
	res  searchResult
}

// shortest returns the shortest call the reading matches: found with it,
// notFound when the language is empty, gaveUp when the search stopped on
// the budget or the context (then nothing is remembered, so a later call
// with more budget may still answer). A definite answer is computed once
// per reading.
func (rd *reading) shortest(ctx context.Context) (Call, searchResult) {
	if m := rd.member.Load(); m != nil {
		return m.call, m.res
	}
	c, res := rd.computeShortest(ctx)
	if res != gaveUp {
		rd.member.Store(&memberMemo{call: c, res: res})
	}
	return c, res
}

func (rd *reading) computeShortest(ctx context.Context) (Call, searchResult) {
	switch rd.kind {
	case readNames:
		w, res := findWord(ctx, []*machine{rd.names, nameDomain}, nil)
		return Call{Tool: w}, res
	case readArgs:
		if rd.isLit && rd.param == "" && rd.arg != argPath && rd.arg != argHost {
			return Call{Tool: rd.tool, Arg: rd.literal}, found
		}
		dom := domainOf(rd.arg)
		if rd.param != "" {
			dom = nil
		}
		w, res := findWord(ctx, with(dom, rd.args), nil)
		if res == found && rd.arg == argShell && !isTidyCommand(w) {
			if w2, res2 := findWord(ctx, []*machine{rd.args, tidyCommandDomain}, nil); res2 == found {
				w = w2
			} else if res2 == gaveUp {
				return Call{}, gaveUp
			}
		}
		if res != found {
			return Call{}, res
		}
		var ok bool
		if w, ok = psTrueWitness(ctx, rd, nil, w); !ok {
			return Call{}, gaveUp
		}
		switch {
		case rd.param != "":
			return Call{Tool: rd.tool, Param: rd.param, Value: w}, found
		case rd.arg == argPath:
			return Call{Tool: rd.tool, Arg: formatPath(rd.zone, w)}, found
		}
		return Call{Tool: rd.tool, Arg: w}, found
	}
	return Call{}, notFound
}

// outside returns a call of the reading's tool that the reading does not
// match: found with the call, notFound when the reading matches every call
// of its tool, gaveUp when the search bound was hit.
func (rd *reading) outside(ctx context.Context) (Call, searchResult) {
	if rd.param != "" {
		return Call{Tool: rd.tool, Arg: "x"}, found
	}
	if rd.arg == argPath {
		w, res := findWord(ctx, []*machine{pathDomain}, []*machine{rd.args})
		if res == found {
			return Call{Tool: rd.tool, Arg: formatPath(rd.zone, w)}, found
		}
		if res == gaveUp {
			return Call{}, gaveUp
		}
		// The reading matches every path of its zone: name one elsewhere.
		for _, arg := range []string{"/etc/passwd", "~/.ssh/id_rsa", "src/x"} {
			if !rd.matchArg(ctx, arg) {
				return Call{Tool: rd.tool, Arg: arg}, found
			}
		}
		return Call{}, notFound
	}
	w, res := findWord(ctx, with(domainOf(rd.arg), anyWord), []*machine{rd.args})
	return Call{Tool: rd.tool, Arg: w}, res
}

// productWitness looks for a call every reading of b matches and no reading
// of a matches, when all readings are argument languages of one tool (the
// common shape of an ambiguous rule: two readings of one Bash pattern).
func productWitness(ctx context.Context, a, b Rule) (Call, bool) {
	var must, mustNot []*machine
	var ref *reading
	same := func(rd *reading) bool {
		if rd.kind != readArgs {
			return false
		}
		if ref == nil {
			ref = rd
			return true
		}
		return rd.tool == ref.tool && rd.arg == ref.arg && rd.zone == ref.zone && rd.param == ref.param && rd.fold == ref.fold
	}
	for _, rd := range b.readings {
		if !same(rd) {
			return Call{}, false
		}
		must = append(must, rd.args)
	}
	for _, rd := range a.readings {
		if rd.kind == readEmpty {
			continue
		}
		if !same(rd) {
			return Call{}, false
		}
		mustNot = append(mustNot, rd.args)
	}
	if ref == nil {
		return Call{}, false
	}
	must = append(must, domainOf(ref.arg)...)
	w, res := findWord(ctx, must, mustNot)
	if res != found {
		return Call{}, false
	}
	c := Call{Tool: ref.tool, Arg: w}
	switch {
	case ref.param != "":
		c = Call{Tool: ref.tool, Param: ref.param, Value: w}
	case ref.arg == argPath:
		c.Arg = formatPath(ref.zone, w)
	}
	if MatchContext(ctx, b, c) == Yes && MatchContext(ctx, a, c) == No {
		return c, true
	}
	return Call{}, false
}

// sampleNames are tool names tried first when a witness is a tool name, so
// a reviewer reads "Bash" or "mcp__github__create_issue" rather than the
// shortest string the search would build.
var sampleNames = []string{"Bash", "Read", "Edit", "Write", "WebFetch", "WebSearch", "Agent", "Skill",
	"PowerShell", "Grep", "Glob", "NotebookEdit", "mcp__github__create_issue"}

// knownName returns a sample tool name the names reading matches and the
// excluded predicate rejects.
func knownName(b *reading, excluded func(string) bool) (string, bool) {
	for _, t := range sampleNames {
		if b.names.run(t) && !excluded(t) {
			return t, true
		}
	}
	return "", false
}

// recased spells a witness of a case-insensitive rule (PowerShell) in the
// rule's own case: each literal run of the rule found, folded, in the
// witness (left to right) takes the rule's spelling. The search works on
// folded text, and a reviewer reads `Remove-Item x`, not `remove-item x`;
// the rule matches either spelling, so the verdict is the same.
func recased(r Rule, c Call) Call {
	if len(r.readings) == 0 || !r.readings[0].fold || c.Arg == "" {
		return c
	}
	w := c.Arg
	var out strings.Builder
	at := 0
	for _, seg := range literalRuns(r.Specifier) {
		low := strings.ToLower(seg)
		i := strings.Index(w[at:], low)
		if low == "" || i < 0 || len(low) != len(seg) {
			continue
		}
		out.WriteString(w[at : at+i])
		out.WriteString(seg)
		at += i + len(seg)
	}
	out.WriteString(w[at:])
	c.Arg = out.String()
	return c
}

// literalRuns splits a glob specifier into its literal texts: the runs
// between unescaped stars, with `\*` and `\\` unescaped.
func literalRuns(spec string) []string {
	var runs []string
	var cur strings.Builder
	for i := 0; i < len(spec); i++ {
		switch {
		case spec[i] == '\\' && i+1 < len(spec) && (spec[i+1] == '*' || spec[i+1] == '\\'):
			i++
			cur.WriteByte(spec[i])
		case spec[i] == '*':
			runs = append(runs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(spec[i])
		}
	}
	return append(runs, cur.String())
}

// disjointEnds reports whether two argument readings of one tool cannot
// share a word because their literal prefixes, or their literal suffixes,
// differ: neither is a prefix (a suffix) of the other. It is the index
// every set question uses before it builds a product search.
func disjointEnds(a, b *reading) bool {
	if !strings.HasPrefix(a.prefix, b.prefix) && !strings.HasPrefix(b.prefix, a.prefix) {
		return true
	}
	as, bs := a.args.suffix, b.args.suffix
	return !strings.HasSuffix(as, bs) && !strings.HasSuffix(bs, as)
}

// RespellKey returns a key that equivalent rules share: two rules for
// which Equivalent answers Yes have the same key (the shortest call of a
// language is the language's own, whatever the spelling), so a caller
// pairing thousands of removed and added rules compares only rules with
// equal keys instead of every pair. Rules with different keys may still
// be asked; equal keys prove nothing. It reports false when the key could
// not be computed within the default search budget (compare such a rule
// with every candidate).
func RespellKey(r Rule) (string, bool) {
	return RespellKeyContext(context.Background(), r)
}

// RespellKeyContext is RespellKey under a context and its Budget.
func RespellKeyContext(ctx context.Context, r Rule) (string, bool) {
	r = parsed(r)
	if r.Dead() {
		return "empty", true
	}
	var sb strings.Builder
	for _, rd := range r.readings {
		if rd.kind == readEmpty {
			continue
		}
		c, res := rd.shortest(ctx)
		switch res {
		case gaveUp:
			return "", false
		case notFound:
			continue
		}
		// Every reading of equivalent rules has the same language, so
		// the first non-empty one names it.
		fmt.Fprintf(&sb, "%d|%s|%s|%s|%s", rd.kind, c.Tool, c.Param, c.Value, c.Arg)
		return sb.String(), true
	}
	return "empty", true
}
