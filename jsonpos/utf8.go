package jsonpos

import (
	"unicode/utf16"
	"unicode/utf8"
)

// invalidLen returns the length of the maximal subpart of the ill-formed UTF-8
// sequence at s[i] (where utf8.DecodeRuneInString reports an error): the
// longest prefix of a well-formed sequence, or 1. Node's decoder (V8, since
// 5.5) and the WHATWG decoder replace each maximal subpart with one U+FFFD, so
// the decoded string matches what Claude Code sees; encoding/json instead
// replaces every byte.
func invalidLen(s string, i int) int {
	if i < 0 || i >= len(s) {
		return 1
	}
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch b := s[i]; {
	case b >= 0xC2 && b <= 0xDF:
		need = 1
	case b == 0xE0:
		need, lo = 2, 0xA0
	case b == 0xED:
		need, hi = 2, 0x9F
	case b >= 0xE1 && b <= 0xEF:
		need = 2
	case b == 0xF0:
		need, lo = 3, 0x90
	case b == 0xF4:
		need, hi = 3, 0x8F
	case b >= 0xF1 && b <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; need > 0 && i+n < len(s); need-- {
		if c := s[i+n]; c < lo || c > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// jsKey decodes the body of a string that scanString has already validated,
// as JavaScript keeps it: a lone surrogate escape stays a distinct code unit,
// written in WTF-8 (bytes ED A0-BF xx, which no decoded UTF-8 text contains).
// Two keys are the same JavaScript property exactly when their jsKey is equal.
func jsKey(body string) string {
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			e := body[i+1]
			if e != 'u' {
				b = append(b, unescape(e))
				i += 2
				continue
			}
			r, ok := hex4(body, i+2)
			if !ok {
				return string(b) // not reached for validated input
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if r2, ok := hex4(body, i+2); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
						b = utf8.AppendRune(b, utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				b = append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
				continue
			}
			b = utf8.AppendRune(b, r)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(body[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
				i += invalidLen(body, i)
				continue
			}
			b = append(b, body[i:i+size]...)
			i += size
		}
	}
	return string(b)
}

// unescape returns the byte a one-character escape \e stands for.
func unescape(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return e // '"', '\\', '/'
}
