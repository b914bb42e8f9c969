package judge

import (
	"fmt"
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// skillPoolPrefix marks the rule pool a skill or command is judged
// against: the deny rules of its project's settings files. Ask rules are
// not trusted to stop a skill's allowed-tools (Claude Code 2.1.74 fixed
// managed ask rules being bypassed by skill allowed-tools; whether project
// ask rules still are is undocumented), so they are left out: fail closed.
const skillPoolPrefix = "skill:"

// kindNoun names a frontmatter file kind for messages.
func kindNoun(k report.FileKind) string {
	switch k {
	case report.SkillFile:
		return "skill"
	case report.CommandFile:
		return "command"
	case report.SubagentFile:
		return "subagent"
	}
	return "file"
}

// compareAgentDoc compares a skill, command or subagent file: its tool
// lists with the lattice (allowed-tools as allow rules judged against the
// project's settings, exactly as settings rules are), its hooks as
// settings hooks, its permissionMode as a mode, its MCP servers.
func (e *engine) compareAgentDoc(f *fileState) {
	if to, ok := e.renamed[f.Path]; ok {
		e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindFile, Direction: report.DirMoved, Before: kindNoun(f.kind) + " " + f.Path, After: kindNoun(f.kind) + " " + to,
			Access: rating.AccessNone, Risk: rating.RiskLow, Line: 1, HeadLine: 1, Witnesses: []string{},
			Why: "the " + kindNoun(f.kind) + " is renamed with the same frontmatter (its name and description aside): " + to + " is compared against it, and pre-approves nothing it did not"})
		return
	}
	if f.head == nil {
		e.changes = append(e.changes, report.Change{Path: f.Path, Kind: report.KindFile, Direction: report.DirRemoved, Before: kindNoun(f.kind) + " " + f.Path,
			Access: rating.AccessNone, Risk: rating.RiskLow, Line: 1, HeadLine: 1, Witnesses: []string{},
			Why: "the " + kindNoun(f.kind) + " is deleted: what it pre-approved or ran goes with it"})
		return
	}
	before := len(e.findings)
	rowsBefore := len(e.changes)
	e.compareRules(f)
	e.compareAllTools(f)
	e.compareHooks(f)
	e.comparePermissionMode(f)
	e.compareFrontmatterServers(f)
	e.compareFrontmatterValues(f)
	e.unresolvedCommands(f)
	why := e.agentDocContext(f)
	for i := before; i < len(e.findings); i++ {
		if e.findings[i].Path == f.Path && why != "" {
			e.findings[i].Message = strings.TrimSuffix(e.findings[i].Message, " ") + " " + why
		}
	}
	for i := rowsBefore; i < len(e.changes); i++ {
		if e.changes[i].Kind == report.KindRule && e.changes[i].Expands && f.kind != report.SubagentFile {
			e.changes[i].Why = "allowed-tools of a " + kindNoun(f.kind) + ": " + e.changes[i].Why
		}
	}
}

// agentDocContext is the sentence findings on a frontmatter file end with.
func (e *engine) agentDocContext(f *fileState) string {
	switch f.kind {
	case report.SkillFile, report.CommandFile:
		return "A " + kindNoun(f.kind) + "'s allowed-tools pre-approve these calls while it runs (once invoked, by the user or — unless disable-model-invocation is set — by the model), and project skills are not gated by workspace trust."
	case report.SubagentFile:
		return "A subagent runs with its own frontmatter whenever the main session delegates to it (or from the first prompt, when a settings file names it in \"agent\")."
	}
	return ""
}

