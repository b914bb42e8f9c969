package main

// The shared gatherer end to end: each repository below goes through the
// App (the fake GitHub, its trees, contents and pull-request files) and
// through `shipgate diff` (a real git repository with real symlinks and
// gitlinks), and both must hold the change (never allow) and agree on the
// decision and the findings.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/app"
	"github.com/shipgate-app/shipgate/gather"
	"github.com/shipgate-app/shipgate/githubtest"
	"github.com/shipgate-app/shipgate/internal/redistest"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/render"
)

// gatherCase is one repository: the files of main and the changes of the
// pull request ("" deletes; githubtest.Symlink and githubtest.Submodule
// make links and gitlinks, in the fake and in git alike).
type gatherCase struct {
	name       string
	base, head map[string]string
	// fault, when set, is injected (all attempts) before the pull request
	// opens: the App must then fail the check, not pass it. The CLI reads
	// git and sees no fault.
	fault *githubtest.Fault
	// mayAllow: the case is in the corpus for agreement only.
	mayAllow bool
}

// copilotDirs names tools/agents as a folder of Copilot CLI custom agents;
// plainAgent is one that starts no server.
const (
	copilotDirs = "{\"agentDirectories\": [\"tools/agents\"]}\n"
	plainAgent  = "---\nname: helper\ndescription: helps\ntools: [\"view\"]\n---\nYou help.\n"
)

