// Package vscode reads VS Code's workspace configuration for GitHub
// Copilot Chat's agent mode into the agent-neutral model:
// .vscode/settings.json (JSONC) — chat.tools.autoApprove (the switch that
// turns every confirmation off), the terminal auto-approve rules
// (chat.tools.terminal.autoApprove: command-prefix keys and `/regex/flags`
// keys mapped to true, false or {approve, matchCommandLine}), their master
// switch and default-rule switch, the edit auto-approve globs
// (chat.tools.edits.autoApprove), tools made ineligible for auto-approval,
// the terminal sandbox — and .vscode/mcp.json's servers.
//
// The terminal rules follow VS Code's own CommandLineAutoApprover
// (microsoft/vscode src/vs/workbench/contrib/terminalContrib/chatAgentTools/
// browser/commandLineAutoApprover.ts, read 2026-12-01): a false rule is
// checked before any true rule (false wins, and false means "ask", not
// "refuse"); a string key becomes `^<escaped>\b` (path-like keys match
// either separator and an optional leading ./); a `/pattern/flags` key is
// a JavaScript RegExp, one that matches the empty string never matches
// (regExpLeadsToEndlessLoop) except `/.*/` and the sources ^, $, ^$,
// ^\s*$; a command with a leading VAR=value assignment always asks.
package vscode

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/agentfiles/jsregex"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
)

// CheckedAgainst names the source the semantics follow.
const CheckedAgainst = "VS Code commandLineAutoApprover.ts and code.visualstudio.com/docs/copilot/security (2026-12-01)"

// Kinds of VS Code file.
const (
	Settings = "settings"
	MCP      = "mcp"
	// Workspace is a *.code-workspace file: its "settings" object holds
	// workspace settings (they apply to every folder of the workspace).
	Workspace = "workspace"
	// DevContainer is a dev container definition
	// (.devcontainer/devcontainer.json, .devcontainer.json,
	// .devcontainer/<name>/devcontainer.json): its
	// customizations.vscode.settings apply inside the container.
	DevContainer = "devcontainer"
)

// Classify reports whether VS Code reads a path, its kind and its scope:
// .vscode/settings.json and .vscode/mcp.json in any folder (the folder
// holding .vscode); a *.code-workspace file and a dev container
// definition each make a scope of their own (named by their path), as
// VS Code opens them as a window's settings of their own.
func Classify(p string) (kind, scope string, ok bool) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case strings.HasSuffix(base, ".code-workspace") && base != ".code-workspace":
		return Workspace, p, true
	case base == ".devcontainer.json", base == "devcontainer.json" && (path.Base(dir) == ".devcontainer" || path.Base(path.Dir(dir)) == ".devcontainer"):
		return DevContainer, p, true
	}
	if dir != ".vscode" && !strings.HasSuffix(dir, "/.vscode") {
		return "", "", false
	}
	scope = strings.TrimSuffix(strings.TrimSuffix(dir, ".vscode"), "/")
	switch base {
	case "settings.json":
		return Settings, scope, true
	case "mcp.json":
		return MCP, scope, true
	}
	return "", "", false
}

// Pathspecs match every path Classify accepts.
var Pathspecs = []string{":(glob).vscode/settings.json", ":(glob)**/.vscode/settings.json", ":(glob).vscode/mcp.json", ":(glob)**/.vscode/mcp.json",
	":(glob)*.code-workspace", ":(glob)**/*.code-workspace",
	":(glob).devcontainer.json", ":(glob)**/.devcontainer.json", ":(glob).devcontainer/devcontainer.json", ":(glob)**/.devcontainer/devcontainer.json",
	":(glob).devcontainer/*/devcontainer.json", ":(glob)**/.devcontainer/*/devcontainer.json"}

