package hookscript

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/report"
)

// A settings file's hooks, status lines and helpers, a skill's or
// subagent's hooks and an .mcp.json stdio server run commands; when such a
// command runs a file of the repository (`$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh`,
// `bash .claude/hooks/x.sh`, `python3 scripts/y.py`, `node ./server.js`),
// that file is part of the hook: a pull request that edits
// .claude/hooks/check.sh so that it prints `permissionDecision: allow`
// changes what the agent may do as surely as one that edits the hook.
// ExtraPaths names those files so that both front ends read them at base
// and head; the engine (hookscripts.go) reports a change to any of them.

// ExtraPaths names the repository paths, beyond those Classify accepts,
// that one version of an agent-config file makes part of the agent's
// surface: the files its commands execute (hooks, status lines, helpers,
// .mcp.json stdio servers — resolved from the command text, relative to
// the project folder the file belongs to), the files that define what a
// runner runs (package.json for `npm run x`, Makefile for `make x`), and
// for a settings file's "agent" key the subagent definition it names
// (.claude/agents/<name>.md of that project). A gatherer reads each at
// base and head and passes them to Compare with the other files. Paths are
// cleaned, relative to the repository root, sorted and unique; a command
// that cannot be resolved contributes nothing here (Compare reports it).
// p is the file's repository path; data a version of it (unparsable data
// names nothing: Compare reports the file).
func ExtraPaths(p string, data []byte) []string {
	name, kind, scope := agentfiles.ClassifyAgent(p, nil)
	if kind == agentfiles.AgentFile {
		if _, ok := agentfiles.OpaqueCommands(p); ok {
			// A plugin's hooks or servers file, .codex/hooks.json: the
			// scripts its commands run.
			refs, _ := OpaqueRefs(p, data)
			return refPaths(refs)
		}
		// Another agent's file: what it pulls in (OpenCode's {file:…}).
		if rr, ok := agentfiles.AdapterFor(name).(agentfiles.ReferenceReader); ok {
			return rr.References(agentfiles.CleanPath(p), data)
		}
		return nil
	}
	if kind == report.NotAgentConfig || kind == report.ScriptFile {
		return nil
	}
	d, err := claude.ParseDoc(p, kind, report.Version{Exists: true, Data: data}, claude.RuleCache{})
	if err != nil {
		return nil
	}
	refs, _ := CommandRefs(d, kind, p, scope)
	out := refPaths(refs)
	seen := map[string]bool{}
	for _, q := range out {
		seen[q] = true
	}
	if kind == report.SettingsFile && !strings.HasPrefix(scope, "watched:") {
		if a := d.Root.Get("agent"); a.Kind() == jsonpos.String && agentFileName.MatchString(a.Text()) {
			q := path.Join(scope, ".claude/agents", a.Text()+".md")
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	sort.Strings(out)
	return out
}

// refPaths are the sorted, unique paths of refs.
func refPaths(refs []scriptRef) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	sort.Strings(out)
	return out
}

// agentFileName is a subagent name that can be a file name.
var agentFileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// RepoMark starts the value of a variable that names a repository folder
// ($CLAUDE_PROJECT_DIR): a path built from it is repository-rooted, unlike
// a literal absolute path.
const RepoMark = "\x01"

// scriptRef is one repository file a command runs.
type scriptRef struct {
	Path  string // repository path
	Key   string // where the command is: "hooks.PreToolUse[0].hooks[0].command"
	Event string // the hook event, "" for helpers and servers
	Line  int
}

// UnresolvedCommand is a command Shipgate cannot map to the files it runs.
type UnresolvedCommand struct {
	Key     string
	Event   string
	Line    int
	Command string
	Reason  string
}

// commandSite is one command of a document, with where it is.
type commandSite struct {
	key, event string
	line       int
	text       string
	args       []string // .mcp.json: the server's args (the command is a program, not shell)
	exec       bool     // args form: command and args are an argv, not shell text
}

// commandSites lists the commands a document runs.
func commandSites(d *claude.Doc, kind report.FileKind) []commandSite {
	var out []commandSite
	if d == nil || d.Root == nil {
		return nil
	}
	switch kind {
	case report.SettingsFile, report.SkillFile, report.CommandFile, report.SubagentFile:
		for _, ev := range d.Root.Get("hooks").Members() {
			for gi, g := range ev.Value.Elements() {
				for hi, h := range g.Get("hooks").Elements() {
					c := h.Get("command")
					if c.Kind() != jsonpos.String {
						continue
					}
					if t := h.Get("type").Text(); t != "" && t != "command" {
						continue
					}
					out = append(out, commandSite{key: fmt.Sprintf("hooks.%s[%d].hooks[%d].command", ev.Key, gi, hi), event: ev.Key,
						line: c.Start().Line, text: c.Text()})
				}
			}
		}
		if kind != report.SettingsFile {
			break
		}
		for _, k := range claude.HelperKeys {
			m, ok := d.Root.Lookup(k)
			if !ok {
				continue
			}
			switch m.Value.Kind() {
			case jsonpos.String:
				out = append(out, commandSite{key: k, line: m.KeyStart.Line, text: m.Value.Text()})
			case jsonpos.Object:
				if c := m.Value.Get("command"); c.Kind() == jsonpos.String {
					out = append(out, commandSite{key: k + ".command", line: c.Start().Line, text: c.Text()})
				}
			}
		}
	case report.MCPFile:
		out = append(out, argvSites("mcpServers", d.Root.Get("mcpServers").Members())...)
	}
	return out
}

// argvSites are the servers of an MCP or LSP servers object, each
// started by its command and args (an argv, not shell text), keyed
// <prefix>.<name>.command.
func argvSites(prefix string, servers []jsonpos.Member) []commandSite {
	var out []commandSite
	for _, s := range servers {
		c := s.Value.Get("command")
		if c.Kind() != jsonpos.String {
			continue
		}
		var args []string
		for _, a := range s.Value.Get("args").Elements() {
			args = append(args, a.Text())
		}
		out = append(out, commandSite{key: prefix + "." + s.Key + ".command", line: c.Start().Line, text: c.Text(), args: args, exec: true})
	}
	return out
}

// CommandRefs resolves every command of a document to the repository
// files it runs. scope is the project folder ("" for the root); filePath
// the document's own path (a skill's ${CLAUDE_SKILL_DIR}).
func CommandRefs(d *claude.Doc, kind report.FileKind, filePath, scope string) ([]scriptRef, []UnresolvedCommand) {
	var refs []scriptRef
	var bad []UnresolvedCommand
	env := ProjectEnv(scope)
	if kind == report.SkillFile {
		env["CLAUDE_SKILL_DIR"] = RepoMark + "/" + path.Dir(filePath)
	}
	if kind == report.MCPFile {
		// A plugin's .mcp.json names its files by ${CLAUDE_PLUGIN_ROOT}
		// (Codex: ${PLUGIN_ROOT}): its default place is the plugin root
		// (RootGuesses names the commands that rely on the guess).
		env = pluginEnv(env, scope, true)
	}
	for _, s := range commandSites(d, kind) {
		var paths []string
		var err error
		if s.exec {
			paths, err = resolveArgv(append([]string{s.text}, s.args...), env, scope)
		} else {
			paths, err = ResolveCommand(s.text, env, scope)
		}
		if err != nil {
			// A server's argv is its command: the text Mentions reads.
			bad = append(bad, UnresolvedCommand{Key: s.key, Event: s.event, Line: s.line, Command: strings.Join(append([]string{s.text}, s.args...), " "), Reason: err.Error()})
		}
		for _, p := range paths {
			refs = append(refs, scriptRef{Path: p, Key: s.key, Event: s.event, Line: s.line})
		}
	}
	return refs, bad
}

// interpreters run the file named by their first non-option argument.
var interpreters = map[string]bool{
	"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
	"python": true, "python3": true, "python2": true, "node": true, "nodejs": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "pwsh": true, "powershell": true, "tsx": true, "ts-node": true,
	"Rscript": true, "lua": true, "osascript": true,
}

// runners run a name defined in a repository file.
var runners = map[string]string{"npm": "package.json", "pnpm": "package.json", "yarn": "package.json", "bun": "package.json",
	"make": "Makefile", "just": "justfile", "task": "Taskfile.yml"}

// wrappersSkipped run the rest of their arguments as a command.
var wrappersSkipped = map[string]bool{"exec": true, "command": true, "nohup": true, "time": true, "env": true, "nice": true,
	"timeout": true, "stdbuf": true, "xargs": false, "sudo": true, "npx": true, "bunx": true, "uvx": false}

// ProjectEnv is the environment ResolveCommand knows for a command run in
// the project folder scope: $CLAUDE_PROJECT_DIR.
func ProjectEnv(scope string) map[string]string {
	return map[string]string{"CLAUDE_PROJECT_DIR": RepoMark + "/" + scope}
}

// ResolveCommand names the repository files a shell command runs, for a
// command run in the project folder scope ("" = the repository root) with
// the given environment (CLAUDE_PROJECT_DIR and friends; ProjectEnv builds
// it). It reads every simple command of
// the line (`a && b`, pipes, subshells): a program named by a path, the
// script of an interpreter (`bash x.sh`, `python3 -u y.py`, `node x.js`,
// `uv run z.py`, `bash -c '…'` read recursively), a sourced file, the
// file a runner reads (`npm run x` → package.json, `make` → Makefile). A
// program found on PATH (`jq`, `prettier`) runs no repository file. The
// error says why a command cannot be resolved — an expansion other than
// the known variables, a command substitution, eval, `python -m`, text
// that does not parse — so the caller fails closed on it.
func ResolveCommand(text string, env map[string]string, scope string) ([]string, error) {
	return resolveShell(text, env, scope, 0)
}

func resolveShell(text string, env map[string]string, scope string, depth int) ([]string, error) {
	if strings.Contains(text, RepoMark) {
		return nil, errors.New("the command holds a control character")
	}
	if depth > 4 {
		return nil, errors.New("commands nested too deeply (bash -c inside bash -c …)")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, fmt.Errorf("the command does not parse as shell: %v", err)
	}
	var out []string
	var firstErr error
	// dirs are the folders a relative path may be relative to: the project
	// folder, and every folder a cd of the command moved to (kept together,
	// so a cd inside a subshell or a branch is over-approximated, never
	// missed).
	dirs := []string{scope}
	syntax.Walk(f, func(n syntax.Node) bool {
		if firstErr != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			firstErr = errors.New("a command substitution runs a command Shipgate cannot name")
			return false
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			argv := make([]string, 0, len(n.Args))
			for _, w := range n.Args {
				s, ok := WordText(w, env)
				if !ok {
					if len(argv) == 0 {
						firstErr = fmt.Errorf("the program is an expansion (%s) Shipgate cannot resolve", wordSource(w))
						return false
					}
					s = "\x00" // an unknown argument
				}
				argv = append(argv, s)
			}
			if argv[0] == "cd" || argv[0] == "pushd" {
				d, err := cdTarget(argv[1:], dirs)
				if err != nil {
					firstErr = err
					return false
				}
				for _, x := range d {
					if !slices.Contains(dirs, x) {
						dirs = append(dirs, x)
					}
				}
				return true
			}
			for _, dir := range dirs {
				ps, err := resolveArgvDepth(argv, env, dir, depth)
				if err != nil {
					firstErr = err
					return false
				}
				out = append(out, ps...)
			}
			return true
		}
		return true
	})
	return out, firstErr
}