func gatherCases() []gatherCase {
	wide := settingsJSON(append(append([]string(nil), baseAllow...), "Bash(*)"), baseDeny)
	narrow := settingsJSON(baseAllow[:1], baseDeny)
	review := settingsJSON(append(append([]string(nil), baseAllow...), "Bash(git push:*)"), baseDeny)
	mcp := "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"npx\", \"args\": [\"-y\", \"x-server\"]}\n  }\n}\n"
	sub1, sub2 := strings.Repeat("1a", 20), strings.Repeat("2b", 20)
	loose := "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED:\n    action: block\n"
	return []gatherCase{
		{name: "settings.json is a symlink whose target the PR edits",
			base: map[string]string{"config/claude.json": baseSettings, ".claude/settings.json": githubtest.Symlink("../config/claude.json")},
			head: map[string]string{"config/claude.json": wide}},
		{name: ".claude is a symlink to another folder",
			base: map[string]string{"shared/claude/settings.json": baseSettings, ".claude": githubtest.Symlink("shared/claude")},
			head: map[string]string{"shared/claude/settings.json": review}},
		{name: "a skill added in the folder .claude links to",
			base: map[string]string{"shared/claude/settings.json": baseSettings, ".claude": githubtest.Symlink("shared/claude")},
			head: map[string]string{"shared/claude/skills/x/SKILL.md": "---\nname: x\ndescription: x\nallowed-tools: Bash(*)\n---\nDo it.\n"}},
		{name: ".claude becomes a symlink to a new folder holding a skill",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{".claude": githubtest.Symlink("tools/agent"), "tools/agent/skills/x/SKILL.md": "---\nname: x\ndescription: x\nallowed-tools: Bash(*)\n---\nDo it.\n"}},
		{name: ".claude becomes a symlink out of the repository",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{".claude": githubtest.Symlink("/home/dev/.claude")}},
		{name: "settings.json becomes a symlink out of the repository",
			base: map[string]string{".claude/settings.json": baseSettings},
			head: map[string]string{".claude/settings.json": githubtest.Symlink("../../outside/settings.json")}},
		// Folder symlinks whose name has no .claude segment (issue 10).
		{name: "a new symlink pkg -> vendor/x, which holds .claude/settings.json",
			base: map[string]string{"README.md": "# r\n", "vendor/x/.claude/settings.json": wide},
			head: map[string]string{"pkg": githubtest.Symlink("vendor/x")}},
		{name: "pkg retargeted from vendor/a to vendor/b, whose settings allow more",
			base: map[string]string{"vendor/a/.claude/settings.json": baseSettings, "vendor/b/.claude/settings.json": review, "pkg": githubtest.Symlink("vendor/a")},
			head: map[string]string{"pkg": githubtest.Symlink("vendor/b")}},
		{name: "a new symlink tools -> third/agent, with the .mcp.json the PR adds there",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{"tools": githubtest.Symlink("third/agent"), "third/agent/.mcp.json": mcp}},
		{name: "a new symlink sub/up -> .., the repository root",
			base: map[string]string{".claude/settings.json": baseSettings},
			head: map[string]string{"sub/up": githubtest.Symlink("..")}},
		{name: "a new folder symlink out of the repository",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{"pkg": githubtest.Symlink("/opt/agent")}},
		{name: "a new symlink to a plain folder", mayAllow: true,
			base: map[string]string{"README.md": "# r\n", "docs/a.md": "a\n"},
			head: map[string]string{"d": githubtest.Symlink("docs")}},
		{name: ".claude is a submodule the PR bumps",
			base: map[string]string{"README.md": "# r\n", ".claude": githubtest.Submodule(sub1)},
			head: map[string]string{".claude": githubtest.Submodule(sub2)}},
		{name: ".claude/Settings.json next to settings.json",
			base: map[string]string{".claude/settings.json": baseSettings},
			head: map[string]string{".claude/Settings.json": wide}},
		{name: ".CLAUDE/settings.json",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{".CLAUDE/settings.json": wide}},
		{name: ".MCP.json",
			base: map[string]string{"README.md": "# r\n"},
			head: map[string]string{".MCP.json": mcp}},
		{name: "the policy is loosened and its head GET fails",
			base: map[string]string{"README.md": "# r\n", ".github/shipgate.yml": loose},
			head: map[string]string{".github/shipgate.yml": "version: 1\n"},
			// Every contents GET after the base's policy (read first) fails,
			// retries included.
			fault: &githubtest.Fault{Method: "GET", PathPattern: routeContents, Status: http.StatusBadGateway, Times: 1000}},
		// Copilot CLI follows a symlinked custom agent in a folder
		// agentDirectories names (measured on 1.0.102): an edit of the
		// target alone changes the agent.
		{name: "a Copilot agent in an agentDirectories folder is a symlink whose target the PR edits",
			base: map[string]string{".github/copilot/settings.json": copilotDirs, "tools/agents/helper.md": githubtest.Symlink("../../docs/helper.md"), "docs/helper.md": plainAgent},
			head: map[string]string{"docs/helper.md": copilotAgent}},
		{name: "a Copilot agent symlink whose target is not Markdown",
			base: map[string]string{".github/copilot/settings.json": copilotDirs, "tools/agents/helper.md": githubtest.Symlink("../../docs/helper.txt"), "docs/helper.txt": plainAgent},
			head: map[string]string{"docs/helper.txt": copilotAgent}},
		{name: "an agentDirectories folder that is a symlink to another folder whose agent the PR edits",
			base: map[string]string{".github/copilot/settings.json": copilotDirs, "tools/agents": githubtest.Symlink("../shared/agents"), "shared/agents/helper.md": plainAgent},
			head: map[string]string{"shared/agents/helper.md": copilotAgent}},
		{name: "a folder of an agentDirectories folder that is a symlink whose agent the PR adds",
			base: map[string]string{".github/copilot/settings.json": copilotDirs, "tools/agents/team": githubtest.Symlink("../../shared/team"), "shared/team/README.txt": "team\n"},
			head: map[string]string{"shared/team/helper.md": copilotAgent}},
		// Agreement only.
		{name: "a plain narrowing", mayAllow: true,
			base: map[string]string{".claude/settings.json": baseSettings},
			head: map[string]string{".claude/settings.json": narrow}},
		{name: "a widening next to an unchanged local deny",
			base: map[string]string{".claude/settings.json": baseSettings, ".claude/settings.local.json": settingsJSON(nil, []string{"Bash(git push:*)"})},
			head: map[string]string{".claude/settings.json": review}, mayAllow: true},
		{name: "a policy raised", mayAllow: true,
			base: map[string]string{".claude/settings.json": baseSettings},
			head: map[string]string{".github/shipgate.yml": loose, ".mcp.json": mcp}},
		{name: "docs only", mayAllow: true,
			base: map[string]string{".claude/settings.json": baseSettings},
			head: map[string]string{"docs/a.md": "a\n"}},
	}
}

