package lattice

import "sort"

// The tools Claude Code runs with no permission rule, measured on
// ClaudeCodeVersion with the conformance harness (a session with no
// settings file, each tool called with a schema-valid input; the tools
// behind CLAUDE_CODE_ENABLE_TODO_TOOLS=1 offered that way in print mode):
// each call ran without a prompt. A bare allow of one of them grants
// nothing new. internal/conformance TestToolTable holds the table to the
// pinned binary.
//
// AskUserQuestion is not offered in print mode; it is listed by its
// documentation: it is a question to the user, which no mode or rule
// auto-approves, so allowing it lets nothing run unseen. ExitPlanMode is
// not offered in print mode either ("ExitPlanMode is disabled for this
// session", measured): it is listed by what the 2.1.328 binary says of
// it: its requiresUserInteraction() is true (the plan's approval is the
// user's answer on the card), and the binary's test of whether a
// whole-tool allow rule applies to a tool fails for such a tool, so a bare
// allow of it leaves the approval asked.
var toolsWithoutRule = map[string]string{
	"Agent":           "measured: a subagent starts with no rule (its own calls meet the same rules)",
	"CronCreate":      "measured: schedules a prompt for this session, whose calls meet the same rules",
	"CronList":        "measured",
	"ListAgents":      "measured",
	"SendMessage":     "measured: a message to another session on this machine",
	"ReportFindings":  "measured",
	"ScheduleWakeup":  "measured",
	"TaskCreate":      "measured (CLAUDE_CODE_ENABLE_TODO_TOOLS=1)",
	"TaskGet":         "measured (CLAUDE_CODE_ENABLE_TODO_TOOLS=1)",
	"TaskList":        "measured (CLAUDE_CODE_ENABLE_TODO_TOOLS=1)",
	"TaskUpdate":      "measured (CLAUDE_CODE_ENABLE_TODO_TOOLS=1)",
	"TodoWrite":       "measured (CLAUDE_CODE_ENABLE_TODO_TOOLS=1, CLAUDE_CODE_ENABLE_TASKS=0)",
	"AskUserQuestion": "documented: a question to the user, which no mode or rule auto-approves",
	"ExitPlanMode":    "documented (read from the binary; print mode does not offer it, measured): its approval of the plan is a question to the user (the tool's requiresUserInteraction is true), and a whole-tool allow rule does not apply to such a tool",
}

// ToolsWithoutRule returns the tools Claude Code runs with no rule (the
// table above) and how each was established.
func ToolsWithoutRule() map[string]string {
	out := make(map[string]string, len(toolsWithoutRule))
	for k, v := range toolsWithoutRule {
		out[k] = v
	}
	return out
}

// toolRules are the bare allow rules of the tools Claude Code runs with no
// rule, for ImplicitAllows.
var toolRules = func() []Rule {
	var out []Rule
	for _, t := range sortedToolNames() {
		r := ParseIn(Allow, t)
		r.Note = t + " runs with no rule in Claude Code " + ClaudeCodeVersion + " (" + toolsWithoutRule[t] + ")"
		out = append(out, r)
	}
	return out
}()

func sortedToolNames() []string {
	var names []string
	for t := range toolsWithoutRule {
		names = append(names, t)
	}
	sort.Strings(names)
	return names
}
