package judge

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// compareMCP compares .mcp.json servers: a new server is a tool surface the
// agent may call; a changed one may run or reach something else.
func (e *engine) compareMCP(f *fileState) {
	bs, hs := claude.MCPServers(f.base), claude.MCPServers(f.head)
	rt := rating.MCPServer()
	for _, name := range sortedKeys(hs) {
		h := hs[name]
		b, ok := bs[name]
		line := h.KeyStart.Line
		if !ok {
			sum := claude.ServerSummary(h.Value)
			e.row(f, report.KindMCPServer, report.DirAdded, "", name+": "+sum, true, rt, line, line,
				"an MCP tool surface the agent may call (claude -p connects project servers without asking)")
			e.finding(report.Finding{CheckID: report.CheckMCPServerAdded, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line,
				Evidence: "server=" + claude.Sanitize(name) + " " + sum, Title: "MCP server " + name + " added",
				Message: fmt.Sprintf("%s adds the MCP server %s (%s): a tool surface the agent may call; claude -p connects it without asking.", f.Path, name, sum),
				Key:     report.CheckMCPServerAdded + "|" + f.Path + "|" + name})
			continue
		}
		if claude.Canon(b.Value) == claude.Canon(h.Value) {
			continue
		}
		var changed []string
		keys := map[string]bool{}
		for _, m := range b.Value.Members() {
			keys[m.Key] = true
		}
		for _, m := range h.Value.Members() {
			keys[m.Key] = true
		}
		for _, k := range sortedKeys(keys) {
			if claude.Canon(b.Value.Get(k)) != claude.Canon(h.Value.Get(k)) {
				changed = append(changed, k)
			}
		}
		if b.Value.Kind() != jsonpos.Object || h.Value.Kind() != jsonpos.Object {
			changed = []string{"(the whole entry)"}
		}
		if eff := mcpChangeEffect(claude.Canon(b.Value), claude.Canon(h.Value)); eff.runsNothingNew() {
			e.quietServer(f, name, claude.ServerSummary(b.Value), claude.ServerSummary(h.Value), line, eff)
			continue
		}
		e.row(f, report.KindMCPServer, report.DirChanged, name+": "+claude.ServerSummary(b.Value), name+": "+claude.ServerSummary(h.Value), true, rt, line, line,
			"changes "+strings.Join(changed, ", ")+" of an MCP server; authority direction is unknown")
		e.finding(report.Finding{CheckID: report.CheckMCPServerChange, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line,
			Evidence: "server=" + claude.Sanitize(name) + " changed_keys=" + strings.Join(changed, ","), Title: "MCP server " + name + " changed",
			Message: fmt.Sprintf("%s changes the MCP server %s (%s): %s.", f.Path, name, strings.Join(changed, ", "), claude.ServerSummary(h.Value)),
			Key:     report.CheckMCPServerChange + "|" + f.Path + "|" + name + "|" + strings.Join(changed, ",")})
	}
	for _, name := range sortedKeys(bs) {
		if _, ok := hs[name]; !ok {
			e.row(f, report.KindMCPServer, report.DirRemoved, name+": "+claude.ServerSummary(bs[name].Value), "", false,
				rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, bs[name].KeyStart.Line, 1, "an MCP tool surface is no longer offered to the agent")
		}
	}
}

// quietServer reports a changed MCP server that runs no new code and
// reaches no new host (mcpChangeEffect): a row that widens nothing and an
// advisory that says why, once. Every agent's servers go through it.
func (e *engine) quietServer(f *fileState, name, before, after string, line int, eff mcpEffect) {
	low := rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}
	why := eff.quietWhy()
	e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindMCPServer, Direction: report.DirChanged,
		Before: name + ": " + before, After: name + ": " + after, Access: low.Access, Risk: low.Risk, Line: line, HeadLine: max(line, 1),
		Witnesses: []string{}, Why: why})
	e.finding(report.Finding{CheckID: report.CheckMCPServerChange, Agent: f.agent, Action: policy.Advisory, Risk: low.Risk, Path: f.Path, Line: line, HeadLine: max(line, 1),
		Evidence: "server=" + claude.Sanitize(name) + " quiet", Title: "MCP server " + name + " changed",
		Message: fmt.Sprintf("%s changes the MCP server %s (%s): it %s.", f.Path, name, after, why),
		Key:     report.CheckMCPServerChange + "|" + f.Path + "|" + name + "|quiet"})
}
