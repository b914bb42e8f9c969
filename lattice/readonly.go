package lattice

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// This file is the single source of truth for what Claude Code runs, or
// asks about, whatever the Bash allow rules say (ClaudeCodeVersion,
// measured; docs/lattice.md "Commands that need no rule"):
//
//   - ReadOnly: a fixed, path-aware set of read-only commands runs with no
//     rule at all (`git status`, `ls`, `cat <project file>`, `echo`, pipes
//     and `&&` chains of them), while `cat ~/.ssh/id_rsa`, `find /` or
//     `grep -r x /` still ask;
//   - AlwaysAsks: some commands ask under every pattern rule (`eval …`,
//     `exec …`, `watch …`, `setsid …`, `find -exec`, a line starting with
//     `-`, `$(…)`, a redirection to a file, `&`), and `rm -rf /` asks even
//     under the whole tool.
//
// Both are fail-closed in the direction that keeps Shipgate sound: ReadOnly
// says yes only for a command it is sure Claude Code runs with no rule, and
// AlwaysAsks only for one it is sure Claude Code asks about, so a witness
// is never dropped, and a grant never called empty, on a guess. Nothing is
// expanded or run; the command is parsed with mvdan.cc/sh.

// ReadOnly reports whether Claude Code runs the command line without a
// prompt and without any allow rule: every part of it is a command of the
// read-only table with arguments inside the project, joined by `&&`, `||`,
// `;`, `|` or line breaks, with no expansion, no assignment and no
// redirection but to /dev/null or another descriptor. Anything it cannot
// read surely as read-only is not read-only.
func ReadOnly(line string) bool { return ReadOnlyWhere(line, nil) }

// ReadOnlyWhere is ReadOnly with a wider set of places the commands may
// read: a path argument outside the project counts when readable says so
// (Claude Code 2.1.328, measured: `cat ~/.ssh/id_rsa` runs under allow
// Read(~/.ssh/**), `cat $EXTRA/notes.md` and `ls $EXTRA` inside an
// additional directory). readable is asked about absolute and home paths
// as written ("~/.ssh/id_rsa", "/etc/hostname"); nil means none.
func ReadOnlyWhere(line string, readable func(path string) bool) bool {
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "-") {
		return false
	}
	f, err := parseBash(line)
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	in := where(inProject)
	if readable != nil {
		in = func(a string) bool {
			if inProject(a) {
				return true
			}
			if strings.ContainsAny(a, "$`\n*?[") || !(strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~/")) {
				return false
			}
			for _, seg := range strings.Split(a, "/") {
				if seg == ".." || seg == "." {
					return false
				}
			}
			return readable(a)
		}
	}
	// (A line continuation is read as a blank: `ls \<newline> -la` runs
	// with no rule; measured on 2.1.328.)
	for _, s := range f.Stmts {
		if !readOnlyStmt(s, in) {
			return false
		}
	}
	return !cdThenGit(f)
}

// cdThenGit reports a line with a `cd` and a `git` in any order, or with
// two `cd`s: Claude Code asks ("changes directory before running a
// version-control command, which can pick up untrusted hooks or
// repository configuration" — for `git status; cd web` too — and
// "Multiple directory changes in one command require approval"; 2.1.328,
// measured).
func cdThenGit(f *syntax.File) bool {
	cds, git := 0, false
	syntax.Walk(f, func(n syntax.Node) bool {
		if x, ok := n.(*syntax.CallExpr); ok && len(x.Args) > 0 {
			switch x.Args[0].Lit() {
			case "cd", "pushd":
				cds++
			case "git":
				git = true
			}
		}
		return true
	})
	return cds > 1 || cds > 0 && git
}

func parseBash(line string) (*syntax.File, error) {
	p := bashParsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(line), "")
	bashParsers.Put(p)
	return f, err
}

// bashParsers are reused shell parsers: a new one allocates some 20 KB of
// buffers, and a comparison parses thousands of lines (every deny-bypass
// candidate, every read-only test). A Parser may be reused once a parse
// is done; each Parse resets it and allocates the tree afresh.
var bashParsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// readOnlyStmt reports whether one statement is surely read-only.
func readOnlyStmt(s *syntax.Stmt, in where) bool {
	if s == nil || s.Cmd == nil || s.Negated || s.Background || s.Coprocess || s.Disown {
		return false
	}
	for _, rd := range s.Redirs {
		if !harmlessRedirect(rd) {
			return false
		}
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			return readOnlyStmt(x.X, in) && readOnlyStmt(x.Y, in)
		}
		return false
	case *syntax.CallExpr:
		if len(x.Assigns) > 0 || len(x.Args) == 0 {
			return false
		}
		fields, ok := staticFields(x.Args)
		if !ok {
			fields, ok = globFields(x.Args)
		}
		if !ok {
			return false
		}
		return readOnlyFields(fields, in)
	}
	// Subshells, blocks, if/for/while, declarations, tests: Claude Code
	// asks about `(…)` and `{ …; }`; the others are not in its table.
	return false
}

