package gitrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testTmp holds everything the tests create outside t.TempDir: the fake
// HOME and, when benchmarks run, the generated huge repository.
var testTmp string

// TestMain makes every git the tests run (fixtures and the package's own)
// hermetic: a fresh HOME and XDG_CONFIG_HOME so no developer's global
// config applies, no system config, no inherited repository variables, and
// a ceiling so discovery never climbs out of the temp directory.
func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "gitrepo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	testTmp = tmp
	for _, k := range []string{
		"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
		"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
	} {
		os.Unsetenv(k)
	}
	home := filepath.Join(tmp, "home")
	xdg := filepath.Join(tmp, "xdg")
	for _, d := range []string{home, xdg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	ceiling, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		ceiling = os.TempDir()
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", xdg)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CEILING_DIRECTORIES", ceiling)
	return m.Run()
}

// gitT runs git in dir for a test fixture and returns its trimmed output.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitInput(t, dir, nil, args...)
}

func gitInput(t testing.TB, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// initRepo creates an empty repository with a local identity and main as
// the initial branch.
func initRepo(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "-c", "init.defaultBranch=main", "init", "-q")
	gitT(t, dir, "config", "user.name", "Shipgate Test")
	gitT(t, dir, "config", "user.email", "test@shipgate.invalid")
	gitT(t, dir, "config", "init.defaultBranch", "main")
	gitT(t, dir, "config", "commit.gpgsign", "false")
	return dir
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitT(t, dir, "rev-parse", "HEAD")
}

func mustOpen(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return r
}

// shipgatePaths are the pathspecs the diff command passes.
var shipgatePaths = []string{
	":(glob)**/.claude/settings*.json",
	":(glob)**/.mcp.json",
	".github/shipgate.yml",
}
