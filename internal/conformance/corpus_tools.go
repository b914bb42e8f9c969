package conformance

// toolInputs are the inputs the harness sends for the tools other than
// Bash, Read, Edit, Write and WebFetch: each valid for the tool's schema as
// Claude Code 2.1.328 offers it, so that the call reaches the permission
// decision (an input the tool's own check refuses measures nothing).
var toolInputs = map[string]func(lay Layout, c Call) map[string]any{
	// Agent starts the subagent Arg names (general-purpose when empty).
	"Agent": func(_ Layout, c Call) map[string]any {
		kind := c.Arg
		if kind == "" {
			kind = "general-purpose"
		}
		return map[string]any{"description": "conformance call", "prompt": subagentMarker + ": reply with the word done.", "subagent_type": kind}
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
	// Grep and Glob search the folder Arg names (offered only with --tools).
	"Grep": func(lay Layout, c Call) map[string]any {
		return map[string]any{"pattern": "x", "path": lay.Expand(c.Arg)}
	},
	"Glob": func(lay Layout, c Call) map[string]any {
		return map[string]any{"pattern": "*", "path": lay.Expand(c.Arg)}
	},
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
	"TaskCreate": func(Layout, Call) map[string]any {
		return map[string]any{"subject": "conformance", "description": "conformance call"}
	},
	"TaskList":   func(Layout, Call) map[string]any { return map[string]any{} },
	"TaskGet":    func(Layout, Call) map[string]any { return map[string]any{"taskId": "1"} },
	"TaskUpdate": func(Layout, Call) map[string]any { return map[string]any{"taskId": "1", "status": "completed"} },
	"TodoWrite": func(Layout, Call) map[string]any {
		return map[string]any{"todos": []any{map[string]any{"content": "conformance", "status": "pending", "activeForm": "conforming"}}}
	},
}

// ToolsClass measures what the tools the rest of the corpus never calls do
// with no rule, with a bare allow, ask or deny of one of them (and, a
// quarter of its batches, Monitor calls under Bash and Monitor rules): Agent, the
// cron, messaging and wake-up tools, WebSearch and, offered in print mode
// only with CLAUDE_CODE_ENABLE_TODO_TOOLS=1, the task tools (TaskCreate,
// TaskGet, TaskList, TaskUpdate) or, with CLAUDE_CODE_ENABLE_TASKS=0 too,
// TodoWrite. (Glob, Grep, LSP and AskUserQuestion are not offered in print
// mode at all: the harness reads a call of one as measuring nothing.)
const ToolsClass = "tools"

// toolsOffered are the tools the class calls, by the environment that
// offers them.
var toolsOffered = []struct {
	env   []string
	tools []string
}{
	{nil, []string{"Agent", "CronCreate", "CronList", "ListAgents", "SendMessage", "ReportFindings", "ScheduleWakeup", "WebSearch"}},
	{[]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}, []string{"TaskCreate", "TaskList", "TaskGet", "TaskUpdate", "CronList", "WebSearch"}},
	{[]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"}, []string{"TodoWrite", "ListAgents", "WebSearch"}},
}

// toolsBatch draws one batch of the tools class.
func (g *gen) toolsBatch(b *Batch) {
	if g.r.IntN(4) == 0 {
		g.monitorBatch(b)
		return
	}
	set := toolsOffered[g.r.IntN(len(toolsOffered))]
	b.Env = set.env
	one := g.pick(set.tools...)
	switch g.r.IntN(4) {
	case 0: // no rule at all
	case 1:
		b.Settings.Allow = []string{one}
	case 2:
		b.Settings.Ask = []string{one}
	default:
		b.Settings.Deny = []string{one}
	}
	if g.r.IntN(3) == 0 {
		// Plan mode hands some of them to its auto-mode classifier.
		b.Settings.DefaultMode = "plan"
	}
	for _, t := range set.tools {
		g.add(b, "tool:"+t, Call{Tool: t})
	}
	// The task tools act on one task: create it first.
	sortTaskCalls(b.Cases)
}

// Monitor's rules and commands. Claude Code 2.1.328 decides a Monitor
// call's command as a Bash command (the Bash rules that name commands, the
// read-only table, the removal check, the mode) but not by an allow of the
// whole Bash tool, and never by Monitor rules that name commands; rules
// naming the whole Monitor tool decide first (TestMonitorOnTheBinary). The
// draw mixes all of them so a reading the pinned test does not hold shows
// up as a disagreement.
var (
	monitorAllows = []string{"Monitor", "Monitor(*)", "Monitor(npm *)", "Bash", "Bash(*)", "Bash(**)", "Bash(npm *)", "Bash(npm:*)",
		"Bash(git *)", "Bash(curl:*)", "Bash(rm *)", "Bash(timeout *)"}
	monitorAsks  = []string{"Monitor", "Monitor(git status)", "Bash(git status)", "Bash(npm publish)", "Bash(npm *)"}
	monitorDenys = []string{"Monitor", "Monitor(*)", "Monitor(curl *)", "Bash", "Bash(*)", "Bash(curl *)", "Bash(npm publish:*)", "Bash(rm:*)"}
	monitorCmds  = []string{"true", "git status", "git log", "ls", "npm test", "npm publish", "curl x", "curl https://example.com",
		"git push x", "rm -rf build", "rm -rf /", "timeout 5 curl x", "npm test && curl x", "ls ~/.ssh", "echo $(whoami)"}
)

// monitorBatch draws Monitor calls under a mix of Bash and Monitor rules,
// sometimes in plan or acceptEdits mode.
func (g *gen) monitorBatch(b *Batch) {
	b.Settings.Allow = g.some(g.r.IntN(3), monitorAllows...)
	if g.r.IntN(2) == 0 {
		b.Settings.Ask = g.some(1, monitorAsks...)
	}
	if g.r.IntN(2) == 0 {
		b.Settings.Deny = g.some(1+g.r.IntN(2), monitorDenys...)
	}
	switch g.r.IntN(5) {
	case 0:
		b.Settings.DefaultMode = "plan"
	case 1:
		b.Settings.DefaultMode = "acceptEdits"
	}
	for _, cmd := range monitorCmds {
		g.add(b, "monitor", Call{Tool: "Monitor", Arg: cmd})
	}
}

// sortTaskCalls puts TaskCreate before the calls that read or update the
// task it makes (task #1).
func sortTaskCalls(cs []Case) {
	for i, c := range cs {
		if c.Call.Tool == "TaskCreate" && i > 0 {
			cs[0], cs[i] = cs[i], cs[0]
			return
		}
	}
}

// classDivisor shrinks the share of a class whose sessions are small (one
// tool a rule: a few calls each), so it does not outnumber the others'
// sessions: the tools and syntax classes draw half of a weight-1 class's
// decisions (with the rule-reading classes beside them a third left the
// tools class under 200 decisions in the full corpus, and with the schema
// class the syntax class).
func classDivisor(class string) int {
	switch class {
	case ToolsClass, SyntaxClass:
		return 2
	}
	return 1
}
