package diff

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/policy"
)

// agentCase is one change to one agent file and the verdict the
// agent's documented semantics call for (each row cites its source in
// docs/agents.md's tables).
type agentCase struct {
	name       string
	path       string
	base, head string // "" = absent
	decision   Decision
	checks     []string // check IDs expected among the findings (short form)
	witness    string   // a witness expected among the rows' witnesses
	others     []File   // unchanged files of the scope
}

func short(id string) string { return strings.TrimPrefix(id, "SHIP-HOST-BOUNDARY-") }

func runAgentCases(t *testing.T, agentName string, cases []agentCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := File{Path: c.path}
			if c.base != "" {
				f.Base = Version{Exists: true, Data: []byte(c.base)}
			}
			if c.head != "" {
				f.Head = Version{Exists: true, Data: []byte(c.head)}
			}
			r := Compare(Input{Files: append([]File{f}, c.others...)})
			var got []string
			for _, fd := range r.Findings {
				got = append(got, short(fd.CheckID))
				if fd.Agent != agentName {
					t.Errorf("finding %s names agent %q, want %q", fd.CheckID, fd.Agent, agentName)
				}
			}
			for _, ch := range r.Changes {
				if ch.Agent != agentName {
					t.Errorf("change %s names agent %q, want %q", ch.Path, ch.Agent, agentName)
				}
			}
			sort.Strings(got)
			if r.Decision != c.decision {
				t.Errorf("decision %s, want %s\n%s", r.Decision, c.decision, dump(r))
			}
			for _, want := range c.checks {
				found := false
				for _, g := range got {
					found = found || g == want
				}
				if !found {
					t.Errorf("want a %s finding, got %v\n%s", want, got, dump(r))
				}
			}
			if c.witness != "" {
				found := false
				for _, ch := range r.Changes {
					for _, w := range ch.Witnesses {
						found = found || w == c.witness
					}
				}
				if !found {
					t.Errorf("want witness %q\n%s", c.witness, dump(r))
				}
			}
			if len(r.Files) == 0 || r.Files[0].Agent != agentName {
				t.Errorf("files %+v: want the file read as %s", r.Files, agentName)
			}
		})
	}
}

func dump(r Report) string {
	var b strings.Builder
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "  change %s %s %s:%d %q→%q exp=%v w=%v why=%s\n", c.Agent, c.Direction, c.Path, c.Line, c.Before, c.After, c.Expands, c.Witnesses, c.Why)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  finding %s %s %s:%d %s\n", f.Action, short(f.CheckID), f.Path, f.Line, f.Message)
	}
	return b.String()
}