// compareAllTools reports `allowed-tools: *`: every tool pre-approved.
func (e *engine) compareAllTools(f *fileState) {
	if len(f.head.AllTools) == 0 || (f.base != nil && len(f.base.AllTools) > 0) {
		return
	}
	line := f.head.AllTools[0]
	rt := rating.Rating{Access: rating.AccessAdmin, Risk: rating.RiskCritical, Wildcard: true,
		Basis: "every tool call (Bash, Edit, WebFetch, MCP tools) runs without a prompt while it runs"}
	e.row(f, report.KindRule, report.DirAdded, "", "allowed-tools: *", true, rt, line, line, rt.Basis)
	e.changes[len(e.changes)-1].List = "allow"
	e.finding(report.Finding{CheckID: report.CheckWildcardAllow, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line,
		Evidence: "allowed-tools=*", Title: "allowed-tools: *",
		Message: fmt.Sprintf("%s: allowed-tools: * pre-approves every tool: %s.", f.Path, rt.Basis),
		Key:     report.CheckWildcardAllow + "|" + f.Path + "|allowed-tools|*"})
}

// fmSetting reads a top-level frontmatter key.
func fmSetting(d *claude.Doc, key string) claude.Setting {
	if d == nil {
		return claude.Setting{}
	}
	if m, ok := d.Root.Lookup(key); ok {
		return claude.Setting{Value: m.Value, Line: m.KeyStart.Line}
	}
	return claude.Setting{}
}

// comparePermissionMode compares a subagent's permissionMode: a more
// permissive mode than before (absent: the session's own mode, read as
// default) is a grant rated as the new mode — bypassPermissions blocks
// like defaultMode: bypassPermissions in a settings file.
func (e *engine) comparePermissionMode(f *fileState) {
	b, h := fmSetting(f.base, "permissionMode"), fmSetting(f.head, "permissionMode")
	ms, changed := e.modeShift(f, b, h)
	if !changed {
		return
	}
	bm, hm, rt, expands := ms.base, ms.head, ms.rating, ms.expands && h.Present()
	line, headLine := lineOf(b, h)
	why := "the " + kindNoun(f.kind) + " runs in permission mode " + claude.Sanitize(hm) + ": " + rt.Basis
	if expands {
		why += ms.witnessWords("it")
	}
	if !expands {
		why = "a stricter or equal permission mode for the " + kindNoun(f.kind)
	}
	e.row(f, report.KindMode, direction(b, h), side("permissionMode", b), side("permissionMode", h), expands, rt, line, headLine, why)
	if !expands {
		return
	}
	e.changes[len(e.changes)-1].Witnesses = ms.witnesses
	check := report.CheckAllowExpanded
	if rt.Risk == rating.RiskCritical {
		check = report.CheckWildcardAllow
	}
	msg := fmt.Sprintf("%s sets permissionMode to %s (was %s): %s%s.", f.Path, claude.Display(h), bm, rt.Basis, ms.witnessWords("it"))
	if hm == "bypassPermissions" {
		msg += " Only a disableBypassPermissionsMode lock (Claude Code 2.1.223+) makes Claude Code ignore it."
	}
	e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine,
		Evidence: "permissionMode=" + claude.Sanitize(hm), Title: "permissionMode " + claude.Sanitize(hm), Message: msg, Witnesses: ms.witnesses,
		Key: check + "|" + f.Path + "|permissionMode|" + hm})
}

// compareFrontmatterServers compares a subagent's mcpServers: an inline
// server definition is a command Claude Code spawns when the subagent
// runs; a name refers to a configured server. A subagent file's
// mcp-servers is Copilot CLI's: Copilot CLI 1.0.102 loads
// .claude/agents/*.md as its own custom agents and starts their
// mcp-servers, without a prompt, when the model delegates to one
// (measured, docs/agents.md), while Claude Code ignores the key.
func (e *engine) compareFrontmatterServers(f *fileState) {
	e.compareFrontmatterServersKey(f, "mcpServers", "a server defined inline is a command Claude Code spawns when the subagent runs")
	if f.kind == report.SubagentFile {
		e.compareFrontmatterServersKey(f, "mcp-servers", "Copilot CLI loads .claude/agents as its own custom agents and starts these servers, without a prompt, when the model delegates to this one; Claude Code ignores the key")
	}
}

