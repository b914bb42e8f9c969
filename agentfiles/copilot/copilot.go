// Package copilot reads GitHub Copilot CLI's repository configuration into
// the agent-neutral model: .github/copilot/settings.json and
// settings.local.json (only the keys Copilot CLI takes from a repository:
// hooks, plugins and marketplaces, skill/agent/instruction/hook
// directories, denied URLs, disabled MCP servers and skills,
// disableAllHooks, the model provider; `permissions` is inert from a
// repository and reported), .github/hooks/*.json, the allowed-tools of
// .github/skills/*/SKILL.md (approved for the session once the skill
// runs), .github/mcp.json's servers and the mcp-servers of custom agents
// (.github/agents/**/*.md). Rules are kind(argument):
// shell(cmd), shell(cmd:*), write(path), url(domain), <server>(tool);
// deny wins.
//
// Semantics follow Copilot CLI 1.0.102 as examined in
// agents-permissions.md section 3 (`copilot help permissions`, its
// native rule parser and repo-key list): the parser was run, the matcher
// was not, so where its reading is open (whether shell(git push) also
// matches arguments) an allow rule is read the widest way and a deny rule
// the narrowest. .mcp.json is shared with Claude Code and reported there;
// Claude Code's hooks and plugins keys, which Copilot CLI also reads, are
// too.
package copilot

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
)

// CopilotVersion is the release the model was examined against.
const CopilotVersion = "1.0.102"

// CheckedAgainst names the version examined.
const CheckedAgainst = CopilotVersion + " (help text, rule parser, settings schema; custom agents and repository permissions at run time)"

// Kinds of Copilot CLI file.
const (
	Settings = "settings"
	Hooks    = "hooks"
	Skill    = "skill"
	MCP      = "mcp"
	// LSP is .github/lsp.json: language servers Copilot CLI starts by
	// itself (measured: `copilot lsp list` lists its lspServers).
	LSP = "lsp"
	// Agent is a custom agent, .github/agents/**/*.md: its frontmatter's
	// mcp-servers are started, without a prompt, whenever the agent runs
	// — as the session's agent (--agent) or as a subagent the model
	// delegates to with the task tool, which asks nobody either
	// (measured, docs/agents.md); its tools list only narrows what the
	// agent is offered (a command it lists still asks).
	Agent = "agent"
)

// otherAgents are folders of other agents: a SKILL.md inside one is theirs.
var otherAgents = []string{".claude/", ".opencode/", ".codex/", ".cursor/", ".gemini/", ".vscode/"}

// Classify reports whether Copilot CLI reads a path, and its kind. Every
// file belongs to the repository's one scope. Skills are read from
// .github/skills and .agents/skills (measured: `copilot skill list`
// stats both, with .claude/skills, which Claude Code's adapter reads) and
// from the folders skillDirectories names, so every SKILL.md outside
// another agent's folder is a candidate: Combine counts those under a
// folder the settings name.
func Classify(p string) (kind string, ok bool) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case dir == ".github/copilot" && (base == "settings.json" || base == "settings.local.json"):
		return Settings, true
	case dir == ".github/hooks" && strings.HasSuffix(base, ".json"):
		return Hooks, true
	case p == ".github/mcp.json":
		return MCP, true
	case p == ".github/lsp.json":
		return LSP, true
	case strings.HasPrefix(p, ".github/agents/") && strings.HasSuffix(strings.ToLower(base), ".md"):
		return Agent, true
	case base == "SKILL.md":
		for _, o := range otherAgents {
			if strings.HasPrefix(p, o) || strings.Contains(p, "/"+o) {
				return "", false
			}
		}
		return Skill, true
	}
	return "", false
}

// defaultSkillDirs are the repository folders Copilot CLI reads skills
// from without a setting.
var defaultSkillDirs = []string{".github/skills", ".agents/skills"}

// skillDir is the skills folder a SKILL.md belongs to when it is one
// Copilot CLI reads (dirs: the folders skillDirectories names): the file
// is dir/SKILL.md or dir/<name>/SKILL.md (measured: both are statted).
func skillDir(p string, dirs []string) bool {
	d := path.Dir(p)
	for _, x := range append(append([]string(nil), defaultSkillDirs...), dirs...) {
		if d == x || path.Dir(d) == x {
			return true
		}
	}
	return false
}

