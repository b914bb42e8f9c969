package codex

import (
	"strings"
	"testing"
)

// TestParseConfig: the settings each key yields (grant, exec, check, line).
func TestParseConfig(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // "key grant check [exec] @line"
		problems  []string // "kind key"
		err       string
	}{
		{"yolo", "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n",
			[]string{"approval_policy 2 allow @1", "sandbox_mode 2 sandbox @2", "approval_policy+sandbox_mode 1 allow exec @1"}, nil, ""},
		{"never alone", "approval_policy = \"never\"\n", []string{"approval_policy 2 allow @1"}, nil, ""},
		{"danger-full-access alone (on-request by default)", "sandbox_mode = \"danger-full-access\"\n",
			[]string{"sandbox_mode 2 sandbox @1", "approval_policy+sandbox_mode 1 allow exec @1"}, nil, ""},
		{"danger-full-access on-failure", "approval_policy = \"on-failure\"\nsandbox_mode = \"danger-full-access\"\n",
			[]string{"approval_policy 0 allow @1", "sandbox_mode 2 sandbox @2", "approval_policy+sandbox_mode 1 allow exec @1"}, nil, ""},
		{"danger-full-access granular", "sandbox_mode = \"danger-full-access\"\n[approval_policy.granular]\nsandbox_approval = false\n",
			[]string{`approval_policy = {"granular":{"sandbox_approval":false}} 1 allow @2`, "sandbox_mode 2 sandbox @1"}, nil, ""},
		{"model and comment", "# a comment\nmodel = \"o3\"\n", nil, nil, ""},
		{"workspace write", "[sandbox_workspace_write]\nnetwork_access = true\nwritable_roots = [\"/\", \"/opt/x\"]\nexclude_slash_tmp = true\n",
			[]string{"sandbox_workspace_write.exclude_slash_tmp -1 sandbox @4", "sandbox_workspace_write.network_access 1 sandbox @2",
				"sandbox_workspace_write.writable_roots[/] 2 sandbox @3", "sandbox_workspace_write.writable_roots[/opt/x] 1 sandbox @3"}, nil, ""},
		{"env", "[shell_environment_policy]\ninherit = \"core\"\nignore_default_excludes = true\nexclude = [\"AWS_*\"]\nset = { PATH = \"/x\" }\n",
			[]string{"shell_environment_policy.exclude[AWS_*] -1 env @4", "shell_environment_policy.ignore_default_excludes 1 env @3",
				"shell_environment_policy.inherit -1 env @2", `shell_environment_policy.set.PATH = "/x" 1 env @5`}, nil, ""},
		{"notify", "notify = [\"sh\", \"-c\", \"curl x\"]\n", []string{`notify = ["sh","-c","curl x"] 1 hook @1`}, nil, ""},
		{"provider", "model_provider = \"proxy\"\n[model_providers.proxy]\nbase_url = \"https://x\"\n",
			[]string{`model_provider = "proxy" 1 env @1`, `model_providers = {"proxy":{"base_url":"https://x"}} 1 env @2`}, nil, ""},
		// Profile tables are inert in a project (measured, 0.169.0: `codex
		// --profile yolo debug prompt-input` renders workspace-write).
		{"profile", "profile = \"yolo\"\n[profiles.yolo]\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n",
			nil, []string{"inert profile", "inert profiles"}, ""},
		{"profile inherits", "approval_policy = \"never\"\n[profiles.x]\nsandbox_mode = \"danger-full-access\"\n",
			[]string{"approval_policy 2 allow @1"}, []string{"inert profiles"}, ""},
		{"trust", "[projects.\"/x\"]\ntrust_level = \"trusted\"\n", nil, []string{"inert projects"}, ""},
		{"unknown", "totally_unknown_key = 1\n", nil, []string{"unknown_key totally_unknown_key"}, ""},
		{"bad approval", "approval_policy = \"bogus\"\n", nil, nil, "refuses to start"},
		{"granular string", "approval_policy = \"granular\"\n", nil, nil, "refuses to start"},
		{"granular table", "[approval_policy.granular]\nsandbox_approval = false\n", []string{`approval_policy = {"granular":{"sandbox_approval":false}} 1 allow @1`}, nil, ""},
		{"bad sandbox", "sandbox_mode = \"bogus\"\n", nil, nil, "refuses to start"},
		// Nor validated (measured: sandbox_mode = 1 in one starts).
		{"bad profile sandbox", "[profiles.x]\nsandbox_mode = 1\n", nil, []string{"inert profiles"}, ""},
		{"untrusted", "approval_policy = \"untrusted\"\n", nil, nil, "no longer supported"},
		{"duplicate", "model = \"a\"\nmodel = \"b\"\n", nil, nil, "p.toml:2"},
		{"bad toml", "approval_policy = never\n", nil, nil, "p.toml:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig("p.toml", []byte(c.src))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range cfg.Settings {
				g := s.Key + " " + itoa(s.Grant) + " " + s.Check
				if s.Exec {
					g += " exec"
				}
				got = append(got, g+" @"+itoa(s.Line))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("settings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			var probs []string
			for _, p := range cfg.Problems {
				probs = append(probs, p.Kind+" "+p.Key)
			}
			if strings.Join(probs, "\n") != strings.Join(c.problems, "\n") {
				t.Errorf("problems %q, want %q", probs, c.problems)
			}
		})
	}
}

// TestServers: mcp_servers entries with their line and canonical text.
func TestServers(t *testing.T) {
	cfg, err := ParseConfig("p.toml", []byte("[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs\"]\n\n[mcp_servers.web]\nurl = \"https://x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Servers[0].Name != "docs" || cfg.Servers[0].Line != 1 || cfg.Servers[1].Line != 5 ||
		!strings.Contains(cfg.Servers[0].Summary, "npx") || !strings.Contains(cfg.Servers[1].Summary, "https://x") {
		t.Errorf("servers %+v", cfg.Servers)
	}
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
