package hookscript

import (
	"reflect"
	"strings"
	"testing"
)

func TestResolveCommand(t *testing.T) {
	cases := []struct {
		cmd   string
		scope string
		want  []string
		err   string // substring of the error; "" = resolvable
	}{
		{`$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh`, "", []string{".claude/hooks/check.sh"}, ""},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --strict`, "", []string{".claude/hooks/check.sh"}, ""},
		{`"${CLAUDE_PROJECT_DIR}/.claude/hooks/check.sh"`, "pkg", []string{"pkg/.claude/hooks/check.sh"}, ""},
		{`./x.sh`, "", []string{"x.sh"}, ""},
		{`./x.sh`, "pkg", []string{"pkg/x.sh"}, ""},
		{`bash .claude/hooks/x.sh`, "", []string{".claude/hooks/x.sh"}, ""},
		{`python3 -u scripts/y.py --flag`, "", []string{"scripts/y.py"}, ""},
		{`/usr/bin/env python3 scripts/y.py`, "", []string{"scripts/y.py"}, ""},
		{`/usr/bin/python3 scripts/y.py`, "", []string{"scripts/y.py"}, ""},
		{`node "$CLAUDE_PROJECT_DIR/tools/guard.js"`, "", []string{"tools/guard.js"}, ""},
		{`bash -c 'cd "$CLAUDE_PROJECT_DIR" && ./scripts/lint.sh'`, "", []string{"scripts/lint.sh"}, ""},
		{`jq -r .tool_input.command | grep -q rm && exit 2`, "", nil, ""},
		{`npx prettier --write .`, "", nil, ""},
		{`npm run lint`, "", []string{"package.json"}, ""},
		{`make -s check`, "pkg", []string{"pkg/Makefile"}, ""},
		{`uv run scripts/z.py`, "", []string{"scripts/z.py"}, ""},
		{`source .claude/env.sh && run`, "", []string{".claude/env.sh"}, ""},
		{`timeout 5 ./guard.sh`, "", []string{"guard.sh"}, ""},
		{`echo '{"permissionDecision":"allow"}'`, "", nil, ""},
		{`/usr/local/bin/guard`, "", nil, ""},
		{`~/bin/guard`, "", nil, ""},
		{`$HOOK_DIR/check.sh`, "", nil, "expansion"},
		{`bash "$SCRIPT"`, "", nil, "expansion"},
		{`eval "$(cat .claude/cmd)"`, "", nil, "eval"},
		{`./a.sh "$(date)"`, "", []string{"a.sh"}, "substitution"},
		{`python3 -m tools.guard`, "", nil, "module"},
		{`bash ../outside.sh`, "", nil, "outside the repository"},
		{`$CLAUDE_PROJECT_DIR/../x.sh`, "", nil, "outside the repository"},
		{`go run ./cmd/guard`, "", nil, "go run"},
		{`bash -c "unclosed`, "", nil, "does not parse"},
		// A cd moves what later relative paths are relative to; every
		// folder seen is kept (a subshell's cd is over-approximated).
		{`cd tools && ./run.sh`, "", []string{"run.sh", "tools/run.sh"}, ""},
		{`cd tools && ./run.sh`, "pkg", []string{"pkg/run.sh", "pkg/tools/run.sh"}, ""},
		{`(cd a && make) && ./b.sh`, "", []string{"Makefile", "a/Makefile", "b.sh", "a/b.sh"}, ""},
		{`cd "$CLAUDE_PROJECT_DIR/hooks" && python3 g.py`, "pkg", []string{"pkg/g.py", "pkg/hooks/g.py"}, ""},
		{`cd /tmp && ./a.sh`, "", []string{"a.sh"}, ""},
		{`cd .. && ./a.sh`, "pkg", []string{"pkg/a.sh", "a.sh"}, ""},
		{`cd .. && ./a.sh`, "", nil, "leaves the repository"},
		{`cd "$DIR" && ./a.sh`, "", nil, "cannot follow"},
		{`cd && ./a.sh`, "", nil, "cannot follow"},
	}
	for _, c := range cases {
		got, err := ResolveCommand(c.cmd, ProjectEnv(c.scope), c.scope)
		if c.err != "" {
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ResolveCommand(%q) = %q with an error, want %q (what could be resolved)", c.cmd, got, c.want)
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ResolveCommand(%q) error = %v, want one containing %q", c.cmd, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ResolveCommand(%q) error = %v", c.cmd, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ResolveCommand(%q, scope %q) = %q, want %q", c.cmd, c.scope, got, c.want)
		}
	}
}

func TestExtraPaths(t *testing.T) {
	cases := []struct {
		path, data string
		want       []string
	}{
		{".claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"}]}]},
		  "statusLine":{"type":"command","command":"bash .claude/statusline.sh"},"apiKeyHelper":"./bin/key.sh","agent":"yolo"}`,
			[]string{".claude/agents/yolo.md", ".claude/hooks/check.sh", ".claude/statusline.sh", "bin/key.sh"}},
		{"pkg/.claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./done.sh"}]}]}}`, []string{"pkg/done.sh"}},
		{".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://x"}]}]}}`, nil},
		{".claude/settings.json", `not json`, nil},
		{".mcp.json", `{"mcpServers":{"s":{"command":"node","args":["./servers/s.js"]},"r":{"url":"https://x"}}}`, []string{"servers/s.js"}},
		{".claude/skills/x/SKILL.md", "---\nhooks:\n  PostToolUse:\n    - hooks:\n        - type: command\n          command: ${CLAUDE_SKILL_DIR}/fmt.sh\n---\n", []string{".claude/skills/x/fmt.sh"}},
		{".claude/agents/a.md", "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: python3 .claude/hooks/g.py\n---\n", []string{".claude/hooks/g.py"}},
		{"README.md", `x`, nil},
	}
	for _, c := range cases {
		got := ExtraPaths(c.path, []byte(c.data))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ExtraPaths(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}

func FuzzResolveCommand(f *testing.F) {
	for _, s := range []string{`$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh`, `bash -c 'bash -c "./a.sh"'`, `python3 -m x`, `a && b | c; (d)`, `"$X"`, `npm run x`} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, cmd, scope string) {
		if strings.Contains(scope, "..") || strings.ContainsAny(scope, RepoMark+"\x00") || strings.HasPrefix(scope, "/") {
			return
		}
		got, _ := ResolveCommand(cmd, ProjectEnv(scope), scope)
		for _, p := range got {
			if p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, RepoMark) {
				t.Fatalf("ResolveCommand(%q) = %q: not a repository path", cmd, got)
			}
		}
	})
}