// cdTarget is where `cd args` moves, from each of dirs: a repository
// folder ($CLAUDE_PROJECT_DIR/x, or relative), none for a folder outside
// the repository (/tmp: what runs there is no repository file); an
// expansion, `cd -` or a bare `cd` (home) cannot be followed.
func cdTarget(args []string, dirs []string) ([]string, error) {
	for len(args) > 0 && (args[0] == "-P" || args[0] == "-L" || args[0] == "--") {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-" || args[0] == "\x00" {
		return nil, errors.New("a cd Shipgate cannot follow changes the folder the command's paths are relative to")
	}
	a := args[0]
	switch {
	case strings.HasPrefix(a, RepoMark):
		p := path.Clean(strings.TrimLeft(a[len(RepoMark):], "/"))
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, fmt.Errorf("cd %s leaves the repository", strings.TrimPrefix(a, RepoMark))
		}
		if p == "." {
			p = ""
		}
		return []string{p}, nil
	case strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~"):
		return nil, nil
	}
	var out []string
	for _, d := range dirs {
		p := path.Clean(path.Join(d, a))
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, fmt.Errorf("cd %s leaves the repository", a)
		}
		if p == "." {
			p = ""
		}
		out = append(out, p)
	}
	return out, nil
}

// wordSource is a word's text for messages.
func wordSource(w *syntax.Word) string {
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, w)
	return sb.String()
}

