package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/githubtest"
)

const ledgerToken = "ledger-token-0123456789abcdef"

// ledgerCLI runs `shipgate ledger` against the env's fake GitHub with the
// App's own credentials.
func (e *e2eEnv) ledgerCLI(args ...string) (string, string, int) {
	e.t.Helper()
	key := filepath.Join(e.t.TempDir(), "key.pem")
	if err := os.WriteFile(key, e.srv.cfg.PrivateKey, 0o600); err != nil {
		e.t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(append([]string{"ledger", "--app-id", "1", "--private-key-file", key, "--github-url", e.gh.URL() + "/"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func parseLedger(t *testing.T, s string) []app.LedgerEntry {
	t.Helper()
	var rows []app.LedgerEntry
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var e app.LedgerEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("ledger line %q: %v", l, err)
		}
		rows = append(rows, e)
	}
	return rows
}

// TestE2ELedger: over a fake organisation with several repositories, the
// ledger lists every decision (decision, findings by check ID, delta) and
// every approval (who, when, the delta it approved), read back from
// GitHub's check runs and reviews — by the CLI and by the App's
// authenticated endpoint alike, as JSON lines and as CSV.
func TestE2ELedger(t *testing.T) {
	t.Parallel()
	env := newE2E(t, func(s *e2eSetup) { s.cfg.LedgerTokens = []string{ledgerToken} })
	env.repo("alpha", map[string]string{".claude/settings.json": baseSettings, ".github/shipgate.yml": policyReviewers, "README.md": "# a\n"})
	env.repo("beta", map[string]string{".claude/settings.json": baseSettings, "README.md": "# b\n"})
	env.repo("gamma", map[string]string{"README.md": "# c\n"})
	if err := env.gh.SetTeamMembership(e2eOwner, "security", "alice", "member", "active"); err != nil {
		t.Fatal(err)
	}
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	a1 := env.openPR("alpha", "widen", map[string]string{".claude/settings.json": widen})
	env.waitCompleted("alpha", a1.HeadSHA, 1)
	env.review("alpha", a1.Number, "alice", "APPROVED", a1.HeadSHA)
	if run := env.waitCompleted("alpha", a1.HeadSHA, 2); run.Conclusion != "success" {
		t.Fatalf("alice's approval: %s %q", run.Conclusion, run.Title)
	}
	block := settingsJSON(append(append([]string(nil), baseAllow...), "Bash(npx:*)"), baseDeny)
	b1 := env.openPR("beta", "npx", map[string]string{".claude/settings.json": block})
	b2 := env.openPR("beta", "docs", map[string]string{"README.md": "# b\n\nmore\n"})
	env.waitCompleted("beta", b1.HeadSHA, 1)
	env.waitCompleted("beta", b2.HeadSHA, 1)
	env.waitJobs(4)

	out, errs, code := env.ledgerCLI("--org", e2eOwner)
	if code != 0 {
		t.Fatalf("ledger exit %d: %s", code, errs)
	}
	rows := parseLedger(t, out)
	if len(rows) != 5 {
		t.Fatalf("%d ledger rows, want 5 (alpha#1: two decisions and an approval; beta#1 and beta#2 one decision each):\n%s", len(rows), out)
	}
	digest := regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	byKey := map[string][]app.LedgerEntry{}
	for i, r := range rows {
		byKey[r.Repository+"#"+r.Kind] = append(byKey[r.Repository+"#"+r.Kind], r)
		if i > 0 && rows[i-1].Repository > r.Repository {
			t.Errorf("rows not grouped by repository: %s after %s", r.Repository, rows[i-1].Repository)
		}
		if r.At.IsZero() || r.Head == "" || r.PR == 0 {
			t.Errorf("row without time, head or pull request: %+v", r)
		}
	}
	ad := byKey[e2eOwner+"/alpha#decision"]
	if len(ad) != 2 || ad[0].Decision != "require_review" || ad[1].Decision != "allow" || ad[1].Cleared != 1 ||
		ad[0].Findings["SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"] != 1 || !digest.MatchString(ad[0].Delta) || ad[0].Delta != ad[1].Delta ||
		ad[0].Head != a1.HeadSHA || ad[0].Conclusion != "action_required" || ad[0].CheckRunID == 0 {
		t.Errorf("alpha's decisions: %+v", ad)
	}
	aa := byKey[e2eOwner+"/alpha#approval"]
	if len(aa) != 1 || aa[0].Reviewer != "alice" || aa[0].State != "APPROVED" || aa[0].Head != a1.HeadSHA || len(ad) == 0 || aa[0].Delta != ad[0].Delta {
		t.Errorf("alpha's approval: %+v", aa)
	}
	bd := byKey[e2eOwner+"/beta#decision"]
	if len(bd) != 2 {
		t.Fatalf("beta's decisions: %+v", bd)
	}
	var blockRow, docsRow app.LedgerEntry
	for _, r := range bd {
		if r.PR == b1.Number {
			blockRow = r
		} else {
			docsRow = r
		}
	}
	if blockRow.Decision != "block" || blockRow.Findings["SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW"] != 1 || blockRow.Conclusion != "failure" {
		t.Errorf("beta#%d: %+v", b1.Number, blockRow)
	}
	if docsRow.PR != b2.Number || docsRow.Decision != "allow" || docsRow.Conclusion != "success" || len(docsRow.Findings) != 0 {
		t.Errorf("beta#%d: %+v", b2.Number, docsRow)
	}

	// CSV: a header and the same rows.
	out, errs, code = env.ledgerCLI("--org", e2eOwner, "--format", "csv")
	if code != 0 {
		t.Fatalf("ledger csv exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 || strings.Join(recs[0], ",") != strings.Join(app.LedgerColumns, ",") || recs[1][1] != e2eOwner+"/alpha" || recs[5][1] != e2eOwner+"/beta" {
		t.Errorf("csv ledger:\n%s", out)
	}

	// --since after everything: no rows (and a CSV header alone).
	out, _, code = env.ledgerCLI("--org", e2eOwner, "--since", time.Now().Add(48*time.Hour).Format("2006-01-02"))
	if code != 0 || strings.TrimSpace(out) != "" {
		t.Errorf("--since tomorrow: exit %d, %q", code, out)
	}
	if _, errs, code := env.ledgerCLI("--org", "nobody"); code == 0 || !strings.Contains(errs, "installation") {
		t.Errorf("an org without the App: exit %d, %q", code, errs)
	}
	if _, _, code := env.ledgerCLI(); code != exitUsage {
		t.Errorf("no --org: exit %d, want %d", code, exitUsage)
	}

	// The App's endpoint: the bearer token is required, the rows are the same.
	get := func(token, query string) (int, string) {
		req, _ := http.NewRequest("GET", env.srv.URL()+"/ledger?"+query, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("", "org="+e2eOwner); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := get("wrong-token-0123456789", "org="+e2eOwner); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", code)
	}
	if code, _ := get(ledgerToken, ""); code != http.StatusBadRequest {
		t.Errorf("no org: %d, want 400", code)
	}
	code, body := get(ledgerToken, "org="+e2eOwner)
	if code != http.StatusOK {
		t.Fatalf("the endpoint: %d %s", code, body)
	}
	cli, _, _ := env.ledgerCLI("--org", e2eOwner)
	if body != cli {
		t.Errorf("the endpoint and the CLI differ:\n%s\n---\n%s", body, cli)
	}
}

// TestLedgerEndpointOff: without a token the App serves no ledger.
func TestLedgerEndpointOff(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	resp, err := http.Get(env.srv.URL() + "/ledger?org=" + e2eOwner)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("GET /ledger without a configured token: %d", resp.StatusCode)
	}
	if _, err := readLedgerTokens(writeTemp(t, "short\n"), captureLoggerOnly()); err == nil {
		t.Error("a 5-character ledger token was accepted")
	}
	toks, err := readLedgerTokens(writeTemp(t, "\n"+ledgerToken+"\n  other-token-0123456789  \n"), captureLoggerOnly())
	if err != nil || len(toks) != 2 || toks[1] != "other-token-0123456789" {
		t.Errorf("tokens %q, %v", toks, err)
	}
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestE2ELedgerProgress: walking an organisation, the ledger says on
// stderr which repository it reads (of how many) and, when GitHub's rate
// limit makes it wait (Retry-After), how long — stdout keeps the rows only.
func TestE2ELedgerProgress(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	env.repo("alpha", map[string]string{".claude/settings.json": baseSettings})
	env.repo("beta", map[string]string{".claude/settings.json": baseSettings})
	p := env.openPR("beta", "widen", map[string]string{".claude/settings.json": settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)})
	env.waitCompleted("beta", p.HeadSHA, 1)
	env.waitJobs(1)
	env.gh.Inject(githubtest.Fault{Method: "GET", PathPattern: "/repos/{owner}/{repo}/pulls", SecondaryLimit: true, RetryAfter: time.Second})
	out, errs, code := env.ledgerCLI("--org", e2eOwner)
	if code != 0 || len(parseLedger(t, out)) != 1 {
		t.Fatalf("ledger exit %d, rows:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		"shipgate ledger: " + e2eOwner + "/alpha (repository 1 of 2; 0 rows so far)",
		"shipgate ledger: " + e2eOwner + "/beta (repository 2 of 2; 0 rows so far)",
		"shipgate ledger: GitHub asks to wait (rate limit): waiting 1s, then retrying",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