func TestOpenCode(t *testing.T) {
	const p = "opencode.json"
	runAgentCases(t, AgentOpenCode, []agentCase{
		{name: "bash star allow blocks", path: p, base: `{"model": "a"}`, head: `{"model": "a", "permission": {"bash": {"*": "allow"}}}`,
			decision: DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "permission allow string blocks", path: p, base: `{}`, head: `{"permission": "allow"}`, decision: DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "bash string allow blocks", path: p, base: `{}`, head: `{"permission": {"bash": "allow"}}`, decision: DecisionBlock},
		{name: "a launcher allow blocks", path: p, base: `{}`, head: `{"permission": {"bash": {"npx *": "allow"}}}`, decision: DecisionBlock, witness: "npx id"},
		{name: "a narrow allow asks review", path: p, base: `{}`, head: `{"permission": {"bash": {"git status *": "allow"}}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "star spans spaces: git * main", path: p, base: `{}`, head: `{"permission": {"bash": {"git * main": "allow"}}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "a deny removed", path: p, base: `{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`, head: `{"permission": {"bash": {"*": "ask"}}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "reorder widens: catch-all allow moved last", path: p,
			base: `{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`, head: `{"permission": {"bash": {"rm *": "deny", "*": "allow"}}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}, witness: "rm"},
		{name: "reorder narrows: deny moved last", path: p,
			base: `{"permission": {"bash": {"rm *": "deny", "*": "ask"}}}`, head: `{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`,
			decision: DecisionAllow},
		{name: "allow to ask narrows", path: p, base: `{"permission": {"bash": {"git *": "allow"}}}`, head: `{"permission": {"bash": {"git *": "ask"}}}`, decision: DecisionAllow},
		{name: "a model name is unrelated", path: p, base: `{"model": "anthropic/a"}`, head: `{"model": "anthropic/b"}`, decision: DecisionAllow},
		{name: "a comment is unrelated", path: "opencode.jsonc", base: "{\"permission\": {\"bash\": {\"git *\": \"allow\"}}}", head: "{\n// keep git\n\"permission\": {\"bash\": {\"git *\": \"allow\",},},}", decision: DecisionAllow},
		{name: "respelled key order across tools", path: p, base: `{"permission": {"edit": "ask", "bash": "ask"}}`, head: `{"permission": {"bash": "ask", "edit": "ask"}}`, decision: DecisionAllow},
		{name: "a later star key overrides an earlier bash allow", path: p,
			base: `{"permission": {"bash": {"git *": "allow"}, "*": "ask"}}`, head: `{"permission": {"*": "ask", "bash": {"git *": "allow"}}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-ASK-REMOVED"}, witness: "git"},
		{name: "a catch-all allow reads as a real command", path: p, base: `{}`, head: `{"permission": {"bash": {"*": "allow"}}}`,
			decision: DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}, witness: "whoami"},
		{name: "edit allow", path: p, base: `{}`, head: `{"permission": {"edit": "allow"}}`, decision: DecisionBlock},
		{name: "external directory allow asks review", path: p, base: `{}`, head: `{"permission": {"external_directory": {"~/src/*": "allow"}}}`, decision: DecisionRequireReview},
		{name: "an agent's own bash allow", path: p, base: `{"permission": {"bash": "ask"}}`, head: `{"permission": {"bash": "ask"}, "agent": {"build": {"permission": {"bash": {"*": "allow"}}}}}`, decision: DecisionBlock},
		{name: "V2 permissions list", path: p, base: `{}`, head: `{"permissions": [{"action": "shell", "resource": "*", "effect": "allow"}]}`, decision: DecisionBlock},
		{name: "mcp server added", path: p, base: `{}`, head: `{"mcp": {"x": {"type": "local", "command": ["npx", "srv"]}}}`, decision: DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "plugin added", path: p, base: `{}`, head: `{"plugin": ["opencode-x"]}`, decision: DecisionRequireReview, checks: []string{"PLUGIN-ADDED"}},
		{name: "formatter command", path: p, base: `{}`, head: `{"formatter": {"x": {"command": ["sh", "-c", "curl x | sh"]}}}`, decision: DecisionRequireReview, checks: []string{"HOOK-CHANGED"}},
		{name: "a tool switched back on", path: p, base: `{"tools": {"bash": false}}`, head: `{"tools": {}}`, decision: DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "parse failure", path: p, base: `{}`, head: `{"permission": `, decision: DecisionRequireReview, checks: []string{"CONFIG-PARSE-FAILED"}},
		{name: "invalid action", path: p, base: `{}`, head: `{"permission": {"bash": {"*": "yes"}}}`, decision: DecisionAllow, checks: []string{"PERMISSION-RULE-INVALID"}},
		{name: "a deny in the jsonc sibling still applies", path: p, base: `{}`, head: `{"permission": {"bash": {"rm *": "ask"}}}`,
			others:   []File{{Path: "opencode.jsonc", Base: Version{Exists: true, Data: []byte(`{"permission": {"bash": {"rm *": "deny"}}}`)}, Head: Version{Exists: true, Data: []byte(`{"permission": {"bash": {"rm *": "deny"}}}`)}}},
			decision: DecisionAllow},
	})
}

func TestVSCode(t *testing.T) {
	const p = ".vscode/settings.json"
	runAgentCases(t, AgentVSCode, []agentCase{
		{name: "autoApprove true blocks", path: p, base: `{"editor.tabSize": 2}`, head: `{"editor.tabSize": 2, "chat.tools.autoApprove": true}`,
			decision: DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "global autoApprove true blocks", path: p, base: `{}`, head: `{"chat.tools.global.autoApprove": true}`, decision: DecisionBlock},
		{name: "autoApprove true to false passes", path: p, base: `{"chat.tools.autoApprove": true}`, head: `{"chat.tools.autoApprove": false}`, decision: DecisionAllow},
		{name: "a terminal rule true to false passes", path: p, base: `{"chat.tools.terminal.autoApprove": {"npm test": true}}`, head: `{"chat.tools.terminal.autoApprove": {"npm test": false}}`, decision: DecisionAllow},
		{name: "a terminal prefix rule asks review", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"npm test": true}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "a regex matching everything blocks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/.*/": true}}`, decision: DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "a word regex blocks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^\\w+/": true}}`, decision: DecisionBlock},
		{name: "a launcher prefix blocks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"npx": true}}`, decision: DecisionBlock, witness: "npx id"},
		{name: "a narrow anchored regex asks review", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^git (status|diff)$/": true}}`, decision: DecisionRequireReview},
		{name: "a backreference regex is read as everything", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^(a)\\1/": true}}`, decision: DecisionBlock},
		{name: "a regex matching the empty string never matches", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^\\w*/": true}}`, decision: DecisionAllow},
		{name: "a false rule shadows a new true one", path: p, base: `{"chat.tools.terminal.autoApprove": {"rm": false}}`, head: `{"chat.tools.terminal.autoApprove": {"rm": false, "/^rm -rf/": true}}`, decision: DecisionAllow},
		{name: "removing a false rule under a broad true one", path: p, base: `{"chat.tools.terminal.autoApprove": {"git": true, "git push": false}}`, head: `{"chat.tools.terminal.autoApprove": {"git": true}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-ASK-REMOVED"}, witness: "git push"},
		{name: "the object form", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^curl\\b.*localhost.*$/i": {"approve": true, "matchCommandLine": true}}}`, decision: DecisionRequireReview},
		{name: "master switch off makes rules inert", path: p, base: `{"chat.tools.terminal.enableAutoApprove": false}`, head: `{"chat.tools.terminal.enableAutoApprove": false, "chat.tools.terminal.autoApprove": {"npm test": true}}`, decision: DecisionAllow},
		{name: "master switch back on", path: p, base: `{"chat.tools.terminal.enableAutoApprove": false, "chat.tools.terminal.autoApprove": {"npm test": true}}`, head: `{"chat.tools.terminal.autoApprove": {"npm test": true}}`, decision: DecisionRequireReview},
		{name: "ignore default rules", path: p, base: `{}`, head: `{"chat.tools.terminal.ignoreDefaultAutoApproveRules": true}`, decision: DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "edits everywhere blocks", path: p, base: `{}`, head: `{"chat.tools.edits.autoApprove": {"**": true}}`, decision: DecisionBlock},
		{name: "edits of src ask review", path: p, base: `{}`, head: `{"chat.tools.edits.autoApprove": {"src/**": true}}`, decision: DecisionRequireReview},
		{name: "removing an env guard", path: p, base: `{"chat.tools.edits.autoApprove": {"**": true, "**/.env": false}}`, head: `{"chat.tools.edits.autoApprove": {"**": true}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-ASK-REMOVED"}, witness: ".env"},
		{name: "sandbox off", path: p, base: `{}`, head: `{"chat.tools.terminal.sandbox.enabled": false}`, decision: DecisionRequireReview, checks: []string{"SANDBOX-LOOSENED"}},
		{name: "an unrelated setting and a comment", path: p, base: `{"editor.tabSize": 2}`, head: "{\n  // tabs\n  \"editor.tabSize\": 4,\n}", decision: DecisionAllow},
		{name: "a broken file blocks (VS Code reads what it can)", path: p, base: `{}`, head: `{"chat.tools.autoApprove": true`, decision: DecisionBlock, checks: []string{"CONFIG-PARSE-FAILED"}},
		{name: "an mcp server", path: ".vscode/mcp.json", base: `{"servers": {}}`, head: `{"servers": {"gh": {"type": "stdio", "command": "npx", "args": ["-y", "x"]}}}`, decision: DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "a leading assignment still asks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^FOO=1 ls$/": true}}`, decision: DecisionAllow},
	})
}

func TestCursor(t *testing.T) {
	const p = ".cursor/cli.json"
	runAgentCases(t, AgentCursor, []agentCase{
		{name: "Shell(bash) blocks: the first token is all it checks", path: p, base: `{}`, head: `{"permissions": {"allow": ["Shell(bash)"]}}`, decision: DecisionBlock, witness: "bash"},
		{name: "a glob Shell blocks", path: p, base: `{}`, head: `{"permissions": {"allow": ["Shell(*)"]}}`, decision: DecisionBlock},
		{name: "Shell(git) asks review", path: p, base: `{}`, head: `{"permissions": {"allow": ["Shell(git)"]}}`, decision: DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "a deny removed", path: p, base: `{"permissions": {"allow": ["Shell(git)"], "deny": ["Shell(git:push *)"]}}`, head: `{"permissions": {"allow": ["Shell(git)"]}}`,
			decision: DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "a deny added narrows", path: p, base: `{"permissions": {"allow": ["Shell(git)"]}}`, head: `{"permissions": {"allow": ["Shell(git)"], "deny": ["Shell(git:push)"]}}`, decision: DecisionAllow},
		{name: "Write(**) blocks", path: p, base: `{}`, head: `{"permissions": {"allow": ["Write(**)"]}}`, decision: DecisionBlock},
		{name: "Read(**) asks review", path: p, base: `{}`, head: `{"permissions": {"allow": ["Read(**)"]}}`, decision: DecisionRequireReview},
		{name: "WebFetch everywhere blocks", path: p, base: `{}`, head: `{"permissions": {"allow": ["WebFetch(*)"]}}`, decision: DecisionBlock},
		{name: "reordered lists pass", path: p, base: `{"permissions": {"allow": ["Shell(ls)", "Shell(git)"]}}`, head: `{"permissions": {"allow": ["Shell(git)", "Shell(ls)"]}}`, decision: DecisionAllow},
		{name: "an mcp server", path: ".cursor/mcp.json", base: `{}`, head: `{"mcpServers": {"x": {"url": "https://mcp.example.com/sse"}}}`, decision: DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "an invalid deny rule", path: p, base: `{}`, head: `{"permissions": {"deny": ["Bash(rm)"]}}`, decision: DecisionAllow, checks: []string{"PERMISSION-RULE-INVALID"}},
	})
}

func TestCopilotCLI(t *testing.T) {
	runAgentCases(t, AgentCopilotCLI, []agentCase{
		{name: "a skill allowing shell blocks", path: ".github/skills/deploy/SKILL.md", base: "", head: "---\nname: deploy\nallowed-tools: shell\n---\n", decision: DecisionBlock},
		{name: "a skill allowing git asks review", path: ".github/skills/git/SKILL.md", base: "---\nname: git\n---\n", head: "---\nname: git\nallowed-tools: shell(git:*)\n---\n", decision: DecisionRequireReview},
		{name: "a skill's description edit passes", path: ".github/skills/git/SKILL.md", base: "---\nname: git\nallowed-tools: shell(git:*)\n---\nold\n", head: "---\nname: git\nallowed-tools: shell(git:*)\n---\nnew text\n", decision: DecisionAllow},
		{name: "a repo hook", path: ".github/hooks/audit.json", base: "", head: `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./x.sh"}]}}`, decision: DecisionRequireReview, checks: []string{"HOOK-CHANGED"}},
		{name: "settings hooks and plugins", path: ".github/copilot/settings.json", base: `{}`, head: `{"hooks": {"sessionStart": [{"command": "x"}]}, "enabledPlugins": {"p@m": true}}`,
			decision: DecisionRequireReview, checks: []string{"HOOK-CHANGED", "PLUGIN-ADDED"}},
		{name: "a denied URL removed", path: ".github/copilot/settings.json", base: `{"deniedUrls": ["evil.example"]}`, head: `{}`, decision: DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "a non-repo key is ignored", path: ".github/copilot/settings.json", base: `{}`, head: `{"defaultPermissionMode": "allow-all"}`, decision: DecisionAllow, checks: []string{"CONFIG-UNKNOWN-KEY"}},
		{name: "permissions allow shell blocks", path: ".github/copilot/settings.json", base: `{}`, head: `{"permissions": {"allow": ["shell"]}}`, decision: DecisionBlock},
		{name: "the model name is unrelated", path: ".github/copilot/settings.json", base: `{"model": "a"}`, head: `{"model": "b"}`, decision: DecisionAllow},
		{name: "an mcp server", path: ".github/mcp.json", base: `{"mcpServers": {}}`, head: `{"mcpServers": {"x": {"command": "npx"}}}`, decision: DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "a deny in settings shadows a skill's allow", path: ".github/skills/x/SKILL.md", base: "", head: "---\nallowed-tools: shell(rm:*)\n---\n",
			others:   []File{{Path: ".github/copilot/settings.json", Base: Version{Exists: true, Data: []byte(`{"permissions": {"deny": ["shell(rm:*)"]}}`)}, Head: Version{Exists: true, Data: []byte(`{"permissions": {"deny": ["shell(rm:*)"]}}`)}}},
			decision: DecisionAllow},
	})
}

// TestAgentTooManyRules: past the rule bound the comparison fails closed.
func TestAgentTooManyRules(t *testing.T) {
	var pats []string
	for i := 0; i <= maxAgentRules; i++ { // one past the bound
		pats = append(pats, fmt.Sprintf("%q: %q", fmt.Sprintf("cmd%d *", i), "ask"))
	}
	base := `{"permission": {"bash": {` + strings.Join(pats, ", ") + `}}}`
	head := `{"permission": {"bash": {` + strings.Join(append(pats, `"zz *": "allow"`), ", ") + `}}}`
	r := Compare(Input{Files: []File{{Path: "opencode.json", Base: Version{Exists: true, Data: []byte(base)}, Head: Version{Exists: true, Data: []byte(head)}}}})
	if r.Decision != DecisionBlock || len(r.Findings) == 0 || r.Findings[0].Evidence != "too_complex" {
		t.Fatalf("want a blocking too_complex finding:\n%s", dump(r))
	}
}

// TestAgentPolicyScopes: a raise scoped to one agent, and intents checked
// against another agent's effective policy.
func TestAgentPolicyScopes(t *testing.T) {
	pol, err := policy.Parse("p.yml", []byte("version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    action: block\n    agents: [vscode]\nintent:\n  denied: [\"rm -rf /\"]\n  asked: [\"git push origin main\"]\n  agents: [opencode]\n"), PolicyOptions())
	if err != nil {
		t.Fatal(err)
	}
	cmp := func(p, base, head string) Report {
		return Compare(Input{Policy: pol, Files: []File{{Path: p, Base: Version{Exists: true, Data: []byte(base)}, Head: Version{Exists: true, Data: []byte(head)}}}})
	}
	if r := cmp(".vscode/settings.json", `{}`, `{"chat.tools.terminal.autoApprove": {"npm test": true}}`); r.Decision != DecisionBlock {
		t.Errorf("vscode: the raise applies: %s\n%s", r.Decision, dump(r))
	}
	if r := cmp(".cursor/cli.json", `{}`, `{"permissions": {"allow": ["Shell(git)"]}}`); r.Decision != DecisionRequireReview {
		t.Errorf("cursor: the raise does not apply: %s\n%s", r.Decision, dump(r))
	}
	r := cmp("opencode.json", `{"permission": {"bash": {"rm *": "deny", "git push *": "ask"}}}`, `{"permission": {"bash": {"rm *": "deny", "git push *": "ask", "*": "allow"}}}`)
	var intents []string
	for _, f := range r.Findings {
		if f.CheckID == CheckIntent {
			intents = append(intents, f.Evidence)
			if f.Agent != AgentOpenCode || f.Action != policy.Block {
				t.Errorf("intent finding %+v", f)
			}
		}
	}
	if len(intents) != 2 {
		t.Errorf("want both intents violated (the catch-all allow comes last), got %v\n%s", intents, dump(r))
	}
	if r := cmp("opencode.json", `{}`, `{"permission": {"bash": {"rm *": "deny", "git push *": "ask"}}}`); len(r.Findings) != 0 {
		t.Errorf("intents kept: %s", dump(r))
	}
}

func TestVSCodeTruthy(t *testing.T) {
	runAgentCases(t, AgentVSCode, []agentCase{
		{name: "a string autoApprove fails closed", path: ".vscode/settings.json", base: `{}`, head: `{"chat.tools.autoApprove": "yes"}`, decision: DecisionBlock},
		{name: "a zero is not truthy", path: ".vscode/settings.json", base: `{}`, head: `{"chat.tools.autoApprove": 0}`, decision: DecisionAllow},
	})
}
