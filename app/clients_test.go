package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/githubtest"
)

// TestInstallationTokenRefreshedOnce: a 401 on an installation request
// mints one new token and resends the request once; a 401 that persists is
// returned (no loop, one extra token per rejected token).
func TestInstallationTokenRefreshedOnce(t *testing.T) {
	key, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(githubtest.Options{AppID: 7, AppSlug: "shipgate", AppPublicKey: &key.PublicKey})
	if gh.Err() != nil {
		t.Fatal(gh.Err())
	}
	defer gh.Close()
	if _, err := gh.CreateRepo(githubtest.RepoOptions{Owner: "acme", Name: "w", Files: map[string]string{"a": "b\n"}}); err != nil {
		t.Fatal(err)
	}
	inst, _, err := gh.Install(githubtest.InstallationOptions{Account: "acme", AllRepositories: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClients(7, pemKey, gh.URL()+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	refreshed := 0
	c.OnTokenRefresh(func(int64) { refreshed++ })
	cl, err := c.Installation(inst.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	get := func() (int, error) {
		_, resp, err := cl.Repositories.Get(ctx, "acme", "w")
		if resp == nil {
			return 0, err
		}
		return resp.StatusCode, err
	}
	mints := func() int {
		n := 0
		for _, rc := range gh.Requests() {
			if strings.Contains(rc.Route, "access_tokens") {
				n += rc.Count
			}
		}
		return n
	}
	if code, err := get(); code != 200 {
		t.Fatalf("first request: %d %v", code, err)
	}
	gh.RevokeInstallationTokens(inst.ID)
	if code, err := get(); code != 200 || refreshed != 1 || mints() != 2 {
		t.Fatalf("after revocation: %d %v; %d refreshes, %d tokens minted; want 200, 1, 2", code, err, refreshed, mints())
	}
	// GitHub keeps answering 401 (say, the installation is suspended): the
	// request is sent twice, then the 401 is the answer.
	gh.Inject(githubtest.Fault{Method: "GET", PathPattern: "/repos/{owner}/{repo}", Status: http.StatusUnauthorized, Times: 2})
	code, err := get()
	var ge *github.ErrorResponse
	if code != http.StatusUnauthorized || !errors.As(err, &ge) {
		t.Fatalf("persistent 401: %d %v", code, err)
	}
	if refreshed != 2 || mints() != 3 || len(gh.PendingFaults()) != 0 {
		t.Fatalf("persistent 401: %d refreshes, %d tokens, %d faults left; want 2, 3, 0", refreshed, mints(), len(gh.PendingFaults()))
	}
	if code, _ := get(); code != 200 {
		t.Fatalf("after the 401s: %d", code)
	}
}
