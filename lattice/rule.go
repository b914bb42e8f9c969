package lattice

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// List is the permissions list a rule is declared in. Some rule texts mean
// different things in different lists (tool-name globs, single-segment
// directory patterns, parameter rules), so a Rule remembers its list.
type List string

const (
	Allow List = "allow"
	Ask   List = "ask"
	Deny  List = "deny"
)

// ParseList reads a list name as given on a command line.
func ParseList(s string) (List, error) {
	switch List(s) {
	case Allow, Ask, Deny:
		return List(s), nil
	}
	return "", fmt.Errorf("unknown permission list %q: use allow, ask or deny", s)
}

// Rule is one permission rule: `Tool` or `Tool(specifier)`, parsed the way
// Claude Code reads it, with its exact source text kept. A Rule is immutable
// and safe for concurrent use; its compiled languages are built once, at
// parse time, so comparisons do not re-parse.
type Rule struct {
	// Text is the rule exactly as written in the settings file.
	Text string
	// List is the list the rule was declared in.
	List List
	// Tool is the tool name as written (text before the first parenthesis).
	Tool string
	// Canonical is the canonical tool name (Task → Agent); for MCP tokens and
	// tool-name globs it is the token itself.
	Canonical string
	// Specifier is the text between the first "(" and the last ")".
	Specifier string
	// HasSpecifier says whether the rule has parentheses at all.
	HasSpecifier bool
	// Family is the rule language of the specifier.
	Family Family
	// Malformed, when set, says why Claude Code cannot use the rule: it is
	// skipped (with a warning) and matches nothing.
	Malformed string
	// Ambiguity, when set, names the documented disagreement that gives the
	// rule two readings (what it surely matches, and what it may match).
	Ambiguity string
	// Note carries a fact a reviewer should know about the rule, such as
	// "never consulted" for Write(path) rules.
	Note string
	// Negated is set for a gitignore carve-out `Read(!p)` / `Edit(!p)`: it
	// grants and denies nothing by itself and excepts paths from earlier rules
	// of its list (the diff package gives it that meaning).
	Negated bool

	readings []*reading
	// also are readings Claude Code applies together with the rule's own,
	// as a union: the rule matches a call when its readings say so or any
	// of these matches it. A deny or ask Bash(timeout:*) is the parameter
	// rule on the timeout field and also the legacy prefix rule
	// `timeout:*` (measured on ClaudeCodeVersion: it denies the command
	// `timeout 5 npm test` sent without a timeout field).
	also []*reading
}

// Parse reads a rule declared in an allow list. It never fails: a rule
// Claude Code would reject parses into a Rule whose Malformed field says why.
func Parse(text string) Rule { return ParseIn(Allow, text) }

// ParseIn reads a rule declared in the given list.
func ParseIn(list List, text string) Rule {
	r := Rule{Text: text, List: list}
	r.parse()
	return r
}

// Whole reports whether the rule (in every reading) matches every call of
// its tool: `Bash`, `Bash(*)`, `WebFetch(domain:*)`, `mcp__s` is not whole
// (it names one server), a deny-list `*` is whole for every tool.
func (r Rule) Whole() bool {
	if len(r.readings) == 0 {
		return false
	}
	for _, rd := range r.readings {
		if rd.kind != readNames || !rd.whole {
			return false
		}
	}
	return true
}

// MayBeWhole reports whether some reading of the rule matches every call of
// its tool (the wide reading, used by ratings).
func (r Rule) MayBeWhole() bool {
	for _, rd := range append(r.readings[:len(r.readings):len(r.readings)], r.also...) {
		if rd.kind == readNames && rd.whole {
			return true
		}
	}
	return false
}

// Dead reports whether the rule matches nothing in any reading: malformed
// rules, unconsulted path rules, carve-outs, allow-list tool-name globs.
func (r Rule) Dead() bool {
	for _, rd := range append(r.readings[:len(r.readings):len(r.readings)], r.also...) {
		if rd.kind != readEmpty {
			return false
		}
	}
	return true
}

// unionParts is the rule as the union of rules it is: itself alone when it
// has no union parts (Rule.also), else its own readings as one rule and
// each part as another, each part's text marked so that no two compare as
// "the same rule".
func (r Rule) unionParts() []Rule {
	if len(r.also) == 0 {
		return []Rule{r}
	}
	own := r
	own.also = nil
	own.Text = r.Text + " (as a parameter rule)"
	out := []Rule{own}
	for i, rd := range r.also {
		p := r
		p.also, p.readings = nil, []*reading{rd}
		p.Text = fmt.Sprintf("%s (as a command pattern %d)", r.Text, i+1)
		out = append(out, p)
	}
	return out
}

