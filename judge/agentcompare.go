package judge

import (
	"errors"
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

// This file compares the files of agents other than Claude Code through
// the agent-neutral model (agentfiles/agent): per scope, the
// effective policy at base and head (the adapter's precedence), searched
// with the lattice for calls the head decides more permissively than the
// base; per file, settings, MCP servers and problems.

// loadAgentFile reads both sides of a ModelAdapter's file.
func (e *engine) loadAgentFile(f report.File, name, scope string) {
	m, _ := agentfiles.AdapterFor(name).(agentfiles.ModelAdapter)
	fs := &fileState{File: f, kind: agentfiles.AgentFile, scope: "agent:" + name + ":" + scope, agent: name}
	fs.changed = f.Base.Exists != f.Head.Exists || f.Base.Unreadable != f.Head.Unreadable || string(f.Base.Data) != string(f.Head.Data)
	read := func(v report.Version, head bool) (*agent.Doc, error) {
		switch {
		case m == nil:
			return nil, &agent.ParseError{File: f.Path, Msg: "no adapter reads this file"}
		case v.Unreadable != "":
			return nil, &agent.ParseError{File: f.Path, Msg: v.Unreadable, MayStillGrant: true}
		case len(v.Data) > report.MaxFileSize:
			return nil, &agent.ParseError{File: f.Path, Msg: fmt.Sprintf("the file is larger than %d bytes", report.MaxFileSize), MayStillGrant: true}
		}
		cost := agentReadSteps(m, f.Path, v.Data)
		if !e.affords(cost) {
			return nil, &agent.ParseError{File: f.Path, Msg: agentBudgetSpent, MayStillGrant: true}
		}
		var d *agent.Doc
		var err error
		if ar, ok := m.(agentfiles.AsReader); ok && f.As != "" {
			d, err = ar.ReadAs(f.Path, f.As, v.Data)
		} else if sr, ok := m.(sharedReader); ok {
			d, err = sr.ReadShared(f.Path, v.Data, &e.starlarkUsed)
		} else if rr, ok := m.(agentfiles.ReferenceReader); ok {
			d, err = rr.ReadWith(f.Path, v.Data, e.lookup(head))
		} else {
			d, err = m.Read(f.Path, v.Data)
		}
		if err == nil && d == nil {
			d = &agent.Doc{}
		}
		e.budget.Spend(cost)
		return d, err
	}
	if rr, ok := m.(agentfiles.ReferenceReader); ok && !fs.changed {
		// A file it pulls in changed: so did what the agent reads.
		for _, v := range []report.Version{f.Base, f.Head} {
			for _, q := range rr.References(f.Path, v.Data) {
				if g, ok := e.inputs[q]; ok && !sameVersions(g) {
					fs.changed = true
				}
			}
		}
	}
	if f.Base.Exists {
		fs.mbase, fs.mbaseErr = read(f.Base, false)
	}
	var pe *agent.ParseError
	switch {
	case errors.As(fs.mbaseErr, &pe) && pe.Msg == agentBudgetSpent:
		// Not read for the budget: the head is not read either, so the
		// file fails closed whole (an unread base would read as empty).
		fs.mheadErr = fs.mbaseErr
	case f.Head.Exists:
		fs.mhead, fs.mheadErr = read(f.Head, true)
	}
	e.files = append(e.files, fs)
	e.scopes[fs.scope] = append(e.scopes[fs.scope], fs)
}

// lookup finds another input file's version on one side for ReadWith:
// known is false for a file the input does not hold (or could not read).
func (e *engine) lookup(head bool) func(string) ([]byte, bool, bool) {
	return func(p string) ([]byte, bool, bool) {
		f, ok := e.inputs[agentfiles.CleanPath(p)]
		if !ok {
			return nil, false, false
		}
		v := f.Base
		if head {
			v = f.Head
		}
		if v.Unreadable != "" || len(v.Data) > report.MaxFileSize {
			return nil, false, false
		}
		return v.Data, v.Exists, true
	}
}

func sameVersions(f report.File) bool {
	return f.Base.Exists == f.Head.Exists && f.Base.Unreadable == f.Head.Unreadable && string(f.Base.Data) == string(f.Head.Data)
}

// agentByteSteps is what reading one byte of another agent's file is
// charged to the work budget: the adapters compile every pattern and
// regular expression as they read (0.6-0.7 µs a byte for 400-rule OpenCode
// and VS Code files measured under load, about 1 µs with the collector's
// share on a quiet machine: some 40 search steps at the budget's 25 ns),
// so a pull request of hundreds of such files is bounded by the budget as
// Claude Code's are. It was 35: 100 VS Code files of 400 expressions then
// took 0.51-0.62 s of CPU quiet, the dearest shape measured.
const agentByteSteps = 45

// agentScanSteps is what a byte an adapter only scans past is charged: the
// Markdown after a skill's or an agent's frontmatter, which
// agent.Frontmatter searches for the closing line and never parses (about
// a nanosecond a byte: one step, some 25 ns, is a bound far above it).
const agentScanSteps = 1

// agentReadSteps is what reading one version of another agent's file is
// charged to the work budget: agentByteSteps a byte the adapter parses —
// for a file it reads only the frontmatter of (a Copilot CLI skill), the
// frontmatter's bytes, and agentScanSteps for the rest. Charging a
// skill's prose as rules spent the budget on a pull request of some 20
// skills of 10–20 KB (TanStack/router, wshobson/agents: issue 22), so the
// files after them blocked unread.
func agentReadSteps(m agentfiles.ModelAdapter, p string, data []byte) int64 {
	if fr, ok := m.(agentfiles.FrontmatterReader); ok && fr.FrontmatterOnly(p) {
		n := int64(agent.FrontmatterSize(data))
		return agentByteSteps*n + agentScanSteps*(int64(len(data))-n)
	}
	return agentByteSteps * int64(len(data))
}

// agentBudgetSpent is the message of a version not read for the budget.
const agentBudgetSpent = "not read: the comparison's work budget was spent before this file (by the files before it in path order), so its rules are too complex to compare together; split the pull request"

// sharedReader is a ModelAdapter whose reading draws on a bound shared by
// the comparison's files (Codex's Starlark steps: 500 rules files of a
// million steps each would take seconds); used is what they took so far.
type sharedReader interface {
	ReadShared(path string, data []byte, used *int64) (*agent.Doc, error)
}

// agentStatus records an agent file's status; its rows come from
// compareAgents, which also sets Rows.
func (e *engine) agentStatus(f *fileState) {
	st := report.FileStatus{Path: f.Path, Agent: f.agent, Status: report.StatusCompared}
	switch {
	case f.Head.Exists && f.mheadErr != nil:
		st.Status, st.Detail = report.StatusParseFailed, f.mheadErr.Error()
	case !f.changed:
		st.Status = report.StatusUnchanged
	case !f.Base.Exists:
		st.Status = report.StatusAdded
	case !f.Head.Exists:
		st.Status = report.StatusDeleted
	case agentBaseLimited(f):
		st.Detail = "Shipgate could not read the base version (" + strings.TrimSuffix(f.mbaseErr.Error(), ".") + "): compared against an empty base, and what the change removes is not known"
	case f.mbaseErr != nil:
		st.Detail = "the base version could not be read (" + f.mbaseErr.Error() + "): compared against an empty base"
	}
	e.status = append(e.status, st)
}

// compareAgents compares every scope of a ModelAdapter with a changed file.
func (e *engine) compareAgents() {
	var scopes []string
	for s, fs := range e.scopes {
		if !strings.HasPrefix(s, "agent:") {
			continue
		}
		for _, f := range fs {
			if f.changed {
				scopes = append(scopes, s)
				break
			}
		}
	}
	sort.Strings(scopes)
	before := len(e.changes)
	for _, s := range scopes {
		fs := append([]*fileState(nil), e.scopes[s]...)
		sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
		e.compareAgentScope(fs)
	}
	rows := map[string]int{}
	for _, c := range e.changes[before:] {
		rows[c.Path]++
	}
	for i := range e.status {
		if e.status[i].Agent != "" {
			e.status[i].Rows = rows[e.status[i].Path]
		}
	}
}

// agentSide is one side of a scope: its docs and effective policy.
type agentSide struct {
	docs []*agent.Doc
	pol  *agent.Policy
}

func (e *engine) compareAgentScope(fs []*fileState) {
	name := fs[0].agent
	m, _ := agentfiles.AdapterFor(name).(agentfiles.ModelAdapter)
	if m == nil {
		return
	}
	var base, head agentSide
	for _, f := range fs {
		base.docs = append(base.docs, f.mbase)
		head.docs = append(head.docs, f.mhead)
	}
	base.pol, head.pol = m.Combine(base.docs), m.Combine(head.docs)
	for _, f := range fs {
		if !f.changed {
			continue
		}
		gave := e.stopped()
		if f.Head.Exists && f.mheadErr != nil {
			e.agentUnreadable(f)
		} else if agentBaseLimited(f) {
			e.agentBaseUnreadable(f)
		}
		if f.mhead != nil {
			e.problemFindings(f, modelProblems(f.Path, f.mbase), modelProblems(f.Path, f.mhead))
		}
		e.agentSettings(f)
		e.agentServers(f)
		if n := e.stopped() - gave; n > 0 {
			e.agentTooComplex(f, n)
		}
	}
	if strings.HasSuffix(fs[0].scope, ":") {
		e.agentIntents(fs, head.pol)
	}
	gave := e.stopped()
	e.agentRules(fs, base.pol, head.pol)
	if n := e.stopped() - gave; n > 0 || e.ctx.Err() != nil {
		for _, f := range fs {
			if f.changed {
				e.agentTooComplex(f, n)
				break
			}
		}
	}
}

// agentBaseLimited reports a base version Shipgate did not read although
// the agent may have (over 1 MiB, unreadable to the gatherer, left for the
// budget, or a tolerant reader that applies what it can): read as empty,
// it would hide every rule the change removes — an opencode.json over
// 1 MiB that asks about bash, replaced by {}, passed while OpenCode's
// built-in allow-everything took over.
func agentBaseLimited(f *fileState) bool {
	var pe *agent.ParseError
	return f.Base.Exists && errors.As(f.mbaseErr, &pe) && pe.MayStillGrant
}

// agentBaseUnreadable reports such a base: what the change removes is not
// known, so it requires review at least (a removed deny rule's level).
func (e *engine) agentBaseUnreadable(f *fileState) {
	msg := f.mbaseErr.Error()
	var pe *agent.ParseError
	if errors.As(f.mbaseErr, &pe) {
		msg = pe.Msg
	}
	msg = strings.TrimSuffix(msg, ".")
	now := "deletes it"
	if f.Head.Exists {
		now = "replaces it"
	}
	action := e.pol.ActionForAgent(report.CheckDenyRemoved, f.agent, policy.RequireReview)
	e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindFile, Direction: report.DirChanged,
		Before: "unreadable", After: headWord(f), Expands: true, Access: rating.AccessUnknown, Risk: rating.RiskHigh, Line: 0, HeadLine: 1,
		Witnesses: []string{}, Why: "Shipgate could not read the base version, so the rules this change removes are not known"})
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Agent: f.agent, Risk: rating.RiskHigh, Action: action, Path: f.Path, Line: 0, HeadLine: 1, Base: true,
		Evidence: "base_unreadable", Title: "cannot read the base of " + f.Path, Key: "parse-base|" + f.Path,
		Message: fmt.Sprintf("Shipgate could not read the base version of %s as %s reads it: %s. %s may well have applied it, and this change %s, so any rule of it that denied or asked may stop applying: nothing it removes could be compared. Review the base by hand (git show BASE:%s), or bring the file within Shipgate's limits in a change of its own first.",
			f.Path, agentfiles.AgentDisplay(f.agent), msg, agentfiles.AgentDisplay(f.agent), now, f.Path)})
}

