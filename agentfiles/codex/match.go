package codex

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// SplitShell splits an example string into argv the way Codex's execpolicy
// does (POSIX-like words: blanks separate, single quotes are literal,
// double quotes honour \$ \` \" \\ and a backslash-newline, a backslash
// outside quotes takes the next byte literally, a # at the start of a word
// comments out the rest of its line). ok is false for an unterminated quote
// or a trailing backslash: Codex rejects such an example.
func SplitShell(s string) (argv []string, ok bool) {
	i := 0
	next := func() (byte, bool) {
		if i >= len(s) {
			return 0, false
		}
		c := s[i]
		i++
		return c, true
	}
	for {
		c, more := next()
		// Skip blanks and comments before a word.
		for more {
			if c == ' ' || c == '\t' || c == '\n' {
				c, more = next()
				continue
			}
			if c == '#' {
				for more && c != '\n' {
					c, more = next()
				}
				continue
			}
			break
		}
		if !more {
			return argv, true
		}
		var w []byte
	word:
		for {
			switch c {
			case '"':
				for {
					d, ok := next()
					if !ok {
						return nil, false
					}
					if d == '"' {
						break
					}
					if d == '\\' {
						e, ok := next()
						if !ok {
							return nil, false
						}
						switch e {
						case '$', '`', '"', '\\':
							w = append(w, e)
						case '\n':
						default:
							w = append(w, '\\', e)
						}
						continue
					}
					w = append(w, d)
				}
			case '\'':
				for {
					d, ok := next()
					if !ok {
						return nil, false
					}
					if d == '\'' {
						break
					}
					w = append(w, d)
				}
			case '\\':
				d, ok := next()
				if !ok {
					return nil, false
				}
				if d != '\n' {
					w = append(w, d)
				}
			case ' ', '\t', '\n':
				break word
			default:
				w = append(w, c)
			}
			if c, more = next(); !more {
				break
			}
		}
		argv = append(argv, string(w))
		if !more {
			return argv, true
		}
	}
}

// tokenEq compares an argv token with a pattern token.
func (r Rule) tokenEq(tok, pat string) bool {
	if r.Canonical {
		return strings.EqualFold(tok, pat)
	}
	return tok == pat
}

