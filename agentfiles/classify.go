package agentfiles

import (
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// Classify says whether a repository path is an agent-config file Shipgate
// reviews, and its scope: for Claude Code the directory it would be
// started in for it ("" for the repository root). It asks the adapter
// registry (adapter.go; ClassifyAgent also names the agent). Claude Code's
// settings files are `.claude/settings.json` and
// `.claude/settings.local.json` at the root or in any directory;
// `.mcp.json` likewise. A policy may watch more files (read as settings
// when they end in .json) and ignore some.
func Classify(p string, pol *policy.Policy) (report.FileKind, string) {
	_, k, s := ClassifyAgent(p, pol)
	return k, s
}

// classifyClaude is Claude Code's part of Classify (p cleaned; pol may be
// nil).
func classifyClaude(p string, pol *policy.Policy) (report.FileKind, string) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == ".mcp.json":
		return report.MCPFile, dir
	case (base == "settings.json" || base == "settings.local.json") && (dir == ".claude" || strings.HasSuffix(dir, "/.claude")):
		return report.SettingsFile, strings.TrimSuffix(strings.TrimSuffix(dir, ".claude"), "/")
	case frontmatterPath(dir, base) != report.NotAgentConfig:
		k := frontmatterPath(dir, base)
		return k, frontmatterScope(dir)
	case pol.Watched(p) && strings.HasSuffix(base, ".json"):
		return report.SettingsFile, "watched:" + p
	case inClaudeFolder(dir) && !configSpelledOtherwise(dir, base):
		// Any other file of a .claude folder (.claude/hooks/check.sh,
		// .claude/statusline.sh, a skill's scripts): a candidate script.
		// The engine reports it only when a command of the project's
		// settings (or a skill's or subagent's hooks) runs it; reading it
		// makes the front ends read that project's settings too.
		return report.ScriptFile, frontmatterScope(dir + "/x")
	}
	return report.NotAgentConfig, ""
}

// Pathspecs are git pathspecs matching every file Classify may accept
// without a policy (every registered agent's), for tools that list
// changed files (shipgate diff), plus the policy's watched paths.
func Pathspecs(pol *policy.Policy) []string {
	var specs []string
	for _, a := range adapters {
		specs = append(specs, a.Pathspecs()...)
	}
	if pol != nil {
		for _, w := range pol.Paths.Watch {
			specs = append(specs, ":(glob)"+w.Value)
		}
	}
	return specs
}

// frontmatterPath classifies a Markdown file under a .claude folder:
// .claude/skills/**/SKILL.md, .claude/commands/**/*.md,
// .claude/agents/**/*.md (Claude Code's skill, command and subagent
// folders; deeper folders are read too, failing closed on discovery rules
// Shipgate does not model).
func frontmatterPath(dir, base string) report.FileKind {
	if !strings.HasSuffix(base, ".md") {
		return report.NotAgentConfig
	}
	segs := strings.Split(dir, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] != ".claude" {
			continue
		}
		switch segs[i+1] {
		case "skills":
			if base == "SKILL.md" && len(segs) > i+2 {
				return report.SkillFile
			}
		case "commands":
			return report.CommandFile
		case "agents":
			return report.SubagentFile
		}
		return report.NotAgentConfig
	}
	return report.NotAgentConfig
}

// frontmatterScope is the project folder of a skill, command or subagent
// file: the folder holding its .claude (the innermost one).
func frontmatterScope(dir string) string {
	segs := strings.Split(dir, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == ".claude" {
			return strings.Join(segs[:i], "/")
		}
	}
	return ""
}

// inClaudeFolder reports whether a directory is, or is inside, a .claude
// folder — not inside .claude/worktrees, where Claude Code keeps whole
// checkouts of its own.
func inClaudeFolder(dir string) bool {
	d := "/" + dir + "/"
	i := strings.LastIndex(d, "/.claude/")
	return i >= 0 && !strings.HasPrefix(d[i:], "/.claude/worktrees/")
}

// configSpelledOtherwise reports whether a file is an agent-config file
// spelled in another case (.claude/Settings.json, .claude/skills/x/skill.md):
// not a script — the front ends read it as the file Claude Code opens on a
// case-insensitive file system.
func configSpelledOtherwise(dir, base string) bool {
	ld, lb := strings.ToLower(dir), strings.ToLower(base)
	switch {
	case lb == "settings.json" || lb == "settings.local.json" || lb == ".mcp.json":
		return true
	case lb == "skill.md" && frontmatterPath(ld, "SKILL.md") == report.SkillFile:
		return true
	}
	return frontmatterPath(ld, lb) != report.NotAgentConfig
}

// PolicyOptions tells the policy loader the engine's check IDs and their
// default actions, and the agents a policy may scope by, so a policy
// naming an unknown check or agent, or lowering a check, is refused with
// the line.
func PolicyOptions() policy.Options {
	o := policy.Options{Checks: map[string]policy.Action{}, Agents: AgentNames()}
	for _, c := range report.Catalogue {
		o.Checks[c.ID] = c.Action
	}
	return o
}
