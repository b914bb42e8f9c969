package main

import (
	"strings"
	"testing"
)

// TestE2EPaddedWildcardBlocks: a settings file padded past 1 MiB hides a
// Bash(*) grant from Shipgate's reader; through the App it still blocks
// (issue 11: it used to turn the block into a review that one approval
// could clear).
func TestE2EPaddedWildcardBlocks(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	const path = ".claude/settings.json"
	env.repo("padded", map[string]string{path: baseSettings})
	padded := `{"permissions": {"allow": ["Bash(*)"]}, "pad": "` + strings.Repeat("x", 1<<20) + `"}`
	pr := env.openPR("padded", "pad", map[string]string{path: padded})
	r := env.waitCompleted("padded", pr.HeadSHA, 1)
	checkRun(t, r, "failure", "Blocked: ", []string{"Decision: block"},
		[]wantAnnotation{{path, 1, "failure", "CONFIG-PARSE-FAILED"}})
	env.noneInProgress("padded")
}