// harmlessRedirect reports whether a redirection writes nowhere: to
// /dev/null or to another file descriptor (`2>&1`).
func harmlessRedirect(rd *syntax.Redirect) bool {
	w, ok := staticWord(rd.Word)
	if !ok {
		return false
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
		return w == "/dev/null"
	case syntax.DplOut:
		return w == "1" || w == "2" || w == "-"
	}
	return false
}

// globReaders are the read-only commands measured to run with a glob
// operand inside the project (Claude Code 2.1.328: `ls *.md` and `cat
// *.md` run with no rule, the conformance class pattern-paths).
var globReaders = map[string]bool{"ls": true, "cat": true}

// globFields is staticFields for a command of globReaders whose glob words
// (`*` and `?` only, unquoted) are relative paths inside the project, not
// options; false for anything else.
func globFields(ws []*syntax.Word) ([]string, bool) {
	if len(ws) < 2 || !globReaders[ws[0].Lit()] {
		return nil, false
	}
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if s, ok := staticWord(w); ok {
			out = append(out, s)
			continue
		}
		g := w.Lit()
		if g == "" || strings.ContainsAny(g, "\\[]{}~$`") || strings.HasPrefix(g, "-") || strings.HasPrefix(g, "/") || !inProject(g) {
			return nil, false
		}
		out = append(out, g)
	}
	return out, true
}

// staticFields returns the words as the shell would pass them, when every
// word is plain text (literals and quotes, no expansion of any kind).
func staticFields(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		s, ok := staticWord(w)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// staticWord returns a word's value when it has no expansion. A backslash
// anywhere is refused (its meaning depends on quoting the caller would
// have to re-derive), and so are globs and braces: they expand to names
// the classifier cannot see.
func staticWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var sb strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, "\\*?{") || strings.ContainsRune(x.Value, '[') && x.Value != "[" {
				return "", false
			}
			sb.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			sb.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsRune(l.Value, '\\') {
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

// inProject reports whether an argument names a place inside the project
// (or is not a path at all): not absolute, not under home, no `..`
// segment, no variable. Claude Code's read-only commands run without a
// prompt only inside the working directory (`cat ~/.ssh/id_rsa`,
// `ls /etc`, `grep -r x /` ask).
func inProject(a string) bool {
	if a == "" {
		return true
	}
	if strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || strings.ContainsAny(a, "$`\n") {
		return false
	}
	for _, seg := range strings.Split(a, "/") {
		if seg == ".." {
			return false
		}
	}
	return true
}

// where says whether a path argument of a read-only command is a place
// Claude Code lets it read with no prompt (inProject, or wider: an
// additional directory, a path a Read allow rule grants).
type where func(string) bool

// argsIn checks every operand, and every option value written
// `--opt=value`, with in.
func argsIn(args []string, in where) bool {
	for _, a := range args {
		v := a
		if strings.HasPrefix(a, "-") {
			_, val, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			v = val
		}
		if !in(v) {
			return false
		}
	}
	return true
}

// hasOption reports whether any argument is one of the options (exactly,
// as `--opt=value`, or, for a single-letter option, inside a cluster such
// as `-xo`).
func hasOption(args []string, opts ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, o := range opts {
			if a == o || strings.HasPrefix(a, o+"=") {
				return true
			}
			if len(o) == 2 && o[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], rune(o[1])) {
				return true
			}
		}
	}
	return false
}

