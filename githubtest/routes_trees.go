package githubtest

import (
	"net/http"
	"path"
	"sort"
	"strings"
)

// Symlinks and submodules. The fake stores a commit as a map of paths to
// contents; a content made by Symlink or Submodule is not a file but a
// symbolic link (mode 120000, its blob is the link's text) or a gitlink
// (mode 160000, pinning a commit of another repository). The trees, blobs
// and contents routes answer for them as GitHub does:
//
//   - GET git/trees/{sha}?recursive=1 lists them with their modes;
//   - GET git/blobs/{sha} serves a link's text;
//   - GET contents/{path} on a symlink whose target is a normal file in the
//     repository answers with that file (GitHub follows it: the path and
//     sha are the target's); on any other symlink, an object of type
//     "symlink" with its target; on a submodule, type "submodule" with the
//     commit as sha. A path under a symlink or a submodule is not found.
//
// Pull-request files list a link or a gitlink by the SHA of the stored
// marker, which the trees route reports too, so the two agree.

const (
	symlinkMarker   = "\x00githubtest:symlink\x00"
	submoduleMarker = "\x00githubtest:submodule\x00"
)

// Symlink returns the content that makes a path a symbolic link to target
// in RepoOptions.Files or a push's changes.
func Symlink(target string) string { return symlinkMarker + target }

// Submodule returns the content that makes a path a submodule pinned at
// commit (40 hex digits).
func Submodule(commit string) string { return submoduleMarker + commit }

// special says whether stored content is a symlink or a submodule, and
// its target or commit.
func special(content string) (kind, value string) {
	switch {
	case strings.HasPrefix(content, symlinkMarker):
		return "symlink", strings.TrimPrefix(content, symlinkMarker)
	case strings.HasPrefix(content, submoduleMarker):
		return "submodule", strings.TrimPrefix(content, submoduleMarker)
	}
	return "", ""
}

// getTree serves GET /repos/{owner}/{repo}/git/trees/{tree_sha}: the
// commit's (or a branch's) root tree; with recursive set, every entry
// below it. Directories are mode 040000 type tree; files 100644 blob
// with their size; symlinks 120000 blob; submodules 160000 commit.
func (s *Server) getTree(c *call) (int, any, *apiError) {
	r, e := c.repoFor("contents", "read")
	if e != nil {
		return 0, nil, e
	}
	ref := c.param("tree_sha")
	sha, ok := s.st.resolveRef(r, ref)
	var cm *commit
	if ok {
		cm = s.st.commits[sha]
	} else {
		for _, x := range s.st.commits {
			if x.tree == ref && r.known[x.sha] {
				cm = x
				break
			}
		}
	}
	if cm == nil {
		return 0, nil, &apiError{status: http.StatusNotFound, message: "Not Found", docURL: c.rt.doc}
	}
	recursive := c.query("recursive") != ""
	base := c.base + "/repos/" + r.fullName() + "/git/"
	var entries []map[string]any
	dirs := map[string]bool{}
	for p := range cm.files {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		if !recursive && strings.Contains(d, "/") {
			continue
		}
		entries = append(entries, map[string]any{"path": d, "mode": "040000", "type": "tree", "sha": cm.dirs[d], "url": base + "trees/" + cm.dirs[d]})
	}
	for p, content := range cm.files {
		if !recursive && strings.Contains(p, "/") {
			continue
		}
		sha := blobSHA(content)
		en := map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": sha, "size": len(content), "url": base + "blobs/" + sha}
		switch kind, v := special(content); kind {
		case "symlink":
			en["mode"], en["size"] = "120000", len(v)
		case "submodule":
			en = map[string]any{"path": p, "mode": "160000", "type": "commit", "sha": v}
		}
		entries = append(entries, en)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i]["path"].(string) < entries[j]["path"].(string) })
	return http.StatusOK, map[string]any{"sha": cm.tree, "url": base + "trees/" + cm.tree, "tree": entries, "truncated": false}, nil
}

// getBlob serves GET /repos/{owner}/{repo}/git/blobs/{file_sha}: a blob
// of the repository, base64 in JSON, or its bytes with the raw media type.
func (s *Server) getBlob(c *call) (int, any, *apiError) {
	r, e := c.repoFor("contents", "read")
	if e != nil {
		return 0, nil, e
	}
	want := c.param("file_sha")
	for sha := range r.known {
		cm := s.st.commits[sha]
		if cm == nil {
			continue
		}
		for _, content := range cm.files {
			if blobSHA(content) != want {
				continue
			}
			data := content
			if kind, v := special(content); kind == "symlink" {
				data = v
			}
			accept := strings.ToLower(c.r.Header.Get("Accept"))
			if strings.Contains(accept, "raw") {
				return http.StatusOK, rawBody{contentType: "application/vnd.github.raw", data: []byte(data)}, nil
			}
			return http.StatusOK, map[string]any{"sha": want, "size": len(data), "url": c.base + "/repos/" + r.fullName() + "/git/blobs/" + want,
				"content": wrapBase64(data), "encoding": "base64", "node_id": ""}, nil
		}
	}
	return 0, nil, &apiError{status: http.StatusNotFound, message: "Not Found", docURL: c.rt.doc}
}

// specialContents answers a contents request that meets a symlink or a
// submodule (the path itself or a folder on the way); handled is false
// for everything else, which getContents serves.
func (s *Server) specialContents(c *call, r *repository, ref string, cm *commit, p string) (status int, body any, e *apiError, handled bool) {
	segs := strings.Split(p, "/")
	for i := 1; i < len(segs); i++ {
		if kind, _ := special(cm.files[strings.Join(segs[:i], "/")]); kind != "" {
			return 0, nil, errNotFound(c.rt.doc), true
		}
	}
	content, ok := cm.files[p]
	if !ok {
		return 0, nil, nil, false
	}
	kind, v := special(content)
	switch kind {
	case "":
		return 0, nil, nil, false
	case "symlink":
		if t := path.Clean(path.Join(path.Dir(p), v)); !path.IsAbs(v) && t != ".." && !strings.HasPrefix(t, "../") {
			if tc, isFile := cm.files[t]; isFile {
				if tk, _ := special(tc); tk == "" {
					accept := strings.ToLower(c.r.Header.Get("Accept"))
					if strings.Contains(accept, "vnd.github.raw") || strings.Contains(accept, "vnd.github.v3.raw") {
						return http.StatusOK, rawBody{contentType: "application/vnd.github.raw", data: []byte(tc)}, nil, true
					}
					return http.StatusOK, s.contentFileJSON(r, ref, t, tc, c.base), nil, true
				}
			}
		}
		obj := s.contentFileJSON(r, ref, p, v, c.base)
		obj["type"], obj["target"] = "symlink", v
		obj["sha"] = blobSHA(content)
		delete(obj, "content")
		delete(obj, "encoding")
		return http.StatusOK, obj, nil, true
	default: // submodule
		obj := s.contentFileJSON(r, ref, p, "", c.base)
		obj["type"], obj["sha"], obj["size"] = "submodule", v, 0
		obj["submodule_git_url"] = "https://github.com/" + r.fullName() + "-" + path.Base(p) + ".git"
		delete(obj, "content")
		delete(obj, "encoding")
		obj["download_url"] = nil
		return http.StatusOK, obj, nil, true
	}
}
