package hookscript

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/report"
)

// pluginRootVars are the variables a plugin's commands name its folder
// by: Claude Code's, and Codex's (0.169.0 sets both spellings; its
// binary names PLUGIN_ROOT and CLAUDE_PLUGIN_ROOT).
var pluginRootVars = []string{"CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT"}

// pluginDataVars name a plugin's data folder, outside the repository.
var pluginDataVars = []string{"CLAUDE_PLUGIN_DATA", "PLUGIN_DATA"}

// outsideRepo is the value a variable naming a folder outside the
// repository expands to: an absolute path, which names no repository
// file.
const outsideRepo = "/\x03outside"

// pluginEnv adds to env the plugin variables for a plugin rooted at root
// (known: the plugin's folder; else the root variables stay unknown and
// a command built from them cannot be resolved).
func pluginEnv(env map[string]string, root string, known bool) map[string]string {
	for _, k := range pluginDataVars {
		env[k] = outsideRepo
	}
	if known {
		for _, k := range pluginRootVars {
			env[k] = RepoMark + "/" + root
		}
	}
	return env
}

// The reasons a plugin's command is looked for by its text.
const (
	pluginFolderUnknown = "the plugin's folder (${CLAUDE_PLUGIN_ROOT}, ${PLUGIN_ROOT}) is not known from where a manifest names this file"
	pluginFolderGuessed = "the plugin's folder is guessed from the file's path (a manifest elsewhere may root it elsewhere)"
)

// PluginFolderReason reports whether an UnresolvedCommand's reason is the
// plugin's folder (the advice then is not a $CLAUDE_PROJECT_DIR path).
func PluginFolderReason(reason string) bool {
	return reason == pluginFolderUnknown || reason == pluginFolderGuessed
}

// namesPluginRoot reports whether a command's text names a plugin root
// variable: resolved with a root guessed from the file's path, what it
// runs is also looked for by its text (Mentions), as a plugin whose
// manifest names the file from elsewhere roots it elsewhere.
func namesPluginRoot(text string) bool {
	for _, k := range pluginRootVars {
		if strings.Contains(text, "$"+k) || strings.Contains(text, "${"+k) {
			return true
		}
	}
	return false
}

// OpaqueRefs resolves the commands of a file Shipgate holds whole
// (agentfiles.OpaqueCommands: a plugin's hooks, servers or monitors file,
// .codex/hooks.json) to the repository files they run; bad are the
// commands it cannot resolve, and those whose plugin root is a guess
// (the caller looks for the files their text names). p is the path the
// file is classified by (its As when a plugin loads it); data one
// version. Data that does not parse runs nothing here (the file itself
// is reviewed when it changes).
func OpaqueRefs(p string, data []byte) ([]scriptRef, []UnresolvedCommand) {
	cf, ok := agentfiles.OpaqueCommands(p)
	if !ok {
		return nil, nil
	}
	root, probs, err := jsonpos.Parse(data)
	if err != nil || root == nil {
		return nil, nil
	}
	_ = probs // a duplicate key or a comment: both values are read (walk)
	env := pluginEnv(map[string]string{}, cf.Root, cf.RootKnown)
	var refs []scriptRef
	var bad []UnresolvedCommand
	for _, s := range opaqueSites(cf, root) {
		var paths []string
		var err error
		if s.exec {
			paths, err = resolveArgv(append([]string{s.text}, s.args...), env, cf.Dir)
		} else {
			paths, err = ResolveCommand(s.text, env, cf.Dir)
		}
		all := strings.Join(append([]string{s.text}, s.args...), " ")
		switch {
		case err != nil && !cf.RootKnown && namesPluginRoot(all):
			bad = append(bad, UnresolvedCommand{Key: s.key, Event: s.event, Line: s.line, Command: all, Reason: pluginFolderUnknown})
		case err != nil:
			bad = append(bad, UnresolvedCommand{Key: s.key, Event: s.event, Line: s.line, Command: all, Reason: err.Error()})
		case namesPluginRoot(all):
			bad = append(bad, UnresolvedCommand{Key: s.key, Event: s.event, Line: s.line, Command: all, Reason: pluginFolderGuessed})
		}
		for _, q := range paths {
			refs = append(refs, scriptRef{Path: q, Key: s.key, Event: s.event, Line: s.line})
		}
	}
	return refs, bad
}

// opaqueSites lists the commands of a CommandsFile: for an MCP or LSP
// servers file, each server's command and args (an argv); otherwise every string of
// the document under a key command or commandWindows (Codex runs the
// latter on Windows), wherever it is — a hooks file that is not in the
// documented shape still has its commands followed (fail closed). A
// command under hooks.<Event> is that event's; any other has no event
// (read as one that may decide).
func opaqueSites(cf agentfiles.CommandsFile, root *jsonpos.Value) []commandSite {
	var out []commandSite
	switch cf.Part {
	case agentfiles.PartMCP:
		for _, key := range []string{"mcpServers", "servers"} {
			out = append(out, argvSites(key, root.Get(key).Members())...)
		}
		return out
	case agentfiles.PartLSP:
		// .lsp.json: language servers by name.
		return argvSites("lspServers", root.Members())
	}
	var walk func(v *jsonpos.Value, key, event string, depth int)
	walk = func(v *jsonpos.Value, key, event string, depth int) {
		if depth > 64 {
			return
		}
		switch v.Kind() {
		case jsonpos.Object:
			for _, m := range v.Members() {
				ev := event
				if depth == 1 && key == "hooks" {
					ev = m.Key
				}
				k := key + "." + m.Key
				if key == "" {
					k = m.Key
				}
				if (m.Key == "command" || m.Key == "commandWindows") && m.Value.Kind() == jsonpos.String {
					out = append(out, commandSite{key: k, event: ev, line: m.Value.Start().Line, text: m.Value.Text()})
					continue
				}
				walk(m.Value, k, ev, depth+1)
			}
		case jsonpos.Array:
			for i, e := range v.Elements() {
				walk(e, fmt.Sprintf("%s[%d]", key, i), event, depth+1)
			}
		}
	}
	walk(root, "", "", 0)
	if cf.Part == agentfiles.PartMonitors {
		for i := range out {
			out[i].key = "monitors:" + out[i].key
		}
	}
	return out
}

// RootGuesses are the commands of an .mcp.json whose plugin root
// CommandRefs guessed (the file's folder: a plugin's default .mcp.json is
// at its root, but a manifest elsewhere may name the file and root it
// elsewhere): the front ends also read the files their text names.
func RootGuesses(d *claude.Doc, kind report.FileKind) []UnresolvedCommand {
	if kind != report.MCPFile {
		return nil
	}
	var out []UnresolvedCommand
	for _, s := range commandSites(d, kind) {
		if all := strings.Join(append([]string{s.text}, s.args...), " "); namesPluginRoot(all) {
			out = append(out, UnresolvedCommand{Key: s.key, Line: s.line, Command: all, Reason: pluginFolderGuessed})
		}
	}
	return out
}