// agentUnreadable reports a head version the agent cannot read.
func (e *engine) agentUnreadable(f *fileState) {
	var pe *agent.ParseError
	line := 0
	msg := f.mheadErr.Error()
	grant, blocks := false, ""
	if errors.As(f.mheadErr, &pe) {
		line, msg, grant, blocks = pe.Line, pe.Msg, pe.MayStillGrant, pe.Blocks
	}
	risk := rating.RiskHigh
	var action policy.Action
	text := fmt.Sprintf("%s cannot be read as %s reads it", f.Path, agentfiles.AgentDisplay(f.agent))
	if line > 0 && pe.Col > 0 {
		text += fmt.Sprintf(" (line %d, column %d)", line, pe.Col)
	} else if line > 0 {
		text += fmt.Sprintf(" (line %d)", line)
	}
	if pe != nil && pe.Inert != "" {
		// Nothing the agent recovers from it reaches the agent: said, not held.
		text += ": " + strings.TrimSuffix(msg, ".") + ". " + agentfiles.AgentDisplay(f.agent) + " reads what it can of such a file, and " + strings.TrimSuffix(pe.Inert, ".") + "."
		e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindFile, Direction: report.DirChanged, Before: "readable", After: "unreadable",
			Expands: false, Access: rating.AccessNone, Risk: rating.RiskLow, Line: line, HeadLine: max(line, 1), Witnesses: []string{},
			Why: "the agent reads this version with errors, and nothing in it can name an agent setting"})
		e.finding(report.Finding{CheckID: report.CheckParseFailed, Agent: f.agent, Risk: rating.RiskLow, Action: policy.Advisory, Path: f.Path, Line: line, HeadLine: max(line, 1),
			Evidence: "parse_failed_inert", Message: text, Title: "cannot read " + f.Path + " (no agent setting in it)", Key: "parse|" + f.Path})
		return
	}
	text += ": " + strings.TrimSuffix(msg, ".") + ". Nothing in this version was compared; its deny rules are counted as gone"
	if grant {
		risk, action = rating.RiskCritical, policy.Block
		text += ", and the agent may still read (part of) it and grant anything it holds, so this blocks as that would"
	}
	if blocks != "" {
		risk, action = rating.RiskCritical, policy.Block
		text += ". " + strings.TrimSuffix(blocks, ".") + ", so this blocks"
	}
	text += "."
	e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindFile, Direction: report.DirChanged, Before: "readable", After: "unreadable",
		Expands: true, Access: rating.AccessUnknown, Risk: risk, Line: line, HeadLine: max(line, 1), Witnesses: []string{},
		Why: "the agent cannot read this version; nothing in it was compared"})
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Agent: f.agent, Risk: risk, Action: action, Path: f.Path, Line: line, HeadLine: max(line, 1),
		Evidence: "parse_failed", Message: text, Title: "cannot read " + f.Path, Key: "parse|" + f.Path})
}