// onlyOptions reports whether every argument is one of the allowed ones.
func onlyOptions(args []string, allowed ...string) bool {
	for _, a := range args {
		ok := false
		for _, o := range allowed {
			if a == o {
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

// readOnlyCommands maps each command Claude Code auto-allows to the test
// its arguments must pass. A command not here is not read-only; so is one
// whose arguments fail the test (a write option, a path outside the
// project). The table holds what was measured to run with no rule, minus
// the options that would write, run a program or leave the project.
var readOnlyCommands = map[string]func(args []string, in where) bool{
	"ls":   pathsOnly(),
	"cat":  pathsOnly(),
	"head": pathsOnly(),
	"tail": pathsOnly(),
	"wc":   pathsOnly("--files0-from"),
	// grep reads the files its -f, --file and --exclude-from name like its
	// other operands: inside the project they run with no rule, outside
	// they ask (measured on 2.1.328).
	"grep": pathsOnly(),
	// rg runs a preprocessor program with --pre. `rg --files`,
	// `--pre-glob` and `--ignore-file` ask, `rg -f FILE` inside the project
	// runs (measured on 2.1.328: "This command requires approval"; Claude
	// Code reads rg's first operand as its pattern).
	"rg": pathsOnly("--pre", "--pre-glob", "--file", "--ignore-file", "--files"),
	// fd runs a program with -x / -X.
	"fd":        pathsOnly("-x", "--exec", "-X", "--exec-batch", "--ignore-file"),
	"sort":      pathsOnly("-o", "--output", "--compress-program", "-T", "--temporary-directory", "--files0-from"),
	"diff":      pathsOnly("--to-file", "--from-file"),
	"stat":      pathsOnly(),
	"du":        pathsOnly("--files0-from", "-X", "--exclude-from"),
	"tree":      pathsOnly("-o", "-R", "-H", "--fromfile"),
	"file":      pathsOnly("-C", "--compile", "-m", "--magic-file", "-f", "--files-from"),
	"od":        pathsOnly(),
	"md5sum":    pathsOnly(),
	"sha256sum": pathsOnly(),
	"base64":    pathsOnly(),
	"realpath":  pathsOnly(),
	"readlink":  pathsOnly(),
	"basename":  pathsOnly(),
	"dirname":   pathsOnly(),
	"jq":        pathsOnly("-f", "--from-file", "--rawfile", "--slurpfile", "-L"),
	"which":     pathsOnly(),
	// `pwd -P` and `pwd -L` ask (measured on 2.1.328); bare pwd runs.
	"pwd":    func(a []string, _ where) bool { return len(a) == 0 },
	"true":   func(a []string, _ where) bool { return len(a) == 0 },
	"whoami": func(a []string, _ where) bool { return len(a) == 0 },
	"id":     pathsOnly(),
	"uname":  pathsOnly(),
	"ps":     pathsOnly(),
	"echo":   func([]string, where) bool { return true }, // prints its words; touches no file
	"test":   pathsOnly(),
	"[":      pathsOnly(),
	"sleep": func(a []string, _ where) bool {
		return len(a) == 1 && strings.Trim(a[0], "0123456789.") == ""
	},
	// date with an operand or -s sets the clock.
	"date": func(a []string, _ where) bool {
		for _, x := range a {
			if !strings.HasPrefix(x, "+") && !(x == "-u" || x == "-R" || x == "--utc" || strings.HasPrefix(x, "-I")) {
				return false
			}
		}
		return true
	},
	// hostname with an operand sets the host name.
	"hostname": func(a []string, _ where) bool {
		return onlyOptions(a, "-f", "-s", "-i", "-I", "-d", "--fqdn", "--short")
	},
	"find": readOnlyFind,
	"sed":  readOnlySed,
	// A bare cd goes home, outside the working directories: it asks with
	// no rule and under Bash(cd *) (measured on 2.1.328: "cd in '…/home'
	// was blocked").
	"cd": func(a []string, in where) bool {
		if len(a) == 0 {
			a = []string{"~"}
		}
		return len(a) <= 1 && argsIn(a, in) && !onlyOptions(a, "-")
	},
	"git": readOnlyGit,
	"docker": func(a []string, _ where) bool {
		return len(a) >= 1 && a[0] == "ps" && onlyOptions(a[1:], "-a", "--all", "-q", "--quiet", "-s", "--size", "--no-trunc")
	},
	"node": func(a []string, _ where) bool { return onlyOptions(a, "--version", "-v") && len(a) == 1 },
	// `python3 -V` asks, `python3 --version` runs (measured on 2.1.328).
	"python3": func(a []string, _ where) bool { return onlyOptions(a, "--version") && len(a) == 1 },
	"xargs": func(a []string, _ where) bool {
		// Bare xargs runs echo; `xargs echo …` too. Anything else runs a
		// program on input the classifier cannot see.
		return len(a) == 0 || a[0] == "echo"
	},
}

// readOnlyTimeout: `timeout 5 ls`, a duration, then a read-only command.
func readOnlyTimeout(a []string, in where) bool {
	if len(a) < 2 || a[0] == "" || strings.Trim(a[0], "0123456789.smhd") != "" {
		return false
	}
	return readOnlyFields(a[1:], in)
}

// pathsOnly is the test for commands that only read their operands: none
// of the forbidden options, and every operand inside the project.
func pathsOnly(forbidden ...string) func([]string, where) bool {
	return func(a []string, in where) bool {
		return !hasOption(a, forbidden...) && argsIn(a, in)
	}
}

// readOnlyFields classifies one simple command's words.
func readOnlyFields(fields []string, in where) bool {
	if len(fields) == 0 {
		return false
	}
	if fields[0] == "timeout" {
		return readOnlyTimeout(fields[1:], in)
	}
	if fields[0] == "command" && len(fields) > 1 && !strings.HasPrefix(fields[1], "-") {
		// `command ls` runs with no rule (measured on 2.1.328, the
		// conformance class exec-wrappers); `command -v x` is not read.
		return readOnlyFields(fields[1:], in)
	}
	test, ok := readOnlyCommands[fields[0]]
	return ok && test(fields[1:], in)
}

// readOnlyFind: find . -name x, not -exec / -delete / -fprint (which run a
// program or write) and not from outside the project (`find /` asks).
func readOnlyFind(a []string, in where) bool {
	for _, x := range a {
		switch x {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
	}
	return argsIn(a, in)
}

// readOnlySed: only `sed -n` with a print script (`1,5p`, `$p`, `10p`):
// any other script may write files (`w`) or run commands (`e`).
func readOnlySed(a []string, in where) bool {
	if len(a) < 2 || a[0] != "-n" {
		return false
	}
	script := a[1]
	if !strings.HasSuffix(script, "p") || strings.Trim(script[:len(script)-1], "0123456789,$") != "" {
		return false
	}
	return argsIn(a[2:], in)
}

// readOnlyGit: the subcommands Claude Code auto-allows, with no global
// option before them (`git -c core.pager=x log` runs a program) and none
// of the options that write (`--output`) or run a configured program.
func readOnlyGit(a []string, in where) bool {
	if len(a) == 0 {
		return false
	}
	sub, rest := a[0], a[1:]
	if hasOption(rest, "--output", "--ext-diff", "--textconv", "-o", "--open-files-in-pager", "-O", "--exec") {
		return false
	}
	if sub == "status" {
		// git status's operands are pathspecs it does not read: `git
		// status /elsewhere` ran with no rule (measured on 2.1.328).
		return true
	}
	if !argsIn(rest, in) {
		return false
	}
	switch sub {
	case "status", "log", "diff", "show", "blame", "rev-parse", "ls-files":
		return true
	case "branch":
		return onlyOptions(rest, "-a", "-r", "-v", "-vv", "--list", "-l", "--show-current", "--all", "--remotes")
	case "tag":
		return onlyOptions(rest, "-l", "--list")
	case "remote":
		return onlyOptions(rest, "-v", "--verbose")
	case "stash":
		return len(rest) == 1 && rest[0] == "list"
	case "config":
		return len(rest) == 2 && rest[0] == "--get"
	}
	return false
}

// AlwaysAsks reports whether Claude Code asks about a command line whatever
// the allow rules say, and why. whole says the line is approved by the
// whole Bash tool (`Bash`, `Bash(*)`): that grant runs even `eval`,
// `exec`, `watch`, `$(…)` and `> file`, and still asks for `rm -rf /`.
// Under a pattern rule (`Bash(**)` included) Claude Code's command checks
// apply: measured on ClaudeCodeVersion, each of the forms below asks. It
// answers false when unsure.
func AlwaysAsks(line string, whole bool) (string, bool) { return AlwaysAsksWhere(line, whole, nil) }

// AlwaysAsksWhere is AlwaysAsks where a read-only command may also read
// the places readable names (an additional directory, a path a Read allow
// rule grants) without the path check asking; nil means the project only.
func AlwaysAsksWhere(line string, whole bool, readable func(string) bool) (string, bool) {
	return AlwaysAsksWriting(line, whole, readable, nil)
}

// AlwaysAsksWriting is AlwaysAsksWhere where a redirection of output to a
// file writable approves does not ask: Claude Code checks the file as an
// Edit call, and a write that call would make without a prompt (an Edit
// allow rule, acceptEdits inside the working directories) lets the line
// run under a pattern rule (TestRedirectWrites, measured on 2.1.328:
// `npm test > out.txt` runs under Bash(npm *) with Edit(out.txt), or in
// acceptEdits). nil approves none.
func AlwaysAsksWriting(line string, whole bool, readable, writable func(string) bool) (string, bool) {
	f, err := parseBash(line)
	if err != nil {
		if whole {
			return "", false
		}
		return "Claude Code cannot parse the line, so it asks", true
	}
	if why, ok := wholeToolAsks(f, line, true); ok {
		return why, true
	}
	if t, ok := sensitiveRedirect(line); ok {
		// Under the whole tool too, in every mode measured (default,
		// acceptEdits; Bash(*) and Bash).
		return "a write to `" + t + "` asks whatever the rules say: Claude Code calls it a sensitive file", true
	}
	if whole {
		return "", false
	}
	if why, ok := rmRoot(f, true, true); ok {
		// Under a pattern rule the removal check sees past the wrappers
		// the rules see past (2.1.328, seed 3's full corpus: `timeout 5
		// rm ./...`, `nice -n 5 rm ./...`, `command rm ./...` ask under
		// Bash(rm *)). Under the whole tool it is not measured past a
		// wrapper, so it is left as measured there.
		return why, true
	}
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "-") {
		return "a line starting with - asks under every pattern rule", true
	}
	// (A line continuation does not ask: `ls \<newline> -la` ran under
	// Bash(**), Bash(* *) and Bash(git *), `make \<newline> x` under
	// Bash(make *); 2.1.328, measured.)
	if cdThenGit(f) {
		return "a cd with a git command, or two cds, in one line asks (it could pick up the target directory's hooks)", true
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			why = "a command substitution cannot be checked, so Claude Code asks"
		case *syntax.ParamExp:
			why = "a variable cannot be checked, so Claude Code asks"
		case *syntax.Subshell:
			why = "a subshell (…) asks under every pattern rule"
		case *syntax.Block:
			why = "a block { …; } asks under every pattern rule"
		case *syntax.Stmt:
			if x.Background {
				why = "a background & asks under every pattern rule"
			}
			for _, rd := range x.Redirs {
				if !harmlessRedirect(rd) && outputRedirect(rd.Op) && !writableTarget(rd, writable) {
					why = "a redirection to a file asks under every pattern rule"
				}
			}
		case *syntax.CallExpr:
			// The literal words (`{}` and other globs read as themselves).
			var fields []string
			for _, w := range x.Args {
				fields = append(fields, w.Lit())
			}
			if len(fields) == 0 {
				return true
			}
			if test, ok := readOnlyCommands[fields[0]]; ok && len(x.Assigns) == 0 {
				inside := where(inProject)
				if readable != nil {
					inside = func(a string) bool { return inProject(a) || readable(a) }
				}
				if sf, ok := staticFields(x.Args); ok && !test(sf[1:], inside) && test(sf[1:], func(string) bool { return true }) {
					// `ls ~/.ssh/id_rsa` asks under allow Bash(ls *): "ls in
					// '…' was blocked. For security, Claude Code may only
					// list files in the allowed working directories"
					// (2.1.328, measured; `cat /etc/passwd` likewise).
					why = "`" + fields[0] + "` of a path outside the working directories asks under every pattern rule"
					return false
				}
			}
			if w := writeCheck(line, x, readable); w != "" {
				why = w
				return false
			}
			switch fields[0] {
			case "cd", "pushd":
				if len(fields) > 2 {
					// "cd with two or more directory arguments requires
					// manual approval" (2.1.328, measured under Bash(cd *)).
					why = "`" + fields[0] + "` with two or more arguments asks under every pattern rule"
				}
			case "eval", "exec":
				why = "`" + fields[0] + "` asks under every pattern rule"
			case "watch", "setsid":
				why = "`" + fields[0] + "` cannot be checked, so Claude Code asks"
			case "find":
				for _, a := range fields[1:] {
					switch a {
					case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
						// (The writing actions -fprint… and -fls too:
						// measured under Bash(find:*), Bash(find *),
						// Bash(**), Bash(* *) and Bash(grep *).)
						why = "find " + a + " asks under every pattern rule"
					}
				}
			}
		}
		return why == ""
	})
	return why, why != ""
}

// writeCommands are the commands whose operands Claude Code checks under
// every allow rule but the whole tool (measured on ClaudeCodeVersion: under
// Bash(**), Bash(* *), Bash(rm *) and the exact Bash(rm /tmp/x), `rm
// /tmp/x`, `rm ../x`, `rm -rf ~/x`, `mkdir /tmp/d`, `mv /tmp/a b`, `cp x
// /tmp/b` and `touch /tmp/x` ask — "rm in '/tmp/x' needs approval. The
// path is outside the working directories" — and `rm *.o`, `rm x?`, `rm
// [ab]` ask — "Glob patterns are not allowed in write operations"; under
// Bash(*) they run; `chmod +x /tmp/x` runs).
var writeCommands = map[string]bool{"rm": true, "rmdir": true, "mv": true, "cp": true, "touch": true, "mkdir": true}

// writeCheck is why Claude Code asks about a simple command of
// writeCommands (past the wrappers it strips) under a pattern rule: an
// operand with a glob, or one outside the working directories (the
// project, or a place readable names: an additional directory); "" when
// it does not ask, or when unsure (an operand that is not a plain word).
func writeCheck(line string, x *syntax.CallExpr, readable func(string) bool) string {
	w := words{text: line, args: x.Args}
	i := pastStrippedWrappers(w)
	name := w.lit(i)
	if !writeCommands[name] {
		return ""
	}
	opts := true
	for _, a := range x.Args[i+1:] {
		v := a.Lit()
		if v == "" {
			return "" // quoted or expanded: not read here (other checks see expansions)
		}
		if opts && (name == "cp" || name == "mv") && strings.HasPrefix(v, "-") {
			// "cp with flags requires manual approval to ensure path
			// safety", "mv with flags requires manual approval" (2.1.328,
			// measured: `cp x -- -x` under Bash(cp *) and Bash(**), `mv x
			// -- -x` under Bash(**)).
			return "`" + name + "` with an option asks under every rule but the whole Bash tool"
		}
		if opts && v == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(v, "-") {
			continue
		}
		if strings.ContainsAny(v, "*?[") {
			return "`" + name + "` of a glob pattern asks under every rule but the whole Bash tool (\"Glob patterns are not allowed in write operations\")"
		}
		if !inProject(v) && (readable == nil || !readable(v)) {
			return "`" + name + "` of a path outside the working directories asks under every rule but the whole Bash tool"
		}
	}
	return ""
}

// BypassAsks reports whether Claude Code asks about a command line in
// bypassPermissions mode, and why: the whole tool's checks hold there
// (measured on 2.1.328: `rm -rf /` asks) but for the `...` path check
// (seed 4's full corpus: `rm ./...` ran in bypass mode with no rule).
func BypassAsks(line string) (string, bool) {
	f, err := parseBash(line)
	if err != nil {
		return "", false
	}
	return wholeToolAsks(f, line, false)
}

// wholeToolAsks is what Claude Code asks about even under the whole Bash
// tool: an rm of the root, the working directory or the home (and, with
// dots, of a path with a `...` segment), and a read-only command sent to
// the background.
func wholeToolAsks(f *syntax.File, line string, dots bool) (string, bool) {
	if why, ok := rmRoot(f, false, dots); ok {
		return why, true
	}
	for _, st := range f.Stmts {
		if st.Background && ReadOnly(strings.TrimRight(strings.TrimSpace(line[st.Pos().Offset():st.End().Offset()]), "&")) {
			// Measured on 2.1.328: `ls &` asks even under Bash and
			// Bash(*), while `wget x &` runs there.
			return "a read-only command sent to the background with & asks even under the whole Bash tool", true
		}
	}
	return "", false
}

// rmRoot reports a part that removes the filesystem root recursively
// (`rm -rf /`), which Claude Code asks about even under the whole tool,
// and, when dots is set, an rm of a path with a `...` segment.
// throughWrappers looks for the rm past the wrappers a rule sees past
// (`timeout 5 rm …`).
func rmRoot(f *syntax.File, throughWrappers, dots bool) (string, bool) {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok || found {
			return !found
		}
		fields, ok := staticFields(x.Args)
		if ok && throughWrappers {
			fields = fields[pastStrippedWrappers(words{args: x.Args}):]
		}
		if !ok || len(fields) < 2 || fields[0] != "rm" && fields[0] != "rmdir" {
			return true
		}
		recursive, root := false, false
		for _, a := range fields[1:] {
			switch {
			case dots && dotsSegment(a):
				// `rm ./...`: "a suspicious Windows path pattern that
				// requires manual approval" (2.1.328, measured).
				found = true
			case a == "/" || a == "/*" || a == "." || a == "./" || a == "~" || a == "~/":
				// The root, the working directory, the home (measured:
				// `rm -r .` and `rm -rf ~` ask under Bash).
				root = true
			case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"), a == "--recursive":
				recursive = true
			}
		}
		found = found || recursive && root
		return !found
	})
	if found {
		return "an rm of the root, the working directory or the home, or of a path with a `...` segment, asks even under the whole Bash tool", true
	}
	return "", false
}

