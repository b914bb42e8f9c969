package judge

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/agentfiles/codex"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// hostileGrants is, per agent-config path of every adapter, a head that
// grants the most a file of its kind can (a wildcard allow, bypass mode,
// a stdio server).
var hostileGrants = []struct {
	path, grant string
	// parses: a version Shipgate cannot parse is at least a review (the
	// agent's reader may apply part of it, or its deny rules are lost);
	// false where the agent itself reads a broken file as granting
	// nothing (Markdown without a frontmatter block; Gemini's workspace
	// policies, which 0.61.0 never loads).
	parses bool
}{
	{".claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`, true},
	{".claude/settings.local.json", `{"permissions":{"defaultMode":"bypassPermissions"}}`, true},
	{"sub/.claude/settings.json", `{"permissions":{"allow":["Bash(*)"]}}`, true},
	{".claude/skills/x/SKILL.md", "---\nallowed-tools: Bash(*)\n---\nhi\n", false},
	{".claude/commands/x.md", "---\nallowed-tools: \"*\"\n---\nhi\n", false},
	{".claude/agents/x.md", "---\nname: x\npermissionMode: bypassPermissions\n---\nhi\n", false},
	{".mcp.json", `{"mcpServers":{"x":{"command":"node","args":["x.js"]}}}`, true},
	{".codex/rules/x.rules", `prefix_rule(pattern=["bash"], decision="allow")`, true},
	{".codex/config.toml", "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n", true},
	{".gemini/settings.json", `{"tools":{"allowed":["run_shell_command"]}}`, true},
	{".gemini/policies/x.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 100\n", false},
	{".vscode/settings.json", `{"chat.tools.autoApprove": true}`, true},
	{".vscode/mcp.json", `{"servers":{"x":{"command":"node"}}}`, true},
	{"opencode.json", `{"permission":"allow"}`, true},
	{".cursor/cli.json", `{"permissions":{"allow":["Shell(*)"]}}`, true},
	{".cursor/mcp.json", `{"mcpServers":{"x":{"command":"node"}}}`, true},
	{".github/copilot/settings.json", `{"hooks":{"sessionStart":[{"command":"x"}]}}`, true},
	{".github/agents/x.md", "---\nname: x\nmcp-servers:\n  s:\n    command: node\n    tools: [\"*\"]\n---\nhi\n", false},
	{".gemini/agents/x.md", "---\nname: x\ndescription: d\nmcp_servers:\n  s:\n    command: node\n---\nhi\n", false},
	{".github/skills/x/SKILL.md", "---\nallowed-tools: shell\n---\nhi\n", false},
	{".github/mcp.json", `{"mcpServers":{"x":{"command":"node"}}}`, true},
	{".github/hooks/x.json", `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./x.sh"}]}}`, true},
}

func decisionRank(d report.Decision) int {
	switch d {
	case report.DecisionBlock:
		return 2
	case report.DecisionRequireReview:
		return 1
	}
	return 0
}

// TestHostileVersionsNeverWeaken: for every adapter's file, a head
// Shipgate cannot read — over 1 MiB (as the gatherer reports it, or as
// bytes handed to the engine), a symlink out of the repository — decides
// at least what the file could grant (the wildcard grant's own decision),
// and one it cannot parse (binary, invalid UTF-8, a byte order mark,
// nesting a million deep, cut in half) is never a pass where the agent's
// reader could apply it. Each fail-closed decision carries a
// CONFIG-PARSE-FAILED finding naming the file.
func TestHostileVersionsNeverWeaken(t *testing.T) {
	unreadable := map[string]func(g string) report.Version{
		"over 1 MiB": func(string) report.Version {
			return report.Version{Exists: true, TooLarge: true, Unreadable: "it is 2000000 bytes, over the 1048576-byte limit; it was not read"}
		},
		"over 1 MiB bytes": func(g string) report.Version {
			return report.Version{Exists: true, Data: []byte(g + strings.Repeat(" ", report.MaxFileSize))}
		},
		"symlink out": func(string) report.Version {
			return report.Version{Exists: true, Unreadable: "x is a symlink to \"/etc/x\", outside the repository"}
		},
		"not a file": func(string) report.Version {
			return report.Version{Exists: true, Unreadable: "x is not a regular file"}
		},
	}
	broken := map[string]func(g string) report.Version{
		"binary": func(g string) report.Version {
			return report.Version{Exists: true, Data: []byte("\x00\x01\x02\xff\xfe" + g)}
		},
		"invalid UTF-8": func(g string) report.Version {
			return report.Version{Exists: true, Data: []byte(strings.Replace(g, "x", "x\xff", 1))}
		},
		"byte order mark": func(g string) report.Version {
			return report.Version{Exists: true, Data: append([]byte("\xef\xbb\xbf"), g...)}
		},
		"deep nesting": func(g string) report.Version {
			return report.Version{Exists: true, Data: []byte(strings.Repeat("[", 1_000_000))}
		},
		"cut in half": func(g string) report.Version { return report.Version{Exists: true, Data: []byte(g[:len(g)/2])} },
	}
	for _, h := range hostileGrants {
		want := Compare(report.Input{Files: []report.File{{Path: h.path, Head: report.Version{Exists: true, Data: []byte(h.grant)}}}}).Decision
		if decisionRank(want) == 0 && h.parses {
			t.Fatalf("%s: the grant itself decides %s; the table is wrong", h.path, want)
		}
		check := func(name string, v report.Version, min report.Decision) {
			t.Run(h.path+"/"+name, func(t *testing.T) {
				r := Compare(report.Input{Files: []report.File{{Path: h.path, Head: v}}})
				if decisionRank(r.Decision) < decisionRank(min) {
					t.Fatalf("decision %s, want at least %s; findings %v", r.Decision, min, checkIDs(r))
				}
				if decisionRank(min) > 0 && r.Decision != report.DecisionAllow {
					for _, f := range r.Findings {
						if f.Path == h.path {
							return
						}
					}
					t.Fatalf("no finding names %s: %v", h.path, r.Findings)
				}
			})
		}
		for name, mk := range unreadable {
			check(name, mk(h.grant), want)
		}
		if strings.HasPrefix(h.grant, "{") {
			// Valid JSON nested deeper than Shipgate parses (JSON.parse, which
			// these agents read with, has no such limit): what the file
			// grants beside the deep value was not read.
			deep := `{"zz":` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + "," + h.grant[1:]
			check("nested past the parser's limit", report.Version{Exists: true, Data: []byte(deep)}, want)
		}
		if strings.HasPrefix(h.grant, "---\n") {
			// Frontmatter nested past Shipgate's YAML bounds (500 and 20,000
			// deep): the agent's reader may read the grant beside it.
			for _, n := range []int{500, 20_000} {
				deep := strings.Replace(h.grant, "---\n", "---\nzz: "+strings.Repeat("[", n)+strings.Repeat("]", n)+"\n", 1)
				check(fmt.Sprintf("frontmatter nested %d deep", n), report.Version{Exists: true, Data: []byte(deep)}, want)
			}
		}
		if h.parses {
			for name, mk := range broken {
				check(name, mk(h.grant), report.DecisionRequireReview)
			}
		}
		// Deleted and added back with the grant: the base's copy is gone,
		// the head grants — the same as an added file.
		got := Compare(report.Input{Files: []report.File{{Path: h.path, Base: report.Version{Exists: true, Data: []byte("{}")}, Head: report.Version{Exists: true, Data: []byte(h.grant)}}}}).Decision
		if decisionRank(got) < decisionRank(want) && h.parses {
			t.Errorf("%s: re-added with the grant decides %s, want %s", h.path, got, want)
		}
	}
}

// TestHostileParsersBounded: parser bombs in every adapter's file end in
// bounded memory with a decision at least the fail-closed one — YAML
// alias bombs and deep nesting in frontmatter, TOML keys nested 200,000
// deep, JSONC nested a million deep, numbers of half a million digits,
// duplicate keys, regular expressions shaped for backtracking or nested
// repetition, Starlark memory bombs.
func TestHostileParsersBounded(t *testing.T) {
	alias := "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nallowed-tools: Bash(*)\n---\n"
	var block strings.Builder
	block.WriteString("---\n")
	for i := 0; i < 2000; i++ {
		block.WriteString(strings.Repeat(" ", i%700) + "a:\n")
	}
	block.WriteString("---\n")
	cases := []struct {
		name, path, data string
		min              report.Decision
	}{
		{"frontmatter alias bomb", ".claude/skills/x/SKILL.md", alias, report.DecisionRequireReview},
		{"frontmatter deep flow", ".claude/skills/x/SKILL.md", "---\nallowed-tools: " + strings.Repeat("[", 500_000) + "\n---\n", report.DecisionRequireReview},
		{"frontmatter deep block", ".claude/agents/x.md", block.String(), report.DecisionRequireReview},
		{"toml deep arrays", ".codex/config.toml", "approval_policy = \"never\"\na = " + strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000) + "\n", report.DecisionRequireReview},
		{"toml dotted key", ".codex/config.toml", "approval_policy = \"never\"\n" + strings.Repeat("a.", 200_000) + "b = 1\n", report.DecisionBlock},
		{"toml table header", ".codex/config.toml", "[" + strings.Repeat("a.", 200_000) + "b]\nx = 1\n", report.DecisionBlock},
		{"jsonc deep arrays", ".vscode/settings.json", strings.Repeat("[", 1_000_000), report.DecisionBlock},
		{"jsonc deep objects", "opencode.json", strings.Repeat(`{"a":`, 200_000), report.DecisionRequireReview},
		{"settings deep objects", ".claude/settings.json", `{"permissions":{"allow":["Bash(*)"]},"x":` + strings.Repeat(`{"a":`, 200_000), report.DecisionRequireReview},
		{"huge number", ".cursor/cli.json", `{"permissions":{"allow":["Shell(*)"]},"n":1e` + strings.Repeat("9", 500_000) + `}`, report.DecisionBlock},
		{"duplicate key, grant last", ".cursor/cli.json", `{"permissions":{"allow":[]},"permissions":{"allow":["Shell(*)"]}}`, report.DecisionBlock},
		{"duplicate key, grant first", ".cursor/cli.json", `{"permissions":{"allow":["Shell(*)"]},"permissions":{"allow":[]}}`, report.DecisionRequireReview},
		{"regex nested repetition", ".vscode/settings.json", `{"chat.tools.terminal.autoApprove":{"/^(((a{100}){100}){100}){100}$/":true}}`, report.DecisionRequireReview},
		{"regex backtracking shape", ".vscode/settings.json", `{"chat.tools.terminal.autoApprove":{"/^(a+)+$/":true,"/^(a|a)*b$/":false}}`, report.DecisionRequireReview},
		{"regex nested groups", ".vscode/settings.json", `{"chat.tools.terminal.autoApprove":{"/` + strings.Repeat("(", 100_000) + `a` + strings.Repeat(")", 100_000) + `/":true}}`, report.DecisionRequireReview},
		{"starlark doubling", ".codex/rules/x.rules", "x = \"ab\"\nfor i in range(60):\n    x = x + x\n", report.DecisionBlock},
		{"starlark repetition", ".codex/rules/x.rules", `x = "x" * 1000000000`, report.DecisionBlock},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			r := Compare(report.Input{Files: []report.File{{Path: c.path, Head: report.Version{Exists: true, Data: []byte(c.data)}}}})
			runtime.ReadMemStats(&m1)
			if decisionRank(r.Decision) < decisionRank(c.min) {
				t.Errorf("decision %s, want at least %s: %v", r.Decision, c.min, checkIDs(r))
			}
			if got := m1.TotalAlloc - m0.TotalAlloc; got > 1<<30 {
				t.Errorf("comparing it allocated %d MiB", got>>20)
			}
		})
	}
}

