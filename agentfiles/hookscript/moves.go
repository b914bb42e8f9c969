package hookscript

import (
	"path"
	"regexp"
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