// Ambiguous reports whether the rule has two readings.
func (r Rule) Ambiguous() bool { return r.Ambiguity != "" }

// Tidy reports whether the rule is written exactly `Tool` or
// `Tool(specifier)` with a canonical tool name, no padding and no
// ambiguity: only tidy rules are documented respellings or covers.
func (r Rule) Tidy() bool {
	return r.Malformed == "" && r.Ambiguity == "" && strings.TrimSpace(r.Text) == r.Text
}

// String returns the rule's source text.
func (r Rule) String() string { return r.Text }

// readKind is the shape of one reading's language.
type readKind int

const (
	// readEmpty matches nothing.
	readEmpty readKind = iota
	// readNames matches every call of every tool whose name is in names.
	readNames
	// readArgs matches calls of one tool whose argument is in args.
	readArgs
)

// zone is the anchor a path pattern is relative to.
type zone int

const (
	zoneProject zone = iota // `p`, `./p`, `/p` in a project settings file
	zoneHome                // `~/p`
	zoneRoot                // `//p`
)

// argKind says how a call's argument is read.
type argKind int

const (
	argShell argKind = iota
	argPath
	argHost
	argText
)

// reading is one way of reading a rule: a language over tool calls.
type reading struct {
	kind readKind

	// readNames
	names *machine
	whole bool // names is exactly the rule's own tool (or every tool)

	// readArgs
	tool    string
	arg     argKind
	fold    bool // the argument is compared case-insensitively
	zone    zone
	param   string // parameter rules: the parameter name
	emit    func(*builder)
	args    *machine
	literal string // set with isLit: the language is exactly this string
	isLit   bool
	prefix  string // every argument in the language starts with it

	member   atomic.Pointer[memberMemo] // shortest member, computed lazily (covers.go)
	anyDir   *machine
	anyOnce  sync.Once
	tooLarge bool
}

// empty is the reading that matches nothing.
var empty = &reading{kind: readEmpty}

func namesReading(m *machine, whole bool) *reading {
	return &reading{kind: readNames, names: m, whole: whole, prefix: m.prefix}
}

func wholeTool(tool string) *reading {
	b := newBuilder()
	b.lit(tool)
	return namesReading(b.build(), true)
}

// argsReading builds a reading over one tool's argument from a token program.
func argsReading(tool string, kind argKind, emit func(*builder)) *reading {
	rd := &reading{kind: readArgs, tool: tool, arg: kind, emit: emit}
	b := newBuilder()
	emit(b)
	if len(b.adv) > maxMachineStates {
		rd.tooLarge = true
	}
	rd.prefix = b.literalPrefix()
	rd.args = b.build()
	return rd
}

// literalPrefix returns the text every word of the builder's language
// starts with: the literal runes read before the first choice.
func (b *builder) literalPrefix() string {
	choice := make([]bool, len(b.adv))
	for _, e := range b.eps {
		choice[e[0]] = true
	}
	for _, a := range b.accept {
		choice[a] = true
	}
	var sb strings.Builder
	for p := 0; p < len(b.adv)-1; p++ {
		cs := b.adv[p]
		if choice[p] || !b.loop[p].isEmpty() || cs.neg || len(cs.spans) != 1 || cs.spans[0].lo != cs.spans[0].hi {
			break
		}
		sb.WriteRune(cs.spans[0].lo)
	}
	return sb.String()
}

// literalReading is the reading whose language is exactly one argument.
func literalReading(tool string, kind argKind, s string) *reading {
	rd := argsReading(tool, kind, func(b *builder) { b.lit(s) })
	rd.literal, rd.isLit = s, true
	return rd
}

func (r *Rule) malformed(reason string) {
	r.Malformed = reason
	r.Family = FamilyInvalid
	r.readings = []*reading{empty}
}

