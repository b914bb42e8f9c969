package githubtest

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

var otherKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, _, err := GenerateAppKey()
	if err != nil {
		panic(err)
	}
	return k
})

func signJWT(t *testing.T, key any, method jwt.SigningMethod, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	must(t, err)
	return s
}

func TestJWTAuthentication(t *testing.T) {
	f := newFixture(t)
	now := f.clock.Now()
	unix := func(d time.Duration) int64 { return now.Add(d).Unix() }
	rs := jwt.SigningMethodRS256
	cases := []struct {
		name    string
		auth    string
		status  int
		message string
	}{
		{"recommended claims", "Bearer " + f.jwt(), 200, ""},
		{"token scheme", "token " + f.jwt(), 200, ""},
		{"iss as a number", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": testAppID, "iat": unix(-time.Minute), "exp": unix(5 * time.Minute)}), 200, ""},
		{"iss as the client ID", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": fmt.Sprintf("Iv1.%016x", testAppID), "iat": unix(0), "exp": unix(time.Minute)}), 200, ""},
		{"iat within the 60 s skew", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": unix(30 * time.Second), "exp": unix(5 * time.Minute)}), 200, ""},
		{"exp exactly 10 minutes ahead", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": unix(-time.Minute), "exp": unix(10 * time.Minute)}), 200, ""},
		{"wrong key", "Bearer " + signJWT(t, otherKey(), rs, jwt.MapClaims{"iss": "4242", "iat": unix(0), "exp": unix(time.Minute)}), 401, msgJWTUndecodable},
		{"HS256", "Bearer " + signJWT(t, []byte("k"), jwt.SigningMethodHS256, jwt.MapClaims{"iss": "4242", "iat": unix(0), "exp": unix(time.Minute)}), 401, msgJWTUndecodable},
		{"malformed", "Bearer a.b.c", 401, msgJWTUndecodable},
		{"unknown app", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "999", "iat": unix(0), "exp": unix(time.Minute)}), 401, msgJWTUndecodable},
		{"iss not a number", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "shipgate", "iat": unix(0), "exp": unix(time.Minute)}), 401, msgJWTIss},
		{"expired", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": unix(-11 * time.Minute), "exp": unix(-time.Minute)}), 401, msgJWTExpired},
		{"exp too far ahead", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": unix(0), "exp": unix(11 * time.Minute)}), 401, msgJWTTooFar},
		{"iat in the future", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": unix(2 * time.Minute), "exp": unix(5 * time.Minute)}), 401, msgJWTIat},
		{"fractional iat", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": float64(unix(0)) + 0.5, "exp": unix(time.Minute)}), 401, msgJWTIat},
		{"no exp", "Bearer " + signJWT(t, f.key, rs, jwt.MapClaims{"iss": "4242", "iat": unix(0)}), 401, msgJWTExpired},
		{"no credentials", "", 401, "Requires authentication"},
		{"installation token", "token " + f.token(), 401, msgJWTUndecodable},
		{"unknown scheme", "Basic dXNlcjpwYXNz", 401, "Bad credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.do("GET", "/app", tc.auth, nil, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.message != "" {
				if got := decode(t, body)["message"]; got != tc.message {
					t.Errorf("message %q, want %q", got, tc.message)
				}
			}
		})
	}
}

func TestInstallationTokens(t *testing.T) {
	f := newFixture(t)
	createRepo(t, f.srv, RepoOptions{Owner: "acme", Name: "secret", Private: true, Files: map[string]string{"a": "1\n"}})
	createRepo(t, f.srv, RepoOptions{Owner: "acme", Name: "public", Files: map[string]string{"a": "1\n"}})
	createRepo(t, f.srv, RepoOptions{Owner: "other", Name: "thing", Private: true, Files: map[string]string{"a": "1\n"}})

	t.Run("created with a JWT, one hour, installation's permissions", func(t *testing.T) {
		resp, body := f.do("POST", fmt.Sprintf("/app/installations/%d/access_tokens", f.inst.ID), "Bearer "+f.jwt(), nil, nil)
		if resp.StatusCode != 201 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		m := decode(t, body)
		if !strings.HasPrefix(m["token"].(string), "ghs_") {
			t.Errorf("token %v", m["token"])
		}
		if want := ts(f.clock.Now().Add(time.Hour)); m["expires_at"] != want {
			t.Errorf("expires_at %v, want %s", m["expires_at"], want)
		}
		if m["repository_selection"] != "selected" || m["permissions"].(map[string]any)["checks"] != "write" {
			t.Errorf("token body %s", body)
		}
	})

	tok := "token " + f.token()
	scoping := []struct {
		name, method, path, auth string
		body                     any
		status                   int
	}{
		{"installed private repo", "GET", "/repos/acme/widgets", tok, nil, 200},
		{"Bearer scheme", "GET", "/repos/acme/widgets", strings.Replace(tok, "token ", "Bearer ", 1), nil, 200},
		{"private repo outside the installation", "GET", "/repos/acme/secret", tok, nil, 404},
		{"other organisation's private repo", "GET", "/repos/other/thing", tok, nil, 404},
		{"public repo outside the installation, read", "GET", "/repos/acme/public", tok, nil, 200},
		{"public repo outside the installation, write", "POST", "/repos/acme/public/check-runs", tok, map[string]any{"name": "x", "head_sha": "0000000"}, 403},
		{"anonymous, private", "GET", "/repos/acme/widgets", "", nil, 404},
		{"anonymous, public", "GET", "/repos/acme/public", "", nil, 200},
		{"anonymous write", "POST", "/repos/acme/public/check-runs", "", map[string]any{"name": "x", "head_sha": "0000000"}, 401},
		{"unknown token", "GET", "/repos/acme/widgets", "token ghs_nope", nil, 401},
		{"JWT on a repository route", "GET", "/repos/acme/widgets", "Bearer " + f.jwt(), nil, 403},
		{"no such repository", "GET", "/repos/acme/nope", tok, nil, 404},
	}
	for _, tc := range scoping {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.do(tc.method, tc.path, tc.auth, tc.body, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
		})
	}

	t.Run("narrowed to repositories and permissions", func(t *testing.T) {
		in, _, err := f.srv.Install(InstallationOptions{Account: "acme", AllRepositories: true})
		must(t, err)
		path := fmt.Sprintf("/app/installations/%d/access_tokens", in.ID)
		resp, body := f.do("POST", path, "Bearer "+f.jwt(), map[string]any{"repositories": []string{"widgets"}, "permissions": map[string]string{"metadata": "read", "checks": "read"}}, nil)
		if resp.StatusCode != 201 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		m := decode(t, body)
		narrowed := "token " + m["token"].(string)
		if m["repository_selection"] != "selected" || len(m["repositories"].([]any)) != 1 {
			t.Errorf("narrowed token body %s", body)
		}
		if resp, _ := f.do("GET", "/repos/acme/secret", narrowed, nil, nil); resp.StatusCode != 404 {
			t.Errorf("narrowed token reads acme/secret: %d", resp.StatusCode)
		}
		if resp, _ := f.do("GET", "/repos/acme/widgets", narrowed, nil, nil); resp.StatusCode != 200 {
			t.Errorf("narrowed token cannot read acme/widgets: %d", resp.StatusCode)
		}
		if resp, _ := f.do("POST", "/repos/acme/widgets/check-runs", narrowed, map[string]any{"name": "x", "head_sha": "abc"}, nil); resp.StatusCode != 403 {
			t.Errorf("checks:read token created a check run: %d", resp.StatusCode)
		}
		if resp, _ := f.do("GET", "/repos/acme/widgets/pulls", narrowed, nil, nil); resp.StatusCode != 403 {
			t.Errorf("token without pull_requests read listed pulls: %d", resp.StatusCode)
		}
		for _, bad := range []map[string]any{
			{"repositories": []string{"thing"}},
			{"repository_ids": []int64{1}},
			{"permissions": map[string]string{"administration": "write"}},
			{"permissions": map[string]string{"contents": "write"}},
		} {
			if resp, body := f.do("POST", path, "Bearer "+f.jwt(), bad, nil); resp.StatusCode != 422 {
				t.Errorf("token request %v: status %d: %s", bad, resp.StatusCode, body)
			}
		}
	})

	t.Run("another app's installation", func(t *testing.T) {
		code := f.srv.IssueManifestCode([]byte(`{"name":"Other App","url":"https://other.example"}`))
		resp, body := f.do("POST", "/app-manifests/"+code+"/conversions", "", nil, nil)
		if resp.StatusCode != 201 {
			t.Fatalf("conversion: %d %s", resp.StatusCode, body)
		}
		other := int64(decode(t, body)["id"].(float64))
		in, _, err := f.srv.Install(InstallationOptions{AppID: other, Account: "acme", Repositories: []string{"widgets"}})
		must(t, err)
		if resp, _ := f.do("POST", fmt.Sprintf("/app/installations/%d/access_tokens", in.ID), "Bearer "+f.jwt(), nil, nil); resp.StatusCode != 404 {
			t.Errorf("app minted a token for another app's installation: %d", resp.StatusCode)
		}
	})

	t.Run("expires after one hour", func(t *testing.T) {
		tok := "token " + f.token()
		f.clock.Advance(59 * time.Minute)
		if resp, _ := f.do("GET", "/repos/acme/widgets", tok, nil, nil); resp.StatusCode != 200 {
			t.Fatalf("token dead before its hour: %d", resp.StatusCode)
		}
		f.clock.Advance(time.Minute)
		resp, body := f.do("GET", "/repos/acme/widgets", tok, nil, nil)
		if resp.StatusCode != http.StatusUnauthorized || decode(t, body)["message"] != "Bad credentials" {
			t.Fatalf("expired token: %d %s", resp.StatusCode, body)
		}
	})
}