// compareFrontmatterServersKey compares one frontmatter key of MCP servers.
func (e *engine) compareFrontmatterServersKey(f *fileState, key, how string) {
	b, h := fmSetting(f.base, key), fmSetting(f.head, key)
	if !h.Present() || (b.Present() && claude.Canon(b.Value) == claude.Canon(h.Value)) {
		if b.Present() && !h.Present() {
			e.row(f, report.KindMCPServer, report.DirRemoved, key, "", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, b.Line, 1, "the subagent no longer starts these MCP servers")
		}
		return
	}
	rt := rating.MCPServer()
	check := report.CheckMCPServerAdded
	if b.Present() {
		check = report.CheckMCPServerChange
	}
	e.row(f, report.KindMCPServer, direction(b, h), side(key, b), key+" (changed)", true, rt, h.Line, h.Line, rt.Basis)
	e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: h.Line, HeadLine: h.Line,
		Evidence: key, Title: "subagent MCP servers",
		Message: fmt.Sprintf("%s sets the subagent's %s: %s (%s).", f.Path, key, rt.Basis, how),
		Key:     check + "|" + f.Path + "|" + key})
}

// fmRowKeys are frontmatter keys shown as rows without a finding: they
// change what the skill or subagent is (its name, model, tool list), not
// what runs without a prompt.
var fmRowKeys = []string{"name", "model", "tools", "context", "agent", "disable-model-invocation", "user-invocable", "skills", "isolation"}

// compareFrontmatterValues lists changes to the keys above as quiet rows.
// A subagent's `tools` is the set of tools it may call; permission rules
// still decide each call, so a longer list pre-approves nothing.
func (e *engine) compareFrontmatterValues(f *fileState) {
	for _, k := range fmRowKeys {
		b, h := fmSetting(f.base, k), fmSetting(f.head, k)
		if b.Present() == h.Present() && (!b.Present() || claude.Canon(b.Value) == claude.Canon(h.Value)) {
			continue
		}
		line, headLine := lineOf(b, h)
		why := "changes the " + kindNoun(f.kind) + "'s " + k
		if k == "tools" {
			why = "the tools the subagent may call; permission rules still decide every call"
		}
		e.row(f, report.KindSetting, direction(b, h), side(k, b), side(k, h), false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, line, headLine, why)
	}
}

// subagentName is the name a subagent file defines: its frontmatter name,
// else the file name without .md.
func subagentName(f *fileState, d *claude.Doc) string {
	if d != nil {
		if n := d.Root.Get("name"); n.Kind() == jsonpos.String && strings.TrimSpace(n.Text()) != "" {
			return strings.TrimSpace(n.Text())
		}
	}
	return strings.TrimSuffix(path.Base(f.Path), ".md")
}

// compareAgentKey compares the settings key "agent", which starts every
// session of the project as the named subagent: its permissionMode, hooks
// and tools then govern the main session. A new or changed value is a
// grant, rated as the subagent's permission mode when its definition is in
// the input (bypassPermissions blocks), else held for review.
func (e *engine) compareAgentKey(f *fileState) {
	b, h := claude.LookupOnly(f.base, "", "agent"), claude.LookupOnly(f.head, "", "agent")
	if b.Present() == h.Present() && (!b.Present() || claude.Canon(b.Value) == claude.Canon(h.Value)) {
		return
	}
	line, headLine := lineOf(b, h)
	if !h.Present() {
		e.row(f, report.KindSetting, report.DirRemoved, side("agent", b), "", false, rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}, line, headLine,
			"sessions no longer start as a subagent")
		return
	}
	name := h.Value.Text()
	rt := rating.Rating{Access: rating.AccessAdmin, Risk: rating.RiskHigh, Basis: "every session starts as this subagent: its prompt, tools, permissionMode and hooks govern the main session"}
	check := report.CheckAllowExpanded
	detail := ""
	var def *fileState
	for _, g := range e.files {
		if g.kind == report.SubagentFile && g.head != nil && subagentName(g, g.head) == name && (g.scope == f.scope || def == nil) {
			def = g
		}
	}
	switch {
	case h.Value.Kind() != jsonpos.String:
		detail = " The value is not a string."
	case def == nil:
		detail = fmt.Sprintf(" Its definition was not among the files read (a .claude/agents/%s.md of this project, a user or plugin subagent): review what it allows by hand.", claude.Sanitize(name))
	default:
		if m := def.head.Root.Get("permissionMode"); m.Kind() == jsonpos.String {
			mr := rating.Mode(m.Text(), true)
			detail = fmt.Sprintf(" %s defines it with permissionMode %s: %s.", def.Path, claude.Sanitize(m.Text()), mr.Basis)
			if mr.Risk.Rank() >= rt.Risk.Rank() {
				rt.Risk = mr.Risk
			}
			if mr.Risk == rating.RiskCritical {
				check = report.CheckWildcardAllow
				rt.Wildcard = true
			}
		} else {
			detail = fmt.Sprintf(" It is defined in %s.", def.Path)
		}
	}
	e.row(f, report.KindSetting, direction(b, h), side("agent", b), side("agent", h), true, rt, line, headLine, rt.Basis)
	e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: headLine,
		Evidence: "setting=agent value=" + claude.Display(h), Title: "agent " + claude.Display(h),
		Message: fmt.Sprintf("%s %s: %s.%s", f.Path, switchChange("agent", b, h), rt.Basis, detail),
		Key:     check + "|" + f.Path + "|agent"})
}

