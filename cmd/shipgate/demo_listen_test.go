package main

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestDemoListenPrintsSecret: `demo --listen` prints the webhook secret
// (here the one given with --secret), so a user can sign deliveries of
// their own: one signed with it is accepted, one signed otherwise refused.
func TestDemoListenPrintsSecret(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := demoStop
	demoStop = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { demoStop = old }()

	r, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := runDemo([]string{"--listen", "127.0.0.1:0", "--secret", "my demo secret, 24 chars"}, nil, w, io.Discard)
		w.Close()
		done <- code
	}()
	var appURL, secret string
	lines := bufio.NewScanner(r)
	for lines.Scan() && (appURL == "" || secret == "") {
		l := lines.Text()
		if rest, ok := strings.CutPrefix(l, "Serving: the App on "); ok {
			appURL, _, _ = strings.Cut(rest, ",")
		}
		if rest, ok := strings.CutPrefix(l, "Webhook secret: "); ok {
			secret = rest
		}
	}
	go io.Copy(io.Discard, r) //nolint:errcheck // drain the rest of the output
	if appURL == "" || secret != "my demo secret, 24 chars" {
		cancel()
		t.Fatalf("demo --listen printed App %q, secret %q (exit %d)", appURL, secret, <-done)
	}
	send := func(key string) int {
		body := `{"zen":"hi","hook_id":1}`
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write([]byte(body))
		req, _ := http.NewRequest(http.MethodPost, appURL+"/webhook", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", "ping")
		req.Header.Set("X-GitHub-Delivery", "3f1c2a9e-0000-4000-8000-000000000001")
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send(secret); code >= 300 {
		t.Errorf("a delivery signed with the printed secret: HTTP %d", code)
	}
	if code := send("another secret"); code < 400 {
		t.Errorf("a delivery signed with another secret: HTTP %d, want refused", code)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("demo exit %d", code)
	}
}
