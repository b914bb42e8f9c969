package judge

import (
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/report"
)

// FuzzCompareAnyFile: any bytes, at base and head, of any adapter's file
// compare without a panic, and the report's decision is the strongest
// action of its findings (no finding is lost on the way to the verdict).
func FuzzCompareAnyFile(f *testing.F) {
	for i, h := range hostileGrants {
		f.Add(uint8(i), []byte("{}"), []byte(h.grant))
		f.Add(uint8(i), []byte(h.grant), []byte("\xef\xbb\xbf"+h.grant[:len(h.grant)/2]))
	}
	f.Fuzz(func(t *testing.T, i uint8, base, head []byte) {
		p := hostileGrants[int(i)%len(hostileGrants)].path
		r := Compare(report.Input{Files: []report.File{{Path: p, Base: report.Version{Exists: len(base) > 0, Data: base}, Head: report.Version{Exists: true, Data: head}}}})
		if d := report.Decide(r.Findings); d != r.Decision {
			t.Fatalf("decision %s, findings decide %s", r.Decision, d)
		}
		for _, fd := range r.Findings {
			if fd.Path == "" || fd.CheckID == "" {
				t.Fatalf("a finding without a path or check: %+v", fd)
			}
		}
	})
}

// FuzzCommandsOf: what any version of a file runs is a set of clean,
// repository-relative paths (a path outside the repository is never
// handed to a gatherer to read), and reading it does not panic.
func FuzzCommandsOf(f *testing.F) {
	for _, s := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"python3 scripts/guard.py"}]}]}}`,
		`{"statusLine":{"type":"command","command":"bash ../../etc/x.sh"}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"$CLAUDE_PROJECT_DIR/../x.sh; bash -c 'sh /tmp/y'"}]}]}}`,
		`{"mcpServers":{"x":{"command":"node","args":["./s/../../s.js"]}}}`,
		"---\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: ./x.sh\n---\n",
	} {
		for _, p := range []string{"sub/.claude/settings.json", ".mcp.json", ".claude/skills/x/SKILL.md"} {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\\") {
			return
		}
		hc := hookscript.CommandsOf(p, []byte(s))
		for _, x := range hc.Paths {
			if x == "" || x != path.Clean(x) || strings.HasPrefix(x, "/") || x == ".." || strings.HasPrefix(x, "../") {
				t.Fatalf("CommandsOf(%q) names %q, not a clean repository path", p, x)
			}
		}
	})
}

// FuzzFoldName: folding is idempotent, keeps ASCII names as
// strings.ToLower does, and never folds a name onto a different ASCII
// name unless the two are equal under Unicode simple folding.
func FuzzFoldName(f *testing.F) {
	for _, s := range []string{".vſcode", "\u212Aey", ".CLAUDE/Settings.json", "İstanbul", "ǅ", "ΣΑΣ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		g := agentfiles.FoldName(s)
		if agentfiles.FoldName(g) != g {
			t.Fatalf("FoldName(%q) = %q, but FoldName of that is %q", s, g, agentfiles.FoldName(g))
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
		if ascii && g != strings.ToLower(s) {
			t.Fatalf("FoldName(%q) = %q, want %q", s, g, strings.ToLower(s))
		}
	})
}
