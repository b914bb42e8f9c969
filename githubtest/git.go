package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// commit is one full-tree snapshot. SHAs are git's own: a blob's SHA is
// sha1("blob <len>\0<content>"), trees and commits are hashed from git's
// object encoding, so a commit's SHA depends only on its tree, parent,
// message and author and is the same on every run.
type commit struct {
	sha     string
	tree    string
	parent  string
	files   map[string]string
	message string
	author  *account
	time    time.Time
	dirs    map[string]string // directory path ("" = root) → tree SHA
}

// commitEpoch is the fixed author and committer date inside every commit
// object, which keeps SHAs deterministic whatever the clock says.
const commitEpoch = 1700000000

// zeroSHA is git's "no commit", as push payloads use it.
const zeroSHA = "0000000000000000000000000000000000000000"

func gitHash(kind string, body []byte) (string, []byte) {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum), sum
}

// blobSHA returns git's SHA of a file's content.
func blobSHA(content string) string {
	sha, _ := gitHash("blob", []byte(content))
	return sha
}

// treeSHAs hashes the nested trees of a flat file map, returning every
// directory's tree SHA ("" is the root).
func treeSHAs(files map[string]string) map[string]string {
	type entry struct {
		name string
		dir  bool
		sha  []byte
	}
	children := map[string]map[string]bool{"": {}}
	for p := range files {
		dir := ""
		for _, part := range strings.Split(path.Dir(p), "/") {
			if part == "." {
				break
			}
			child := strings.TrimPrefix(dir+"/"+part, "/")
			if children[dir] == nil {
				children[dir] = map[string]bool{}
			}
			children[dir][child] = true
			dir = child
		}
		if children[dir] == nil {
			children[dir] = map[string]bool{}
		}
		children[dir][p] = true
	}
	out := map[string]string{}
	var hashDir func(dir string) []byte
	hashDir = func(dir string) []byte {
		var entries []entry
		for child := range children[dir] {
			name := path.Base(child)
			if _, isFile := files[child]; isFile && children[child] == nil {
				_, sum := gitHash("blob", []byte(files[child]))
				entries = append(entries, entry{name: name, sha: sum})
				continue
			}
			entries = append(entries, entry{name: name, dir: true, sha: hashDir(child)})
		}
		// git orders tree entries as if directory names ended in "/".
		sort.Slice(entries, func(i, j int) bool {
			a, b := entries[i].name, entries[j].name
			if entries[i].dir {
				a += "/"
			}
			if entries[j].dir {
				b += "/"
			}
			return a < b
		})
		var body []byte
		for _, e := range entries {
			mode := "100644"
			if e.dir {
				mode = "40000"
			}
			body = append(body, mode+" "+e.name+"\x00"...)
			body = append(body, e.sha...)
		}
		sha, sum := gitHash("tree", body)
		out[dir] = sha
		return sum
	}
	hashDir("")
	return out
}

// newCommit builds (but does not store) a commit of files on parent.
func newCommit(files map[string]string, parent, message string, author *account, now time.Time) *commit {
	dirs := treeSHAs(files)
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", dirs[""])
	if parent != "" {
		fmt.Fprintf(&b, "parent %s\n", parent)
	}
	who := fmt.Sprintf("%s <%s@users.noreply.github.com> %s +0000", author.login, author.login, strconv.Itoa(commitEpoch))
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s\n", who, who, message)
	sha, _ := gitHash("commit", []byte(b.String()))
	return &commit{sha: sha, tree: dirs[""], parent: parent, files: files, message: message, author: author, time: now, dirs: dirs}
}