// TestE2EGatherAppAndCLI runs every gather case through the App and the
// CLI: neither may allow what the case holds, and the two agree.
func TestE2EGatherAppAndCLI(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	// Warm the organisation default's cache, so a fault below meets the
	// pull request's own reads.
	env.repo("warm", map[string]string{"README.md": "# w\n"})
	warm := env.openPR("warm", "w", map[string]string{"docs/w.md": "w\n"})
	env.waitCompleted("warm", warm.HeadSHA, 1)
	for i, c := range gatherCases() {
		name := fmt.Sprintf("g%d", i)
		t.Run(c.name, func(t *testing.T) {
			// The App.
			env.repo(name, c.base)
			if c.fault != nil {
				// A first pull request on the same base caches what the base
				// says (its tree, its policy): the fault meets the head's reads.
				first := env.openPR(name, "first", map[string]string{"docs/first.md": "f\n"})
				env.waitCompleted(name, first.HeadSHA, 1)
				env.gh.Inject(*c.fault)
				defer env.gh.ClearFaults()
			}
			pr := env.openPR(name, "change", c.head)
			run := env.waitCompleted(name, pr.HeadSHA, 1)
			// The CLI.
			rep := cliReport(t, c.base, c.head)
			t.Logf("App: %s %q; CLI: %s %v", run.Conclusion, run.Title, rep.Decision, findingIDs(rep))
			if !c.mayAllow {
				if run.Conclusion == "success" {
					t.Errorf("App: %s %q, the change must not pass\n%s", run.Conclusion, run.Title, run.Summary)
				}
				if rep.Decision == "allow" && c.fault == nil {
					t.Errorf("CLI: allow, the change must not pass: %+v", rep)
				}
			}
			if c.fault != nil {
				if run.Conclusion != "failure" || !strings.Contains(run.Title, "Could not complete") {
					t.Errorf("App with the head policy unreadable: %s %q, want a failed check", run.Conclusion, run.Title)
				}
				if rep.Decision == "allow" {
					t.Errorf("CLI: a loosened policy passed")
				}
				return
			}
			if want := conclusionOf(rep.Decision); run.Conclusion != want {
				t.Errorf("App %s, CLI %s (App %s expected)", run.Conclusion, rep.Decision, want)
			}
			for _, f := range rep.Findings {
				if !strings.Contains(run.Summary, strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-")) {
					t.Errorf("the CLI's finding %s on %s is not in the App's summary:\n%s", f.CheckID, f.Path, run.Summary)
				}
			}
		})
	}
}

func conclusionOf(decision string) string {
	switch decision {
	case "block":
		return "failure"
	case "require_review":
		return "action_required"
	}
	return "success"
}

