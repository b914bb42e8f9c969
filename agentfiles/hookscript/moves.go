package hookscript

import (
	"path"
	"regexp"
	"strings"
)

// A hook script moved with its folder.
//
// A pull request that moves a folder of hook scripts whole (git mv
// scripts/hooks agents/hooks) and points the hooks at the new paths runs
// the same code, provided what the scripts load and read beside them
// moved with them: the gatherer proves the folder's files the same, name
// by name and byte by byte (gather/moves.go), and MoveBlocker says, of
// each script in it, whether the move can still change what it does.

// movedAbove finds text that reaches out of a script's own folder: a `..`
// path step (`../lib.sh`, `from .. import x`, `os.pardir`) or a folder
// taken above the script's own (`Path(__file__).parent.parent`,
// `dirname "$(dirname "$0")"`). A file outside the folder did not move
// with it, so the moved script would reach another file. The test is on
// the text, comments and strings included: it may refuse a move that is
// harmless, never accept one that is not.
var movedAbove = regexp.MustCompile(`(^|[^.])\.\.([^.]|$)|\bpardir\b|\.parent\s*\.\s*parent\b|\.parents\s*\[|dirname\s*\(\s*(os\.path\.|path\.)?dirname|dirname\s+["']?\$\(\s*dirname`)

// MoveBlocker says why the script at repository path p (data is its
// content) might do something else once its folder is moved whole to
// another place with the same files, or "" when it does the same: it is
// a Python or shell script (Node resolves packages and a file's module
// type from the folders above it, which differ at the new place; another
// language is not read), whose every load Shipgate resolves (Loads.Dynamic
// is empty) and whose text reaches nothing above its folder (movedAbove).
// A file a command does not run itself (run false) that is no script of
// those languages is data: the same bytes are all it needs.
func MoveBlocker(p string, data []byte, run bool) string {
	p = CleanPath(p)
	switch langOf(p, data) {
	case langNone:
		if run {
			return path.Base(p) + " is not a Python or shell script, whose loads Shipgate reads"
		}
		return ""
	case langNode:
		return path.Base(p) + " is a Node script: Node resolves its packages and module type from the folders above it, which differ at the new place"
	}
	if l := LoadsOf(p, data); len(l.Dynamic) > 0 {
		return path.Base(p) + " loads a file Shipgate cannot resolve (" + l.Dynamic[0] + ")"
	}
	if m := movedAbove.FindString(string(data)); m != "" {
		return path.Base(p) + " names a path above its folder, which did not move with it"
	}
	return ""
}

// A hook script renamed in its folder.
//
// A pull request that renames a hook script where it lies (git mv
// hooks/full-check.sh hooks/typecheck-lint.sh) and points the hook at the
// new name runs the same code from the same folder: what the script loads
// beside it is where it was (and a change to it is compared itself). Only
// the script's own name differs, so RenameBlocker refuses a script that may
// read it: one whose text names its own path ($0, BASH_SOURCE, __file__,
// __filename, import.meta, argv) anywhere but inside the folder it takes
// from it (dirname "$0", os.path.dirname(__file__), Path(__file__).parent,
// __dirname), or that spells its old or new name. Like movedAbove, the test
// is on the text: it may refuse a harmless rename, never accept one that
// is not.

// selfFolder is a script taking its own folder from its path: the folder
// is the same after a rename in place.
var selfFolder = regexp.MustCompile(`dirname\s+(--\s+)?["']?\$(\{?0\}?|\{BASH_SOURCE(\[0\])?\})["']?|` +
	`(os\.path\.)?dirname\(\s*(os\.path\.(abspath|realpath)\(\s*)?__file__\s*\)?\s*\)|` +
	`Path\(\s*__file__\s*\)(\.(resolve|absolute)\(\s*\))?\.parent\b|` +
	`path\.dirname\(\s*(fileURLToPath\(\s*import\.meta\.url\s*\)|__filename)\s*\)|import\.meta\.dirname\b`)

// selfName is what is left that may read a script's own name.
var selfName = regexp.MustCompile(`\$\{?0\b|\$\{?BASH_SOURCE|\b__file__\b|\b__filename\b|\bimport\.meta\b|\bargv\b|\bbasename\b|\$ZSH_ARGZERO|\$\{?funcfiletrace`)

// RenameBlocker says why the script at repository path from (data is its
// content, the same at the base and under the new name to at the head,
// both in one folder) might do something else under its new name, or ""
// when it does the same: a Python, shell or Node script (whose text
// Shipgate reads) keeping its extension (Node takes a file's module type
// from it, and an interpreter may too) that does not read its own name.
func RenameBlocker(from, to string, data []byte) string {
	from, to = CleanPath(from), CleanPath(to)
	if path.Dir(from) != path.Dir(to) {
		return path.Base(to) + " is in another folder than " + path.Base(from)
	}
	if !strings.EqualFold(path.Ext(from), path.Ext(to)) {
		return "the rename changes the file's extension (" + path.Base(from) + " → " + path.Base(to) + "), which may decide how it runs"
	}
	if langOf(from, data) == langNone {
		return path.Base(from) + " is not a Python, shell or Node script, whose text Shipgate reads"
	}
	text := selfFolder.ReplaceAllString(string(data), "")
	if m := selfName.FindString(text); m != "" {
		return path.Base(from) + " may read its own name (" + m + "), which the rename changes"
	}
	lower := strings.ToLower(text)
	for _, p := range []string{from, to} {
		stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
		if stem != "" && spells(lower, stem) {
			return path.Base(from) + " spells the name " + strings.TrimSuffix(path.Base(p), path.Ext(p)) + ", which the rename changes"
		}
	}
	return ""
}

// spells reports whether text holds word as a whole token (not inside a
// longer identifier).
func spells(text, word string) bool {
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !isWord(text[j-1])) && (j+len(word) == len(text) || !isWord(text[j+len(word)])) {
			return true
		}
		i = j + 1
	}
}