// applyChanges returns a copy of base with changes applied: an empty
// string deletes the path.
func applyChanges(base map[string]string, changes map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(base)+len(changes))
	for p, c := range base {
		out[p] = c
	}
	for p, c := range changes {
		clean := strings.Trim(path.Clean("/"+p), "/")
		if clean == "" || clean == "." || strings.Contains(p, "..") {
			return nil, fmt.Errorf("invalid file path %q", p)
		}
		if c == "" {
			delete(out, clean)
			continue
		}
		out[clean] = c
	}
	// A path cannot be both a file and a directory.
	for p := range out {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, clash := out[dir]; clash {
				return nil, fmt.Errorf("path %q is a file and a directory", dir)
			}
		}
	}
	return out, nil
}

// resolveRef turns a ref into a commit SHA in repository r: a branch name,
// refs/heads/<b>, refs/pull/<n>/head, or a full or abbreviated (7+) SHA of a
// commit reachable in r. ok is false when nothing matches.
func (st *state) resolveRef(r *repository, ref string) (string, bool) {
	switch {
	case ref == "":
		sha, ok := r.branches[r.defaultBranch]
		return sha, ok
	case strings.HasPrefix(ref, "refs/heads/"):
		sha, ok := r.branches[strings.TrimPrefix(ref, "refs/heads/")]
		return sha, ok
	case strings.HasPrefix(ref, "refs/pull/") && strings.HasSuffix(ref, "/head"):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(ref, "refs/pull/"), "/head"))
		if pr := r.pulls[n]; err == nil && pr != nil {
			return pr.headSHA, true
		}
		return "", false
	}
	if sha, ok := r.branches[ref]; ok {
		return sha, true
	}
	if isHex(ref) && len(ref) >= 7 && len(ref) <= 40 {
		ref = strings.ToLower(ref)
		if len(ref) == 40 {
			return ref, r.known[ref]
		}
		var found string
		for sha := range r.known {
			if strings.HasPrefix(sha, ref) {
				if found != "" {
					return "", false // ambiguous
				}
				found = sha
			}
		}
		return found, found != ""
	}
	return "", false
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return s != ""
}

// ancestors returns sha and all its ancestors, newest first.
func (st *state) ancestors(sha string) []string {
	var out []string
	for sha != "" {
		c := st.commits[sha]
		if c == nil {
			break
		}
		out = append(out, sha)
		sha = c.parent
	}
	return out
}

// mergeBase returns the newest common ancestor of a and b, or "" when they
// share none (the diff is then against an empty tree).
func (st *state) mergeBase(a, b string) string {
	inA := map[string]bool{}
	for _, sha := range st.ancestors(a) {
		inA[sha] = true
	}
	for _, sha := range st.ancestors(b) {
		if inA[sha] {
			return sha
		}
	}
	return ""
}

// commitsBetween counts the commits reachable from head and not from base.
func (st *state) commitsBetween(base, head string) int {
	n := 0
	for _, sha := range st.ancestors(head) {
		if sha == base {
			break
		}
		n++
	}
	return n
}

// push stores a new commit on branch of r (creating the branch from the
// default branch when missing) and returns it with the previous head.
func (st *state) push(r *repository, branch string, changes map[string]string, message string, author *account, now time.Time) (*commit, string, error) {
	if branch == "" {
		branch = r.defaultBranch
	}
	before, exists := r.branches[branch]
	parent := before
	if !exists {
		parent = r.branches[r.defaultBranch]
	}
	var base map[string]string
	if c := st.commits[parent]; c != nil {
		base = c.files
	}
	files, err := applyChanges(base, changes)
	if err != nil {
		return nil, "", fmt.Errorf("push to %s@%s: %w", r.fullName(), branch, err)
	}
	if message == "" {
		message = "Update files"
	}
	c := newCommit(files, parent, message, author, now)
	if _, dup := st.commits[c.sha]; !dup {
		st.commits[c.sha] = c
	} else {
		c = st.commits[c.sha]
	}
	r.known[c.sha] = true
	r.branches[branch] = c.sha
	r.pushedAt, r.updatedAt = now, now
	if !exists {
		before = zeroSHA
	}
	return c, before, nil
}