// skillDirs are the folders the settings docs' skillDirectories name.
func skillDirs(docs []*agent.Doc) []string {
	var dirs []string
	for _, d := range docs {
		if d == nil {
			continue
		}
		if k, _ := Classify(d.File); k != Settings {
			continue
		}
		for _, s := range d.Settings {
			if strings.HasPrefix(s.Key, "skillDirectories[") {
				// Resolved as agentDirectories are (measured: `copilot
				// skill list` lists a skill of tools/skills under
				// "../<checkout>/tools/skills" too).
				if d, why := AgentDir(s.Value); why == "" {
					if d == "" {
						d = "."
					}
					dirs = append(dirs, d)
				}
			}
		}
	}
	return dirs
}

// Pathspecs match every path Classify accepts.
var Pathspecs = []string{":(glob).github/copilot/settings.json", ":(glob).github/copilot/settings.local.json", ":(glob).github/hooks/*.json",
	":(glob)SKILL.md", ":(glob)**/SKILL.md", ":(glob).github/mcp.json", ":(glob).github/lsp.json", ":(glob).github/agents/**/*.md", ":(glob).github/agents/**/*.MD"}

// Siblings are the settings files read together (a skill is read with
// them: they say whether its folder is one Copilot CLI reads).
func Siblings(p string) []string {
	var out []string
	for _, q := range []string{".github/copilot/settings.json", ".github/copilot/settings.local.json"} {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

// repoKeys are the settings keys Copilot CLI takes from a repository
// (userSettingsGovernanceKeys().repo) plus permissions, which its merge
// passes through.
var repoKeys = map[string]bool{"skillDirectories": true, "agentDirectories": true, "instructionDirectories": true, "hookDirectories": true,
	"companyAnnouncements": true, "disableAllHooks": true, "enabledPlugins": true, "extraKnownMarketplaces": true, "hooks": true,
	"mergeStrategy": true, "includeCoAuthoredBy": true, "respectGitignore": true, "deniedUrls": true, "disabledMcpServers": true,
	"disabledSkills": true, "model": true, "modelProviderId": true, "autoTier": true, "effortLevel": true, "contextTier": true, "permissions": true, "$schema": true}

func parseErr(file string, err error) error {
	pe := &agent.ParseError{File: file, Msg: err.Error()}
	if je, ok := err.(*jsonc.Error); ok {
		pe.Line, pe.Col, pe.Msg = je.Line, je.Col, je.Msg
		pe.MayStillGrant = je.Limit // Copilot CLI reads it: fail closed
	}
	return pe
}

// Read parses one version of a Copilot CLI file.
func Read(file string, data []byte) (*agent.Doc, error) {
	kind, _ := Classify(file)
	d := &agent.Doc{File: file}
	pos := func(p jsonpos.Pos) agent.Pos { return agent.Pos{File: file, Line: p.Line, Col: p.Column} }
	switch kind {
	case Skill:
		return readSkill(file, data)
	case Agent:
		return readAgent(file, data)
	case "":
		if strings.HasSuffix(file, ".md") {
			// A .md file the front ends found in a folder
			// agentDirectories names (classified by AgentAs).
			return readAgent(file, data)
		}
	}
	root, probs, err := jsonc.Parse(data, jsonc.Options{})
	if err != nil {
		return nil, parseErr(file, err)
	}
	if root.Kind() != jsonpos.Object {
		return nil, &agent.ParseError{File: file, Line: 1, Col: 1, Msg: "the file is not a JSON object"}
	}
	for _, p := range probs {
		if p.Kind == jsonpos.ProblemDuplicateKey {
			d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemDuplicateKey, Key: p.Key, Message: p.String(), Pos: agent.Pos{File: file, Line: p.Pos.Line, Col: p.Pos.Column}})
		}
	}
	switch kind {
	case LSP:
		for _, m := range root.Get("lspServers").Members() {
			if m.Overridden {
				continue
			}
			d.Settings = append(d.Settings, agent.Setting{Key: "lspServers." + m.Key, Value: jsonc.Canon(m.Value), Pos: pos(m.KeyStart), Grant: 1, Check: agent.CheckHook,
				Why: "Copilot CLI starts this language server's command by itself, without a prompt, for the files it names"})
		}
	case MCP:
		for _, m := range root.Get("mcpServers").Members() {
			d.Servers = append(d.Servers, agent.Server{Name: m.Key, Summary: jsonc.ServerSummary(m.Value), Canon: jsonc.Canon(m.Value), Pos: pos(m.KeyStart)})
		}
	case Hooks:
		for _, m := range root.Members() {
			d.Settings = append(d.Settings, agent.Setting{Key: "hooks file " + path.Base(file) + ": " + m.Key, Value: jsonc.Canon(m.Value), Pos: pos(m.KeyStart), Grant: 1,
				Check: agent.CheckHook, Why: "a repository hook: Copilot CLI runs its commands around the agent's actions"})
		}
	case Settings:
		for _, m := range root.Members() {
			if m.Overridden {
				continue
			}
			if !repoKeys[m.Key] {
				d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemUnknownKey, Key: m.Key, Pos: pos(m.KeyStart),
					Message: fmt.Sprintf("%s is not a key Copilot CLI takes from a repository's settings (it drops it in the merge)", m.Key)})
				continue
			}
			readSetting(d, m, pos)
		}
	}
	return d, nil
}

