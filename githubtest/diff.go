package githubtest

import (
	"fmt"
	"sort"
	"strings"
)

// fileChange is one entry of a pull request's file list.
type fileChange struct {
	filename  string
	previous  string // set for renames
	status    string // added, removed, modified, renamed
	sha       string // blob SHA: the head version, or the base one for removals
	additions int
	deletions int
	patch     string
	hasPatch  bool
}

// maxPatchLines bounds the files the fake computes patches for; GitHub also
// leaves `patch` out of very large diffs.
const maxPatchLines = 20000

// diffTrees compares two full trees as GitHub's pull request file list
// does: sorted by path, exact-content renames detected, line counts and a
// unified-diff patch per text file.
func diffTrees(base, head map[string]string) []fileChange {
	var added, removed, out []fileChange
	for p, hc := range head {
		bc, ok := base[p]
		switch {
		case !ok:
			added = append(added, fileChange{filename: p, status: "added", sha: blobSHA(hc)})
		case bc != hc:
			out = append(out, withLineDiff(fileChange{filename: p, status: "modified", sha: blobSHA(hc)}, bc, hc))
		}
	}
	for p, bc := range base {
		if _, ok := head[p]; !ok {
			removed = append(removed, fileChange{filename: p, status: "removed", sha: blobSHA(bc)})
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].filename < added[j].filename })
	sort.Slice(removed, func(i, j int) bool { return removed[i].filename < removed[j].filename })
	// Exact renames: a removed file whose content reappears at an added path.
	bySHA := map[string][]int{}
	for i, a := range added {
		bySHA[a.sha] = append(bySHA[a.sha], i)
	}
	renamedTo := map[int]bool{}
	for _, r := range removed {
		if idx := bySHA[r.sha]; len(idx) > 0 {
			i := idx[0]
			bySHA[r.sha] = idx[1:]
			renamedTo[i] = true
			out = append(out, fileChange{filename: added[i].filename, previous: r.filename, status: "renamed", sha: r.sha})
			continue
		}
		out = append(out, withLineDiff(r, base[r.filename], ""))
	}
	for i, a := range added {
		if !renamedTo[i] {
			out = append(out, withLineDiff(a, "", head[a.filename]))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].filename < out[j].filename })
	return out
}

func withLineDiff(fc fileChange, before, after string) fileChange {
	// A symlink's content, as git diffs it, is its target with no newline.
	if k, t := special(before); k == "symlink" {
		before = t
	}
	if k, t := special(after); k == "symlink" {
		after = t
	}
	if strings.ContainsRune(before, 0) || strings.ContainsRune(after, 0) {
		return fc // binary: no counts, no patch
	}
	a, b := splitLines(before), splitLines(after)
	ops := lineDiff(a, b)
	for _, o := range ops {
		switch o.kind {
		case '+':
			fc.additions++
		case '-':
			fc.deletions++
		}
	}
	if len(a)+len(b) <= maxPatchLines {
		fc.patch, fc.hasPatch = unifiedPatch(ops, 3), true
	}
	return fc
}

// splitLines splits text into lines that keep their "\n", so a last line
// without one differs from the same line with one, as in git.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type diffOp struct {
	kind rune // ' ', '-', '+'
	line string
	a, b int // 0-based line numbers in the old and new text
}

// maxEditDistance bounds Myers' search; past it the diff is "replace all".
const maxEditDistance = 4000

// lineDiff is Myers' O(ND) diff over lines.
func lineDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	limit := n + m
	if limit > maxEditDistance {
		limit = maxEditDistance
	}
	off := n + m + 1
	v := make([]int, 2*(n+m)+3)
	var trace [][]int
	found := false
	for d := 0; d <= limit && !found; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return replaceAll(a, b)
	}
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return snap[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{kind: ' ', line: a[x], a: x, b: y})
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, diffOp{kind: '+', line: b[prevY], a: x, b: prevY})
			} else {
				rev = append(rev, diffOp{kind: '-', line: a[prevX], a: prevX, b: y})
			}
		}
		x, y = prevX, prevY
	}
	ops := make([]diffOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}

func replaceAll(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for i, l := range a {
		ops = append(ops, diffOp{kind: '-', line: l, a: i, b: 0})
	}
	for i, l := range b {
		ops = append(ops, diffOp{kind: '+', line: l, a: len(a), b: i})
	}
	return ops
}

// unifiedPatch renders ops as the hunks GitHub puts in a file's `patch`.
func unifiedPatch(ops []diffOp, context int) string {
	var hunks []string
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*context {
				break
			}
		}
		stop := min(end+context+1, len(ops))
		hunks = append(hunks, renderHunk(ops[start:stop]))
		i = stop
	}
	return strings.Join(hunks, "\n")
}

func renderHunk(ops []diffOp) string {
	aStart, bStart := ops[0].a, ops[0].b
	aLen, bLen := 0, 0
	var body []string
	for _, o := range ops {
		switch o.kind {
		case ' ':
			aLen++
			bLen++
		case '-':
			aLen++
		case '+':
			bLen++
		}
		text := strings.TrimSuffix(o.line, "\n")
		line := string(o.kind) + text
		if !strings.HasSuffix(o.line, "\n") {
			line += "\n\\ No newline at end of file"
		}
		body = append(body, line)
	}
	return fmt.Sprintf("@@ -%s +%s @@\n%s", hunkRange(aStart, aLen), hunkRange(bStart, bLen), strings.Join(body, "\n"))
}

// hunkRange formats "start,len" as git does: 1-based, ",1" left out, and a
// zero-length range naming the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
