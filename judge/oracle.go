package judge

import (
	"context"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// CallDecision is what the engine's effective view says Claude Code does
// with one call: it runs without a prompt, asks, or is denied; unknown when
// the answer depends on a reading of a rule Claude Code's behaviour leaves
// open.
type CallDecision string

const (
	CallRuns    CallDecision = "allow"
	CallAsks    CallDecision = "ask"
	CallDenied  CallDecision = "deny"
	CallUnknown CallDecision = "unknown"
	// CallClassifier is a call Claude Code hands to its auto-mode
	// classifier, a model on Anthropic's server: it runs without a prompt
	// when the classifier approves it and is refused when it does not
	// (plan mode, measured on Claude Code 2.1.328 with the conformance
	// harness's fake classifier). For a gate it is a call that may run.
	CallClassifier CallDecision = "classifier"
)

// Effective is the engine's effective view of one project's settings files
// (the head side): the same machinery the intent checks and the
// effective-permission delta use, exposed so that the conformance harness
// can hold it to the real Claude Code call by call.
type Effective struct {
	e        *engine
	userMode string
}

// WithUserMode is the view with a permission mode set in the user's own
// settings (~/.claude/settings.json), which the project's files do not
// hold: it applies where the project sets none (or sets
// bypassPermissions, which Claude Code ignores there).
func (v *Effective) WithUserMode(mode string) *Effective {
	w := *v
	w.userMode = mode
	if mode != v.e.userMode {
		// The pools depend on the mode (plan sets broad allows aside):
		// a view of its own, its pools computed afresh.
		e := *v.e
		e.userMode, e.pools = mode, nil
		w.e = &e
	}
	return &w
}

// NewEffective builds the effective view of the settings files given as
// repository paths with their content (".claude/settings.json",
// ".claude/settings.local.json"). Files Classify does not read as settings
// files of the repository root are ignored; a file that does not parse
// contributes nothing, as Claude Code drops it.
func NewEffective(files map[string][]byte) *Effective {
	var in []report.File
	for p, data := range files {
		in = append(in, report.File{Path: p, Head: report.Version{Exists: true, Data: data}})
	}
	ctx := context.Background()
	b := lattice.NewBudget(0, 0) // the default work budget, as CompareContext
	e := &engine{ctx: lattice.WithBudget(ctx, b), budget: b, scopes: map[string][]*fileState{}}
	e.load(in, claude.RuleCache{})
	return &Effective{e: e}
}

// CallOutcome is one decision of the effective view with what decided it.
type CallOutcome struct {
	Decision CallDecision
	// Why names the rule, mode or check that decided it.
	Why string
}

// Decide is what the effective view says Claude Code does with c: deny,
// then ask, then allow rules (a Bash line split into its parts), then the
// permission mode for a call no rule decides — the mapping the intent
// checks use.
func (v *Effective) Decide(c lattice.Call) CallOutcome {
	o := v.e.callOutcome("", c)
	why := o.describe()
	if strings.HasPrefix(c.Tool, "mcp__") && o.state != "denied" {
		// Measured on 2.1.328 (the conformance class mcp): plan mode
		// refuses every MCP tool no ask rule matches, allowed or not
		// ("Cannot call … while in plan mode"), while one an ask rule
		// matches is asked about (seed 1's full corpus: allow mcp__*,
		// ask mcp__*, plan); dontAsk refuses one an ask rule matches.
		switch mode := v.Mode(); {
		case mode == "plan" && o.state == "asked":
			return CallOutcome{CallAsks, why + "; in defaultMode plan an ask rule still asks about an MCP tool (Claude Code " + lattice.ClaudeCodeVersion + ", measured)"}
		case mode == "plan":
			return CallOutcome{CallDenied, "defaultMode plan, in which Claude Code " + lattice.ClaudeCodeVersion + " refuses MCP tools (measured)"}
		case mode == "dontAsk" && o.state == "asked":
			return CallOutcome{CallDenied, why + "; defaultMode dontAsk refuses what would prompt (Claude Code " + lattice.ClaudeCodeVersion + ", measured)"}
		}
	}
	if (c.Tool == "Edit" || c.Tool == "Write" || c.Tool == "NotebookEdit") && o.state != "denied" && v.Mode() == "plan" {
		// Measured on 2.1.328 (the conformance class scope-overrides):
		// plan mode refuses every edit and write, an allow rule's included
		// ("Cannot write to … while in plan mode" under allow
		// Edit(./docs/**)).
		return CallOutcome{CallDenied, "defaultMode plan, in which Claude Code " + lattice.ClaudeCodeVersion + " refuses edits and writes, allowed or not (measured)"}
	}
	if o.state == "allowed" && planClassifierTools[c.Tool] && v.Mode() == "plan" && strings.HasPrefix(o.by, "no rule:") {
		// A tool that needs no rule in the other modes goes to the
		// classifier in plan mode unless an allow rule names it.
		return CallOutcome{CallClassifier, planClassifierWhy}
	}
	if c.Tool == "Bash" && o.state == "default" {
		if so, ok := v.sandboxed(c); ok {
			return so
		}
	}
	switch o.state {
	case "denied":
		return CallOutcome{CallDenied, why}
	case "asked":
		return CallOutcome{CallAsks, why}
	case "allowed":
		return CallOutcome{CallRuns, why}
	case "unknown":
		return CallOutcome{CallUnknown, why}
	}
	switch v.Mode() {
	case "bypassPermissions":
		if c.Tool == "Bash" {
			if note, asks := lattice.BypassAsks(c.Arg); asks {
				// The whole tool's command checks hold in bypass mode
				// too (measured on 2.1.328: `rm -rf /` asks), but for
				// the `...` path check (`rm ./...` runs).
				return CallOutcome{CallAsks, note}
			}
		}
		return CallOutcome{CallRuns, why}
	case "dontAsk":
		return CallOutcome{CallDenied, why}
	case "plan":
		if c.Tool == "Bash" || c.Tool == "Monitor" {
			if note, asks := lattice.BypassAsks(c.Arg); asks {
				// The removal check asks in plan mode too, the
				// classifier approving or not (measured: `rm -rf /`,
				// as a Bash and as a Monitor command), but for the `...`
				// path check, as in bypass mode (measured: `rm ./...`
				// goes to the classifier, with no rule and under a
				// Bash(*) plan mode sets aside; internal/conformance
				// TestPlanModeStripsBroadAllows).
				return CallOutcome{CallAsks, note}
			}
		}
		return CallOutcome{CallClassifier, planClassifierWhy}
	}
	return CallOutcome{CallAsks, why}
}

// planClassifierWhy says why a call goes to the auto-mode classifier.
var planClassifierWhy = "no rule decides it and the mode is plan, in which Claude Code " + lattice.ClaudeCodeVersion +
	" hands it to its auto-mode classifier, which runs it without a prompt when it approves (measured with the conformance harness's fake classifier)"

// planClassifierTools are the tools that run with no rule in the default
// mode but that plan mode hands to the classifier when no rule allows them
// (measured on Claude Code 2.1.328: the conformance classes modes and
// tools; CronCreate, CronList, ListAgents, the task tools and TodoWrite
// still run). Monitor is not one: plan mode decides its command as it
// decides a Bash call's (TestMonitorInPlanMode, measured on 2.1.328: `true`,
// `echo hi`, `git status`, `ls` run with no rule, `curl x` and `ls ~/.ssh`
// go to the classifier, `rm -rf /` asks).
var planClassifierTools = map[string]bool{"Agent": true, "SendMessage": true}

// projectBypassIgnored: Claude Code 2.1.328 ignores defaultMode
// bypassPermissions set in the project's .claude/settings.json or
// settings.local.json (measured as an unprivileged user, with and without
// --allow-dangerously-skip-permissions: every call asked as in default
// mode); only the user's settings or --dangerously-skip-permissions enter
// it. The effective view follows; the engine still rates the mode change
// itself as the widest grant (fail-closed: a version, or a user's own
// settings, that honours it runs everything).
const projectBypassIgnored = true

// Mode is the permission mode the view decides calls in: the project's at
// the head, the user's where the project sets none, and default for a
// project bypassPermissions Claude Code ignores.
func (v *Effective) Mode() string {
	mode := strings.TrimSpace(v.e.headMode(""))
	if mode == "bypassPermissions" && projectBypassIgnored {
		mode = "default"
	}
	if mode == "default" && v.userMode != "" {
		mode = v.userMode
	}
	return mode
}

// sandboxed is the decision of a Bash call no rule decides under the
// project's effective sandbox: with sandbox.enabled and
// autoAllowBashIfSandboxed both in effect it runs without a prompt inside
// the sandbox, unless it is one of sandbox.excludedCommands or leaves the
// sandbox (dangerouslyDisableSandbox), which take the normal permission
// flow, or one of the checks that still ask (sandboxAsks). Measured on
// Claude Code 2.1.328 in the default and acceptEdits modes (judge/sandbox.go).
func (v *Effective) sandboxed(c lattice.Call) (CallOutcome, bool) {
	st := v.e.sandboxState("", true)
	if !st.grants() {
		return CallOutcome{}, false
	}
	switch v.Mode() {
	case "default", "acceptEdits", "":
	default:
		return CallOutcome{}, false // not measured: the mode decides
	}
	if c.Param == "dangerouslyDisableSandbox" && c.Value == "true" && st.unsandboxed {
		return CallOutcome{}, false
	}
	if claude.SandboxExcluded(c.Arg, st.excluded) {
		return CallOutcome{}, false
	}
	if why, asks := claude.SandboxAsks(c.Arg); asks {
		return CallOutcome{CallAsks, why + " (sandbox auto-allow, Claude Code " + lattice.ClaudeCodeVersion + ", measured)"}, true
	}
	return CallOutcome{CallRuns, "sandbox.enabled and sandbox.autoAllowBashIfSandboxed: Claude Code " + lattice.ClaudeCodeVersion + " runs it without a prompt inside the sandbox"}, true
}
