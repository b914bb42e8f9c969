// Package hookscript is hook-command and hook-script analysis shared by
// the gatherer and the engine: which repository files the commands of an
// agent-config file run (ExtraPaths, CommandRefs, ResolveCommand: hooks,
// status lines, helpers, .mcp.json stdio servers, resolved from the
// command text as a shell would), what one version of such a file runs
// (CommandsOf, with the commands that cannot be resolved and the files
// they may name: Mentions), which files a script a hook runs loads
// (LoadsOf: Python imports, shell source, Node require/import) and the one
// walk over those loads (WalkLoads), bounded by MaxLoadDepth and
// MaxLoadFiles; and what a hook handler does, in words a reviewer reads
// (When, Effect, EffectBasis, ChangedFields). It is pure: the gatherer
// reads the files it names, the engine (judge) reports a change to any of
// them as a change to the hook.
package hookscript

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// The files a hook script loads.
//
// A hook script that imports a module (`import policy` in Python, which
// puts the script's own folder first on sys.path), sources a shell file
// (`source ./lib/common.sh`, `. "$(dirname "$0")/common.sh"`) or requires
// a Node module (`require('./x')`, `import … from './x.js'`) runs that
// file too: a pull request that edits only the loaded file changes what
// the hook does. LoadsOf finds those loads in a script's text; the
// gatherer follows them from the scripts the base runs (MaxLoadDepth
// levels, MaxLoadFiles scripts) and the engine reports a change to a
// loaded file as a change to every hook that runs the script.

// MaxLoadDepth is how many levels of loads are followed from a script a
// command runs (the script's own loads are level 1). A script at the last
// level whose loads are not followed is treated as loading a file
// Shipgate cannot resolve: any change in its folder is held for review.
const MaxLoadDepth = 3

// MaxLoadFiles is how many scripts' loads are read in one comparison;
// past it the remaining scripts are treated as at MaxLoadDepth.
const MaxLoadFiles = 64

// ScriptLoads is what one version of a script loads from the repository.
type Loads struct {
	// Paths are the repository files it may load (a superset: every
	// file a load could resolve to, as Python, the shell or Node would
	// look for it).
	Paths []string
	// Dynamic are the loads Shipgate cannot resolve to a path (`source
	// "$LIB"`, `require(name)`, `sys.path.insert(…)`), as written: any
	// file in the script's folder may be what they load.
	Dynamic []string
}

// WalkLoads is the one walk over what hook scripts load, shared by the
// gatherer (which reads the loaded files) and the engine (which reports a
// change to one as a change to the hooks that run it): breadth first from
// the scripts in start, each path visited once, in sorted order level by
// level. visit is told the path, its level (the scripts in start are
// level 1) and whether it is past the bounds (deeper than MaxLoadDepth,
// or MaxLoadFiles scripts already read); it returns the paths p loads
// (followed at the next level) and whether it read p, which counts
// towards MaxLoadFiles. A path visit cannot use returns nothing and does
// not count. An error from visit stops the walk.
func WalkLoads(start []string, visit func(p string, depth int, past bool) (loads []string, read bool, err error)) error {
	level := append([]string(nil), start...)
	sort.Strings(level)
	done := map[string]bool{}
	read := 0
	for depth := 1; len(level) > 0; depth++ {
		var next []string
		for _, p := range level {
			if done[p] {
				continue
			}
			done[p] = true
			loads, counted, err := visit(p, depth, depth > MaxLoadDepth || read >= MaxLoadFiles)
			if err != nil {
				return err
			}
			if counted {
				read++
			}
			for _, x := range loads {
				if !done[x] {
					next = append(next, x)
				}
			}
		}
		sort.Strings(next)
		level = next
	}
	return nil
}

// scriptLang is the language a script is read as.
type scriptLang int

const (
	langNone scriptLang = iota
	langPython
	langShell
	langNode
)