// dotsSegment reports a path with a segment of three or more dots, which
// Claude Code reads as a suspicious Windows path pattern.
func dotsSegment(a string) bool {
	for _, seg := range strings.Split(a, "/") {
		if len(seg) >= 3 && strings.Trim(seg, ".") == "" {
			return true
		}
	}
	return false
}

// AcceptEditsCommands are the commands defaultMode acceptEdits runs
// without a prompt when their operands pass its checks: the list in
// ClaudeCodeVersion's bundle, in its order (internal/conformance
// TestAcceptEditsListFromBinary holds it to the pinned binary).
var AcceptEditsCommands = []string{"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"}

// sensitiveWriteDirs are the project folders a write into asks about
// whatever the rules and the mode say ("… which is a sensitive file":
// `npm test > .claude/x.txt`, `> .git/x.txt`, `> .vscode/x.txt`, `rm
// .claude/x.txt`, `mkdir .claude/d` and `touch .vscode/x` under Bash(*),
// Bash, acceptEdits and allow Edit(**); .env is not one; Claude Code
// 2.1.328, measured by TestRedirectWrites). Only the folders at the top of
// the project are measured: a path deeper in is not taken as one.
var sensitiveWriteDirs = []string{".claude", ".git", ".vscode"}

// SensitiveWrite reports whether writing p (as written, relative to the
// project) asks whatever the rules say (sensitiveWriteDirs).
func SensitiveWrite(p string) bool {
	clean := strings.TrimPrefix(p, "./")
	for _, d := range sensitiveWriteDirs {
		if clean == d || strings.HasPrefix(clean, d+"/") {
			return true
		}
	}
	return false
}

