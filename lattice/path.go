package lattice

import (
	pathpkg "path"
	"strings"
)

// compilePath compiles a Read or Edit specifier: a gitignore-style pattern
// with Claude Code's four anchors. `//p` is the filesystem root, `~/p` the
// home directory, `/p` the project root (the settings file's project), and
// `p` or `./p` the working directory, which for a committed project file is
// the project root too. A pattern without a slash matches at any depth
// below its anchor; `*` stays inside one segment, `**` crosses segments.
func (r *Rule) compilePath(tool, spec string) []*reading {
	s := spec
	if strings.HasPrefix(s, "!") {
		r.Negated = true
		r.Note = "a gitignore carve-out: it excepts paths from the earlier rules of its list and grants or denies nothing by itself"
		return []*reading{empty}
	}
	z := zoneProject
	anchored, dotSlash := false, false
	switch {
	case strings.HasPrefix(s, "//"):
		// Claude Code 2.1.328 collapses three or more leading slashes to
		// the root anchor: Read(///etc/**) is Read(//etc/**) (measured).
		z, s, anchored = zoneRoot, strings.TrimLeft(s, "/"), true
	case s == "~":
		z, s, anchored = zoneHome, "", true
	case strings.HasPrefix(s, "~/"):
		// ~//.ssh/id_rsa is ~/.ssh/id_rsa: the slashes after the anchor
		// collapse (2.1.328, measured: allow Read(~//.ssh/id_rsa) and
		// Read(~///.ssh/id_rsa) read it, deny Read(~//.ssh/id_rsa) stops it).
		z, s, anchored = zoneHome, strings.TrimLeft(s[2:], "/"), true
	case strings.HasPrefix(s, "/"):
		s, anchored = s[1:], true
	case strings.HasPrefix(s, "./"):
		// `./p` is the working directory; a `./` pattern of one segment
		// matches at any depth below it like a bare one (measured on
		// Claude Code 2.1.328: deny Read(./.env) stops src/.env, allow
		// Edit(./*.env) lets src/x.env be edited), but never outside it.
		// (.//src/** is ./src/**: deny Read(.//src/**) stops src/a.txt,
		// measured.)
		s = strings.TrimLeft(s[2:], "/")
		anchored = strings.Contains(strings.TrimRight(s, "/"), "/")
		dotSlash = true
	}
	s = foldPath(s) // case and doubled slashes (foldPath; measured)
	if !anchored && !dotSlash && r.List != Allow && !strings.Contains(strings.TrimRight(s, "/"), "/") && !strings.Contains(s, "**") && segmentMatches(strings.TrimRight(s, "/"), "..") {
		// A bare one-segment deny or ask rule whose segment matches `..`
		// covers every path outside the working directory too (measured
		// on Claude Code 2.1.328: deny Read(*) stops ~/.ssh/id_rsa and
		// /etc/hostname, deny Read(*.env) and Read(**) do not stop ~/.env; Claude
		// Code matches a path outside the project as ../…, whose first
		// segment the pattern then names as a directory).
		rd := argsReading(tool, argPath, emitPath([]string{"**"}))
		rd.zone = zoneRoot
		return []*reading{rd}
	}
	// A pattern ending in a slash names a directory: everything in it. The
	// trailing slash does not anchor the pattern (gitignore).
	dir := strings.HasSuffix(s, "/")
	s = strings.TrimRight(s, "/")
	if !anchored || dotSlash {
		// (A `./` pattern counts here too: deny Read(./src/**) stops
		// web/src/a.ts, while ./web/src/** keeps to the root; 2.1.328,
		// measured.)
		body := strings.TrimSuffix(s, "/**")
		switch {
		case !strings.Contains(s, "/"):
			s = "**/" + s
		case r.List != Allow && body != s && body != "" && !strings.ContainsAny(body, "/*?[\\"):
			// Since 2.1.214 a single-segment `dir/**` deny or ask rule
			// matches a directory of that name at any depth (allow rules
			// only the one under the working directory).
			s = "**/" + s
		}
	}
	if dir {
		s += "/**"
	}
	segs := strings.Split(s, "/")
	// A pattern that matches a directory covers everything in it
	// (gitignore; measured on Claude Code 2.1.328: deny Read(./secrets)
	// denies secrets/key, Edit(~/*) denies ~/.ssh/x, Read(~/*) reads all of
	// home): the language is the pattern's paths and everything below them.
	body := emitPath(segs)
	rd := argsReading(tool, argPath, func(b *builder) {
		body(b)
		if segs[len(segs)-1] == "**" {
			return // already everything below
		}
		b.acceptHere()
		b.char(single('/'))
		b.char(anyChar)
		b.star(anyChar)
	})
	rd.zone = z
	return []*reading{rd}
}

// segmentMatches reports whether one gitignore path segment pattern
// matches the name ("*", ".*" and "??" match "..").
func segmentMatches(seg, name string) bool {
	ok, err := pathpkg.Match(strings.ReplaceAll(seg, "[!", "[^"), name)
	return err == nil && ok
}

