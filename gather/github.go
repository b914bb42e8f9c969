package gather

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/report"
)

// DefaultCallBudget bounds the GitHub API calls one gather makes. A pull
// request that touches one settings file needs two or three; the bound
// stops a pathological one (hundreds of agent-config files) from
// draining the installation's rate limit: past it the gather fails, and
// the check run says so.
const DefaultCallBudget = 100

// GitHub is a pull request read through GitHub's REST API: the base's
// tree (one call, cached per commit: it says what every path is, so most
// absent or unchanged files cost nothing), the pull request's files
// (paginated), and contents at the base and head commits (cached per
// commit). It fetches only what the changed paths require.
type GitHub struct {
	Client      *github.Client
	Owner, Repo string
	PR          int
	// BaseSHA and HeadSHA are the pull request's base and head commits.
	BaseSHA, HeadSHA string
	// Cache keeps what was read at a SHA across pull requests (may be nil).
	Cache *Cache
	// MaxFiles is the most pull-request files listed (GitHub lists 3,000).
	MaxFiles int
	// Budget is the most API calls this gather may make (default
	// DefaultCallBudget).
	Budget int

	mu      sync.Mutex
	calls   int
	prFiles map[string]string // changed path → head blob SHA
	allPR   map[string]bool   // every path the pull request touches (nil: not listed, or cut)
	base    map[string]Entry
}

// Calls is how many API calls the gather made.
func (g *GitHub) Calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// call counts one API call against the budget.
func (g *GitHub) call(what string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	budget := g.Budget
	if budget == 0 {
		budget = DefaultCallBudget
	}
	if g.calls >= budget {
		return &ReadError{What: what, Err: fmt.Errorf("the gather would need more than %d GitHub API calls; Shipgate stopped rather than use up the installation's rate limit (split the pull request, or run shipgate diff locally)", budget)}
	}
	g.calls++
	return nil
}

func (g *GitHub) key(kind, ref, p string) string {
	return kind + ":" + g.Owner + "/" + g.Repo + "@" + ref + ":" + p
}

// Base reads the base commit.
func (g *GitHub) Base() Revision { return ghRev{g: g, head: false} }

// Head reads the head commit.
func (g *GitHub) Head() Revision { return ghRev{g: g, head: true} }

type treeListing struct {
	entries  []Entry
	complete bool
}

// ListBase reads the base commit's tree, recursively, in one call
// (GitHub cuts it past 100,000 entries or 7 MB: complete is then false).
func (g *GitHub) ListBase(ctx context.Context) ([]Entry, bool, error) {
	k := g.key("tree", g.BaseSHA, "")
	if v, ok := g.Cache.Get(k); ok {
		t := v.(treeListing)
		g.index(t.entries)
		return t.entries, t.complete, nil
	}
	what := fmt.Sprintf("the file tree of %s in %s/%s", shortSHA(g.BaseSHA), g.Owner, g.Repo)
	if err := g.call(what); err != nil {
		return nil, false, err
	}
	tree, _, err := g.Client.Git.GetTree(ctx, g.Owner, g.Repo, g.BaseSHA, true)
	if err != nil {
		return nil, false, &ReadError{What: what, Err: err}
	}
	var out []Entry
	size := 0
	for _, te := range tree.Entries {
		e := Entry{Path: te.GetPath(), Size: int64(te.GetSize()), ID: te.GetSHA()}
		switch te.GetMode() {
		case "100644", "100755":
			e.Kind = File
			e.TooLarge = e.Size > report.MaxFileSize
		case "120000":
			e.Kind = Symlink
		case "160000":
			e.Kind, e.Commit, e.Size = Submodule, te.GetSHA(), -1
		default:
			continue // trees (folders are implied by their paths)
		}
		out = append(out, e)
		size += len(e.Path) + 64
	}
	t := treeListing{entries: out, complete: !tree.GetTruncated()}
	g.Cache.Add(k, t, size)
	g.index(out)
	return t.entries, t.complete, nil
}

func (g *GitHub) index(es []Entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.base = make(map[string]Entry, len(es))
	for _, e := range es {
		g.base[e.Path] = e
	}
}