// Siblings are the other files of p's scope.
func Siblings(p string) []string {
	kind, scope, ok := Classify(p)
	if !ok {
		return nil
	}
	switch kind {
	case Settings:
		return []string{path.Join(scope, ".vscode/mcp.json")}
	case MCP:
		return []string{path.Join(scope, ".vscode/settings.json")}
	}
	return nil
}

type reader struct {
	file string
	doc  *agent.Doc
}

func (r *reader) pos(p jsonpos.Pos) agent.Pos {
	return agent.Pos{File: r.file, Line: p.Line, Col: p.Column}
}

func members(v *jsonpos.Value) []jsonpos.Member {
	var out []jsonpos.Member
	for _, m := range v.Members() {
		if !m.Overridden {
			out = append(out, m)
		}
	}
	return out
}

// Read parses one version of a VS Code file. VS Code's JSONC reader
// recovers from errors and applies what it can read, so a version that
// does not parse may still grant: the error says so.
//
// A missing comma before the next member or element is read as VS Code
// reads it, with the comma (jsonc.Recover), and said as a problem. Any
// other syntax error fails closed (MayStillGrant), unless the version is
// a settings or workspace file with no text that could name an agent
// setting (agentText): whatever VS Code recovers from it then grants and
// denies the agent nothing, and the error says so (Inert).
func Read(file string, data []byte) (*agent.Doc, error) {
	kind, _, _ := Classify(file)
	root, probs, repairs, err := jsonc.Recover(data, jsonc.JSONC)
	if err != nil {
		pe := &agent.ParseError{File: file, Msg: err.Error(), MayStillGrant: true}
		if je, ok := err.(*jsonc.Error); ok {
			pe.Line, pe.Col, pe.Msg = je.Line, je.Col, je.Msg
		}
		// A bound of Shipgate's reader (nesting) is no error of the file:
		// VS Code reads it whole, so it is never inert.
		if je, ok := err.(*jsonc.Error); !ok || !je.Limit {
			if why := inert(kind, data); why != "" {
				pe.MayStillGrant, pe.Inert = false, why
			}
		}
		return nil, pe
	}
	if root.Kind() != jsonpos.Object {
		pe := &agent.ParseError{File: file, Line: root.Start().Line, Col: root.Start().Column, Msg: "the file is not a JSON object", MayStillGrant: true}
		if why := inert(kind, data); why != "" {
			pe.MayStillGrant, pe.Inert = false, why
		}
		return nil, pe
	}
	r := &reader{file: file, doc: &agent.Doc{File: file}}
	for _, rp := range repairs {
		r.doc.Problems = append(r.doc.Problems, agent.Problem{Kind: agent.ProblemRecovered, Key: fmt.Sprintf("line %d", rp.Line),
			Message: fmt.Sprintf("line %d, column %d: a ',' is missing before the next entry; VS Code's JSONC reader recovers and reads the entry as if the comma were there, and Shipgate read it the same way — add the comma", rp.Line, rp.Col),
			Pos:     agent.Pos{File: file, Line: rp.Line, Col: rp.Col}})
	}
	for _, p := range probs {
		if p.Kind == jsonpos.ProblemDuplicateKey {
			r.doc.Problems = append(r.doc.Problems, agent.Problem{Kind: agent.ProblemDuplicateKey, Key: p.Key, Message: p.String() + ": VS Code keeps the last one", Pos: agent.Pos{File: file, Line: p.Pos.Line, Col: p.Pos.Column}})
		}
	}
	switch kind {
	case Workspace:
		// The workspace's settings; its other keys (folders, launch,
		// tasks, extensions) grant the agent nothing.
		if v, ok := root.Lookup("settings"); ok && v.Value.Kind() == jsonpos.Object {
			r.settings(v.Value)
		}
		return r.doc, nil
	case DevContainer:
		if v := root.Get("customizations").Get("vscode").Get("settings"); v.Kind() == jsonpos.Object {
			r.settings(v)
		}
		return r.doc, nil
	}
	if kind == MCP {
		for _, m := range members(root.Get("servers")) {
			r.doc.Servers = append(r.doc.Servers, agent.Server{Name: m.Key, Summary: jsonc.ServerSummary(m.Value), Canon: jsonc.Canon(m.Value), Pos: r.pos(m.KeyStart)})
		}
		return r.doc, nil
	}
	r.settings(root)
	return r.doc, nil
}

