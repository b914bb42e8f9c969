package jsonpos

// The wording of fatal errors: each says what is wrong where, in terms a
// reviewer of a settings file understands, and what to change.

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

func (p *parser) tooDeep(at Pos) {
	p.failAt(SyntaxTooDeep, at,
		fmt.Sprintf("objects and arrays are nested more than %d levels deep; Shipgate refuses such input (JSON.parse would accept it)", p.maxDepth),
		"no settings file needs this depth: flatten the structure")
}

func (p *parser) unterminated(open Pos, what string, closer byte) {
	p.failAt(SyntaxUnterminated, open,
		fmt.Sprintf("unterminated %s: the '%c' at line %d, column %d is never closed (the file ends first)", what, openerOf(closer), open.Line, open.Column),
		fmt.Sprintf("add the missing '%c', and check that every bracket before it is matched", closer))
}

func openerOf(closer byte) byte {
	if closer == '}' {
		return '{'
	}
	return '['
}

func (p *parser) trailingComma(comma int, closer byte, what string) {
	p.fail(SyntaxTrailingComma, comma,
		fmt.Sprintf("trailing comma before '%c': JSON does not allow a comma after the last %s", closer, what),
		"delete this comma; with it JSON.parse fails and Claude Code drops the whole file, deny rules included")
}

// badKey reports what stands where an object key should be.
func (p *parser) badKey() {
	s := p.src
	i := p.pos
	c := s[i]
	switch {
	case c == '\'':
		p.fail(SyntaxSingleQuote, i, "object keys must be in double quotes, not single quotes",
			`replace the single quotes with double quotes: "key"`)
	case isIdentStart(c) || isDigit(c) || c == '-':
		w := lexeme(s, i)
		p.fail(SyntaxUnquotedKey, i,
			fmt.Sprintf("the object key %s is not quoted: JSON keys must be double-quoted strings", w),
			fmt.Sprintf("write %s", strconv.Quote(w)))
	case c >= utf8.RuneSelf && startsLetter(s, i):
		w := lexeme(s, i)
		p.fail(SyntaxUnquotedKey, i,
			fmt.Sprintf("the object key %s is not quoted: JSON keys must be double-quoted strings", w),
			fmt.Sprintf("write %s", strconv.Quote(w)))
	case c == ',':
		p.fail(SyntaxUnexpected, i, "unexpected ',' where an object key should be (two commas in a row, or a comma right after '{')",
			"remove the extra comma")
	default:
		p.unexpected(i, "a double-quoted key or '}'")
	}
}

// afterItem reports what follows an object member or array element when it is
// neither ',' nor the closing bracket.
func (p *parser) afterItem(prevEnd, open Pos, closer byte, what string) {
	s := p.src
	i := p.pos
	if p.comment(i) {
		return
	}
	c := s[i]
	container := "object"
	if closer == ']' {
		container = "array"
	}
	switch {
	case c == '"' || c == '{' || c == '[' || c == '-' || isDigit(c) || isIdentStart(c):
		next := slowPos(s, i)
		p.failAt(SyntaxMissingComma, prevEnd,
			fmt.Sprintf("missing ',' after this %s of the %s: the next one starts at line %d, column %d", what, container, next.Line, next.Column),
			"add a comma here")
	case c == '}' || c == ']':
		p.fail(SyntaxUnexpected, i,
			fmt.Sprintf("found '%c' where the %s opened at line %d, column %d should be closed with '%c'", c, container, open.Line, open.Column, closer),
			"make the brackets match")
	default:
		p.unexpected(i, fmt.Sprintf("',' or '%c'", closer))
	}
}

func invalidUTF8Message(n int) string {
	seqs := "a byte sequence that is not UTF-8; Claude Code reads it"
	if n > 1 {
		seqs = fmt.Sprintf("%d byte sequences that are not UTF-8; Claude Code reads each", n)
	}
	return "the string holds " + seqs + " as U+FFFD, so the text it uses differs from the file's bytes"
}

func (p *parser) controlChar(sp Pos, i int) {
	switch b := p.src[i]; b {
	case '\n', '\r':
		p.fail(SyntaxControlChar, i,
			fmt.Sprintf("line break inside the string that starts at line %d, column %d: JSON strings cannot span lines", sp.Line, sp.Column),
			`close the string before the end of the line (is a closing quote missing?), or write the line break as \n`)
	case '\t':
		p.fail(SyntaxControlChar, i, "unescaped tab inside a string: JSON strings cannot hold raw control characters",
			`write the tab as \t`)
	default:
		p.fail(SyntaxControlChar, i,
			fmt.Sprintf("unescaped control character U+%04X inside a string", b),
			fmt.Sprintf(`remove it, or write it as \u%04X`, b))
	}
}

// badEscape reports the invalid escape whose backslash is at s[i]; s[i+1]
// exists.
func (p *parser) badEscape(i int) {
	s := p.src
	switch e := s[i+1]; {
	case e == '\'':
		p.fail(SyntaxBadEscape, i, `\' is not a JSON escape: a single quote needs no backslash in a double-quoted string`,
			`write ' without the backslash`)
	case e == 'u':
		j := i + 2
		for j < len(s) && j < i+6 && isHex(s[j]) {
			j++
		}
		p.fail(SyntaxBadEscape, i,
			fmt.Sprintf(`invalid escape %s followed by %s: \u must be followed by exactly four hexadecimal digits`, s[i:j], describe(s, j)),
			`write \u and four hex digits, e.g. \u0041; a literal backslash is written \\`)
	default:
		what := `\` + string(e)
		if e < 0x21 || e >= 0x7f {
			what = `\ followed by ` + describe(s, i+1)
		}
		p.fail(SyntaxBadEscape, i,
			fmt.Sprintf("invalid escape %s in a string", what),
			`JSON escapes are \" \\ \/ \b \f \n \r \t and \uXXXX; a literal backslash is written \\ (a Windows path is "C:\\Users")`)
	}
}

