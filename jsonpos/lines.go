package jsonpos

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"
)

const bom = "\xEF\xBB\xBF"

// LineIndex maps byte offsets of one input to lines and columns, with the
// same conventions as the positions Parse records (see the package comment).
// The review engine uses it for offsets that are not value boundaries, such as
// a position inside a rule string. Build it once per file: NewLineIndex is
// linear, Position is logarithmic in the number of lines plus linear in the
// length of the one line.
type LineIndex struct {
	data   []byte
	starts []int // starts[i] is the offset where line i+1 begins
}

// NewLineIndex indexes data, which must not be modified afterwards.
func NewLineIndex(data []byte) *LineIndex {
	starts := make([]int, 1, 1+bytes.Count(data, []byte{'\n'}))
	if bytes.HasPrefix(data, []byte(bom)) {
		starts[0] = len(bom) // a leading BOM is zero columns wide
	}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &LineIndex{data: data, starts: starts}
}

// Position returns the 1-based line and column of a byte offset. Offsets
// outside the input are clamped to it.
func (ix *LineIndex) Position(offset int) (line, col int) {
	p := ix.Pos(offset)
	return p.Line, p.Column
}

// Pos returns the full position of a byte offset, clamped to the input.
func (ix *LineIndex) Pos(offset int) Pos {
	offset = max(0, min(offset, len(ix.data)))
	i := sort.Search(len(ix.starts), func(k int) bool { return ix.starts[k] > offset }) - 1
	i = max(i, 0)
	col := 1
	if ls := ix.starts[i]; offset > ls {
		col += utf8.RuneCount(ix.data[ls:offset])
	}
	return Pos{Offset: offset, Line: i + 1, Column: col}
}

// Lines returns the number of lines: one more than the number of LF bytes.
func (ix *LineIndex) Lines() int { return len(ix.starts) }

// slowPos computes the position of off in src from scratch. The parser uses it
// only for the one fatal error of a parse, so it costs O(n) at most once.
func slowPos(src string, off int) Pos {
	off = max(0, min(off, len(src)))
	line := 1 + strings.Count(src[:off], "\n")
	ls := strings.LastIndexByte(src[:off], '\n') + 1
	if ls == 0 && strings.HasPrefix(src, bom) {
		ls = len(bom)
	}
	col := 1
	if off > ls {
		col += utf8.RuneCountInString(src[ls:off])
	}
	return Pos{Offset: off, Line: line, Column: col}
}