func set(d *agent.Doc, key, value string, p agent.Pos, grant int, check, why string) {
	d.Settings = append(d.Settings, agent.Setting{Key: key, Value: value, Pos: p, Grant: grant, Check: check, Why: why})
}

func readSetting(d *agent.Doc, m jsonpos.Member, pos func(jsonpos.Pos) agent.Pos) {
	p := pos(m.KeyStart)
	switch m.Key {
	case "hooks":
		for _, h := range m.Value.Members() {
			set(d, "hooks."+h.Key, jsonc.Canon(h.Value), pos(h.KeyStart), 1, agent.CheckHook, "a repository hook: Copilot CLI runs its commands around the agent's actions")
		}
	case "enabledPlugins", "extraKnownMarketplaces":
		if m.Value.Kind() == jsonpos.Object {
			for _, x := range m.Value.Members() {
				g := 1
				if x.Value.Kind() == jsonpos.Bool && !x.Value.Bool() {
					g = 0
				}
				set(d, m.Key+"."+x.Key, jsonc.Canon(x.Value), pos(x.KeyStart), g, agent.CheckPlugin, "a plugin or marketplace brings hooks, MCP servers, agents and skills with it")
			}
		} else {
			for _, x := range m.Value.Elements() {
				set(d, m.Key+"["+x.Text()+"]", jsonc.Canon(x), pos(x.Start()), 1, agent.CheckPlugin, "a plugin or marketplace brings hooks, MCP servers, agents and skills with it")
			}
		}
	case "skillDirectories", "agentDirectories", "instructionDirectories", "hookDirectories":
		check := agent.CheckPlugin
		if m.Key == "hookDirectories" {
			check = agent.CheckHook
		}
		for _, x := range m.Value.Elements() {
			set(d, m.Key+"["+x.Text()+"]", x.Text(), pos(x.Start()), 1, check, "Copilot CLI loads this directory's "+strings.TrimSuffix(m.Key, "Directories")+"s as trusted configuration")
		}
	case "deniedUrls", "disabledMcpServers", "disabledSkills":
		for _, x := range m.Value.Elements() {
			set(d, m.Key+"["+x.Text()+"]", x.Text(), pos(x.Start()), -1, agent.CheckDeny, m.Key+" keeps this off; removing the entry turns it back on")
		}
	case "disableAllHooks":
		g := 0
		if m.Value.Kind() == jsonpos.Bool && m.Value.Bool() {
			g = -1
		}
		set(d, m.Key, jsonc.Canon(m.Value), p, g, agent.CheckDeny, "true keeps every hook from running; turning it off runs them again")
	case "modelProviderId":
		set(d, m.Key, jsonc.Canon(m.Value), p, 1, agent.CheckEnv, "the model provider decides where prompts and code are sent")
	case "permissions":
		// Inert from a repository: Copilot CLI 1.0.102's settings schema
		// marks permissions.allow, .ask and .deny managedOnly ("Enterprise-
		// managed permission rules"), and TestCopilotRuntime measured a
		// repository's allow and deny rules changing no decision at run
		// time. So they neither grant (no noise) nor protect (a deny here
		// does not stop a skill's allowed-tools): each entry is reported.
		for _, list := range []string{"allow", "ask", "deny"} {
			for _, e := range m.Value.Get(list).Elements() {
				d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: "permissions." + list + " " + e.Text(), Pos: pos(e.Start()),
					Message: fmt.Sprintf("permissions.%s %q: Copilot CLI %s takes permission rules only from enterprise-managed settings (managedOnly in its settings schema; measured: a repository's permissions change no decision at run time), so this rule grants and denies nothing", list, e.Text(), CopilotVersion)})
			}
		}
	}
}