type cliFinding struct {
	CheckID string `json:"check_id"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
}

type cliReportJSON struct {
	Decision string          `json:"decision"`
	Changes  json.RawMessage `json:"changes"`
	Findings []cliFinding    `json:"findings"`
}

func findingIDs(r cliReportJSON) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-")+"@"+f.Path)
	}
	sort.Strings(out)
	return out
}

// cliReport builds the case as a real git repository (main, then a
// feature branch with the change committed) and runs shipgate diff on it.
func cliReport(t *testing.T, base, head map[string]string) cliReportJSON {
	t.Helper()
	dir, git := gitRepo(t)
	materialise(t, dir, git, base)
	git("commit", "-q", "--allow-empty", "-m", "base")
	git("checkout", "-q", "-b", "feature")
	materialise(t, dir, git, head)
	git("commit", "-q", "--allow-empty", "-m", "change")
	code, out, errs := runCLI("diff", "--repo", dir, "--base", "main", "--format", "json")
	if code != 0 && code != 1 {
		t.Fatalf("shipgate diff: exit %d\n%s\n%s", code, out, errs)
	}
	var r cliReportJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("shipgate diff output: %v\n%s\n%s", err, out, errs)
	}
	return r
}

// materialise writes files into a work tree and stages everything:
// contents, symlinks, deletions, and gitlinks (staged last: a submodule
// that is not checked out has no folder, which git add -A would stage as
// its deletion).
func materialise(t *testing.T, dir string, git func(...string), files map[string]string) {
	t.Helper()
	defer func() {
		git("add", "-A")
		for p, c := range files {
			if strings.HasPrefix(c, githubtest.Submodule("")) {
				git("update-index", "--add", "--cacheinfo", "160000,"+strings.TrimPrefix(c, githubtest.Submodule(""))+","+p)
			}
		}
	}()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		c := files[p]
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.RemoveAll(full)
		switch {
		case c == "":
			git("rm", "-q", "--cached", "--ignore-unmatch", "-r", p)
			continue
		case strings.HasPrefix(c, githubtest.Symlink("")):
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(strings.TrimPrefix(c, githubtest.Symlink("")), full); err != nil {
				t.Skipf("symlinks unsupported: %v", err)
			}
		case strings.HasPrefix(c, githubtest.Submodule("")):
			git("rm", "-q", "--cached", "--ignore-unmatch", "-r", p)
		default:
			writeFile(t, dir, p, c)
		}
	}
}

// TestE2ECallBudgetRedis counts GitHub API calls per evaluation with the
// shared (Redis) queue, where the worker also looks for a run another
// replica left in progress on the head: a pull request that touches no
// agent-config file costs at most 3, one that touches a settings file at
// most 6, once the base's tree and policy are cached. (The gatherer reads
// the base's tree once per base commit: it says which files exist, so an
// absent policy or sibling costs nothing.)
func TestE2ECallBudgetRedis(t *testing.T) {
	if redistest.Binary() == "" {
		if os.Getenv(redistest.RequireEnv) != "" {
			t.Fatal("redis-server not found")
		}
		t.Skip("redis-server not found")
	}
	t.Parallel()
	rs := redistest.Start(t)
	env := newE2E(t, func(s *e2eSetup) { s.cfg.Redis.URL = rs.URL() })
	const path = ".claude/settings.json"
	env.repo("budget", map[string]string{path: baseSettings, "README.md": "# budget\n"})
	widen := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm *)"), baseDeny)
	narrow := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test)"), baseDeny)
	cases := []struct {
		name  string
		files map[string]string
		max   int
	}{
		{"first PR (cold: token, tree, org default)", map[string]string{"docs/a.md": "a\n"}, 0},
		{"no agent-config file", map[string]string{"docs/b.md": "b\n"}, 3},
		// +2: the widening's proven narrower rule, posted as a review
		// comment (the PR's comments listed once, so a re-run does not
		// post it twice, and the comment itself).
		{"one settings file, with a suggestion", map[string]string{path: widen}, 8},
		{"one settings file, base file cached", map[string]string{path: narrow}, 6},
	}
	for i, c := range cases {
		env.gh.ResetCounts()
		pr := env.openPR("budget", fmt.Sprintf("b%d", i), c.files)
		env.waitCompleted("budget", pr.HeadSHA, 1)
		env.waitJobs(i + 1)
		n, detail := env.apiCalls()
		t.Logf("redis queue, %s: %d GitHub API calls: %s", c.name, n, detail)
		if c.max > 0 && n > c.max {
			t.Errorf("%s: %d GitHub API calls, want at most %d: %s", c.name, n, c.max, detail)
		}
	}
}

// TestE2EHookScriptBudget: in a repository whose unchanged settings run
// scripts outside .claude (one named by a path, one by a command Shipgate
// cannot resolve), a pull request that touches unrelated files stays allow
// in both front ends and costs the App no more calls than in a repository
// without hooks (what the base's settings run, and what their scripts
// load, is cached by blob); one that edits a script, or a module the
// script imports, is held for review within the one-settings-file budget.
func TestE2EHookScriptBudget(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	settings := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [\n" +
		"        {\"type\": \"command\", \"command\": \"python3 scripts/guard.py\"},\n" +
		"        {\"type\": \"command\", \"command\": \"$(git rev-parse --show-toplevel)/tools/check.sh\"}\n      ]}\n    ]\n  }\n}\n"
	base := map[string]string{".claude/settings.json": settings, "scripts/guard.py": "import sys\nimport policy\nsys.exit(policy.code())\n",
		"scripts/policy.py": "def code():\n    return 0\n",
		"tools/check.sh":    "#!/bin/sh\nexit 0\n", "src/main.go": "package main\n", "README.md": "# r\n"}
	env.repo("hooks", base)
	cases := []struct {
		name     string
		files    map[string]string
		decision string
		max      int
	}{
		{"first PR (cold: token, tree, org default, settings)", map[string]string{"src/main.go": "package main\n\nfunc main() {}\n"}, "allow", 0},
		{"unrelated files (README.md, src/main.go)", map[string]string{"README.md": "# r\nmore\n", "src/main.go": "package main // x\n"}, "allow", 3},
		{"an unrelated file in the folder of a script", map[string]string{"scripts/README.md": "x\n", "tools/other.sh": "#!/bin/sh\n"}, "allow", 3},
		{"the script a PreToolUse hook runs", map[string]string{"scripts/guard.py": "print('{\"decision\": \"approve\"}')\n"}, "require_review", 6},
		{"the module the hook script imports", map[string]string{"scripts/policy.py": "def code():\n    print('{\"decision\": \"approve\"}')\n    return 0\n"}, "require_review", 6},
		{"the script an unresolved command names, deleted", map[string]string{"tools/check.sh": ""}, "require_review", 6},
	}
	for i, c := range cases {
		env.gh.ResetCounts()
		pr := env.openPR("hooks", fmt.Sprintf("h%d", i), c.files)
		run := env.waitCompleted("hooks", pr.HeadSHA, 1)
		env.waitJobs(i + 1)
		n, detail := env.apiCalls()
		t.Logf("%s: %s %q; %d GitHub API calls: %s", c.name, run.Conclusion, run.Title, n, detail)
		if run.Conclusion != conclusionOf(c.decision) {
			t.Errorf("%s: App %s %q, want %s\n%s", c.name, run.Conclusion, run.Title, c.decision, run.Summary)
		}
		if c.max > 0 && n > c.max {
			t.Errorf("%s: %d GitHub API calls, want at most %d: %s", c.name, n, c.max, detail)
		}
		if rep := cliReport(t, base, c.files); rep.Decision != c.decision {
			t.Errorf("%s: CLI %s, want %s: %v", c.name, rep.Decision, c.decision, findingIDs(rep))
		}
	}
}

// corpus generates repositories from the building blocks the gatherer
// must handle: settings pairs (widening, narrowing, respelling, deleting),
// a local sibling that shadows, policy changes, symlinks (a file, a
// folder), case variants and .mcp.json. Deterministic: the same corpus on
// every run.
func corpus() []gatherCase {
	wide := settingsJSON(append(append([]string(nil), baseAllow...), "Bash(git push:*)"), baseDeny)
	narrow := settingsJSON(baseAllow[:1], baseDeny)
	respelled := settingsJSON(replaced(baseAllow, "Bash(npm test:*)", "Bash(npm test *)"), baseDeny)
	shadow := settingsJSON(nil, []string{"Bash(git push:*)"})
	mcp := "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"node\", \"args\": [\"srv.js\"]}\n  }\n}\n"
	pol := "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED:\n    action: block\n"
	hooked := "{\n  \"permissions\": {\"allow\": [\"Bash(npm test:*)\"]},\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [\n" +
		"    {\"type\": \"command\", \"command\": \"python3 scripts/guard.py\"},\n" +
		"    {\"type\": \"command\", \"command\": \"$(git rev-parse --show-toplevel)/tools/check.sh\"}]}]}\n}\n"
	type layout struct {
		name string
		// place puts the project's settings at base: the files, and the
		// path a change to the settings is written to.
		files  map[string]string
		target string
	}
	layouts := []layout{
		{"plain", map[string]string{".claude/settings.json": baseSettings}, ".claude/settings.json"},
		{"nested", map[string]string{"pkg/.claude/settings.json": baseSettings}, "pkg/.claude/settings.json"},
		{"file symlink", map[string]string{"cfg/claude.json": baseSettings, ".claude/settings.json": githubtest.Symlink("../cfg/claude.json")}, "cfg/claude.json"},
		{"folder symlink", map[string]string{"shared/settings.json": baseSettings, ".claude": githubtest.Symlink("shared")}, "shared/settings.json"},
		{"with a local sibling", map[string]string{".claude/settings.json": baseSettings, ".claude/settings.local.json": shadow}, ".claude/settings.json"},
		{"with a policy", map[string]string{".claude/settings.json": baseSettings, ".github/shipgate.yml": pol}, ".claude/settings.json"},
		{"hook script outside .claude", map[string]string{".claude/settings.json": hooked, "scripts/guard.py": "exit(0)\n"}, ".claude/settings.json"},
		{"folder symlink without .claude in its name", map[string]string{"vendor/x/.claude/settings.json": baseSettings, "pkg": githubtest.Symlink("vendor/x")}, "vendor/x/.claude/settings.json"},
	}
	edits := []struct {
		name string
		head func(l layout) map[string]string
	}{
		{"widen", func(l layout) map[string]string { return map[string]string{l.target: wide} }},
		{"narrow", func(l layout) map[string]string { return map[string]string{l.target: narrow} }},
		{"respell", func(l layout) map[string]string { return map[string]string{l.target: respelled} }},
		{"delete", func(l layout) map[string]string { return map[string]string{l.target: ""} }},
		{"case variant", func(l layout) map[string]string { return map[string]string{".CLAUDE/settings.json": wide} }},
		{"mcp server", func(l layout) map[string]string { return map[string]string{".MCP.json": mcp} }},
		{"hook script edited", func(l layout) map[string]string { return map[string]string{"scripts/guard.py": "print(1)\n"} }},
		{"hook script deleted", func(l layout) map[string]string { return map[string]string{"scripts/guard.py": ""} }},
		{"unresolved hook's script added", func(l layout) map[string]string { return map[string]string{"tools/check.sh": "exit 0\n"} }},
		{"folder link added", func(l layout) map[string]string { return map[string]string{"lnk": githubtest.Symlink("vendor/x")} }},
		{"unrelated file", func(l layout) map[string]string { return map[string]string{"src/main.go": "package main\n"} }},
		{"policy loosened", func(l layout) map[string]string {
			return map[string]string{".github/shipgate.yml": "version: 1\n", l.target: respelled}
		}},
	}
	var out []gatherCase
	for _, l := range layouts {
		for _, e := range edits {
			out = append(out, gatherCase{name: l.name + "/" + e.name, base: l.files, head: e.head(l), mayAllow: true})
		}
	}
	return out
}

// TestE2EGatherCorpus runs the corpus through the App's gatherer over the
// fake GitHub (the real go-github client, an installation token) and
// through shipgate diff over real git, and requires the same report:
// decision, changes and findings, byte for byte in the JSON contract. The
// App's check run must conclude as that decision says.
func TestE2EGatherCorpus(t *testing.T) {
	t.Parallel()
	env := newE2E(t)
	clients, err := app.NewClients(env.srv.cfg.AppID, env.srv.cfg.PrivateKey, env.gh.URL()+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	env.repo("corpus-warm", map[string]string{"README.md": "# w\n"})
	inst, _, err := clients.App().Apps.FindRepositoryInstallation(context.Background(), e2eOwner, "corpus-warm")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := clients.Installation(inst.GetID())
	if err != nil {
		t.Fatal(err)
	}
	cases := corpus()
	for i, c := range cases {
		name := fmt.Sprintf("c%d", i)
		t.Run(c.name, func(t *testing.T) {
			env.repo(name, c.base)
			pr := env.openPR(name, "change", c.head)
			run := env.waitCompleted(name, pr.HeadSHA, 1)

			src := &gather.GitHub{Client: cl, Owner: e2eOwner, Repo: name, PR: pr.Number, BaseSHA: pr.BaseSHA, HeadSHA: pr.HeadSHA}
			res, err := gather.Gather(context.Background(), src, gather.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep := judge.Compare(res.Input)
			appJSON, err := render.JSON(rep)
			if err != nil {
				t.Fatal(err)
			}
			cliJSON := cliJSONOut(t, c.base, c.head)
			type contract struct {
				Decision string          `json:"decision"`
				Changes  json.RawMessage `json:"changes"`
				Findings json.RawMessage `json:"findings"`
			}
			var a, b contract
			if err := json.Unmarshal(appJSON, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(cliJSON), &b); err != nil {
				t.Fatal(err)
			}
			if a.Decision != b.Decision || !bytes.Equal(a.Changes, b.Changes) || !bytes.Equal(a.Findings, b.Findings) {
				t.Errorf("the App's gatherer and shipgate diff disagree:\nApp: %s\nCLI: %s", appJSON, cliJSON)
			}
			t.Logf("%s: %s, %d bytes of changes, %d of findings", c.name, b.Decision, len(b.Changes), len(b.Findings))
			if want := conclusionOf(b.Decision); run.Conclusion != want {
				t.Errorf("App's check run %s %q, the report says %s", run.Conclusion, run.Title, b.Decision)
			}
		})
	}
}

// cliJSONOut is shipgate diff's JSON report on the case built in git.
func cliJSONOut(t *testing.T, base, head map[string]string) string {
	t.Helper()
	dir, git := gitRepo(t)
	materialise(t, dir, git, base)
	git("commit", "-q", "--allow-empty", "-m", "base")
	git("checkout", "-q", "-b", "feature")
	materialise(t, dir, git, head)
	git("commit", "-q", "--allow-empty", "-m", "change")
	code, out, errs := runCLI("diff", "--repo", dir, "--base", "main", "--format", "json")
	if code != 0 && code != 1 {
		t.Fatalf("shipgate diff: exit %d\n%s\n%s", code, out, errs)
	}
	return out
}