// agentTooComplex fails closed on a scope some of whose questions a limit
// cut short: they count as grants, and the file is held for review.
func (e *engine) agentTooComplex(f *fileState, n int64) {
	why := "too complex to decide within Shipgate's work budget"
	if e.ctx.Err() != nil {
		why = "not decided before the evaluation was stopped (" + e.ctx.Err().Error() + ")"
	}
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Agent: f.agent, Risk: rating.RiskHigh, Action: policy.RequireReview, Path: f.Path, Line: 1, HeadLine: 1,
		Evidence: "too_complex", Message: fmt.Sprintf("%d comparisons of the rules of %s were %s, so they count as grants.", n, f.Path, why),
		Title: "rules too complex to decide in " + f.Path, Key: "complex|" + f.Path})
}

// settingCheck maps a setting's check kind to its check ID.
func settingCheck(s agent.Setting) string {
	if s.Exec {
		return report.CheckWildcardAllow
	}
	switch s.Check {
	case agent.CheckSandbox:
		return report.CheckSandboxLoosened
	case agent.CheckHook:
		return report.CheckHookChanged
	case agent.CheckPlugin:
		return report.CheckPluginAdded
	case agent.CheckEnv:
		return report.CheckEnvChanged
	case agent.CheckDirectory:
		return report.CheckDirectoryAdded
	case agent.CheckDeny:
		return report.CheckDenyRemoved
	}
	return report.CheckAllowExpanded
}

func settingsOf(d *agent.Doc) map[string]agent.Setting {
	out := map[string]agent.Setting{}
	if d != nil {
		for _, s := range d.Settings {
			out[s.Key] = s
		}
	}
	return out
}

