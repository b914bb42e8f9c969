package copilot

import (
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
)

// Custom agents in the folders agentDirectories names, as Copilot CLI
// 1.0.102 loads them (measured: internal/conformance
// TestCopilotAgentDirectoriesRuntime, `copilot -p` whose model delegates
// to the agent with the task tool; the agent's MCP server touches a
// marker file):
//
//   - the setting is read from a repository's .github/copilot/settings.json
//     and settings.local.json (a list set in settings.local.json replaces
//     the other's: an empty one there loads none; the front ends read the
//     union of both, the wider);
//   - a value is a folder relative to the repository's root, cleaned
//     lexically (`./tools/agents/` and `../<checkout>/tools/agents` load
//     tools/agents); an absolute path (even one inside the repository),
//     `~/…` and a folder outside the repository load nothing; `*` is not a
//     glob; a string instead of a list loads nothing; `.` is the whole
//     repository;
//   - every `*.md` under the folder, at any depth, is an agent
//     (`_x.md` too; `.MD`, `.txt` are not); a symlink inside the
//     repository is followed, one leading out of it is not.

// AgentDirs are the folders a settings file's agentDirectories name,
// relative to the repository's root ("" is the root itself). ok is false
// when the file cannot be read as JSON: the caller then fails closed
// (every folder). Notes say which values were not followed, and why.
func AgentDirs(data []byte) (dirs, notes []string, ok bool) {
	root, _, err := jsonc.Parse(data, jsonc.Options{})
	if err != nil || root.Kind() != jsonpos.Object {
		return nil, nil, false
	}
	v := root.Get("agentDirectories")
	if v == nil || v.Kind() != jsonpos.Array {
		return nil, nil, true // absent, or not a list: loads nothing (measured for a string)
	}
	for _, e := range v.Elements() {
		if e.Kind() != jsonpos.String {
			continue
		}
		d, why := AgentDir(e.Text())
		if why != "" {
			notes = append(notes, why)
			continue
		}
		dirs = append(dirs, d)
	}
	return dirs, notes, true
}

// AgentDir resolves one agentDirectories value to a folder of the
// repository ("" is the root). why, when set, says why it names none:
// Copilot CLI loaded no agent from an absolute path, a home path or a
// folder outside the repository (measured). A value that leaves the
// repository and comes back (`../<checkout>/tools/agents`) depends on
// the checkout's folder name, which Shipgate cannot know: it is read as
// the folder it would name on the way back in (tools/agents), the wider
// reading.
func AgentDir(v string) (dir, why string) {
	switch {
	case v == "":
		return "", "an empty agentDirectories entry names no folder"
	case strings.HasPrefix(v, "/"), strings.HasPrefix(v, "~"):
		return "", "agentDirectories entry " + v + " is not relative to the repository: Copilot CLI " + CopilotVersion + " loaded no agent from such a folder (measured), and Shipgate cannot see it"
	}
	c := path.Clean(v)
	up := 0
	for c == ".." || strings.HasPrefix(c, "../") {
		up++
		c = strings.TrimPrefix(strings.TrimPrefix(c, ".."), "/")
	}
	if up > 0 {
		segs := strings.Split(c, "/")
		if c == "" || len(segs) <= up {
			return "", "agentDirectories entry " + v + " is outside the repository: Copilot CLI " + CopilotVersion + " loaded no agent from such a folder (measured), and Shipgate cannot see it"
		}
		c = strings.Join(segs[up:], "/")
	}
	if c == "." {
		c = ""
	}
	return c, ""
}

// InAgentDir reports whether p is a custom agent file of one of dirs:
// a .md file under it, at any depth.
func InAgentDir(p string, dirs []string) bool {
	if !strings.HasSuffix(p, ".md") {
		return false
	}
	for _, d := range dirs {
		if d == "" || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// AgentAs is the path an agent file of an agentDirectories folder is
// classified by (report.File.As): a path under .github/agents, so the
// engine reads it with this adapter, as a custom agent (Read takes any
// .md it is given as one).
func AgentAs(p string) string { return ".github/agents/" + p }
