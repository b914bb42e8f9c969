package gather

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/diff"
)

// big is a settings file over diff.MaxFileSize holding allow.
func big(allow string) string {
	s := fmt.Sprintf(`{"permissions":{"allow":[%q]},"pad":"`, allow)
	return s + strings.Repeat("x", diff.MaxFileSize+16-len(s)) + `"}`
}

// TestUnreadableBothSidesIsAChange: a file the change edits that
// Shipgate can read on neither side (both over 1 MiB, of the same size)
// is not "unchanged": Claude Code reads the new content, which may grant
// Bash(*). It blocks.
func TestUnreadableBothSidesIsAChange(t *testing.T) {
	b, h := big("Bash(npm test)"), big("Bash(*)")
	h = h[:len(b)] // the same size
	if len(b) != len(h) || b == h {
		t.Fatal("setup: want two different files of one size")
	}
	for _, p := range []string{".claude/settings.json", ".claude/skills/x/SKILL.md", ".codex/config.toml", "opencode.json"} {
		t.Run(p, func(t *testing.T) {
			src := &memSource{base: map[string]string{p: b}, head: map[string]string{p: h}}
			res, err := Gather(t.Context(), src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := diff.Compare(res.Input)
			if r.Decision == diff.DecisionAllow {
				t.Fatalf("decision %s for an edited file over 1 MiB; files %+v", r.Decision, res.Input.Files)
			}
		})
	}
	// An unchanged sibling over the limit stays unchanged.
	base := map[string]string{".claude/settings.local.json": b, ".claude/settings.json": tBase}
	src := &memSource{base: base, head: with(base, map[string]string{".claude/settings.json": tBase + " "})}
	res, err := Gather(t.Context(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Input.Files {
		if f.Path == ".claude/settings.local.json" && f.Base.Unreadable != f.Head.Unreadable {
			t.Errorf("the unchanged sibling reads as changed: %q vs %q", f.Base.Unreadable, f.Head.Unreadable)
		}
	}
}
