package lattice

import (
	"fmt"
	"strings"
)

// compileDomain compiles a WebFetch specifier `domain:<host>`. Hosts compare
// case-insensitively with a trailing dot ignored; `*.x.com` is any subdomain
// of x.com at any depth but not x.com itself; any other `*` stays inside
// one label; `domain:*` is the whole tool.
func (r *Rule) compileDomain(tool, spec string) []*reading {
	const prefix = "domain:"
	if spec == "*" {
		// Tool(*) is the whole tool (documented for Bash; read the same way
		// for every tool).
		return []*reading{wholeTool(tool)}
	}
	if !strings.HasPrefix(spec, prefix) {
		r.malformed(fmt.Sprintf("a WebFetch rule takes domain:<host>, not %q", spec))
		return []*reading{empty}
	}
	h := strings.ToLower(spec[len(prefix):])
	h = strings.TrimSuffix(h, ".")
	switch {
	case h == "":
		r.malformed("a WebFetch rule with an empty domain")
		return []*reading{empty}
	case h == "*":
		return []*reading{wholeTool(tool)}
	}
	rd := argsReading(tool, argHost, func(b *builder) {
		rest := h
		if strings.HasPrefix(rest, "*.") {
			// One or more labels, each followed by a dot.
			start := b.pos()
			b.char(labelChar)
			b.star(labelChar)
			b.char(single('.'))
			b.epsilon(b.pos(), start)
			rest = rest[2:]
		}
		for _, c := range rest {
			if c == '*' {
				b.star(notDot)
				continue
			}
			b.char(single(c))
		}
	})
	rd.fold = true
	return []*reading{rd}
}

// parseToolGlob compiles a tool-name glob such as `*`, `mcp__*` or
// `mcp__github__get_*`. Deny and ask lists accept any glob over the whole
// tool name (2.1.166+); allow lists accept one only after a literal
// `mcp__<server>__` and skip the rest with a warning.
func (r *Rule) parseToolGlob() {
	tool := r.Tool
	r.Canonical = tool
	if r.HasSpecifier {
		r.malformed("a tool-name glob takes no parentheses")
		return
	}
	if r.List == Allow {
		if !mcpToolGlob(tool) {
			r.Family = FamilyToolGlob
			r.Malformed = "Claude Code skips a tool-name glob in an allow list unless it follows a literal mcp__<server>__ (2.1.166+)"
			r.readings = []*reading{empty}
			return
		}
		r.Family = FamilyMCP
	} else {
		r.Family = FamilyToolGlob
		if strings.HasPrefix(tool, "mcp__") {
			r.Family = FamilyMCP
		}
	}
	if tool != "" && strings.Trim(tool, "*") == "" {
		r.readings = []*reading{namesReading(nameGlob(tool), true)}
		return
	}
	r.readings = []*reading{namesReading(nameGlob(tool), false)}
}

// mcpToolGlob reports whether a glob has a literal `mcp__<server>__` before
// its first star.
func mcpToolGlob(tool string) bool {
	if !strings.HasPrefix(tool, "mcp__") {
		return false
	}
	rest := tool[len("mcp__"):]
	i := strings.Index(rest, "__")
	return i > 0 && !strings.ContainsRune(rest[:i], '*')
}

// nameGlob compiles a tool-name pattern where `*` matches any run of runes.
func nameGlob(p string) *machine {
	b := newBuilder()
	prevStar := false
	for _, c := range p {
		if c == '*' {
			if !prevStar {
				b.star(anyChar)
			}
			prevStar = true
			continue
		}
		prevStar = false
		b.char(single(c))
	}
	return b.build()
}

// parseMCP compiles an MCP token: `mcp__s` (every tool of server s, the same
// grant as `mcp__s__*`), `mcp__s__t` (one tool), `mcp__s__get_*` (a family).
func (r *Rule) parseMCP() {
	tool := r.Tool
	r.Canonical, r.Family = tool, FamilyMCP
	if r.HasSpecifier {
		r.malformed("Claude Code skips MCP rules with parentheses: an MCP rule is a bare tool name")
		return
	}
	rest := tool[len("mcp__"):]
	i := strings.Index(rest, "__")
	switch {
	case rest == "":
		r.malformed("an MCP rule without a server name")
		return
	case i < 0:
		r.readings = []*reading{namesReading(nameGlob(tool+"__*"), false)}
		return
	case i == 0:
		r.malformed("an MCP rule with an empty server name")
		return
	case rest[i+2:] == "":
		r.malformed("an MCP rule with an empty tool name after the server")
		return
	}
	r.readings = []*reading{namesReading(nameGlob(tool), false)}
}
