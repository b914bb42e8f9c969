package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shipgate-app/shipgate/app"
)

func init() {
	examples["ledger"] = []string{
		"# every decision and approval in acme's repositories since the start of the year, as CSV",
		"SHIPGATE_APP_ID=123456 SHIPGATE_PRIVATE_KEY_FILE=/etc/shipgate/private-key.pem shipgate ledger --org acme --since 2026-01-01 --format csv",
		"# the same from a running App (serve --ledger-token-file)",
		"curl -H \"Authorization: Bearer $(cat ledger-token)\" 'https://shipgate.example.com/ledger?org=acme&since=2026-01-01'",
	}
}

// runLedger prints the decision ledger of an organisation: every Shipgate
// decision and approval across the repositories the App's installation
// reaches, read back from GitHub's check runs and reviews.
func runLedger(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("ledger", "--org ORG [--since DATE] [--format jsonl|csv]", stderr)
	org := fs.String("org", "", "the organisation (or account) the App is installed on")
	since := fs.String("since", "", "leave out decisions and approvals before DATE (2026-01-31 or RFC 3339)")
	format := fs.String("format", "jsonl", "jsonl (one JSON object a line) or csv")
	appID := fs.String("app-id", os.Getenv("SHIPGATE_APP_ID"), "GitHub App ID (SHIPGATE_APP_ID)")
	keyFile := fs.String("private-key-file", os.Getenv("SHIPGATE_PRIVATE_KEY_FILE"), "PEM file of the App's private key (SHIPGATE_PRIVATE_KEY_FILE; or SHIPGATE_PRIVATE_KEY with the PEM itself)")
	ghURL := fs.String("github-url", envOr("SHIPGATE_GITHUB_URL", "https://api.github.com/"), "GitHub REST API URL (SHIPGATE_GITHUB_URL)")
	checkName := fs.String("check-name", "shipgate", "the check run's name")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "ledger", "unexpected argument %q", pos[0])
	}
	if *org == "" {
		return usageError(stderr, "ledger", "--org is required: the organisation whose repositories to list")
	}
	t, err := parseSince(*since)
	if err != nil {
		return usageError(stderr, "ledger", "--since %q: %v", *since, err)
	}
	w, err := app.NewLedgerWriter(stdout, *format)
	if err != nil {
		return usageError(stderr, "ledger", "--format: %v", err)
	}
	id, err := strconv.ParseInt(strings.TrimSpace(*appID), 10, 64)
	if err != nil || id <= 0 {
		return usageError(stderr, "ledger", "--app-id %q: give the GitHub App's numeric ID (SHIPGATE_APP_ID)", *appID)
	}
	key, err := readPrivateKey(*keyFile, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil || len(key) == 0 {
		return usageError(stderr, "ledger", "private key: %v", orMissing(err, "set --private-key-file or SHIPGATE_PRIVATE_KEY_FILE"))
	}
	// Progress on stderr: a large organisation takes a while, and GitHub's
	// rate limits may make the walk wait minutes (Retry-After).
	tr := &app.Transport{Sleep: func(ctx context.Context, d time.Duration) error {
		fmt.Fprintf(stderr, "shipgate ledger: GitHub asks to wait (rate limit): waiting %s, then retrying\n", d.Round(time.Second))
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	clients, err := app.NewClients(id, key, *ghURL, tr)
	if err != nil {
		fmt.Fprintf(stderr, "shipgate ledger: %v\n", err)
		return exitFail
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	rows := 0
	progress := func(repo string, done, total int) {
		fmt.Fprintf(stderr, "shipgate ledger: %s (repository %d of %d; %d rows so far)\n", repo, done+1, total, rows)
	}
	emit := func(e app.LedgerEntry) error { rows++; return w.Write(e) }
	if err := clients.Ledger(ctx, app.LedgerOptions{Org: *org, Since: t, CheckName: *checkName, Progress: progress}, emit); err != nil {
		w.Flush()
		fmt.Fprintf(stderr, "shipgate ledger: %v\n", err)
		return exitFail
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "shipgate ledger: %v\n", err)
		return exitFail
	}
	return exitOK
}

// parseSince reads a --since value: a date (midnight UTC) or an RFC 3339
// time; empty is no bound.
func parseSince(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, errors.New("give a date (2026-01-31) or an RFC 3339 time (2026-01-31T12:00:00Z)")
	}
	return t, nil
}

// ledgerHandler serves GET /ledger?org=ORG[&since=DATE][&format=jsonl|csv]:
// the ledger of runLedger from the running App. It is authenticated by a
// bearer token (serve --ledger-token-file; the endpoint is off without
// one): the ledger names every repository and reviewer of an organisation,
// so it is not for anyone who can reach the webhook. Tokens are compared
// by their SHA-256 in constant time.
func ledgerHandler(clients *app.Clients, tokens []string, log *slog.Logger) http.Handler {
	sums := make([][32]byte, len(tokens))
	for i, t := range tokens {
		sums[i] = sha256.Sum256([]byte(t))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		match := 0
		for _, s := range sums {
			match |= subtle.ConstantTimeCompare(got[:], s[:])
		}
		if !ok || match != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="shipgate ledger"`)
			http.Error(w, "a ledger token is required (Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
		q := r.URL.Query()
		org := q.Get("org")
		if org == "" {
			http.Error(w, "org is required", http.StatusBadRequest)
			return
		}
		since, err := parseSince(q.Get("since"))
		if err != nil {
			http.Error(w, "since: "+err.Error(), http.StatusBadRequest)
			return
		}
		format := q.Get("format")
		lw, err := app.NewLedgerWriter(w, format)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ct := "application/x-ndjson"
		if format == "csv" {
			ct = "text/csv; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		wrote := false
		err = clients.Ledger(r.Context(), app.LedgerOptions{Org: org, Since: since}, func(e app.LedgerEntry) error {
			wrote = true
			return lw.Write(e)
		})
		if err != nil {
			log.Warn("ledger request failed", "org", org, "error", err)
			if !wrote {
				http.Error(w, "reading the ledger from GitHub failed: "+err.Error(), http.StatusBadGateway)
				return
			}
			// Rows already went out: the body ends without the rest. A
			// trailer-less stream cannot say more than stopping.
			return
		}
		if err := lw.Flush(); err != nil {
			log.Warn("ledger response not written", "error", err)
		}
	})
}

// readLedgerTokens returns the ledger endpoint's bearer tokens: the lines
// of file (one a line, to rotate), or else SHIPGATE_LEDGER_TOKEN. None
// leaves the endpoint off. A token shorter than 16 characters is refused,
// and so is a file every user may read (readSecretFile).
func readLedgerTokens(file string, log *slog.Logger) ([]string, error) {
	var raw []string
	if file == "" {
		if v := strings.TrimSpace(os.Getenv("SHIPGATE_LEDGER_TOKEN")); v != "" {
			raw = []string{v}
		}
	} else {
		b, err := readSecretFile(file, "ledger token", log)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				raw = append(raw, l)
			}
		}
	}
	for _, t := range raw {
		if len(t) < 16 {
			return nil, errors.New("a ledger token must be at least 16 characters")
		}
	}
	return raw, nil
}
