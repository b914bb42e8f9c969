// Package judge is the engine. It turns two versions of a repository's
// agent-config files into a Report a reviewer can act on: it reads each
// version with its agent's model (agentfiles/claude for Claude Code, the
// agentfiles adapters for the others), lists what changed (rule by rule
// and setting by setting), decides with the lattice whether each change
// widens, narrows or respells what the agent may do without a prompt,
// computes the effective delta across the settings files of a project
// (deny, then ask, then allow), follows hook commands to the scripts they
// run (agentfiles/hookscript), rates every grant, and raises findings with
// check IDs and actions. It is pure: no network, no clock, no file system
// — the CLI, the App and the tests all call Compare.
package judge

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// fileState is one input file through the comparison.
type fileState struct {
	report.File
	kind       report.FileKind
	scope      string
	base, head *claude.Doc
	baseErr    *claude.ParseError
	headErr    *claude.ParseError
	changed    bool

	// Files of agents other than Claude Code (kind AgentFile): the
	// agent, and each side read into the agent-neutral model.
	agent        string
	mbase, mhead *agent.Doc
	mbaseErr     error
	mheadErr     error
}

// engine holds one comparison.
type engine struct {
	// ctx carries the comparison's lattice.Budget: every search of the
	// engine draws on it, and ends when the caller's context does.
	ctx      context.Context
	budget   *lattice.Budget
	pol      *policy.Policy
	rater    rating.Rater
	files    []*fileState
	scopes   map[string][]*fileState
	changes  []report.Change
	findings []report.Finding
	// suggestions are the proven narrower rules (suggest.go).
	suggestions []report.Suggestion
	lines       map[string][]string // head files' lines, for suggestions
	status      []report.FileStatus
	bypasses    map[string][]lattice.Call // bypassCandidates, by scope (judge/bypass.go)
	formsCache  map[string]parsedForms    // denyForms, by command line (bypass.go)
	uncompared  []string                  // agent-config files past maxCompared, not read
	witnesses   map[string]string         // denyWitness, by deny rule text (bypass.go)
	pools       map[string][]lattice.Rule // scopeRules, computed once (the files do not change)
	// userMode is the defaultMode of the user's own settings, which the
	// effective view may be given (Effective.WithUserMode): it applies
	// where the project sets none.
	userMode string

	// scripts are the commands that run each script file (hookscripts.go).
	scripts map[string][]scriptUse
	// inputs are the input's files by path: a ModelAdapter's file may pull
	// in another (OpenCode's {file:…}; agentcompare.go).
	inputs map[string]report.File
	// renamed maps a deleted command to the added one compared against
	// it (renames.go).
	renamed map[string]string
	// moves are the folders of hook scripts the change moves whole
	// (report.Input.Moves): a hook that runs the moved script is the same
	// command respelled (hookmoves.go).
	moves []report.Move

	// ratings caches each rule's rating by its list and text (rate): a
	// rule is rated once per comparison however many passes ask, and the
	// answer does not depend on how much of the budget later passes left.
	ratings map[ruleID]rating.Rating
	// skips caches notNewlyRun by call and rule, readOnly lattice.ReadOnly
	// by command: the searches that look past read-only witnesses ask
	// about the same calls several times, and each answer parses a shell
	// line.
	skips      map[skipKey]skipAnswer
	readOnly   map[string]bool
	impliedBy  map[ruleID][]lattice.Rule
	ruleSets   map[*lattice.Rule]indexedPool // indexed pools (bypass.go)
	bypassSets map[string]*lattice.CallSet   // bypassCandidates indexed, by scope

	// compiled holds the rules whose compilation was charged to the
	// budget (parseMetered).
	compiled map[ruleID]bool
	// readAny says a version was read under the budget (affords).
	readAny bool

	// attributed counts the cut-short searches of the file being compared
	// that a rule's own too_complex finding already accounts for.
	attributed int64

	// starlarkUsed is the Starlark steps this comparison's Codex rules
	// files took (sharedReader: they share codex.MaxSharedSteps).
	starlarkUsed int64
}

// ruleID names a rule by what its parse depends on.
type ruleID struct {
	list lattice.List
	text string
}

type skipKey struct {
	call lattice.Call
	rule ruleID
}

type skipAnswer struct {
	why string
	ok  bool
}

// rate is the rater's RuleContext, once per rule of the comparison.
func (e *engine) rate(r lattice.Rule) rating.Rating {
	k := ruleID{r.List, r.Text}
	if rt, ok := e.ratings[k]; ok {
		return rt
	}
	rt := e.rater.RuleContext(e.ctx, r)
	if bareSkill(r) {
		rt = e.skillGrantRating(r)
	}
	if e.ratings == nil {
		e.ratings = map[ruleID]rating.Rating{}
	}
	e.ratings[k] = rt
	return rt
}

// notNewlyRun is the package's notNewlyRun, once per call and rule.
func (e *engine) notNewlyRun(c lattice.Call, r lattice.Rule) (string, bool) {
	k := skipKey{c, ruleID{r.List, r.Text}}
	if a, ok := e.skips[k]; ok {
		return a.why, a.ok
	}
	why, ok := notNewlyRun(c, r)
	if e.skips == nil {
		e.skips = map[skipKey]skipAnswer{}
	}
	e.skips[k] = skipAnswer{why, ok}
	return why, ok
}

// isReadOnly is lattice.ReadOnly, once per command.
func (e *engine) isReadOnly(cmd string) bool {
	if ro, ok := e.readOnly[cmd]; ok {
		return ro
	}
	ro := lattice.ReadOnly(cmd)
	if e.readOnly == nil {
		e.readOnly = map[string]bool{}
	}
	e.readOnly[cmd] = ro
	return ro
}

