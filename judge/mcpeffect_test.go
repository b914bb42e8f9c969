package judge

import "testing"

// TestMCPChangeEffect: a changed MCP server entry is quiet only when every
// changed part runs no new code and reaches no new host.
func TestMCPChangeEffect(t *testing.T) {
	for _, c := range []struct {
		name, base, head string
		quiet            bool
	}{
		{"placeholder env", `{"command":"npx","args":["-y","a"]}`, `{"command":"npx","args":["-y","a"],"env":{"API_KEY":"your-key-here"}}`, true},
		{"placeholder env upper", `{"command":"x"}`, `{"command":"x","env":{"GROQ_API_KEY":"GROQ_API_KEY_HERE"}}`, true},
		{"placeholder slot", `{"command":"x"}`, `{"command":"x","env":{"K":"<your key>"}}`, true},
		{"placeholder filled in", `{"command":"x","env":{"K":"your-key"}}`, `{"command":"x","env":{"K":"sk-123"}}`, false},
		{"a path with a placeholder word", `{"command":"x"}`, `{"command":"x","env":{"ALLOWED_DIRS":"/home/you/your-projects"}}`, false},
		{"a list with a placeholder word", `{"command":"x"}`, `{"command":"x","env":{"TOOLS":"all,replace_file"}}`, false},
		{"placeholder removed", `{"command":"x","env":{"K":"xxxx"}}`, `{"command":"x"}`, true},
		{"env reference", `{"command":"x"}`, `{"command":"x","env":{"TOKEN":"${TOKEN}"}}`, false},
		{"env removed", `{"command":"x","env":{"DEBUG":"1"}}`, `{"command":"x"}`, false},
		{"READ_ONLY removed", `{"command":"x","env":{"GITHUB_READ_ONLY":"1"}}`, `{"command":"x"}`, false},
		{"toolsets widened", `{"command":"x","env":{"GITHUB_TOOLSETS":"repos"}}`, `{"command":"x","env":{"GITHUB_TOOLSETS":"all"}}`, false},
		{"NODE_OPTIONS", `{"command":"x"}`, `{"command":"x","env":{"NODE_OPTIONS":"--require ./a.js"}}`, false},
		{"DYLD_ prefix", `{"command":"x"}`, `{"command":"x","env":{"DYLD_INSERT_LIBRARIES":"a.dylib"}}`, false},
		{"OpenCode environment", `{"type":"local","command":["npx","a"]}`, `{"type":"local","command":["npx","a"],"environment":{"K":"your-key"}}`, true},
		{"OpenCode environment value", `{"type":"local","command":["npx","a"]}`, `{"type":"local","command":["npx","a"],"environment":{"K":"v"}}`, false},
		{"env not an object", `{"command":"x"}`, `{"command":"x","env":"K=v"}`, false},
		{"env URL same host", `{"command":"x","env":{"U":"https://a.dev/v1"}}`, `{"command":"x","env":{"U":"https://a.dev/v2"}}`, false},
		{"env URL new", `{"command":"x"}`, `{"command":"x","env":{"U":"https://a.dev/v1"}}`, false},
		{"same host path", `{"url":"https://a.dev/sse"}`, `{"url":"https://a.dev/mcp"}`, true},
		{"same host, folder kept", `{"url":"https://a.dev/v1/sse"}`, `{"url":"https://a.dev/v1/mcp/"}`, true},
		{"same host, another server", `{"url":"https://server.smithery.ai/@a/x/mcp"}`, `{"url":"https://server.smithery.ai/@b/y/mcp"}`, false},
		{"same host, another path", `{"url":"https://a.dev/sse"}`, `{"url":"https://a.dev/admin/sse"}`, false},
		{"same host, query", `{"url":"https://a.dev/sse"}`, `{"url":"https://a.dev/mcp?tools=all"}`, false},
		{"Gemini httpUrl path", `{"httpUrl":"https://a.dev/sse"}`, `{"httpUrl":"https://a.dev/mcp"}`, true},
		{"another port", `{"url":"https://a.dev/sse"}`, `{"url":"https://a.dev:8443/sse"}`, false},
		{"expanded host", `{"url":"https://${HOST}/sse"}`, `{"url":"https://${HOST}/mcp"}`, false},
		{"user added", `{"url":"https://a.dev/sse"}`, `{"url":"https://u@a.dev/sse"}`, false},
		{"url to httpUrl", `{"url":"https://a.dev/sse"}`, `{"httpUrl":"https://a.dev/sse"}`, false},
		{"@latest", `{"command":"npx","args":["-y","mcp-remote","https://a.dev"]}`, `{"command":"npx","args":["-y","mcp-remote@latest","https://a.dev"]}`, true},
		{"@latest dropped", `{"command":"npx","args":["-y","a@latest"]}`, `{"command":"npx","args":["-y","a"]}`, true},
		{"scoped @latest", `{"command":"npx","args":["-y","@s/p"]}`, `{"command":"npx","args":["-y","@s/p@latest"]}`, true},
		{"one command string", `{"command":"npx -y a"}`, `{"command":"npx -y a@latest"}`, true},
		{"OpenCode array", `{"command":["npx","-y","a"]}`, `{"command":["npx","-y","a@latest"]}`, true},
		{"pinned to latest", `{"command":"npx","args":["-y","a@1.2.3"]}`, `{"command":"npx","args":["-y","a@latest"]}`, false},
		{"pinned changed", `{"command":"npx","args":["-y","a@1.2.3"]}`, `{"command":"npx","args":["-y","a@1.2.4"]}`, false},
		{"range to latest", `{"command":"npx","args":["-y","a@^1"]}`, `{"command":"npx","args":["-y","a@^1@latest"]}`, false},
		{"-p names the package", `{"command":"npx","args":["-p","b","a"]}`, `{"command":"npx","args":["-p","b","a@latest"]}`, false},
		{"a path", `{"command":"npx","args":["./a"]}`, `{"command":"npx","args":["./a@latest"]}`, false},
		{"git spec", `{"command":"npx","args":["github:u/a"]}`, `{"command":"npx","args":["github:u/a@latest"]}`, false},
		{"not npx", `{"command":"bunx","args":["a"]}`, `{"command":"bunx","args":["a@latest"]}`, false},
		{"-y added", `{"command":"npx","args":["a"]}`, `{"command":"npx","args":["-y","a"]}`, false},
		{"an argument added", `{"command":"npx","args":["-y","a"]}`, `{"command":"npx","args":["-y","a@latest","--x"]}`, false},
		{"@latest and a quiet env", `{"command":"npx","args":["a"]}`, `{"command":"npx","args":["a@latest"],"env":{"K":"<key>"}}`, true},
		{"headers", `{"url":"https://a.dev/sse"}`, `{"url":"https://a.dev/sse","headers":{"Authorization":"Bearer ${T}"}}`, false},
		{"trust", `{"command":"x"}`, `{"command":"x","trust":true}`, false},
		{"type", `{"command":"x","type":"stdio"}`, `{"command":"x","type":"sse"}`, false},
		{"duplicate key", `{"command":"npx","args":["a"]}`, `{"command":"npx","command":"sh","args":["a"],"env":{"K":"v"}}`, false},
		{"nested duplicate", `{"command":"x"}`, `{"command":"x","env":{"K":"v","K":"w"}}`, false},
		{"not JSON", `{"command":"x"}`, `{"command":"x", /* c */ "env":{"K":"v"}}`, false},
		{"not an object", `{"command":"x"}`, `["x"]`, false},
		{"unchanged", `{"command":"x"}`, `{"command":"x"}`, false},
		{"mcp-remote to its URL", `{"type":"stdio","command":"npx","args":["-y","mcp-remote@latest","https://a.dev/sse"]}`, `{"url":"https://a.dev/mcp"}`, true},
		{"stdio to another host", `{"command":"npx","args":["-y","mcp-remote","https://a.dev/sse"]}`, `{"url":"https://b.dev/mcp"}`, false},
		{"stdio to http on the same host", `{"command":"npx","args":["mcp-remote","https://a.dev/sse"]}`, `{"url":"http://a.dev/mcp"}`, false},
		{"stdio to remote with headers", `{"command":"npx","args":["mcp-remote","https://a.dev/sse"]}`, `{"url":"https://a.dev/mcp","headers":{"X":"y"}}`, false},
		{"stdio to another path on the host", `{"command":"npx","args":["mcp-remote","https://a.dev/@a/x/mcp"]}`, `{"url":"https://a.dev/@b/y/mcp"}`, false},
		{"stdio to the same URL", `{"command":"npx","args":["mcp-remote","https://a.dev/x"]}`, `{"url":"https://a.dev/x"}`, true},
		{"stdio naming no URL", `{"command":"node","args":["s.js"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"installed mcp-remote to its URL", `{"command":"mcp-remote","args":["https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, true},
		{"bunx mcp-remote to its URL", `{"command":"bunx","args":["mcp-remote@0.1.16","https://a.dev/sse"]}`, `{"type":"http","url":"https://a.dev/mcp"}`, true},
		{"a local server taking the URL as an option", `{"command":"node","args":["server.js","--upstream","https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"another npx package naming the URL", `{"command":"npx","args":["-y","@acme/mcp-server","https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"a package whose name starts like the bridge", `{"command":"npx","args":["-y","mcp-remote2","https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"npx -p picks another package", `{"command":"npx","args":["-p","evil","mcp-remote","https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"the URL not in the bridge's URL position", `{"command":"npx","args":["-y","mcp-remote","https://b.dev/mcp","--resource","https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"a scoped package under npx", `{"command":"npx","args":["-y","@x/mcp-remote","https://a.dev/mcp"]}`, `{"url":"https://a.dev/mcp"}`, false},
		{"remote to stdio", `{"url":"https://a.dev/mcp"}`, `{"command":"npx","args":["mcp-remote","https://a.dev/mcp"]}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			eff := mcpChangeEffect(c.base, c.head)
			if got := eff.runsNothingNew(); got != c.quiet {
				t.Errorf("quiet %v, want %v (review %q, quiet %q)", got, c.quiet, eff.review, eff.quiet)
			}
		})
	}
}

// TestMCPEnvLoadsCode: variables that change which code loads are never
// quiet in a server's env; ordinary ones are.
func TestMCPEnvLoadsCode(t *testing.T) {
	for n, want := range map[string]bool{
		"NODE_OPTIONS": true, "NODE_PATH": true, "LD_AUDIT": true, "PYTHONHOME": true, "JAVA_TOOL_OPTIONS": true,
		"HOME": true, "GIT_SSH_COMMAND": true, "npm_config_registry": true, "UV_INDEX_URL": true, "PATH": true, "GOFLAGS": true,
		"NODE_ENV": false, "API_KEY": false, "LOG_LEVEL": false, "GROQ_API_KEY": false, "DEBUG": false,
	} {
		eff := mcpChangeEffect(`{"command":"x"}`, `{"command":"x","env":{"`+n+`":"your-value-here"}}`)
		if got := !eff.runsNothingNew(); got != want {
			t.Errorf("%s: review %v, want %v (%q %q)", n, got, want, eff.review, eff.quiet)
		}
	}
}
