package judge

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// agentCase is one change to one agent file and the verdict the
// agent's documented semantics call for (each row cites its source in
// docs/agents.md's tables).
type agentCase struct {
	name       string
	path       string
	base, head string // "" = absent
	decision   report.Decision
	checks     []string      // check IDs expected among the findings (short form)
	witness    string        // a witness expected among the rows' witnesses
	others     []report.File // unchanged files of the scope
}

func short(id string) string { return strings.TrimPrefix(id, "SHIP-HOST-BOUNDARY-") }

func runAgentCases(t *testing.T, agentName string, cases []agentCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := report.File{Path: c.path}
			if c.base != "" {
				f.Base = report.Version{Exists: true, Data: []byte(c.base)}
			}
			if c.head != "" {
				f.Head = report.Version{Exists: true, Data: []byte(c.head)}
			}
			r := Compare(report.Input{Files: append([]report.File{f}, c.others...)})
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

func dump(r report.Report) string {
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
	runAgentCases(t, agentfiles.AgentOpenCode, []agentCase{
		{name: "bash star allow blocks", path: p, base: `{"model": "a"}`, head: `{"model": "a", "permission": {"bash": {"*": "allow"}}}`,
			decision: report.DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "permission allow string blocks", path: p, base: `{}`, head: `{"permission": "allow"}`, decision: report.DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "bash string allow blocks", path: p, base: `{}`, head: `{"permission": {"bash": "allow"}}`, decision: report.DecisionBlock},
		{name: "a launcher allow blocks", path: p, base: `{}`, head: `{"permission": {"bash": {"npx *": "allow"}}}`, decision: report.DecisionBlock, witness: "npx id"},
		{name: "a narrow allow asks review", path: p, base: `{}`, head: `{"permission": {"bash": {"git status *": "allow"}}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "star spans spaces: git * main", path: p, base: `{}`, head: `{"permission": {"bash": {"git * main": "allow"}}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "a deny removed", path: p, base: `{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`, head: `{"permission": {"bash": {"*": "ask"}}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "reorder widens: catch-all allow moved last", path: p,
			base: `{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`, head: `{"permission": {"bash": {"rm *": "deny", "*": "allow"}}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}, witness: "rm"},
		{name: "reorder narrows: deny moved last", path: p,
			base: `{"permission": {"bash": {"rm *": "deny", "*": "ask"}}}`, head: `{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`,
			decision: report.DecisionAllow},
		{name: "allow to ask narrows", path: p, base: `{"permission": {"bash": {"git *": "allow"}}}`, head: `{"permission": {"bash": {"git *": "ask"}}}`, decision: report.DecisionAllow},
		{name: "a model name is unrelated", path: p, base: `{"model": "anthropic/a"}`, head: `{"model": "anthropic/b"}`, decision: report.DecisionAllow},
		{name: "a comment is unrelated", path: "opencode.jsonc", base: "{\"permission\": {\"bash\": {\"git *\": \"allow\"}}}", head: "{\n// keep git\n\"permission\": {\"bash\": {\"git *\": \"allow\",},},}", decision: report.DecisionAllow},
		{name: "respelled key order across tools", path: p, base: `{"permission": {"edit": "ask", "bash": "ask"}}`, head: `{"permission": {"bash": "ask", "edit": "ask"}}`, decision: report.DecisionAllow},
		{name: "a later star key overrides an earlier bash allow", path: p,
			base: `{"permission": {"bash": {"git *": "allow"}, "*": "ask"}}`, head: `{"permission": {"*": "ask", "bash": {"git *": "allow"}}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ASK-REMOVED"}, witness: "git"},
		{name: "a catch-all allow reads as a real command", path: p, base: `{}`, head: `{"permission": {"bash": {"*": "allow"}}}`,
			decision: report.DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}, witness: "whoami"},
		{name: "edit allow", path: p, base: `{}`, head: `{"permission": {"edit": "allow"}}`, decision: report.DecisionBlock},
		{name: "external directory allow asks review", path: p, base: `{}`, head: `{"permission": {"external_directory": {"~/src/*": "allow"}}}`, decision: report.DecisionRequireReview},
		{name: "an agent's own bash allow", path: p, base: `{"permission": {"bash": "ask"}}`, head: `{"permission": {"bash": "ask"}, "agent": {"build": {"permission": {"bash": {"*": "allow"}}}}}`, decision: report.DecisionBlock},
		{name: "V2 permissions list", path: p, base: `{}`, head: `{"permissions": [{"action": "shell", "resource": "*", "effect": "allow"}]}`, decision: report.DecisionBlock},
		{name: "mcp server added", path: p, base: `{}`, head: `{"mcp": {"x": {"type": "local", "command": ["npx", "srv"]}}}`, decision: report.DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "plugin added", path: p, base: `{}`, head: `{"plugin": ["opencode-x"]}`, decision: report.DecisionRequireReview, checks: []string{"PLUGIN-ADDED"}},
		{name: "formatter command", path: p, base: `{}`, head: `{"formatter": {"x": {"command": ["sh", "-c", "curl x | sh"]}}}`, decision: report.DecisionRequireReview, checks: []string{"HOOK-CHANGED"}},
		{name: "a tool switched back on", path: p, base: `{"tools": {"bash": false}}`, head: `{"tools": {}}`, decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "parse failure", path: p, base: `{}`, head: `{"permission": `, decision: report.DecisionRequireReview, checks: []string{"CONFIG-PARSE-FAILED"}},
		{name: "invalid action", path: p, base: `{}`, head: `{"permission": {"bash": {"*": "yes"}}}`, decision: report.DecisionAllow, checks: []string{"PERMISSION-RULE-INVALID"}},
		{name: "a deny in the jsonc sibling still applies", path: p, base: `{}`, head: `{"permission": {"bash": {"rm *": "ask"}}}`,
			others:   []report.File{{Path: "opencode.jsonc", Base: report.Version{Exists: true, Data: []byte(`{"permission": {"bash": {"rm *": "deny"}}}`)}, Head: report.Version{Exists: true, Data: []byte(`{"permission": {"bash": {"rm *": "deny"}}}`)}}},
			decision: report.DecisionAllow},
	})
}

func TestVSCode(t *testing.T) {
	const p = ".vscode/settings.json"
	runAgentCases(t, agentfiles.AgentVSCode, []agentCase{
		{name: "autoApprove true blocks", path: p, base: `{"editor.tabSize": 2}`, head: `{"editor.tabSize": 2, "chat.tools.autoApprove": true}`,
			decision: report.DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "global autoApprove true blocks", path: p, base: `{}`, head: `{"chat.tools.global.autoApprove": true}`, decision: report.DecisionBlock},
		{name: "autoApprove true to false passes", path: p, base: `{"chat.tools.autoApprove": true}`, head: `{"chat.tools.autoApprove": false}`, decision: report.DecisionAllow},
		{name: "a terminal rule true to false passes", path: p, base: `{"chat.tools.terminal.autoApprove": {"npm test": true}}`, head: `{"chat.tools.terminal.autoApprove": {"npm test": false}}`, decision: report.DecisionAllow},
		{name: "a terminal prefix rule asks review", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"npm test": true}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "a regex matching everything blocks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/.*/": true}}`, decision: report.DecisionBlock, checks: []string{"PERMISSION-WILDCARD-ALLOW"}},
		{name: "a word regex blocks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^\\w+/": true}}`, decision: report.DecisionBlock},
		{name: "a launcher prefix blocks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"npx": true}}`, decision: report.DecisionBlock, witness: "npx id"},
		{name: "a narrow anchored regex asks review", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^git (status|diff)$/": true}}`, decision: report.DecisionRequireReview},
		{name: "a backreference regex is read as everything", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^(a)\\1/": true}}`, decision: report.DecisionBlock},
		{name: "a regex matching the empty string never matches", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^\\w*/": true}}`, decision: report.DecisionAllow},
		{name: "a false rule shadows a new true one", path: p, base: `{"chat.tools.terminal.autoApprove": {"rm": false}}`, head: `{"chat.tools.terminal.autoApprove": {"rm": false, "/^rm -rf/": true}}`, decision: report.DecisionAllow},
		{name: "removing a false rule under a broad true one", path: p, base: `{"chat.tools.terminal.autoApprove": {"git": true, "git push": false}}`, head: `{"chat.tools.terminal.autoApprove": {"git": true}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ASK-REMOVED"}, witness: "git push"},
		{name: "the object form", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^curl\\b.*localhost.*$/i": {"approve": true, "matchCommandLine": true}}}`, decision: report.DecisionRequireReview},
		{name: "master switch off makes rules inert", path: p, base: `{"chat.tools.terminal.enableAutoApprove": false}`, head: `{"chat.tools.terminal.enableAutoApprove": false, "chat.tools.terminal.autoApprove": {"npm test": true}}`, decision: report.DecisionAllow},
		{name: "master switch back on", path: p, base: `{"chat.tools.terminal.enableAutoApprove": false, "chat.tools.terminal.autoApprove": {"npm test": true}}`, head: `{"chat.tools.terminal.autoApprove": {"npm test": true}}`, decision: report.DecisionRequireReview},
		{name: "ignore default rules", path: p, base: `{}`, head: `{"chat.tools.terminal.ignoreDefaultAutoApproveRules": true}`, decision: report.DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "edits everywhere blocks", path: p, base: `{}`, head: `{"chat.tools.edits.autoApprove": {"**": true}}`, decision: report.DecisionBlock},
		{name: "edits of src ask review", path: p, base: `{}`, head: `{"chat.tools.edits.autoApprove": {"src/**": true}}`, decision: report.DecisionRequireReview},
		{name: "removing an env guard", path: p, base: `{"chat.tools.edits.autoApprove": {"**": true, "**/.env": false}}`, head: `{"chat.tools.edits.autoApprove": {"**": true}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ASK-REMOVED"}, witness: ".env"},
		{name: "sandbox off", path: p, base: `{}`, head: `{"chat.tools.terminal.sandbox.enabled": false}`, decision: report.DecisionRequireReview, checks: []string{"SANDBOX-LOOSENED"}},
		{name: "an unrelated setting and a comment", path: p, base: `{"editor.tabSize": 2}`, head: "{\n  // tabs\n  \"editor.tabSize\": 4,\n}", decision: report.DecisionAllow},
		{name: "a broken file blocks (VS Code reads what it can)", path: p, base: `{}`, head: `{"chat.tools.autoApprove": true`, decision: report.DecisionBlock, checks: []string{"CONFIG-PARSE-FAILED"}},
		{name: "an mcp server", path: ".vscode/mcp.json", base: `{"servers": {}}`, head: `{"servers": {"gh": {"type": "stdio", "command": "npx", "args": ["-y", "x"]}}}`, decision: report.DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "a leading assignment still asks", path: p, base: `{}`, head: `{"chat.tools.terminal.autoApprove": {"/^FOO=1 ls$/": true}}`, decision: report.DecisionAllow},
	})
}

func TestCursor(t *testing.T) {
	const p = ".cursor/cli.json"
	runAgentCases(t, agentfiles.AgentCursor, []agentCase{
		{name: "Shell(bash) blocks: the first token is all it checks", path: p, base: `{}`, head: `{"permissions": {"allow": ["Shell(bash)"]}}`, decision: report.DecisionBlock, witness: "bash"},
		{name: "a glob Shell blocks", path: p, base: `{}`, head: `{"permissions": {"allow": ["Shell(*)"]}}`, decision: report.DecisionBlock},
		{name: "Shell(git) asks review", path: p, base: `{}`, head: `{"permissions": {"allow": ["Shell(git)"]}}`, decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
		{name: "a deny removed", path: p, base: `{"permissions": {"allow": ["Shell(git)"], "deny": ["Shell(git:push *)"]}}`, head: `{"permissions": {"allow": ["Shell(git)"]}}`,
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "a deny added narrows", path: p, base: `{"permissions": {"allow": ["Shell(git)"]}}`, head: `{"permissions": {"allow": ["Shell(git)"], "deny": ["Shell(git:push)"]}}`, decision: report.DecisionAllow},
		{name: "Write(**) blocks", path: p, base: `{}`, head: `{"permissions": {"allow": ["Write(**)"]}}`, decision: report.DecisionBlock},
		{name: "Read(**) asks review", path: p, base: `{}`, head: `{"permissions": {"allow": ["Read(**)"]}}`, decision: report.DecisionRequireReview},
		{name: "WebFetch everywhere blocks", path: p, base: `{}`, head: `{"permissions": {"allow": ["WebFetch(*)"]}}`, decision: report.DecisionBlock},
		{name: "reordered lists pass", path: p, base: `{"permissions": {"allow": ["Shell(ls)", "Shell(git)"]}}`, head: `{"permissions": {"allow": ["Shell(git)", "Shell(ls)"]}}`, decision: report.DecisionAllow},
		{name: "an mcp server", path: ".cursor/mcp.json", base: `{}`, head: `{"mcpServers": {"x": {"url": "https://mcp.example.com/sse"}}}`, decision: report.DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "an invalid deny rule", path: p, base: `{}`, head: `{"permissions": {"deny": ["Bash(rm)"]}}`, decision: report.DecisionAllow, checks: []string{"PERMISSION-RULE-INVALID"}},
	})
}

func TestCopilotCLI(t *testing.T) {
	runAgentCases(t, agentfiles.AgentCopilotCLI, []agentCase{
		{name: "a skill allowing shell blocks", path: ".github/skills/deploy/SKILL.md", base: "", head: "---\nname: deploy\nallowed-tools: shell\n---\n", decision: report.DecisionBlock},
		{name: "a skill allowing git asks review", path: ".github/skills/git/SKILL.md", base: "---\nname: git\n---\n", head: "---\nname: git\nallowed-tools: shell(git:*)\n---\n", decision: report.DecisionRequireReview},
		{name: "a skill's description edit passes", path: ".github/skills/git/SKILL.md", base: "---\nname: git\nallowed-tools: shell(git:*)\n---\nold\n", head: "---\nname: git\nallowed-tools: shell(git:*)\n---\nnew text\n", decision: report.DecisionAllow},
		{name: "a repo hook", path: ".github/hooks/audit.json", base: "", head: `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./x.sh"}]}}`, decision: report.DecisionRequireReview, checks: []string{"HOOK-CHANGED"}},
		{name: "settings hooks and plugins", path: ".github/copilot/settings.json", base: `{}`, head: `{"hooks": {"sessionStart": [{"command": "x"}]}, "enabledPlugins": {"p@m": true}}`,
			decision: report.DecisionRequireReview, checks: []string{"HOOK-CHANGED", "PLUGIN-ADDED"}},
		{name: "a denied URL removed", path: ".github/copilot/settings.json", base: `{"deniedUrls": ["evil.example"]}`, head: `{}`, decision: report.DecisionRequireReview, checks: []string{"PERMISSION-DENY-REMOVED"}},
		{name: "a non-repo key is ignored", path: ".github/copilot/settings.json", base: `{}`, head: `{"defaultPermissionMode": "allow-all"}`, decision: report.DecisionAllow, checks: []string{"CONFIG-UNKNOWN-KEY"}},
		// Repository permissions are inert in 1.0.102 (managedOnly;
		// TestCopilotRuntime measured them changing no decision).
		{name: "permissions allow shell is inert (information)", path: ".github/copilot/settings.json", base: `{}`, head: `{"permissions": {"allow": ["shell"]}}`, decision: report.DecisionAllow, checks: []string{"PERMISSION-RULE-INVALID"}},
		{name: "the model name is unrelated", path: ".github/copilot/settings.json", base: `{"model": "a"}`, head: `{"model": "b"}`, decision: report.DecisionAllow},
		{name: "an mcp server", path: ".github/mcp.json", base: `{"mcpServers": {}}`, head: `{"mcpServers": {"x": {"command": "npx"}}}`, decision: report.DecisionRequireReview, checks: []string{"MCP-SERVER-ADDED"}},
		{name: "a repository deny does not shadow a skill's allow (it is inert)", path: ".github/skills/x/SKILL.md", base: "", head: "---\nallowed-tools: shell(rm:*)\n---\n",
			others:   []report.File{{Path: ".github/copilot/settings.json", Base: report.Version{Exists: true, Data: []byte(`{"permissions": {"deny": ["shell(rm:*)"]}}`)}, Head: report.Version{Exists: true, Data: []byte(`{"permissions": {"deny": ["shell(rm:*)"]}}`)}}},
			decision: report.DecisionRequireReview, checks: []string{"PERMISSION-ALLOW-EXPANDED"}},
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
	r := Compare(report.Input{Files: []report.File{{Path: "opencode.json", Base: report.Version{Exists: true, Data: []byte(base)}, Head: report.Version{Exists: true, Data: []byte(head)}}}})
	if r.Decision != report.DecisionBlock || len(r.Findings) == 0 || r.Findings[0].Evidence != "too_complex" {
		t.Fatalf("want a blocking too_complex finding:\n%s", dump(r))
	}
}

// TestAgentPolicyScopes: a raise scoped to one agent, and intents checked
// against another agent's effective policy.
func TestAgentPolicyScopes(t *testing.T) {
	pol, err := policy.Parse("p.yml", []byte("version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    action: block\n    agents: [vscode]\nintent:\n  denied: [\"rm -rf /\"]\n  asked: [\"git push origin main\"]\n  agents: [opencode]\n"), agentfiles.PolicyOptions())
	if err != nil {
		t.Fatal(err)
	}
	cmp := func(p, base, head string) report.Report {
		return Compare(report.Input{Policy: pol, Files: []report.File{{Path: p, Base: report.Version{Exists: true, Data: []byte(base)}, Head: report.Version{Exists: true, Data: []byte(head)}}}})
	}
	if r := cmp(".vscode/settings.json", `{}`, `{"chat.tools.terminal.autoApprove": {"npm test": true}}`); r.Decision != report.DecisionBlock {
		t.Errorf("vscode: the raise applies: %s\n%s", r.Decision, dump(r))
	}
	if r := cmp(".cursor/cli.json", `{}`, `{"permissions": {"allow": ["Shell(git)"]}}`); r.Decision != report.DecisionRequireReview {
		t.Errorf("cursor: the raise does not apply: %s\n%s", r.Decision, dump(r))
	}
	r := cmp("opencode.json", `{"permission": {"bash": {"rm *": "deny", "git push *": "ask"}}}`, `{"permission": {"bash": {"rm *": "deny", "git push *": "ask", "*": "allow"}}}`)
	var intents []string
	for _, f := range r.Findings {
		if f.CheckID == report.CheckIntent {
			intents = append(intents, f.Evidence)
			if f.Agent != agentfiles.AgentOpenCode || f.Action != policy.Block {
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
	runAgentCases(t, agentfiles.AgentVSCode, []agentCase{
		{name: "a string autoApprove fails closed", path: ".vscode/settings.json", base: `{}`, head: `{"chat.tools.autoApprove": "yes"}`, decision: report.DecisionBlock},
		{name: "a zero is not truthy", path: ".vscode/settings.json", base: `{}`, head: `{"chat.tools.autoApprove": 0}`, decision: report.DecisionAllow},
	})
}
