package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func captureLogger() (*slog.Logger, *lockedBuffer) {
	buf := &lockedBuffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

// TestReadWebhookSecrets: commas are part of a secret, lines separate
// secrets, short secrets are refused naming where they came from, and the
// environment variables are gone once read.
func TestReadWebhookSecrets(t *testing.T) {
	const a, b = "0123456789abcdef0123", "fedcba9876543210,with,commas"
	dir := t.TempDir()
	writeMode := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	write := func(name, content string) string { return writeMode(name, content, 0o600) }
	cases := []struct {
		name      string
		file      string
		env, prev string
		want      []string
		wantErr   string
		wantWarn  string
	}{
		{name: "env, one secret with commas", env: b, want: []string{b}, wantWarn: "ONE secret"},
		{name: "env plus previous", env: a, prev: b, want: []string{a, b}},
		{name: "env with trailing newline", env: a + "\n", want: []string{a}},
		{name: "env, two lines", env: a + "\n" + b, want: []string{a, b}},
		{name: "env too short", env: "hunter2", wantErr: "SHIPGATE_WEBHOOK_SECRET line 1: the secret has 7 characters; use at least 16"},
		{name: "previous too short", env: a, prev: "short", wantErr: "SHIPGATE_WEBHOOK_SECRET_PREVIOUS: the secret has 5 characters"},
		{name: "file, one per line, CRLF and blanks", file: write("s1", a+"\r\n\r\n  "+b+"  \n"), want: []string{a, b}},
		{name: "file wins over env", file: write("s2", a+"\n"), env: b, want: []string{a}},
		{name: "file line too short", file: write("s3", a+"\nabc\n"), wantErr: "s3 line 2: the secret has 3 characters"},
		{name: "nothing", want: nil},
		// Anyone on the host who reads the secret can forge deliveries:
		// refused as a world-readable private key is (issue 20 §7).
		{name: "file readable by every user", file: writeMode("s4", a+"\n", 0o644), wantErr: "readable by every user of this machine (mode 0644)"},
		{name: "file writable by every user", file: writeMode("s5", a+"\n", 0o602), wantErr: "mode 0602"},
		{name: "file readable by its group", file: writeMode("s6", a+"\n", 0o440), want: []string{a}, wantWarn: "webhook secret file is readable by its group"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SHIPGATE_WEBHOOK_SECRET", tc.env)
			t.Setenv("SHIPGATE_WEBHOOK_SECRET_PREVIOUS", tc.prev)
			log, logs := captureLogger()
			got, err := readWebhookSecrets(tc.file, log)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("secrets %q, want %q", got, tc.want)
			}
			if tc.wantWarn != "" && !strings.Contains(logs.String(), tc.wantWarn) {
				t.Fatalf("no warning containing %q in %s", tc.wantWarn, logs)
			}
			for _, k := range []string{"SHIPGATE_WEBHOOK_SECRET", "SHIPGATE_WEBHOOK_SECRET_PREVIOUS"} {
				if _, set := os.LookupEnv(k); set {
					t.Errorf("%s still in the environment", k)
				}
			}
		})
	}
}

// TestReadPrivateKey: a world-readable key file is refused, a
// group-readable one warned about, and SHIPGATE_PRIVATE_KEY is removed from
// the environment once read.
func TestReadPrivateKey(t *testing.T) {
	dir := t.TempDir()
	pem := "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"
	for _, tc := range []struct {
		mode     os.FileMode
		wantErr  string
		wantWarn bool
	}{
		{0o600, "", false},
		{0o400, "", false},
		{0o440, "", true},
		{0o640, "", true},
		{0o644, "readable by every user of this machine (mode 0644)", false},
		{0o604, "mode 0604", false},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			p := filepath.Join(dir, "key-"+tc.mode.String()+".pem")
			if err := os.WriteFile(p, []byte(pem), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			log, logs := captureLogger()
			got, err := readPrivateKey(p, log)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != pem {
				t.Fatalf("got %q, %v", got, err)
			}
			if warned := strings.Contains(logs.String(), "readable by its group"); warned != tc.wantWarn {
				t.Fatalf("warned %v, want %v: %s", warned, tc.wantWarn, logs)
			}
		})
	}
	t.Run("env", func(t *testing.T) {
		t.Setenv("SHIPGATE_PRIVATE_KEY", pem)
		log, _ := captureLogger()
		got, err := readPrivateKey("", log)
		if err != nil || string(got) != pem {
			t.Fatalf("got %q, %v", got, err)
		}
		if _, set := os.LookupEnv("SHIPGATE_PRIVATE_KEY"); set {
			t.Fatal("SHIPGATE_PRIVATE_KEY still in the environment after reading")
		}
	})
}

// captureLoggerOnly is captureLogger's logger, for tests that do not read the lines.
func captureLoggerOnly() *slog.Logger { l, _ := captureLogger(); return l }
