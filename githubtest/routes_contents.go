package githubtest

import (
	"encoding/base64"
	"net/http"
	"path"
	"sort"
	"strings"
)

// Contents API size limits: the JSON representation carries files up to
// 1 MB; the raw media type serves files up to 100 MB.
const (
	maxJSONContent = 1 << 20
	maxRawContent  = 100 << 20
)

// getContents serves GET /repos/{owner}/{repo}/contents/{path}?ref=.
//
// Files: JSON with base64 content (wrapped at 60 characters, as GitHub
// does) up to 1 MB; between 1 MB and 100 MB an empty content with encoding
// "none"; the raw media types (application/vnd.github.raw, .v3.raw,
// .raw+json) return the bytes up to 100 MB. Directories: an array of
// entries, or with the object media type an object with `entries`.
func (s *Server) getContents(c *call) (int, any, *apiError) {
	r, e := c.repoFor("contents", "read")
	if e != nil {
		return 0, nil, e
	}
	ref := c.query("ref")
	sha, ok := s.st.resolveRef(r, ref)
	if !ok {
		if ref == "" {
			return 0, nil, &apiError{status: http.StatusNotFound, message: "This repository is empty.", docURL: c.rt.doc}
		}
		return 0, nil, &apiError{status: http.StatusNotFound, message: "No commit found for the ref " + ref, docURL: c.rt.doc}
	}
	if ref == "" {
		ref = r.defaultBranch
	}
	cm := s.st.commits[sha]
	p := strings.Trim(c.param("path"), "/")
	accept := strings.ToLower(c.r.Header.Get("Accept"))
	raw := strings.Contains(accept, "vnd.github.raw") || strings.Contains(accept, "vnd.github.v3.raw")
	object := strings.Contains(accept, "vnd.github.object")

	if st, body, e, ok := s.specialContents(c, r, ref, cm, p); ok { // symlinks, submodules: routes_trees.go
		return st, body, e
	}
	if content, isFile := cm.files[p]; isFile {
		if len(content) > maxRawContent {
			return 0, nil, &apiError{
				status:  http.StatusForbidden,
				message: "This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API.",
				docURL:  c.rt.doc,
				errors:  []fieldError{{Resource: "Blob", Field: "data", Code: "too_large"}},
			}
		}
		if raw {
			ct := "application/vnd.github.raw"
			if strings.Contains(accept, "vnd.github.v3.raw") {
				ct = "application/vnd.github.v3.raw"
			}
			return http.StatusOK, rawBody{contentType: ct, data: []byte(content)}, nil
		}
		return http.StatusOK, s.contentFileJSON(r, ref, p, content, c.base), nil
	}
	entries, isDir := s.dirEntries(cm, p)
	if !isDir {
		return 0, nil, errNotFound(c.rt.doc)
	}
	list := make([]any, 0, len(entries))
	for _, en := range entries {
		list = append(list, s.contentEntryJSON(r, ref, cm, en, c.base))
	}
	if object {
		obj := s.contentEntryJSON(r, ref, cm, dirEntry{path: p, dir: true}, c.base)
		obj["entries"] = list
		return http.StatusOK, obj, nil
	}
	return http.StatusOK, list, nil
}

type dirEntry struct {
	path string
	dir  bool
}

// dirEntries lists the direct children of directory p ("" is the root).
func (s *Server) dirEntries(cm *commit, p string) ([]dirEntry, bool) {
	prefix := ""
	if p != "" {
		prefix = p + "/"
	}
	seen := map[string]bool{}
	var out []dirEntry
	found := p == ""
	for f := range cm.files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		found = true
		name, _, nested := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, dirEntry{path: prefix + name, dir: nested})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, found
}

func (s *Server) contentURLs(r *repository, ref, p string, dir bool, sha, base string) (self, git, html string, download any) {
	repoURL := base + "/repos/" + r.fullName()
	self = repoURL + "/contents/" + escapePath(p) + "?ref=" + ref
	if dir {
		git = repoURL + "/git/trees/" + sha
		html = s.opts.HTMLURL + "/" + r.fullName() + "/tree/" + ref + "/" + escapePath(p)
		return self, git, html, nil
	}
	git = repoURL + "/git/blobs/" + sha
	html = s.opts.HTMLURL + "/" + r.fullName() + "/blob/" + ref + "/" + escapePath(p)
	download = s.opts.HTMLURL + "/" + r.fullName() + "/raw/" + ref + "/" + escapePath(p)
	return self, git, html, download
}

// contentFileJSON renders content-file.
func (s *Server) contentFileJSON(r *repository, ref, p, content, base string) map[string]any {
	sha := blobSHA(content)
	self, git, html, download := s.contentURLs(r, ref, p, false, sha, base)
	encoded, encoding := "", "none"
	if len(content) <= maxJSONContent {
		encoded, encoding = wrapBase64(content), "base64"
	}
	return map[string]any{
		"type":         "file",
		"encoding":     encoding,
		"size":         len(content),
		"name":         path.Base(p),
		"path":         p,
		"content":      encoded,
		"sha":          sha,
		"url":          self,
		"git_url":      git,
		"html_url":     html,
		"download_url": download,
		"_links":       map[string]any{"self": self, "git": git, "html": html},
	}
}

// contentEntryJSON renders one item of content-directory.
func (s *Server) contentEntryJSON(r *repository, ref string, cm *commit, en dirEntry, base string) map[string]any {
	typ, size, sha := "file", 0, ""
	if en.dir {
		typ, sha = "dir", cm.dirs[en.path]
	} else {
		size, sha = len(cm.files[en.path]), blobSHA(cm.files[en.path])
	}
	self, git, html, download := s.contentURLs(r, ref, en.path, en.dir, sha, base)
	name := path.Base(en.path)
	if en.path == "" {
		name = ""
	}
	return map[string]any{
		"type":         typ,
		"size":         size,
		"name":         name,
		"path":         en.path,
		"sha":          sha,
		"url":          self,
		"git_url":      git,
		"html_url":     html,
		"download_url": download,
		"_links":       map[string]any{"self": self, "git": git, "html": html},
	}
}

// wrapBase64 encodes as GitHub does: standard base64, a newline after
// every 60 characters and at the end.
func wrapBase64(content string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(content))
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60])
		b.WriteByte('\n')
		enc = enc[60:]
	}
	if enc != "" {
		b.WriteString(enc)
		b.WriteByte('\n')
	}
	return b.String()
}