// agentSettings compares a file's settings by key and Grant.
func (e *engine) agentSettings(f *fileState) {
	bs, hs := settingsOf(f.mbase), settingsOf(f.mhead)
	keys := map[string]bool{}
	for k := range bs {
		keys[k] = true
	}
	for k := range hs {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		b, inB := bs[k]
		h, inH := hs[k]
		if inB && inH && b.Value == h.Value && b.Grant == h.Grant && b.Exec == h.Exec {
			continue
		}
		dir := report.DirChanged
		switch {
		case !inB:
			dir = report.DirAdded
		case !inH:
			dir = report.DirRemoved
		}
		before, after := "", ""
		if inB {
			before = k + ": " + b.Value
		}
		if inH {
			after = k + ": " + h.Value
		}
		line, headLine := h.Pos.Line, h.Pos.Line
		if !inH {
			line, headLine = b.Pos.Line, 1
		}
		widens := h.Grant > b.Grant || (h.Exec && !b.Exec)
		hook := h.Check == agent.CheckHook || b.Check == agent.CheckHook
		if hook && (!inB && h.Grant == 0 || !inH && (b.Grant == 0 || b.QuietRemoval)) {
			// A hook-class setting of no grant of its own (a Claude Code
			// plugin manifest holding nothing but its name) added or
			// removed: what it stands for is compared file by file. A
			// change in place (a rename) is still reviewed. So is one
			// whose removal lets nothing more through (QuietRemoval: a
			// remote plugin's marketplace entry), removed.
			hook = false
		}
		rt := rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}
		why := h.Why
		if !inH {
			why = b.Why
		}
		switch {
		case widens && h.Exec:
			rt = rating.Rating{Access: rating.AccessAdmin, Risk: rating.RiskCritical}
		case widens || hook:
			rt = rating.Rating{Access: rating.AccessExecute, Risk: rating.RiskHigh}
		case h.Grant < b.Grant:
			why = "narrows: " + why
		default:
			why = "lets nothing more through: " + why
		}
		e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindSetting, Direction: dir, Before: before, After: after,
			Expands: widens || hook && inH, Access: rt.Access, Risk: rt.Risk, Line: line, HeadLine: max(headLine, 1), Witnesses: []string{}, Why: why})
		if !widens && !hook {
			continue
		}
		s := h
		if !inH {
			s = b
		}
		id := settingCheck(s)
		if hook {
			id = report.CheckHookChanged
		}
		verb := "sets"
		if !inH {
			verb = "removes"
		}
		e.finding(report.Finding{CheckID: id, Agent: f.agent, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: max(headLine, 1),
			Evidence: claude.Sanitize(k + "=" + s.Value), Title: k + " " + dir,
			Message: fmt.Sprintf("%s %s %s (%s): %s.", f.Path, verb, claude.Sanitize(k), claude.Sanitize(clipText(s.Value, 120)), strings.TrimSuffix(why, ".")),
			Key:     id + "|" + f.Path + "|" + k})
	}
}

// agentServers compares a file's MCP servers.
func (e *engine) agentServers(f *fileState) {
	idx := func(d *agent.Doc) map[string]agent.Server {
		out := map[string]agent.Server{}
		if d != nil {
			for _, s := range d.Servers {
				out[s.Name] = s
			}
		}
		return out
	}
	bs, hs := idx(f.mbase), idx(f.mhead)
	rt := rating.MCPServer()
	for _, n := range sortedKeys(hs) {
		h := hs[n]
		b, ok := bs[n]
		line := h.Pos.Line
		switch {
		case !ok:
			e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindMCPServer, Direction: report.DirAdded, After: n + ": " + h.Summary,
				Expands: true, Access: rt.Access, Risk: rt.Risk, Line: line, HeadLine: max(line, 1), Witnesses: []string{},
				Why: "an MCP tool surface " + agentfiles.AgentDisplay(f.agent) + " may call"})
			e.finding(report.Finding{CheckID: report.CheckMCPServerAdded, Agent: f.agent, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: max(line, 1),
				Evidence: "server=" + claude.Sanitize(n) + " " + h.Summary, Title: "MCP server " + n + " added",
				Message: fmt.Sprintf("%s adds the MCP server %s (%s): a tool surface %s may call.", f.Path, n, h.Summary, agentfiles.AgentDisplay(f.agent)),
				Key:     report.CheckMCPServerAdded + "|" + f.Path + "|" + n})
		case b.Canon != h.Canon && mcpChangeEffect(b.Canon, h.Canon).runsNothingNew():
			e.quietServer(f, n, b.Summary, h.Summary, line, mcpChangeEffect(b.Canon, h.Canon))
		case b.Canon != h.Canon:
			e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindMCPServer, Direction: report.DirChanged, Before: n + ": " + b.Summary, After: n + ": " + h.Summary,
				Expands: true, Access: rt.Access, Risk: rt.Risk, Line: line, HeadLine: max(line, 1), Witnesses: []string{},
				Why: "an MCP server's definition changed; authority direction is unknown"})
			e.finding(report.Finding{CheckID: report.CheckMCPServerChange, Agent: f.agent, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: max(line, 1),
				Evidence: "server=" + claude.Sanitize(n), Title: "MCP server " + n + " changed",
				Message: fmt.Sprintf("%s changes the MCP server %s (%s).", f.Path, n, h.Summary),
				Key:     report.CheckMCPServerChange + "|" + f.Path + "|" + n})
		}
	}
	for _, n := range sortedKeys(bs) {
		if _, ok := hs[n]; !ok {
			e.changes = append(e.changes, report.Change{Path: f.Path, Agent: f.agent, Kind: report.KindMCPServer, Direction: report.DirRemoved, Before: n + ": " + bs[n].Summary,
				Access: rating.AccessNone, Risk: rating.RiskLow, Line: bs[n].Pos.Line, HeadLine: 1, Witnesses: []string{},
				Why: "an MCP tool surface is no longer offered to the agent"})
		}
	}
}