// WordText evaluates a word made of literals, quotes and the known
// variables; anything else is not resolvable.
func WordText(w *syntax.Word, env map[string]string) (string, bool) {
	var sb strings.Builder
	var part func(p syntax.WordPart) bool
	part = func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !part(q) {
					return false
				}
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Exp != nil || p.Repl != nil || p.Index != nil || p.Slice != nil || p.Length || p.Excl {
				return false
			}
			v, ok := env[p.Param.Value]
			if !ok {
				return false
			}
			sb.WriteString(v)
		default:
			return false
		}
		return true
	}
	for _, p := range w.Parts {
		if !part(p) {
			return "", false
		}
	}
	// Escapes (\rm, a\ b) are read as the characters they escape.
	return strings.ReplaceAll(sb.String(), "\\", ""), true
}

// resolveArgv resolves an exec-style argv (an .mcp.json server).
func resolveArgv(argv []string, env map[string]string, scope string) ([]string, error) {
	for i, a := range argv {
		if strings.Contains(a, RepoMark) {
			return nil, errors.New("the command holds a control character")
		}
		argv[i] = expandVars(a, env)
		if unknownVar.MatchString(argv[i]) {
			// Claude Code expands ${VAR} (and ${VAR:-default}) in a
			// server's command and args from its environment: a variable
			// Shipgate does not know names a file it cannot name (it was
			// read as a literal relative path, which named nothing).
			argv[i] = "\x00"
		}
	}
	return resolveArgvDepth(argv, env, scope, 0)
}