// TestFoldName: runes whose case-folding orbit holds an ASCII letter fold
// to it; others only lower-case.
func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{
		".claude/Settings.json": ".claude/settings.json",
		".vſcode":               ".vscode",
		"\u212Aey":              "key",     // KELVIN SIGN
		".clаude":               ".clаude", // Cyrillic а stays
		"ÉCOLE":                 "école",
		"":                      "",
	} {
		if got := agentfiles.FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
	}
	if !agentfiles.MayBeAgentPath(".mcp.jſon") || !agentfiles.MayBeAgentPath("a/.CURſOR/cli.json") || agentfiles.MayBeAgentPath("docs/readme.md") {
		t.Error("MayBeAgentPath does not fold as FoldName")
	}
}

// TestManyCostlyRulesFiles: 200 small Codex rules files that each burn
// Starlark's step bound (or recurse) share one step budget per
// comparison: the files past it are a limit of Shipgate's and block,
// and the comparison stays well under its CPU target (measured by the
// steps, not the clock: at most codex.MaxSharedSteps plus one file's).
func TestManyCostlyRulesFiles(t *testing.T) {
	for name, src := range map[string]string{
		"steps":     "x = 0\nfor i in range(400000):\n    x = i\n",
		"recursion": "def f(n):\n    return f(n + 1)\nf(0)\n",
	} {
		t.Run(name, func(t *testing.T) {
			var in report.Input
			for i := 0; i < 200; i++ {
				in.Files = append(in.Files, report.File{Path: fmt.Sprintf("p%03d/.codex/rules/x.rules", i), Head: report.Version{Exists: true, Data: []byte(src)}})
			}
			e := &engine{ctx: context.Background(), budget: lattice.NewBudget(0, 0), pol: in.Policy, scopes: map[string][]*fileState{}}
			e.load(in.Files, claude.RuleCache{})
			if e.starlarkUsed > codex.MaxSharedSteps+codex.MaxSteps {
				t.Errorf("the files took %d Starlark steps, over the shared bound %d", e.starlarkUsed, codex.MaxSharedSteps)
			}
			r := Compare(in)
			if r.Decision != report.DecisionBlock {
				t.Fatalf("decision %s, want block", r.Decision)
			}
		})
	}
}