// agentText finds text that could name, or spell, a setting VS Code's
// agent reads: chat.* (Copilot Chat's agent mode), github.copilot.*, mcp
// (servers in settings), in any case, or any escape (a key spelled
// `\u0063hat.…` reads as chat.…). VS Code's reader recovers from a syntax
// error by skipping tokens and reading on, so any string of the file may
// end up a key; a file without such text cannot hold one, however it is
// broken.
var agentText = regexp.MustCompile(`(?i)chat|copilot|mcp|\\`)

// inert says why a version VS Code reads with errors grants and denies the
// agent nothing: a settings or workspace file with no agentText. An
// mcp.json is the agent's configuration whole, and a dev container
// definition is read by other tools too: never inert.
func inert(kind string, data []byte) string {
	if (kind != Settings && kind != Workspace) || agentText.Match(data) {
		return ""
	}
	return "no text in it could name an agent setting (chat.*, github.copilot.*, mcp) or spell one with an escape, so whatever VS Code's reader recovers from it grants and denies the agent nothing"
}

func (r *reader) set(m jsonpos.Member, grant int, exec bool, check, why string) {
	r.doc.Settings = append(r.doc.Settings, agent.Setting{Key: m.Key, Value: jsonc.Canon(m.Value), Pos: r.pos(m.KeyStart), Grant: grant, Exec: exec, Check: check, Why: why})
}

func isTrue(v *jsonpos.Value) bool { return v.Kind() == jsonpos.Bool && v.Bool() }

// truthy reports a JavaScript-truthy value that is not a boolean: a
// non-empty string, a non-zero number.
func truthy(v *jsonpos.Value) bool {
	switch v.Kind() {
	case jsonpos.String:
		return v.Text() != ""
	case jsonpos.Number:
		r := strings.TrimLeft(v.Raw(), "-")
		return strings.Trim(r, "0.eE+-") != ""
	}
	return false
}

func isFalse(v *jsonpos.Value) bool { return v.Kind() == jsonpos.Bool && !v.Bool() }

