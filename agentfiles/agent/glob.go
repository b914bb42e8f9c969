package agent

import "github.com/shipgate-app/shipgate/lattice"

// Glob translates a simple wildcard pattern where `*` is any run of
// characters (spaces and slashes included) and `?` one character, every
// other character literal — OpenCode's and Cursor's Shell glob — to an RE.
func Glob(p string) lattice.RE {
	var parts []lattice.RE
	lit := []rune{}
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, lattice.Lit(string(lit)))
			lit = lit[:0]
		}
	}
	for _, r := range p {
		switch r {
		case '*':
			flush()
			parts = append(parts, lattice.Everything())
		case '?':
			flush()
			parts = append(parts, lattice.AnyRune())
		default:
			lit = append(lit, r)
		}
	}
	flush()
	if len(parts) == 0 {
		return lattice.RE{Op: lattice.REEmpty}
	}
	return lattice.Cat(parts...)
}

// PathGlob translates a path glob where `**` spans directories, `*` and
// `?` stay within one segment, and `[...]` is a character class (Cursor's
// Read/Write, VS Code's chat.tools.edits.autoApprove, Copilot CLI's write
// paths): `**/` also matches no directory at all.
func PathGlob(p string) lattice.RE {
	notSlash := lattice.Class(true, '/', '/')
	var parts []lattice.RE
	rs := []rune(p)
	lit := []rune{}
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, lattice.Lit(string(lit)))
			lit = lit[:0]
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '*' && i+1 < len(rs) && rs[i+1] == '*':
			flush()
			i++
			if i+1 < len(rs) && rs[i+1] == '/' {
				i++
				// **/ : any number of whole directories, none included.
				parts = append(parts, lattice.Star(lattice.Cat(lattice.Star(notSlash), lattice.Lit("/"))))
			} else {
				parts = append(parts, lattice.Everything())
			}
		case r == '*':
			flush()
			parts = append(parts, lattice.Star(notSlash))
		case r == '?':
			flush()
			parts = append(parts, notSlash)
		case r == '[':
			j := i + 1
			neg := false
			if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
				neg = true
				j++
			}
			var ranges []rune
			first := true
			closed := false
			for ; j < len(rs); j++ {
				if rs[j] == ']' && !first {
					closed = true
					break
				}
				first = false
				lo := rs[j]
				if j+2 < len(rs) && rs[j+1] == '-' && rs[j+2] != ']' {
					ranges = append(ranges, lo, rs[j+2])
					j += 2
					continue
				}
				ranges = append(ranges, lo, lo)
			}
			if !closed {
				lit = append(lit, r)
				continue
			}
			flush()
			if neg {
				ranges = append(ranges, '/', '/')
			}
			parts = append(parts, lattice.Class(neg, ranges...))
			i = j
		case r == '{':
			// {a,b} alternatives (one level, no nesting).
			j := i + 1
			for j < len(rs) && rs[j] != '}' && rs[j] != '{' {
				j++
			}
			if j >= len(rs) || rs[j] != '}' {
				lit = append(lit, r)
				continue
			}
			flush()
			var alts []lattice.RE
			start := i + 1
			for k := i + 1; k <= j; k++ {
				if k == j || rs[k] == ',' {
					alts = append(alts, PathGlob(string(rs[start:k])))
					start = k + 1
				}
			}
			parts = append(parts, lattice.Alt(alts...))
			i = j
		default:
			lit = append(lit, r)
		}
	}
	flush()
	if len(parts) == 0 {
		return lattice.RE{Op: lattice.REEmpty}
	}
	return lattice.Cat(parts...)
}
