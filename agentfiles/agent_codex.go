package agentfiles

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/codex"
	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// The Codex CLI adapter: .codex/config.toml and .codex/rules/*.rules of a
// project folder (the folder holding .codex), read by agentfiles/codex
// and compared through the agent-neutral model.
//
// Rules are put on two surfaces. On "shell" (escalation: what runs without
// a prompt outside the sandbox) an allow rule allows, a prompt rule asks, a
// forbidden rule denies, and a command no rule matches asks. On "sandboxed
// shell" (what runs in the sandbox without a prompt, which a command no rule
// matches does under the on-request policy) only prompt rules ask: removing
// one is an ask rule removed. A call is an argv, written as a shell-quoted
// command line (codex.QuoteArgv), so token boundaries stay exact: the
// language of a rule is its alternatives' quoted spellings separated by
// blanks, then optionally a blank and anything.
type CodexAdapter struct{}

// codexSandboxed is the second surface of Codex rules.
const codexSandboxed agent.Surface = "sandboxed shell"

func (CodexAdapter) Agent() string          { return AgentCodex }
func (CodexAdapter) CheckedAgainst() string { return codex.Version }
func (CodexAdapter) Hints() []string {
	return []string{".codex", ".cursor-plugin", ".claude-plugin", "hooks/hooks.json", pluginAsDir}
}
func (CodexAdapter) Pathspecs() []string {
	return []string{":(glob).codex/config.toml", ":(glob)**/.codex/config.toml",
		":(glob).codex/rules/*.rules", ":(glob)**/.codex/rules/*.rules",
		":(glob).codex/hooks.json", ":(glob)**/.codex/hooks.json", ":(glob).codex/agents/**", ":(glob)**/.codex/agents/**",
		":(glob).codex-plugin/plugin.json", ":(glob)**/.codex-plugin/plugin.json", ":(glob).cursor-plugin/plugin.json", ":(glob)**/.cursor-plugin/plugin.json",
		":(glob).claude-plugin/plugin.json", ":(glob)**/.claude-plugin/plugin.json",
		":(glob).claude-plugin/marketplace.json", ":(glob)**/.claude-plugin/marketplace.json",
		":(glob)hooks/hooks.json", ":(glob)**/hooks/hooks.json"}
}

// Classify accepts .codex/config.toml and .codex/rules/<name>.rules in any
// folder; the scope is the folder holding .codex.
func (CodexAdapter) Classify(p string) (report.FileKind, string) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == "config.toml" && (dir == ".codex" || strings.HasSuffix(dir, "/.codex")):
		return AgentFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".codex"), "/")
	case strings.HasSuffix(base, ".rules") && len(base) > len(".rules") && (dir == ".codex/rules" || strings.HasSuffix(dir, "/.codex/rules")):
		return AgentFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".codex/rules"), "/")
	case codexOpaque(p) != "":
		return AgentFile, codexOpaqueScope(p)
	}
	return report.NotAgentConfig, ""
}

// codexOpaque says why Codex reads a file Shipgate does not model (""
// for none): .codex/hooks.json, the custom agents of .codex/agents, and
// the plugin manifests it looks for in a project (each traced with
// strace on 0.169.0's `debug prompt-input`: judge/testdata/surface). Any
// change to one is held for review (HOOK-CHANGED): what it grants is not
// read.
func codexOpaque(p string) string {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == "hooks.json" && (dir == ".codex" || strings.HasSuffix(dir, "/.codex")):
		return "Codex runs the commands of .codex/hooks.json by itself around the agent's actions"
	case strings.HasPrefix(p, ".codex/agents/") || strings.Contains(p, "/.codex/agents/"):
		return "a Codex custom agent: its configuration (model, sandbox, approvals, instructions) is not modelled"
	case base == "plugin.json" && (path.Base(dir) == ".codex-plugin" || path.Base(dir) == ".cursor-plugin" || path.Base(dir) == ".claude-plugin"):
		return "a plugin manifest Codex reads in a project: a plugin brings hooks, MCP servers and skills"
	case base == "marketplace.json" && path.Base(dir) == ".claude-plugin":
		return "a Claude Code plugin marketplace: its entries name the plugins' folders and may declare their commands, hooks and servers inline"
	case path.Base(dir) == pluginAsDir:
		// The As of a file a plugin manifest names (PluginLayout.As).
		return "a file a plugin loads as its " + base + " (named by its manifest, or its default): once the plugin is enabled its commands, servers and apps run by themselves"
	case base == "hooks.json" && path.Base(dir) == "hooks":
		// The manifest's metadata-only changes pass (manifestValue), so
		// the plugin's own hooks file, where a release's new commands
		// land, is held itself: hooks/hooks.json at a plugin's root is
		// where Claude Code and Codex plugins keep them by default.
		return "a plugin's hooks file (hooks/hooks.json at a plugin's root): once the plugin is enabled its commands run by themselves around the agent's actions"
	}
	return ""
}