func (r *reader) settings(root *jsonpos.Value) {
	for _, m := range members(root) {
		v := m.Value
		switch m.Key {
		case "chat.tools.autoApprove", "chat.tools.global.autoApprove":
			switch {
			case isTrue(v):
				r.set(m, 2, true, agent.CheckAllow, m.Key+": true turns every confirmation off: every tool, terminal commands and edits included, runs without a prompt (the switch CVE-2025-53773 flipped)")
			case v.Kind() == jsonpos.Object:
				for _, t := range members(v) {
					if !isTrue(t.Value) {
						continue
					}
					exec := strings.Contains(strings.ToLower(t.Key), "terminal") || strings.Contains(strings.ToLower(t.Key), "task")
					r.doc.Settings = append(r.doc.Settings, agent.Setting{Key: m.Key + "." + t.Key, Value: "true", Pos: r.pos(t.KeyStart), Grant: 1, Exec: exec, Check: agent.CheckAllow,
						Why: "the tool " + t.Key + " runs without a confirmation"})
				}
			case truthy(v):
				r.set(m, 2, true, agent.CheckAllow, m.Key+" holds a truthy value that is not a boolean: the settings schema wants true or false, and a reader that tests truthiness turns every confirmation off (fail closed)")
			default:
				r.set(m, 0, false, agent.CheckAllow, m.Key+" is not true: confirmations stay on")
			}
		case "chat.tools.terminal.enableAutoApprove":
			g := 0
			if isFalse(v) {
				g = -1
			}
			r.set(m, g, false, agent.CheckAllow, "the master switch of the terminal auto-approve rules (false: every command asks)")
		case "chat.tools.terminal.ignoreDefaultAutoApproveRules":
			g := 0
			if isTrue(v) {
				g = 1
			}
			r.set(m, g, false, agent.CheckDeny, "true drops VS Code's default terminal rules, among them the false rules that make rm, curl, eval and similar commands ask")
		case "chat.tools.terminal.autoReplyToPrompts":
			g := 0
			if isTrue(v) {
				g = 1
			}
			r.set(m, g, false, agent.CheckAllow, "true lets the agent answer a command's own confirmation prompts (y/n) itself")
		case "chat.tools.terminal.blockDetectedFileWrites":
			g := 0
			switch v.Text() {
			case "never":
				g = 1
			case "all":
				g = -1
			}
			r.set(m, g, false, agent.CheckAllow, "never lets auto-approved commands write files VS Code detects, inside the workspace or outside it")
		case "chat.tools.terminal.sandbox.enabled":
			g := 0
			if isFalse(v) {
				g = 1
			}
			r.set(m, g, false, agent.CheckSandbox, "false runs terminal commands outside the sandbox")
		case "chat.tools.eligibleForAutoApproval":
			for _, t := range members(v) {
				g := 0
				if isFalse(t.Value) {
					g = -1
				}
				r.doc.Settings = append(r.doc.Settings, agent.Setting{Key: m.Key + "." + t.Key, Value: jsonc.Canon(t.Value), Pos: r.pos(t.KeyStart), Grant: g, Check: agent.CheckAllow,
					Why: "false keeps the tool " + t.Key + " out of every auto-approval; removing it lets approvals apply again"})
			}
		case "chat.tools.terminal.autoApprove", "chat.agent.terminal.autoApprove":
			r.terminalRules(m)
		case "chat.tools.edits.autoApprove":
			r.editRules(m)
		}
	}
}

var transient = lattice.MustCompile(mustTranslate(`^[A-Z_][A-Z0-9_]*=`, "i"))

func mustTranslate(p, f string) lattice.RE {
	re, err := jsregex.Translate(p, f)
	if err != nil {
		panic(err)
	}
	return re
}

// regexKey is VS Code's test for the regex form of a key.
var regexKey = regexp.MustCompile(`^/(.+)/([dgimsuvy]*)$`)

// escapeRegExpCharacters is VS Code's base/common/strings.ts escape.
var escapeChars = regexp.MustCompile(`[\\{}*+?|^$.\[\]()]`)

