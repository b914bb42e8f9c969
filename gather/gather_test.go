package gather

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/report"
)

// memSource is a repository in memory: each side maps paths to contents;
// "->target" makes a symlink, "@commit" a submodule. It counts reads, and
// can fail one path's read.
type memSource struct {
	base, head map[string]string
	failHead   string // a head path whose read fails
	reads      int
	incomplete bool
}

func (m *memSource) Base() Revision { return memRev{m, m.base, false} }
func (m *memSource) Head() Revision { return memRev{m, m.head, true} }

func memEntry(p, c string) Entry {
	switch {
	case strings.HasPrefix(c, "->"):
		return Entry{Path: p, Kind: Symlink, Target: c[2:]}
	case strings.HasPrefix(c, "@"):
		return Entry{Path: p, Kind: Submodule, Commit: c[1:]}
	}
	return Entry{Path: p, Kind: File, Size: int64(len(c))}
}

func (m *memSource) ListBase(context.Context) ([]Entry, bool, error) {
	if m.incomplete {
		return nil, false, nil // a cut listing: here, nothing listed at all
	}
	var out []Entry
	for p, c := range m.base {
		e := memEntry(p, c)
		e.Target = "" // as GitHub's tree: the target is read on demand
		out = append(out, e)
	}
	return out, !m.incomplete, nil
}

func (m *memSource) Changed(_ context.Context, sel Selector) ([]Change, bool, error) {
	var out []Change
	seen := map[string]bool{}
	for p, c := range m.head {
		seen[p] = true
		b, ok := m.base[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Status: Added})
		case b != c:
			out = append(out, Change{Path: p, Status: Modified})
		default:
			continue
		}
		if sel.Links && strings.HasPrefix(c, "->") {
			out[len(out)-1].Link, out[len(out)-1].Target = true, c[2:]
			continue
		}
		if sel.Match != nil && !sel.Match(p) {
			out = out[:len(out)-1]
		}
	}
	for p := range m.base {
		if !seen[p] && (sel.Match == nil || sel.Match(p)) {
			out = append(out, Change{Path: p, Status: Deleted})
		}
	}
	return out, false, nil
}

type memRev struct {
	m     *memSource
	files map[string]string
	head  bool
}

func (r memRev) Read(_ context.Context, p string) (Entry, error) {
	r.m.reads++
	if r.head && r.m.failHead != "" && p == r.m.failHead {
		return Entry{}, &ReadError{What: p, Err: errors.New("502 Bad Gateway")}
	}
	c, ok := r.files[p]
	if !ok {
		return Entry{Path: p, Kind: Missing}, nil
	}
	e := memEntry(p, c)
	if e.Kind == File {
		e.Data = []byte(c)
	}
	return e, nil
}

const skillWide = "---\nname: x\ndescription: x\nallowed-tools: Bash(*)\n---\nDo it.\n"

const (
	tBase = `{"permissions":{"allow":["Bash(npm test:*)"],"deny":["Read(.env)"]}}`
	tWide = `{"permissions":{"allow":["Bash(npm test:*)","Bash(*)"],"deny":["Read(.env)"]}}`
)