// parse fills in the rule from its text.
func (r *Rule) parse() {
	text := r.Text
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		r.malformed("empty rule")
		return
	}
	if trimmed != text {
		// Claude Code 2.1.328 skips a rule with a blank before it or after
		// its closing parenthesis (measured): it allows and stops nothing.
		inner := ParseIn(r.List, trimmed)
		*r = inner
		r.Text, r.Ambiguity, r.Note = text, "", ""
		r.malformed("a blank before or after the rule (measured on Claude Code " + ClaudeCodeVersion + ")")
		return
	}
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.ContainsRune(text, ')') {
			r.malformed("a closing parenthesis without an opening one")
			return
		}
		r.Tool = text
		r.parseTool()
		return
	}
	r.Tool = text[:open]
	r.HasSpecifier = true
	if !strings.HasSuffix(text, ")") {
		if strings.LastIndexByte(text, ')') > open {
			r.malformed("text after the closing parenthesis")
		} else {
			r.malformed("unclosed parenthesis")
		}
		return
	}
	r.Specifier = text[open+1 : len(text)-1]
	if r.Tool == "" {
		r.malformed("empty tool name before the parenthesis")
		return
	}
	if strings.TrimSpace(r.Tool) != r.Tool {
		// `Bash (x)`: skipped by Claude Code 2.1.328 (measured).
		inner := ParseIn(r.List, strings.TrimSpace(r.Tool)+"("+r.Specifier+")")
		inner.Text, inner.Tool, inner.Ambiguity, inner.Note = r.Text, r.Tool, "", ""
		*r = inner
		r.malformed("a blank between the tool name and the parenthesis (measured on Claude Code " + ClaudeCodeVersion + ")")
		return
	}
	r.parseTool()
}

// ambiguous records a reason for two readings (the first one stays).
func (r *Rule) ambiguous(reason string) {
	if r.Ambiguity == "" {
		r.Ambiguity = reason
	}
}

// parseTool resolves the tool and compiles the specifier.
func (r *Rule) parseTool() {
	tool := r.Tool
	switch {
	case strings.ContainsRune(tool, '*'):
		r.parseToolGlob()
		return
	case strings.HasPrefix(tool, "mcp__"):
		r.parseMCP()
		return
	case strings.ContainsAny(tool, " \t\r\n"):
		r.malformed("whitespace inside the tool name")
		return
	}
	canon, fam, exact := canonicalTool(tool)
	r.Canonical, r.Family = canon, fam
	if r.HasSpecifier && r.Specifier == "" {
		r.malformed("empty parentheses")
		return
	}
	if !exact {
		// `bash(x)`, `BASH(x)`: skipped by Claude Code 2.1.328 (measured;
		// #28210 for earlier versions).
		r.malformed(fmt.Sprintf("tool name %q is not the canonical %q: tool names are case-sensitive (measured on Claude Code %s)", tool, canon, ClaudeCodeVersion))
		r.Canonical = canon
		return
	}
	if NoSuchTool(tool) {
		// No tool of that name exists in this version: the rule matches
		// no call, in any list.
		r.Note = "Claude Code " + ClaudeCodeVersion + " has no tool " + tool + " (the name is nowhere in its binary; it answers a call of it \"No such tool available\", measured), so this rule matches no call"
		r.readings = []*reading{empty}
		return
	}
	r.readings = r.compileSpecifier(canon, fam)
}

// compileSpecifier compiles the rule for a known or unknown (generic) tool.
func (r *Rule) compileSpecifier(tool string, fam Family) []*reading {
	if !r.HasSpecifier {
		return []*reading{wholeTool(tool)}
	}
	spec := r.Specifier
	if rds, ok := r.compileParam(tool, spec); ok {
		return rds // params.go
	}
	if tool == "Bash" && legacyTrailingBlank(spec) {
		r.Note = "a legacy :* prefix rule with a blank after the :*: Claude Code " + ClaudeCodeVersion + " matches no command with it, as an allow, ask or deny rule (measured: Bash(npm:* ) neither allows nor denies `npm test`); write Bash(" + strings.TrimSpace(spec) + ")"
		return []*reading{empty}
	}
	if tool == "Bash" && r.List == Allow && starCompound(spec) {
		r.Note = "an allow rule written as a compound command with a wildcard: Claude Code " + ClaudeCodeVersion + " splits a command line on its operators before it matches allow rules, and such a rule matches none of the parts, so it allows nothing (measured); allow each part instead"
		return []*reading{empty}
	}
	var readings []*reading
	switch fam {
	case FamilyShell:
		readings = r.compileShell(tool, spec, false, true)
	case FamilyPowerShell:
		readings = r.compileShell(tool, psCanonicalSpec(spec), true, true) // powershell.go
	case FamilyCd:
		readings = r.compileCd(tool, spec)
	case FamilyPath:
		readings = r.compilePath(tool, spec)
	case FamilyUnconsulted:
		if (tool == "Write" || tool == "NotebookEdit") && starSlashOnly(spec) {
			// NotebookEdit's stars read as Write's (measured on 2.1.328,
			// the conformance class notebook): NotebookEdit(*) edits
			// notebooks in the project only, NotebookEdit(**) allows
			// nothing, and in a deny or ask list NotebookEdit(*) is the
			// whole tool while NotebookEdit(**) restricts nothing.
			return r.compileWriteStars(tool, spec)
		}
		if starSlashOnly(spec) {
			return []*reading{wholeTool(tool)}
		}
		r.Note = fmt.Sprintf("Claude Code accepts a path-scoped %s rule but never consults it (file permission checks read Read(path) and Edit(path) rules only), so it allows and restricts nothing", tool)
		return []*reading{empty}
	case FamilyDomain:
		readings = r.compileDomain(tool, spec)
	default:
		readings = r.compileShell(tool, spec, false, false)
	}
	switch parens(spec) {
	case parensUnbalanced:
		r.malformed("unbalanced parentheses in the specifier: text after the closing parenthesis")
		return []*reading{empty}
	case parensNested:
		// Balanced unescaped parentheses are literal: Claude Code 2.1.328
		// matches Bash(echo (x)) against `echo (x)` (measured), though
		// 2.1.173's changelog said such rules were rejected.
	}
	return r.withParamReading(tool, spec, readings)
}

