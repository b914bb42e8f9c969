package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Driver runs the pinned Claude Code binary offline and reads its
// decisions.
type Driver struct {
	// Binary is the path of the claude executable.
	Binary string
	// Timeout bounds one session (default five minutes).
	Timeout time.Duration
	// KeepDir keeps each session's throwaway folder (for debugging).
	KeepDir bool
	// Wrap, when set, is a command the binary runs under (strace, for the
	// traced surface: surface.go).
	Wrap []string
}

// Layout is where a session's throwaway folders are. A call's path and a
// rule's text may name them through the placeholders $PROJ, $HOME and
// $EXTRA, which Expand replaces.
type Layout struct {
	Root  string // the session's folder
	Home  string // HOME
	Proj  string // the project (the working directory, trusted)
	Extra string // a folder outside the project, for additionalDirectories
	Stubs string // the stub executables, first on PATH
}

// Expand replaces the layout's placeholders in s.
func (l Layout) Expand(s string) string {
	return strings.NewReplacer("$PROJ", l.Proj, "$HOME", l.Home, "$EXTRA", l.Extra).Replace(s)
}

// Result is what Claude Code did with one call of a session.
type Result struct {
	Decision Decision
	Text     string // the tool_result text, trimmed
}

// SessionResult is what one session measured.
type SessionResult struct {
	Results []Result // one per call, in order
	Layout  Layout   // where the session ran (the folders are gone unless KeepDir)
	Tools   []string // the tools Claude Code offered the model
	// SubResults are the decisions of Session.SubCalls, one per call, and
	// SubTools the tools offered to the subagent.
	SubResults []Result
	SubTools   []string
	Elapsed    time.Duration
	Requests   int
	Stderr     string
}

// stubMarker starts every line a stub prints, so a command that ran is
// told from one that was refused, and a command that ran the real
// executable instead of the stub is caught.
const stubMarker = "SHIPGATE-STUB-RAN"

// fileMarker is the content of every file a Read call may read.
const fileMarker = "SHIPGATE-FILE-CONTENT"