// langOf tells a script's language by its extension, else its #! line.
func langOf(p string, data []byte) scriptLang {
	switch strings.ToLower(path.Ext(p)) {
	case ".py", ".pyw":
		return langPython
	case ".sh", ".bash", ".zsh", ".ksh":
		return langShell
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts":
		return langNode
	}
	if !strings.HasPrefix(string(data), "#!") {
		return langNone
	}
	first, _, _ := strings.Cut(string(data), "\n")
	switch {
	case strings.Contains(first, "python"):
		return langPython
	case strings.Contains(first, "node"), strings.Contains(first, "deno"), strings.Contains(first, "bun"):
		return langNode
	case strings.Contains(first, "sh"):
		return langShell
	}
	return langNone
}

// LoadsOf lists what the script at repository path p loads (its data is
// one version of it). A file that is not a Python, shell or Node script
// (by extension or #! line) loads nothing Shipgate follows.
func LoadsOf(p string, data []byte) Loads {
	p = CleanPath(p)
	var out Loads
	switch langOf(p, data) {
	case langPython:
		out = pythonLoads(p, string(data))
	case langShell:
		out = shellLoads(p, string(data))
	case langNode:
		out = nodeLoads(p, string(data))
	}
	seen := map[string]bool{}
	paths := out.Paths[:0]
	for _, x := range out.Paths {
		if x != "" && x != p && !seen[x] {
			seen[x] = true
			paths = append(paths, x)
		}
	}
	sort.Strings(paths)
	out.Paths = paths
	return out
}

// inRepo joins rel to dir and reports it when it stays inside the
// repository.
func inRepo(dir, rel string) (string, bool) {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return "", false
	}
	q := path.Join(dir, rel)
	if q == "." || q == ".." || strings.HasPrefix(q, "../") {
		return "", false
	}
	return q, true
}

var (
	pyImport     = regexp.MustCompile(`^\s*import\s+(.+)$`)
	pyFrom       = regexp.MustCompile(`^\s*from\s+(\.*)([A-Za-z_][\w.]*)?\s+import\s+(.+)$`)
	pyDynamic    = regexp.MustCompile(`__import__\s*\(|import_module|SourceFileLoader|sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=|site\.addsitedir|runpy|exec\s*\(|execfile|load_source|spec_from_file_location|PYTHONPATH`)
	pyIdentifier = regexp.MustCompile(`^[A-Za-z_]\w*$`)
)

// pythonLoads finds a Python script's imports. The script's folder is
// first on sys.path (python3 scripts/guard.py), so `import a.b` may load
// a/__init__.py, a/b.py or a/b/__init__.py there; `from . import x` and
// `from ..pkg import x` are read relative to the script's folder. A
// script that changes sys.path or imports by a computed name is
// dynamic, and its imports are also looked for in every folder above it.
func pythonLoads(p, text string) Loads {
	var out Loads
	dir := path.Dir(p)
	type imp struct {
		dir  string // the folder a relative import starts from, "" for absolute
		mods []string
	}
	var imps []imp
	for _, line := range logicalLines(text, '#') {
		if m := pyDynamic.FindString(line); m != "" {
			out.Dynamic = append(out.Dynamic, strings.TrimSpace(line))
		}
		if m := pyFrom.FindStringSubmatch(line); m != nil {
			names := pyNames(m[3])
			mod := m[2]
			if m[1] != "" {
				d, outside := dir, false
				for i := 1; i < len(m[1]); i++ {
					outside = outside || d == "."
					d = path.Dir(d)
				}
				if outside {
					continue // above the repository
				}
				var mods []string
				if mod != "" {
					mods = append(mods, mod)
				}
				for _, n := range names {
					if mod != "" {
						mods = append(mods, mod+"."+n)
					} else {
						mods = append(mods, n)
					}
				}
				if mod == "" {
					out.Paths = append(out.Paths, path.Join(d, "__init__.py"))
				}
				imps = append(imps, imp{dir: d, mods: mods})
				continue
			}
			if mod == "" {
				continue
			}
			mods := []string{mod}
			for _, n := range names {
				mods = append(mods, mod+"."+n)
			}
			imps = append(imps, imp{mods: mods})
			continue
		}
		if m := pyImport.FindStringSubmatch(line); m != nil {
			var mods []string
			for _, part := range strings.Split(m[1], ",") {
				f := strings.Fields(part)
				if len(f) > 0 {
					mods = append(mods, f[0])
				}
			}
			imps = append(imps, imp{mods: mods})
		}
	}
	roots := []string{dir}
	if len(out.Dynamic) > 0 {
		for d := dir; d != "." && d != "/"; {
			d = path.Dir(d)
			roots = append(roots, d)
		}
	}
	for _, im := range imps {
		rs := roots
		if im.dir != "" {
			rs = []string{im.dir}
		}
		for _, r := range rs {
			for _, mod := range im.mods {
				out.Paths = append(out.Paths, pyModuleFiles(r, mod)...)
			}
		}
	}
	return out
}

