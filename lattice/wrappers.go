package lattice

import (
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Form is one text Claude Code matches Bash rules against for a simple
// command: the command itself, or what remains once a wrapper or leading
// assignment is set aside.
type Form struct {
	// Text is the command text a rule is matched against.
	Text string
	// Past names what was set aside to reach Text ("timeout 30",
	// "NODE_ENV=test"), empty for the command as written.
	Past string
	// NoExact is set on a form reached past xargs: Claude Code matches
	// only rules with a wildcard there (measured on 2.1.328: deny
	// Bash(curl:*), Bash(curl *) and Bash(curl*) stop `echo x | xargs
	// curl`; an exact deny Bash(curl) does not).
	NoExact bool
}

// MatchesForm reports whether a rule may be matched against a form: every
// rule may, except an exact one (no wildcard) on a form reached past
// xargs.
func (f Form) MatchesForm(r Rule) bool {
	return !f.NoExact || strings.Contains(r.Specifier, "*")
}

// Forms is how Claude Code reads one simple command (a part of a command
// line) before it consults Bash rules (reference section 3, "Wrappers
// stripped before matching", "Exec wrappers", "Leading environment
// assignments"):
//
//   - an allow rule approves the command when it matches the command or
//     what remains after the fixed wrappers (`timeout`, `time`, `nice`,
//     `nohup`, `stdbuf`, `command`, `builtin`, `noglob`, bare `xargs`) and
//     leading assignments of known-safe variables are stripped;
//   - a deny or ask rule fires on any of those, and also past any leading
//     assignment and through the exec wrappers (`env`, `sudo`, `watch`,
//     `setsid`, `ionice`, `flock`; Claude Code 2.1.113+);
//   - no allow rule approves a command run through `watch`, `setsid`,
//     `ionice` or `flock`: Claude Code always asks.
type Forms struct {
	// Allow are the texts an allow rule may match, the command first.
	Allow []Form
	// Deny are the texts a deny or ask rule may match, the command first.
	Deny []Form
	// Wrapper names the exec wrapper through which no allow rule approves
	// the command, or is empty.
	Wrapper string
}

// safeAssignments are the variables an allow rule matches past when a
// command starts by assigning them, as measured on Claude Code 2.1.328
// (ClaudeCodeVersion): LANG, TZ, NO_COLOR, NODE_ENV, CI, RUST_LOG, GOOS,
// FORCE_COLOR, TERM and LC_ALL (the conformance harness's recording:
// `LC_ALL=C npm run build x` ran under Bash(npm run build:*), though an
// earlier probe read it as not stripped). Measured as not stripped: FOO,
// DEBUG, NODE_OPTIONS, PATH, LD_PRELOAD, PYTHONPATH, HOME, NPM_CONFIG_*,
// BASH_ENV, PAGER,
// EDITOR, GIT_DIR, USER, TMPDIR, http_proxy. Any other assignment keeps the
// allow rules to the command as written, which errs toward a prompt; one
// unsafe assignment among safe ones (`CI=1 FOO=1 npm test`) does too.
var safeAssignments = map[string]bool{
	"LANG": true, "TZ": true, "NO_COLOR": true, "NODE_ENV": true,
	"CI": true, "RUST_LOG": true, "GOOS": true, "FORCE_COLOR": true, "TERM": true, "LC_ALL": true,
}

// noApproveWrappers are the exec wrappers no allow rule approves through.
var noApproveWrappers = map[string]bool{"watch": true, "setsid": true, "ionice": true, "flock": true}

// CommandForms reads a simple command (one of Command.Parts) the way Claude
// Code does before matching rules. A part that is not a plain command (a
// declaration, a test, a bare redirection) or does not parse has only
// itself as its form.
func CommandForms(part string) Forms {
	fs := commandForms(part)
	if n := normalizedCommand(part); n != "" && n != part {
		// Claude Code matches the command with its blanks normalised
		// (2.1.98+; measured on 2.1.328: `python3  -m pytest x` ran under
		// Bash(python3 -m pytest **), `kubectl  apply x` was denied by a
		// deny on kubectl apply): the normalised text's forms count too.
		fs.add(commandForms(n))
	}
	if q := withoutHarmlessRedirects(part); q != "" && q != part {
		// A rule matches the command without its redirections to
		// /dev/null or another descriptor (measured on 2.1.328:
		// `npm run build > /dev/null 2>&1` ran under allow
		// Bash(npm run build)).
		fs.add(CommandForms(q))
	}
	// A deny or ask rule sees through the spelling of the command word
	// (measured on Claude Code 2.1.328: deny Bash(npm publish:*) stops
	// `/usr/bin/npm publish x`, `\npm publish x`, `'npm' publish x`,
	// `n"pm" publish x` and `./npm publish x`): each deny form's command
	// word is also read unquoted and without its directory.
	for i := 0; i < len(fs.Deny); i++ {
		f := fs.Deny[i]
		plain := plainCommand(f.Text)
		if plain == "" {
			continue
		}
		for _, g := range CommandForms(plain).Deny {
			past := trimBlanks(f.Past + " " + g.Past)
			fs.Deny = appendForm(fs.Deny, Form{Text: g.Text, Past: past, NoExact: f.NoExact || g.NoExact})
		}
	}
	// An allow rule reads the command word unquoted too (measured on
	// 2.1.328, internal/conformance TestQuotedCommandNames: `\git push x`,
	// `'git' push x` and `g"it" push x` ran under Bash(git *), Bash(git:*)
	// and Bash(git push *); `\npm test` under the exact Bash(npm test)).
	// Not without its directory: `./npm` is another program.
	for i := 0; i < len(fs.Allow); i++ {
		f := fs.Allow[i]
		plain := plainCommand(f.Text)
		if plain == "" || !sameDirectory(f.Text, plain) {
			continue
		}
		for _, g := range CommandForms(plain).Allow {
			fs.Allow = appendForm(fs.Allow, Form{Text: g.Text, Past: trimBlanks(f.Past + " " + g.Past), NoExact: f.NoExact || g.NoExact})
		}
	}
	return fs
}

// sameDirectory reports whether plainCommand only unquoted the command
// word of part: the word as written names no directory.
func sameDirectory(part, plain string) bool {
	word, _, _ := strings.Cut(strings.TrimLeft(part, " \t"), " ")
	name, _, _ := strings.Cut(plain, " ")
	return !strings.Contains(word, "/") && name != ""
}

// add appends the forms of o whose text fs lacks, and takes o's wrapper when fs
// has none: another reading of the same command counts too.
func (fs *Forms) add(o Forms) {
	for _, g := range o.Allow {
		fs.Allow = appendForm(fs.Allow, g)
	}
	for _, g := range o.Deny {
		fs.Deny = appendForm(fs.Deny, g)
	}
	if fs.Wrapper == "" {
		fs.Wrapper = o.Wrapper
	}
}

// plainCommand is a simple command with its command word unquoted
// (`'npm'`, `n"pm"`, `\npm` read as npm) and stripped of its directory
// (`/usr/bin/npm`, `./npm` read as npm), or "" when that changes nothing
// or the word is not a plain word (an expansion, a leading assignment).
func plainCommand(part string) string {
	f, err := parseBash(part)
	if err != nil || len(f.Stmts) != 1 {
		return ""
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return ""
	}
	w := call.Args[0]
	name, ok := literalWord(w)
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	a, b := int(w.Pos().Offset()), int(w.End().Offset())
	if name == "" || strings.ContainsAny(name, " \t\n'\"\\$`") || b > len(part) || name == part[a:b] {
		return ""
	}
	return name + part[b:]
}

// AssignmentsOnly reports whether a command line is one statement of
// assignments and no command word (`x=$(git push x)`).
func AssignmentsOnly(line string) bool {
	f, err := parseBash(line)
	if err != nil || len(f.Stmts) != 1 || len(f.Stmts[0].Redirs) > 0 || f.Stmts[0].Background {
		return false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) == 0 && len(call.Assigns) > 0
}

// ShellScript is the script of a `bash -c 'script'` or `sh -c 'script'`
// command (the -c word a plain or quoted literal), or "" for any other
// command.
func ShellScript(part string) string {
	f, err := parseBash(part)
	if err != nil || len(f.Stmts) != 1 {
		return ""
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 3 || len(call.Assigns) > 0 {
		return ""
	}
	if name := call.Args[0].Lit(); name != "bash" && name != "sh" || call.Args[1].Lit() != "-c" {
		return ""
	}
	script, _ := literalWord(call.Args[2])
	return script
}

// literalWord is the text a word stands for when it is made only of plain
// parts (unquoted text with its backslashes dropped, '...' and "..." with
// no expansion inside); ok is false for any other word ($'...', $x, $(...)).
func literalWord(w *syntax.Word) (text string, ok bool) {
	var sb strings.Builder
	for _, wp := range w.Parts {
		switch x := wp.(type) {
		case *syntax.Lit:
			sb.WriteString(unescapeLit(x.Value))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			sb.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// unescapeLit drops the backslashes of an unquoted word (`\n` is n).
func unescapeLit(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// normalizedCommand is a simple command with the blanks between its words
// (assignments, words and redirections, each kept as written) reduced to
// one space, or "" when it is not one plain simple command.
func normalizedCommand(part string) string {
	if !strings.Contains(part, "  ") && !strings.ContainsRune(part, '\t') {
		return ""
	}
	f, err := parseBash(part)
	if err != nil || len(f.Stmts) != 1 {
		return ""
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return ""
	}
	nodes := sourceOrder(call, st.Redirs)
	var sb strings.Builder
	at := 0
	for i, n := range nodes {
		a, b := int(n.Pos().Offset()), int(n.End().Offset())
		if a < at || b > len(part) || a > b || strings.Trim(part[at:a], " \t") != "" {
			return "" // something between the words: not only blanks
		}
		if i > 0 && a > at {
			sb.WriteByte(' ') // a run of blanks becomes one space; none stays none
		}
		sb.WriteString(part[a:b])
		at = b
	}
	if strings.Trim(part[at:], " \t") != "" {
		return ""
	}
	return sb.String()
}

// withoutHarmlessRedirects is a simple command with its redirections to
// /dev/null or to another descriptor (`> /dev/null`, `2>&1`) left out and
// the words joined by one space, or "" when it has none or is not one
// plain simple command.
func withoutHarmlessRedirects(part string) string {
	if !strings.ContainsAny(part, "<>") {
		return ""
	}
	f, err := parseBash(part)
	if err != nil || len(f.Stmts) != 1 {
		return ""
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(st.Redirs) == 0 {
		return ""
	}
	var kept []*syntax.Redirect
	for _, r := range st.Redirs {
		if !harmlessRedirect(r) {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(st.Redirs) {
		return "" // nothing dropped
	}
	var parts []string
	for _, n := range sourceOrder(call, kept) {
		a, b := int(n.Pos().Offset()), int(n.End().Offset())
		if a < 0 || b > len(part) || a > b {
			return ""
		}
		parts = append(parts, part[a:b])
	}
	return strings.Join(parts, " ")
}

// sourceOrder is a simple command's assignments, words and the given
// redirections in the order they stand in the line.
func sourceOrder(call *syntax.CallExpr, redirs []*syntax.Redirect) []syntax.Node {
	var nodes []syntax.Node
	for _, a := range call.Assigns {
		nodes = append(nodes, a)
	}
	for _, w := range call.Args {
		nodes = append(nodes, w)
	}
	for _, r := range redirs {
		nodes = append(nodes, r)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Pos().Offset() < nodes[j].Pos().Offset() })
	return nodes
}

func commandForms(part string) Forms {
	self := Form{Text: part}
	fs := Forms{Allow: []Form{self}, Deny: []Form{self}}
	f, err := parseBash(part)
	if err != nil || len(f.Stmts) != 1 {
		return fs
	}
	if tc, ok := f.Stmts[0].Cmd.(*syntax.TimeClause); ok && tc.Stmt != nil {
		// `time` is a shell keyword, not a word: strip it (and -p) here.
		start := int(tc.Stmt.Pos().Offset())
		inner := CommandForms(trimBlanks(part[start:]))
		tpast := trimBlanks(part[:start])
		for _, g := range inner.Allow {
			fs.Allow = appendForm(fs.Allow, Form{Text: g.Text, Past: trimBlanks(tpast + " " + g.Past)})
		}
		for _, g := range inner.Deny {
			fs.Deny = appendForm(fs.Deny, Form{Text: g.Text, Past: trimBlanks(tpast + " " + g.Past)})
		}
		fs.Wrapper = inner.Wrapper
		return fs
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return fs
	}
	w := words{text: part, args: call.Args}

	// The allow path: safe assignments, then the fixed wrappers.
	safe := true
	for _, a := range call.Assigns {
		if a.Name == nil || !safeAssignments[a.Name.Value] || a.Append || a.Array != nil || a.Index != nil {
			safe = false
		}
	}
	last := 0
	if safe {
		fs.Allow, last = w.strip(fs.Allow, call.Assigns, strippedWrappers)
	}
	if name := w.lit(last); noApproveWrappers[name] {
		fs.Wrapper = name
	}

	// The deny path: past any assignment, through the same wrappers and the
	// exec wrappers too. It walks the allow path's steps first (the specs
	// of the stripped wrappers are shared), so every allow form is a deny
	// form.
	fs.Deny, _ = w.strip(fs.Deny, call.Assigns, seenThroughWrappers)
	return fs
}

// strip appends to forms what remains past the leading assignments and
// then past each wrapper of specs in turn, and returns the index of the
// word the last form starts at.
func (w words) strip(forms []Form, assigns []*syntax.Assign, specs map[string]wrapperSpec) ([]Form, int) {
	var past []string
	if len(assigns) > 0 {
		past = append(past, w.between(int(assigns[0].Pos().Offset()), w.start(0)))
		forms = appendForm(forms, Form{Text: w.from(0), Past: strings.Join(past, " ")})
	}
	i := 0
	noExact := false
	for {
		j := skipWrapper(w, i, specs)
		if j < 0 {
			return forms, i
		}
		noExact = noExact || w.lit(i) == "xargs"
		past = append(past, w.between(w.start(i), w.start(j)))
		forms = appendForm(forms, Form{Text: w.from(j), Past: strings.Join(past, " "), NoExact: noExact})
		i = j
	}
}

func appendForm(fs []Form, f Form) []Form {
	for _, g := range fs {
		if g.Text == f.Text {
			return fs
		}
	}
	return append(fs, f)
}

// words gives positional access to a command's words and its source text.
type words struct {
	text string
	args []*syntax.Word
}

// lit is word i's literal text, or "" when it is quoted, expanded or
// absent: a wrapper spelled `'timeout'` is not treated as one.
func (w words) lit(i int) string {
	if i < 0 || i >= len(w.args) {
		return ""
	}
	return w.args[i].Lit()
}

func (w words) start(i int) int { return int(w.args[i].Pos().Offset()) }

// from is the source text from word i to the end of the command.
func (w words) from(i int) string { return trimBlanks(w.text[w.start(i):]) }

func (w words) between(a, b int) string { return trimBlanks(w.text[a:b]) }

// wrapperSpec says how a wrapper takes its arguments before the command
// it runs: which options take a value as the next word, whether it reads
// operands first (timeout's duration, flock's lock file) and whether it
// takes NAME=VALUE words (env).
type wrapperSpec struct {
	valued   string // options taking the next word as value, e.g. "-s -k"
	operands int    // words before the command once options end
	noOpts   bool   // any option means it is not a plain wrapper (command -v, bare xargs)
	assigns  bool   // NAME=VALUE words may precede the command
	stopOpts string // options after which no command follows as words (sudo -s without a command, flock -c)
}

// strippedWrappers are the wrappers Claude Code strips before matching any
// rule, with how each takes its arguments.
var strippedWrappers = map[string]wrapperSpec{
	"timeout": {valued: "-s -k --signal --kill-after", operands: 1},
	"time":    {},
	"nice":    {valued: "-n --adjustment"},
	"nohup":   {},
	"stdbuf":  {valued: "-i -o -e --input --output --error"},
	"command": {noOpts: true},
	"builtin": {},
	"noglob":  {},
	"xargs":   {noOpts: true},
}

// seenThroughWrappers are the stripped wrappers and the exec wrappers deny
// and ask rules see through.
var seenThroughWrappers = func() map[string]wrapperSpec {
	m := map[string]wrapperSpec{
		"env":    {valued: "-u --unset -C --chdir", assigns: true, stopOpts: "-S --split-string"},
		"sudo":   {valued: "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --close-from --chdir --role --type --other-user --command-timeout", assigns: true, stopOpts: "-e --edit -l --list -v --validate -k -K --reset-timestamp --remove-timestamp"},
		"watch":  {valued: "-n --interval -q --equexit"},
		"setsid": {},
		// A deny sees through exec (Claude Code 2.1.328, measured: exec
		// npm publish x is denied by deny Bash(npm publish:*)).
		"exec":   {valued: "-a", stopOpts: ""},
		"ionice": {valued: "-c -n --class --classdata", stopOpts: "-p --pid -P --pgid -u --uid"},
		"flock":  {valued: "-w --timeout -E --conflict-exit-code", operands: 1, stopOpts: "-c --command"},
	}
	for k, v := range strippedWrappers {
		m[k] = v
	}
	return m
}()

// skipWrapper returns the index of the command word that the wrapper at
// word i runs, or -1 when word i is not a wrapper of specs or runs no
// command given as words.
func skipWrapper(w words, i int, specs map[string]wrapperSpec) int {
	spec, ok := specs[w.lit(i)]
	if !ok {
		return -1
	}
	j := i + 1
	for j < len(w.args) {
		a := w.lit(j)
		if a == "" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		if spec.noOpts {
			return -1
		}
		j++
		if a == "--" {
			break
		}
		name, _, hasValue := strings.Cut(a, "=")
		if hasWord(spec.stopOpts, name) {
			return -1
		}
		if !hasValue && hasWord(spec.valued, name) {
			j++
		}
	}
	for spec.assigns && j < len(w.args) && isAssignment(w.lit(j)) {
		j++
	}
	j += spec.operands
	if j >= len(w.args) {
		return -1
	}
	return j
}

// pastStrippedWrappers returns the index of the command word past every
// stripped wrapper at the start of w (`timeout 5 nice rm x` → rm's index).
func pastStrippedWrappers(w words) int {
	i := 0
	for {
		j := skipWrapper(w, i, strippedWrappers)
		if j < 0 {
			return i
		}
		i = j
	}
}

func hasWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}

// isAssignment reports whether a word is NAME=VALUE.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
