package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffWritesEveryOutputInOneRun: --sarif-file, --markdown-file,
// --json-file and --github-output write the reports of the one comparison
// the run made (the Action's single run), beside the report on stdout.
func TestDiffWritesEveryOutputInOneRun(t *testing.T) {
	dir, git := gitRepo(t)
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(npm test)"]}}`)
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("checkout", "-q", "-b", "feature")
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`)
	out := t.TempDir()
	sarif, md, js, ghout := filepath.Join(out, "r.sarif"), filepath.Join(out, "r.md"), filepath.Join(out, "r.json"), filepath.Join(out, "gh")
	if err := os.WriteFile(ghout, []byte("earlier=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text, errs := runCLI("diff", "--repo", dir, "--base", "main", "--fail-on", "block", "--color", "never",
		"--sarif-file", sarif, "--markdown-file", md, "--json-file", js, "--github-output", ghout)
	if code != 1 || !strings.Contains(text, "Decision: block") {
		t.Fatalf("exit %d, want 1 with the text report on stdout\n%s\n%s", code, text, errs)
	}
	var s struct {
		Version string
		Runs    []json.RawMessage
	}
	if b, err := os.ReadFile(sarif); err != nil || json.Unmarshal(b, &s) != nil || s.Version != "2.1.0" || len(s.Runs) != 1 {
		t.Errorf("SARIF file: %v %+v", err, s)
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "Agent permission review") {
		t.Errorf("Markdown file: %v %q", err, b)
	}
	if b, err := os.ReadFile(js); err != nil || decisionOf(t, string(b)) != "block" {
		t.Errorf("JSON file: %v %q", err, b)
	}
	if b, err := os.ReadFile(ghout); err != nil || string(b) != "earlier=1\ndecision=block\nsarif-file="+sarif+"\n" {
		t.Errorf("GitHub output file (appended to): %v %q", err, b)
	}
	// --fail-on never: the report, exit 0, as the Action's input allows.
	if code, _, errs := runCLI("diff", "--repo", dir, "--base", "main", "--fail-on", "never"); code != 0 {
		t.Errorf("--fail-on never: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("diff", "--repo", dir, "--base", "main", "--fail-on", "sometimes"); code != 2 || !strings.Contains(errs, "never") {
		t.Errorf("a bad --fail-on: exit %d %q", code, errs)
	}
	if code, _, errs := runCLI("diff", "--repo", dir, "--base", "main", "--sarif-file", filepath.Join(out, "no", "such", "dir", "x")); code != 2 || !strings.Contains(errs, "sarif") {
		t.Errorf("an unwritable --sarif-file: exit %d %q", code, errs)
	}
}

// TestDiffOnly: --only DIR reviews the agent configuration under DIR
// (a monorepo job per folder), while the repository's policy applies.
func TestDiffOnly(t *testing.T) {
	dir, git := gitRepo(t)
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(npm test)"]}}`)
	writeFile(t, dir, "web/.claude/settings.json", `{"permissions":{"allow":["Bash(npm test)"]}}`)
	writeFile(t, dir, "webapp/.claude/settings.json", `{"permissions":{"allow":["Bash(npm test)"]}}`)
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("checkout", "-q", "-b", "feature")
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`)
	writeFile(t, dir, "webapp/.claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`)

	files := func(args ...string) (string, []string) {
		t.Helper()
		code, out, errs := runCLI(append([]string{"diff", "--repo", dir, "--base", "main", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("diff %v: exit %d %s", args, code, errs)
		}
		var r struct {
			Files []struct{ Path string }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, f := range r.Files {
			ps = append(ps, f.Path)
		}
		return decisionOf(t, out), ps
	}
	if d, ps := files("--only", filepath.Join(dir, "web")); d != "allow" || len(ps) != 0 {
		t.Errorf("--only web: %s %v; want allow and no file (webapp/ is another folder)", d, ps)
	}
	if d, ps := files("--only", filepath.Join(dir, "webapp")); d != "block" || len(ps) != 1 || ps[0] != "webapp/.claude/settings.json" {
		t.Errorf("--only webapp: %s %v", d, ps)
	}
	if d, ps := files("--only", dir); d != "block" || len(ps) != 2 {
		t.Errorf("--only the root: %s %v", d, ps)
	}
	if code, _, errs := runCLI("diff", "--repo", dir, "--base", "main", "--only", t.TempDir()); code != 2 || !strings.Contains(errs, "outside the repository") {
		t.Errorf("--only outside: exit %d %q", code, errs)
	}
}

// TestReproduceQuotes: the Reproduce line can be pasted into a shell: a
// repository path with a space keeps --repo and is quoted.
func TestReproduceQuotes(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "sp ace", "it's")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	gitIn := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(npm test)"]}}`)
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "base")
	writeFile(t, dir, ".claude/settings.json", `{"permissions":{"allow":["Bash(npm *)"]}}`)
	_, out, errs := runCLI("diff", "--repo", dir, "--base", "HEAD")
	var line string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "Reproduce: "); ok {
			line = rest
		}
	}
	if line == "" {
		t.Fatalf("no Reproduce line:\n%s\n%s", out, errs)
	}
	// The shell must read back exactly the words: print them one a line.
	got, err := exec.Command("sh", "-c", "printf '%s\\n' "+strings.TrimPrefix(line, "shipgate ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(words) != 5 || words[0] != "diff" || words[1] != "--repo" || words[2] != dir || words[3] != "--base" {
		t.Errorf("Reproduce %q reads back as %q", line, words)
	}
	for _, tc := range []struct{ in, want string }{{"plain/path.json", "plain/path.json"}, {"a b", "'a b'"}, {"it's", `'it'\''s'`}, {"", "''"}, {"$HOME", "'$HOME'"}} {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestCheckBinaryFile: a settings file replaced by binary data is a parse
// failure whose advice says so, not a repair of its first bytes
// (`To fix it: write "K"`).
func TestCheckBinaryFile(t *testing.T) {
	dir := t.TempDir()
	for i, data := range [][]byte{
		append([]byte("jfPx"), 0, 1, 2, 0xfe, 'a'),
		append([]byte("{\"permissions\": K"), 0, 0, 7),
	} {
		f := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI("check", "--head", f, "--path", ".claude/settings.json", "--color", "never")
		if code != 0 || !strings.Contains(out, "CONFIG-PARSE-FAILED") || !strings.Contains(out, "binary data") || strings.Contains(out, `write "`) {
			t.Errorf("case %d: exit %d; want a parse failure that calls the file binary, no write advice:\n%s%s", i, code, out, errs)
		}
	}
}
