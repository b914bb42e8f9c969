package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func decisionOf(t *testing.T, out string) string {
	t.Helper()
	var r struct {
		Schema   string `json:"schema"`
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	if r.Schema != "shipgate.report/v1" {
		t.Fatalf("schema %q", r.Schema)
	}
	return r.Decision
}

func TestCheckCLI(t *testing.T) {
	dir := t.TempDir()
	base := writeFile(t, dir, "base.json", `{"permissions":{"allow":["Bash(npm test:*)"],"deny":["Read(.env)"]}}`)
	widen := writeFile(t, dir, "widen.json", `{"permissions":{"allow":["Bash(npm *)"],"deny":["Read(.env)"]}}`)
	block := writeFile(t, dir, "block.json", `{"permissions":{"allow":["Bash(npx *)"],"deny":["Read(.env)"]}}`)
	narrow := writeFile(t, dir, "narrow.json", `{"permissions":{"allow":["Bash(npm test)"],"deny":["Read(.env)"]}}`)
	broken := writeFile(t, dir, "broken.json", "{\n  // no comments in JSON\n}")
	mcp := writeFile(t, dir, "mcp.json", `{"mcpServers":{"db":{"command":"npx","args":["-y","db-mcp"],"env":{"TOKEN":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}}`)
	pol := writeFile(t, dir, "shipgate.yml", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    action: block\n")
	badPol := writeFile(t, dir, "bad.yml", "version: 1\nchekcs: {}\n")
	cases := []struct {
		name     string
		args     []string
		code     int
		decision string
		out, err string
	}{
		{"widening", []string{"--base", base, "--head", widen, "--format", "json"}, 0, "require_review", "npm publish", ""},
		{"fail-on review", []string{"--base", base, "--head", widen, "--fail-on", "review", "--format", "json"}, 1, "require_review", "", ""},
		{"fail-on block passes a review", []string{"--base", base, "--head", widen, "--fail-on", "block", "--format", "json"}, 0, "require_review", "", ""},
		{"block", []string{"--base", base, "--head", block, "--fail-on", "block", "--format", "json"}, 1, "block", "PERMISSION-WILDCARD-ALLOW", ""},
		{"narrowing", []string{"--base", base, "--head", narrow, "--format", "json"}, 0, "allow", `"direction": "narrowed"`, ""},
		{"new file", []string{"--base", "/dev/null", "--head", widen, "--format", "json"}, 0, "require_review", `"status": "added"`, ""},
		{"deleted file", []string{"--base", base, "--format", "json"}, 0, "require_review", "PERMISSION-DENY-REMOVED", ""},
		{"parse failure", []string{"--base", base, "--head", broken, "--format", "json"}, 0, "require_review", "CONFIG-PARSE-FAILED", ""},
		{"mcp server, no secret echoed", []string{"--head", mcp, "--path", ".mcp.json", "--format", "json"}, 0, "require_review", "MCP-SERVER-ADDED", ""},
		{"policy raises", []string{"--base", base, "--head", widen, "--policy", pol, "--format", "json"}, 0, "block", "", ""},
		{"text", []string{"--base", base, "--head", widen}, 0, "", "What this run established", ""},
		{"markdown", []string{"--base", base, "--head", widen, "--format", "markdown"}, 0, "", "| ", ""},
		{"sarif", []string{"--base", base, "--head", widen, "--format", "sarif"}, 0, "", `"version": "2.1.0"`, ""},
		{"missing file", []string{"--base", filepath.Join(dir, "nope.json"), "--head", widen}, 2, "", "", "does not exist"},
		{"no sides", []string{"--format", "json"}, 2, "", "", "give --base, --head or both"},
		{"bad path", []string{"--head", widen, "--path", "package.json"}, 2, "", "", "not an agent-config file"},
		{"bad format", []string{"--head", widen, "--format", "yaml"}, 2, "", "", "--format"},
		{"bad fail-on", []string{"--head", widen, "--fail-on", "warn"}, 2, "", "", "--fail-on"},
		{"bad policy", []string{"--head", widen, "--policy", badPol}, 2, "", "", "bad.yml:2"},
		{"positional", []string{"x.json"}, 2, "", "", "unexpected argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"check"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errs)
			}
			if c.decision != "" {
				if got := decisionOf(t, out); got != c.decision {
					t.Errorf("decision %s, want %s", got, c.decision)
				}
			}
			if c.out != "" && !strings.Contains(out, c.out) {
				t.Errorf("stdout does not contain %q:\n%s", c.out, out)
			}
			if c.err != "" && !strings.Contains(errs, c.err) {
				t.Errorf("stderr does not contain %q:\n%s", c.err, errs)
			}
			if strings.Contains(out, "ghp_abcdefghijklmnopqrstuvwxyz") {
				t.Errorf("a secret from the file reached the output")
			}
		})
	}
}

// gitRepo makes a real repository with a base on main and a feature
// branch, hermetic from the user's git configuration.
func gitRepo(t *testing.T) (string, func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	home := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	return dir, git
}

