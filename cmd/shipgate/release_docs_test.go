package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestPreCommitManifestVersion: a hook whose stages use the names
// pre-commit 3.2.0 introduced (pre-commit, pre-push, pre-merge-commit)
// declares minimum_pre_commit_version 3.2.0 or later, so an older
// pre-commit (Debian 12's 3.0.4) says what to upgrade instead of refusing
// the manifest.
func TestPreCommitManifestVersion(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID         string   `yaml:"id"`
		Stages     []string `yaml:"stages"`
		MinVersion string   `yaml:"minimum_pre_commit_version"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) == 0 {
		t.Fatal("no hooks in .pre-commit-hooks.yaml")
	}
	newNames := map[string]bool{"pre-commit": true, "pre-push": true, "pre-merge-commit": true}
	for _, h := range hooks {
		needs := false
		for _, s := range h.Stages {
			needs = needs || newNames[s]
		}
		if needs && versionLess(h.MinVersion, "3.2.0") {
			t.Errorf("hook %s: stages %v need minimum_pre_commit_version 3.2.0, have %q", h.ID, h.Stages, h.MinVersion)
		}
	}
}

// versionLess compares dotted versions ("" is less than any).
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pb); i++ {
		if i >= len(pa) || pa[i] == "" {
			return true
		}
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return false
}

// TestDocsNameOnlyReleasedVersions: a version the README, the docs or the
// pre-commit manifest tell users to install (`@v1.2.3`, `rev: v1.2.3`,
// `:1.2.3` of the image) has a released section in CHANGELOG.md: a pin to a
// tag that does not exist fails on a newcomer's first run.
func TestDocsNameOnlyReleasedVersions(t *testing.T) {
	changelog, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	released := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^## \[?v?(\d+\.\d+\.\d+)\]?`).FindAllStringSubmatch(string(changelog), -1) {
		released[m[1]] = true
	}
	files := []string{"../../README.md", "../../.pre-commit-hooks.yaml", "../../action.yml"}
	docs, _ := filepath.Glob("../../docs/*.md")
	files = append(files, docs...)
	pin := regexp.MustCompile(`(?:@v|rev: *v|shipgate:)(\d+\.\d+\.\d+)\b`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pin.FindAllStringSubmatch(string(data), -1) {
			if !released[m[1]] {
				t.Errorf("%s names %q, but CHANGELOG.md has no released %s: say it is not released yet and pin what exists", f, m[0], m[1])
			}
		}
	}
}
