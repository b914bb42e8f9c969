package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/diff"
)

// ttlEntry is a cached value read at a moving ref (the org default policy
// on the default branch of the org's .github repository).
type ttlEntry struct {
	v   diff.Version
	at  time.Time
	err error
}

// isSHA reports whether a ref is a full commit SHA (immutable content).
func isSHA(ref string) bool {
	if len(ref) != 40 {
		return false
	}
	for _, c := range ref {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// fetch reads one file at a ref (the organisation default policy, on a
// branch) through the contents API with the raw
// media type (which serves files up to 100 MB; the JSON form stops at
// 1 MB). A missing file is a Version that does not exist; a file over the
// engine's limit is reported, not read.
func (p *Worker) fetch(ctx context.Context, cl *github.Client, owner, repo, ref, path string) (diff.Version, error) {
	key := owner + "/" + repo + "@" + ref + ":" + path
	if isSHA(ref) {
		if v, ok := p.contents.Get(key); ok {
			return v.(diff.Version), nil
		}
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s", url.PathEscape(owner), url.PathEscape(repo), strings.Join(segs, "/"))
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	req, err := cl.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return diff.Version{}, err
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := cl.BareDo(ctx, req)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound &&
			!strings.HasPrefix(er.Message, "No commit found") {
			// The file is absent at ref. (A 404 "No commit found for the
			// ref" is not: the commit is unreadable, as a fork's head can
			// be; reading it as "file deleted" would turn a widening into a
			// removal, so it is an error the job retries and then reports.)
			v := diff.Version{}
			if isSHA(ref) {
				p.contents.Add(key, v, len(v.Data)+len(key))
			}
			return v, nil
		}
		return diff.Version{}, fmt.Errorf("reading %s at %s in %s/%s: %w", path, shortSHA(ref), owner, repo, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, diff.MaxFileSize+1))
	if err != nil {
		return diff.Version{}, fmt.Errorf("reading %s at %s in %s/%s: %w", path, shortSHA(ref), owner, repo, err)
	}
	v := diff.Version{Exists: true, Data: data}
	if len(data) > diff.MaxFileSize {
		v = diff.Version{Exists: true, TooLarge: true, Unreadable: fmt.Sprintf("the file is over the %d-byte limit; it was not read", diff.MaxFileSize)}
	}
	if strings.HasPrefix(strings.TrimSpace(string(data)), "[") && strings.Contains(resp.Header.Get("Content-Type"), "json") &&
		!strings.Contains(resp.Header.Get("Content-Type"), "raw") {
		// A directory listing came back: the path is a directory.
		v = diff.Version{Exists: true, Unreadable: "the path is a directory, not a file"}
	}
	if isSHA(ref) {
		p.contents.Add(key, v, len(v.Data)+len(key))
	}
	return v, nil
}

func shortSHA(s string) string {
	if len(s) > 8 && isSHA(s) {
		return s[:8]
	}
	return s
}