// opaqueValue names one version of a file Shipgate does not read: its
// size and an FNV-1a hash of its bytes (two versions differ when it does).
func opaqueValue(data []byte) string {
	h := uint64(14695981039346656037)
	for _, c := range data {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return fmt.Sprintf("%d bytes, fnv %016x", len(data), h)
}

// manifestMetadata are the top-level keys of a plugin manifest that
// describe the plugin and load nothing: Claude Code's and Codex's
// manifests name the plugin's hooks, MCP servers, skills, commands,
// agents and apps by other keys (hooks, mcpServers, skills, commands,
// agents, apps, lspServers, outputStyles, interface). The name is not
// among them: enabledPlugins and a skill's namespace refer to it.
// $schema names the JSON schema an editor checks the file against.
var manifestMetadata = []string{"version", "description", "author", "homepage", "repository", "license", "keywords", "$schema"}

// manifestValue names one version of a plugin manifest by its content
// without the metadata keys: a strict JSON object (no duplicate key, no
// comment), canonical (keys sorted, no spaces) and hashed, so two versions
// that differ only in their version, description or other metadata are the
// same plugin. ok is false for anything else (the caller hashes the bytes:
// fail closed).
//
// For a marketplace (entries set) the entries of its plugins list are
// read the same way, less their category and tags too: a marketplace
// that bumps its plugins' versions lists the same plugins.
//
// For a Claude Code plugin's manifest or marketplace (parts set), the
// paths of its parts that PluginLayouts reads (localPartPath: commands,
// agents, skills, hooks, servers, monitors and workflows named by ./
// paths inside the plugin) and an entry's ./ source are left out too:
// gather reads the files they name, on both sides, as what the plugin
// makes of them, so a file newly named (or a folder newly pointed at) is
// compared as new and one no longer named as removed. A marketplace that
// lists one more agent of a plugin is then no change of its own (the
// fifth round's corpus: 43 wshobson/agents and anthropics/claude-code
// pairs flagged only so). An inline part (an object), a URL, a path not
// starting with ./ or leaving the plugin, and a remote source stay.
func manifestValue(data []byte, entries, parts bool) (string, bool) {
	v, _, ok := manifestValueKeys(data, entries, parts)
	return v, ok
}

// manifestValueKeys is manifestValue with the top-level keys the value
// holds.
func manifestValueKeys(data []byte, entries, parts bool) (string, []string, bool) {
	root, probs, err := jsonpos.Parse(data)
	if err != nil || len(probs) > 0 || root.Kind() != jsonpos.Object {
		return "", nil, false
	}
	meta := map[string]bool{}
	for _, k := range manifestMetadata {
		meta[k] = true
	}
	codexManifest := !parts && !entries
	if codexManifest {
		// A Codex or Cursor plugin manifest's interface is what the
		// plugin list shows (displayName, shortDescription, category,
		// defaultPrompt: a suggested prompt); its skills are
		// instructions, which grant no permission (wshobson/agents
		// d43bb81e9c and 184e119f70 added such manifests: reviewed).
		meta["interface"] = true
		// Cursor's manifest spells the list's labels at its top level
		// (displayName, logo: wshobson/agents 0818067b4e added one).
		meta["displayName"], meta["logo"] = true, true
		if v := root.Get("skills"); v != nil {
			if _, rest := partPaths("skills", v); rest == nil {
				meta["skills"] = true
			}
		}
	}
	if parts && !entries {
		// A plugin.json's category and tags, as a marketplace entry's:
		// a listing's labels (wshobson/agents added "category" to a
		// plugin.json; the fifth round's sample counted it noise).
		meta["category"], meta["tags"] = true, true
	}
	entryMeta := map[string]bool{"category": true, "tags": true}
	for k := range meta {
		entryMeta[k] = true
	}
	var b strings.Builder
	skipParts := func(obj *jsonpos.Value, base map[string]bool, entry bool) map[string]bool {
		if !parts {
			return base
		}
		skip := maps.Clone(base)
		for _, m := range obj.Members() {
			if !entries && !entry && m.Key == string(PartMCP) && m.Value.Kind() == jsonpos.Object {
				// A plugin.json's inline servers: read as its servers
				// (pluginServers) and compared one by one.
				skip[m.Key] = true
			}
			if entry && m.Key == "source" && m.Value.Kind() == jsonpos.String && localPartPath("", m.Value.Text()) {
				skip[m.Key] = true
			}
			if isPluginPart(m.Key) {
				if _, rest := partPaths(m.Key, m.Value); rest == nil {
					skip[m.Key] = true
				}
			}
		}
		return skip
	}
	writePart := func(key string, v *jsonpos.Value) bool {
		if !parts || !isPluginPart(key) {
			return false
		}
		local, rest := partPaths(key, v)
		if local == 0 {
			return false
		}
		// A list of local paths and other entries: the others only.
		b.WriteByte('[')
		for i, e := range rest {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonpos.Canon(e))
		}
		b.WriteByte(']')
		return true
	}
	n := writeWithout(&b, root, skipParts(root, meta, false), func(key string, v *jsonpos.Value) bool {
		if entries && key == "metadata" && v.Kind() == jsonpos.Object {
			// A marketplace's own description and version (its
			// pluginRoot, which places the plugins, stays).
			writeWithout(&b, v, meta, func(string, *jsonpos.Value) bool { return false })
			return true
		}
		if !entries || key != "plugins" || v.Kind() != jsonpos.Array {
			return writePart(key, v)
		}
		b.WriteByte('[')
		for i, e := range v.Elements() {
			if i > 0 {
				b.WriteByte(',')
			}
			if e.Kind() == jsonpos.Object {
				writeWithout(&b, e, skipParts(e, entryMeta, true), writePart)
			} else {
				b.WriteString(jsonpos.Canon(e))
			}
		}
		b.WriteByte(']')
		return true
	})
	var keys []string
	skipTop := skipParts(root, meta, false)
	for _, m := range root.Members() {
		if !skipTop[m.Key] {
			keys = append(keys, m.Key)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	if parts {
		return fmt.Sprintf("%d keys besides its metadata and part paths, sha256 %x", n, sum[:8]), keys, true
	}
	return fmt.Sprintf("%d keys besides its metadata, sha256 %x", n, sum[:8]), keys, true
}

// writeWithout writes obj canonically less the skipped keys; value
// writes a member's value itself when it returns true. It returns how
// many members were written.
func writeWithout(b *strings.Builder, obj *jsonpos.Value, skip map[string]bool, value func(string, *jsonpos.Value) bool) int {
	b.WriteByte('{')
	n := 0
	for _, m := range obj.Members() {
		if skip[m.Key] {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(b, "%q:", m.Key)
		if !value(m.Key, m.Value) {
			b.WriteString(jsonpos.Canon(m.Value))
		}
	}
	b.WriteByte('}')
	return n
}

// pluginServers are the MCP servers a Claude Code plugin manifest (p,
// IsPluginManifest, a plugin.json) declares inline under mcpServers: the
// plugin starts them once it is enabled. They are left out of the
// manifest's hashed value (manifestValueKeys) and compared one by one, as
// an .mcp.json's are: one added is MCP-SERVER-ADDED, one removed a quiet
// row (beads f3b0fb780f removed its inline server: reviewed as the
// manifest changed).
func pluginServers(p string, data []byte) []agent.Server {
	if !IsPluginManifest(p) || path.Base(p) != "plugin.json" {
		return nil
	}
	root, probs, err := jsonpos.Parse(data)
	if err != nil || len(probs) > 0 || root.Kind() != jsonpos.Object {
		return nil
	}
	var out []agent.Server
	if v := root.Get(string(PartMCP)); v.Kind() == jsonpos.Object {
		for _, m := range v.Members() {
			out = append(out, agent.Server{Name: m.Key, Summary: jsonc.ServerSummary(m.Value), Canon: jsonc.Canon(m.Value), Pos: agent.Pos{File: p, Line: m.KeyStart.Line}})
		}
	}
	return out
}

// jsonNameOf is the string "name" of a JSON object, or "".
func jsonNameOf(data []byte) string {
	root, _, err := jsonpos.Parse(data)
	if err != nil {
		return ""
	}
	return root.Get("name").Text()
}

// codexOpaqueScope is the scope of an opaque Codex file: the folder
// holding .codex (or the manifest's folder's parent).
func codexOpaqueScope(p string) string {
	if pluginPartOf(p) != "" {
		return path.Dir(path.Dir(p))
	}
	if i := strings.LastIndex(p, ".codex/"); i >= 0 {
		return strings.TrimSuffix(p[:i], "/")
	}
	return strings.TrimSuffix(path.Dir(path.Dir(p)), ".")
}

// Siblings: none by name (the rules files of a folder are a glob:
// SiblingDirs names the folder).
func (CodexAdapter) Siblings(string) []string { return nil }

// SiblingDirs: a rules file is read with every other .rules file of its
// folder (Codex loads them all, and strictest wins across them).
func (CodexAdapter) SiblingDirs(p string) []string {
	if strings.HasSuffix(p, ".rules") {
		return []string{path.Dir(p)}
	}
	return nil
}

// codexDropped marks the doc of a rules file Codex cannot load: Combine
// then drops every rule of the scope, as Codex does.
const codexDropped = "codex-rules-dropped"

// Read parses one version of a Codex file.
func (a CodexAdapter) Read(p string, data []byte) (*agent.Doc, error) {
	return a.read(p, data, nil)
}

// ReadShared is Read with the Starlark steps drawn from what the
// comparison's rules files have left of codex.MaxSharedSteps.
func (a CodexAdapter) ReadShared(p string, data []byte, used *int64) (*agent.Doc, error) {
	left := codex.MaxSharedSteps - *used
	defer func() { *used = codex.MaxSharedSteps - left }()
	return a.read(p, data, &left)
}

// ReadAs reads a file classified by another path (report.File.As): a
// file a plugin manifest names, held as the opaque file of its part.
func (a CodexAdapter) ReadAs(p, as string, data []byte) (*agent.Doc, error) {
	if why := codexOpaque(as); why != "" && pluginPartOf(as) != "" {
		part := PluginPart(pluginPartOf(as))
		return &agent.Doc{Settings: []agent.Setting{{Key: "file " + p, Value: opaqueValue(data), Pos: agent.Pos{File: p, Line: 1},
			Grant: 1, Check: agent.CheckHook, Why: why + " (not read by Shipgate: any change is reviewed)",
			// A servers, apps or monitors file only adds: once the
			// plugin no longer loads it (removed, or its manifest or
			// marketplace entry gone) fewer servers, connectors and
			// background commands run, and none of them could stop a
			// call. A hooks file may hold guards: its removal stays
			// reviewed.
			QuietRemoval: part == PartMCP || part == PartApps || part == PartMonitors}}}, nil
	}
	return a.Read(p, data)
}

func (CodexAdapter) read(p string, data []byte, left *int64) (*agent.Doc, error) {
	if why := codexOpaque(p); why != "" {
		value := opaqueValue(data)
		var probs []agent.Problem
		if IsPluginManifest(p) {
			// What Claude Code refuses in the paths it names (../, no ./):
			// said, whether or not the manifest changed otherwise.
			ls, _ := PluginLayouts(p, data)
			for _, l := range ls {
				for _, m := range l.Problems {
					probs = append(probs, agent.Problem{Kind: agent.ProblemInvalidRule, Key: "plugin " + l.Root, Message: m, Pos: agent.Pos{File: p, Line: 1}})
				}
			}
		}
		if IsPluginManifest(p) && path.Base(p) == "marketplace.json" {
			if root, jp, err := jsonpos.Parse(data); err == nil && len(jp) == 0 && root.Kind() == jsonpos.Object {
				if ss, ok := marketplaceSettings(p, root, why); ok {
					return &agent.Doc{Settings: ss, Problems: probs}, nil
				}
			}
		}
		if path.Base(p) == "plugin.json" || path.Base(p) == "marketplace.json" {
			if v, keys, ok := manifestValueKeys(data, path.Base(p) == "marketplace.json", IsPluginManifest(p)); ok {
				value = v
				if (IsPluginManifest(p) || IsCodexPluginManifest(p)) && path.Base(p) == "plugin.json" && len(keys) <= 1 && (len(keys) == 0 || keys[0] == "name") {
					// Nothing but its name (and metadata, labels and
					// part paths): the plugin's parts are read where
					// they lie and compared themselves, so adding or
					// removing such a manifest is no grant of its own
					// (Grant 0: judge reviews it only when it changes in
					// place — a rename renames the plugin's namespace).
					if nm := jsonNameOf(data); nm != "" {
						value = "name " + strconv.Quote(nm) + ", nothing else besides its metadata and part paths"
					}
					return &agent.Doc{Settings: []agent.Setting{{Key: "file " + p, Value: value, Pos: agent.Pos{File: p, Line: 1},
						Grant: 0, Check: agent.CheckHook, Why: why + " (this one declares nothing but its name and metadata: its commands, agents, skills, hooks and servers are read from the files its paths and default folders name, and compared themselves)"}},
						Servers: pluginServers(p, data), Problems: probs}, nil
				}
				if IsPluginManifest(p) {
					why += " (not read by Shipgate beyond its metadata and the ./ paths of its parts, whose files are compared themselves: any other change is reviewed)"
				} else {
					why += " (not read by Shipgate beyond its metadata: any change other than " + strings.Join(manifestMetadata, ", ") + " is reviewed)"
				}
			} else {
				why += " (not read by Shipgate: any change is reviewed)"
			}
		} else {
			why += " (not read by Shipgate: any change is reviewed)"
		}
		d := &agent.Doc{Settings: []agent.Setting{{Key: "file " + p, Value: value, Pos: agent.Pos{File: p, Line: 1},
			Grant: 1, Check: agent.CheckHook, Why: why}}, Problems: probs}
		if value != opaqueValue(data) {
			d.Servers = pluginServers(p, data) // read past the hash: its inline servers are not in it
		}
		return d, nil
	}
	if strings.HasSuffix(p, ".rules") {
		rf, err := codex.ParseRulesShared(p, data, left)
		if err != nil {
			line := 0
			msg := err.Error()
			pe, _ := err.(*codex.ParseError)
			if pe != nil {
				line, msg = pe.Line, pe.Msg
			}
			if pe != nil && pe.Limit {
				// Codex may load it: what it grants is unknown, so it blocks.
				return nil, &agent.ParseError{File: p, Line: line, Msg: msg, MayStillGrant: true}
			}
			// The doc goes with the error: Combine reads the marker.
			d := &agent.Doc{Problems: []agent.Problem{{Kind: agent.ProblemParse, Key: codexDropped, Message: msg, Pos: agent.Pos{File: p, Line: line}}}}
			return d, &agent.ParseError{File: p, Line: line, Msg: "Codex CLI " + codex.Version + " cannot load it (" + msg + ")",
				Blocks: "Codex then loads no execpolicy rule at all — not this file's, not the other .rules files', not the user's own ~/.codex/rules — and says nothing: every forbidden and prompt rule is gone"}
		}
		return codexDoc(p, rf), nil
	}
	cfg, err := codex.ParseConfig(p, data)
	if err != nil {
		line := 0
		msg := err.Error()
		pe, ok := err.(*codex.ParseError)
		if ok {
			line, msg = pe.Line, pe.Msg
		}
		// A limit of Shipgate's: Codex may read the file, so it blocks.
		return nil, &agent.ParseError{File: p, Line: line, Msg: msg, MayStillGrant: ok && pe.Limit}
	}
	d := &agent.Doc{}
	for _, s := range cfg.Settings {
		d.Settings = append(d.Settings, agent.Setting{Key: s.Key, Value: s.Value, Pos: agent.Pos{File: p, Line: s.Line},
			Grant: s.Grant, Exec: s.Exec, Check: s.Check, Why: s.Why})
	}
	for _, s := range cfg.Servers {
		d.Servers = append(d.Servers, agent.Server{Name: s.Name, Summary: s.Summary, Canon: s.Canon, Pos: agent.Pos{File: p, Line: s.Line}})
	}
	for _, pr := range cfg.Problems {
		kind := agent.ProblemUnknownKey
		if pr.Kind == codex.ProblemInert {
			kind = agent.ProblemInvalidRule
		}
		d.Problems = append(d.Problems, agent.Problem{Kind: kind, Key: pr.Key, Message: pr.Message, Pos: agent.Pos{File: p, Line: pr.Line}})
	}
	return d, nil
}

// codexDoc turns loaded rules into model rules.
func codexDoc(p string, rf *codex.RulesFile) *agent.Doc {
	d := &agent.Doc{}
	for _, r := range rf.Rules {
		lang, unknown := CodexLang(r)
		rule := agent.Rule{Surface: agent.Shell, Text: r.String(), Lang: lang, Unknown: unknown, Pos: agent.Pos{File: p, Line: r.Line}}
		switch r.Decision {
		case codex.Forbidden:
			rule.Decision = agent.Deny
		case codex.Prompt:
			rule.Decision = agent.Ask
		default:
			rule.Decision = agent.Allow
		}
		d.Rules = append(d.Rules, rule)
		if r.Decision == codex.Prompt {
			rule.Surface = codexSandboxed
			d.Rules = append(d.Rules, rule)
		}
	}
	return d
}

// codexLang is a rule's language over shell-quoted argv.
func CodexLang(r codex.Rule) (*lattice.Lang, string) {
	parts := make([]lattice.RE, 0, 2*len(r.Pattern)+1)
	for i, alts := range r.Pattern {
		if i > 0 {
			parts = append(parts, lattice.Lit(" "))
		}
		var as []lattice.RE
		for _, a := range alts {
			as = append(as, codexToken(a, r.Canonical))
		}
		parts = append(parts, lattice.Alt(as...))
	}
	parts = append(parts, lattice.Opt(lattice.Cat(lattice.Lit(" "), lattice.Everything())))
	l, err := lattice.Compile(lattice.Cat(parts...))
	if err != nil {
		return nil, err.Error()
	}
	return l, ""
}

// codexToken is one token's quoted spelling, any letter case when the
// rule matches canonically.
func codexToken(tok string, canonical bool) lattice.RE {
	q := codex.QuoteArgv([]string{tok})
	if !canonical {
		return lattice.Lit(q)
	}
	var parts []lattice.RE
	for _, c := range q {
		var rs []rune
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			rs = append(rs, f, f)
		}
		if len(rs) == 0 {
			parts = append(parts, lattice.Lit(string(c)))
			continue
		}
		parts = append(parts, lattice.Class(false, append(rs, c, c)...))
	}
	return lattice.Cat(parts...)
}

// Combine is a folder's effective execpolicy: the rules of every file,
// strictest decision first; none at all when one file does not load.
func (CodexAdapter) Combine(docs []*agent.Doc) *agent.Policy {
	pol := &agent.Policy{Precedence: agent.Strictest,
		Default: map[agent.Surface]agent.Decision{agent.Shell: agent.Ask, codexSandboxed: agent.Allow}}
	for _, d := range docs {
		if d == nil {
			continue
		}
		for _, pr := range d.Problems {
			if pr.Kind == agent.ProblemParse && pr.Key == codexDropped {
				return pol
			}
		}
	}
	for _, d := range docs {
		if d != nil {
			pol.Rules = append(pol.Rules, d.Rules...)
		}
	}
	return pol
}

func init() { RegisterAdapter(CodexAdapter{}) }