// sensitiveRedirect is the first file line writes by redirection that is
// a sensitive file (SensitiveWrite).
func sensitiveRedirect(line string) (string, bool) {
	targets, _ := RedirectWrites(line)
	for _, t := range targets {
		if SensitiveWrite(t) {
			return t, true
		}
	}
	return "", false
}

// outputRedirect reports a redirection that writes a file: >, >>, >|,
// &> and &>> (with any descriptor number: 2> err.txt).
func outputRedirect(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return true
	}
	return false
}

// writableTarget reports whether writable approves the file rd writes:
// a static word (no expansion, glob or quote Shipgate would have to read).
func writableTarget(rd *syntax.Redirect, writable func(string) bool) bool {
	if writable == nil {
		return false
	}
	w, ok := staticWord(rd.Word)
	return ok && w != "" && !strings.ContainsAny(w, "*?[") && writable(w)
}

// RedirectWrites are the files line writes by redirection of output (>,
// >>, >|, &>, &>>, /dev/null aside), as written; ok is false when the line
// does not parse or a target is not a static word: the caller cannot
// tell which files it writes.
func RedirectWrites(line string) (targets []string, ok bool) {
	f, err := parseBash(line)
	if err != nil {
		return nil, false
	}
	ok = true
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, isStmt := n.(*syntax.Stmt); isStmt {
			for _, rd := range st.Redirs {
				if harmlessRedirect(rd) || !outputRedirect(rd.Op) {
					continue
				}
				w, static := staticWord(rd.Word)
				if !static || w == "" {
					ok = false
					continue
				}
				targets = append(targets, w)
			}
		}
		return true
	})
	return targets, ok
}

