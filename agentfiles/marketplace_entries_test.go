package agentfiles

import (
	"strings"
	"testing"
)

// TestMarketplaceSettings: a marketplace is read entry by entry, each
// local entry keyed by its folder (a rename is a change in place), and of
// Grant 0 only when it declares nothing but its name, folder, part paths
// and strict.
func TestMarketplaceSettings(t *testing.T) {
	t.Parallel()
	const p = ".claude-plugin/marketplace.json"
	mk := func(own, entries string) string {
		return `{"name": "m", "owner": {"name": "o"}` + own + `, "plugins": [` + entries + `]}`
	}
	for _, c := range []struct {
		name, data string
		want       map[string]int // key → Grant
	}{
		{"a local entry with metadata and part paths", mk("", `{"name": "a", "source": "./plugins/a", "version": "1", "category": "x", "commands": ["./c/x.md"], "strict": false}`),
			map[string]int{"file " + p: 0, "plugin in plugins/a of " + p: 0}},
		{"an entry with an inline hook", mk("", `{"name": "a", "source": "./plugins/a", "hooks": {"SessionStart": []}}`),
			map[string]int{"file " + p: 0, "plugin in plugins/a of " + p: 1}},
		{"a remote entry keyed by its name", mk("", `{"name": "r", "source": {"source": "github", "repo": "x/r"}}`),
			map[string]int{"file " + p: 0, `plugin "r" of ` + p: 1}},
		{"two entries of one folder keyed by name too", mk("", `{"name": "a", "source": "./"}, {"name": "b", "source": "./"}`),
			map[string]int{"file " + p: 0, `plugin "a" in . of ` + p: 0, `plugin "b" in . of ` + p: 0}},
		{"a duplicate key numbered", mk("", `{"name": "a", "source": "./x"}, {"name": "a", "source": "./x/"}`),
			map[string]int{"file " + p: 0, `plugin "a" in x of ` + p: 0, `plugin "a" in x (entry 2) of ` + p: 0}},
		{"a source without ./ is read as a grant", mk(`, "metadata": {"pluginRoot": "./plugins"}`, `{"name": "a", "source": "a"}`),
			map[string]int{"file " + p: 0, `plugin "a" of ` + p: 1}},
		{"an unknown key of the marketplace", mk(`, "allowCrossMarketplace": true`, `{"name": "a", "source": "./a"}`),
			map[string]int{"file " + p: 1, "plugin in a of " + p: 0}},
		{"an entry that is not an object", mk("", `"./a"`),
			map[string]int{"file " + p: 0, "plugin #1 of " + p: 1}},
		{"strict not a boolean", mk("", `{"name": "a", "source": "./a", "strict": "no"}`),
			map[string]int{"file " + p: 0, "plugin in a of " + p: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := CodexAdapter{}.Read(p, []byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, s := range d.Settings {
				got[s.Key] = s.Grant
				if s.Pos.Line < 1 {
					t.Errorf("%s has no line", s.Key)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("settings %v, want %v", got, c.want)
			}
			for k, g := range c.want {
				if gg, ok := got[k]; !ok || gg != g {
					t.Errorf("%s: grant %d (present %v), want %d; all %v", k, gg, ok, g, got)
				}
			}
		})
	}
	// Only an entry whose one grant is its remote source is removed
	// quietly (QuietRemoval); an inline part or an unknown key is not.
	for _, c := range []struct {
		entry string
		quiet bool
	}{
		{`{"name": "r", "source": {"source": "github", "repo": "x/r"}, "version": "1", "strict": false}`, true},
		{`{"name": "r", "source": "https://x.example/r.git"}`, true},
		{`{"name": "r", "source": {"source": "github", "repo": "x/r"}, "hooks": {"PreToolUse": []}}`, false},
		{`{"name": "r", "source": {"source": "github", "repo": "x/r"}, "mcpServers": {"s": {"command": "x"}}}`, false},
		{`{"name": "r", "source": {"source": "github", "repo": "x/r"}, "unknownKey": 1}`, false},
		{`{"name": "r", "source": "./plugins/r", "hooks": {"PreToolUse": []}}`, false},
		{`{"name": "r", "source": "./plugins/r"}`, false}, // Grant 0: quiet anyway
	} {
		d, err := CodexAdapter{}.Read(p, []byte(mk("", c.entry)))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Settings[1].QuietRemoval; got != c.quiet {
			t.Errorf("%s: QuietRemoval %v, want %v", c.entry, got, c.quiet)
		}
	}
	// The same entry renamed is a change of its setting's value.
	a, _ := CodexAdapter{}.Read(p, []byte(mk("", `{"name": "a", "source": "./plugins/a"}`)))
	b, _ := CodexAdapter{}.Read(p, []byte(mk("", `{"name": "b", "source": "./plugins/a"}`)))
	if a.Settings[1].Key != b.Settings[1].Key || a.Settings[1].Value == b.Settings[1].Value {
		t.Errorf("a rename: %+v vs %+v", a.Settings[1], b.Settings[1])
	}
	// Metadata and descriptions leave every value as it was.
	c, _ := CodexAdapter{}.Read(p, []byte(`{"name": "m", "owner": {"name": "p"}, "metadata": {"description": "d", "version": "2"}, "plugins": [{"name": "a", "source": "./plugins/a", "description": "new", "version": "3"}]}`))
	for i := range a.Settings {
		if a.Settings[i] != c.Settings[i] && a.Settings[i].Value != c.Settings[i].Value {
			t.Errorf("metadata changed %s: %q → %q", a.Settings[i].Key, a.Settings[i].Value, c.Settings[i].Value)
		}
	}
}

// FuzzMarketplaceSettings: any marketplace reads without a panic, and
// every setting has a key, a value and a line.
func FuzzMarketplaceSettings(f *testing.F) {
	f.Add(`{"name": "m", "plugins": [{"name": "a", "source": "./a", "hooks": {}}, "x", {"source": {"source": "github"}}]}`)
	f.Add(`{"metadata": {"pluginRoot": "./p", "x": 1}, "plugins": [{"name": "a", "source": "a", "strict": 3, "commands": ["./c", 5]}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		d, err := CodexAdapter{}.Read(".claude-plugin/marketplace.json", []byte(data))
		if err != nil || d == nil {
			return
		}
		for _, s := range d.Settings {
			if s.Key == "" || s.Value == "" || s.Pos.Line < 1 || !strings.HasSuffix(s.Key, ".json") {
				t.Fatalf("setting %+v", s)
			}
		}
	})
}