// unknownVar finds a variable reference left after expandVars.
var unknownVar = regexp.MustCompile(`\$\{?[A-Za-z_]`)

// expandVars replaces ${NAME} and $NAME of the known variables.
func expandVars(s string, env map[string]string) string {
	for k, v := range env {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
		s = strings.ReplaceAll(s, "$"+k, v)
	}
	return s
}

func resolveArgvDepth(argv []string, env map[string]string, scope string, depth int) ([]string, error) {
	// Skip wrappers and their options: env VAR=x, timeout 5, nice -n 5, sudo -u x.
	for len(argv) > 0 {
		prog := path.Base(argv[0])
		if !wrappersSkipped[prog] {
			break
		}
		argv = argv[1:]
		for len(argv) > 0 && (strings.HasPrefix(argv[0], "-") || strings.Contains(argv[0], "=") || isNumberish(argv[0])) {
			if prog == "sudo" && (argv[0] == "-u" || argv[0] == "-g") && len(argv) > 1 {
				argv = argv[1:]
			}
			if prog == "nice" && argv[0] == "-n" && len(argv) > 1 {
				argv = argv[1:]
			}
			argv = argv[1:]
		}
	}
	if len(argv) == 0 {
		return nil, nil
	}
	prog := argv[0]
	if prog == "\x00" {
		return nil, errors.New("the program is an expansion Shipgate cannot resolve")
	}
	switch prog {
	case "eval":
		return nil, errors.New("eval runs text Shipgate cannot read")
	case "source", ".":
		if len(argv) < 2 {
			return nil, nil
		}
		p, err := repoFile(argv[1], scope)
		return oneOrNone(p), err
	}
	var out []string
	if strings.Contains(prog, "/") {
		p, err := repoFile(prog, scope)
		if err != nil {
			return nil, err
		}
		prog = path.Base(prog)
		if p != "" {
			out = append(out, p)
		}
		if !interpreters[prog] {
			return out, nil // a repository file, or a system program (/usr/bin/x, ~/bin/x)
		}
	}
	base := path.Base(prog)
	if f, ok := runners[base]; ok && !(base == "bun" && len(argv) > 1 && looksLikeScript(argv[1])) {
		if len(argv) > 1 && (argv[1] == "x" || argv[1] == "dlx" || argv[1] == "exec") {
			return out, nil // runs a package, not a repository script
		}
		return append(out, path.Join(scope, f)), nil
	}
	if base == "uv" || base == "poetry" || base == "pipenv" {
		// uv run [opts] x.py
		rest := argv[1:]
		if len(rest) > 0 && rest[0] == "run" {
			rest = rest[1:]
			for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
				rest = rest[1:]
			}
			if len(rest) > 0 && looksLikeScript(rest[0]) {
				p, err := repoFile(rest[0], scope)
				return append(out, oneOrNone(p)...), err
			}
			if len(rest) > 0 && interpreters[path.Base(rest[0])] {
				ps, err := resolveArgvDepth(rest, env, scope, depth)
				return append(out, ps...), err
			}
		}
		return out, nil
	}
	if base == "go" && len(argv) > 1 && argv[1] == "run" {
		return nil, errors.New("go run builds a package whose files Shipgate does not list")
	}
	if !interpreters[base] {
		return out, nil // a program on PATH: no repository file
	}
	// An interpreter: its first non-option argument is the script.
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "\x00":
			return nil, fmt.Errorf("the script %s runs is an expansion Shipgate cannot resolve", base)
		case a == "-c" && (base == "bash" || base == "sh" || base == "zsh" || base == "dash" || base == "ksh"):
			if i+1 >= len(argv) || argv[i+1] == "\x00" {
				return nil, errors.New("the text of " + base + " -c is an expansion Shipgate cannot resolve")
			}
			ps, err := resolveShell(argv[i+1], env, scope, depth+1)
			return append(out, ps...), err
		case a == "-c" || a == "-e" || a == "--eval" || a == "-p" || a == "--command" || a == "-Command":
			return out, nil // inline code: no repository file
		case a == "-m":
			return nil, fmt.Errorf("%s -m runs a module Shipgate cannot map to a file", base)
		case a == "-File" || a == "-f" && (base == "pwsh" || base == "powershell"):
			if i+1 < len(argv) {
				p, err := repoFile(argv[i+1], scope)
				return append(out, oneOrNone(p)...), err
			}
			return out, nil
		case a == "run" && (base == "deno" || base == "bun"):
			continue
		case strings.HasPrefix(a, "-"):
			continue
		default:
			p, err := repoFile(a, scope)
			return append(out, oneOrNone(p)...), err
		}
	}
	return out, nil
}

