package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// surfaceFixture holds a file of every kind an agent is known to read
// from a repository (so that a reader that lists a folder goes on to
// open its files).
var surfaceFixture = map[string]string{
	"README.md":                       "# r\n",
	"CLAUDE.md":                       "See @docs/extra.md\n",
	"CLAUDE.local.md":                 "local\n",
	"docs/extra.md":                   "imported\n",
	"AGENTS.md":                       "agents\n",
	".mcp.json":                       `{"mcpServers": {}}`,
	".claude/settings.json":           `{"permissions": {"allow": ["Bash(echo *)"]}}`,
	".claude/settings.local.json":     `{}`,
	".claude/skills/s/SKILL.md":       "---\nname: s\ndescription: s\n---\ns\n",
	".claude/agents/a.md":             "---\nname: a\ndescription: a\n---\na\n",
	".claude/commands/c.md":           "---\ndescription: c\n---\nc\n",
	".claude/output-styles/o.md":      "---\nname: o\ndescription: o\n---\no\n",
	".claude/rules/r.md":              "r\n",
	".opencode/agent/build.md":        "---\ndescription: b\n---\nb\n",
	".opencode/plugin/p.js":           "export const P = async () => ({})\n",
	".opencode/command/c.md":          "---\ndescription: c\n---\nc\n",
	".opencode/skill/o/SKILL.md":      "---\nname: o\ndescription: o\n---\no\n",
	".opencode/mode.txt":              "ask\n",
	"opencode.json":                   `{"permission": {"bash": "{file:.opencode/mode.txt}"}}`,
	".github/copilot/settings.json":   `{"skillDirectories": ["tools/skills"]}`,
	".github/lsp.json":                `{"lspServers": {}}`,
	".github/mcp.json":                `{"mcpServers": {}}`,
	".github/hooks/h.json":            `{"version": 1, "hooks": {}}`,
	".github/skills/g/SKILL.md":       "---\nname: g\ndescription: g\n---\ng\n",
	".github/copilot-instructions.md": "i\n",
	".agents/skills/x/SKILL.md":       "---\nname: x\ndescription: x\n---\nx\n",
	"tools/skills/t/SKILL.md":         "---\nname: t\ndescription: t\n---\nt\n",
	".codex/config.toml":              "model = \"o3\"\n",
	".codex/rules/r.rules":            "prefix_rule(pattern=[\"ls\"])\n",
	".gemini/settings.json":           "{}",
	".gemini/agents/h.md":             "---\nname: h\ndescription: h\n---\nh\n",
	".gemini/skills/k/SKILL.md":       "---\nname: k\ndescription: k\n---\nk\n",
	".github/agents/h.agent.md":       "---\nname: h\ndescription: h\n---\nh\n",
	".cursor/cli.json":                `{"permissions": {"allow": []}}`,
	".vscode/settings.json":           "{}",
}

// surfaceRun is one traced run of an agent: kind "" a start, "tool" a
// session that runs tool calls; how says what ran, for the header.
type surfaceRun struct {
	agent, version, kind, how string
	trace                     func(proj, home string) ([]string, error)
}

