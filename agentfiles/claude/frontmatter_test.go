package claude

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

func TestSplitToolList(t *testing.T) {
	// Claude Code 2.1.328 splits allowed-tools on commas and spaces outside
	// parentheses (read from the binary's splitter; groups do not nest).
	cases := []struct {
		in   string
		want []string
	}{
		{"Bash(curl:*), Bash(sh:*)", []string{"Bash(curl:*)", "Bash(sh:*)"}},
		{"Read Grep Glob", []string{"Read", "Grep", "Glob"}},
		{"Bash(git add *),Read", []string{"Bash(git add *)", "Read"}},
		{"  Bash(npm run build)  ,  ", []string{"Bash(npm run build)"}},
		{"Bash(echo (x) y) Read", []string{"Bash(echo (x)", "y)", "Read"}},
		{"Bash(a, b)", []string{"Bash(a, b)"}},
		{"", nil},
		{"\tRead", []string{"Read"}},
	}
	for _, c := range cases {
		if got := SplitToolList(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitToolList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFrontmatterDoc(t *testing.T) {
	cases := []struct {
		name  string
		kind  report.FileKind
		data  string
		rules []string // list:text@line
		all   bool     // allowed-tools: *
		err   string
		key   string // a key whose line is checked
		line  int
	}{
		{name: "string", kind: report.SkillFile, data: "---\nname: x\nallowed-tools: Bash(*)\n---\nbody", rules: []string{"allow:Bash(*)@3"}},
		{name: "list", kind: report.CommandFile, data: "---\nallowed-tools:\n  - Bash(npm *)\n  - Read, Grep\n---\n", rules: []string{"allow:Bash(npm *)@3", "allow:Read@4", "allow:Grep@4"}},
		{name: "crlf and bom", kind: report.SkillFile, data: "\ufeff---\r\nallowed-tools: Read\r\n---\r\n", rules: []string{"allow:Read@2"}},
		{name: "star", kind: report.SkillFile, data: "---\nallowed-tools: Read, *\n---\n", all: true},
		{name: "disallowed", kind: report.SkillFile, data: "---\ndisallowed-tools: Bash(rm *)\n---\n", rules: []string{"deny:Bash(rm *)@2"}},
		{name: "subagent tools pre-approve nothing", kind: report.SubagentFile, data: "---\ntools: Bash\nallowed-tools: Bash\ndisallowedTools: WebFetch\n---\n", rules: []string{"deny:WebFetch@4"}},
		{name: "no frontmatter", kind: report.SkillFile, data: "# just text\nallowed-tools: Bash(*)\n"},
		{name: "block ends at the first ---", kind: report.SkillFile, data: "---\nname: a---b\nallowed-tools: Bash(*)\n---\n", err: ""},
		{name: "non-string entries dropped", kind: report.SkillFile, data: "---\nallowed-tools: [Read, 3, {a: b}]\n---\n", rules: []string{"allow:Read@2"}},
		{name: "hooks lines", kind: report.SubagentFile, data: "---\nname: a\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./x.sh\n---\n", key: "hooks", line: 3},
		{name: "duplicate key", kind: report.SkillFile, data: "---\na: 1\na: 2\n---\n", err: "appears twice"},
		{name: "bad yaml", kind: report.SkillFile, data: "---\nallowed-tools: Read\nfoo: bar\n  baz: qux\n---\n", err: "does not parse"},
		// Claude Code's retry (retryBlock): a block that is not YAML is
		// read with its plain values holding ": " or a special character
		// quoted, and leading tabs as spaces.
		{name: "retry: a description holding colons", kind: report.SkillFile,
			data:  "---\nname: x\ndescription: Use this agent when: tests fail. Examples: <example>Context: x</example>\nallowed-tools: Bash(npm *)\n---\n",
			rules: []string{"allow:Bash(npm *)@4"}},
		{name: "retry: an unclosed flow list is quoted whole", kind: report.SkillFile, data: "---\nallowed-tools: [Read\n---\n", rules: []string{"allow:[Read@2"}},
		{name: "retry: a flow list that parses is kept", kind: report.SkillFile, data: "---\ndescription: a: b\nallowed-tools: [Read, Grep]\n---\n", rules: []string{"allow:Read@3", "allow:Grep@3"}},
		{name: "retry: quotes and backslashes escaped", kind: report.CommandFile, data: "---\ndescription: say \"hi\": now \\ then\nallowed-tools: Read\n---\n", rules: []string{"allow:Read@3"}},
		{name: "retry: leading tabs read as spaces", kind: report.SkillFile, data: "---\ndescription: a: b\nmetadata:\n\tk: v\nallowed-tools: Read\n---\n", rules: []string{"allow:Read@5"}},
		{name: "retry: a CRLF line is never rewritten", kind: report.SkillFile, data: "---\r\ndescription: a: b\r\nallowed-tools: Read\r\n---\r\n", err: "does not parse"},
		{name: "retry: a block that still does not parse", kind: report.SkillFile, data: "---\ndescription: a: b\nfoo: bar\n  baz: qux\n---\n", err: "does not parse"},
		{name: "retry: the retried block's duplicate key stands", kind: report.SkillFile, data: "---\ndescription: a: b\nname: x\nname: y\n---\n", err: "appears twice"},
		{name: "retry: a [...] value that is not YAML is quoted", kind: report.SkillFile, data: "---\nargument-hint: [issue-id] [reason]\nallowed-tools: Read\n---\n", rules: []string{"allow:Read@3"}},
		{name: "not a mapping", kind: report.SkillFile, data: "---\n- Read\n---\n", err: "not a mapping"},
		{name: "anchor", kind: report.SkillFile, data: "---\nx: &a Bash(*)\nallowed-tools: *a\n---\n", err: "anchor"},
		{name: "empty block", kind: report.SkillFile, data: "---\n---\nbody"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, pe := parseFrontmatterDoc("p", c.kind, report.Version{Exists: true, Data: []byte(c.data)}, RuleCache{})
			if c.err != "" {
				if pe == nil || !strings.Contains(pe.Error(), c.err) {
					t.Fatalf("error = %v, want one containing %q", pe, c.err)
				}
				return
			}
			if pe != nil {
				t.Fatalf("unexpected error %v", pe)
			}
			var got []string
			for _, r := range d.Rules {
				got = append(got, string(r.Rule.List)+":"+r.Rule.Text+"@"+strconv.Itoa(r.Line))
			}
			if !reflect.DeepEqual(got, c.rules) {
				t.Errorf("rules = %q, want %q", got, c.rules)
			}
			if (len(d.AllTools) > 0) != c.all {
				t.Errorf("allTools = %v, want %v", d.AllTools, c.all)
			}
			if c.key != "" {
				m, ok := d.Root.Lookup(c.key)
				if !ok || m.KeyStart.Line != c.line {
					t.Errorf("key %s at line %d, want %d", c.key, m.KeyStart.Line, c.line)
				}
			}
		})
	}
}

func TestClassifyAgentDocs(t *testing.T) {
	cases := []struct {
		p     string
		kind  report.FileKind
		scope string
	}{
		{".claude/skills/x/SKILL.md", report.SkillFile, ""},
		{"pkg/.claude/skills/x/SKILL.md", report.SkillFile, "pkg"},
		{".claude/skills/SKILL.md", report.ScriptFile, ""},
		{".claude/skills/x/notes.md", report.ScriptFile, ""},
		{".claude/commands/x.md", report.CommandFile, ""},
		{".claude/commands/ops/deploy.md", report.CommandFile, ""},
		{".claude/agents/yolo.md", report.SubagentFile, ""},
		{"a/b/.claude/agents/yolo.md", report.SubagentFile, "a/b"},
		{".claude/agents/yolo.txt", report.ScriptFile, ""},
		{".claude/hooks/check.sh", report.ScriptFile, ""},
		{"pkg/.claude/hooks/check.sh", report.ScriptFile, "pkg"},
		{".claude/statusline.sh", report.ScriptFile, ""},
		{".claude/worktrees/feature/.claude/settings.json", report.SettingsFile, ".claude/worktrees/feature"},
		{".claude/worktrees/feature/run.sh", report.NotAgentConfig, ""},
		{"scripts/check.sh", report.NotAgentConfig, ""},
		{".claude/Settings.json", report.NotAgentConfig, ""},
		{".claude/skills/x/skill.md", report.NotAgentConfig, ""},
		{".claude/Agents/x.md", report.NotAgentConfig, ""},
		{"docs/agents/yolo.md", report.NotAgentConfig, ""},
	}
	for _, c := range cases {
		k, s := agentfiles.Classify(c.p, nil)
		if k != c.kind || (k != report.NotAgentConfig && s != c.scope) {
			t.Errorf("Classify(%s) = %v %q, want %v %q", c.p, k, s, c.kind, c.scope)
		}
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{"---\nallowed-tools: Bash(*)\n---\n", "---\nhooks:\n  Stop:\n    - hooks: [{type: command, command: x}]\n---\n",
		"---\n- a\n---\n", "---\na: &x [*x]\n---\n", "---\r\nk: 'v'\r\n---", "---\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, pe := parseFrontmatterDoc("p", report.SkillFile, report.Version{Exists: true, Data: data}, RuleCache{})
		if pe != nil {
			if d != nil {
				t.Fatal("a document and an error")
			}
			return
		}
		if d.Root.Kind() != jsonpos.Object {
			t.Fatalf("root is %v, not an object", d.Root.Kind())
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, r := range d.Rules {
			if r.Line < 1 || r.Line > lines {
				t.Fatalf("rule %q at line %d of a %d-line file", r.Rule.Text, r.Line, lines)
			}
			if r.Rule.List != lattice.Allow && r.Rule.List != lattice.Deny {
				t.Fatalf("rule in list %s", r.Rule.List)
			}
		}
	})
}