// keyRegex is the JavaScript regex VS Code builds from a key (source,
// flags), and whether it is the regex form.
func keyRegex(key string) (string, string, bool) {
	if m := regexKey.FindStringSubmatch(key); m != nil {
		return m[1], strings.ReplaceAll(m[2], "g", ""), true
	}
	var s string
	if strings.ContainsAny(key, `/\`) {
		p := regexp.MustCompile(`[/\\]`).ReplaceAllString(key, "\x00")
		p = escapeChars.ReplaceAllString(p, `\$0`)
		p = strings.ReplaceAll(p, "\x00", `[/\\]`)
		s = `^(?:\.[/\\])?` + p
	} else {
		s = escapeChars.ReplaceAllString(key, `\$0`)
	}
	return "^" + strings.TrimPrefix(s, "^") + `\b`, "", false
}

// TerminalRule compiles one terminal auto-approve key the way VS Code
// does: its language over a command, or Unknown with the reason.
func TerminalRule(key string) (*lattice.Lang, string) {
	if key == "" {
		return none, "" // the empty key never matches
	}
	src, flags, isRegex := keyRegex(key)
	if isRegex && src == ".*" {
		return lattice.MustCompile(lattice.Everything()), ""
	}
	re, err := jsregex.Translate(src, flags)
	if err != nil {
		if _, syntax := err.(*jsregex.Syntax); syntax {
			return none, "" // new RegExp throws: VS Code's never-match regex
		}
		return nil, err.Error()
	}
	l, err := lattice.Compile(re)
	if err != nil {
		return nil, err.Error()
	}
	if isRegex && l.Match("") && src != "^" && src != "$" && src != "^$" && src != `^\s*$` {
		return none, "" // regExpLeadsToEndlessLoop: never matches
	}
	return l, ""
}

var none = lattice.MustCompile(lattice.Alt())

func (r *reader) terminalRules(m jsonpos.Member) {
	for _, k := range members(m.Value) {
		v := k.Value
		approve, set := false, false
		cmdLine := false
		switch {
		case v.Kind() == jsonpos.Bool:
			approve, set = v.Bool(), true
		case v.Kind() == jsonpos.Object && v.Get("approve").Kind() == jsonpos.Bool:
			approve, set = v.Get("approve").Bool(), true
			cmdLine = isTrue(v.Get("matchCommandLine"))
		case v.Kind() == jsonpos.Null:
			continue // null entries are ignored
		default:
			r.doc.Problems = append(r.doc.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: m.Key + "." + k.Key,
				Message: fmt.Sprintf("%s[%q] is %s: VS Code uses only true, false, null or {approve, matchCommandLine}", m.Key, k.Key, v.Kind()), Pos: r.pos(k.KeyStart)})
			continue
		}
		if !set {
			continue
		}
		d := agent.Ask
		if approve {
			d = agent.Allow
		}
		text := fmt.Sprintf("%q: %v", k.Key, approve)
		if cmdLine {
			text += " (whole command line)"
		}
		l, unknown := TerminalRule(k.Key)
		r.doc.Rules = append(r.doc.Rules, agent.Rule{Surface: agent.Shell, Text: text, Decision: d, Lang: l, Unknown: unknown, Pos: r.pos(k.KeyStart)})
	}
}

func (r *reader) editRules(m jsonpos.Member) {
	for _, k := range members(m.Value) {
		if k.Value.Kind() != jsonpos.Bool {
			r.doc.Problems = append(r.doc.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: m.Key + "." + k.Key,
				Message: fmt.Sprintf("%s[%q] is %s, not true or false", m.Key, k.Key, k.Value.Kind()), Pos: r.pos(k.KeyStart)})
			continue
		}
		d := agent.Ask
		if k.Value.Bool() {
			d = agent.Allow
		}
		rule := agent.Rule{Surface: agent.Write, Text: fmt.Sprintf("edits %q: %v", k.Key, k.Value.Bool()), Decision: d, Pos: r.pos(k.KeyStart)}
		l, err := lattice.Compile(agent.PathGlob(strings.TrimPrefix(k.Key, "./")))
		if err != nil {
			rule.Unknown = err.Error()
		} else {
			rule.Lang = l
		}
		r.doc.Rules = append(r.doc.Rules, rule)
	}
}

// Combine is a scope's effective policy: false rules before true rules
// (Strictest: false — "ask" — wins), a command with a leading VAR=value
// always asks, and no terminal rule applies when
// chat.tools.terminal.enableAutoApprove is false.
func Combine(docs []*agent.Doc) *agent.Policy {
	p := &agent.Policy{Precedence: agent.Strictest}
	off := false
	for _, d := range docs {
		if d == nil {
			continue
		}
		for _, s := range d.Settings {
			if s.Key == "chat.tools.terminal.enableAutoApprove" && s.Grant < 0 {
				off = true
			}
		}
	}
	p.Rules = append(p.Rules, agent.Rule{Surface: agent.Shell, Text: "a leading VAR=value assignment (VS Code always asks)", Decision: agent.Ask, Lang: transient})
	for _, d := range docs {
		if d == nil {
			continue
		}
		for _, r := range d.Rules {
			if off && r.Surface == agent.Shell {
				continue
			}
			p.Rules = append(p.Rules, r)
		}
	}
	return p
}
