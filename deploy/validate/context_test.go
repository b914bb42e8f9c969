package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ignoreRule is one line of .dockerignore, as Docker's pattern matcher
// reads it: a path pattern relative to the context root (* within a
// segment, ** across segments), "!" re-including; the last matching rule
// wins, and a rule matching a directory matches everything under it.
type ignoreRule struct {
	re     *regexp.Regexp
	negate bool
}

func parseDockerignore(text string) []ignoreRule {
	var rules []ignoreRule
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, strings.TrimSpace(line[1:])
		}
		line = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(line)), "/")
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '*' && i+1 < len(line) && line[i+1] == '*':
				re.WriteString(".*")
				i++
				if i+1 < len(line) && line[i+1] == '/' {
					re.WriteString("/?")
					i++
				}
			case c == '*':
				re.WriteString("[^/]*")
			case c == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("$")
		r.re = regexp.MustCompile(re.String())
		rules = append(rules, r)
	}
	return rules
}

// excluded reports whether the context leaves out path (slash-separated).
func excluded(rules []ignoreRule, path string) bool {
	out := false
	for _, r := range rules {
		match := false
		for p := path; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
			if r.re.MatchString(p) {
				match = true
				break
			}
		}
		if match {
			out = !r.negate
		}
	}
	return out
}

func TestDockerignoreMatching(t *testing.T) {
	rules := parseDockerignore("# c\n.git\nbin\n*.pem\n**/testdata/fuzz\ndocs\n*.md\n!README.md\n")
	for path, want := range map[string]bool{
		".git/config": true, "bin/shipgate": true, "key.pem": true, "sub/key.pem": false,
		"jsonpos/testdata/fuzz/FuzzParse/x": true, "judge/testdata/golden/a": false,
		"docs/operations.md": true, "CHANGES.md": true, "README.md": false, "go.mod": false,
		"githubtest/payloads/ping.json": false,
	} {
		if got := excluded(rules, path); got != want {
			t.Errorf("excluded(%s) = %v, want %v", path, got, want)
		}
	}
}

// TestDockerContextBuilds copies the files the image's build context holds
// (the repository minus .dockerignore) and runs deploy/build.sh there, as
// the Dockerfile's build stage does: a file the build needs (an embedded
// payload, say) that .dockerignore leaves out fails here instead of in the
// image build. Slow (a full build); deploy/ci.sh sets SHIPGATE_CONTEXT_CHECK.
func TestDockerContextBuilds(t *testing.T) {
	if os.Getenv("SHIPGATE_CONTEXT_CHECK") == "" {
		t.Skip("set SHIPGATE_CONTEXT_CHECK=1 (deploy/ci.sh does)")
	}
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	ls := exec.Command("git", "ls-files", "-co", "--exclude-standard")
	ls.Dir = root
	out, err := ls.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	rules := parseDockerignore(read(t, ".dockerignore"))
	ctx := t.TempDir()
	copied := 0
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f == "" || excluded(rules, f) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		fi, _ := os.Stat(filepath.Join(root, f))
		dst := filepath.Join(ctx, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		copied++
	}
	build := exec.Command("sh", "./deploy/build.sh")
	build.Dir = ctx
	build.Env = append(os.Environ(), "VERSION=context-check", "OUT="+filepath.Join(ctx, "out", "shipgate"))
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building from the %d files of the Docker context: %v\n%s", copied, err, b)
	}
	v, err := exec.Command(filepath.Join(ctx, "out", "shipgate"), "version").Output()
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(v)), "shipgate context-check (commit unknown, ") {
		t.Errorf("the context's binary says %q (%v)", v, err)
	}
}
