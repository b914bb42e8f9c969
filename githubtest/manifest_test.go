package githubtest

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v62/github"
)

func TestManifestConversion(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	manifest := []byte(`{"name":"Shipgate Dev","url":"https://shipgate.example","hook_attributes":{"url":"https://hooks.example/webhook"},
		"default_events":["pull_request","check_run"],"default_permissions":{"checks":"write","contents":"read","metadata":"read"}}`)
	code := f.srv.IssueManifestCode(manifest)

	// The conversion needs no authentication; go-github's client is used bare.
	bare := github.NewClient(&http.Client{Transport: f.vt})
	bare.BaseURL, _ = url.Parse(f.srv.URL() + "/")
	cfg, _, err := bare.Apps.CompleteAppManifest(ctx, code)
	must(t, err)
	if cfg.GetSlug() != "shipgate-dev" || cfg.GetName() != "Shipgate Dev" || cfg.GetPEM() == "" || cfg.GetWebhookSecret() == "" ||
		cfg.GetClientID() == "" || cfg.GetClientSecret() == "" || cfg.GetOwner().GetLogin() == "" || cfg.GetNodeID() == "" {
		t.Fatalf("conversion %+v", cfg)
	}

	// JWTs signed with the returned key now verify as the new app.
	atr, err := ghinstallation.NewAppsTransport(f.vt, cfg.GetID(), []byte(cfg.GetPEM()))
	must(t, err)
	atr.BaseURL = f.srv.URL()
	app := github.NewClient(&http.Client{Transport: atr})
	app.BaseURL, _ = url.Parse(f.srv.URL() + "/")
	got, _, err := app.Apps.Get(ctx, "")
	must(t, err)
	if got.GetID() != cfg.GetID() || got.GetPermissions().GetChecks() != "write" {
		t.Errorf("new app %+v", got)
	}

	cases := []struct {
		name   string
		code   func() string
		status int
	}{
		{"used twice", func() string { return code }, 404},
		{"unknown", func() string { return "nope" }, 404},
		{"expired after an hour", func() string {
			c := f.srv.IssueManifestCode(manifest)
			f.clock.Advance(time.Hour)
			return c
		}, 404},
		{"within the hour", func() string {
			c := f.srv.IssueManifestCode(manifest)
			f.clock.Advance(59 * time.Minute)
			return c
		}, 201},
		{"manifest without url", func() string { return f.srv.IssueManifestCode([]byte(`{"name":"x"}`)) }, 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if resp, body := f.do("POST", "/app-manifests/"+tc.code()+"/conversions", "", nil, nil); resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.status, clip(body))
			}
		})
	}
}
