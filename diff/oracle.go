package diff

import (
	"context"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
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
)

// Effective is the engine's effective view of one project's settings files
// (the head side): the same machinery the intent checks and the
// effective-permission delta use, exposed so that the conformance harness
// can hold it to the real Claude Code call by call.
type Effective struct {
	e *engine
}

// NewEffective builds the effective view of the settings files given as
// repository paths with their content (".claude/settings.json",
// ".claude/settings.local.json"). Files Classify does not read as settings
// files of the repository root are ignored; a file that does not parse
// contributes nothing, as Claude Code drops it.
func NewEffective(files map[string][]byte) *Effective {
	var in []File
	for p, data := range files {
		in = append(in, File{Path: p, Head: Version{Exists: true, Data: data}})
	}
	ctx := context.Background()
	b := lattice.NewBudget(0, 0) // the default work budget, as CompareContext
	e := &engine{ctx: lattice.WithBudget(ctx, b), budget: b, scopes: map[string][]*fileState{}}
	e.load(in, ruleCache{})
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
	switch mode := v.e.headMode(""); strings.TrimSpace(mode) {
	case "bypassPermissions":
		return CallOutcome{CallRuns, why}
	case "dontAsk":
		return CallOutcome{CallDenied, why}
	}
	return CallOutcome{CallAsks, why}
}

// Mode is the permission mode of the project at the head.
func (v *Effective) Mode() string { return v.e.headMode("") }
