package lattice

import (
	"strings"
	"unicode"
)

// gtok is one token of a command glob: a literal rune or a star.
type gtok struct {
	r    rune
	star bool
}

// globTokens splits a Bash-rule specifier into literals and stars. An
// unescaped `*` is a wildcard; `\\`, `\(` and `\)` are the literal
// characters; any other backslash is itself literal. `\*` is the two
// literal characters backslash and star: Claude Code 2.1.328 matches
// `Bash(npm test\*)` against the text `npm test\*` (measured), not
// `npm test*`.
func globTokens(s string) []gtok {
	var out []gtok
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '\\' && i+1 < len(rs) {
			switch rs[i+1] {
			case '*':
				out = append(out, gtok{r: '\\'}, gtok{r: '*'})
				i++
				continue
			case '\\', '(', ')':
				out = append(out, gtok{r: rs[i+1]})
				i++
				continue
			}
		}
		if c == '*' {
			out = append(out, gtok{star: true})
			continue
		}
		out = append(out, gtok{r: c})
	}
	return out
}

// stars counts the wildcard tokens.
func stars(ts []gtok) int {
	n := 0
	for _, t := range ts {
		if t.star {
			n++
		}
	}
	return n
}

// endsWithSpaceStar reports whether the tokens end with a space and a star.
func endsWithSpaceStar(ts []gtok) bool {
	n := len(ts)
	return n >= 2 && ts[n-1].star && !ts[n-2].star && ts[n-2].r == ' '
}

// emitGlob writes tokens into a builder; with optionalTail, the final
// " *" is optional (the machine also accepts just before the space).
func emitGlob(ts []gtok, optionalTail bool) func(*builder) {
	return func(b *builder) {
		for i, t := range ts {
			if optionalTail && i == len(ts)-2 {
				b.acceptHere()
			}
			if t.star {
				if i > 0 && ts[i-1].star {
					continue
				}
				b.star(anyChar)
				continue
			}
			b.char(single(t.r))
		}
	}
}

// irregularSpace reports whether a specifier has whitespace Claude Code's
// command normalisation would change: leading or trailing blanks, tabs, or
// runs of spaces.
func irregularSpace(s string) bool {
	if s != strings.Trim(s, " \t") {
		return true
	}
	return strings.Contains(s, "\t") || strings.Contains(s, "  ")
}

