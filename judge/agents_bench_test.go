package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/report"
)

// BenchmarkCompareAgents: one change touching every non-Claude adapter
// with realistic rule counts — 60 VS Code terminal rules (prefix and
// regex keys), 60 OpenCode bash patterns (last match wins), 60 Cursor
// rules, 20 Copilot CLI skill tools — each with additions and a removed
// deny: the per-scope region searches of agentcompare.go.
func BenchmarkCompareAgents(b *testing.B) {
	var vs, vsH, oc, ocH, cu, cuH []string
	for i := 0; i < 60; i++ {
		vs = append(vs, fmt.Sprintf("%q: true", fmt.Sprintf("tool%d run", i)))
		oc = append(oc, fmt.Sprintf("%q: %q", fmt.Sprintf("tool%d *", i), "allow"))
		cu = append(cu, fmt.Sprintf("%q", fmt.Sprintf("Shell(tool%d)", i)))
	}
	vs = append(vs, `"/^git (status|diff|log)\\b/": true`, `"rm": false`)
	oc = append([]string{`"*": "ask"`}, append(oc, `"rm *": "deny"`)...)
	vsH = append(append([]string(nil), vs[:len(vs)-1]...), `"/^make\\b.*$/": true`, `"tool99 x": true`)
	ocH = append(append([]string(nil), oc[:len(oc)-1]...), `"git *": "allow"`)
	cuH = append(append([]string(nil), cu...), `"Shell(git:status)"`)
	vsc := func(r []string) string { return `{"chat.tools.terminal.autoApprove": {` + strings.Join(r, ", ") + `}}` }
	opc := func(r []string) string { return `{"permission": {"bash": {` + strings.Join(r, ", ") + `}}}` }
	cur := func(r []string, deny string) string {
		return `{"permissions": {"allow": [` + strings.Join(r, ", ") + `], "deny": [` + deny + `]}}`
	}
	skill := func(tools string) string { return "---\nname: s\nallowed-tools: " + tools + "\n---\n" }
	files := []report.File{
		{Path: ".vscode/settings.json", Base: report.Version{Exists: true, Data: []byte(vsc(vs))}, Head: report.Version{Exists: true, Data: []byte(vsc(vsH))}},
		{Path: "opencode.json", Base: report.Version{Exists: true, Data: []byte(opc(oc))}, Head: report.Version{Exists: true, Data: []byte(opc(ocH))}},
		{Path: ".cursor/cli.json", Base: report.Version{Exists: true, Data: []byte(cur(cu, `"Shell(git:push)"`))}, Head: report.Version{Exists: true, Data: []byte(cur(cuH, ""))}},
		{Path: ".github/skills/s/SKILL.md", Base: report.Version{Exists: true, Data: []byte(skill("shell(git:*), shell(npm test)"))}, Head: report.Version{Exists: true, Data: []byte(skill("shell(git:*), shell(npm test), shell(make:*), write(src)"))}},
	}
	in := report.Input{Files: files}
	if r := Compare(in); r.Decision == report.DecisionAllow || len(r.Findings) == 0 {
		b.Fatalf("the benchmark change should be flagged: %s", r.Decision)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Compare(in)
	}
}
