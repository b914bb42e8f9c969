package conformance

// toolInputs are the inputs the harness sends for the tools other than
// Bash, Read, Edit, Write and WebFetch: each valid for the tool's schema as
// Claude Code 2.1.328 offers it, so that the call reaches the permission
// decision (an input the tool's own check refuses measures nothing).
var toolInputs = map[string]func(lay Layout, c Call) map[string]any{
	"Agent": func(Layout, Call) map[string]any {
		return map[string]any{"description": "conformance call", "prompt": "Reply with the word done.", "subagent_type": "general-purpose"}
	},
	"CronCreate": func(Layout, Call) map[string]any {
		return map[string]any{"cron": "0 0 1 1 *", "prompt": "conformance call"}
	},
	"CronDelete": func(Layout, Call) map[string]any { return map[string]any{"id": "shipgate-none"} },
	"CronList":   func(Layout, Call) map[string]any { return map[string]any{} },
	"ListAgents": func(Layout, Call) map[string]any { return map[string]any{} },
	"TaskStop":   func(Layout, Call) map[string]any { return map[string]any{"task_id": "shipgate-none"} },
	"WebSearch":  func(Layout, Call) map[string]any { return map[string]any{"query": "shipgate conformance"} },
	"Skill":      func(_ Layout, c Call) map[string]any { return map[string]any{"skill": c.Arg} },
	"SendMessage": func(Layout, Call) map[string]any {
		return map[string]any{"to": "shipgate-none", "message": "conformance call"}
	},
	"Monitor": func(lay Layout, c Call) map[string]any {
		cmd := "true"
		if c.Arg != "" {
			cmd = lay.Expand(c.Arg)
		}
		return map[string]any{"description": "conformance call", "timeout_ms": 1000, "command": cmd}
	},
	"ScheduleWakeup": func(Layout, Call) map[string]any {
		return map[string]any{"delaySeconds": 60, "reason": "conformance call", "prompt": "conformance call"}
	},
	"NotebookEdit": func(lay Layout, c Call) map[string]any {
		return map[string]any{"notebook_path": lay.Expand(c.Arg), "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"}
	},
	"ReportFindings": func(Layout, Call) map[string]any { return map[string]any{"findings": []any{}} },
	"EnterWorktree":  func(Layout, Call) map[string]any { return map[string]any{"name": "shipgate"} },
	"ExitWorktree":   func(Layout, Call) map[string]any { return map[string]any{"action": "keep"} },
	"Workflow":       func(Layout, Call) map[string]any { return map[string]any{"name": "shipgate-none"} },
}
