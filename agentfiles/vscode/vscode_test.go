package vscode

import (
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// src is VS Code's CommandLineAutoApprover, the semantics these rows
// follow (read 2026-12-01).
const src = "microsoft/vscode src/vs/workbench/contrib/terminalContrib/chatAgentTools/browser/commandLineAutoApprover.ts"

// TestTerminalDecisions holds the terminal rules to VS Code's algorithm,
// each row naming the behaviour of the source it checks.
func TestTerminalDecisions(t *testing.T) {
	cases := []struct {
		why, rules, call string
		want             agent.Decision
	}{
		{"a string key is ^key\\b", `{"git": true}`, "git status", agent.Allow},
		{"\\b: gitx is not git", `{"git": true}`, "gitx status", agent.Ask},
		{"\\b: git-lfs starts with the word git", `{"git": true}`, "git-lfs pull", agent.Allow},
		{"a string key matches the start only", `{"status": true}`, "git status", agent.Ask},
		{"deny list first: false wins", `{"git": true, "git push": false}`, "git push origin", agent.Ask},
		{"deny list first, whatever the order", `{"git push": false, "git": true}`, "git push origin", agent.Ask},
		{"regex keys are JavaScript regexes", `{"/^npm (test|run lint)$/": true}`, "npm run lint", agent.Allow},
		{"regex keys search (unanchored)", `{"/lint/": true}`, "npm run lint --fix", agent.Allow},
		{"flags after the last slash", `{"/^CURL/i": true}`, "curl x", agent.Allow},
		{"/.*/ matches everything", `{"/.*/": true}`, "rm -rf /", agent.Allow},
		{"a regex matching the empty string never matches (regExpLeadsToEndlessLoop)", `{"/x*/": true}`, "xxx", agent.Ask},
		{"/^/ is exempt from the endless-loop test", `{"/^/": true}`, "anything", agent.Allow},
		{"an invalid regex never matches", `{"/(/": true}`, "(", agent.Ask},
		{"the empty key never matches", `{"": true}`, "ls", agent.Ask},
		{"null entries are ignored", `{"ls": null}`, "ls", agent.Ask},
		{"object form approve", `{"ls": {"approve": true}}`, "ls -la", agent.Allow},
		{"object form approve false", `{"ls": true, "/-la/": {"approve": false}}`, "ls -la", agent.Ask},
		{"path-like keys match either separator", `{"./scripts/test.sh": true}`, `./scripts\test.sh`, agent.Allow},
		{"path-like keys allow a leading ./", `{"scripts/test.sh": true}`, "./scripts/test.sh", agent.Allow},
		{"a leading VAR=value assignment always asks", `{"/.*/": true}`, "FOO=1 ls", agent.Ask},
		{"regex special characters in a string key are literal", `{"a.b": true}`, "axb", agent.Ask},
	}
	for _, c := range cases {
		d, err := Read(".vscode/settings.json", []byte(`{"chat.tools.terminal.autoApprove": `+c.rules+`}`))
		if err != nil {
			t.Fatalf("%s: %v", c.why, err)
		}
		if got, _ := Combine([]*agent.Doc{d}).Decide(agent.Shell, c.call); got != c.want {
			t.Errorf("%s (%s): %s under %s = %v, want %v", src, c.why, c.call, c.rules, got, c.want)
		}
	}
}

func TestEditDecisions(t *testing.T) {
	const docs = "https://code.visualstudio.com/docs/copilot/security (chat.tools.edits.autoApprove: glob → bool)"
	cases := []struct {
		rules, path string
		want        agent.Decision
	}{
		{`{"**": true}`, "src/a.go", agent.Allow},
		{`{"**": true, "**/.env": false}`, "config/.env", agent.Ask},
		{`{"src/**": true}`, "lib/a.go", agent.Ask},
		{`{"*.md": true}`, "docs/a.md", agent.Ask},
	}
	for _, c := range cases {
		d, err := Read(".vscode/settings.json", []byte(`{"chat.tools.edits.autoApprove": `+c.rules+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := Combine([]*agent.Doc{d}).Decide(agent.Write, c.path); got != c.want {
			t.Errorf("%s: %s under %s = %v, want %v", docs, c.path, c.rules, got, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for p, want := range map[string][2]string{".vscode/settings.json": {Settings, ""}, "a/.vscode/mcp.json": {MCP, "a"}} {
		k, s, ok := Classify(p)
		if !ok || k != want[0] || s != want[1] {
			t.Errorf("Classify(%s) = %s %q %v", p, k, s, ok)
		}
	}
	for _, p := range []string{".vscode/launch.json", "vscode/settings.json", "settings.json"} {
		if _, _, ok := Classify(p); ok {
			t.Errorf("Classify(%s) accepted", p)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"chat.tools.autoApprove": true}`, `{"chat.tools.terminal.autoApprove": {"/^a(b|c)*\\b/i": true, "x": {"approve": false, "matchCommandLine": true}}}`,
		"{// c\n\"chat.tools.edits.autoApprove\": {\"**/*.{js,ts}\": true,},}", `{"chat.tools.eligibleForAutoApproval": {"runTask": false}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Read(".vscode/settings.json", []byte(s))
		if err != nil {
			if _, ok := err.(*agent.ParseError); !ok {
				t.Fatalf("error %T is not a ParseError", err)
			}
			return
		}
		p := Combine([]*agent.Doc{d})
		for _, surf := range agent.Surfaces(p) {
			p.Decide(surf, "git push origin main")
		}
	})
}

// TestWorkspaceFiles: a *.code-workspace file's settings and a dev
// container's customizations.vscode.settings are workspace settings
// (https://code.visualstudio.com/docs/editing/workspaces/multi-root-workspaces#_settings,
// https://containers.dev/supporting#visual-studio-code), each its own scope.
func TestWorkspaceFiles(t *testing.T) {
	for p, want := range map[string]string{"app.code-workspace": Workspace, "x/y.code-workspace": Workspace, ".devcontainer/devcontainer.json": DevContainer,
		".devcontainer.json": DevContainer, ".devcontainer/py/devcontainer.json": DevContainer, "a/.devcontainer/devcontainer.json": DevContainer} {
		if k, s, ok := Classify(p); !ok || k != want || s != p {
			t.Errorf("Classify(%s) = %s %q %v, want %s", p, k, s, ok, want)
		}
	}
	for _, p := range []string{".code-workspace", "devcontainer.json", ".devcontainer/a/b/devcontainer.json"} {
		if _, _, ok := Classify(p); ok {
			t.Errorf("Classify(%s) accepted", p)
		}
	}
	for file, data := range map[string]string{
		"app.code-workspace":              `{"folders": [], "settings": {"chat.tools.autoApprove": true}}`,
		".devcontainer/devcontainer.json": "{// c\n\"customizations\": {\"vscode\": {\"settings\": {\"chat.tools.autoApprove\": true}}}}",
	} {
		d, err := Read(file, []byte(data))
		if err != nil || len(d.Settings) != 1 || !d.Settings[0].Exec {
			t.Errorf("%s: %v %+v", file, err, d)
		}
	}
	if d, _ := Read("app.code-workspace", []byte(`{"chat.tools.autoApprove": true}`)); len(d.Settings) != 0 {
		t.Errorf("a workspace file's top-level key is not a setting: %+v", d.Settings)
	}
}
