package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// One session of each agent that is not Claude Code, run offline against
// a fake model (fakemodels.go; fakeapi.go for the agents that speak the
// Anthropic Messages API) so that it makes real tool calls: the driver
// writes the agent's user-level configuration into a throwaway HOME (the
// model provider, trust for the project folder), starts the fake with the
// calls of the script, runs the agent's non-interactive mode in the
// project and returns what it printed and what the fake recorded. The
// traces (surface_test.go) and the OpenCode runtime oracle
// (opencoderun.go) use it.

// AgentSession is one non-interactive run of an agent in Proj with Home
// as its HOME, its model a fake that asks for Calls.
type AgentSession struct {
	// Agent is "opencode", "copilot-cli", "codex" or "gemini-cli".
	Agent string
	// Bin is the agent's executable (for Gemini CLI: bundle/gemini.js,
	// run with node).
	Bin        string
	Proj, Home string
	Calls      []ModelCall
	// First, when set, is a call the model asks for alone before Calls,
	// which follow once its result is back (Copilot CLI and OpenCode
	// only).
	First *ModelCall
	// Args are extra arguments of the agent's command line.
	Args []string
	// Env are extra environment variables (PATH for the stubs).
	Env []string
	// Wrap, when set, runs the agent under this command (strace …).
	Wrap []string
}

// AgentResult is what a session returned.
type AgentResult struct {
	// Stdout is the agent's output (its JSON events where it has them).
	Stdout, Stderr string
	// Results are the tool results the agent sent its model, by call id.
	Results map[string]string
	// Tools are the tool names the agent offered its model.
	Tools []string
	// Log is the fake's request log.
	Log string
}

// fakeModel is what a session needs of a fake, whatever its wire.
type fakeModel interface {
	URL() string
	Close()
}

// RunAgent runs one session. A run that fails to start or whose model
// was never asked is an error; what the agent decided about each call is
// for the caller to read from the result.
func RunAgent(ctx context.Context, s AgentSession) (AgentResult, error) {
	var (
		fake    fakeModel
		results func() map[string]string
		tools   func() []string
		log     func() string
	)
	switch s.Agent {
	case "opencode", "copilot-cli":
		var uses []ToolUse
		for _, c := range s.Calls {
			uses = append(uses, ToolUse{ID: c.ID, Name: c.Name, Input: c.Args})
		}
		var first *ToolUse
		if s.First != nil {
			first = &ToolUse{ID: s.First.ID, Name: s.First.Name, Input: s.First.Args}
		}
		f, err := newFakeAPI(uses, first)
		if err != nil {
			return AgentResult{}, err
		}
		f.mu.Lock()
		f.warmOnce = first != nil
		f.mu.Unlock()
		fake = f
		results = func() map[string]string { r, _ := f.Results(); return r }
		tools = func() []string {
			f.mu.Lock()
			defer f.mu.Unlock()
			return append([]string(nil), f.toolList...)
		}
		log = func() string {
			f.mu.Lock()
			defer f.mu.Unlock()
			return strings.Join(f.log, "; ")
		}
	case "codex":
		f, err := NewFakeResponses(s.Calls)
		if err != nil {
			return AgentResult{}, err
		}
		fake, results, tools, log = f, f.Results, f.Tools, f.Log
	case "gemini-cli":
		f, err := NewFakeGemini(s.Calls)
		if err != nil {
			return AgentResult{}, err
		}
		fake, results, tools, log = f, f.Results, f.Tools, f.Log
	default:
		return AgentResult{}, fmt.Errorf("no fake model for agent %q", s.Agent)
	}
	defer fake.Close()
	argv, env, err := agentCommand(s, fake.URL())
	if err != nil {
		return AgentResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	argv = append(append([]string(nil), s.Wrap...), argv...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = s.Proj
	cmd.Env = append(append(env, s.Env...), "PWD="+s.Proj)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	res := AgentResult{Stdout: stdout.String(), Stderr: stderr.String(), Results: results(), Tools: tools(), Log: log()}
	if res.Tools == nil && len(s.Calls) > 0 {
		return res, fmt.Errorf("%s never asked its model for a tool call (%v; requests: %s): %s", s.Agent, runErr, res.Log, clip(res.Stderr+res.Stdout, 600))
	}
	if runErr != nil && ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w", s.Agent, ctx.Err())
	}
	return res, nil
}

// agentEnv is the environment every session starts from: the test's,
// without what would point the agent at another HOME, model or login.
func agentEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME" || k == "PWD" || strings.HasPrefix(k, "XDG_"),
			strings.HasPrefix(k, "OPENCODE"), strings.HasPrefix(k, "COPILOT_"), strings.HasPrefix(k, "CODEX_"),
			strings.HasPrefix(k, "GEMINI_"), strings.HasPrefix(k, "GOOGLE_"), strings.HasPrefix(k, "OPENAI_"),
			strings.HasPrefix(k, "ANTHROPIC_"), k == "GITHUB_TOKEN" || k == "GH_TOKEN":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local/state"))
}