func addRule(d *agent.Doc, text string, dec agent.Decision, p agent.Pos, where string) {
	r, skip, err := Rule(text, dec)
	if err != nil {
		d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: text, Pos: p, Restricts: dec != agent.Allow,
			Message: fmt.Sprintf("%s %q: %v", where, text, err)})
		return
	}
	if skip {
		return
	}
	r.Pos = p
	d.Rules = append(d.Rules, r)
}

// FrontmatterOnly reports whether Read parses nothing of the file at p but
// its YAML frontmatter: a skill, a custom agent, a .md file of a folder
// agentDirectories names (readSkill, readAgent).
func FrontmatterOnly(p string) bool {
	kind, _ := Classify(p)
	return kind == Skill || kind == Agent || kind == "" && strings.HasSuffix(p, ".md")
}

// readSkill reads a SKILL.md's frontmatter: its allowed-tools are approved
// for the session once the skill runs (addApprovedRules).
func readSkill(file string, data []byte) (*agent.Doc, error) {
	d := &agent.Doc{File: file}
	m, err := agent.Frontmatter(file, data)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return d, nil // no frontmatter: no tools (or not a mapping)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "allowed-tools" {
			continue
		}
		v := m.Content[i+1]
		var items []*yaml.Node
		switch v.Kind {
		case yaml.SequenceNode:
			items = v.Content
		case yaml.ScalarNode:
			for _, s := range splitTools(v.Value) {
				items = append(items, &yaml.Node{Kind: yaml.ScalarNode, Value: s, Line: v.Line, Column: v.Column})
			}
		}
		for _, it := range items {
			addRule(d, strings.TrimSpace(it.Value), agent.Allow, agent.Pos{File: file, Line: it.Line + 1, Col: it.Column}, "allowed-tools")
		}
	}
	return d, nil
}

// readAgent reads a custom agent's frontmatter: its mcp-servers are MCP
// servers Copilot CLI starts when the agent runs. A file without
// frontmatter defines no server; one whose frontmatter is not YAML, or
// whose mcp-servers is not a mapping, Copilot CLI does not load as
// written ("mcp-servers: Expected object" in its loader): a ParseError,
// reviewed.
func readAgent(file string, data []byte) (*agent.Doc, error) {
	d := &agent.Doc{File: file}
	m, err := agent.Frontmatter(file, data)
	if err != nil || m == nil {
		return d, err
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "mcp-servers" {
			continue
		}
		srv, err := agent.YAMLServers(file, m.Content[i+1])
		if err != nil {
			return nil, err
		}
		if name, line := serverWithoutTools(m.Content[i+1]); name != "" {
			// Measured (Copilot CLI 1.0.102, a stdio server touching a
			// marker): a server entry without tools makes the whole file
			// fail to load ("custom agent markdown frontmatter is
			// malformed: mcp-servers.<name>.tools: Required"; the task tool
			// says "Unknown agent_type", --agent exits with the error), so
			// none of its servers starts. type is not required.
			d.Problems = append(d.Problems, agent.Problem{Kind: agent.ProblemInvalidRule, Key: "mcp-servers." + name, Pos: agent.Pos{File: file, Line: line},
				Message: fmt.Sprintf("mcp-servers.%s has no tools list: Copilot CLI %s refuses to load this custom agent (\"mcp-servers.%s.tools: Required\"; measured), so none of its MCP servers starts", name, CopilotVersion, name)})
			return d, nil
		}
		for j := range srv {
			srv[j].Summary += "; started whenever the custom agent runs, which the model may delegate to without a prompt"
		}
		d.Servers = append(d.Servers, srv...)
	}
	return d, nil
}

// serverWithoutTools names the first mcp-servers entry (a mapping)
// without a tools key, and its line ("" when every entry has one).
func serverWithoutTools(servers *yaml.Node) (string, int) {
	if servers == nil || servers.Kind != yaml.MappingNode {
		return "", 0
	}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		v := servers.Content[i+1]
		if v.Kind != yaml.MappingNode {
			continue
		}
		has := false
		for j := 0; j+1 < len(v.Content); j += 2 {
			if v.Content[j].Value == "tools" {
				has = true
			}
		}
		if !has {
			return servers.Content[i].Value, servers.Content[i].Line + 1
		}
	}
	return "", 0
}