// collapseSpace trims blanks and collapses runs of spaces and tabs to one space.
func collapseSpace(s string) string {
	var sb strings.Builder
	blank := false
	for _, r := range strings.Trim(s, " \t") {
		if r == ' ' || r == '\t' {
			blank = true
			continue
		}
		if blank {
			sb.WriteByte(' ')
			blank = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// compileShell compiles a Bash, PowerShell or generic specifier. legacy
// enables the `prefix:*` spelling (shell rules only).
func (r *Rule) compileShell(tool, spec string, fold, legacy bool) []*reading {
	if fold {
		spec = strings.ToLower(spec)
	}
	texts := []string{spec}
	if legacy && irregularSpace(spec) {
		// Claude Code 2.1.328 normalises the rule text as it normalises
		// commands: `Bash(npm  *)`, `Bash( npm *)` and `Bash(npm * )` work
		// as `Bash(npm *)` (measured).
		texts = []string{collapseSpace(spec)}
	}
	kind := argShell
	if !legacy {
		kind = argText
	}
	var out []*reading
	for _, t := range texts {
		rds := r.shellShapes(tool, t, kind, legacy)
		for _, rd := range rds {
			rd.fold = fold
		}
		out = append(out, rds...)
	}
	return out
}

// shellShapes reads one specifier text in the three shapes Claude Code
// distinguishes: the legacy `prefix:*`, a wildcard pattern, an exact command.
func (r *Rule) shellShapes(tool, t string, kind argKind, legacy bool) []*reading {
	if t != "" && strings.Trim(t, "*") == "" {
		if t != "*" && tool == "Bash" && r.List == Allow {
			// Claude Code 2.1.328 (measured): only `Bash` and `Bash(*)` are
			// the whole tool. `Bash(**)` and `Bash(***)` are pattern rules,
			// so its command checks still apply: a line starting with `-`,
			// eval/exec, watch/setsid, find -exec, redirection to a file,
			// $(…) and `&` ask (AlwaysAsks). The language leaves out the
			// one check a text language can state exactly, a leading `-`,
			// which also makes `Bash` strictly wider than `Bash(**)`.
			return []*reading{argsReading(tool, kind, func(b *builder) {
				b.char(anyChar.minus(single('-')))
				b.star(anyChar)
			})}
		}
		return []*reading{wholeTool(tool)}
	}
	if legacy && strings.HasSuffix(t, ":*") {
		x := t[:len(t)-2]
		xt := globTokens(x)
		switch {
		case x == "":
			r.malformed("legacy prefix rule with an empty prefix (Claude Code: \"Prefix cannot be empty before :*\")")
			return []*reading{empty}
		case strings.TrimRight(x, " \t") != x && tool == "Bash":
			// Measured on Claude Code 2.1.328 (internal/conformance
			// TestMeasuredBlankBeforeLegacyPrefix): Bash(npm :*) matches
			// nothing as an allow, ask or deny rule — not `npm test`,
			// `npm  test x`, `npm :x` or `npm : x`.
			r.Note = "a blank before a legacy :* suffix: Claude Code " + ClaudeCodeVersion + " matches no command with it, as an allow, ask or deny rule (measured: Bash(npm :*) neither allows nor denies `npm test` or `npm :x`); write Bash(" + strings.TrimRight(x, " \t") + ":*)"
			return []*reading{empty}
		case strings.TrimRight(x, " \t") != x:
			r.ambiguous("a space before the legacy :* suffix is undocumented: read as the prefix form or as a literal colon")
			return []*reading{
				legacyPrefix(tool, kind, literalize(xt)),
				argsReading(tool, kind, emitGlob(globTokens(t), false)),
			}
		case stars(xt) > 0 && tool == "Bash":
			// Measured on Claude Code 2.1.328: the prefix is read
			// literally (allow Bash(terraform *:*) and Bash(npm *:*)
			// ran none of `terraform apply x`, `npm run build`, …).
			return []*reading{legacyPrefix(tool, kind, literalize(xt))}
		case stars(xt) > 0:
			r.ambiguous("a * before a trailing :* (mixed spelling): Claude Code's matcher reads the prefix literally, a plain reading takes the * as a wildcard")
			return []*reading{
				legacyPrefix(tool, kind, literalize(xt)),
				legacyPrefix(tool, kind, xt),
			}
		default:
			return []*reading{legacyPrefix(tool, kind, xt)}
		}
	}
	ts := globTokens(t)
	switch n := stars(ts); {
	case n == 0:
		return []*reading{literalReading(tool, kind, tokensText(ts))}
	case n == 1 && endsWithSpaceStar(ts):
		return []*reading{argsReading(tool, kind, emitGlob(ts, true))}
	case endsWithSpaceStar(ts) && tool == "Bash":
		// Measured on Claude Code 2.1.328: with several stars the
		// trailing ` *` is not optional (deny Bash(npm * *) lets `npm x`
		// run and stops `npm x y`; allow Bash(* *) does not run a
		// one-word command).
		return []*reading{argsReading(tool, kind, emitGlob(ts, false))}
	case endsWithSpaceStar(ts):
		r.ambiguous("several stars and a trailing ` *`: whether the trailing space-and-rest is optional is undocumented")
		return []*reading{
			argsReading(tool, kind, emitGlob(ts, false)),
			argsReading(tool, kind, emitGlob(ts, true)),
		}
	default:
		return []*reading{argsReading(tool, kind, emitGlob(ts, false))}
	}
}

// legacyPrefix is the language {X} ∪ {X + " " + anything}.
func legacyPrefix(tool string, kind argKind, x []gtok) *reading {
	ts := append(append([]gtok(nil), x...), gtok{r: ' '}, gtok{star: true})
	return argsReading(tool, kind, emitGlob(ts, true))
}

// literalize turns every star token into a literal '*'.
func literalize(ts []gtok) []gtok {
	out := make([]gtok, len(ts))
	for i, t := range ts {
		if t.star {
			out[i] = gtok{r: '*'}
		} else {
			out[i] = t
		}
	}
	return out
}

// tokensText spells literal tokens back as a string.
func tokensText(ts []gtok) string {
	var sb strings.Builder
	for _, t := range ts {
		if t.star {
			sb.WriteByte('*')
		} else {
			sb.WriteRune(t.r)
		}
	}
	return sb.String()
}

// paramReading is a deny/ask parameter rule Tool(param:value): it matches
// calls whose input field param has a value matching the pattern.
func paramReading(tool, name, value string) *reading {
	ts := globTokens(value)
	rd := argsReading(tool, argText, emitGlob(ts, false))
	rd.param = name
	if stars(ts) == 0 {
		rd.literal, rd.isLit = tokensText(ts), true
	}
	return rd
}

// Domains of arguments: what a concrete argument of each kind can look
// like. Witnesses are drawn from them, so a reviewer reads a plausible
// command, path or host, never an empty string.
var (
	blankOrControl = charset{spans: []span{{0, ' '}, {0x7f, 0x9f}}}
	wordChar       = blankOrControl.complementOf()
	segChar        = charset{neg: true, spans: []span{{0, 0x1f}, {'/', '/'}, {0x7f, 0x7f}}}
	labelChar      = charset{neg: true, spans: []span{{0, ' '}, {'.', '/'}, {':', ':'}, {'A', 'Z'}, {0x7f, 0x7f}}}
	nameChar       = charset{neg: true, spans: []span{{0, ' '}, {'(', ')'}, {0x7f, 0x7f}}}

	// anyWord is every non-empty string.
	anyWord = buildRepeat(anyChar, anyChar, 0)
	// tidyCommandDomain is commands of words separated by single spaces: the
	// shape Claude Code's normalisation produces, preferred for witnesses.
	tidyCommandDomain = buildRepeat(wordChar, wordChar, ' ')
	// pathDomain is normalised relative paths: non-empty segments, none of
	// them "." or ".." (Matches cleans a path before matching, so a witness
	// such as ./x would not be the path the rule matched).
	pathDomain = buildPathDomain()
	// hostDomain is host names of non-empty lowercase labels.
	hostDomain = buildRepeat(labelChar, labelChar, '.')
	// nameDomain is tool names.
	nameDomain = buildRepeat(nameChar, nameChar, 0)
)

// complementOf returns the complement of a positive charset.
func (c charset) complementOf() charset { return charset{spans: c.spans, neg: !c.neg} }

// buildPathDomain builds pathDomain. A segment is
// ( N | "." ( N | "." S ) ) S*, with S a segment rune and N one that is not
// a dot; segments are separated by "/". Laid out as positions:
//
//	0 -.-> 1 -.-> 2 -S-> 3 (loops on S, accepts) -/-> 4 ~> 0
//	0 ~> 5 -N-> 6 ~> 3        1 ~> 7 -N-> 8 ~> 3
//
// where ~> is an epsilon edge.
func buildPathDomain() *machine {
	nonDot := segChar.minus(single('.'))
	b := &builder{adv: make([]charset, 9), loop: make([]charset, 9)}
	b.adv[0], b.adv[1], b.adv[2], b.adv[3] = single('.'), single('.'), segChar, single('/')
	b.loop[3] = segChar
	b.adv[5], b.adv[7] = nonDot, nonDot
	b.eps = [][2]int{{4, 0}, {0, 5}, {6, 3}, {1, 7}, {8, 3}}
	b.accept = []int{3}
	return b.build()
}

// buildRepeat builds the language of items separated by sep (sep 0: one
// item), where an item is one rune of first followed by runes of rest.
func buildRepeat(first, rest charset, sep rune) *machine {
	b := newBuilder()
	b.char(first)
	b.star(rest)
	if sep != 0 {
		g := b.pos()
		b.char(single(sep))
		b.char(first)
		b.star(rest)
		end := b.pos()
		b.epsilon(end, g)
		b.epsilon(g, end)
	}
	return b.build()
}

// isTidyCommand reports whether a command is in tidyCommandDomain.
func isTidyCommand(s string) bool {
	if s == "" || s != strings.TrimSpace(s) || strings.Contains(s, "  ") {
		return false
	}
	for _, r := range s {
		if r != ' ' && (unicode.IsSpace(r) || unicode.IsControl(r)) {
			return false
		}
	}
	return true
}