// widening is the calls of one surface the head decides more permissively
// than the base, attributed to one rule (or default).
type widening struct {
	surface   agent.Surface
	head      agent.Region
	base      agent.Region
	witnesses []string
	unknown   bool
	exec      string // a probe call the widened region runs that reaches arbitrary code
	wildcard  bool
}

// agentRules compares a scope's rules: every pair of a head region and a
// base region where the head is more permissive and some call lies in
// both is a widening, found with the lattice.
func (e *engine) agentRules(fs []*fileState, bp, hp *agent.Policy) {
	agentName := fs[0].agent
	byKey := map[string]*widening{}
	var order []string
	narrowed := map[string]bool{}
	for _, s := range agent.Surfaces(bp, hp) {
		if nb, nh := rulesOn(bp, s), rulesOn(hp, s); nb > maxAgentRules || nh > maxAgentRules {
			e.agentTooMany(fs, s, max(nb, nh), bp, hp)
			continue
		}
		hv, bv := surfaceView(hp, s), surfaceView(bp, s)
		hr, br := hv.HeadRegions(s), bv.Regions(s)
		cut := false
		for _, h := range hr {
			for _, b := range br {
				if h.Decision == b.Decision || h.Builtin != nil && b.Rule == nil {
					// Calls no rule decides on either side are the agent's
					// (or the user's) the same at base and head.
					continue
				}
				if e.ctx.Err() != nil || e.budget.Exhausted() {
					cut = true
					break
				}
				w, ans := agent.Overlap(e.ctx, h, b)
				if ans == lattice.No {
					continue
				}
				if h.Decision < b.Decision {
					narrowed[ruleKey(s, h.Rule)] = true
					narrowed[ruleKey(s, b.Rule)] = true
					continue
				}
				k := attribution(s, h, b, bv)
				wd := byKey[k]
				if wd == nil {
					wd = &widening{surface: s, head: h, base: b}
					byKey[k] = wd
					order = append(order, k)
				}
				if ans == lattice.Unknown {
					wd.unknown = true
				} else if len(wd.witnesses) < 3 {
					w = readableAgentWitness(s, h, b, w)
					if !slices.Contains(wd.witnesses, w) {
						wd.witnesses = append(wd.witnesses, w)
					}
				}
				if h.Decision == agent.Allow && wd.exec == "" {
					wd.exec, wd.wildcard = probe(s, h, b, e.rater.Extra)
				}
			}
			if cut {
				break
			}
		}
		if cut {
			// The work budget (or the job's deadline) ran out: what was
			// not compared counts as granted.
			e.agentTooMany(fs, s, rulesOn(hp, s), bp, hp)
		}
	}
	reported := map[string]bool{}
	for _, k := range order {
		e.agentWidening(fs, agentName, byKey[k], bp)
		reported[ruleKey(byKey[k].surface, byKey[k].head.Rule)] = true
		reported[ruleKey(byKey[k].surface, byKey[k].base.Rule)] = true
	}
	// Rules added or removed that change nothing, or narrow.
	texts := func(p *agent.Policy) map[string]*agent.Rule {
		out := map[string]*agent.Rule{}
		if p != nil {
			for i := range p.Rules {
				out[ruleKey(p.Rules[i].Surface, &p.Rules[i])] = &p.Rules[i]
			}
		}
		return out
	}
	bt, ht := texts(bp), texts(hp)
	changedFile := map[string]bool{}
	for _, f := range fs {
		if f.changed {
			changedFile[f.Path] = true
		}
	}
	for _, k := range sortedKeys(ht) {
		r := ht[k]
		if _, ok := bt[k]; ok || reported[k] || !changedFile[r.Pos.File] {
			continue
		}
		words := wordsFor(r.Decision)
		why := "lets nothing more through: every call it " + words.verb + " was already " + words.past + " or is decided by a stricter rule"
		dir := report.DirCovered
		if narrowed[k] {
			why, dir = "narrows: some calls the base let through are now "+words.past, report.DirNarrowed
		}
		e.changes = append(e.changes, report.Change{Path: r.Pos.File, Agent: agentName, Kind: report.KindRule, List: r.Decision.String(), Direction: dir, After: r.Text,
			Access: rating.AccessNone, Risk: rating.RiskLow, Line: r.Pos.Line, HeadLine: max(r.Pos.Line, 1), Witnesses: []string{}, Why: why})
	}
	for _, k := range sortedKeys(bt) {
		r := bt[k]
		if _, ok := ht[k]; ok || reported[k] || !changedFile[r.Pos.File] {
			continue
		}
		why := "removing it lets nothing more through"
		if narrowed[k] {
			why = "narrows: the calls it " + wordsFor(r.Decision).verb + " are now decided more strictly"
		}
		e.changes = append(e.changes, report.Change{Path: r.Pos.File, Agent: agentName, Kind: report.KindRule, List: r.Decision.String(), Direction: report.DirRemoved, Before: r.Text,
			Access: rating.AccessNone, Risk: rating.RiskLow, Line: r.Pos.Line, HeadLine: 1, Witnesses: []string{}, Why: why})
	}
}