// Run asks Claude Code for its decision on every call of the session.
func (d Driver) Run(ctx context.Context, s Session) (SessionResult, error) {
	var out SessionResult
	root, err := os.MkdirTemp("", "shipgate-cc-")
	if err != nil {
		return out, fmt.Errorf("conformance: session folder: %w", err)
	}
	if !d.KeepDir {
		defer os.RemoveAll(root)
	}
	if git := gitAbove(root); git != "" {
		return out, fmt.Errorf("conformance: %s exists above the session folder %s: Claude Code %s takes its folder for the session's repository, finds it untrusted and drops every project allow rule (\"Dropped … project-scoped permissions.allow entry — workspace not yet trusted\" in its debug log), so every decision would measure that; remove it (a stray folder an earlier session made?) and run again",
			git, root, ClaudeCodeVersion)
	}
	lay := Layout{Root: root, Home: filepath.Join(root, "home"), Proj: filepath.Join(root, "proj"),
		Extra: filepath.Join(root, "extra"), Stubs: filepath.Join(root, "stubs")}
	out.Layout = lay
	if err := prepare(lay, s); err != nil {
		return out, err
	}
	for p, data := range s.Files {
		full := filepath.Join(lay.Proj, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return out, fmt.Errorf("conformance: %w", err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			return out, fmt.Errorf("conformance: %w", err)
		}
	}
	uses := make([]ToolUse, len(s.Calls))
	for i, c := range s.Calls {
		uses[i] = toolUse(lay, i, c)
	}
	var warm *ToolUse
	args := append([]string{"-p", "go", "--output-format", "json"}, s.Args...)
	if s.MCP {
		cfg, err := writeMCP(lay)
		if err != nil {
			return out, err
		}
		args = append(args, "--mcp-config", cfg, "--strict-mcp-config")
		// Reading a file of the project needs no permission in any mode
		// the MCP batches set, and no rule of theirs names Read.
		warm = &ToolUse{Name: "Read", Input: map[string]any{"file_path": filepath.Join(lay.Proj, "README.md")}}
	}
	api, err := newFakeAPI(uses, warm)
	if err != nil {
		return out, err
	}
	subUses := make([]ToolUse, len(s.SubCalls))
	for i, c := range s.SubCalls {
		subUses[i] = toolUse(lay, i, c)
		subUses[i].ID = fmt.Sprintf("toolu_sub%06d", i)
	}
	if len(subUses) > 0 {
		api.sub = subUses
	}
	api.setClassifier(s.Classifier)
	defer api.Close()

	timeout := d.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.Binary, args...)
	if len(d.Wrap) > 0 {
		cmd = exec.CommandContext(ctx, d.Wrap[0], append(append(append([]string(nil), d.Wrap[1:]...), d.Binary), args...)...)
	}
	if s.Unprivileged && os.Geteuid() == 0 {
		if err := chownTree(root, nobodyID, nobodyID); err != nil {
			return out, err
		}
		id := strconv.Itoa(nobodyID)
		cmd = exec.CommandContext(ctx, "setpriv", append([]string{"--reuid=" + id, "--regid=" + id, "--clear-groups", "--", d.Binary}, args...)...)
	}
	cmd.Dir = lay.Proj
	cmd.Env = append(sessionEnv(lay, api.URL()), s.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	out.Elapsed = time.Since(start)
	out.Stderr = stderr.String()
	results, errs := api.Results()
	api.mu.Lock()
	out.Tools = append([]string(nil), api.toolList...)
	out.SubTools = append([]string(nil), api.subTools...)
	out.Requests = api.requests
	served := api.served
	api.mu.Unlock()
	if !served {
		return out, fmt.Errorf("conformance: Claude Code never asked the fake Messages API for the batch (%v); stderr: %s; stdout: %s",
			runErr, clip(stderr.String(), 2000), clip(stdout.String(), 2000))
	}
	var missing int
	out.Results, missing, err = readResults(s.Calls, uses, results, errs, out.Tools, func() (map[string]bool, error) { return d.unruledTools(ctx, s) })
	if err != nil {
		return out, err
	}
	if missing == len(s.Calls) && len(s.Calls) > 0 {
		return out, fmt.Errorf("conformance: no tool_result came back for any of %d calls (%v); stderr: %s; stdout: %s", len(s.Calls), runErr, clip(stderr.String(), 2000), clip(stdout.String(), 2000))
	}
	if len(s.SubCalls) > 0 {
		// A subagent that never started leaves every one of its calls
		// without a result: Unclassified, never a deny.
		out.SubResults, _, err = readResults(s.SubCalls, subUses, results, errs, out.SubTools, func() (map[string]bool, error) { return d.unruledTools(ctx, s) })
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// gitAbove returns the first .git found in a folder above dir, or "".
func gitAbove(dir string) string {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return filepath.Join(d, ".git")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// readResults reads each call's decision from the tool_result recorded for
// its tool_use (results and errs by tool_use id), given the tools the
// session offered; unruled, asked at most once, lists the tools offered
// with no rule at all. It returns how many calls had no result.
func readResults(calls []Call, uses []ToolUse, results map[string]string, errs map[string]bool, tools []string,
	unruled func() (map[string]bool, error)) ([]Result, int, error) {
	offered := map[string]bool{}
	for _, t := range tools {
		offered[t] = true
	}
	out := make([]Result, len(calls))
	missing := 0
	var bare map[string]bool
	for i, c := range calls {
		text, ok := results[uses[i].ID]
		if !ok {
			// A call without a result measured nothing: not a deny, even
			// when its tool was not offered.
			missing++
			note := "(no tool_result)"
			if !offered[c.Tool] {
				note = "(no tool_result; the tool was not offered)"
			}
			out[i] = Result{Decision: Unclassified, Text: note}
			continue
		}
		r := Result{Decision: classify(c, text, errs[uses[i].ID]), Text: strings.TrimSpace(text)}
		if r.Decision == Deny && !offered[c.Tool] {
			// A deny of the whole tool takes it out of the model's tool
			// list ("No such tool available: X. X is disabled for this
			// session"), but so does a session that never offers the tool
			// (Glob, Grep, TodoWrite in print mode, in the same words).
			// It is a deny only if the tool is offered when no rule is set.
			if bare == nil {
				var err error
				if bare, err = unruled(); err != nil {
					return nil, missing, err
				}
			}
			if !bare[c.Tool] {
				r = Result{Decision: Unclassified, Text: "(the tool is not offered even with no rule: nothing to measure) " + r.Text}
			}
		}
		out[i] = r
	}
	return out, missing, nil
}

// unruledTools returns the tools Claude Code offers the model in a session
// like s (the same MCP servers, the same user) with no settings file and no
// call: a tool missing from that list is one this binary does not offer,
// not one a rule took away. The answer is kept for the binary's life.
func (d Driver) unruledTools(ctx context.Context, s Session) (map[string]bool, error) {
	key := fmt.Sprintf("%s|mcp=%v|unprivileged=%v|args=%q|env=%q", d.Binary, s.MCP, s.Unprivileged, s.Args, s.Env)
	unruledMu.Lock()
	defer unruledMu.Unlock()
	if m, ok := unruled[key]; ok {
		return m, nil
	}
	bare := Session{MCP: s.MCP, Unprivileged: s.Unprivileged, Args: s.Args, Env: s.Env}
	r, err := d.Run(ctx, bare)
	if err != nil {
		return nil, fmt.Errorf("conformance: the tool list with no rule: %w", err)
	}
	if len(r.Tools) == 0 {
		return nil, fmt.Errorf("conformance: a session with no rule offered no tool")
	}
	m := map[string]bool{}
	for _, t := range r.Tools {
		m[t] = true
	}
	unruled[key] = m
	return m, nil
}

var (
	unruledMu sync.Mutex
	unruled   = map[string]map[string]bool{}
)

// nobodyID is the uid and gid an Unprivileged session runs as.
const nobodyID = 65534

// chownTree gives a session's folder to the unprivileged user.
func chownTree(root string, uid, gid int) error {
	return filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return fmt.Errorf("conformance: unprivileged session: %w", err)
		}
		return nil
	})
}

// sessionEnv is the environment of a session: HOME is the throwaway home,
// the stubs come first on PATH, the Messages API is the fake, and nothing
// non-essential (telemetry, updates) leaves the machine.
func sessionEnv(lay Layout, api string) []string {
	path := lay.Stubs + ":/usr/local/bin:/usr/bin:/bin"
	return []string{
		"HOME=" + lay.Home,
		"PATH=" + path,
		"SHELL=/bin/bash",
		"TERM=dumb",
		"LANG=C.UTF-8",
		"TMPDIR=" + filepath.Join(lay.Root, "tmp"),
		"ANTHROPIC_BASE_URL=" + api,
		"ANTHROPIC_API_KEY=sk-ant-api03-shipgate-conformance-fake-key",
		"DISABLE_TELEMETRY=1",
		// Every tool in the first tool list (WebFetch is deferred behind
		// ToolSearch otherwise).
		"ENABLE_TOOL_SEARCH=false",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
	}
}

// prepare writes the session's folders: the trusted project with its
// settings files, the home with .claude.json, the files the calls read,
// and a stub for every command word.
func prepare(lay Layout, s Session) error {
	for _, dir := range []string{lay.Home, lay.Proj, lay.Extra, lay.Stubs, filepath.Join(lay.Root, "tmp"),
		filepath.Join(lay.Proj, ".claude"), filepath.Join(lay.Home, ".claude")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("conformance: %w", err)
		}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"projects": map[string]any{lay.Proj: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(lay.Home, ".claude.json"), data, 0o600); err != nil {
		return fmt.Errorf("conformance: .claude.json: %w", err)
	}
	if s.Settings != "" {
		if err := os.WriteFile(filepath.Join(lay.Proj, ".claude", "settings.json"), []byte(lay.Expand(s.Settings)), 0o644); err != nil {
			return fmt.Errorf("conformance: settings.json: %w", err)
		}
	}
	user := s.User
	if user == "" {
		// WebFetch asks a remote service whether a domain is safe before
		// it fetches; offline that check fails, so it is skipped.
		user = `{"skipWebFetchPreflight": true}` + "\n"
	}
	for _, d := range projectDirs {
		if err := os.MkdirAll(filepath.Join(lay.Proj, d), 0o755); err != nil {
			return fmt.Errorf("conformance: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(lay.Home, ".claude", "settings.json"), []byte(lay.Expand(user)), 0o644); err != nil {
		return fmt.Errorf("conformance: user settings.json: %w", err)
	}
	if s.Local != "" {
		if err := os.WriteFile(filepath.Join(lay.Proj, ".claude", "settings.local.json"), []byte(lay.Expand(s.Local)), 0o644); err != nil {
			return fmt.Errorf("conformance: settings.local.json: %w", err)
		}
	}
	for name, text := range projectFiles {
		if err := os.WriteFile(filepath.Join(lay.Proj, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("conformance: %w", err)
		}
	}
	words := map[string]bool{}
	for _, w := range stubWords {
		words[w] = true
	}
	for _, c := range s.Calls {
		switch c.Tool {
		case "Read":
			p := lay.Expand(c.Path())
			if strings.HasPrefix(p, lay.Root+"/") {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return fmt.Errorf("conformance: %w", err)
				}
				// A notebook is read as a notebook: any other content is
				// refused as "Notebook file is not valid JSON" before a
				// permission is decided (seed 1's witness pairs of the
				// notebook class read ~/h.ipynb).
				content := fileMarker + "\n"
				if strings.HasSuffix(strings.ToLower(p), ".ipynb") {
					content = seedNotebook
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					return fmt.Errorf("conformance: %w", err)
				}
			}
		case "Edit", "Write":
			p := lay.Expand(c.Path())
			if strings.HasPrefix(p, lay.Root+"/") {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return fmt.Errorf("conformance: %w", err)
				}
			}
		case "NotebookEdit":
			// The notebook must exist (and have been read: notebookRead)
			// for the call to reach the permission decision.
			p := lay.Expand(c.Arg)
			if strings.HasPrefix(p, lay.Root+"/") {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return fmt.Errorf("conformance: %w", err)
				}
				if err := os.WriteFile(p, []byte(seedNotebook), 0o644); err != nil {
					return fmt.Errorf("conformance: %w", err)
				}
			}
		case "Bash":
			for _, w := range commandWords(c.Arg) {
				words[w] = true
			}
		}
	}
	for w := range words {
		if !stubName.MatchString(w) || realCommands[w] {
			continue
		}
		script := "#!/bin/sh\necho " + stubMarker + " " + shellQuote(w) + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(lay.Stubs, w), []byte(script), 0o755); err != nil {
			return fmt.Errorf("conformance: stub %s: %w", w, err)
		}
	}
	return nil
}