// Matches reports whether the rule matches argv: argv is at least as long
// as the pattern and each of its first tokens equals one of that
// position's alternatives exactly (case-insensitively under
// canonical_matching). Codex does not resolve paths (/usr/bin/git), strip
// env or sudo, or split flags (rm -r -f is not rm -rf).
func (r Rule) Matches(argv []string) bool {
	if len(argv) < len(r.Pattern) {
		return false
	}
	for i, alts := range r.Pattern {
		ok := false
		for _, a := range alts {
			if r.tokenEq(argv[i], a) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Policy is the rules Codex holds at once: every rule of every loaded file.
type Policy []Rule

// Decide is Codex's decision for argv: the strictest decision of every
// matching rule (forbidden over prompt over allow, whatever their order),
// NoMatch when none matches. It returns the rules that matched.
func (p Policy) Decide(argv []string) (Decision, []Rule) {
	d := NoMatch
	var matched []Rule
	for _, r := range p {
		if r.Matches(argv) {
			matched = append(matched, r)
			if r.Decision > d {
				d = r.Decision
			}
		}
	}
	return d, matched
}

// Covers reports whether rule a matches every argv rule b matches (the
// decisions aside) and, when it does not, an argv b matches that a does
// not. Both are token-prefix rules over finite alternative sets: a covers b
// iff a is no longer than b and, at each of a's positions, every
// alternative of b is one of a's (case folding as each rule reads it).
func Covers(a, b Rule) (bool, []string) {
	w := instance(b, nil)
	if len(a.Pattern) > len(b.Pattern) {
		return false, w
	}
	for i := range a.Pattern {
		for _, alt := range b.Pattern[i] {
			variants := []string{alt}
			if b.Canonical {
				variants = caseVariants(alt)
			}
			for _, v := range variants {
				if !a.tokenAt(i, v) {
					w := instance(b, nil)
					w[i] = v
					return false, w
				}
			}
		}
	}
	return true, nil
}

// tokenAt reports whether a's position i accepts tok.
func (r Rule) tokenAt(i int, tok string) bool {
	for _, a := range r.Pattern[i] {
		if r.tokenEq(tok, a) {
			return true
		}
	}
	return false
}

// caseVariants are spellings a canonical (case-insensitive) alternative
// matches that a case-sensitive rule may not: as written, lower and upper
// case.
func caseVariants(s string) []string {
	out := []string{s}
	for _, v := range []string{strings.ToLower(s), strings.ToUpper(s)} {
		if v != out[len(out)-1] && v != s {
			out = append(out, v)
		}
	}
	return out
}

// instance is the first argv a rule matches: its first alternative at each
// position (with over, when given, replacing positions).
func instance(r Rule, over map[int]string) []string {
	out := make([]string, len(r.Pattern))
	for i, alts := range r.Pattern {
		out[i] = alts[0]
		if v, ok := over[i]; ok {
			out[i] = v
		}
	}
	return out
}

// Loosening is an argv that runs more freely at head than at base, with
// both decisions and the head rules that let it through.
type Loosening struct {
	Argv       []string
	Base, Head Decision
	// HeadRules matched the argv at head (the allow rule that grants it,
	// or none when a restricting rule was removed).
	HeadRules []Rule
	// BaseRules matched it at base (the prompt or forbidden rule that no
	// longer holds).
	BaseRules []Rule
}

// ErrTooMany says the comparison would need more candidate commands than
// its budget allows: the caller fails closed.
var ErrTooMany = errors.New("too many alternative combinations to compare exactly")

// MaxCandidates bounds the argv a comparison tries.
const MaxCandidates = 200_000

// Loosenings lists every class of argv that head lets through more freely
// than base (an allow where base prompted, refused or had no rule; no rule
// where base prompted or refused; a prompt where base refused), one argv
// per class. It is exact: a decision depends only on which rules match,
// and every argv has the decisions of its prefix as long as the longest
// rule it matches, which is an instance of that rule over the tokens the
// rules name at each position — the candidates tried here.
func Loosenings(ctx context.Context, base, head Policy) ([]Loosening, error) {
	all := append(append(Policy{}, base...), head...)
	// Tokens per position named by any rule (with case variants of the
	// canonical ones), for instantiating each rule against the others.
	tokens := map[int][]string{}
	seen := map[int]map[string]bool{}
	for _, r := range all {
		for i, alts := range r.Pattern {
			if seen[i] == nil {
				seen[i] = map[string]bool{}
			}
			for _, a := range alts {
				vs := []string{a}
				if r.Canonical {
					vs = caseVariants(a)
				}
				for _, v := range vs {
					if !seen[i][v] {
						seen[i][v] = true
						tokens[i] = append(tokens[i], v)
					}
				}
			}
		}
	}
	for i := range tokens {
		sort.Strings(tokens[i])
	}
	var out []Loosening
	done := map[string]bool{}
	classes := map[string]bool{}
	budget := MaxCandidates
	for _, r := range all {
		// Per position, the tokens this rule accepts.
		choices := make([][]string, len(r.Pattern))
		for i := range r.Pattern {
			for _, t := range tokens[i] {
				if r.tokenAt(i, t) {
					choices[i] = append(choices[i], t)
				}
			}
		}
		n := 1
		for _, c := range choices {
			n *= len(c)
			if n > budget {
				return nil, ErrTooMany
			}
		}
		budget -= n
		idx := make([]int, len(choices))
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			argv := make([]string, len(choices))
			for i, c := range choices {
				argv[i] = c[idx[i]]
			}
			k := strings.Join(argv, "\x00")
			if !done[k] {
				done[k] = true
				bd, bm := base.Decide(argv)
				hd, hm := head.Decide(argv)
				if hd.MoreLenient(bd) {
					ck := bd.String() + ">" + hd.String() + "|" + keys(hm) + "|" + keys(bm)
					if !classes[ck] {
						classes[ck] = true
						out = append(out, Loosening{Argv: argv, Base: bd, Head: hd, HeadRules: hm, BaseRules: bm})
					}
				}
			}
			// Next combination.
			i := len(idx) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(choices[i]) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Argv) < len(out[j].Argv) })
	return out, nil
}

// keys joins the identities of rules (for grouping loosenings by cause).
func keys(rs []Rule) string {
	var ks []string
	for _, r := range rs {
		ks = append(ks, r.Path+"\x01"+r.Key())
	}
	sort.Strings(ks)
	return strings.Join(ks, "\x02")
}

// QuoteArgv renders argv as a shell-quoted command line a reviewer can
// read (and SplitShell reads back).
func QuoteArgv(argv []string) string {
	var parts []string
	for _, a := range argv {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