// pyNames are the names of `from x import a, b as c, (d)`.
func pyNames(s string) []string {
	s = strings.NewReplacer("(", " ", ")", " ", "\\", " ").Replace(s)
	var out []string
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		if len(f) > 0 && pyIdentifier.MatchString(f[0]) {
			out = append(out, f[0])
		}
	}
	return out
}

// pyModuleFiles are the files importing dotted module mod from folder
// root may run: each package's __init__.py on the way, and the module as
// a file or a package.
func pyModuleFiles(root, mod string) []string {
	var out []string
	parts := strings.Split(mod, ".")
	d := root
	for i, part := range parts {
		if !pyIdentifier.MatchString(part) {
			return out
		}
		q, ok := inRepo(d, part)
		if !ok {
			return out
		}
		if i == len(parts)-1 {
			out = append(out, q+".py", q+"/__init__.py")
		} else {
			out = append(out, q+"/__init__.py")
		}
		d = q
	}
	return out
}

// logicalLines splits text into lines joined across backslash
// continuations, with comments (from an unquoted comment byte) cut.
func logicalLines(text string, comment byte) []string {
	var out []string
	var cur strings.Builder
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line := cutComment(raw, comment)
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// cutComment cuts a line at the first comment byte outside quotes that
// starts a word.
func cutComment(line string, comment byte) string {
	var q byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0:
			if c == '\\' && q != '\'' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '\'' || c == '"' || c == '`':
			q = c
		case c == comment && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t' || line[i-1] == ';'):
			return line[:i]
		}
	}
	return line
}

var shellSource = regexp.MustCompile(`(?:^|[;&|({]|\bthen|\bdo|\belse)\s*(?:source|\.)\s+`)

// shellLoads finds the files a shell script sources (`source x`, `. x`).
// A relative path is looked for in the hook's working folder (the
// project, taken as the repository root) and in the script's folder;
// `$(dirname "$0")`, `${0%/*}` and `$(dirname "${BASH_SOURCE[0]}")` are the
// script's folder, $CLAUDE_PROJECT_DIR the repository root. Any other
// expansion is a load Shipgate cannot resolve.
func shellLoads(p, text string) Loads {
	var out Loads
	dir := path.Dir(p)
	for _, line := range logicalLines(text, '#') {
		for _, loc := range shellSource.FindAllStringIndex(line, -1) {
			raw := scanShellWord(line[loc[1]:])
			if raw == "" {
				continue
			}
			m := []string{strings.TrimSpace(line[loc[0]:loc[1]]) + " " + raw}
			w := shellWord(raw)
			for _, self := range []string{`$(dirname "$0")`, `$(dirname $0)`, `${0%/*}`, `$(dirname "${BASH_SOURCE[0]}")`, `$(dirname ${BASH_SOURCE[0]})`, `$(dirname "$BASH_SOURCE")`, `$(dirname $BASH_SOURCE)`} {
				if strings.HasPrefix(w, self) {
					w = "\x02" + strings.TrimPrefix(w, self)
				}
			}
			for _, proj := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"} {
				if strings.HasPrefix(w, proj) {
					w = "\x03" + strings.TrimPrefix(w, proj)
				}
			}
			if strings.ContainsAny(w, "$`*?[") {
				out.Dynamic = append(out.Dynamic, strings.TrimSpace(m[0]))
				continue
			}
			switch {
			case strings.HasPrefix(w, "\x02"):
				if q, ok := inRepo(dir, strings.TrimPrefix(strings.TrimPrefix(w, "\x02"), "/")); ok {
					out.Paths = append(out.Paths, q)
				}
			case strings.HasPrefix(w, "\x03"):
				if q, ok := inRepo(".", strings.TrimPrefix(strings.TrimPrefix(w, "\x03"), "/")); ok {
					out.Paths = append(out.Paths, q)
				}
			default:
				for _, d := range []string{".", dir} {
					if q, ok := inRepo(d, w); ok {
						out.Paths = append(out.Paths, q)
					}
				}
			}
		}
	}
	return out
}