// comment reports a comment starting at s[i], if there is one.
func (p *parser) comment(i int) bool {
	s := p.src
	if i >= len(s) {
		return false
	}
	msg := "JSON does not allow comments; Claude Code drops the whole file, deny rules included"
	switch {
	case s[i] == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
	case s[i] == '#':
		msg = "JSON does not allow comments ('#' starts a comment in YAML or shell, not in JSON); Claude Code drops the whole file, deny rules included"
	default:
		return false
	}
	p.fail(SyntaxComment, i, msg, "delete the comment (explain rules in the pull request or a README instead)")
	return true
}

// unexpected reports the character at s[i] where `expected` should be.
func (p *parser) unexpected(i int, expected string) {
	s := p.src
	if i >= len(s) {
		p.fail(SyntaxUnexpected, i, fmt.Sprintf("expected %s, found the end of the file", expected), "complete the document")
		return
	}
	if p.comment(i) {
		return
	}
	what := describe(s, i)
	b := s[i]
	if b >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			p.fail(SyntaxInvalidUTF8, i,
				fmt.Sprintf("%s outside a string: Claude Code reads it as U+FFFD, which JSON.parse rejects", what),
				"save the file as UTF-8")
		case r == '\u201C' || r == '\u201D' || r == '\u201E' || r == '\u00AB' || r == '\u00BB':
			p.fail(SyntaxUnexpected, i,
				fmt.Sprintf("typographic quote %s is not a JSON quote", what),
				`use the plain double quote " (a word processor or chat client may have replaced it)`)
		case r == '\u2018' || r == '\u2019':
			p.fail(SyntaxSingleQuote, i,
				fmt.Sprintf("typographic quote %s is not a JSON quote", what),
				`use the plain double quote "`)
		case r == '\uFEFF' || r == '\u200B' || unicode.IsSpace(r):
			p.fail(SyntaxUnexpected, i,
				fmt.Sprintf("%s is not JSON whitespace", what),
				"replace it with a plain space or remove it; JSON whitespace is only space, tab, line feed and carriage return")
		default:
			p.fail(SyntaxUnexpected, i, fmt.Sprintf("expected %s, found %s", expected, what),
				"check the syntax around this character")
		}
		return
	}
	switch b {
	case '\'':
		p.fail(SyntaxSingleQuote, i, "strings must be in double quotes, not single quotes",
			`replace the single quotes with double quotes: "text"`)
	case '\v', '\f':
		p.fail(SyntaxUnexpected, i, fmt.Sprintf("%s is not JSON whitespace", what),
			"remove it; JSON whitespace is only space, tab, line feed and carriage return")
	default:
		p.fail(SyntaxUnexpected, i, fmt.Sprintf("expected %s, found %s", expected, what),
			"check the syntax around this character")
	}
}

func startsLetter(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// lexeme returns the run of word-like characters at s[i], for messages.
func lexeme(s string, i int) string {
	j := i
	for j < len(s) {
		c := s[j]
		if isIdentChar(c) || c == '.' || c == '+' || c == '-' {
			j++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				j += size
				continue
			}
		}
		break
	}
	if j == i {
		return describe(s, i)
	}
	return clip(s[i:j])
}

// clip shortens text for a message.
func clip(w string) string {
	const maxRunes = 40
	if utf8.RuneCountInString(w) <= maxRunes {
		return w
	}
	n := 0
	for i := range w {
		if n == maxRunes {
			return w[:i] + "…"
		}
		n++
	}
	return w
}

func clipQuote(key string) string { return strconv.Quote(clip(key)) }

// describe names the character at s[i] for a message.
func describe(s string, i int) string {
	if i >= len(s) {
		return "the end of the file"
	}
	b := s[i]
	if b < utf8.RuneSelf {
		switch {
		case b == '\n':
			return "a line break"
		case b == '\r':
			return "a carriage return"
		case b == '\t':
			return "a tab"
		case b == '\v':
			return "a vertical tab (U+000B)"
		case b == '\f':
			return "a form feed (U+000C)"
		case b < 0x20 || b == 0x7f:
			return fmt.Sprintf("control character U+%04X", b)
		case b == '\'':
			return `"'"`
		}
		return "'" + string(b) + "'"
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02X", b)
	}
	if name := runeName(r); name != "" {
		return fmt.Sprintf("U+%04X (%s)", r, name)
	}
	if unicode.IsPrint(r) {
		return fmt.Sprintf("'%c' (U+%04X)", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// runeName names invisible or look-alike characters that show up in
// hand-edited JSON, and returns "" for the others.
func runeName(r rune) string {
	switch r {
	case '\u00A0':
		return "no-break space"
	case '\u200B':
		return "zero-width space"
	case '\u2028':
		return "line separator"
	case '\u2029':
		return "paragraph separator"
	case '\u3000':
		return "ideographic space"
	case '\uFEFF':
		return "zero-width no-break space / byte order mark"
	case '\uFFFD':
		return "replacement character"
	case '\u201C':
		return "left double quotation mark"
	case '\u201D':
		return "right double quotation mark"
	case '\u2018':
		return "left single quotation mark"
	case '\u2019':
		return "right single quotation mark"
	}
	return ""
}
