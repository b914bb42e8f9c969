package judge

import (
	"fmt"
	"sort"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// comparePlanSetAside raises the allow rules that apply again when a
// project leaves plan mode. Claude Code 2.1.328 sets broad allow rules
// aside in plan mode (lattice.PlanStripped: Bash(*), Bash, Bash(python *),
// Agent, …; measured: the calls they match go to the auto-mode classifier),
// so the pools leave them out on a plan side. When the base is in plan mode
// and the head is not — a local defaultMode plan removed, a project's plan
// changed to default or dontAsk — each such rule at the head runs what it
// matches again without a prompt, though no rule changed: it is raised as
// the grant it is, rated as if it were added (Bash(*) under a removed plan
// is the whole tool).
func (e *engine) comparePlanSetAside() {
	for _, scope := range sortedKeys(e.scopes) {
		if e.baseMode(scope) != "plan" || e.headMode(scope) == "plan" {
			continue
		}
		from := e.planSource(scope)
		files := append([]*fileState(nil), e.scopes[scope]...)
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
		for _, f := range files {
			if !surelyRead(f, scope) || f.head == nil {
				continue
			}
			for _, d := range f.head.Rules {
				r := d.Rule
				if !lattice.PlanStripped(r) || e.hasFinding(f.Path, r.Text) {
					continue
				}
				e.planRuleBack(scope, f, from, r, d.Line)
			}
		}
	}
}

// planRuleBack raises one allow rule that plan mode set aside at the base
// and that applies at the head.
func (e *engine) planRuleBack(scope string, f *fileState, from string, r lattice.Rule, line int) {
	none := append(append([]lattice.Rule(nil), e.scopeRules(scope, true, lattice.Deny, lattice.Ask)...), e.scopeRules(scope, false, lattice.Allow)...)
	calls, ans := lattice.FindNContext(e.ctx, []lattice.Rule{r}, none, maxWitnesses)
	if ans == lattice.No {
		return // the base's own allow rules already ran all of it
	}
	wit := callStrings(calls)
	rt := e.rate(r)
	check := report.CheckAllowExpanded
	if rt.ExecTier || (rt.Wildcard && rt.Risk.Rank() > rating.RiskLow.Rank()) {
		check = report.CheckWildcardAllow
	}
	why := fmt.Sprintf("%s no longer puts the project in plan mode, in which Claude Code %s sets this allow rule aside (it hands what the rule matches to its auto-mode classifier); now the rule applies: %s",
		from, lattice.ClaudeCodeVersion, rt.Basis)
	msg := fmt.Sprintf("allow: %s in %s applies again: %s", r.Text, f.Path, why)
	if len(wit) > 0 {
		msg += fmt.Sprintf("; the agent can now %s %s without a prompt", verbFor(r), quoteList(wit))
	}
	e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindRule, List: string(lattice.Allow), Direction: report.DirWidened,
		Before: r.Text + " (set aside by plan mode)", After: r.Text, Expands: true, Access: rt.Access, Risk: rt.Risk,
		Line: line, HeadLine: line, Witnesses: append([]string{}, wit...), Why: why})
	e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line, Evidence: rt.Evidence,
		Title: "allow " + r.Text + " applies outside plan mode", Message: msg + ".", Witnesses: wit,
		Key: check + "|" + f.Path + "|allow|" + r.Text})
}

// planSource names the settings file whose defaultMode plan the base
// reads (the last that sets a mode, as baseMode reads them).
func (e *engine) planSource(scope string) string {
	src := "the base"
	files := append([]*fileState(nil), e.scopes[scope]...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		if f.kind == report.SettingsFile && f.base != nil {
			if s := claude.Lookup(f.base, "defaultMode", true); s.Present() && s.Value.Kind() == jsonpos.String {
				src = f.Path
			}
		}
	}
	return src
}

// hasFinding reports whether an allow finding for the rule of the file was
// already raised (the rule was added in the same change).
func (e *engine) hasFinding(path, text string) bool {
	for _, fd := range e.findings {
		if fd.Key == report.CheckAllowExpanded+"|"+path+"|allow|"+text || fd.Key == report.CheckWildcardAllow+"|"+path+"|allow|"+text {
			return true
		}
	}
	return false
}