// Changed lists the pull request's files (paginated, up to MaxFiles) and
// keeps those sel.Match accepts. A rename is a deletion of the old path
// and an addition of the new one.
func (g *GitHub) Changed(ctx context.Context, sel Selector) ([]Change, bool, error) {
	max := g.MaxFiles
	if max == 0 {
		max = 3000
	}
	opts := &github.ListOptions{PerPage: 100}
	var out []Change
	seen := 0
	files := map[string]string{}
	all := map[string]bool{}
	keep := func(p string, st Status, sha string, f *github.CommitFile) {
		all[p] = true
		c := Change{Path: p, Status: st}
		if sel.Links && st != Deleted && f != nil {
			c.Target, c.Link = patchLink(f)
		}
		if sel.Match == nil || sel.Match(p) || c.Link {
			out = append(out, c)
			if st != Deleted {
				files[p] = sha
			}
		}
	}
	for {
		what := fmt.Sprintf("the files of pull request #%d", g.PR)
		if err := g.call(what); err != nil {
			return nil, false, err
		}
		page, resp, err := g.Client.PullRequests.ListFiles(ctx, g.Owner, g.Repo, g.PR, opts)
		if err != nil {
			return nil, false, &ReadError{What: what, Err: err}
		}
		for _, f := range page {
			seen++
			name, prev := f.GetFilename(), f.GetPreviousFilename()
			switch f.GetStatus() {
			case "removed":
				keep(name, Deleted, "", nil)
			case "added":
				keep(name, Added, f.GetSHA(), f)
			case "renamed":
				if prev != "" {
					keep(prev, Deleted, "", nil)
				}
				g.mu.Lock()
				wasLink := g.base[prev].Kind == Symlink
				g.mu.Unlock()
				if wasLink && f.GetPatch() == "" && sel.Links {
					// An exact rename of a base symlink: no patch to tell it by.
					all[name] = true
					out = append(out, Change{Path: name, Status: Added, Link: true})
					files[name] = f.GetSHA()
					continue
				}
				keep(name, Added, f.GetSHA(), f)
			default:
				keep(name, Modified, f.GetSHA(), f)
			}
		}
		if resp.NextPage == 0 || seen >= max {
			g.mu.Lock()
			if g.prFiles == nil {
				g.prFiles = map[string]string{}
			}
			for p, sha := range files { // a second listing (a narrower selector) adds to the first
				g.prFiles[p] = sha
			}
			if seen < max {
				g.allPR = all
			}
			g.mu.Unlock()
			return out, seen >= max, nil
		}
		opts.Page = resp.NextPage
	}
}

// patchLink tells a symlink in a pull request's file list by its patch,
// the only sign GitHub gives there: git shows a symlink's content as one
// line (its target) with no newline at the end, so the patch adds exactly
// one line and ends "\ No newline at end of file". A one-line file without
// a final newline looks the same: the gatherer reads the head to be sure,
// and only when the target could matter. A renamed file GitHub lists
// without a patch (an exact rename) keeps its content: a link renamed is
// read at its new path like any added path.
func patchLink(f *github.CommitFile) (target string, ok bool) {
	if f.GetAdditions() != 1 {
		return "", false
	}
	patch := f.GetPatch()
	if !strings.HasSuffix(patch, "\n\\ No newline at end of file") {
		return "", false
	}
	n := 0
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "+") {
			target = l[1:]
			n++
		}
	}
	if n != 1 || target == "" {
		return "", false
	}
	return target, true
}

type ghRev struct {
	g    *GitHub
	head bool
}

func (r ghRev) Read(ctx context.Context, p string) (Entry, error) {
	g := r.g
	if !r.head {
		g.mu.Lock()
		e, listed := g.base[p]
		g.mu.Unlock()
		switch {
		case listed && e.Kind == File:
			return g.raw(ctx, g.BaseSHA, p, e)
		case listed && e.Kind == Symlink:
			t, err := g.blob(ctx, e.ID, p)
			if err != nil {
				return Entry{}, err
			}
			e.Target = t
			return e, nil
		case listed:
			return e, nil
		}
		return g.object(ctx, g.BaseSHA, p, "")
	}
	g.mu.Lock()
	sha := g.prFiles[p]
	untouched := g.allPR != nil && !g.allPR[p]
	g.mu.Unlock()
	if untouched && !hasSymlinkOnTheWay(g, p) {
		// The pull request does not touch p: the head has the base's
		// version (read at the base, which other pull requests share).
		return ghRev{g: g}.Read(ctx, p)
	}
	return g.object(ctx, g.HeadSHA, p, sha)
}

// raw reads a file the tree listed, with the raw media type.
func (g *GitHub) raw(ctx context.Context, ref, p string, e Entry) (Entry, error) {
	if e.TooLarge {
		return e, nil
	}
	k := g.key("raw", ref, p)
	if v, ok := g.Cache.Get(k); ok {
		return v.(Entry), nil
	}
	what := fmt.Sprintf("%s at %s in %s/%s", p, shortSHA(ref), g.Owner, g.Repo)
	if err := g.call(what); err != nil {
		return Entry{}, err
	}
	data, _, err := readRaw(ctx, g.Client, g.contentsURL(ref, p))
	if err != nil {
		return Entry{}, &ReadError{What: what, Err: err}
	}
	out := Entry{Path: p, Kind: File, Data: data, Size: int64(len(data)), ID: e.ID}
	if len(data) > report.MaxFileSize {
		out = Entry{Path: p, Kind: File, TooLarge: true, Size: e.Size, ID: e.ID}
	}
	g.Cache.Add(k, out, len(out.Data)+len(p))
	return out, nil
}