// Compare reviews a change to a repository's agent-config files. Files
// that are not agent-config files (by Classify) are ignored; unchanged
// ones take part in the effective view only. It is CompareContext without
// a deadline, under the default work budget.
func Compare(in report.Input) report.Report {
	r, _ := CompareContext(context.Background(), in)
	return r
}

// IncompleteError reports a comparison its context ended before it
// finished (the job timeout): the Report returned with it still stands and
// fails closed — every question left open counts as a grant, and a
// CONFIG-PARSE-FAILED finding says so; it blocks when the rules left open
// could be wildcard or launcher grants and requires review otherwise (as
// CompareContext says). It is not a transient
// fault: evaluating the same input again does the same work, so a caller
// publishes the report rather than retrying.
type IncompleteError struct {
	// Cause is the context's error (context.DeadlineExceeded or Canceled).
	Cause error
}

func (e *IncompleteError) Error() string {
	return "the comparison was stopped before it finished (" + e.Cause.Error() + "); its report fails closed"
}

// Unwrap returns the context's error.
func (e *IncompleteError) Unwrap() error { return e.Cause }

// CompareContext is Compare under a context and a work budget. Every lattice
// search draws on the lattice.Budget the context carries (lattice.WithBudget;
// lattice.NewBudget(0, 0) when it carries none), so hostile rule text costs
// at most that budget: a question the budget or the context cuts short is
// Unknown, counts as a grant, and the file gets a finding that blocks when
// the rules could be wildcard or launcher grants and requires review
// otherwise. When the context ends first the report is still returned, with
// an *IncompleteError.
func CompareContext(ctx context.Context, in report.Input) (report.Report, error) {
	b := lattice.BudgetOf(ctx)
	if b == nil {
		b = lattice.NewBudget(0, 0)
		ctx = lattice.WithBudget(ctx, b)
	}
	e := &engine{ctx: ctx, budget: b, pol: in.Policy, rater: rating.Rater{Extra: in.Policy.ExtraLaunchers()}, scopes: map[string][]*fileState{}, moves: in.Moves}
	files, made := applyRenames(in)
	e.load(files, claude.RuleCache{})
	e.tooManyFiles()
	e.unreadInput(in.Unread)
	e.renamedCommands()
	for _, f := range e.files {
		e.compareFile(f)
	}
	e.movedRows(made)
	e.compareEffective()
	e.comparePlanSetAside()
	e.compareAgents()
	e.policyChecks()
	e.policyChange(in.PolicyChange)
	e.label(in.PolicyChange)
	r := e.report()
	if err := ctx.Err(); err != nil {
		return r, &IncompleteError{Cause: err}
	}
	return r, nil
}

// stopped counts the searches of this comparison that a limit cut short.
func (e *engine) stopped() int64 { return e.budget.GaveUp() + e.budget.Canceled() }

// MaxComparedFiles is the most agent-config files one comparison reads
// (a pull request may list 3,000). Past it the files after the first
// MaxComparedFiles in path order are not read: one CONFIG-PARSE-FAILED
// finding (evidence too_many_files) names them and blocks, since they may
// hold any grant. Real pull requests touch a handful; the bound keeps the
// per-file work the work budget does not meter (classifying, parsing the
// JSON, each folder's pools and findings) small; compiling the rules is
// charged to the budget (parseMetered).
const MaxComparedFiles = 500

// maxCompared is MaxComparedFiles; tests under the race detector lower it.
var maxCompared = MaxComparedFiles

// overBound lists the agent-config files beyond maxCompared, in path
// order, or nil.
func (e *engine) overBound(files []report.File) map[string]bool {
	var paths []string
	seen := map[string]bool{}
	for _, f := range files {
		if _, kind, _ := agentfiles.ClassifyAgent(f.ClassifiedPath(), e.pol); kind != report.NotAgentConfig && kind != report.ScriptFile && !seen[f.Path] {
			seen[f.Path] = true
			paths = append(paths, f.Path)
		}
	}
	if len(paths) <= maxCompared {
		return nil
	}
	sort.Strings(paths)
	e.uncompared = paths[maxCompared:]
	out := map[string]bool{}
	for _, p := range e.uncompared {
		out[p] = true
	}
	return out
}

// tooManyFiles reports the files overBound left unread: it blocks (they
// may hold a wildcard grant) and names them.
func (e *engine) tooManyFiles() {
	if len(e.uncompared) == 0 {
		return
	}
	named := e.uncompared[:min(len(e.uncompared), 10)]
	msg := fmt.Sprintf("this change touches %d agent-config files; Shipgate compares at most %d in one evaluation, so the %d after the first %d (in path order) were not read: %s",
		maxCompared+len(e.uncompared), maxCompared, len(e.uncompared), maxCompared, strings.Join(named, ", "))
	if len(named) < len(e.uncompared) {
		msg += fmt.Sprintf(" and %d more", len(e.uncompared)-len(named))
	}
	msg += ". They may grant anything (a wildcard allow rule such as Bash(*)), so this blocks: split the pull request so that each touches fewer agent-config files."
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: rating.RiskCritical, Action: policy.Block, Path: e.uncompared[0], Line: 1, HeadLine: 1,
		Evidence: "too_many_files", Message: msg, Title: fmt.Sprintf("%d agent-config files not compared", len(e.uncompared)), Key: "too_many_files"})
}