// simpleStatic parses part as one simple command run in the foreground,
// with no leading assignment and every word static: its statement and
// words, or false.
func simpleStatic(part string) (*syntax.Stmt, []string, bool) {
	f, err := parseBash(part)
	if err != nil || len(f.Stmts) != 1 {
		return nil, nil, false
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || st.Disown {
		return nil, nil, false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, nil, false
	}
	fields, ok := staticFields(call.Args)
	if !ok {
		return nil, nil, false
	}
	return st, fields, true
}

// ReadOnlyWriting reports whether part is one read-only command (of the
// project) whose output is redirected to files writable approves, and to
// nothing else: Claude Code 2.1.328 runs `echo x > out.txt` and `cat
// package.json > out.txt` with no Bash rule under allow Edit(out.txt)
// (TestRedirectWrites, measured).
func ReadOnlyWriting(part string, writable func(string) bool) bool {
	st, fields, ok := simpleStatic(part)
	if !ok || writable == nil {
		return false
	}
	wrote := false
	for _, rd := range st.Redirs {
		if harmlessRedirect(rd) {
			continue
		}
		if !outputRedirect(rd.Op) || !writableTarget(rd, writable) {
			return false
		}
		wrote = true
	}
	return wrote && readOnlyFields(fields, inProject)
}

// AcceptEditsRuns reports whether acceptEdits mode runs a simple command
// without a prompt, as measured on Claude Code 2.1.328 (internal/conformance
// TestAcceptEditsCommands): one of AcceptEditsCommands with every path
// operand inside the working places — rm, rmdir and mkdir with any flags,
// mv and cp with none (`mv -f a b`, `cp -r a b` ask: "with flags requires
// manual approval"), touch with plain operands only (`touch -c x` asks),
// sed as its own check allows (acceptEditsSed) — and a read-only command
// whose output is redirected to such a file (`echo x > y.txt`). inside
// says whether an operand, as written, is such a place; nil means the
// project only. No expansion, glob or quoting is read.
func AcceptEditsRuns(part string, inside func(string) bool) bool {
	in := func(a string) bool {
		if SensitiveWrite(a) {
			return false
		}
		if inProject(a) {
			return a != "." && a != "" && !strings.HasPrefix(a, ".git")
		}
		return inside != nil && !strings.ContainsAny(a, "$`*?[") && !strings.Contains(a, "..") && inside(a)
	}
	st, fields, ok := simpleStatic(part)
	if !ok {
		return false
	}
	wrote := false
	for _, rd := range st.Redirs {
		if harmlessRedirect(rd) {
			continue
		}
		w, ok := staticWord(rd.Word)
		if !ok || !outputRedirect(rd.Op) || !in(w) {
			return false
		}
		wrote = true
	}
	if wrote {
		return readOnlyFields(fields, inProject)
	}
	flags := true // flags are allowed and skipped
	switch fields[0] {
	case "rm", "rmdir", "mkdir":
	case "mv", "cp":
		flags = false
	case "touch":
		// The bundle lets touch through only with operands that start
		// with a word character, ., /, ~ or a quote.
		for _, a := range fields[1:] {
			if a == "" || !(a[0] == '.' || a[0] == '/' || a[0] == '~' || a[0] == '_' || isAlnum(a[0])) {
				return false
			}
		}
	case "sed":
		files, ok := acceptEditsSed(fields[1:])
		if !ok {
			return false
		}
		for _, a := range files {
			if !in(a) {
				return false
			}
		}
		return true
	default:
		return false
	}
	for _, a := range fields[1:] {
		if strings.HasPrefix(a, "-") {
			if !flags {
				return false
			}
			continue
		}
		if !in(a) {
			return false
		}
	}
	return true // (`rm -v` with no operand ran too)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// acceptEditsSed is the bundle's sed check in acceptEdits mode (file
// writes allowed), for the arguments after `sed`: flags among -E, -r,
// --regexp-extended, --posix, -i and --in-place (short ones may be
// joined: -Ei), one expression — the first other argument — that is a
// plain substitution s/…/…/ with flags of gpimIM and at most one digit,
// holding no ; { } # ! and no newline, and, where -i could be read as
// taking the next argument as its suffix (BSD sed), that next script
// safe too. It returns the file operands. Measured on 2.1.328: `sed -i
// s/a/b/ README.md`, `sed --in-place …` and `sed s/a/b/ README.md` run;
// `-i.bak`, `-e`, `-f` and a `w` flag ask.
func acceptEditsSed(args []string) (files []string, ok bool) {
	allowed := map[string]bool{"-E": true, "--regexp-extended": true, "-r": true, "--posix": true, "-i": true, "--in-place": true}
	var operands []string
	iFlags := 0
	iAt := -1
	for k, a := range args {
		switch {
		case a == "--":
			return nil, false
		case strings.HasPrefix(a, "--"):
			if !allowed[a] {
				return nil, false
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for _, c := range a[1:] {
				if !allowed["-"+string(c)] {
					return nil, false
				}
			}
			if a == "-i" || strings.Trim(a[1:len(a)-1], "Er") == "" && strings.HasSuffix(a, "i") {
				iFlags++
				iAt = k
			}
		default:
			operands = append(operands, a)
		}
	}
	if len(operands) == 0 || iFlags > 1 {
		return nil, false
	}
	if !plainSubstitution(operands[0]) {
		return nil, false
	}
	if iAt >= 0 && iAt+1 < len(args) {
		// BSD sed reads the word after -i as a suffix and the next
		// operand as the script: that one must be harmless too.
		if y := args[iAt+1]; y != "" && y[0] != '.' && y[0] != '-' {
			for _, a := range args[iAt+2:] {
				if strings.HasPrefix(a, "-") {
					continue
				}
				if !bsdScriptHarmless(a) {
					return nil, false
				}
				break
			}
		}
	}
	return operands[1:], true
}

var sedSubstFlags = regexp.MustCompile(`^[gpimIM]*[1-9]?[gpimIM]*$`)

// plainSubstitution reports whether a sed script is one s/…/…/ with only
// substitution flags, none of w, e or a file.
func plainSubstitution(e string) bool {
	e = strings.TrimSpace(e)
	if !strings.HasPrefix(e, "s/") || strings.ContainsAny(e, ";{}#!\n\r") {
		return false
	}
	for _, c := range e {
		if c > 0x7f {
			return false
		}
	}
	body := e[2:]
	slashes, last := 0, -1
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '/':
			slashes++
			last = i
		}
	}
	return slashes == 2 && sedSubstFlags.MatchString(body[last+1:])
}

var (
	bsdScriptCommand = regexp.MustCompile(`^(?:[sy][^a-zA-Z0-9]|[\\$:={]|\d+[ \t]*[,!~=aAcCdDegGhHiIlnNpPqQrRsStTwWxyz]|[aAcCdDgGhHiIlnNpPqQtTwWxz=](?:[\s\\;]|$)|[rR](?:[\s\\;/]|\.{1,2}/|$)|/)`)
)

// bsdScriptHarmless is the bundle's check of the argument BSD sed would
// read as the script after `-i suffix`: it must not read as a sed command.
func bsdScriptHarmless(a string) bool {
	h := strings.TrimLeft(a, " \t")
	if bsdScriptCommand.MatchString(h) || strings.ContainsAny(h, ";[\\{}#!\n") {
		return false
	}
	z := h
	for strings.HasPrefix(z, "./") || strings.HasPrefix(z, "../") {
		z = strings.TrimPrefix(strings.TrimPrefix(z, "./"), "../")
	}
	return !strings.Contains(z, "..")
}

// RunsWithoutRule reports whether Claude Code runs the call with no
// permission rule at all: a read-only command (ReadOnly), a Read inside
// the project, or a WebFetch of a preapproved host (preapproved.go). Such
// a call is never a witness of a grant.
func RunsWithoutRule(c Call) bool {
	switch c.Tool {
	case "Bash":
		return ReadOnly(c.Arg)
	case "Read":
		z, rel := splitPath(c.Arg)
		return z == zoneProject && inProject(rel)
	case "WebFetch":
		return preapprovedHosts[strings.ToLower(c.Arg)]
	}
	_, ok := toolsWithoutRule[c.Tool]
	return ok
}

// ImplicitAllows are the grants Claude Code makes with no rule, as rules a
// search can take among what is already allowed: every Read inside the
// project (measured on ClaudeCodeVersion: `.env` included; outside the
// project it asks), and every call of the tools that need no rule at all
// (tools.go). The read-only commands are not a rule language; use
// RunsWithoutRule on each witness.
func ImplicitAllows() []Rule {
	return append(append([]Rule{projectReads}, toolRules...), preapprovedRules()...)
}

var projectReads = func() Rule {
	r := ParseIn(Allow, "Read(./**)")
	r.Note = "reads inside the project need no rule in Claude Code " + ClaudeCodeVersion
	return r
}()

// Exactly returns a rule matching exactly one call of its tool (a Bash
// command, a path, a host). The engine adds such rules to what a search
// must avoid, to look past a witness that does not count (a read-only
// command); they never appear in a report.
func Exactly(c Call) Rule {
	r := Rule{Text: "(exactly " + c.String() + ")", List: Allow, Tool: c.Tool, Canonical: c.Tool, HasSpecifier: true, Specifier: c.Arg}
	kind := argText
	switch c.Tool {
	case "Bash", "Monitor":
		kind = argShell
	case "Read", "Edit", "Write":
		z, rel := splitPath(c.Arg)
		rd := literalReading(c.Tool, argPath, rel)
		rd.zone = z
		r.Family = FamilyPath
		r.readings = []*reading{rd}
		return r
	case "WebFetch":
		kind = argHost
	}
	r.Family = FamilyGeneric
	if kind == argShell {
		r.Family = FamilyShell
	}
	r.readings = []*reading{literalReading(c.Tool, kind, c.Arg)}
	return r
}

// CheckedExamples are commands Claude Code runs under the whole Bash tool
// (`Bash`, `Bash(*)`) and asks about under every pattern rule, `Bash(**)`
// included (measured on ClaudeCodeVersion): what the whole tool adds over
// any set of pattern rules.
var CheckedExamples = []Call{
	{Tool: "Bash", Arg: "eval x"},
	{Tool: "Bash", Arg: "echo x > out.txt"},
	{Tool: "Bash", Arg: "x $(id)"},
	{Tool: "Bash", Arg: "exec x"},
	{Tool: "Bash", Arg: "watch x"},
	{Tool: "Bash", Arg: "find . -exec x {} +"},
}