// surfaceView is a side's policy as the comparison reads one surface: an
// agent's own surface (shell@build) that a side gives no rule of its own
// is that side's top-level surface (an agent without an override follows
// the top-level rules), so an override added at the head is compared with
// what the agent did before it rather than with nothing.
func surfaceView(p *agent.Policy, s agent.Surface) *agent.Policy {
	k := s.Kind()
	if p == nil || k == s || rulesOn(p, s) > 0 {
		return p
	}
	v := *p
	v.Rules = nil
	for _, r := range p.Rules {
		if r.Surface == k {
			r.Surface = s
			v.Rules = append(v.Rules, r)
		}
	}
	return &v
}

// maxAgentRules bounds the rules of one surface the engine compares
// (the region search is quadratic in them); a scope past it fails closed.
const maxAgentRules = 400

func rulesOn(p *agent.Policy, s agent.Surface) int {
	n := 0
	if p != nil {
		for _, r := range p.Rules {
			if r.Surface == s {
				n++
			}
		}
	}
	return n
}

// agentTooMany reports a surface with more rules than the engine compares:
// it blocks when the head holds an allow rule the base did not, and
// requires review otherwise.
func (e *engine) agentTooMany(fs []*fileState, s agent.Surface, n int, bp, hp *agent.Policy) {
	action, risk := policy.RequireReview, rating.RiskHigh
	f := fs[0]
	for _, x := range fs {
		if x.changed {
			f = x
			break
		}
	}
	line := 1
	if hp != nil {
		for i := range hp.Rules {
			r := &hp.Rules[i]
			if r.Surface == s && r.Decision == agent.Allow && !hasRule(bp, s, r) {
				action, risk, line = policy.Block, rating.RiskCritical, max(r.Pos.Line, 1)
				break
			}
		}
	}
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Agent: f.agent, Risk: risk, Action: action, Path: f.Path, Line: line, HeadLine: line,
		Evidence: "too_complex", Title: "too many rules to compare in " + f.Path, Key: "complex|" + f.Path + "|" + string(s),
		Message: fmt.Sprintf("%s: %d %s rules is more than Shipgate compares (%d), so what they grant was not decided and counts as granted%s.", f.Path, n, s, maxAgentRules,
			map[bool]string{true: "; the change adds allow rules, so this blocks", false: ""}[action == policy.Block])})
}

// ruleKey identifies a rule across sides: surface, decision and text.
func ruleKey(s agent.Surface, r *agent.Rule) string {
	if r == nil {
		return string(s) + "|default"
	}
	return string(s) + "|" + r.Decision.String() + "|" + r.Text
}

// attribution names what a widening is due to: the head rule when the
// base did not have it, else the base rule that no longer decides these
// calls (removed, or overridden), else the default.
func attribution(s agent.Surface, h, b agent.Region, bp *agent.Policy) string {
	if h.Rule != nil && !hasRule(bp, s, h.Rule) {
		return "head|" + ruleKey(s, h.Rule)
	}
	if b.Rule != nil {
		return "base|" + ruleKey(s, b.Rule)
	}
	return "head|" + ruleKey(s, h.Rule)
}

func hasRule(p *agent.Policy, s agent.Surface, r *agent.Rule) bool {
	if p == nil {
		return false
	}
	for i := range p.Rules {
		if p.Rules[i].Surface == s && p.Rules[i].Decision == r.Decision && p.Rules[i].Text == r.Text {
			return true
		}
	}
	return false
}

// execProbes are calls that run arbitrary code: each launcher of the
// exec-equivalent table (rating.Launchers) with an operand, and bare
// shells.
func execProbes(extra []string) []string {
	out := []string{"bash", "sh", "bash -c id", "sh -c id"}
	// Package runners' exec forms run any package, as npx does (npm-exec(1),
	// yarn dlx, bun x): a rule for the runner's name (`npm`, /^npm/)
	// reaches them.
	out = append(out, "npm exec id", "npm x id", "yarn dlx id", "bun x id")
	for _, l := range append(append([]string(nil), rating.Launchers...), extra...) {
		out = append(out, l+" id")
	}
	return out
}

// agentPlainWords are readable calls per surface kind, tried in order in
// place of a bare placeholder witness (`x`): a reviewer reads `whoami` as
// a command and `x` as a typo.
var agentPlainWords = map[agent.Surface][]string{
	agent.Shell: {"whoami", "rm -rf build", "curl https://example.com"},
	agent.Write: {"src/main.go", ".env", "README.md"},
	agent.Read:  {".env", "src/main.go", "README.md"},
	agent.Fetch: {"https://example.com/", "https://gist.github.com/"},
	agent.MCP:   {"github", "filesystem"},
	agent.Tool:  {"edit", "bash"},
}

// readableAgentWitness replaces a witness the lattice left as a
// placeholder with a readable call that is still a witness (in both
// regions, checked), so the wording changes and the claim does not. A
// witness with no placeholder, or none of whose readable forms is in both
// regions, is kept as found.
func readableAgentWitness(s agent.Surface, h, b agent.Region, w string) string {
	in := func(c string) bool { return c != w && h.Contains(c) && b.Contains(c) }
	if s.Kind() == agent.Shell {
		for _, c := range readableForms(lattice.Call{Tool: "Bash", Arg: w}) {
			if in(c.Arg) {
				return c.Arg
			}
		}
	}
	if w != "x" && !strings.HasSuffix(w, "/x") {
		return w
	}
	for _, c := range agentPlainWords[s.Kind()] {
		if in(c) {
			return c
		}
	}
	return w
}

