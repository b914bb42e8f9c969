package conformance

import (
	"strings"
)

// Decision is what Claude Code does with a call: runs it without a prompt,
// asks (in print mode: refuses, saying it needs approval), or denies.
type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
	// Unclassified is a tool result the harness cannot read as any of
	// the three; it is always reported, never counted as agreement.
	Unclassified Decision = "unclassified"
	// Classifier is a call Claude Code hands to the auto-mode classifier
	// (plan mode sends Bash there): a model that decides online and cannot
	// run offline, where the binary refuses the call ("Auto mode is
	// unavailable"). It is not a deny: online the classifier may run the
	// call, so for strictness it ranks with allow (Stricter).
	Classifier Decision = "classifier"
)

// Call is one tool call of a session. For Bash, Arg is the command line;
// for Read, Edit and Write it is a path, absolute or through a layout
// placeholder ($PROJ/src/a.go, $HOME/.ssh/id_rsa, $EXTRA/notes.md).
//
// Param and Value, when Param is set, name the one optional input field
// the call carries (a parameter rule's question: Bash with a timeout,
// Read with an offset); such a call carries its primary field and that
// field only. Param "none" is a call with no optional field at all (the
// other calls of the harness carry a description and a timeout).
type Call struct {
	Tool  string
	Arg   string
	Param string `json:",omitempty"`
	Value string `json:",omitempty"`
}

// Path is the call's path argument (Read, Edit, Write).
func (c Call) Path() string { return c.Arg }

// String renders the call for a report.
func (c Call) String() string {
	s := c.Tool + "(" + c.Arg + ")"
	if c.Param != "" {
		s += " [" + c.Param + "=" + c.Value + "]"
	}
	return s
}

// Session is one run of Claude Code: the project's settings files and a
// batch of calls the fake model makes in one assistant message.
type Session struct {
	// Settings is .claude/settings.json ("" for none); it may name the
	// layout's placeholders.
	Settings string
	// Local is .claude/settings.local.json ("" for none).
	Local string
	// Calls are made in order, all in one message.
	Calls []Call
	// Env is added to the session's environment.
	Env []string `json:",omitempty"`
	// User is the user's ~/.claude/settings.json ("" for none).
	User string `json:",omitempty"`
	// Args are added to the claude command line.
	Args []string `json:",omitempty"`
	// Unprivileged runs Claude Code as an unprivileged user (nobody,
	// through setpriv) when the harness runs as root: Claude Code ignores
	// bypassPermissions for root, so that mode is measured this way.
	Unprivileged bool `json:",omitempty"`
	// MCP connects the stub MCP servers (MCPServers) for the session; the
	// fake model then makes a harmless call first and sends the batch in
	// its second turn, once the servers' tools are offered.
	MCP bool `json:",omitempty"`
	// Files are more files of the project, by path (the traced surface's
	// fixture: skills, agents, CLAUDE.md…).
	Files map[string]string `json:",omitempty"`
	// Classifier is the verdict the fake server's auto-mode classifier
	// gives every call (NoClassifier: none, as offline).
	Classifier ClassifierVerdict `json:",omitempty"`
	// SubCalls are the calls the subagent makes, all in the first
	// answer to its own conversation, when a call of the batch starts
	// one (Agent, whose prompt carries subagentMarker): what a subagent
	// may do under the session's settings and mode is measured by them.
	SubCalls []Call `json:",omitempty"`
}

// The texts Claude Code 2.1.328 puts in a tool_result when it does not run
// a call (always with is_error set). Ask: print mode has no one to ask, so
// the call is refused with a request for approval. Deny: a rule or the
// mode refuses it. A refusal whose text matches neither list is
// Unclassified and fails the run, so a new wording is noticed.
var (
	denyMarkers = []string{
		"has been denied",
		"denied by your permission settings",
		"covered by a Read deny rule",
		"denied access to domain",
		"No such tool available",
		"while in plan mode",
	}
	askMarkers = []string{
		"requires approval",
		"require approval",
		"needs approval",
		"require explicit approval",
		// `echo $(echo $(…))` 300 deep: "This command contains 300 command
		// substitutions — too many to analyze for catastrophic removals.
		// This requires explicit approval."
		"requires explicit approval",
		"requires manual approval",
		"can't be checked",
		"requested permissions",
		"haven't granted it yet",
		"was blocked. For security",
		"evaluates arguments as shell code",
		"cannot be auto-allowed",
		"incomplete fragment",
		"changes directory before running",
		"Approving runs",
		"Approve only if",
		// A call with dangerouslyDisableSandbox under the sandbox's
		// auto-allow: the prompt to leave the sandbox.
		"Run outside of the sandbox",
		// `rm *.o` under a pattern rule: not run, not a rule's deny.
		"Glob patterns are not allowed in write operations",
		// The bash parser gave up (a command over 10,000 characters, over
		// 50,000 nodes, or not parsed within its 50 ms deadline): the
		// command is too complex to check, and Claude Code asks.
		parseAbortedMarker,
		// A skill with allowed-tools that no rule lets launch (Skill(y)):
		// "Execute skill: y. The user can add the allow rule Skill(y) …".
		"Execute skill: ",
	}
)

// parseAbortedMarker is the refusal of a command Claude Code's bash parser
// gave up on (2.1.328: `Parser aborted (timeout, resource limit, or
// over-length)`). Its deadline is wall-clock time, 50 ms, so on a starved
// machine a command it parses in time on an idle one is refused this way
// (see retryAsks).
const parseAbortedMarker = "Parser aborted (timeout"

// classify reads a decision from a call's tool_result: a refusal by its
// text, a call that ran by the absence of is_error (or, for Bash, by the
// exit code Claude Code reports for a command that ran and failed).
func classify(c Call, text string, isError bool) Decision {
	if strings.Contains(text, autoModeMarker) {
		// plan mode sends Bash to the auto-mode classifier, which cannot
		// run offline: the call is not run and not offered for approval.
		return Classifier
	}
	for _, m := range denyMarkers {
		if strings.Contains(text, m) {
			return Deny
		}
	}
	for _, m := range askMarkers {
		if strings.Contains(text, m) {
			return Ask
		}
	}
	switch {
	case !isError:
		return Allow
	case c.Tool == "Bash" && strings.HasPrefix(text, "Exit code "):
		return Allow
	case c.Tool == "Bash" && strings.Contains(text, stubMarker):
		return Allow
	// (An Edit that creates a file where one exists fails with "file
	// already exists" in the tool's own input check, before any
	// permission is decided: it measures nothing, so it is Unclassified
	// and fails the run; the corpus never edits a file that exists.)
	case c.Tool == "WebFetch" && (strings.Contains(text, "ENOTFOUND") || strings.Contains(text, "EAI_AGAIN") || strings.Contains(text, "ECONNREFUSED")):
		// The fetch was let through and failed offline to reach the host.
		return Allow
	}
	return Unclassified
}