// load classifies and parses every file (the first maxCompared
// agent-config files in path order; tooManyFiles reports the rest).
func (e *engine) load(files []report.File, rules claude.RuleCache) {
	seen := map[string]bool{}
	skip := e.overBound(files)
	var others []report.File // not agent-config files: scripts hooks run, or nothing
	// In path order: the work budget reads the files in that order, so
	// which are read does not depend on the order of the input.
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b report.File) int { return strings.Compare(a.Path, b.Path) })
	e.inputs = make(map[string]report.File, len(files))
	for _, f := range files {
		if _, dup := e.inputs[f.Path]; !dup {
			e.inputs[f.Path] = f
		}
	}
	for _, f := range files {
		name, kind, scope := agentfiles.ClassifyAgent(f.ClassifiedPath(), e.pol)
		if skip[f.Path] && kind != report.NotAgentConfig && kind != report.ScriptFile {
			continue
		}
		if kind == agentfiles.AgentFile && !seen[f.Path] {
			seen[f.Path] = true
			e.loadAgentFile(f, name, scope)
			continue
		}
		if (kind == report.NotAgentConfig || kind == report.ScriptFile) && !seen[f.Path] {
			others = append(others, f)
		}
		if kind == report.NotAgentConfig || kind == report.ScriptFile || seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		if kind == report.SkillFile || kind == report.CommandFile {
			scope = skillPoolPrefix + scope
		}
		fs := &fileState{File: f, kind: kind, scope: scope}
		fs.changed = f.Base.Exists != f.Head.Exists || f.Base.Unreadable != f.Head.Unreadable || !bytes.Equal(f.Base.Data, f.Head.Data)
		if f.Base.Exists {
			fs.base, fs.baseErr = e.parseMetered(f.Path, kind, f.Base, rules)
		}
		switch {
		case fs.baseErr != nil && fs.baseErr.Limit == budgetSpent:
			// A base not read for the budget would read as empty (and a
			// deleted file as nothing removed): the head is not read either,
			// and the file fails closed whole as one Shipgate cannot read.
			fs.headErr = fs.baseErr
		case f.Head.Exists:
			fs.head, fs.headErr = e.parseMetered(f.Path, kind, f.Head, rules)
		}
		e.files = append(e.files, fs)
		e.scopes[scope] = append(e.scopes[scope], fs)
	}
	e.loadScripts(others)
	sort.Slice(e.files, func(i, j int) bool { return e.files[i].Path < e.files[j].Path })
}

// budgetSpent is the parseError limit of a version not read because the
// comparison's work budget was spent (by the files before it in path
// order): the file fails closed as one Shipgate cannot read.
const budgetSpent = "too_complex"

// Compiling a rule is charged to the work budget as ruleSteps plus
// ruleByteSteps per byte of its text: calibrated on the 1 MiB shapes
// (GOMAXPROCS=1), a rule costs about 5 µs to compile and rate plus about
// 0.2 µs per byte, and a search step about 25 ns — so that the budget
// bounds the rules a comparison reads as well as its searches
// (docs/benchmarks.md). A realistic 2,000-rule file costs under 1 M steps.
const (
	ruleSteps     = 1000
	ruleByteSteps = 12
)

// affords reports whether the budget may pay for reading a version whose
// reading is charged at most n steps: not once it is spent, nor when n
// would overrun it — except for the first version read, so that one file
// alone is always compared (its cost is bounded by MaxFileSize).
func (e *engine) affords(n int64) bool {
	if e.budget.Exhausted() {
		return false
	}
	first := !e.readAny
	e.readAny = true
	return first || e.budget.Used()+n <= e.budget.Total()
}

// parseMetered is parseDoc under the work budget: a version is not read
// once the budget is spent (its parseError's limit is budgetSpent), and
// the rules it compiles are charged (each distinct rule once per
// comparison: the cache shares them between versions and files).
func (e *engine) parseMetered(p string, kind report.FileKind, v report.Version, rules claude.RuleCache) (*claude.Doc, *claude.ParseError) {
	if !e.affords(ruleByteSteps * int64(len(v.Data))) {
		// What its rules would cost (at most its size in rule text) is
		// more than the budget has left: not read, so that no file's
		// compilation runs far past the budget. (The first file read is
		// always within it: MaxFileSize × ruleByteSteps is under the
		// default total.)
		return nil, &claude.ParseError{Limit: budgetSpent, Msg: "its rules were not compiled: the comparison's work budget was spent before this file was read (by the rules of the files before it in path order), so they are too complex to compare together"}
	}
	d, pe := claude.ParseDoc(p, kind, v, rules)
	if d == nil {
		return d, pe
	}
	var steps int64
	for _, r := range d.Rules {
		k := ruleID{r.Rule.List, r.Rule.Text}
		if e.compiled[k] {
			continue
		}
		if e.compiled == nil {
			e.compiled = map[ruleID]bool{}
		}
		e.compiled[k] = true
		steps += ruleSteps + ruleByteSteps*int64(len(r.Rule.Text))
	}
	e.budget.Spend(steps)
	return d, pe
}

// scopeRules returns the rules of one list across the settings files of a
// scope on one side — the pool Claude Code evaluates together. A file that
// does not parse contributes nothing (Claude Code drops it whole).
func (e *engine) scopeRules(scope string, head bool, ls ...lattice.List) []lattice.Rule {
	key := fmt.Sprint(scope, head, ls)
	if r, ok := e.pools[key]; ok {
		return r
	}
	out := e.collectRules(scope, head, ls)
	if e.pools == nil {
		e.pools = map[string][]lattice.Rule{}
	}
	e.pools[key] = out
	return out
}

