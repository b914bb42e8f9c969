package gemini

import (
	"strings"
	"testing"
)

// TestRead: the rules settings become, at Gemini 0.61.0's priorities
// (bundle createPolicyEngineConfig; the conformance harness checks them
// against its PolicyEngine).
func TestRead(t *testing.T) {
	cases := []struct {
		name, src string
		rules     []string // "tool|prefix decision priority"
		problems  []string
	}{
		{"bare shell", `{"tools": {"allowed": ["run_shell_command"]}}`, []string{"run_shell_command allow 4.3"}, nil},
		{"prefix", `{"tools": {"allowed": ["run_shell_command(git status)", "ShellTool(npm)"]}}`,
			[]string{"run_shell_command|git status allow 4.3", "run_shell_command|npm allow 4.3", "run_shell_command deny 4.29"}, nil},
		{"empty prefix", `{"tools": {"allowed": ["run_shell_command()"]}}`, []string{"run_shell_command deny 4.29"}, nil},
		{"tool args ignored", `{"tools": {"allowed": ["write_file(docs/x)"]}}`, []string{"write_file allow 4.3"}, []string{"invalid_rule tools.allowed"}},
		{"exclude", `{"tools": {"exclude": ["run_shell_command(rm)", "web_fetch"]}}`,
			[]string{"run_shell_command(rm) deny 4.4", "web_fetch deny 4.4"}, []string{"invalid_rule tools.exclude"}},
		{"core", `{"tools": {"core": ["read_file", "run_shell_command(git)"]}}`,
			[]string{"read_file allow 4.25", "run_shell_command|git allow 4.25", "* deny 4.24"}, nil},
		{"core empty", `{"tools": {"core": []}}`, []string{"* deny 4.24"}, nil},
		{"core null", `{"tools": {"core": null}}`, nil, nil},
		{"mcp", `{"mcpServers": {"srv": {"command": "x", "trust": true}}, "mcp": {"allowed": ["*"], "excluded": ["bad"]}}`,
			[]string{"mcp_bad_* deny 4.9", "mcp_srv_* allow 4.2", "mcp_* allow 4.1"}, nil},
		{"comments", "{\n  // a comment\n  \"tools\": {/* c */ \"exclude\": [\"write_file\"]}\n}", []string{"write_file deny 4.4"}, nil},
		{"unknown and duplicate", `{"tool": {}, "general": {}, "general": {}}`, nil, []string{"duplicate_key general", "unknown_key tool"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Read("s.json", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range Sorted(d.Rules) {
				s := r.Tool
				if r.HasPrefix {
					s += "|" + r.Prefix
				}
				got = append(got, s+" "+r.Decision.String()+" "+trimFloat(r.Priority))
			}
			if strings.Join(got, "\n") != strings.Join(c.rules, "\n") {
				t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.rules, "\n"))
			}
			var probs []string
			for _, p := range d.Problems {
				probs = append(probs, p.Kind+" "+p.Key)
			}
			if strings.Join(probs, "\n") != strings.Join(c.problems, "\n") {
				t.Errorf("problems %q, want %q", probs, c.problems)
			}
		})
	}
}

// trimFloat prints a priority with at most three decimals.
func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(sprintf("%.3f", f), "0"), ".")
}

// TestReadErrors: files Gemini refuses to start with.
func TestReadErrors(t *testing.T) {
	for _, src := range []string{`{"tools": {"allowed": ["a",]}}`, `[]`, `{"a": 1`, "\xef\xbb\xbf{}"} {
		if _, err := Read("s.json", []byte(src)); err == nil {
			t.Errorf("%q: no error", src)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("%q: error %T", src, err)
		}
	}
}

// TestSettings: values that widen other than by rules.
func TestSettings(t *testing.T) {
	d, err := Read("s.json", []byte(`{"policyPaths": ["./p"], "adminPolicyPaths": ["./a"], "general": {"defaultApprovalMode": "auto_edit"},
"hooks": {"BeforeTool": []}, "mcp": {"autoAllowInHeadless": true}, "security": {"folderTrust": {"enabled": false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.Settings {
		g := s.Key + " " + s.Check
		if s.Exec {
			g += " exec"
		}
		if s.Grant > 0 {
			g += " grants"
		}
		got = append(got, g)
	}
	want := []string{`policyPaths["./p"] allow exec grants`, `adminPolicyPaths["./a"] allow exec grants`, "general.defaultApprovalMode allow grants",
		"security.folderTrust.enabled allow", "mcp.autoAllowInHeadless allow grants", `hooks = {"BeforeTool": []} hook grants`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("settings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMatches: prefixes end at a blank, a double quote or the end; MCP
// server names run to the first underscore.
func TestMatches(t *testing.T) {
	gs := Rule{Tool: ShellTool, Prefix: "git status", HasPrefix: true}
	trust := Rule{Tool: "mcp_my_srv_*", MCPName: "my_srv"}
	srv := Rule{Tool: "mcp_srv_*", MCPName: "srv"}
	cases := []struct {
		r    Rule
		c    Call
		want bool
	}{
		{gs, Call{ShellTool, "git status"}, true}, {gs, Call{ShellTool, "git status --short"}, true},
		{gs, Call{ShellTool, "git statusx"}, false}, {gs, Call{ShellTool, "git  status"}, false},
		{gs, Call{ShellTool, "git status\t-s"}, false}, {gs, Call{ShellTool, "git status\u00a0-s"}, true},
		{gs, Call{ShellTool, `git status"x"`}, true}, {gs, Call{"read_file", "git status"}, false},
		{trust, Call{"mcp_my_srv_q", ""}, false}, {srv, Call{"mcp_srv_q", ""}, true}, {srv, Call{"mcp_srv", ""}, false},
		{Rule{Tool: "mcp_*", MCPName: "*"}, Call{"mcp_a_b", ""}, true}, {Rule{Tool: "mcp_*", MCPName: "*"}, Call{"read_file", ""}, false},
	}
	for _, c := range cases {
		if got := c.r.Matches(c.c); got != c.want {
			t.Errorf("%+v matches %+v = %v, want %v", c.r, c.c, got, c.want)
		}
	}
}

// TestExpandEnv holds string values to Gemini 0.61.0's
// resolveEnvVarsInString with the variables unset (read in the bundle:
// /\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})/g, an unset variable without a
// default kept as written).
func TestExpandEnv(t *testing.T) {
	for in, want := range map[string]string{
		"${X:-run_shell_command}":      "run_shell_command",
		"run_shell_command(${C:-git})": "run_shell_command(git)",
		"${X}":                         "${X}",
		"$X":                           "$X",
		"${X:-}":                       "",
		"${X:-a:-b}":                   "a:-b",
		"${X-y}":                       "${X-y}",
		"no vars":                      "no vars",
	} {
		if got := ExpandEnv(in); got != want {
			t.Errorf("ExpandEnv(%q) = %q, want %q", in, got, want)
		}
	}
	d, err := Read(".gemini/settings.json", []byte(`{"tools": {"allowed": ["${X:-run_shell_command}"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rules) != 1 || d.Rules[0].Tool != ShellTool || d.Rules[0].HasPrefix {
		t.Errorf("the expanded entry is not the bare shell tool: %+v", d.Rules)
	}
}
