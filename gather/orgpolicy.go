package gather

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// OrgPolicy is the organisation default policy as read from the default
// branch of the organisation's policy repository: Policy is nil when the
// file is absent or broken, Errs holds its errors with positions (or why
// it could not be read), Exists says whether the file is there.
type OrgPolicy struct {
	Policy *policy.Policy
	Errs   []*policy.Error
	Exists bool
}

// ReadOrgPolicy reads owner/repo:path on the repository's default branch
// (the organisation default policy, which Options.Org carries into a
// gather) and parses it. It reads through the contents API with the raw
// media type, as the gatherer reads every file, so a file up to
// report.MaxFileSize is read whole and a larger one is reported, not read.
// A missing repository or file is an OrgPolicy that does not exist; any
// other failure is an error (the job retries, then reports it).
func ReadOrgPolicy(ctx context.Context, cl *github.Client, owner, repo, path string) (OrgPolicy, error) {
	name := owner + "/" + repo + ":" + path
	data, ctype, err := readRaw(ctx, cl, contentsURL(owner, repo, "", path))
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return OrgPolicy{}, nil
		}
		return OrgPolicy{}, fmt.Errorf("reading %s on the default branch of %s/%s: %w", path, owner, repo, err)
	}
	switch {
	case len(data) > report.MaxFileSize:
		return OrgPolicy{Exists: true, Errs: []*policy.Error{{Path: name, Msg: fmt.Sprintf("the file is over the %d-byte limit; it was not read", report.MaxFileSize)}}}, nil
	case strings.HasPrefix(strings.TrimSpace(string(data)), "[") && strings.Contains(ctype, "json") && !strings.Contains(ctype, "raw"):
		// A directory listing came back: the path is a directory.
		return OrgPolicy{Exists: true, Errs: []*policy.Error{{Path: name, Msg: "the path is a directory, not a file"}}}, nil
	}
	pol, errs := parsePolicy(name, data)
	return OrgPolicy{Policy: pol, Errs: errs, Exists: true}, nil
}

// readRaw GETs a contents URL with the raw media type (which serves files
// up to 100 MB; the JSON form stops at 1 MB), reading at most
// report.MaxFileSize+1 bytes, and returns them with the response's
// Content-Type.
func readRaw(ctx context.Context, cl *github.Client, u string) ([]byte, string, error) {
	req, err := cl.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := cl.BareDo(ctx, req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, report.MaxFileSize+1))
	if err != nil {
		return nil, "", err
	}
	return data, resp.Header.Get("Content-Type"), nil
}
