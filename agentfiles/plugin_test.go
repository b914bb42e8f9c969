package agentfiles

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/report"
)

func TestPluginLayouts(t *testing.T) {
	paths := func(l PluginLayout) []string {
		var out []string
		for _, p := range l.Paths {
			s := string(p.Part) + " " + p.Path
			if p.Named {
				s += " (named)"
			}
			out = append(out, s)
		}
		return out
	}
	defaults := func(r string, except ...string) []string {
		var out []string
		for _, pp := range pluginParts {
			skip := false
			for _, e := range except {
				skip = skip || e == string(pp.part)
			}
			if !skip {
				q := pp.def
				if r != "" {
					q = r + "/" + q
				}
				out = append(out, string(pp.part)+" "+q)
			}
		}
		return out
	}
	cases := []struct {
		name, path, data string
		ok               bool
		want             [][]string // each layout's paths, sorted as PluginLayouts sorts them
		problems         []string   // a substring of each layout's problems, joined
	}{
		{"defaults only", "p/.claude-plugin/plugin.json", `{"name": "p"}`, true, [][]string{sorted(defaults("p"))}, nil},
		{"a named hooks file adds", "p/.claude-plugin/plugin.json", `{"name": "p", "hooks": "./scripts/h.json"}`, true,
			[][]string{sorted(append(defaults("p"), "hooks p/scripts/h.json (named)"))}, nil},
		{"named commands replace the default folder", "p/.claude-plugin/plugin.json", `{"name": "p", "commands": ["./c", "./x/one.md"]}`, true,
			[][]string{sorted(append(defaults("p", "commands"), "commands p/c (named)", "commands p/x/one.md (named)"))}, nil},
		{"inline hooks and servers name no file", "p/.claude-plugin/plugin.json", `{"name": "p", "hooks": {"SessionStart": []}, "mcpServers": {"s": {"command": "x"}}}`, true,
			[][]string{sorted(defaults("p"))}, nil},
		{"a path through .. is read and said", "p/.claude-plugin/plugin.json", `{"name": "p", "hooks": "./../shared/h.json"}`, true,
			[][]string{sorted(append(defaults("p"), "hooks shared/h.json (named)"))}, []string{"escapes the plugin directory"}},
		{"a path above the repository is said, not read (the default folder still is)", ".claude-plugin/plugin.json", `{"name": "p", "agents": "./../x"}`, true,
			[][]string{sorted(defaults(""))}, []string{"escapes the plugin directory"}},
		{"a path without ./", "p/.claude-plugin/plugin.json", `{"name": "p", "skills": "s"}`, true,
			[][]string{sorted(append(defaults("p"), "skills p/s (named)"))}, []string{"does not start with ./"}},
		{"a manifest Shipgate cannot read yields its defaults", "p/.claude-plugin/plugin.json", `{"name": "p", "name": "q"}`, false,
			[][]string{sorted(defaults("p"))}, []string{"not a JSON object Shipgate reads"}},
		{"a marketplace's local entries", "m/.claude-plugin/marketplace.json",
			`{"name": "m", "plugins": [{"name": "a", "source": "./plugins/a"}, {"name": "b", "source": {"source": "github", "repo": "o/b"}}, {"name": "c", "source": "./c", "strict": false, "hooks": "./h.json"}]}`, true,
			[][]string{sorted(defaults("m/plugins/a")), sorted(append(defaults("m/c"), "hooks m/c/h.json (named)"))}, nil},
		{"a marketplace's pluginRoot", ".claude-plugin/marketplace.json",
			`{"name": "m", "metadata": {"pluginRoot": "./plugins"}, "plugins": [{"name": "a", "source": "a"}]}`, true,
			[][]string{sorted(defaults("plugins/a"))}, nil},
		{"a marketplace entry outside its folder", "m/.claude-plugin/marketplace.json", `{"name": "m", "plugins": [{"name": "a", "source": "./../a"}]}`, true,
			[][]string{sorted(defaults("a"))}, []string{"leaves the marketplace's folder"}},
		{"a marketplace Shipgate cannot read", ".claude-plugin/marketplace.json", `[`, false, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls, ok := PluginLayouts(c.path, []byte(c.data))
			if ok != c.ok {
				t.Errorf("ok = %v, want %v", ok, c.ok)
			}
			var got [][]string
			var probs []string
			for _, l := range ls {
				got = append(got, paths(l))
				probs = append(probs, strings.Join(l.Problems, "; "))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("paths = %q\nwant    %q", got, c.want)
			}
			all := strings.Join(probs, " | ")
			for _, p := range c.problems {
				if !strings.Contains(all, p) {
					t.Errorf("problems %q lack %q", all, p)
				}
			}
			if len(c.problems) == 0 && strings.TrimSpace(strings.ReplaceAll(all, "|", "")) != "" {
				t.Errorf("problems %q, want none", all)
			}
		})
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	// The layout sorts by path, then part.
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			pi, pj := strings.SplitN(out[i], " ", 2), strings.SplitN(out[j], " ", 2)
			if pj[1] < pi[1] || pj[1] == pi[1] && pj[0] < pi[0] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestPluginAs(t *testing.T) {
	ls, _ := PluginLayouts("p/.claude-plugin/plugin.json", []byte(`{"name": "p", "commands": "./c", "agents": ["./a/one.md"], "skills": ["./s", "./solo", "."], "hooks": "./h.json", "mcpServers": "./m.json", "experimental": {"monitors": "./mon.json"}, "workflows": "./wf"}`))
	cases := []struct {
		path, as string
		kind     string // what Classify makes of the As
	}{
		{"p/c/deploy.md", "p/.claude-plugin/.claude/commands/deploy.md", "command"},
		{"p/c/sub/deploy.md", "p/.claude-plugin/.claude/commands/sub/deploy.md", "command"},
		{"p/c/tool/SKILL.md", "p/.claude-plugin/.claude/skills/tool/SKILL.md", "skill"},
		{"p/commands/old.md", "", ""}, // replaced by ./c
		{"p/a/one.md", "p/.claude-plugin/.claude/agents/one.md", "subagent"},
		{"p/agents/x.md", "", ""},
		{"p/s/x/SKILL.md", "p/.claude-plugin/.claude/skills/x/SKILL.md", "skill"},
		{"p/solo/SKILL.md", "p/.claude-plugin/.claude/skills/solo/SKILL.md", "skill"},
		{"p/skills/y/SKILL.md", "p/.claude-plugin/.claude/skills/y/SKILL.md", "skill"}, // the default adds
		{"p/s/x/notes.md", "", ""},
		{"p/h.json", "p/h.json/" + pluginAsDir + "/hooks", "agent"},
		{"p/m.json", "p/m.json/" + pluginAsDir + "/mcpServers", "agent"},
		{"p/mon.json", "p/mon.json/" + pluginAsDir + "/monitors", "agent"},
		{"p/.lsp.json", "p/.lsp.json/" + pluginAsDir + "/lspServers", "agent"},
		{"p/monitors/monitors.json", "", ""},                                  // replaced by ./mon.json
		{"p/hooks/hooks.json", "", ""},                                        // a plugin hooks file by its path already
		{"p/.mcp.json", "", ""},                                               // an MCP file by its path already
		{"p/SKILL.md", "p/.claude-plugin/.claude/skills/p/SKILL.md", "skill"}, // skills "." is the root
		{"p/wf/release.js", "p/wf/release.js/" + pluginAsDir + "/workflows", "agent"},
		{"p/workflows/old.js", "", ""}, // replaced by ./wf
		{"p/README.md", "", ""},
	}
	for _, c := range cases {
		if got := PluginAs(c.path, ls); got != c.as {
			t.Errorf("PluginAs(%s) = %q, want %q", c.path, got, c.as)
			continue
		}
		if c.as == "" {
			continue
		}
		k, _ := Classify(c.as, nil)
		want := map[string]report.FileKind{"command": report.CommandFile, "skill": report.SkillFile, "subagent": report.SubagentFile, "agent": AgentFile}[c.kind]
		if k != want {
			t.Errorf("Classify(%s) = %v, want %s", c.as, k, c.kind)
		}
		if c.kind == "agent" && codexOpaque(c.as) == "" {
			t.Errorf("%s is not held as an opaque file", c.as)
		}
	}
}

// FuzzPluginLayouts: any manifest or marketplace reads without a panic,
// and every path it yields is a repository path (no .., not absolute).
func FuzzPluginLayouts(f *testing.F) {
	f.Add("p/.claude-plugin/plugin.json", `{"name": "p", "hooks": "./h.json", "commands": ["./c", 5]}`)
	f.Add("m/.claude-plugin/marketplace.json", `{"metadata": {"pluginRoot": "x"}, "plugins": [{"source": "./../../a", "hooks": "./../h"}]}`)
	f.Add(".claude-plugin/plugin.json", `{"agents": "./../../../x", "skills": "/etc"}`)
	f.Fuzz(func(t *testing.T, p, data string) {
		if !IsPluginManifest(p) {
			return
		}
		ls, _ := PluginLayouts(p, []byte(data))
		for _, l := range ls {
			for _, pp := range l.Paths {
				if strings.HasPrefix(pp.Path, "/") || pp.Path == ".." || strings.HasPrefix(pp.Path, "../") || strings.Contains(pp.Path, "/../") {
					t.Fatalf("%s yields %q", p, pp.Path)
				}
				_ = l.As(pp.Path)
			}
		}
	})
}

// TestRepointMarketplace: the base of a marketplace whose plugin moved
// from one folder to another is spelt as the head spells the new source,
// token for token (lines kept), and only where every entry naming the old
// folder has a head entry of its name naming the new one.
func TestRepointMarketplace(t *testing.T) {
	const p = ".claude-plugin/marketplace.json"
	mk := func(entries ...string) string {
		return "{\n  \"name\": \"m\",\n  \"plugins\": [\n    " + strings.Join(entries, ",\n    ") + "\n  ]\n}\n"
	}
	e := func(name, src string) string { return `{"name": "` + name + `", "source": "` + src + `"}` }
	for _, c := range []struct {
		name, base, head, want string
		ok                     bool
	}{
		{"one entry re-pointed", mk(e("a", "./plugins/a")), mk(e("a", "./plugins/a2")), mk(e("a", "./plugins/a2")), true},
		{"respelt without ./ at the head", mk(e("a", "./plugins/a")), mk(e("a", "plugins/a2")), mk(e("a", "plugins/a2")), true},
		{"other entries kept as they were", mk(e("b", "./b"), e("a", "./plugins/a")), mk(e("b", "./b2"), e("a", "./plugins/a2")), mk(e("b", "./b"), e("a", "./plugins/a2")), true},
		{"two entries naming the folder", mk(e("a", "./plugins/a"), e("c", "./plugins/a/")), mk(e("a", "./plugins/a2"), e("c", "./plugins/a2")), mk(e("a", "./plugins/a2"), e("c", "./plugins/a2")), true},
		{"no entry names the old folder", mk(e("b", "./b")), mk(e("b", "./b")), mk(e("b", "./b")), true},
		{"the head renames the entry", mk(e("a", "./plugins/a")), mk(e("z", "./plugins/a2")), "", false},
		{"the head still names the old folder only", mk(e("a", "./plugins/a")), mk(e("a", "./plugins/a")), "", false},
		{"a base with a comment", "// x\n" + mk(e("a", "./plugins/a")), mk(e("a", "./plugins/a2")), "", false},
	} {
		got, ok := RepointMarketplace(p, []byte(c.base), []byte(c.head), "plugins/a", "plugins/a2")
		if ok != c.ok || ok && string(got) != c.want {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
		if ok && strings.Count(string(got), "\n") != strings.Count(c.base, "\n") {
			t.Errorf("%s: the lines moved", c.name)
		}
	}
}