func TestDiffCLI(t *testing.T) {
	dir, git := gitRepo(t)
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(npm test:*)"],"deny":["Read(.env)"]}}`)
	writeFile(t, dir, "pkg/.claude/settings.json", `{"permissions":{"allow":["Bash(go test *)"]}}`)
	writeFile(t, dir, "README.md", "x\n")
	writeFile(t, dir, ".github/shipgate.yml", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED:\n    action: block\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("checkout", "-q", "-b", "feature")

	// Nothing changed yet.
	code, out, errs := runCLI("diff", "--repo", dir, "--base", "main", "--format", "json")
	if code != 0 || decisionOf(t, out) != "allow" {
		t.Fatalf("no change: exit %d %s %s", code, out, errs)
	}
	// A widening committed, a nested narrowing uncommitted, an untracked
	// .mcp.json (blocked by the base policy), a local deny that shadows.
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(npm *)"],"deny":["Read(.env)"]}}`)
	git("commit", "-q", "-am", "widen")
	writeFile(t, dir, "pkg/.claude/settings.json", `{"permissions":{"allow":["Bash(go test ./...)"]}}`)
	writeFile(t, dir, ".mcp.json", `{"mcpServers":{"db":{"command":"npx"}}}`)
	writeFile(t, dir, ".claude/settings.local.json", `{"permissions":{"deny":["Bash(npm publish *)"]}}`)
	// The head's policy would lower the block: it must not apply.
	writeFile(t, dir, ".github/shipgate.yml", "version: 1\n")
	code, out, errs = runCLI("diff", "--repo", dir, "--base", "main", "--format", "json", "--fail-on", "block")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (blocked by the base policy)\n%s\n%s", code, out, errs)
	}
	var r struct {
		Decision string `json:"decision"`
		Files    []struct{ Path, Status string }
		Changes  []struct {
			Path, Direction string
			Witnesses       []string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, f := range r.Files {
		paths[f.Path] = f.Status
	}
	want := map[string]string{".claude/settings.json": "compared", "pkg/.claude/settings.json": "compared", ".mcp.json": "added", ".claude/settings.local.json": "added"}
	for p, s := range want {
		if paths[p] != s {
			t.Errorf("%s: status %q, want %q (files %v)", p, paths[p], s, r.Files)
		}
	}
	for _, c := range r.Changes {
		for _, w := range c.Witnesses {
			if strings.HasPrefix(w, "npm publish") {
				t.Errorf("witness %q is denied by the new settings.local.json", w)
			}
		}
	}
	// Text output names the base and how to reproduce.
	code, out, _ = runCLI("diff", "--repo", dir, "--base", "main")
	if code != 0 || !strings.Contains(out, "Reproduce: shipgate diff --repo "+dir+" --base ") || !strings.Contains(out, "main (") {
		t.Errorf("text output: exit %d\n%s", code, out)
	}
}

func TestDiffCLIRefusals(t *testing.T) {
	dir, git := gitRepo(t)
	if code, _, errs := runCLI("diff", "--repo", dir, "--base", "main"); code != 2 || errs == "" {
		t.Errorf("a repository without commits: exit %d %q", code, errs)
	}
	writeFile(t, dir, "a.txt", "a\n")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	writeFile(t, dir, "a.txt", "b\n")
	git("commit", "-q", "-am", "two")
	if code, _, errs := runCLI("diff", "--repo", dir, "--base", "nope"); code != 2 || !strings.Contains(errs, "nope") {
		t.Errorf("unknown ref: exit %d %q", code, errs)
	}
	if code, _, errs := runCLI("diff", "--repo", t.TempDir()); code != 2 || errs == "" {
		t.Errorf("not a repository: exit %d %q", code, errs)
	}
	shallow := t.TempDir()
	cmd := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+dir, shallow)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	if code, _, errs := runCLI("diff", "--repo", shallow, "--base", "HEAD"); code != 2 || !strings.Contains(errs, "unshallow") {
		t.Errorf("shallow clone: exit %d %q", code, errs)
	}
}

func TestValidatePolicyCLI(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yml", "version: 1\nceiling:\n  allow: [\"Bash(npm *)\"]\nintent:\n  denied: [\"rm -rf /\"]\n")
	bad := writeFile(t, dir, "bad.yml", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW: {action: advisory}\nceiling:\n  allow: [\"Bash(npm *\"]\n")
	org := writeFile(t, dir, "org.yml", "version: 1\nreviewers:\n  block: [acme/security]\n")
	lower := writeFile(t, dir, "lower.yml", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED: {risk: low}\n")
	same := writeFile(t, dir, "same.yml", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED: {action: require_review, risk: critical}\n")
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{good}, 0, "valid: a ceiling of 1 allow rule and 0 must_deny rules"},
		{[]string{good, "--org", org}, 0, "; 1 intent; 1 reviewer team."},
		// Only lowers: valid, says nothing is raised, and says the lowering is ignored.
		{[]string{lower}, 0, "valid: the engine's defaults.\n" + lower + ": note: SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED: risk low is not above the check's default (high): a policy only raises, so it is ignored."},
		{[]string{same}, 0, "valid: 1 check raised.\n" + same + ": note: SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED: action require_review is the check's default; it changes nothing."},
		{[]string{bad}, 1, "bad.yml:3:"},
		{[]string{bad}, 1, "bad.yml:5:"},
		{[]string{filepath.Join(dir, "none.yml")}, 2, ""},
		{nil, 2, ""},
	}
	for _, c := range cases {
		code, out, errs := runCLI(append([]string{"validate-policy"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("validate-policy %v: exit %d %q %q", c.args, code, out, errs)
		}
	}
}