// with returns a copy of files with changes applied ("" deletes).
func with(files map[string]string, changes map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	for k, v := range changes {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

type fileWant struct {
	path, as   string
	base, head string // content, "" absent, "!substring" unreadable mentioning substring
}

func describe(v report.Version) string {
	switch {
	case !v.Exists:
		return ""
	case v.Unreadable != "":
		return "!" + v.Unreadable
	}
	return string(v.Data)
}

// tHook runs scripts/guard.py (by path) and, through a command
// substitution Shipgate cannot resolve, tools/check.sh.
const tHook = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"python3 scripts/guard.py"},{"type":"command","command":"$(git rev-parse --show-toplevel)/tools/check.sh"}]}]}}`

var hookBase = map[string]string{".claude/settings.json": tHook, "scripts/guard.py": "exit(0)\n", "tools/check.sh": "exit 2\n", "README.md": "# r\n"}

func TestGather(t *testing.T) {
	base := map[string]string{".claude/settings.json": tBase, "README.md": "# r\n"}
	cases := []struct {
		name  string
		base  map[string]string
		head  map[string]string // changes
		files []fileWant        // in path order
		block bool              // Compare must not allow
		notes []string          // substrings of notes
	}{
		{name: "nothing relevant", base: base, head: map[string]string{"docs/a.md": "a"}},
		// Scripts outside .claude that the unchanged base settings run.
		{name: "a file an unchanged hook runs, edited", base: hookBase, head: map[string]string{"scripts/guard.py": "print(1)\n"},
			files: []fileWant{{path: ".claude/settings.json", base: tHook, head: tHook},
				{path: "scripts/guard.py", base: "exit(0)\n", head: "print(1)\n"}}, block: true},
		{name: "a file an unchanged hook runs, deleted", base: hookBase, head: map[string]string{"scripts/guard.py": ""},
			files: []fileWant{{path: ".claude/settings.json", base: tHook, head: tHook},
				{path: "scripts/guard.py", base: "exit(0)\n"}}, block: true},
		{name: "a file an unchanged hook runs, now a symlink out", base: hookBase, head: map[string]string{"scripts/guard.py": "->/usr/bin/true"},
			files: []fileWant{{path: ".claude/settings.json", base: tHook, head: tHook},
				{path: "scripts/guard.py", base: "exit(0)\n", head: "!outside the repository"}}, block: true},
		{name: "the target of a symlinked hook script, edited",
			base: with(hookBase, map[string]string{"scripts/guard.py": "->../lib/guard.py", "lib/guard.py": "exit(0)\n"}),
			head: map[string]string{"lib/guard.py": "print(1)\n"},
			files: []fileWant{{path: ".claude/settings.json", base: tHook, head: tHook},
				{path: "scripts/guard.py", base: "exit(0)\n", head: "print(1)\n"}}, block: true},
		{name: "a file an unresolved hook command names, edited", base: hookBase, head: map[string]string{"tools/check.sh": "exit 0\n"},
			files: []fileWant{{path: ".claude/settings.json", base: tHook, head: tHook},
				{path: "tools/check.sh", base: "exit 2\n", head: "exit 0\n"}}, block: true},
		// Folder symlinks whose name has no .claude segment.
		{name: "a new symlink pkg -> vendor/x, which holds .claude/settings.json",
			base:  map[string]string{"vendor/x/.claude/settings.json": tWide, "README.md": "# r\n"},
			head:  map[string]string{"pkg": "->vendor/x"},
			files: []fileWant{{path: "pkg/.claude/settings.json", head: tWide}}, block: true},
		{name: "pkg retargeted from vendor/a to vendor/b",
			base:  map[string]string{"vendor/a/.claude/settings.json": tBase, "vendor/b/.claude/settings.json": tWide, "pkg": "->vendor/a"},
			head:  map[string]string{"pkg": "->vendor/b"},
			files: []fileWant{{path: "pkg/.claude/settings.json", base: tBase, head: tWide}}, block: true},
		{name: "a new symlink to a folder the change fills with an .mcp.json",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{"tools": "->third/agent", "third/agent/.mcp.json": `{"mcpServers":{"x":{"command":"npx","args":["-y","x"]}}}`},
			files: []fileWant{{path: "third/agent/.mcp.json", head: `{"mcpServers":{"x":{"command":"npx","args":["-y","x"]}}}`},
				{path: "tools/.mcp.json", head: `{"mcpServers":{"x":{"command":"npx","args":["-y","x"]}}}`}}, block: true},
		{name: "a new symlink through a chain of links",
			base:  map[string]string{"vendor/x/.claude/settings.json": tWide, "v": "->vendor"},
			head:  map[string]string{"pkg": "->v/x"},
			files: []fileWant{{path: "pkg/.claude/settings.json", head: tWide}}, block: true},
		{name: "a new folder symlink out of the repository",
			base: base, head: map[string]string{"pkg": "->/opt/agent"},
			files: []fileWant{{path: "pkg/.claude/settings.json", head: "!outside the repository"},
				{path: "pkg/.claude/settings.local.json", base: "!outside the repository", head: "!outside the repository"}}, block: true,
			notes: []string{"`pkg` is a symlink to \"/opt/agent\""}},
		{name: "a new symlink to the repository root",
			base: base, head: map[string]string{"sub/up": "->.."},
			files: []fileWant{{path: "sub/up/.claude/settings.json", head: "!the repository's root"},
				{path: "sub/up/.claude/settings.local.json", base: "!the repository's root", head: "!the repository's root"}}, block: true},
		{name: "a new symlink to a plain folder or file", base: with(base, map[string]string{"docs/a.md": "a", "LICENSE": "x"}),
			head: map[string]string{"d": "->docs", "COPYING": "->LICENSE"}},
		{name: "files no hook runs or names", base: hookBase, head: map[string]string{"README.md": "x\n", "scripts/other.py": "x\n", "src/main.go": "package main\n"}},
		{name: "one settings file", base: base, head: map[string]string{".claude/settings.json": tWide},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: tWide}}, block: true},
		{name: "an unchanged local sibling is read", base: with(base, map[string]string{".claude/settings.local.json": `{"permissions":{"deny":["Bash(*)"]}}`}),
			head: map[string]string{".claude/settings.json": tWide},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: tWide},
				{path: ".claude/settings.local.json", base: `{"permissions":{"deny":["Bash(*)"]}}`, head: `{"permissions":{"deny":["Bash(*)"]}}`}}},
		{name: "settings.json a symlink whose target changes",
			base:  map[string]string{"cfg/c.json": tBase, ".claude/settings.json": "->../cfg/c.json"},
			head:  map[string]string{"cfg/c.json": tWide},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: tWide}}, block: true,
			notes: []string{"read through the symlink `.claude/settings.json` (to `cfg/c.json`)"}},
		{name: ".claude a symlink to a folder",
			base:  map[string]string{"shared/settings.json": tBase, ".claude": "->shared"},
			head:  map[string]string{"shared/settings.json": tWide},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: tWide}}, block: true},
		{name: ".claude retargeted to another folder",
			base:  map[string]string{"a/settings.json": tBase, "b/settings.json": tWide, ".claude": "->a"},
			head:  map[string]string{".claude": "->b"},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: tWide}}, block: true},
		{name: "a skill added under the folder .claude links to",
			base: map[string]string{"shared/settings.json": tBase, ".claude": "->shared"},
			head: map[string]string{"shared/skills/x/SKILL.md": skillWide},
			// The link target is also a Copilot CLI skill candidate (any
			// SKILL.md: skillDirectories may name its folder).
			files: []fileWant{{path: ".claude/skills/x/SKILL.md", head: skillWide}, {path: "shared/skills/x/SKILL.md", head: skillWide}}, block: true},
		{name: ".claude made a symlink to a new folder with a skill",
			base:  map[string]string{"README.md": "# r\n"},
			head:  map[string]string{".claude": "->evil", "evil/skills/x/SKILL.md": skillWide},
			files: []fileWant{{path: ".claude/skills/x/SKILL.md", head: skillWide}, {path: "evil/skills/x/SKILL.md", head: skillWide}}, block: true},
		{name: "a symlink out of the repository",
			base:  base,
			head:  map[string]string{".claude/settings.json": "->/etc/claude.json"},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: "!outside the repository"}}, block: true},
		{name: "a symlink loop",
			base:  base,
			head:  map[string]string{".claude/settings.json": "->settings.json"},
			files: []fileWant{{path: ".claude/settings.json", base: tBase, head: "!more than 16 symlinks"}}, block: true},
		{name: "a submodule bumped",
			base: map[string]string{".claude": "@1111111111111111111111111111111111111111"},
			head: map[string]string{".claude": "@2222222222222222222222222222222222222222"},
			files: []fileWant{{path: ".claude/settings.json", base: "!111111111111", head: "!222222222222"},
				{path: ".claude/settings.local.json", base: "!111111111111", head: "!222222222222"}}, block: true},
		{name: "an unchanged submodule is not read", base: map[string]string{".claude": "@1111111111111111111111111111111111111111"},
			head: map[string]string{"docs/a.md": "a"}},
		{name: "a lone case variant is the canonical file",
			base:  map[string]string{"README.md": "# r\n"},
			head:  map[string]string{".CLAUDE/Settings.json": tWide},
			files: []fileWant{{path: ".CLAUDE/Settings.json", as: ".claude/settings.json", head: tWide}}, block: true,
			notes: []string{"is read as `.claude/settings.json`"}},
		{name: "a case variant next to the canonical file",
			base: base, head: map[string]string{".claude/Settings.json": tBase},
			files: []fileWant{{path: ".claude/Settings.json", as: ".claude/settings.json", head: "!only one is checked out"},
				{path: ".claude/settings.json", base: tBase, head: tBase}}, block: true},
		{name: ".MCP.json", base: base, head: map[string]string{".MCP.json": `{"mcpServers":{"x":{"command":"x"}}}`},
			files: []fileWant{{path: ".MCP.json", as: ".mcp.json", head: `{"mcpServers":{"x":{"command":"x"}}}`}}, block: true},
		{name: "a deleted settings file", base: base, head: map[string]string{".claude/settings.json": ""},
			files: []fileWant{{path: ".claude/settings.json", base: tBase}}, block: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := &memSource{base: c.base, head: with(c.base, c.head)}
			res, err := Gather(t.Context(), src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			fs := append([]report.File(nil), res.Input.Files...)
			sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
			if len(fs) != len(c.files) {
				var got []string
				for _, f := range fs {
					got = append(got, f.Path)
				}
				t.Fatalf("files %q, want %d", got, len(c.files))
			}
			for i, w := range c.files {
				f := fs[i]
				if f.Path != w.path || f.As != w.as {
					t.Errorf("file %d: %s as %q, want %s as %q", i, f.Path, f.As, w.path, w.as)
				}
				for _, sd := range []struct {
					what string
					got  report.Version
					want string
				}{{"base", f.Base, w.base}, {"head", f.Head, w.head}} {
					g := describe(sd.got)
					if strings.HasPrefix(sd.want, "!") {
						if !strings.HasPrefix(g, "!") || !strings.Contains(g, sd.want[1:]) {
							t.Errorf("%s %s: %q, want unreadable with %q", f.Path, sd.what, g, sd.want[1:])
						}
					} else if g != sd.want {
						t.Errorf("%s %s: %q, want %q", f.Path, sd.what, g, sd.want)
					}
				}
			}
			for _, n := range c.notes {
				if !strings.Contains(strings.Join(res.Notes, "\n"), n) {
					t.Errorf("notes %q lack %q", res.Notes, n)
				}
			}
			r := judge.Compare(res.Input)
			if c.block && r.Decision == report.DecisionAllow {
				t.Errorf("Compare allowed: %+v", r.Findings)
			}
			if len(c.files) == 0 && !res.Empty() {
				t.Errorf("a change touching nothing gathered %+v", res)
			}
		})
	}
}

// TestGatherReadsLittle: an unchanged sibling the base does not have, and
// an absent policy, cost no read; the base's listing says so.
func TestGatherReadsLittle(t *testing.T) {
	src := &memSource{base: map[string]string{".claude/settings.json": tBase}}
	src.head = with(src.base, map[string]string{".claude/settings.json": tWide})
	if _, err := Gather(t.Context(), src, Options{}); err != nil {
		t.Fatal(err)
	}
	if src.reads != 2 {
		t.Errorf("%d reads, want 2 (the file at base and at head)", src.reads)
	}
}

// TestGatherPolicy: the base's policy is enforced; a change to it is
// judged; a head policy that cannot be read fails the gather (the App
// passed such a pull request once).
func TestGatherPolicy(t *testing.T) {
	pol := "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED:\n    action: block\n"
	base := map[string]string{".github/shipgate.yml": pol, ".claude/settings.json": tBase}
	t.Run("loosened", func(t *testing.T) {
		src := &memSource{base: base, head: with(base, map[string]string{".github/shipgate.yml": "version: 1\n"})}
		res, err := Gather(t.Context(), src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Input.Policy == nil || !res.BasePolicyExists || res.Input.PolicyChange == nil || res.Input.PolicyChange.Head == nil {
			t.Fatalf("policy %+v change %+v", res.Input.Policy, res.Input.PolicyChange)
		}
		if r := judge.Compare(res.Input); r.Decision == report.DecisionAllow {
			t.Errorf("a loosened policy was allowed")
		}
	})
	t.Run("head unreadable", func(t *testing.T) {
		src := &memSource{base: base, head: with(base, map[string]string{".github/shipgate.yml": "version: 1\n"}), failHead: ".github/shipgate.yml"}
		_, err := Gather(t.Context(), src, Options{})
		var re *ReadError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "502") {
			t.Fatalf("err %v, want the head policy's read error", err)
		}
	})
	t.Run("proposed errors", func(t *testing.T) {
		src := &memSource{base: base, head: with(base, map[string]string{".github/shipgate.yml": "version: 9\n"})}
		res, err := Gather(t.Context(), src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.HeadPolicyErrs) == 0 || !strings.HasPrefix(res.HeadPolicyErrs[0].Msg, "proposed policy: ") || res.Empty() {
			t.Errorf("head policy errors %v", res.HeadPolicyErrs)
		}
	})
	t.Run("base errors apply the defaults", func(t *testing.T) {
		b := with(base, map[string]string{".github/shipgate.yml": "version: 9\n"})
		src := &memSource{base: b, head: with(b, map[string]string{".claude/settings.json": tWide})}
		res, err := Gather(t.Context(), src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.PolicyErrs) == 0 || res.Input.Policy != nil {
			t.Errorf("policy %+v errors %v", res.Input.Policy, res.PolicyErrs)
		}
	})
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		".CLAUDE/Settings.json":           ".claude/settings.json",
		"pkg/.Claude/SETTINGS.LOCAL.JSON": "pkg/.claude/settings.local.json",
		".MCP.json":                       ".mcp.json",
		".claude/Skills/x/skill.md":       ".claude/skills/x/SKILL.md",
		".claude/commands/Deploy.MD":      ".claude/commands/Deploy.md",
		"Docs/README.MD":                  "Docs/README.MD",
		".VSCode/Settings.json":           ".vscode/settings.json",
		"OpenCode.JSON":                   "opencode.json",
		".Cursor/CLI.json":                ".cursor/cli.json",
		".GitHub/Copilot/settings.json":   ".github/copilot/settings.json",
	} {
		if got := fold(in); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveLink(t *testing.T) {
	for _, c := range []struct {
		link, target, want string
		ok                 bool
	}{
		{".claude/settings.json", "../cfg/c.json", "cfg/c.json", true},
		{".claude", "shared/claude", "shared/claude", true},
		{".claude", "/etc", "", false},
		{".claude/settings.json", "../../x", "", false},
		{".claude", "..", "", false},
		{".claude", "C:\\x", "", false},
		{".claude", "", "", false},
		{"a/b", "./c/../d", "a/d", true},
	} {
		got, ok := resolveLink(c.link, c.target)
		if got != c.want || ok != c.ok {
			t.Errorf("resolveLink(%q, %q) = %q, %v; want %q, %v", c.link, c.target, got, ok, c.want, c.ok)
		}
	}
}

// FuzzResolveLink: a resolved target is always a clean path inside the
// repository.
func FuzzResolveLink(f *testing.F) {
	f.Add(".claude/settings.json", "../cfg/c.json")
	f.Add(".claude", "../../..")
	f.Add("a", "/abs")
	f.Fuzz(func(t *testing.T, link, target string) {
		got, ok := resolveLink(link, target)
		if !ok {
			return
		}
		if got == "" || strings.HasPrefix(got, "/") || got == ".." || strings.HasPrefix(got, "../") || strings.Contains("/"+got+"/", "/../") {
			t.Fatalf("resolveLink(%q, %q) = %q escapes", link, target, got)
		}
	})
}

// FuzzFold: folding keeps the number of segments and is idempotent.
func FuzzFold(f *testing.F) {
	f.Add(".CLAUDE/Settings.json")
	f.Add("a/.claude/commands/X.MD")
	f.Fuzz(func(t *testing.T, p string) {
		g := fold(p)
		if strings.Count(g, "/") != strings.Count(p, "/") || fold(g) != g || !strings.EqualFold(g, p) {
			t.Fatalf("fold(%q) = %q", p, g)
		}
	})
}

// TestGatherIncompleteListing: when the host cut the base's listing, a
// path it did not list is read rather than taken as absent, and the
// report says what could not be checked.
func TestGatherIncompleteListing(t *testing.T) {
	src := &memSource{base: map[string]string{".claude/settings.json": tBase, ".claude/settings.local.json": `{"permissions":{"deny":["Bash(*)"]}}`}, incomplete: true}
	src.head = with(src.base, map[string]string{".claude/settings.json": tWide})
	res, err := Gather(t.Context(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "too large for one listing") {
		t.Errorf("notes %q", res.Notes)
	}
	paths := map[string]bool{}
	for _, f := range res.Input.Files {
		paths[f.Path] = true
	}
	if !paths[".claude/settings.json"] || !paths[".claude/settings.local.json"] {
		t.Errorf("files %v", paths)
	}
}

// BenchmarkGatherLargeTree gathers one changed settings file in a
// repository of 100,000 files (the App does this on every pull request,
// from the cached base tree).
func BenchmarkGatherLargeTree(b *testing.B) {
	base := map[string]string{".claude/settings.json": tBase}
	for i := range 100_000 {
		base["src/pkg"+strings.Repeat("x", i%7)+"/"+string(rune('a'+i%26))+"/file"+strings.Repeat("0", i%5)+".go"+string(rune('0'+i%10))+"_"+itoa(i)] = "x"
	}
	src := &memSource{base: base, head: with(base, map[string]string{".claude/settings.json": tWide})}
	b.ResetTimer()
	for range b.N {
		if _, err := Gather(context.Background(), src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}
