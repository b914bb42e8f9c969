package diff

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// mcpServers returns the servers of an .mcp.json version by name.
func mcpServers(d *doc) map[string]jsonpos.Member {
	out := map[string]jsonpos.Member{}
	if d == nil {
		return out
	}
	for _, key := range []string{"mcpServers", "servers"} {
		for _, m := range d.root.Get(key).Members() {
			out[m.Key] = m
		}
	}
	return out
}

// serverSummary names a server by its transport and what it runs or
// reaches — the command's first word or the URL's host, never arguments,
// environment values or headers.
func serverSummary(v *jsonpos.Value) string {
	switch {
	case v.Get("command").Kind() == jsonpos.String:
		if strings.TrimSpace(v.Get("command").Text()) == "" {
			return "stdio (empty command)"
		}
		return "stdio " + strings.SplitN(commandSummary(v.Get("command").Text()), " (sha256", 2)[0]
	case v.Get("url").Kind() == jsonpos.String:
		return "remote " + hostOf(v.Get("url").Text())
	case v.Get("serverUrl").Kind() == jsonpos.String:
		return "remote " + hostOf(v.Get("serverUrl").Text())
	}
	return "a server without a command or url"
}

// compareMCP compares .mcp.json servers: a new server is a tool surface the
// agent may call; a changed one may run or reach something else.
func (e *engine) compareMCP(f *fileState) {
	bs, hs := mcpServers(f.base), mcpServers(f.head)
	rt := rating.MCPServer()
	for _, name := range sortedKeys(hs) {
		h := hs[name]
		b, ok := bs[name]
		line := h.KeyStart.Line
		if !ok {
			sum := serverSummary(h.Value)
			e.row(f, report.KindMCPServer, report.DirAdded, "", name+": "+sum, true, rt, line, line,
				"an MCP tool surface the agent may call (claude -p connects project servers without asking)")
			e.finding(report.Finding{CheckID: report.CheckMCPServerAdded, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line,
				Evidence: "server=" + sanitize(name) + " " + sum, Title: "MCP server " + name + " added",
				Message: fmt.Sprintf("%s adds the MCP server %s (%s): a tool surface the agent may call; claude -p connects it without asking.", f.Path, name, sum),
				Key:     report.CheckMCPServerAdded + "|" + f.Path + "|" + name})
			continue
		}
		if canon(b.Value) == canon(h.Value) {
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
			if canon(b.Value.Get(k)) != canon(h.Value.Get(k)) {
				changed = append(changed, k)
			}
		}
		if b.Value.Kind() != jsonpos.Object || h.Value.Kind() != jsonpos.Object {
			changed = []string{"(the whole entry)"}
		}
		e.row(f, report.KindMCPServer, report.DirChanged, name+": "+serverSummary(b.Value), name+": "+serverSummary(h.Value), true, rt, line, line,
			"changes "+strings.Join(changed, ", ")+" of an MCP server; authority direction is unknown")
		e.finding(report.Finding{CheckID: report.CheckMCPServerChange, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line,
			Evidence: "server=" + sanitize(name) + " changed_keys=" + strings.Join(changed, ","), Title: "MCP server " + name + " changed",
			Message: fmt.Sprintf("%s changes the MCP server %s (%s): %s.", f.Path, name, strings.Join(changed, ", "), serverSummary(h.Value)),
			Key:     report.CheckMCPServerChange + "|" + f.Path + "|" + name + "|" + strings.Join(changed, ",")})
	}
	for _, name := range sortedKeys(bs) {
		if _, ok := hs[name]; !ok {
			e.row(f, report.KindMCPServer, report.DirRemoved, name+": "+serverSummary(bs[name].Value), "", false,
				rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, bs[name].KeyStart.Line, 1, "an MCP tool surface is no longer offered to the agent")
		}
	}
}

// secretShapes are token formats that must never be echoed into a report.
var secretShapes = regexp.MustCompile(`(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abpors]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----)`)

// sanitize masks token-shaped secrets in text taken from a file.
func sanitize(s string) string {
	return secretShapes.ReplaceAllStringFunc(s, func(m string) string {
		n := 4
		if len(m) < 8 {
			n = 0
		}
		return m[:n] + "[REDACTED]"
	})
}
