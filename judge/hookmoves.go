package judge

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/report"
)

// Hook scripts moved with their folder (report.Input.Moves, proven by the
// gatherer: gather/moves.go). A hook whose command names a script under a
// moved folder's new place, where the base's named the same script at the
// old place, runs the same code: it is the same command respelled, said
// once (one quiet hook row); the moved scripts themselves are not rows.

// unmoved respells a handler's effect (hookscript.Effect) with every
// repository path under a moved folder's new place written at its old
// place, and returns the move it used; nil when no path of it moved.
func (e *engine) unmoved(effect string) (string, *report.Move) {
	if len(e.moves) == 0 {
		return "", nil
	}
	words := strings.Split(effect, "\x00")
	var used *report.Move
	for i, w := range words {
		rel, ok := strings.CutPrefix(w, "\x02/")
		if !ok {
			continue
		}
		for j := range e.moves {
			m := &e.moves[j]
			if m.File && rel == m.To {
				words[i] = "\x02/" + m.From
				if used == nil {
					used = m
				}
				break
			}
			if rest, ok := strings.CutPrefix(rel, m.To+"/"); !m.File && ok {
				words[i] = "\x02/" + m.From + "/" + rest
				if used == nil {
					used = m
				}
				break
			}
		}
	}
	if used == nil {
		return "", nil
	}
	return strings.Join(words, "\x00"), used
}

// movedFolder words a move for a row.
func movedFolder(m report.Move) string {
	if m.File {
		return fmt.Sprintf("%s → %s, renamed in its folder with the same content", m.From, path.Base(m.To))
	}
	files := "files"
	if m.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("%s → %s, %d %s with the same content", m.From, m.To, m.Files, files)
}

// movedScript reports whether a script file of the input is one side of a
// moved folder and so no change of its own: at the new place, created
// with the bytes the old place had at the base; at the old place,
// deleted, its bytes at the new place, and run by no command of the head
// (a command that still names it fails now: that is a change). The move
// is the gatherer's proof for every file of the folder; where the other
// side is in the input too, its bytes are checked again.
func (e *engine) movedScript(f *fileState) bool {
	for _, m := range e.moves {
		from, to := "", ""
		switch {
		case m.File && (f.Path == m.To || f.Path == m.From):
			from, to = m.From, m.To
		case m.File:
			continue
		case strings.HasPrefix(f.Path, m.To+"/"):
			rel := strings.TrimPrefix(f.Path, m.To+"/")
			from, to = path.Join(m.From, rel), f.Path
		case strings.HasPrefix(f.Path, m.From+"/"):
			rel := strings.TrimPrefix(f.Path, m.From+"/")
			from, to = f.Path, path.Join(m.To, rel)
		default:
			continue
		}
		if f.Path == to && !f.Base.Exists && f.Head.Exists && f.Head.Unreadable == "" {
			c, ok := e.inputs[from]
			return !ok || c.Base.Exists && c.Base.Unreadable == "" && bytes.Equal(c.Base.Data, f.Head.Data)
		}
		if f.Path == from && f.Base.Exists && !f.Head.Exists && f.Base.Unreadable == "" {
			for _, u := range e.scripts[f.Path] {
				if u.head {
					return false
				}
			}
			c, ok := e.inputs[to]
			return !ok || c.Head.Exists && c.Head.Unreadable == "" && bytes.Equal(c.Head.Data, f.Base.Data)
		}
	}
	return false
}