// emitPath writes a gitignore pattern, given as segments, into a builder.
func emitPath(segs []string) func(*builder) {
	return func(b *builder) {
		last := len(segs) - 1
		needSep := false
		for i, seg := range segs {
			if seg == "**" {
				switch {
				case i == last && i == 0:
					b.char(anyChar)
					b.star(anyChar)
				case i == last:
					if needSep {
						b.char(single('/'))
					}
					b.char(anyChar)
					b.star(anyChar)
				default:
					// "**/" (leading) or "/**/" (middle): zero or more
					// directories, each followed by a slash.
					if needSep {
						b.char(single('/'))
					}
					p := b.pos()
					b.star(noChar) // an entry position, so the skip bypasses the loop
					b.star(anyChar)
					b.char(single('/'))
					b.epsilon(p, b.pos())
					needSep = false
					continue
				}
				needSep = true
				continue
			}
			if needSep {
				b.char(single('/'))
			}
			emitSegment(b, seg)
			needSep = true
		}
	}
}

// emitSegment writes one path segment: `*` is any run of non-slash runes,
// `?` one non-slash rune, `[...]` a character class, `\x` a literal x.
func emitSegment(b *builder, seg string) {
	rs := []rune(seg)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '*':
			if i > 0 && rs[i-1] == '*' {
				continue
			}
			b.star(notSlash)
		case '?':
			b.char(notSlash)
		case '[':
			cs, n, ok := parseClass(rs[i:])
			if !ok {
				b.char(single('['))
				continue
			}
			b.char(cs)
			i += n - 1
		case '\\':
			if i+1 < len(rs) {
				i++
				b.char(single(rs[i]))
			} else {
				b.char(single('\\'))
			}
		default:
			b.char(single(c))
		}
	}
}

// parseClass reads a gitignore character class starting at rs[0] == '['.
// It returns the set (never containing '/'), the runes consumed, and false
// when the class is not closed (the '[' is then literal).
func parseClass(rs []rune) (charset, int, bool) {
	i := 1
	neg := false
	if i < len(rs) && (rs[i] == '!' || rs[i] == '^') {
		neg = true
		i++
	}
	var spans []span
	first := true
	for i < len(rs) {
		c := rs[i]
		if c == ']' && !first {
			cs := charset{spans: spans, neg: neg}
			if neg {
				cs.spans = append(cs.spans, span{'/', '/'})
			} else {
				cs = cs.minus(single('/'))
			}
			return cs, i + 1, true
		}
		first = false
		if c == '\\' && i+1 < len(rs) {
			i++
			c = rs[i]
		}
		if i+2 < len(rs) && rs[i+1] == '-' && rs[i+2] != ']' {
			hi := rs[i+2]
			if hi >= c {
				spans = append(spans, span{c, hi})
			}
			i += 3
			continue
		}
		spans = append(spans, span{c, c})
		i++
	}
	return charset{}, 0, false
}

// anyDirMachine is the path language of the reading placed under some
// directory: `d/…/d/` followed by the pattern. A root-anchored pattern
// covers a home- or project-anchored one only if it matches it wherever the
// home directory or the project lies, that is, under every directory.
func (rd *reading) anyDirMachine() *machine {
	rd.anyOnce.Do(func() {
		b := newBuilder()
		start := b.pos()
		b.char(segChar)
		b.star(segChar)
		b.char(single('/'))
		b.epsilon(b.pos(), start)
		rd.emit(b)
		rd.anyDir = b.build()
	})
	return rd.anyDir
}

// formatPath renders a path argument of a zone in the notation Matches reads:
// "/etc/passwd" (filesystem root), "~/.ssh/id_rsa" (home), "src/app.go"
// (project). A project path that would read as another zone gets "./".
func formatPath(z zone, rel string) string {
	switch z {
	case zoneRoot:
		return "/" + rel
	case zoneHome:
		return "~/" + rel
	}
	if strings.HasPrefix(rel, "~/") || rel == "~" {
		return "./" + rel
	}
	return rel
}

// splitPath reads a path argument back into its zone and relative path,
// folded as Claude Code compares paths (foldPath).
func splitPath(p string) (zone, string) {
	switch {
	case strings.HasPrefix(p, "/"):
		return zoneRoot, foldPath(strings.TrimLeft(p, "/"))
	case strings.HasPrefix(p, "~/"):
		return zoneHome, foldPath(strings.TrimLeft(p[2:], "/"))
	case strings.HasPrefix(p, "./"):
		return zoneProject, foldPath(strings.TrimLeft(p[2:], "/"))
	}
	return zoneProject, foldPath(p)
}

// foldPath is a path or path pattern (past its anchor) as Claude Code
// compares it: case-insensitively and with runs of slashes collapsed to
// one. Measured on ClaudeCodeVersion, on Linux: deny Read(//etc//**) and
// Read(//ETC/hostname) stop /etc/hostname, Read(~/.SSH/**) stops
// ~/.ssh/id_rsa, Edit(DOCS/**) stops docs/a.md, and allow Read(//ETC/**)
// reads /etc/passwd without a prompt.
func foldPath(s string) string {
	for strings.Contains(s, "//") {
		s = strings.ReplaceAll(s, "//", "/")
	}
	return strings.ToLower(s)
}
