package judge

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles"
)

// surfaceExempt are the traced paths no agent's permissions come from,
// each with why Shipgate need not classify it: instructions (text the
// model reads, which grants nothing), git's own files, and the project
// folder itself.
var surfaceExempt = []struct{ pattern, why string }{
	{".git", "git's own repository data (the agents read HEAD and config to find the repository)"},
	{".git/**", "git's own repository data"},
	{"**/.git", "git's own: Codex looks for a repository root in each folder it lists"},
	{"**/.git/**", "git's own"},
	{"HEAD", "git's own: `git rev-parse HEAD`, which Codex and Copilot CLI run, stats a worktree file named HEAD to tell a revision from a path (traced with each process's working directory)"},
	{".aws", "Codex looks for AWS credentials and profiles; a repository folder of that name grants the agent nothing Shipgate reviews"},
	{".codex/skills", "Codex skills: instructions, and scripts that run only through the shell tool (whose rules and sandbox are reviewed)"},
	{"**/scripts", "a skill's scripts folder: they run only through the shell tool"},
	{"docs", "the folder of a file CLAUDE.md imports (instructions)"},
	{"GEMINI.md", "instructions"},
	{".gitignore", "git's ignore list (agents read it to skip files; it grants nothing)"},
	{"**/.gitignore", "git's ignore list"},
	{"CLAUDE.md", "instructions: text the model reads, no permission"},
	{"CLAUDE.local.md", "instructions"},
	{"AGENTS.md", "instructions"},
	{"AGENTS.override.md", "instructions"},
	{"docs/extra.md", "instructions: a file CLAUDE.md imports (@docs/extra.md) is text for the model"},
	{".github/copilot-instructions.md", "instructions"},
	{".github/instructions", "instructions (folder)"},
	{".github/instructions/**", "instructions"},
	{".github/prompts", "prompt files: text"},
	{".github/copilot", "the folder of the settings files (classified)"},
	{".github", "the folder of Copilot CLI's files (classified)"},
	{".agents", "the folder of the skills folder"},
	{"tools", "the folder of a skills folder skillDirectories names"},
	{"README.md", "read by the Read tool call of the trace (a project file)"},
	{"package.json", "the project's manifest, read to detect the project type (no permission)"},
	{"node_modules", "the project's dependencies folder (probed for tools)"},
	{"node_modules/**", "the project's dependencies"},
	// At a tool call (the *-tool.txt traces, sessions against a fake model).
	{"**/.ignore", "ripgrep's ignore file: OpenCode's file walker (the snapshot it takes around a tool call) reads it in every folder; it grants nothing"},
	{"**/.gitattributes", "git's attributes file: OpenCode's snapshot (git add of the worktree) reads it in every folder"},
	{"**/.jj", "Jujutsu's repository folder: OpenCode looks for one in every folder it walks (a VCS root)"},
	{"testing", "a folder OpenCode's runtime probes when its shell tool starts; no file in it is read (the trace lists a stat)"},
	{"**/info/exclude", "git's own exclude file, read by OpenCode's snapshot"},
	{".github/PULL_REQUEST_TEMPLATE", "pull request templates (Copilot CLI reads them for its PR tools): text"},
	{"**/pull_request_template.md", "a pull request template: text"},
	{".github/pull_request_template.md", "a pull request template: text"},
	{".github/allowed_models.txt", "Copilot CLI's list of models the repository allows: it narrows which model runs, never what a tool may do"},
	{".geminiignore", "Gemini CLI's ignore list for its file tools: it hides files, grants nothing"},
	{".gemini/skills", "Gemini CLI 0.61.0 skills: its loader (loadSkillFromFile) keeps only name, description and body, and activating one adds its folder, inside the repository, to the workspace: instructions, with scripts that run only through the shell tool (whose rules are reviewed)"},
	{".gemini/skills/**", "Gemini CLI 0.61.0 skills: its loader (loadSkillFromFile) keeps only name, description and body, and activating one adds its folder, inside the repository, to the workspace: instructions, with scripts that run only through the shell tool (whose rules are reviewed)"},
}

func surfaceExempted(p string) (string, bool) {
	for _, e := range surfaceExempt {
		if ok, _ := path.Match(e.pattern, p); ok {
			return e.why, true
		}
		if seg, ok := strings.CutPrefix(e.pattern, "**/"); ok && strings.HasSuffix(seg, "/**") && strings.Contains("/"+p, "/"+strings.TrimSuffix(seg, "**")) {
			return e.why, true
		}
		if base, ok := strings.CutSuffix(e.pattern, "/**"); ok && strings.HasPrefix(p, base+"/") {
			return e.why, true
		}
		if base, ok := strings.CutPrefix(e.pattern, "**/"); ok && path.Base(p) == base {
			return e.why, true
		}
	}
	return "", false
}

// surfaceProbes are files of each kind an agent keeps in a folder: a
// traced folder is classified when a file of one of them in it is.
var surfaceProbes = []string{"x.md", "x.json", "x.ts", "x.js", "x.rules", "x.toml", "x.sh", "settings.json", "config.toml", "cli.json", "hooks.json", "mcp.json"}

// skillProbes count for a folder named skills or one inside it only: any
// SKILL.md is a Copilot CLI skill candidate, so elsewhere they would make
// every folder classified.
var skillProbes = []string{"x/SKILL.md", "SKILL.md"}

// TestTracedSurfaceClassified holds Shipgate to the pinned traces of the
// agents' binaries (testdata/surface, recorded with strace by
// internal/conformance's TestTraceSurfaces, `make surfaces`): every path
// an agent opens, stats or lists in a repository is one Shipgate
// classifies (a folder: a file of one of the kinds the agents keep in
// folders), or one exempted above with the reason.
func TestTracedSurfaceClassified(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "surface", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pinned traces in testdata/surface: %v", err)
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		n := 0
		for sc.Scan() {
			p := strings.TrimSpace(sc.Text())
			if p == "" || strings.HasPrefix(p, "#") {
				continue
			}
			n++
			if a, _, _ := agentfiles.ClassifyAgent(p, nil); a != "" {
				continue
			}
			if _, ok := surfaceExempted(p); ok {
				continue
			}
			folder := false
			probes := surfaceProbes
			if path.Base(p) == "skills" || path.Base(path.Dir(p)) == "skills" {
				probes = append(append([]string(nil), probes...), skillProbes...)
			}
			for _, q := range probes {
				if a, _, _ := agentfiles.ClassifyAgent(path.Join(p, q), nil); a != "" {
					folder = true
					break
				}
			}
			if !folder {
				t.Errorf("%s: the agent reads %s, which Shipgate does not classify (classify it in agentfiles/agent_*.go or exempt it here with the reason)", filepath.Base(f), p)
			}
		}
		fh.Close()
		if n == 0 {
			t.Errorf("%s lists no path", f)
		}
	}
}
