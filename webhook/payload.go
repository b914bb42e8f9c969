package webhook

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// The structs below are the only parts of GitHub's webhook payloads that
// Shipgate reads. Decoding into them (instead of go-github's complete event
// types) means a field Shipgate never uses cannot fail a delivery — GitHub's
// own check_run.rerequested examples spell an app's timestamps
// "2018-04-25 20:42:10", which go-github's Timestamp refuses — and it costs
// a fraction of the CPU and allocations: encoding/json skips unknown fields
// without building them.
//
// Every id and name taken from a payload is checked by validate* before a job
// carries it, because they end up in GitHub API paths built with fmt.Sprintf
// (go-github does not escape path segments: an owner of ".." would walk the
// URL up).

type hookInstallation struct {
	ID      int64 `json:"id"`
	Account struct {
		Login string `json:"login"`
	} `json:"account"`
}

type hookUser struct {
	Login string `json:"login"`
}

type hookRepo struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
	Owner    struct {
		Login string `json:"login"`
		Name  string `json:"name"` // push payloads also carry owner.name
	} `json:"owner"`
	DefaultBranch string `json:"default_branch"`
}

type hookRef struct {
	SHA  string `json:"sha"`
	Repo struct {
		ID int64 `json:"id"`
	} `json:"repo"`
}

type hookPR struct {
	Number int     `json:"number"`
	Head   hookRef `json:"head"`
	Base   hookRef `json:"base"`
}

type hookApp struct {
	ID int64 `json:"id"`
}

// hookCommon holds the fields every routed event shares.
type hookCommon struct {
	Action       string            `json:"action"`
	Installation *hookInstallation `json:"installation"`
	Sender       hookUser          `json:"sender"`
	Repository   hookRepo          `json:"repository"`
}

type hookPullRequest struct {
	hookCommon
	Number      int    `json:"number"`
	PullRequest hookPR `json:"pull_request"`
	Changes     *struct {
		// Base is present (an object) when the base branch changed.
		Base *struct{} `json:"base"`
	} `json:"changes"`
}

type hookReview struct {
	hookCommon
	PullRequest hookPR `json:"pull_request"`
}

type hookCheck struct {
	ID           int64    `json:"id"`
	HeadSHA      string   `json:"head_sha"`
	App          hookApp  `json:"app"`
	PullRequests []hookPR `json:"pull_requests"`
}

type hookCheckRun struct {
	hookCommon
	CheckRun hookCheck `json:"check_run"`
}

type hookCheckSuite struct {
	hookCommon
	CheckSuite hookCheck `json:"check_suite"`
}

type hookCommit struct {
	Added    []string `json:"added"`
	Modified []string `json:"modified"`
	Removed  []string `json:"removed"`
}

type hookPush struct {
	hookCommon
	Ref        string       `json:"ref"`
	After      string       `json:"after"`
	Deleted    bool         `json:"deleted"`
	Commits    []hookCommit `json:"commits"`
	HeadCommit *hookCommit  `json:"head_commit"`
}

type hookInstallationEvent struct {
	Action       string            `json:"action"`
	Installation *hookInstallation `json:"installation"`
	Sender       hookUser          `json:"sender"`
	// Only counted: struct{} elements decode without allocating fields.
	Repositories        []struct{} `json:"repositories"`
	RepositorySelection string     `json:"repository_selection"`
	RepositoriesAdded   []struct{} `json:"repositories_added"`
	RepositoriesRemoved []struct{} `json:"repositories_removed"`
}

// decodeHook decodes body into v, naming the event in the error.
func decodeHook(event string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: decode %s payload: %v", errBadPayload, event, err)
	}
	return nil
}

// GitHub's naming rules, as far as they matter for building API paths.
var (
	// An account login: letters, digits, hyphens; underscores appear in
	// Enterprise Managed Users' logins (name_shortcode). Never a dot or a
	// slash. GitHub caps logins at 39 characters.
	ownerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$`)
	// A repository name: letters, digits, '.', '-', '_', at most 100;
	// "." and ".." are reserved.
	repoPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	// A commit id: SHA-1 (40 hex digits) or SHA-256 (64).
	shaPattern = regexp.MustCompile(`^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$`)
)

// validOwner reports whether s can be a GitHub account login.
func validOwner(s string) bool { return ownerPattern.MatchString(s) }

// validRepoName reports whether s can be a GitHub repository name.
func validRepoName(s string) bool {
	return s != "." && s != ".." && repoPattern.MatchString(s)
}

// validSHA reports whether s is a full commit id.
func validSHA(s string) bool { return shaPattern.MatchString(s) }

// quoteName renders an untrusted name for an error message: quoted,
// truncated, control characters escaped.
func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// checkRepoNames validates an owner and repository name taken from a payload.
func checkRepoNames(owner, name string) error {
	if owner == "" || name == "" {
		return fmt.Errorf("%w: repository owner or name missing", errBadPayload)
	}
	if !validOwner(owner) {
		return fmt.Errorf("%w: repository owner %s is not a GitHub account name", errBadPayload, quoteName(owner))
	}
	if !validRepoName(name) {
		return fmt.Errorf("%w: repository name %s is not a GitHub repository name", errBadPayload, quoteName(name))
	}
	return nil
}

// checkSHA validates a commit id taken from a payload; empty is allowed
// where the caller says so (the worker then reads the head from GitHub).
func checkSHA(what, sha string, required bool) error {
	if sha == "" {
		if required {
			return fmt.Errorf("%w: %s missing", errBadPayload, what)
		}
		return nil
	}
	if !validSHA(sha) {
		return fmt.Errorf("%w: %s %s is not a commit id", errBadPayload, what, quoteName(sha))
	}
	return nil
}
