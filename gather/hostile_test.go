package gather

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/report"
)

// big is a settings file over report.MaxFileSize holding allow.
func big(allow string) string {
	s := fmt.Sprintf(`{"permissions":{"allow":[%q]},"pad":"`, allow)
	return s + strings.Repeat("x", report.MaxFileSize+16-len(s)) + `"}`
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
			r := judge.Compare(res.Input)
			if r.Decision == report.DecisionAllow {
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

// TestInputBound: the gatherer reads at most Options.MaxInputBytes of
// content (plus the one file that crosses it): the files left are named
// in Input.Unread, not read, and the comparison blocks with one finding
// naming them — whether they are settings files, their unchanged siblings
// or the scripts their hooks run.
func TestInputBound(t *testing.T) {
	const bound = 64 << 10
	pad := strings.Repeat("x", 10<<10)
	settings := func(allow string) string {
		return fmt.Sprintf(`{"permissions":{"allow":[%q]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"bash run.sh"}]}]},"pad":%q}`, allow, pad)
	}
	cases := []struct {
		name string
		base map[string]string
		head map[string]string
	}{
		{"settings files", map[string]string{}, func() map[string]string {
			m := map[string]string{}
			for i := 0; i < 40; i++ {
				m[fmt.Sprintf("p%02d/.claude/settings.json", i)] = settings("Bash(*)")
			}
			return m
		}()},
		{"edited files, both sides", func() map[string]string {
			m := map[string]string{}
			for i := 0; i < 40; i++ {
				m[fmt.Sprintf("p%02d/.claude/settings.json", i)] = settings("Bash(npm test)")
			}
			return m
		}(), func() map[string]string {
			m := map[string]string{}
			for i := 0; i < 40; i++ {
				m[fmt.Sprintf("p%02d/.claude/settings.json", i)] = settings("Bash(*)")
			}
			return m
		}()},
		{"hook scripts", func() map[string]string {
			m := map[string]string{}
			for i := 0; i < 40; i++ {
				m[fmt.Sprintf("p%02d/.claude/settings.json", i)] = settings("Bash(npm test)")
				m[fmt.Sprintf("p%02d/run.sh", i)] = "exit 0\n" + pad
			}
			return m
		}(), func() map[string]string {
			m := map[string]string{}
			for i := 0; i < 40; i++ {
				m[fmt.Sprintf("p%02d/run.sh", i)] = "exit 1\n" + pad
			}
			return m
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := &memSource{base: c.base, head: with(c.base, c.head)}
			res, err := Gather(t.Context(), src, Options{MaxInputBytes: bound})
			if err != nil {
				t.Fatal(err)
			}
			held := 0 // distinct buffers: an unchanged file shares its bytes
			seen := map[*byte]bool{}
			for _, f := range res.Input.Files {
				for _, d := range [][]byte{f.Base.Data, f.Head.Data} {
					if len(d) > 0 && !seen[&d[0]] {
						seen[&d[0]] = true
						held += len(d)
					}
				}
			}
			if held > bound+2*len(settings("Bash(npm test)")) {
				t.Errorf("the input holds %d bytes, over the bound %d and one file", held, bound)
			}
			if len(res.Input.Unread) == 0 {
				t.Fatalf("nothing left unread (%d files, %d bytes)", len(res.Input.Files), held)
			}
			if res.Empty() {
				t.Error("a result with unread files reads as empty")
			}
			r := judge.Compare(res.Input)
			var f *report.Finding
			for i := range r.Findings {
				if r.Findings[i].Evidence == "input_too_large" {
					f = &r.Findings[i]
				}
			}
			if r.Decision != report.DecisionBlock || f == nil || f.Action != "block" || f.Path != res.Input.Unread[0] {
				t.Fatalf("decision %s, finding %+v; want one blocking input_too_large finding naming %s", r.Decision, f, res.Input.Unread[0])
			}
			if !strings.Contains(f.Message, fmt.Sprintf("%d of them were not read", len(res.Input.Unread))) {
				t.Errorf("message %q does not count the unread files", f.Message)
			}
		})
	}
	// Under the bound nothing changes.
	small := map[string]string{".claude/settings.json": tWide}
	res, err := Gather(t.Context(), &memSource{base: map[string]string{}, head: small}, Options{MaxInputBytes: bound})
	if err != nil || len(res.Input.Unread) != 0 || len(res.Input.Files) != 1 {
		t.Fatalf("a small change: %+v, %v", res, err)
	}
}

// TestUnicodeCaseVariants: on a case-insensitive file system a name that
// Unicode case folding maps to an agent-config name opens as that file —
// "ſ" (U+017F) folds to "s", "K" (U+212A, Kelvin) to "k" (APFS folds by
// Unicode; NTFS upcases "ſ" to "S") — so such a spelling is read as the
// canonical file and judged; a look-alike that does not fold (Cyrillic
// "а") names another folder, which the agents do not read.
func TestUnicodeCaseVariants(t *testing.T) {
	cases := []struct {
		path, as, data string
		block          bool
	}{
		{".claude/ſettings.json", ".claude/settings.json", tWide, true},
		{".claude/SKILLS/x/SKILL.md", ".claude/skills/x/SKILL.md", skillWide, true},
		{".claude/ſkills/x/SKILL.md", ".claude/skills/x/SKILL.md", skillWide, true},
		{".mcp.jſon", ".mcp.json", `{"mcpServers":{"x":{"command":"npx","args":["-y","x"]}}}`, true},
		{".vſcode/ſettings.json", ".vscode/settings.json", `{"chat.tools.autoApprove": true}`, true},
		{".curſor/cli.json", ".cursor/cli.json", `{"permissions":{"allow":["Shell(*)"]}}`, true},
		{".clаude/settings.json", "", tWide, false}, // Cyrillic а: another folder
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			base := map[string]string{"README.md": "# r\n"}
			src := &memSource{base: base, head: with(base, map[string]string{c.path: c.data})}
			res, err := Gather(t.Context(), src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := judge.Compare(res.Input)
			if c.block && r.Decision == report.DecisionAllow {
				t.Fatalf("decision %s; files %+v", r.Decision, res.Input.Files)
			}
			if !c.block && len(res.Input.Files) != 0 {
				t.Fatalf("read %+v", res.Input.Files)
			}
			for _, f := range res.Input.Files {
				if f.Path == c.path && f.As != c.as {
					t.Errorf("%s read as %q, want %q", f.Path, f.As, c.as)
				}
			}
		})
	}
}