// collectRules gathers the rules of a pool (see scopeRules and poolRules).
func (e *engine) collectRules(scope string, head bool, ls []lattice.List) []lattice.Rule {
	out := e.poolRules(scope, head, ls)
	// What Claude Code derives across tools (lattice.Implied: an Edit
	// allow allows Read and Write of its paths, a Read deny denies Edit
	// and Write of them) is part of the pool.
	for _, r := range out[:len(out):len(out)] {
		out = append(out, e.implied(r)...)
	}
	return out
}

// implied is lattice.Implied, once per rule of the comparison (each rule
// takes part in several pools).
func (e *engine) implied(r lattice.Rule) []lattice.Rule {
	k := ruleID{r.List, r.Text}
	if rs, ok := e.impliedBy[k]; ok {
		return rs
	}
	rs := lattice.Implied(r)
	if e.impliedBy == nil {
		e.impliedBy = map[ruleID][]lattice.Rule{}
	}
	e.impliedBy[k] = rs
	return rs
}

// compareFile records the file's status and compares it when it changed.
func (e *engine) compareFile(f *fileState) {
	if f.kind == agentfiles.AgentFile {
		e.agentStatus(f)
		return
	}
	st := report.FileStatus{Path: f.Path, Status: report.StatusCompared}
	switch {
	case f.Head.Exists && f.headErr != nil && f.headErr.TooLarge:
		st.Status, st.Detail = report.StatusTooLarge, f.headErr.Msg
	case f.Head.Exists && f.headErr != nil:
		st.Status, st.Detail = report.StatusParseFailed, f.headErr.Error()
	case !f.changed:
		st.Status = report.StatusUnchanged
	case !f.Base.Exists:
		st.Status = report.StatusAdded
	case !f.Head.Exists:
		st.Status = report.StatusDeleted
		switch {
		case f.baseErr != nil && baseLimited(f):
			st.Detail = "Shipgate could not read the base version (" + strings.TrimSuffix(f.baseErr.Error(), ".") + "), so what the deletion removes is not known"
		case f.baseErr != nil && f.kind == report.SettingsFile:
			st.Detail = "the base version does not parse (" + f.baseErr.Error() + "), so Claude Code never read it: deleting it changes nothing"
		case f.base != nil && f.base.Dropped != nil:
			st.Detail = "Claude Code ignored the base version (" + f.base.Dropped.Message() + "), so deleting it changes nothing"
		}
	case f.baseErr != nil && baseLimited(f):
		st.Detail = "Shipgate could not read the base version (" + strings.TrimSuffix(f.baseErr.Error(), ".") + "): the head is compared against an empty base, and what it removes is not known"
	case f.baseErr != nil:
		st.Detail = "the base version could not be read (" + f.baseErr.Error() + "), so Claude Code ignored it: compared against an empty base"
	}
	before := len(e.changes)
	if f.changed {
		if f.headErr != nil && claude.FrontmatterKind(f.kind) && sameUnreadableFrontmatter(f) {
			e.row(f, report.KindFile, report.DirChanged, "unreadable frontmatter", "the same unreadable frontmatter", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow},
				max(f.headErr.Line, 1), max(f.headErr.Line, 1),
				"the frontmatter block is byte for byte the one of the base, which did not parse either ("+strings.TrimSuffix(f.headErr.Msg, ".")+"): whatever Claude Code makes of it, it makes the same; only the text after it changed")
		} else if f.headErr != nil && claude.FrontmatterKind(f.kind) {
			e.frontmatterUnreadable(f)
		} else if f.headErr != nil {
			e.headUnreadable(f)
		} else {
			if f.baseErr != nil && baseLimited(f) {
				e.baseUnreadable(f)
			}
			if f.head != nil {
				e.problemFindings(f, claudeProblems(f.Path, f.base), claudeProblems(f.Path, f.head))
			}
			e.droppedVersions(f)
			gave := e.stopped()
			switch f.kind {
			case report.SettingsFile:
				e.compareRules(f)
				e.compareValues(f)
			case report.MCPFile:
				e.compareMCP(f)
			case report.SkillFile, report.CommandFile, report.SubagentFile:
				e.compareAgentDoc(f)
			case report.ScriptFile:
				e.compareScript(f)
			}
			// Searches cut short while one rule was judged have a finding
			// naming that rule (tooComplexRules); the file-wide finding
			// covers the rest: questions no single rule stands for, or a
			// comparison the context stopped.
			if n := e.stopped() - gave - e.attributed; n > 0 || (e.ctx.Err() != nil && e.attributed == 0) {
				e.tooComplex(f, n)
			}
			e.attributed = 0
		}
	}
	st.Rows = len(e.changes) - before
	e.status = append(e.status, st)
}

