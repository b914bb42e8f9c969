package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type stagedReport struct {
	Decision string `json:"decision"`
	Files    []struct {
		Path, Status string
	} `json:"files"`
	Changes []struct {
		Path, Direction, After string
	} `json:"changes"`
	Findings []struct {
		CheckID string `json:"check_id"`
	} `json:"findings"`
}

func stagedJSON(t *testing.T, dir string, extra ...string) (int, stagedReport, string) {
	t.Helper()
	code, out, errs := runCLI(append([]string{"diff", "--staged", "--repo", dir, "--format", "json"}, extra...)...)
	var r stagedReport
	if code != exitUsage {
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("not JSON (exit %d): %v\n%s\n%s", code, err, out, errs)
		}
	}
	return code, r, errs
}

// TestDiffStaged: `shipgate diff --staged` (the pre-commit hook) compares
// the index with HEAD in a real git repository: staged edits count,
// unstaged edits and untracked files do not, HEAD's policy applies.
func TestDiffStaged(t *testing.T) {
	dir, git := gitRepo(t)
	settings := ".claude/settings.json"

	// Before the first commit: a staged settings file is new.
	writeFile(t, dir, settings, `{"permissions":{"allow":["Bash(npx *)"]}}`)
	git("add", settings)
	code, r, errs := stagedJSON(t, dir, "--fail-on", "block")
	if code != exitFail || r.Decision != "block" || len(r.Files) != 1 || r.Files[0].Status != "added" {
		t.Fatalf("first commit: exit %d %+v %s", code, r, errs)
	}

	writeFile(t, dir, settings, `{"permissions":{"allow":["Bash(npm test:*)"],"deny":["Read(.env)"]}}`)
	writeFile(t, dir, ".github/shipgate.yml", "version: 1\nchecks:\n  PERMISSION-ALLOW-EXPANDED:\n    action: block\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")

	// Nothing staged.
	if code, r, errs := stagedJSON(t, dir); code != 0 || r.Decision != "allow" || len(r.Changes) != 0 {
		t.Fatalf("clean: exit %d %+v %s", code, r, errs)
	}

	// An unstaged widening and an untracked settings file: not in the commit.
	writeFile(t, dir, settings, `{"permissions":{"allow":["Bash(*)"],"deny":["Read(.env)"]}}`)
	writeFile(t, dir, "sub/.claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`)
	if code, r, errs := stagedJSON(t, dir, "--fail-on", "review"); code != 0 || r.Decision != "allow" || len(r.Changes) != 0 {
		t.Fatalf("unstaged only: exit %d %+v %s", code, r, errs)
	}
	// Plain diff (working tree) sees them: the two modes differ.
	if code, _, _ := runCLI("diff", "--repo", dir, "--base", "HEAD", "--format", "json", "--fail-on", "block"); code != exitFail {
		t.Errorf("working-tree diff: exit %d, want 1 (Bash(*) blocks)", code)
	}

	// Stage a narrower widening than the working tree holds: the staged
	// version is what is judged (npm *, raised to block by HEAD's policy via
	// its short check ID), not Bash(*).
	writeFile(t, dir, settings, `{"permissions":{"allow":["Bash(npm *)"],"deny":["Read(.env)"]}}`)
	git("add", settings)
	writeFile(t, dir, settings, `{"permissions":{"allow":["Bash(npm test:*)"],"deny":["Read(.env)"]}}`)
	code, r, errs = stagedJSON(t, dir, "--fail-on", "block")
	if code != exitFail || r.Decision != "block" || len(r.Changes) != 1 || r.Changes[0].After != "Bash(npm *)" {
		t.Fatalf("staged widening: exit %d %+v %s", code, r, errs)
	}
	// --policy overrides HEAD's policy.
	pol := writeFile(t, t.TempDir(), "p.yml", "version: 1\n")
	if code, r, _ := stagedJSON(t, dir, "--policy", pol); code != 0 || r.Decision != "require_review" {
		t.Errorf("--policy: exit %d %+v", code, r)
	}
	// A staged policy loosening does not loosen its own commit's gate.
	writeFile(t, dir, ".github/shipgate.yml", "version: 1\n")
	git("add", ".github/shipgate.yml")
	if _, r, _ := stagedJSON(t, dir); r.Decision != "block" {
		t.Errorf("the staged policy applied to its own commit: %+v", r)
	}
	git("reset", "-q", "--", ".github/shipgate.yml")

	// Staged deletion.
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-m", "second")
	git("rm", "-q", "-f", settings)
	code, r, errs = stagedJSON(t, dir)
	if code != 0 || len(r.Files) != 1 || r.Files[0].Status != "deleted" {
		t.Fatalf("staged deletion: exit %d %+v %s", code, r, errs)
	}
	git("reset", "-q", "--hard")

	// A staged symlink is not followed: fail closed, not allow.
	if err := os.Remove(filepath.Join(dir, settings)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "elsewhere.json", `{"permissions":{"allow":["Bash(*)"]}}`)
	if err := os.Symlink("../elsewhere.json", filepath.Join(dir, settings)); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	code, r, errs = stagedJSON(t, dir)
	if code != 0 || r.Decision == "allow" {
		t.Errorf("staged symlink: exit %d, decision %q (want not allow) %s", code, r.Decision, errs)
	}

	// --staged with --base is a usage error.
	if code, _, errs := runCLI("diff", "--staged", "--base", "main", "--repo", dir); code != exitUsage || !strings.Contains(errs, "drop --base") {
		t.Errorf("--staged --base: exit %d %s", code, errs)
	}
}