// agentCommand is the agent's command line and environment for a session
// whose model is at url, with the user-level files written into Home.
func agentCommand(s AgentSession, url string) ([]string, []string, error) {
	env := agentEnv(s.Home)
	switch s.Agent {
	case "opencode":
		// A provider of the bundled @ai-sdk/anthropic package whose
		// baseURL is the fake: nothing is installed at run time.
		cfg := fmt.Sprintf(`{"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
  "provider": {"fake": {"npm": "@ai-sdk/anthropic", "name": "Fake", "options": {"baseURL": %q, "apiKey": "fake"},
    "models": {"m": {"name": "m", "tool_call": true}}}},
  "model": "fake/m", "small_model": "fake/m"}`, url+"/v1")
		if err := writeTree(s.Home, map[string]string{".config/opencode/opencode.json": cfg}); err != nil {
			return nil, nil, err
		}
		env = append(env, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1")
		return append([]string{s.Bin, "run", "--dir", s.Proj, "--format", "json"}, append(s.Args, "go")...), env, nil
	case "copilot-cli":
		// BYOK: COPILOT_PROVIDER_BASE_URL with the anthropic wire needs
		// no GitHub login (`copilot help providers`).
		if err := writeTree(s.Home, map[string]string{".copilot/config.json": fmt.Sprintf(`{"trusted_folders": [%q]}`, s.Proj)}); err != nil {
			return nil, nil, err
		}
		env = append(env, "COPILOT_PROVIDER_BASE_URL="+url, "COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_API_KEY=fake",
			"COPILOT_MODEL=claude-sonnet-4.5", "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false")
		return append([]string{s.Bin, "-p", "go", "--output-format", "json"}, s.Args...), env, nil
	case "codex":
		// A model_providers entry whose base_url is the fake (the
		// Responses wire); the project trusted.
		cfg := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\n\n[projects.%q]\ntrust_level = \"trusted\"\n", url+"/v1", s.Proj)
		if err := writeTree(s.Home, map[string]string{".codex/config.toml": cfg}); err != nil {
			return nil, nil, err
		}
		env = append(env, "CODEX_HOME="+filepath.Join(s.Home, ".codex"), "RUST_BACKTRACE=0")
		return append([]string{s.Bin, "exec", "--json"}, append(s.Args, "go")...), env, nil
	case "gemini-cli":
		// GEMINI_API_KEY with GOOGLE_GEMINI_BASE_URL: the bundled
		// @google/genai client's base URL. A fixed model (the default
		// "auto" asks a router model first); the folder trusted.
		home := map[string]string{
			".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "telemetry": {"enabled": false}}`,
			".gemini/trustedFolders.json": fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, s.Proj),
		}
		if err := writeTree(s.Home, home); err != nil {
			return nil, nil, err
		}
		env = append(env, "GEMINI_API_KEY=fake", "GOOGLE_GEMINI_BASE_URL="+url, "GEMINI_CLI_NO_RELAUNCH=true")
		return append([]string{"node", s.Bin, "-p", "go", "--output-format", "json", "-m", "gemini-2.5-pro"}, s.Args...), env, nil
	}
	return nil, nil, fmt.Errorf("no command for agent %q", s.Agent)
}

// GeminiBin is the Gemini CLI entry (bundle/gemini.js) of the installed
// package ("" if it is not installed).
func GeminiBin() string {
	chunk, err := FindGemini()
	if err != nil || chunk == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(chunk), "gemini.js")
}