// frontmatterUnreadable reports a skill, command or subagent whose head
// frontmatter Shipgate cannot read. Claude Code ignores a block that does
// not parse (the file loads without allowed-tools, hooks or
// permissionMode), but a parser that reads it otherwise — or a block
// Shipgate refuses (duplicate keys, anchors) — may grant what nobody
// reviewed: the finding holds the merge, never a pass.
func (e *engine) frontmatterUnreadable(f *fileState) {
	pe := f.headErr
	risk := rating.RiskMedium
	lost := ""
	if f.base != nil && (len(f.base.RulesIn("deny")) > 0 || f.base.Root.Get("hooks").Kind() != jsonpos.Invalid) {
		risk = rating.RiskHigh
		lost = " Its disallowed tools and hooks stop applying with it."
	}
	kind := "frontmatter_parse_failed"
	msg := fmt.Sprintf("%s: the %s's frontmatter cannot be read", f.Path, kindNoun(f.kind))
	if pe.Line > 0 {
		msg += fmt.Sprintf(" (line %d)", pe.Line)
	}
	msg += ": " + strings.TrimSuffix(pe.Msg, ".") + "."
	var action policy.Action // "" keeps the catalogue's
	if f.Head.Unreadable != "" || pe.TooLarge || pe.Limit != "" {
		// Shipgate's own limit (over 1 MiB, a symlink out of the
		// repository, not a regular file): Claude Code may read the file,
		// and then it grants whatever it holds — allowed-tools: Bash(*) or
		// *, permissionMode: bypassPermissions — so it blocks as that would.
		kind = "unreadable"
		risk, action = rating.RiskCritical, policy.Block
		what := "allowed-tools: Bash(*) or *"
		if f.kind == report.SubagentFile {
			what = "permissionMode: bypassPermissions"
		}
		msg += fmt.Sprintf(" This is an input limit of Shipgate: nothing in the file was compared, and Claude Code may read it and grant anything it holds (%s), so it blocks as that would. Bring the file under 1 MiB as a regular file of the repository.", what)
	} else {
		msg += " Claude Code ignores a frontmatter block that does not parse; what it would grant if read otherwise was not reviewed."
		if pe.Hint != "" {
			msg += " To fix it: " + sentence(pe.Hint)
		}
	}
	msg += lost
	line := pe.Line
	e.changes = append(e.changes, report.Change{
		Path: f.Path, Kind: report.KindFile, Direction: report.DirChanged, Before: "readable", After: "unreadable (" + kind + ")",
		Expands: true, Access: "unknown", Risk: risk, Line: line, HeadLine: max(line, 1), Witnesses: []string{},
		Why: "Shipgate could not read the frontmatter, so nothing in it was compared",
	})
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: risk, Action: action, Path: f.Path, Line: line, HeadLine: max(line, 1),
		Evidence: kind, Message: msg, Title: "cannot read " + f.Path, Key: "parse|" + f.Path})
}