// seedNotebook is the notebook a NotebookEdit call edits: one code cell,
// nbformat 4.
const seedNotebook = `{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [], "source": ["x = 0"]}],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
`

// stubName is a word that may name a command.
var stubName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.+-]*$`)

// projectFiles are in every session's project, for the read-only
// commands of the corpus to read.
var projectFiles = map[string]string{"README.md": "# project\n", "package.json": "{\"name\": \"p\"}\n"}

// projectDirs are in every session's project, so `cd web` and `cd src`
// change into a directory that exists (Claude Code asks about a cd into
// one that does not).
var projectDirs = []string{"web", "src", "docs"}

// realCommands are never stubbed: Claude Code runs its commands through
// them.
var realCommands = map[string]bool{"bash": true, "sh": true}

// stubWords are stubbed in every session, whether a call names them or not,
// so that no corpus command can reach a real executable.
var stubWords = []string{"rm", "curl", "wget", "git", "npm", "npx", "node", "python3", "python", "pip", "docker",
	"make", "go", "cargo", "kubectl", "gh", "ls", "cat", "grep", "find", "sudo", "env", "timeout", "nice", "nohup",
	"xargs", "watch", "setsid", "stdbuf", "chmod", "mv", "cp", "touch", "mkdir", "tee", "sed", "awk", "head", "tail",
	"terraform", "aws", "ssh", "scp", "yarn", "pnpm", "uvx", "pytest", "jq", "wc", "sort", "echo"}

// toolUse turns a call into the tool_use block the fake model sends.
func toolUse(lay Layout, i int, c Call) ToolUse {
	id := fmt.Sprintf("toolu_%06d", i)
	if c.Param != "" {
		return paramToolUse(lay, id, c)
	}
	switch c.Tool {
	case "Bash":
		return ToolUse{ID: id, Name: "Bash", Input: map[string]any{"command": lay.Expand(c.Arg), "description": "conformance call",
			"timeout": 20000}}
	case "Read":
		return ToolUse{ID: id, Name: "Read", Input: map[string]any{"file_path": lay.Expand(c.Path())}}
	case "Edit":
		// Creating a new file (old_string empty) needs no earlier Read.
		return ToolUse{ID: id, Name: "Edit", Input: map[string]any{"file_path": lay.Expand(c.Path()), "old_string": "", "new_string": "x\n"}}
	case "Write":
		return ToolUse{ID: id, Name: "Write", Input: map[string]any{"file_path": lay.Expand(c.Path()), "content": "x\n"}}
	case "WebFetch":
		return ToolUse{ID: id, Name: "WebFetch", Input: map[string]any{"url": "https://" + c.Arg + "/shipgate", "prompt": "conformance call"}}
	}
	if in, ok := toolInputs[c.Tool]; ok {
		return ToolUse{ID: id, Name: c.Tool, Input: in(lay, c)}
	}
	return ToolUse{ID: id, Name: c.Tool, Input: map[string]any{}}
}

// paramToolUse is the tool_use of a parameter rule's call: the primary
// field and the one optional field Param names (none for "none"), typed as
// the tool's schema declares it.
func paramToolUse(lay Layout, id string, c Call) ToolUse {
	in := map[string]any{}
	switch c.Tool {
	case "Bash":
		in["command"] = lay.Expand(c.Arg)
	case "Read":
		in["file_path"] = lay.Expand(c.Path())
	case "WebFetch":
		in["url"] = "https://" + c.Arg + "/shipgate"
		in["prompt"] = "conformance call" // required
	}
	if c.Param != "none" {
		var v any = c.Value
		switch c.Value {
		case "true":
			v = true
		case "false":
			v = false
		default:
			if n, err := strconv.Atoi(c.Value); err == nil {
				v = n
			}
		}
		in[c.Param] = v
	}
	return ToolUse{ID: id, Name: c.Tool, Input: in}
}

// commandWords returns the words of a command line that may be run as
// commands: every word, which is more than needed and harmless (a stub
// that is never run costs nothing).
func commandWords(line string) []string {
	f := strings.FieldsFunc(line, func(r rune) bool {
		return strings.ContainsRune(" \t\n;&|()<>`$'\"{}=\\", r)
	})
	sort.Strings(f)
	return f
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