// legacyTrailingBlank reports a specifier ending in `:*` followed by
// blanks (`npm:* `).
func legacyTrailingBlank(spec string) bool {
	t := strings.TrimRight(spec, " \t")
	return t != spec && strings.HasSuffix(t, ":*") && strings.TrimSpace(strings.TrimSuffix(t, ":*")) != ""
}

// parenShape classifies the unescaped parentheses of a specifier.
type parenShape int

const (
	parensNone parenShape = iota
	parensNested
	parensUnbalanced
)

// parens reports whether s has unescaped parentheses, and whether they
// balance (an unbalanced ")" means text after the rule's closing one).
func parens(s string) parenShape {
	depth, any := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			depth++
			any = true
		case ')':
			depth--
			any = true
			if depth < 0 {
				return parensUnbalanced
			}
		}
	}
	switch {
	case depth != 0:
		return parensUnbalanced
	case any:
		return parensNested
	}
	return parensNone
}

// starSlashOnly reports whether a path pattern is made only of stars and
// slashes (after an optional "./"), which Claude Code reads as the whole tool.
func starSlashOnly(s string) bool {
	s = strings.TrimPrefix(s, "./")
	if s == "" {
		return false
	}
	return strings.Trim(s, "*/") == "" && strings.Contains(s, "*")
}

// starCompound reports whether a Bash specifier is a compound command
// (parts joined by && || | ; & or a line break) with an unescaped star.
func starCompound(spec string) bool {
	if !strings.ContainsAny(spec, "&|;\n") || !strings.ContainsRune(spec, '*') || stars(globTokens(spec)) == 0 {
		return false
	}
	cmd, err := ParseCommand(strings.TrimSuffix(spec, ":*"))
	return err == nil && cmd.Compound()
}

// compileWriteStars reads a Write rule made of stars and slashes, as
// measured on Claude Code 2.1.328: in an allow list `Write(*)` lets the
// agent write inside the project (a file in the project root ran, one in
// home asked; read here as the whole project, the wider side), and
// `Write(**)` and the other spellings grant nothing. Deny and ask lists
// were not measured: such a rule reads two ways there, as nothing (the
// narrow reading a claim that it protects must survive) or the whole tool.
func (r *Rule) compileWriteStars(tool, spec string) []*reading {
	if r.List != Allow {
		// Measured on 2.1.328: deny Write(*) refuses every Write, in the
		// project, the home and an additional directory; ask Write(**)
		// asks for none (acceptEdits still wrote in the project), nor does
		// ask Write(./*). An ask Write(*) is read as the deny is.
		if spec == "*" {
			r.Note = "Claude Code " + ClaudeCodeVersion + " reads " + r.Text + " in a " + string(r.List) + " list as the whole " + tool + " tool (measured)"
			return []*reading{wholeTool(tool)}
		}
		r.Note = "Claude Code " + ClaudeCodeVersion + " never consults " + r.Text + " (measured: only " + tool + "(*) and bare " + tool + " are " + tool + " rules)"
		return []*reading{empty}
	}
	if spec != "*" {
		// (Write(./*) too: measured on 2.1.328, a Write in the project
		// root asks under allow Write(./*).)
		r.Note = "Claude Code " + ClaudeCodeVersion + " lets " + r.Text + " write nowhere (measured: only bare " + tool + " and " + tool + "(*) grant writes)"
		return []*reading{empty}
	}
	r.Note = "Claude Code " + ClaudeCodeVersion + " lets " + tool + "(*) write inside the project only (measured)"
	rd := argsReading(tool, argPath, emitPath([]string{"**"}))
	rd.zone = zoneProject
	return []*reading{rd}
}