// headUnreadable reports a head version Claude Code cannot read: it drops
// the whole file, so every deny and ask rule the base declared is gone.
func (e *engine) headUnreadable(f *fileState) {
	pe := f.headErr
	var lost []string
	nDeny, nAsk := 0, 0
	if f.base != nil {
		for _, r := range f.base.Rules {
			switch r.Rule.List {
			case lattice.Deny:
				nDeny++
			case lattice.Ask:
				nAsk++
			}
		}
	}
	if nDeny > 0 {
		lost = append(lost, report.Plural(nDeny, "deny rule"))
	}
	if nAsk > 0 {
		lost = append(lost, report.Plural(nAsk, "ask rule"))
	}
	kind := "json_parse_failed"
	switch {
	case pe.Limit != "":
		kind = pe.Limit
	case pe.TooLarge:
		kind = "too_large"
	case f.Head.Unreadable != "":
		kind = "unreadable"
	}
	risk := report.CheckInfoOf(report.CheckParseFailed).Risk
	var action policy.Action // "" keeps the catalogue's
	var msg, why string
	if kind == "json_parse_failed" {
		// Claude Code itself cannot read the file: it drops it whole.
		msg = fmt.Sprintf("%s does not parse as JSON", f.Path)
		if pe.Line > 0 {
			msg += fmt.Sprintf(" at line %d, column %d", pe.Line, pe.Col)
		}
		msg += ": " + strings.TrimSuffix(pe.Msg, ".") + ". Claude Code drops a file it cannot parse"
		if len(lost) > 0 {
			verb := " stop applying"
			if nDeny+nAsk == 1 {
				verb = " stops applying"
			}
			msg += ", so the base's " + strings.Join(lost, " and ") + verb
			risk = "high"
		}
		msg += "."
		if pe.Hint != "" {
			msg += " To fix it: " + pe.Hint
			if !strings.HasSuffix(msg, ".") {
				msg += "."
			}
		}
		why = "Claude Code drops a file it cannot parse, deny and ask rules included; nothing in it can be compared"
	} else {
		// Shipgate's own limit: Claude Code may well read the file, and
		// then it grants whatever it holds. The finding decides at least
		// what such a file could grant: a settings file may hold Bash(*) or
		// bypassPermissions (block); an .mcp.json may add servers.
		msg = fmt.Sprintf("Shipgate could not read %s: %s. This is an input limit of Shipgate, not a claim about the change: nothing in the file was compared", f.Path, strings.TrimSuffix(pe.Msg, "."))
		if len(lost) > 0 {
			msg += fmt.Sprintf(" (the base declared %s)", strings.Join(lost, " and "))
		}
		risk = rating.RiskHigh
		action = e.pol.ActionForAgent(report.CheckMCPServerAdded, agentfiles.AgentClaudeCode, policy.RequireReview)
		if f.kind == report.SettingsFile {
			risk, action = rating.RiskCritical, policy.Block
			msg += ", and Claude Code may read it and grant anything it holds (a wildcard allow rule such as Bash(*), defaultMode: bypassPermissions), so it blocks as that would. Bring the file under 1 MiB and within the limits (nesting, number of rules), or split it"
			if kind == budgetSpent {
				msg += "; or split the pull request, and write grants as command prefixes (Bash(git status *)) or exact commands instead of patterns with many stars"
			}
		} else {
			msg += ", so review it by hand"
		}
		msg += "."
		why = "Shipgate could not read this version, so nothing in it was compared"
	}
	line := pe.Line
	e.changes = append(e.changes, report.Change{
		Path: f.Path, Kind: report.KindFile, Direction: report.DirChanged, Before: "readable", After: "unreadable (" + kind + ")",
		Expands: len(lost) > 0, Access: "unknown", Risk: risk, Line: line, HeadLine: max(line, 1), Witnesses: []string{},
		Why: why,
	})
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: risk, Action: action, Path: f.Path, Line: line, HeadLine: max(line, 1),
		Evidence: kind, Message: msg, Title: "cannot read " + f.Path, Key: "parse|" + f.Path})
}

// baseLimited reports a base version Shipgate did not read for a limit of
// its own (over 1 MiB, nested past its bounds, a symlink or submodule it
// does not follow, left unread for the input bound), which Claude Code may
// well have read. Read as empty, such a base would hide every deny and ask
// rule the change removes: a >1 MiB settings file of denials replaced by
// {} or deleted passed as "no changes". (A base Claude Code cannot read
// either — a JSON syntax error — is rightly empty.)
func baseLimited(f *fileState) bool {
	pe := f.baseErr
	return pe != nil && (pe.Limit != "" || pe.TooLarge || f.Base.Unreadable != "")
}

// baseUnreadable reports a base version Shipgate could not read (a limit
// of its own): the head's rules are compared against an empty base, so
// every grant it holds is a row, but what it removes is unknown — the base
// may have denied or asked about anything. It requires review, at least,
// as a removed deny rule does.
func (e *engine) baseUnreadable(f *fileState) {
	pe := f.baseErr
	kind := "too_large"
	switch {
	case pe.Limit != "":
		kind = pe.Limit
	case !pe.TooLarge && f.Base.Unreadable != "":
		kind = "unreadable"
	}
	now := "deletes it"
	if f.Head.Exists {
		now = "replaces it"
	}
	msg := fmt.Sprintf("Shipgate could not read the base version of %s: %s. Claude Code may well have read it, and this change %s, so any deny or ask rule it held may stop applying: nothing it removes could be compared. Review the base by hand (git show BASE:%s), or bring the file under Shipgate's limits in a change of its own first",
		f.Path, strings.TrimSuffix(pe.Msg, "."), now, f.Path)
	if f.Head.Exists {
		msg += "; the head's rules were each compared as new"
	}
	action := e.pol.ActionForAgent(report.CheckDenyRemoved, agentfiles.AgentClaudeCode, policy.RequireReview)
	e.changes = append(e.changes, report.Change{
		Path: f.Path, Kind: report.KindFile, Direction: report.DirChanged, Before: "unreadable (" + kind + ")", After: headWord(f),
		Expands: true, Access: "unknown", Risk: rating.RiskHigh, Line: 0, HeadLine: 1, Witnesses: []string{},
		Why: "Shipgate could not read the base version, so the rules this change removes are not known",
	})
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: rating.RiskHigh, Action: action, Path: f.Path, Line: 0, HeadLine: 1, Base: true,
		Evidence: "base_" + kind, Message: msg + ".", Title: "cannot read the base of " + f.Path, Key: "parse-base|" + f.Path})
}