// wildcardProbes are calls of a surface no specific rule would name: a
// region holding one matches (nearly) every call of its kind.
var wildcardProbes = map[agent.Surface]string{
	agent.Shell: "zq-unlisted-command --any-flag",
	agent.Write: "zq/unlisted/path.txt",
	agent.Read:  "zq/unlisted/path.txt",
	agent.Fetch: "https://zq-unlisted.example/",
	agent.MCP:   "zq-unlisted-server",
	agent.Tool:  "zq-unlisted-tool",
}

// probe says whether the widened calls (in h and b) include one that runs
// arbitrary code (a shell allow) or a call of the surface no rule would
// name (a wildcard).
func probe(s agent.Surface, h, b agent.Region, extra []string) (string, bool) {
	in := func(c string) bool { return h.Contains(c) && b.Contains(c) }
	if w := wildcardProbes[s.Kind()]; w != "" && in(w) {
		return w, true
	}
	if s.Kind() == agent.Shell {
		for _, c := range execProbes(extra) {
			if in(c) {
				return c, false
			}
		}
	}
	return "", false
}

// surfaceAccess rates what a widened surface grants.
func surfaceAccess(s agent.Surface) (rating.Access, rating.Risk) {
	switch s.Kind() {
	case agent.Shell:
		return rating.AccessExecute, rating.RiskHigh
	case agent.Write:
		return rating.AccessWrite, rating.RiskHigh
	case agent.Read:
		return rating.AccessRead, rating.RiskMedium
	case agent.Fetch:
		return rating.AccessExternal, rating.RiskHigh
	}
	return rating.AccessExecute, rating.RiskHigh
}

// agentWidening reports one widening: a row and its finding.
func (e *engine) agentWidening(fs []*fileState, agentName string, w *widening, bp *agent.Policy) {
	h, b := w.head, w.base
	bp = surfaceView(bp, w.surface)
	access, risk := surfaceAccess(w.surface)
	id := report.CheckAllowExpanded
	blocks := false
	var subject *agent.Rule
	dir := report.DirAdded
	switch {
	case h.Rule != nil && !hasRule(bp, w.surface, h.Rule):
		subject = h.Rule
		if b.Rule != nil && b.Decision == agent.Deny && h.Decision != agent.Allow {
			id = report.CheckDenyRemoved
		}
	case b.Rule != nil:
		subject, dir = b.Rule, report.DirRemoved
		if hasRule(surfaceView(hpOf(fs), w.surface), w.surface, b.Rule) {
			dir = report.DirMoved
		}
		switch b.Decision {
		case agent.Deny:
			id = report.CheckDenyRemoved
		case agent.Ask:
			id = report.CheckAskRemoved
		}
	default:
		dir = report.DirChanged
	}
	kind := w.surface.Kind()
	switch {
	case h.Decision != agent.Allow:
	case w.wildcard && kind == agent.Read:
		// A read wildcard is not above read-only: review, not block.
	case w.exec != "" || w.wildcard:
		blocks = true
	case w.unknown && kind == agent.Shell:
		// Undecided shell grants count as the widest.
		blocks = true
	}
	if blocks {
		id, access, risk = report.CheckWildcardAllow, rating.AccessAdmin, rating.RiskCritical
	}
	path, line, headLine := fs[0].Path, 1, 1
	text := "the default"
	if subject != nil {
		path, line, headLine, text = subject.Pos.File, subject.Pos.Line, subject.Pos.Line, subject.Text
		if dir == report.DirRemoved {
			headLine = 1
		}
	} else {
		for _, f := range fs {
			if f.changed {
				path = f.Path
				break
			}
		}
	}
	witnesses := append([]string(nil), w.witnesses...)
	if w.exec != "" && !w.wildcard {
		witnesses = append([]string{w.exec}, witnesses...)
	}
	if len(witnesses) > 3 {
		witnesses = witnesses[:3]
	}
	before, after := "", ""
	switch dir {
	case report.DirRemoved:
		before = text
	case report.DirMoved:
		before, after = text, text+" (now overridden)"
	default:
		after = text
	}
	var why strings.Builder
	fmt.Fprintf(&why, "%s the base %s now %s in %s", surfaceNoun(w.surface), wordsFor(b.Decision).before, wordsFor(h.Decision).now, agentfiles.AgentDisplay(agentName))
	if w.unknown {
		why.WriteString(" (some comparisons could not be decided and count as grants)")
	}
	if r := h.Rule; r != nil && r.Unknown != "" {
		why.WriteString("; " + r.Text + " is read as matching every call: " + r.Unknown)
	}
	if b.Rule != nil && b.Rule.Unknown != "" {
		why.WriteString("; " + b.Rule.Text + " is read as matching no call: " + b.Rule.Unknown)
	}
	if h.Builtin != nil {
		fmt.Fprintf(&why, "; with no rule of the repository left for these calls %s's built-in rule %s decides them", agentfiles.AgentDisplay(agentName), h.Builtin.Text)
	}
	switch {
	case blocks && w.wildcard:
		fmt.Fprintf(&why, "; it matches every %s call", kind)
	case blocks:
		fmt.Fprintf(&why, "; it runs arbitrary code (%s)", w.exec)
	}
	row := report.Change{Path: path, Agent: agentName, Kind: report.KindRule, List: h.Decision.String(), Direction: dir, Before: before, After: after,
		Expands: true, Access: access, Risk: risk, Line: line, HeadLine: max(headLine, 1), Witnesses: witnesses, Why: why.String()}
	if row.Witnesses == nil {
		row.Witnesses = []string{}
	}
	e.changes = append(e.changes, row)
	if h.Decision == agent.Ask && id == report.CheckAllowExpanded {
		id = report.CheckDenyRemoved // deny → ask: a refused call now only prompts
	}
	msg := fmt.Sprintf("%s: %s %s", path, text, dirVerb(dir))
	msg += ": " + why.String()
	if len(witnesses) > 0 {
		msg += ", e.g. " + strings.Join(quoteAll(witnesses), ", ")
	}
	msg += "."
	e.finding(report.Finding{CheckID: id, Agent: agentName, Risk: risk, Path: path, Line: line, HeadLine: max(headLine, 1), Base: dir == report.DirRemoved,
		Evidence: claude.Sanitize(string(w.surface) + ":" + text), Title: text + " " + dirVerb(dir), Message: claude.Sanitize(msg), Witnesses: witnesses,
		Key: id + "|" + path + "|" + string(w.surface) + "|" + text})
}