// TestPolicyCannotSoftenUnreadable: a policy that names
// CONFIG-PARSE-FAILED with a weaker action (or names reviewer teams)
// does not turn an unreadable file's block into a review a team can
// clear: a policy only raises (clearing a block takes reviewers.block,
// which the policy must say explicitly; app/approvals.go).
func TestPolicyCannotSoftenUnreadable(t *testing.T) {
	pol, err := policy.Parse("p.yml", []byte("version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-CONFIG-PARSE-FAILED:\n    action: require_review\n    risk: low\nreviewers:\n  review: [org/team]\n"), agentfiles.PolicyOptions())
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	big := report.Version{Exists: true, TooLarge: true, Unreadable: "over the limit"}
	for _, p := range []string{".claude/settings.json", ".claude/skills/x/SKILL.md", ".claude/agents/x.md", ".codex/rules/x.rules", ".vscode/settings.json", ".cursor/cli.json"} {
		r := Compare(report.Input{Policy: pol, Files: []report.File{{Path: p, Head: big}}})
		if r.Decision != report.DecisionBlock {
			t.Errorf("%s: decision %s under a policy naming the check require_review, want block", p, r.Decision)
		}
	}
	r := Compare(report.Input{Policy: pol, Unread: []string{"a/.claude/settings.json"}})
	if r.Decision != report.DecisionBlock {
		t.Errorf("input over the bound: decision %s, want block", r.Decision)
	}
}