// headWord names the head version in a file row.
func headWord(f *fileState) string {
	if !f.Head.Exists {
		return "deleted"
	}
	return "read"
}

// tooComplex reports a file some of whose questions the work budget (or
// the context) cut short. Those questions already count as grants in the
// rows; this finding makes the verdict fail closed whatever they were: it
// blocks when an allow rule the file adds could be a wildcard or launcher
// grant, and requires review otherwise.
func (e *engine) tooComplex(f *fileState, n int64) {
	action, risk := policy.RequireReview, rating.RiskHigh
	var worst []string
	base := map[string]bool{}
	for _, r := range f.base.RulesIn(lattice.Allow) {
		base[r.Rule.Text] = true
	}
	line := 0
	for _, r := range f.head.RulesIn(lattice.Allow) {
		if base[r.Rule.Text] {
			continue
		}
		if line == 0 {
			line = r.Line
		}
		if rt := e.rate(r.Rule); rt.ExecTier || rt.Wildcard || r.Rule.MayBeWhole() {
			action, risk = policy.Block, rating.RiskCritical
			if len(worst) < 3 {
				worst = append(worst, r.Rule.Text)
			}
		}
	}
	why := "too complex to decide within Shipgate's work budget"
	if e.ctx.Err() != nil {
		why = "not decided before the evaluation was stopped (" + e.ctx.Err().Error() + ")"
	}
	msg := fmt.Sprintf("%d comparisons of the rules in %s were %s, so they count as grants", n, f.Path, why)
	if n == 0 {
		msg = fmt.Sprintf("the comparison of the rules in %s was %s, so what it left open counts as granted", f.Path, why)
	}
	if len(worst) > 0 {
		msg += "; the file adds allow rules that could be wildcard or launcher grants (" + strings.Join(worst, ", ") + "), so this blocks"
	}
	msg += ". Patterns with many stars and long runs of distinct characters between them (Bash(*a*b*c*)) are the usual cause: write each grant as a command prefix (Bash(git status *)) or an exact command (Bash(npm test)) instead."
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: risk, Action: action, Path: f.Path, Line: line, HeadLine: max(line, 1),
		Evidence: "too_complex", Message: msg, Title: "rules too complex to decide in " + f.Path, Key: "complex|" + f.Path})
}

// attribution returns a function that charges the searches cut short
// from one call to the next to the event of the earlier call (nil ends
// the last one): the passes that judge rule by rule call it as they move
// on, so a rule too complex to decide is named on its own and the others
// keep their exact answers.
func (e *engine) attribution() func(*event) {
	var cur *event
	var from int64
	return func(next *event) {
		if cur != nil {
			if n := e.stopped() - from; n > 0 {
				cur.stops += n
				e.attributed += n
			}
		}
		cur, from = next, e.stopped()
	}
}

// accounted runs a pass whose cut-short searches need no finding of
// their own (the pass fails closed by itself), so the file-wide one does
// not count them.
func (e *engine) accounted(pass func()) {
	from := e.stopped()
	pass()
	e.attributed += e.stopped() - from
}

// maxComplexRules is how many rules of one file get a too_complex finding
// of their own; the rest are counted in one more.
const maxComplexRules = 20

// tooComplexRules reports each rule of the file whose judgement the work
// budget (or the context) cut short: its row already counts it as a grant
// (an allow rule that may grant anything new, a deny or ask rule whose
// removal may free anything); the finding names it (path:line, text),
// blocks when it is an allow rule that could be a wildcard or launcher
// grant, requires review otherwise, and says what to write instead.
func (e *engine) tooComplexRules(rs *ruleSet) {
	f := rs.f
	var complex []*event
	for _, l := range claude.Lists {
		for _, evs := range [][]*event{rs.added[l], rs.removed[l]} {
			for _, ev := range evs {
				if ev.stops > 0 {
					complex = append(complex, ev)
				}
			}
		}
	}
	if len(complex) == 0 {
		return
	}
	sort.SliceStable(complex, func(i, j int) bool { return complex[i].decl.Line < complex[j].decl.Line })
	why := "too complex to decide within Shipgate's work budget"
	if err := e.ctx.Err(); err != nil {
		why = "not decided before the evaluation was stopped (" + err.Error() + ")"
	}
	// wide says whether an added allow rule could be a wildcard or
	// launcher grant: then what it may grant is anything.
	wide := func(ev *event) bool {
		if !ev.added || ev.list() != lattice.Allow {
			return false
		}
		rt := e.rate(ev.decl.Rule)
		return rt.ExecTier || rt.Wildcard || ev.decl.Rule.MayBeWhole()
	}
	for i, ev := range complex {
		if i == maxComplexRules {
			rest := complex[i:]
			action, risk := policy.RequireReview, rating.RiskHigh
			var names []string
			for _, r := range rest {
				if wide(r) {
					action, risk = policy.Block, rating.RiskCritical
				}
				if len(names) < 3 {
					names = append(names, fmt.Sprintf("line %d: %s", r.decl.Line, r.text()))
				}
			}
			msg := fmt.Sprintf("%s: %d more rules were %s (%s, …), so each counts as a grant", f.Path, len(rest), why, strings.Join(names, "; "))
			if action == policy.Block {
				msg += "; some could be wildcard or launcher grants, so this blocks"
			}
			msg += ". " + complexAdvice
			e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: risk, Action: action, Path: f.Path, Line: rest[0].decl.Line, HeadLine: max(rest[0].decl.Line, 1),
				Evidence: "too_complex", Message: msg, Title: fmt.Sprintf("%d more rules too complex to decide in %s", len(rest), f.Path),
				Key: "complex|" + f.Path + "|more"})
			break
		}
		r := ev.decl.Rule
		action, risk := policy.RequireReview, rating.RiskHigh
		var msg string
		line, head := ev.decl.Line, ev.decl.Line
		if ev.added {
			msg = fmt.Sprintf("%s:%d: whether %s: %s grants anything new was %s, so it counts as a grant", f.Path, line, r.List, r.Text, why)
			if ev.list() != lattice.Allow {
				msg = fmt.Sprintf("%s:%d: what %s: %s stops was %s, so it counts as stopping nothing new", f.Path, line, r.List, r.Text, why)
			}
			if wide(ev) {
				action, risk = policy.Block, rating.RiskCritical
				msg += "; it could be a wildcard or launcher grant, so this blocks"
			}
		} else {
			head = f.head.ListLine(r.List)
			msg = fmt.Sprintf("%s:%d (base): what removing %s: %s frees was %s, so it counts as removed", f.Path, line, r.List, r.Text, why)
			if ev.list() == lattice.Allow {
				msg = fmt.Sprintf("%s:%d (base): what removing %s: %s takes away was %s", f.Path, line, r.List, r.Text, why)
			}
		}
		msg += ". The other rules of the file were judged on their own. " + complexAdvice
		e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: risk, Action: action, Path: f.Path, Line: line, HeadLine: max(head, 1), Base: !ev.added,
			Evidence: "too_complex", Message: msg, Title: "rule too complex to decide: " + r.Text,
			Key: "complex|" + f.Path + "|" + string(r.List) + "|" + r.Text})
	}
}