func hpOf(fs []*fileState) *agent.Policy {
	if len(fs) == 0 {
		return nil
	}
	m, _ := agentfiles.AdapterFor(fs[0].agent).(agentfiles.ModelAdapter)
	if m == nil {
		return nil
	}
	var docs []*agent.Doc
	for _, f := range fs {
		docs = append(docs, f.mhead)
	}
	return m.Combine(docs)
}

// surfaceNoun names a surface's calls ("shell calls of the plan agent").
func surfaceNoun(s agent.Surface) string {
	k := string(s.Kind())
	if q := strings.TrimPrefix(string(s), k+"@"); q != string(s) {
		return k + " calls (the " + q + " agent)"
	}
	return k + " calls"
}

func dirVerb(dir string) string {
	switch dir {
	case report.DirRemoved:
		return "was removed"
	case report.DirMoved:
		return "no longer decides these calls"
	case report.DirChanged:
		return "changed"
	}
	return "was added"
}

// decisionWords are the words a finding uses for one decision: what a rule
// with it does to calls (verb), what those calls are then (past), what the
// base did with them (before) and what the head will now do (now).
type decisionWords struct{ verb, past, before, now string }

// wordsFor is d's decisionWords; any value but Allow and Deny reads as Ask.
func wordsFor(d agent.Decision) decisionWords {
	switch d {
	case agent.Allow:
		return decisionWords{verb: "allows", past: "allowed", before: "ran without a prompt", now: "run without a prompt"}
	case agent.Deny:
		return decisionWords{verb: "denies", past: "denied", before: "refused", now: "refuse"}
	}
	return decisionWords{verb: "asks about", past: "asked about", before: "prompted for", now: "only prompt for"}
}

func quoteAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "`" + w + "`"
	}
	return out
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// intentCall maps a policy intent call (Claude Code's spelling) to a
// call on an agent's surface: a Bash command is a shell call,
// Read/Edit/Write a file call, WebFetch a fetch. ok is false for calls
// the model has no surface for (MCP tools, other tools).
func intentCall(it string) (agent.Surface, string, bool) {
	c, err := policy.ParseCall(it)
	if err != nil {
		return "", "", false
	}
	switch c.Tool {
	case "Bash":
		return agent.Shell, c.Arg, true
	case "Read", "Glob", "Grep":
		return agent.Read, c.Arg, true
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return agent.Write, c.Arg, true
	case "WebFetch":
		return agent.Fetch, strings.TrimPrefix(c.Arg, "domain:"), true
	}
	return "", "", false
}

// agentIntents checks the policy's intents against the head policy of an
// agent's root scope, for the agents intent.agents names.
func (e *engine) agentIntents(fs []*fileState, hp *agent.Policy) {
	agentName := fs[0].agent
	if e.pol == nil {
		return
	}
	covered := false
	for _, a := range e.pol.IntentAgents() {
		covered = covered || a == agentName
	}
	if !covered {
		return
	}
	in := e.pol.Intent
	action := in.Action
	if action == "" {
		action = policy.Block
	}
	check := func(items []policy.Item, want agent.Decision, wants string) {
		for _, it := range items {
			s, call, ok := intentCall(it.Value)
			if !ok {
				continue
			}
			got, r := hp.Decide(s, call)
			if got == want {
				continue
			}
			by := "by default"
			if r != nil {
				by = "by " + r.Text + " (" + r.Pos.File + fmt.Sprintf(":%d)", r.Pos.Line)
			}
			e.finding(report.Finding{CheckID: report.CheckIntent, Agent: agentName, Action: action, Path: it.Source, Line: it.Line, HeadLine: it.Line,
				Evidence: "intent=" + wants + " call=" + it.Value + " agent=" + agentName, Title: "intent: " + it.Value + " must " + wants,
				Message:   fmt.Sprintf("intent: `%s` must %s for %s, but at the head %s decides %s %s.", it.Value, wants, agentfiles.AgentDisplay(agentName), agentfiles.AgentDisplay(agentName), got, by),
				Witnesses: []string{call}, Key: report.CheckIntent + "|" + agentName + "|" + wants + "|" + it.Value})
		}
	}
	check(in.Allowed, agent.Allow, "run without a prompt")
	check(in.Asked, agent.Ask, "prompt")
	check(in.Denied, agent.Deny, "be denied")
}