// splitTools splits a string list of tools on commas and blanks outside
// parentheses.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t'):
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

var (
	space   = lattice.Lit(" ")
	anyArgs = lattice.Opt(lattice.Cat(space, lattice.Everything()))
)

// Rule reads one kind(argument) rule. skip is set for tools that need no
// permission (Read, view).
func Rule(text string, d agent.Decision) (r agent.Rule, skip bool, err error) {
	r = agent.Rule{Text: text, Decision: d}
	kind, arg, hasArg := text, "", false
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return r, false, fmt.Errorf("an unclosed (")
		}
		kind, arg, hasArg = text[:i], strings.TrimSpace(text[i+1:len(text)-1]), true
	}
	if kind == "" {
		return r, false, fmt.Errorf("empty rule")
	}
	var re lattice.RE
	switch strings.ToLower(kind) {
	case "read", "view":
		return r, true, nil
	case "shell", "bash":
		r.Surface = agent.Shell
		switch {
		case !hasArg || arg == "" || arg == "*":
			re = lattice.Everything()
		case strings.HasSuffix(arg, ":*"):
			re = lattice.Cat(lattice.Lit(strings.TrimSuffix(arg, ":*")), anyArgs)
		case d == agent.Allow:
			// The matcher was not run: an exact command may approve its
			// arguments too ("approval is performed on a first-level
			// subcommand basis").
			re = lattice.Cat(lattice.Lit(arg), anyArgs)
		default:
			re = lattice.Lit(arg)
		}
	case "write":
		r.Surface = agent.Write
		switch {
		case !hasArg || arg == "":
			re = lattice.Everything()
		case strings.HasPrefix(arg, "/"):
			re = lattice.Cat(lattice.Lit(arg), lattice.Opt(lattice.Cat(lattice.Lit("/"), lattice.Everything())))
		default:
			// A relative path matches by trailing components.
			re = lattice.Cat(lattice.Opt(lattice.Cat(lattice.Everything(), lattice.Lit("/"))), lattice.Lit(strings.TrimPrefix(arg, "./")), lattice.Opt(lattice.Cat(lattice.Lit("/"), lattice.Everything())))
		}
	case "url":
		r.Surface = agent.Fetch
		switch {
		case !hasArg || arg == "" || arg == "*":
			re = lattice.Everything()
		default:
			host := arg
			if i := strings.Index(host, "://"); i >= 0 {
				host = host[i+3:]
			}
			if strings.HasPrefix(host, "*.") {
				re = lattice.Cat(lattice.Everything(), lattice.Lit(strings.TrimPrefix(host, "*")))
			} else {
				re = lattice.Lit(host)
			}
		}
	default:
		// <mcp-server>(tool?)
		r.Surface = agent.MCP
		if !hasArg || arg == "" {
			re = lattice.Cat(lattice.Lit(kind+":"), lattice.Everything())
		} else {
			re = lattice.Lit(kind + ":" + arg)
		}
	}
	l, cerr := lattice.Compile(re)
	if cerr != nil {
		r.Unknown = cerr.Error()
	} else {
		r.Lang = l
	}
	return r, false, nil
}

// Combine is the repository's effective policy: deny wins, no match
// asks. Docs are ordered by file so the result does not depend on input
// order.
func Combine(docs []*agent.Doc) *agent.Policy {
	var ds []*agent.Doc
	for _, d := range docs {
		if d != nil {
			ds = append(ds, d)
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].File < ds[j].File })
	dirs := skillDirs(ds)
	p := &agent.Policy{Precedence: agent.Strictest}
	for _, d := range ds {
		if k, _ := Classify(d.File); k == Skill && !skillDir(d.File, dirs) {
			continue // a SKILL.md in no folder Copilot CLI reads
		}
		p.Rules = append(p.Rules, d.Rules...)
	}
	return p
}

// SkillsRead lists the skill files of docs Copilot CLI reads: those in a
// default skills folder or one the settings' skillDirectories name.
func SkillsRead(docs []*agent.Doc) []string {
	dirs := skillDirs(docs)
	var out []string
	for _, d := range docs {
		if d == nil {
			continue
		}
		if k, _ := Classify(d.File); k == Skill && skillDir(d.File, dirs) {
			out = append(out, d.File)
		}
	}
	sort.Strings(out)
	return out
}