// blob reads a symlink's text by its blob SHA (cached: a blob never
// changes).
func (g *GitHub) blob(ctx context.Context, sha, p string) (string, error) {
	k := g.key("blob", "", sha)
	if v, ok := g.Cache.Get(k); ok {
		return v.(string), nil
	}
	what := fmt.Sprintf("the symlink %s (blob %s) in %s/%s", p, shortSHA(sha), g.Owner, g.Repo)
	if err := g.call(what); err != nil {
		return "", err
	}
	data, _, err := g.Client.Git.GetBlobRaw(ctx, g.Owner, g.Repo, sha)
	if err != nil {
		return "", &ReadError{What: what, Err: err}
	}
	if len(data) > 64<<10 {
		data = data[:64<<10]
	}
	g.Cache.Add(k, string(data), len(data)+len(k))
	return string(data), nil
}

// object reads a path with the contents API's JSON form, which says what
// it is: a file (GitHub follows a symlink to a normal file and answers
// with that file: a blob SHA other than the one the pull request lists,
// or another path, gives it away), a symlink it does not follow, a
// submodule, a directory. A 404 is an absent path, except "No commit
// found for the ref": the commit is unreadable (as a fork's head can be),
// and reading that as "file deleted" would turn a widening into a removal.
func (g *GitHub) object(ctx context.Context, ref, p, listedSHA string) (Entry, error) {
	k := g.key("object", ref, p)
	if v, ok := g.Cache.Get(k); ok {
		return v.(Entry), nil
	}
	what := fmt.Sprintf("%s at %s in %s/%s", p, shortSHA(ref), g.Owner, g.Repo)
	if err := g.call(what); err != nil {
		return Entry{}, err
	}
	req, err := g.Client.NewRequest(http.MethodGet, g.contentsURL(ref, p), nil)
	if err != nil {
		return Entry{}, &ReadError{What: what, Err: err}
	}
	var raw any
	_, err = g.Client.Do(ctx, req, &raw)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound &&
			!strings.HasPrefix(er.Message, "No commit found") {
			e := Entry{Path: p, Kind: Missing}
			g.Cache.Add(k, e, len(k))
			return e, nil
		}
		return Entry{}, &ReadError{What: what, Err: err}
	}
	e, err := g.decodeObject(ctx, p, listedSHA, raw)
	if err != nil {
		return Entry{}, &ReadError{What: what, Err: err}
	}
	g.Cache.Add(k, e, len(e.Data)+len(k))
	return e, nil
}

func (g *GitHub) decodeObject(ctx context.Context, p, listedSHA string, raw any) (Entry, error) {
	if _, isDir := raw.([]any); isDir {
		return Entry{Path: p, Kind: Dir}, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return Entry{}, fmt.Errorf("unexpected contents response (%T)", raw)
	}
	str := func(k string) string { s, _ := obj[k].(string); return s }
	size := int64(-1)
	if n, ok := obj["size"].(float64); ok {
		size = int64(n)
	}
	switch str("type") {
	case "dir":
		return Entry{Path: p, Kind: Dir}, nil
	case "submodule":
		return Entry{Path: p, Kind: Submodule, Commit: str("sha")}, nil
	case "symlink":
		return Entry{Path: p, Kind: Symlink, Target: str("target"), ID: str("sha")}, nil
	case "file":
	default:
		return Entry{}, fmt.Errorf("unexpected content type %q", str("type"))
	}
	if rp := str("path"); (rp != "" && rp != p) || (listedSHA != "" && str("sha") != listedSHA) {
		// GitHub followed a symlink at p: read the link's own text.
		if listedSHA == "" {
			return Entry{}, fmt.Errorf("%s is a symlink GitHub followed to %s, and its own blob is unknown", p, rp)
		}
		t, err := g.blob(ctx, listedSHA, p)
		if err != nil {
			return Entry{}, err
		}
		return Entry{Path: p, Kind: Symlink, Target: t, ID: listedSHA}, nil
	}
	if str("encoding") != "base64" || size > report.MaxFileSize {
		return Entry{Path: p, Kind: File, TooLarge: true, Size: size, ID: str("sha")}, nil
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(str("content"), "\n", ""))
	if err != nil {
		return Entry{}, fmt.Errorf("decoding the content of %s: %w", p, err)
	}
	return Entry{Path: p, Kind: File, Data: data, Size: int64(len(data)), ID: str("sha")}, nil
}

func (g *GitHub) contentsURL(ref, p string) string { return contentsURL(g.Owner, g.Repo, ref, p) }

// contentsURL is the contents API's URL of path p at ref ("" for the
// default branch) in owner/repo, each segment escaped.
func contentsURL(owner, repo, ref, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s", url.PathEscape(owner), url.PathEscape(repo), strings.Join(segs, "/"))
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	return u
}

func shortSHA(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// hasSymlinkOnTheWay reports whether the pull request touches p's folders
// (a folder turned into a symlink or a submodule).
func hasSymlinkOnTheWay(g *GitHub, p string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for q := path.Dir(p); q != "." && q != "/"; q = path.Dir(q) {
		if g.allPR[q] {
			return true
		}
	}
	return false
}
