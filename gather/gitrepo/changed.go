package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Status says how a path differs between the base commit and the working tree.
type Status string

// The statuses Changed reports.
const (
	StatusAdded    Status = "added"    // absent at base, present now (committed, staged, or untracked and not ignored)
	StatusDeleted  Status = "deleted"  // present at base, absent now
	StatusModified Status = "modified" // present on both sides with different content (also: unmerged)
	StatusRenamed  Status = "renamed"  // OldPath at base became Path now; both matched
	// StatusTypeChange: the kind of entry changed (regular file, symlink or
	// submodule) at the same path; reading the symlink or submodule side fails.
	StatusTypeChange Status = "typechange"
)

// Change is one agent-config path that differs between the base commit and
// the working tree. Paths are relative to the repository root and
// slash-separated, exactly as git spells them (no quoting, any bytes).
type Change struct {
	Path    string // the path now (for deleted: the path at base)
	OldPath string // the path at base, set only for StatusRenamed
	Status  Status
}

// Changed lists the paths that differ between the commit base and the
// working tree: tracked changes whether committed after base, staged or
// not, plus untracked files that are not ignored (.gitignore,
// .git/info/exclude, core.excludesFile; an ignored file is not part of
// the change under review). Only paths inside pathspecs are considered —
// git pathspec syntax, magic allowed, for example
// ":(glob)**/.claude/settings*.json", ":(glob)**/.mcp.json",
// ".github/shipgate.yml" — so git never hashes or lists the rest of a
// large repository (nil means everything, which is slow there). Of those,
// only paths for which match returns true are kept (nil keeps all).
//
// A rename is detected (git -M) and reported once, with OldPath, when both
// sides match; when only one side matches it is reported as that side's
// deletion or addition. SplitRenames turns every rename into a deletion
// plus an addition. A file removed from the index but still on disk (git
// rm --cached) is modified, not deleted. Submodules are not entered: their
// files belong to another repository. Nothing is read here; the result is
// sorted by Path.
func (r *Repo) Changed(ctx context.Context, base string, pathspecs []string, match func(path string) bool) ([]Change, error) {
	return r.changed(ctx, base, pathspecs, match, true)
}

// ChangedSplit is Changed without rename detection: every rename is the
// deletion of the old path and the addition of the new one, as
// SplitRenames would give, without git's similarity search (which on a
// change that adds and deletes thousands of files compares their
// contents pair by pair, for an answer the caller would split anyway).
func (r *Repo) ChangedSplit(ctx context.Context, base string, pathspecs []string, match func(path string) bool) ([]Change, error) {
	return r.changed(ctx, base, pathspecs, match, false)
}

func (r *Repo) changed(ctx context.Context, base string, pathspecs []string, match func(path string) bool, renames bool) ([]Change, error) {
	if err := checkRev(base); err != nil {
		return nil, fmt.Errorf("listing changes in %s: %w", r.root, err)
	}
	if match == nil {
		match = func(string) bool { return true }
	}

	// Tracked and untracked changes are independent questions; on a large
	// repository both are dominated by reading the index and walking
	// directories, so ask them in parallel.
	var (
		wg                 sync.WaitGroup
		diffOut, othersOut []byte
		diffErr, othersErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		rn := "-M"
		if !renames {
			rn = "--no-renames"
		}
		args := append([]string{"diff", "--name-status", "-z", rn, "--no-ext-diff", "--no-textconv", base, "--"}, pathspecs...)
		diffOut, diffErr = r.run(ctx, args...)
	}()
	go func() {
		defer wg.Done()
		args := append([]string{"ls-files", "--others", "--exclude-standard", "-z", "--"}, pathspecs...)
		othersOut, othersErr = r.run(ctx, args...)
	}()
	wg.Wait()
	if diffErr != nil {
		return nil, fmt.Errorf("listing changes since %s in %s: %w", base, r.root, diffErr)
	}
	if othersErr != nil {
		return nil, fmt.Errorf("listing untracked files in %s: %w", r.root, othersErr)
	}

	tracked, err := parseNameStatus(diffOut)
	if err != nil {
		return nil, fmt.Errorf("listing changes since %s in %s: %w", base, r.root, err)
	}
	byPath := make(map[string]int, len(tracked))
	var out []Change
	add := func(c Change) {
		byPath[c.Path] = len(out)
		out = append(out, c)
	}
	for _, c := range tracked {
		switch c.Status {
		case StatusRenamed:
			oldOK, newOK := match(c.OldPath), match(c.Path)
			switch {
			case oldOK && newOK:
				add(c)
			case oldOK:
				add(Change{Path: c.OldPath, Status: StatusDeleted})
			case newOK:
				add(Change{Path: c.Path, Status: StatusAdded})
			}
		default:
			if match(c.Path) {
				add(c)
			}
		}
	}
	for _, p := range splitNUL(othersOut) {
		if !match(p) {
			continue
		}
		if i, ok := byPath[p]; ok {
			// Tracked at base, removed from the index (git rm --cached) but
			// still on disk: the file is there on both sides.
			if out[i].Status == StatusDeleted {
				out[i].Status = StatusModified
			}
			continue
		}
		add(Change{Path: p, Status: StatusAdded})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// SplitRenames returns changes with every rename replaced by the deletion
// of its OldPath and the addition of its Path, sorted by Path: the form in
// which Shipgate compares files, since a moved settings file stops
// applying in one place and starts in another.
func SplitRenames(changes []Change) []Change {
	out := make([]Change, 0, len(changes))
	for _, c := range changes {
		if c.Status == StatusRenamed {
			out = append(out,
				Change{Path: c.OldPath, Status: StatusDeleted},
				Change{Path: c.Path, Status: StatusAdded})
			continue
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// parseNameStatus parses `git diff --name-status -z` output: records of a
// status field then one path, or for renames and copies a status, the old
// path and the new path, every field terminated by NUL.
func parseNameStatus(b []byte) ([]Change, error) {
	fields := splitNUL(b)
	var out []Change
	for i := 0; i < len(fields); {
		st := fields[i]
		i++
		if st == "" {
			return nil, fmt.Errorf("malformed git diff output: empty status at field %d", i)
		}
		need := 1
		if st[0] == 'R' || st[0] == 'C' {
			need = 2
		}
		if i+need > len(fields) {
			return nil, fmt.Errorf("malformed git diff output: status %q without its path", st)
		}
		p := fields[i : i+need]
		i += need
		for _, x := range p {
			if x == "" {
				return nil, fmt.Errorf("malformed git diff output: empty path for status %q", st)
			}
		}
		switch st[0] {
		case 'A':
			out = append(out, Change{Path: p[0], Status: StatusAdded})
		case 'D':
			out = append(out, Change{Path: p[0], Status: StatusDeleted})
		case 'M', 'U':
			// U (unmerged): the working tree holds the conflicted file, which
			// is what an agent would load; report it as modified and let the
			// reader see the conflict markers.
			out = append(out, Change{Path: p[0], Status: StatusModified})
		case 'T':
			out = append(out, Change{Path: p[0], Status: StatusTypeChange})
		case 'R':
			out = append(out, Change{Path: p[1], OldPath: p[0], Status: StatusRenamed})
		case 'C':
			// A copy leaves its source unchanged: only the new path is a change.
			out = append(out, Change{Path: p[1], Status: StatusAdded})
		default:
			return nil, fmt.Errorf("unexpected git diff status %q for %q", st, strings.Join(p, " -> "))
		}
	}
	return out, nil
}

// splitNUL splits NUL-terminated fields, tolerating a missing final NUL.
func splitNUL(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}
