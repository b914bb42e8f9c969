package main

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// maxTrackedSize is the largest file the repository may track unless it is
// source or test data: a stray 10 MB binary (depsprobe) once sat at the root
// and in every Docker build context.
const maxTrackedSize = 1 << 20

// sourceExt are the file kinds that count as source, whatever their size.
var sourceExt = map[string]bool{".go": true, ".mod": true, ".sum": true, ".md": true, ".yaml": true, ".yml": true,
	".json": true, ".tpl": true, ".txt": true, ".sh": true}

// largeFileAllowed reports whether a tracked file of this path may exceed
// maxTrackedSize: test data (under a testdata directory) or source.
func largeFileAllowed(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "testdata" {
			return true
		}
	}
	return sourceExt[path.Ext(p)]
}

// isExecutable reports whether data starts like a compiled program (ELF,
// Mach-O, PE, or a Mach-O universal binary).
func isExecutable(data []byte) bool {
	for _, magic := range [][]byte{{0x7f, 'E', 'L', 'F'}, {0xcf, 0xfa, 0xed, 0xfe}, {0xce, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe}, {'M', 'Z'}} {
		if bytes.HasPrefix(data, magic) {
			return true
		}
	}
	return false
}

func TestLargeFileRules(t *testing.T) {
	for p, want := range map[string]bool{
		"depsprobe": false, "bin/shipgate": false, "docs/big.png": false, "shipgate.tar.gz": false,
		"judge/testdata/golden/huge.txt": true, "lattice/testdata/fuzz/FuzzCovers/abc": true,
		"docs/policy.schema.json": true, "go.sum": true, "cmd/shipgate/e2e_test.go": true,
		"testdata.bin": false, "notestdata/x.bin": false,
	} {
		if got := largeFileAllowed(p); got != want {
			t.Errorf("largeFileAllowed(%s) = %v, want %v", p, got, want)
		}
	}
	for _, c := range []struct {
		data []byte
		want bool
	}{
		{[]byte("\x7fELF\x02\x01"), true}, {[]byte("MZ\x90\x00"), true}, {[]byte{0xcf, 0xfa, 0xed, 0xfe, 7}, true},
		{[]byte("package main\n"), false}, {[]byte("{}"), false}, {nil, false},
	} {
		if got := isExecutable(c.data); got != c.want {
			t.Errorf("isExecutable(%q) = %v", c.data, got)
		}
	}
}

// TestNoLargeOrBinaryTrackedFiles: no tracked file over 1 MB that is not
// source or test data, and no compiled program at all.
func TestNoLargeOrBinaryTrackedFiles(t *testing.T) {
	root, _ := filepath.Abs(repo)
	ls := exec.Command("git", "ls-files", "-z")
	ls.Dir = root
	out, err := ls.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	n := 0
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if p == "" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, p))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		n++
		if fi.Size() > maxTrackedSize && !largeFileAllowed(p) {
			t.Errorf("%s is tracked and %d bytes (over %d): build output and other binaries do not belong in the repository (git rm it; .gitignore and .dockerignore keep them out)", p, fi.Size(), maxTrackedSize)
		}
		f, err := os.Open(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		k, _ := f.Read(head)
		f.Close()
		if isExecutable(head[:k]) && !largeFileAllowed(p) {
			t.Errorf("%s is a compiled program: build output does not belong in the repository", p)
		}
	}
	if n < 50 {
		t.Errorf("only %d tracked files seen", n)
	}
}

// TestPreCommitHooks: every hook of .pre-commit-hooks.yaml runs `shipgate
// diff --staged` on every commit, and (with SHIPGATE_BINARY) the default
// hook's command fails a commit that stages a wildcard grant and passes one
// that stages none, in a real repository.
func TestPreCommitHooks(t *testing.T) {
	var hooks []struct {
		ID            string   `json:"id"`
		Name          string   `json:"name"`
		Description   string   `json:"description"`
		Entry         string   `json:"entry"`
		Language      string   `json:"language"`
		PassFilenames *bool    `json:"pass_filenames"`
		AlwaysRun     bool     `json:"always_run"`
		Stages        []string `json:"stages"`
		// MinimumVersion is pre-commit's own key: the stage name
		// `pre-commit` needs 3.2.0, and an older pre-commit says so.
		MinimumVersion string `json:"minimum_pre_commit_version"`
	}
	if err := yaml.UnmarshalStrict([]byte(read(t, ".pre-commit-hooks.yaml")), &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) == 0 || hooks[0].ID != "shipgate" {
		t.Fatalf("hooks %+v: want the first one to be shipgate", hooks)
	}
	for _, h := range hooks {
		if h.MinimumVersion != "3.2.0" {
			t.Errorf("hook %s: minimum_pre_commit_version %q, want \"3.2.0\" (stages: [pre-commit] needs it)", h.ID, h.MinimumVersion)
		}
		if !strings.HasPrefix(h.Entry, "shipgate diff --staged --fail-on ") {
			t.Errorf("hook %s: entry %q", h.ID, h.Entry)
		}
		if h.PassFilenames == nil || *h.PassFilenames || !h.AlwaysRun {
			t.Errorf("hook %s: want pass_filenames: false and always_run: true (a watched path must not be skipped)", h.ID)
		}
		if h.Language != "golang" && h.Language != "system" {
			t.Errorf("hook %s: language %s", h.ID, h.Language)
		}
	}
	bin := os.Getenv("SHIPGATE_BINARY")
	if bin == "" {
		t.Skip("SHIPGATE_BINARY is not set (deploy/ci.sh sets it)")
	}
	dir := t.TempDir()
	home := t.TempDir()
	run := func(name string, args ...string) (int, string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("git", "init", "-q", "-b", "main")
	write(".claude/settings.json", `{"permissions":{"allow":["Bash(npm test:*)"]}}`)
	run("git", "add", ".")
	run("git", "commit", "-q", "-m", "base")
	entry := strings.Fields(hooks[0].Entry)
	hook := func() (int, string) { return run(bin, entry[1:]...) }
	if code, out := hook(); code != 0 {
		t.Errorf("nothing staged: exit %d\n%s", code, out)
	}
	write(".claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`)
	if code, out := hook(); code != 0 {
		t.Errorf("an unstaged wildcard: exit %d (the commit does not contain it)\n%s", code, out)
	}
	run("git", "add", ".claude/settings.json")
	if code, out := hook(); code != 1 || !strings.Contains(out, "WILDCARD-ALLOW") {
		t.Errorf("a staged wildcard: exit %d, want 1\n%s", code, out)
	}
}
