package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/githubtest"
)

// TestServeRefusesAnUnwritableQueueDir: a queue directory that cannot be
// written — serve's default under a home on a read-only root file system,
// as in the image without a volume — stops the start with an error naming
// the directory and the way out. Before, the default fell back to memory
// with a warning, so the shipped chart answered 202 and lost the accepted
// jobs at its next restart (issue 20).
func TestServeRefusesAnUnwritableQueueDir(t *testing.T) {
	_, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	// A directory cannot be made under a regular file, whoever runs the
	// test (root ignores a read-only mode, not this).
	home := filepath.Join(t.TempDir(), "home")
	if err := os.WriteFile(home, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, isDefault := range []bool{true, false} {
		cfg := serveConfig{Listen: "127.0.0.1:0", OpsListen: "127.0.0.1:0", AppID: 1, AppSlug: "shipgate", PrivateKey: pemKey,
			WebhookSecrets: []string{"0123456789abcdef0123"}, Workers: 1, QueueSize: 10, GitHubURL: "http://127.0.0.1:1/",
			QueueDir: filepath.Join(home, ".local", "state", "shipgate", "queue"), QueueDirDefault: isDefault}
		cfg.Logger, _ = captureLogger()
		srv, err := startServer(context.Background(), cfg)
		if err == nil {
			_ = srv.shutdown(context.Background())
			t.Fatalf("default %v: serve started with an unwritable queue directory (the queue fell back to memory)", isDefault)
		}
		for _, want := range []string{"the job queue cannot be kept in " + cfg.QueueDir, "--queue-dir memory", "volume"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("default %v: error %q lacks %q", isDefault, err, want)
			}
		}
		if isDefault && !strings.Contains(err.Error(), "the default --queue-dir") {
			t.Errorf("error %q does not say the directory is the default", err)
		}
	}
}

// TestServeQueueDirFlag: through the CLI, no home and no --queue-dir is a
// usage error (exit 2, before: the queue went to memory), and an unwritable
// default home fails the start (exit 1).
func TestServeQueueDirFlag(t *testing.T) {
	dir := t.TempDir()
	_, pemKey, err := githubtest.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	keyFile, secretFile := filepath.Join(dir, "key.pem"), filepath.Join(dir, "secret")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secretFile, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fileHome := filepath.Join(dir, "home")
	if err := os.WriteFile(fileHome, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--app-id", "1", "--app-slug", "shipgate", "--private-key-file", keyFile, "--webhook-secret-file", secretFile,
		"--github-url", "http://127.0.0.1:1/", "--listen", "127.0.0.1:0", "--ops-listen", "127.0.0.1:0", "--log-format", "json"}
	// serve refuses SHIPGATE_* variables it does not read, and CI sets
	// several for the test harness (SHIPGATE_REQUIRE_REDIS, the agents'
	// caches): run with none of the caller's.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SHIPGATE_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Run("no home", func(t *testing.T) {
		t.Setenv("HOME", "")
		if d := defaultQueueDir(); d != "" {
			t.Fatalf("defaultQueueDir() = %q without a home, want none (serve asks for --queue-dir)", d)
		}
		code, _, stderr := runCLI(args...)
		if code != exitUsage || !strings.Contains(stderr, "no default --queue-dir") {
			t.Errorf("exit %d, stderr %q; want %d and \"no default --queue-dir\"", code, stderr, exitUsage)
		}
	})
	t.Run("home on a read-only file system", func(t *testing.T) {
		t.Setenv("HOME", fileHome)
		code, _, stderr := runCLI(args...)
		if code != exitFail || !strings.Contains(stderr, "the job queue cannot be kept in "+filepath.Join(fileHome, ".local", "state", "shipgate", "queue")) {
			t.Errorf("exit %d, stderr %q; want %d and the queue directory named", code, stderr, exitFail)
		}
	})
}