// complexAdvice says what to write instead of a rule too complex to decide.
const complexAdvice = "Patterns with many stars and long runs of distinct characters between them (Bash(*a*b*c*)) are the usual cause: write each grant as a command prefix (Bash(git status *)) or an exact command (Bash(npm test)), and each path as a directory (Read(src/**)), instead."

// policyChange reports a pull request that loosens the policy file.
func (e *engine) policyChange(pc *report.PolicyChange) {
	if pc == nil {
		return
	}
	loose := policy.Loosenings(pc.Base, pc.Head)
	line := max(pc.HeadLine, 1)
	if len(loose) == 0 {
		e.changes = append(e.changes, report.Change{Path: pc.Path, Agent: agentfiles.AgentShipgate, Kind: report.KindSetting, Direction: report.DirChanged, Before: "policy", After: "policy (changed)",
			Access: "none", Risk: "low", Line: line, HeadLine: line, Witnesses: []string{},
			Why: "the Shipgate policy changes without letting more through (it is judged under the base's policy here)"})
		return
	}
	e.changes = append(e.changes, report.Change{Path: pc.Path, Agent: agentfiles.AgentShipgate, Kind: report.KindSetting, Direction: report.DirChanged, Before: "policy", After: "policy (loosened)",
		Expands: true, Access: "admin", Risk: "high", Line: line, HeadLine: line, Witnesses: []string{},
		Why: "the Shipgate policy lets more through: " + strings.Join(loose, "; ")})
	e.finding(report.Finding{CheckID: report.CheckPolicyLoosened, Agent: agentfiles.AgentShipgate, Path: pc.Path, Line: line, HeadLine: line, Evidence: strings.Join(loose, "; "),
		Title: "the policy is loosened", Key: report.CheckPolicyLoosened + "|" + pc.Path + "|" + strings.Join(loose, ";"),
		Message: fmt.Sprintf("%s is loosened: %s. This pull request is judged under the base's policy; merged, the new policy governs every later pull request.", pc.Path, strings.Join(loose, "; "))})
}

// finding fills in the action and risk from the catalogue and the policy,
// and records the finding.
func (e *engine) finding(f report.Finding) {
	info := report.CheckInfoOf(f.CheckID)
	if f.Agent == "" {
		f.Agent = agentfiles.AgentOfPath(f.Path, e.pol)
		if f.Agent == "" {
			f.Agent = agentfiles.AgentClaudeCode
		}
	}
	if f.Risk == "" {
		f.Risk = info.Risk
	}
	f.Risk = rating.Risk(e.pol.RiskForAgent(f.CheckID, f.Agent, string(f.Risk)))
	def := info.Action
	if f.Action.Rank() > 0 {
		def = f.Action // a check whose policy sets its own action (ceiling, intent)
	}
	f.Action = e.pol.ActionForAgent(f.CheckID, f.Agent, def)
	if f.Title == "" {
		f.Title = info.Title
	}
	if f.Key == "" {
		f.Key = f.CheckID + "|" + f.Path + "|" + f.Evidence
	}
	e.findings = append(e.findings, f)
}

// label names the agent of every row that does not name one yet: the
// agent that reads its file (Claude Code for the scripts its hooks run),
// Shipgate for the policy file.
func (e *engine) label(pc *report.PolicyChange) {
	of := func(p string) string {
		if pc != nil && p == pc.Path {
			return agentfiles.AgentShipgate
		}
		if a := agentfiles.AgentOfPath(p, e.pol); a != "" {
			return a
		}
		return agentfiles.AgentClaudeCode
	}
	for i := range e.changes {
		if e.changes[i].Agent == "" {
			e.changes[i].Agent = of(e.changes[i].Path)
		}
	}
	for i := range e.findings {
		if e.findings[i].Agent == "" {
			e.findings[i].Agent = of(e.findings[i].Path)
		}
	}
	for i := range e.status {
		if e.status[i].Agent == "" {
			e.status[i].Agent = of(e.status[i].Path)
		}
	}
}