func isNumberish(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' && c != 's' && c != 'm' && c != 'h' {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

// looksLikeScript reports whether an argument names a file (has an
// extension or a slash).
func looksLikeScript(s string) bool {
	return strings.Contains(s, "/") || strings.Contains(path.Base(s), ".")
}

func oneOrNone(p string) []string {
	if p == "" {
		return nil
	}
	return []string{p}
}

// repoFile maps a file argument to a repository path: absolute paths
// under "/" of the environment's variables are repository paths; other
// absolute and home paths are outside the repository (""); relative paths
// are relative to the project folder, where Claude Code runs hooks. A path
// that climbs out of the repository is an error (fail closed: Shipgate
// cannot read it).
func repoFile(arg, scope string) (string, error) {
	switch {
	case arg == "\x00":
		return "", errors.New("a file named by an expansion Shipgate cannot resolve")
	case strings.HasPrefix(arg, "~"):
		return "", nil
	case strings.HasPrefix(arg, RepoMark):
		// A path built from $CLAUDE_PROJECT_DIR (or ${CLAUDE_SKILL_DIR}):
		// repository-rooted.
		p := path.Clean(strings.TrimLeft(arg[len(RepoMark):], "/"))
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", fmt.Errorf("%s is outside the repository", strings.TrimPrefix(arg, RepoMark))
		}
		if p == "." {
			return "", nil
		}
		return p, nil
	case strings.HasPrefix(arg, "/"):
		return "", nil // a system file
	}
	p := path.Clean(path.Join(scope, arg))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%s is outside the repository", arg)
	}
	if p == "." {
		return "", nil
	}
	return p, nil
}