// TestTraceSurfaces records, with strace, which repository paths each
// agent binary that runs offline touches, and compares them with the
// pinned lists (SHIPGATE_TRACE_SURFACE=1) or rewrites them (=update).
func TestTraceSurfaces(t *testing.T) {
	mode := os.Getenv(SurfaceEnv)
	if mode == "" {
		t.Skip("$" + SurfaceEnv + " is not set (make surfaces)")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Fatal("strace is not installed (apt-get install strace)")
	}
	// Each agent's trace runs only where its binary is installed; an agent
	// whose require variable is set (CI) must not drop out of the trace
	// without a word.
	for _, a := range []struct{ name, bin, requireEnv, target string }{
		{"Claude Code", FindBinary(), RequireEnv, "claude-code"}, {"OpenCode", FindOpenCode(), OpenCodeRequireEnv, "opencode"},
		{"Copilot CLI", FindCopilot(), CopilotRequireEnv, "copilot"}, {"Codex CLI", FindCodex(), CodexRequireEnv, "codex"},
		{"Gemini CLI", GeminiBin(), GeminiRequireEnv, "gemini"},
	} {
		if a.bin == "" && os.Getenv(a.requireEnv) != "" {
			t.Errorf("no %s binary to trace, and $%s is set: `make %s` installs it", a.name, a.requireEnv, a.target)
		}
	}
	ctx := context.Background()
	type run = surfaceRun
	var runs []run
	if bin := FindOpenCode(); bin != "" {
		runs = append(runs, run{"opencode", OpenCodeVersion, "", "opencode debug config; debug agent build; debug skill", func(proj, home string) ([]string, error) {
			env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_DATA_HOME="+home+"/.local/share",
				"XDG_CACHE_HOME="+home+"/.cache", "XDG_STATE_HOME="+home+"/.local/state", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1")
			var all []string
			for _, args := range [][]string{{"debug", "config"}, {"debug", "agent", "build"}, {"debug", "skill"}} {
				ps, err := traceRun(ctx, proj, env, bin, args...)
				if err != nil {
					return nil, err
				}
				all = append(all, ps...)
			}
			return all, nil
		}})
	}
	if bin := FindCopilot(); bin != "" {
		runs = append(runs, run{"copilot-cli", CopilotVersion, "", "copilot skill list; lsp list; instruction list; mcp list (the folder trusted)", func(proj, home string) ([]string, error) {
			if err := writeTree(home, map[string]string{".copilot/config.json": fmt.Sprintf(`{"trusted_folders": [%q]}`, proj)}); err != nil {
				return nil, err
			}
			env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.local/state", "XDG_CACHE_HOME="+home+"/.cache")
			var all []string
			for _, args := range [][]string{{"skill", "list"}, {"lsp", "list"}, {"instruction", "list"}, {"mcp", "list"}} {
				ps, err := traceRun(ctx, proj, env, bin, args...)
				if err != nil {
					return nil, err
				}
				all = append(all, ps...)
			}
			return all, nil
		}})
	}
	if bin := FindCodex(); bin != "" {
		runs = append(runs, run{"codex", CodexVersion, "", "codex debug prompt-input hi (the project trusted)", func(proj, home string) ([]string, error) {
			if err := writeTree(home, map[string]string{".codex/config.toml": fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", proj)}); err != nil {
				return nil, err
			}
			env := append(os.Environ(), "HOME="+home, "CODEX_HOME="+home+"/.codex", "RUST_BACKTRACE=0")
			return traceRun(ctx, proj, env, bin, "debug", "prompt-input", "hi")
		}})
	}
	var claudeTrace string
	if bin := FindBinary(); bin != "" {
		runs = append(runs, run{"claude-code", ClaudeCodeVersion, "", "claude -p with one Bash tool call from the harness's fake API (Driver.Wrap)", func(proj, home string) ([]string, error) {
			f, err := os.CreateTemp("", "shipgate-strace-claude-")
			if err != nil {
				return nil, err
			}
			f.Close()
			claudeTrace = f.Name()
			defer os.Remove(claudeTrace)
			files := map[string]string{}
			for p, d := range surfaceFixture {
				if p != ".claude/settings.json" && p != ".claude/settings.local.json" {
					files[p] = d
				}
			}
			d := Driver{Binary: bin, Wrap: append([]string{"strace"}, straceArgs(claudeTrace)...)}
			res, err := d.Run(ctx, Session{Settings: surfaceFixture[".claude/settings.json"], Local: "{}", Files: files, Calls: []Call{{Tool: "Bash", Arg: "echo hi"}}})
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(claudeTrace)
			if err != nil {
				return nil, err
			}
			return ParseTrace(data, res.Layout.Proj), nil
		}})
	}
	runs = append(runs, toolTraceRuns(ctx)...)
	if len(runs) == 0 {
		t.Fatal("no agent binary to trace (make opencode copilot codex gemini claude-code)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		name := r.kind
		if name == "" {
			name = "start"
		}
		t.Run(r.agent+"/"+name, func(t *testing.T) {
			// Not under /tmp: Codex refuses to put its sandbox helper
			// under a temporary folder (and then cannot run a command).
			dir, err := os.MkdirTemp(codexConfigTmp, "shipgate-surface-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			proj, home := filepath.Join(dir, "proj"), filepath.Join(dir, "home")
			if err := writeTree(proj, surfaceFixture); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			paths, err := r.trace(proj, home)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			var uniq []string
			for _, p := range paths {
				if !seen[p] {
					seen[p] = true
					uniq = append(uniq, p)
				}
			}
			sort.Strings(uniq)
			got := WriteSurface(r.agent, r.version, r.how, uniq)
			file := filepath.Join(root, SurfaceFile(r.agent, r.version, r.kind))
			if mode == "update" {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d paths)", file, len(uniq))
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s %s touches other paths than %s pins (make surfaces records them again):\n%s", r.agent, r.version, file, got)
			}
		})
	}
}

// TestParseTrace reads strace lines as strace writes them.
func TestParseTrace(t *testing.T) {
	tr := `123 openat(AT_FDCWD, "/r/p/.claude/settings.json", O_RDONLY|O_CLOEXEC) = 3
124 newfstatat(AT_FDCWD, "/r/p/.opencode/agent", {st_mode=S_IFDIR|0755, ...}, 0) = 0
125 statx(AT_FDCWD, "/r/other", AT_STATX_SYNC_AS_STAT, STATX_ALL, 0x7ffd) = -1 ENOENT (No such file or directory)
126 access("AGENTS.md", F_OK) = 0
127 readlink("/r/p", 0x7ffd, 4096) = -1 EINVAL (Invalid argument)
128 rename("/r/p/a.tmp", "/r/p/a") = 0
129 execve("/usr/bin/git", ["git", "-C", "rev-parse"], 0x7ffd /* 9 vars */) = 0
130 openat(7, "002c0b4f.0", O_RDONLY) = -1 ENOENT (No such file or directory)
131 openat(AT_FDCWD, "/r/p/.opencode/node_modules/@opencode-ai/plugin/package.json", O_RDONLY) = 3
`
	got := ParseTrace([]byte(tr), "/r/p")
	want := []string{".claude/settings.json", ".opencode/agent", ".opencode/node_modules", "AGENTS.md", "a", "a.tmp"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseTrace = %q, want %q", got, want)
	}
}

// TestParseTraceWorkingDirectories: relative paths resolve against the
// working directory of the process naming them (a git child in .git, a
// sandbox in its own root), children start in their parent's.
func TestParseTraceWorkingDirectories(t *testing.T) {
	tr := `100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD <unfinished ...>
101 chdir(".git") = 0
100 <... clone resumed>) = 101
101 openat(AT_FDCWD, "HEAD", O_RDONLY) = 3
100 access("AGENTS.md", F_OK) = 0
100 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f, stack_size=0x9000}, 88) = 102
102 chdir("/tmp/bwrap-x") = 0
102 mkdir("newroot", 0755) = 0
102 mount("tmpfs", "newroot", "tmpfs", MS_NODEV|MS_NOSUID, NULL) = 0
102 pivot_root(".", "oldroot") = 0
102 mkdir("proc", 0755) = 0
103 stat("late", 0x7ffd) = -1 ENOENT (No such file or directory)
100 chdir("sub" <unfinished ...>
100 <... chdir resumed>) = 0
100 stat("x.md", 0x7ffd) = 0
100 fchdir(5) = 0
100 stat("y.md", 0x7ffd) = 0
104 chdir("nope") = -1 ENOENT (No such file or directory)
104 stat("z.md", 0x7ffd) = 0
`
	got := ParseTrace([]byte(tr), "/r/p")
	// pid 103 appears without a parent in the trace: it starts in the
	// root; 104's failed chdir leaves it there.
	want := []string{".git", ".git/HEAD", "AGENTS.md", "late", "nope", "sub", "sub/x.md", "z.md"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseTrace = %q, want %q", got, want)
	}
}