// scanShellWord is the shell word s starts with: up to an unquoted blank
// or operator, with quotes and $(…) kept whole.
func scanShellWord(s string) string {
	var q byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'':
			if c == q {
				q = 0
			}
		case c == '\\':
			i++
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			depth++
			i++
		case c == ')' && depth > 0:
			depth--
		case q == '"':
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case depth == 0 && strings.IndexByte(" \t;&|)<>", c) >= 0:
			return s[:i]
		}
	}
	return s
}

// shellWord removes the quotes of one shell word (`"$(dirname "$0")"/x.sh`
// reads as $(dirname "$0")/x.sh), keeping those inside $(…).
func shellWord(w string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '$' && i+1 < len(w) && w[i+1] == '(':
			depth++
			b.WriteString("$(")
			i++
			continue
		case c == ')' && depth > 0:
			depth--
		case (c == '"' || c == '\'') && depth == 0:
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

var (
	nodeStatic  = regexp.MustCompile(`(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s*|^\s*import\s*|\bexport\s[^'"]*\bfrom\s*)(['"])([^'"\n]*)['"]`)
	nodeDynamic = regexp.MustCompile(`\brequire\s*\(\s*[^'"\s)]|\bimport\s*\(\s*[^'"\s)]|\brequire\s*\(\s*` + "`" + `|\bimport\s*\(\s*` + "`" + `|createRequire|\bvm\.run|\beval\s*\(`)
)

// nodeLoads finds the relative modules a Node script requires or imports
// (`require('./x')`, `import y from '../x.js'`, `import('./x')`), each
// as the files Node would try (x, x.js, x.mjs, x.cjs, x.json, x.ts,
// x/index.js, x/package.json, …). A bare name (`fs`, `lodash`) is not a
// repository file here; a computed name is a load Shipgate cannot
// resolve.
func nodeLoads(p, text string) Loads {
	var out Loads
	dir := path.Dir(p)
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "*") {
			continue
		}
		if m := nodeDynamic.FindString(line); m != "" {
			out.Dynamic = append(out.Dynamic, t)
		}
		for _, m := range nodeStatic.FindAllStringSubmatch(line, -1) {
			spec := m[2]
			if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
				continue
			}
			q, ok := inRepo(dir, spec)
			if !ok {
				continue
			}
			out.Paths = append(out.Paths, q)
			for _, ext := range []string{".js", ".mjs", ".cjs", ".json", ".ts", ".mts", ".cts", ".node"} {
				out.Paths = append(out.Paths, q+ext)
			}
			for _, idx := range []string{"index.js", "index.mjs", "index.cjs", "index.json", "index.ts", "package.json"} {
				out.Paths = append(out.Paths, q+"/"+idx)
			}
		}
	}
	return out
}

// cleanRepoPath normalises an input path as Classify does.
func CleanPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
}