// report sorts everything into a deterministic Report, grouped by agent.
func (e *engine) report() report.Report {
	sort.SliceStable(e.changes, func(i, j int) bool {
		a, b := e.changes[i], e.changes[j]
		if ga, gb := agentfiles.AgentRank(a.Agent), agentfiles.AgentRank(b.Agent); ga != gb {
			return ga < gb
		}
		if ra, rb := a.Risk.Rank(), b.Risk.Rank(); a.Expands != b.Expands || ra != rb {
			if a.Expands != b.Expands {
				return a.Expands
			}
			return ra > rb
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Before+a.After < b.Before+b.After
	})
	sort.SliceStable(e.findings, func(i, j int) bool {
		a, b := e.findings[i], e.findings[j]
		if ga, gb := agentfiles.AgentRank(a.Agent), agentfiles.AgentRank(b.Agent); ga != gb {
			return ga < gb
		}
		if pa, pb := a.Action.Rank(), b.Action.Rank(); pa != pb {
			return pa > pb
		}
		if ra, rb := a.Risk.Rank(), b.Risk.Rank(); ra != rb {
			return ra > rb
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Key < b.Key
	})
	sort.SliceStable(e.status, func(i, j int) bool { return e.status[i].Path < e.status[j].Path })
	e.oneRiskPerChange()
	sort.SliceStable(e.suggestions, func(i, j int) bool {
		a, b := e.suggestions[i], e.suggestions[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	r := report.Report{Schema: report.Schema, Files: e.status, Changes: e.changes, Findings: e.findings, Suggestions: e.suggestions, CheckedAgainst: agentfiles.CheckedAgainst(e.status)}
	if r.Files == nil {
		r.Files = []report.FileStatus{}
	}
	if r.Changes == nil {
		r.Changes = []report.Change{}
	}
	if r.Findings == nil {
		r.Findings = []report.Finding{}
	}
	if r.Suggestions == nil {
		r.Suggestions = []report.Suggestion{}
	}
	for i := range r.Changes {
		if r.Changes[i].Witnesses == nil {
			r.Changes[i].Witnesses = []string{}
		}
	}
	r.Decision = report.Decide(r.Findings)
	return r
}

// oneRiskPerChange gives a change and the findings raised on it one risk,
// the higher of the two: a removed deny rule grants nothing itself (its
// rating is low) but the finding that it left is high, and a reviewer must
// not read two severities for one fact. A finding is on a change when both
// name the same place (path, line, and side: a removal's line is the
// base's) and, where several widening changes share that place (a
// one-line `"allow": ["Bash(git status:*)", "mcp__x"]`), the same rule:
// the finding's key ends with the change's rule text. Matching by place
// alone gave every rule on such a line the risk of the worst one.
func (e *engine) oneRiskPerChange() {
	type place struct {
		path string
		line int
		base bool
	}
	subjects := map[place][]int{}
	for i, c := range e.changes {
		if c.Expands {
			p := place{c.Path, c.Line, c.Direction == report.DirRemoved}
			subjects[p] = append(subjects[p], i)
		}
	}
	// on is the change a finding is on, or -1.
	on := func(f report.Finding) int {
		cs := subjects[place{f.Path, f.Line, f.Base}]
		if len(cs) == 1 {
			return cs[0]
		}
		match := -1
		for _, i := range cs {
			c := e.changes[i]
			texts := []string{c.After, c.Before}
			for _, t := range []string{c.After, c.Before} {
				if _, rest, ok := strings.Cut(t, ": "); ok {
					texts = append(texts, rest) // a moved rule's "list: text"
				}
			}
			for _, t := range texts {
				if t != "" && strings.HasSuffix(f.Key, "|"+t) {
					if match >= 0 && match != i {
						return -1 // two candidates: no claim
					}
					match = i
				}
			}
		}
		return match
	}
	risk := map[int]rating.Risk{}
	for i := range e.changes {
		risk[i] = e.changes[i].Risk
	}
	links := make([]int, len(e.findings))
	for j, f := range e.findings {
		links[j] = on(f)
		if i := links[j]; i >= 0 && f.Risk.Rank() > risk[i].Rank() {
			risk[i] = f.Risk
		}
	}
	for i := range e.changes {
		e.changes[i].Risk = risk[i]
	}
	for j, i := range links {
		if i >= 0 && risk[i].Rank() > e.findings[j].Risk.Rank() {
			e.findings[j].Risk = risk[i]
		}
	}
}

// sentence ends a message with a full stop unless it already ends a
// sentence.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// sameUnreadableFrontmatter reports a skill, command or subagent whose
// frontmatter does not parse at the head, did not parse at the base
// either, and is the same block on both sides: the change touches only
// the text after it (beads c8b912cbe6 edits a command's prose under a
// block that never parsed). A limit of Shipgate's on either side (too
// large, unreadable, the work budget) is not such a file.
func sameUnreadableFrontmatter(f *fileState) bool {
	h, b := f.headErr, f.baseErr
	if h == nil || b == nil || h.TooLarge || b.TooLarge || h.Limit != "" || b.Limit != "" ||
		!f.Base.Exists || !f.Head.Exists || f.Base.Unreadable != "" || f.Head.Unreadable != "" {
		return false
	}
	return claude.SameFrontmatter(f.Base.Data, f.Head.Data)
}