// Implied returns the rules Claude Code derives from r for other tools, as
// measured on ClaudeCodeVersion, each with r's text (a report cites what
// was written) and the derived tool:
//
//   - an Edit path rule in an allow list also allows Read of its paths
//     (Edit(~/.ssh/**) lets Read ~/.ssh/id_rsa run) and Write of them
//     (Edit(./src/**) allows Write in src; bare Edit does not allow Write);
//   - a Read path rule in a deny list also denies Edit and Write of its
//     paths ("File is covered by a Read deny rule … cannot be edited");
//   - an Edit path rule in a deny list also denies Write of its paths
//     (the harness's recording: deny Edit(./docs/**) refuses a Write in
//     docs/sub), and one in an ask list asks for them;
//   - a bare Read deny denies every Edit and Write.
//
// Nothing else is derived: an unmeasured derivation could hide a grant
// (an implied allow makes an addition look covered) or claim a protection
// (an implied deny), so the engine adds only these to its effective view.
func Implied(r Rule) []Rule {
	r = parsed(r)
	if !r.HasSpecifier && r.Malformed == "" && r.List == Deny && r.Canonical == "Read" && !r.Dead() {
		// A bare Read deny denies every Edit and Write too (measured on
		// Claude Code 2.1.328: "covered by a Read deny rule").
		var out []Rule
		for _, t := range []string{"Edit", "Write"} {
			d := ParseIn(Deny, t)
			d.Text = r.Text
			d.Note = "implied by deny: " + r.Text + " (Claude Code " + ClaudeCodeVersion + ", measured)"
			out = append(out, d)
		}
		return out
	}
	if !r.HasSpecifier || r.Malformed != "" || r.Negated || r.Family != FamilyPath || r.Ambiguous() {
		return nil
	}
	var tools []string
	switch {
	case r.List == Allow && r.Canonical == "Edit" && r.Specifier == "*":
		// Edit(*) does not govern Write (measured on Claude Code 2.1.328:
		// a Write in the project root and below asks under allow Edit(*),
		// while Edit(**), Edit(*.env) and Edit(./src/**) allow Write).
		tools = []string{"Read"}
	case r.List == Allow && r.Canonical == "Edit":
		// NotebookEdit checks a notebook's path against the Edit rules
		// as Write does (measured on 2.1.328, the conformance class
		// notebook: Edit(**), Edit(*.ipynb), Edit(~/**) allow it there;
		// Edit(*) does not).
		tools = []string{"Read", "Write", "NotebookEdit"}
	case r.List == Deny && r.Canonical == "Read":
		tools = []string{"Edit", "Write"}
	case r.List == Ask && r.Canonical == "Edit" && r.Specifier == "*":
		// Nor does ask Edit(*) (a Write asked for nothing more under
		// acceptEdits; 2.1.328, measured), while deny Edit(./*) denies
		// Write.
		return nil
	case r.List == Deny && r.Canonical == "Edit" && r.Specifier == "*":
		// Deny Edit(*) takes the Edit tool away and leaves Write alone
		// (measured on 2.1.328, seed 2's full corpus and a probe: under
		// allow Read, Edit, Write a Write runs in the project and the
		// home, an Edit is "No such tool available"), as deny Edit(**)
		// does not (it denies a Write in the project).
		tools = []string{"NotebookEdit"}
	case (r.List == Deny || r.List == Ask) && r.Canonical == "Edit":
		// (An ask too: ask Edit(src/deep/**) and Edit(**/src/**) made a
		// Write there ask under acceptEdits; 2.1.328, measured.)
		// (NotebookEdit too: deny Edit(./sub/**) denies and ask
		// Edit(./sub/**) asks for a notebook there under allow
		// NotebookEdit; 2.1.328, measured.)
		tools = []string{"Write", "NotebookEdit"}
	default:
		return nil
	}
	out := make([]Rule, 0, len(tools))
	for _, t := range tools {
		d := Rule{Text: r.Text, List: r.List, Tool: t, Canonical: t, Specifier: r.Specifier, HasSpecifier: true, Family: FamilyPath,
			Note: "implied by " + string(r.List) + ": " + r.Text + " (Claude Code " + ClaudeCodeVersion + ", measured)"}
		d.readings = d.compilePath(t, r.Specifier)
		d.Note = "implied by " + string(r.List) + ": " + r.Text + " (Claude Code " + ClaudeCodeVersion + ", measured)"
		out = append(out, d)
	}
	return out
}
