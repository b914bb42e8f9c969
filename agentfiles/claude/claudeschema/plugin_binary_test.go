package claudeschema_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/internal/conformance"
)

// TestPluginHooksOnTheBinary asks the real Claude Code which hooks files
// of a plugin it loads for a session started with --plugin-dir: each
// hooks file holds a PreToolUse hook that touches a marker named after
// it, and the session makes one Bash call. Measured on 2.1.328: the
// default hooks/hooks.json and a file (or list of files) the manifest's
// "hooks" names are both loaded (the manifest adds, it does not
// replace), an inline "hooks" object (event → groups) too. A path not
// starting with ./ makes the manifest invalid and the plugin is not
// loaded at all; a path through ./.. ("escapes plugin directory") or to
// a missing file loads none of the plugin's hooks, the default's
// neither. agentfiles.PluginComponents models what this test sees.
func TestPluginHooksOnTheBinary(t *testing.T) {
	bin := conformance.ClaudeForTest(t)
	marks := t.TempDir()
	events := func(name string) string {
		return `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/bin/touch ` + filepath.Join(marks, "NAME-"+name) + `"}]}]}`
	}
	hook := func(name string) string { return `{"hooks": ` + events(name) + `}` }
	cases := []struct {
		name     string
		manifest string
		files    map[string]string // under the plugin folder; "../x" is beside it
		want     []string          // hooks files whose hook ran
	}{
		{"control: the hook in the project's settings", "", nil, []string{"settings"}},
		{"default hooks/hooks.json", `{"name": "p"}`, map[string]string{"hooks/hooks.json": hook("default")}, []string{"default"}},
		{"manifest names a file, default present", `{"name": "p", "hooks": "./config/h.json"}`,
			map[string]string{"hooks/hooks.json": hook("default"), "config/h.json": hook("named")}, []string{"default", "named"}},
		{"manifest names a file, no default", `{"name": "p", "hooks": "./scripts/h.json"}`,
			map[string]string{"scripts/h.json": hook("named")}, []string{"named"}},
		{"manifest names a list", `{"name": "p", "hooks": ["./a.json", "./b.json"]}`,
			map[string]string{"a.json": hook("a"), "b.json": hook("b")}, []string{"a", "b"}},
		{"inline hooks", `{"name": "p", "hooks": ` + events("inline") + `}`,
			map[string]string{"hooks/hooks.json": hook("default")}, []string{"default", "inline"}},
		{"a path outside the plugin", `{"name": "p", "hooks": "../outside.json"}`,
			map[string]string{"../outside.json": hook("outside")}, nil},
		{"a path through ./..", `{"name": "p", "hooks": "./../outside.json"}`,
			map[string]string{"hooks/hooks.json": hook("default"), "../outside.json": hook("outside")}, nil},
		{"a manifest naming a missing file", `{"name": "p", "hooks": "./none.json"}`,
			map[string]string{"hooks/hooks.json": hook("default")}, nil},
		{"a path without ./", `{"name": "p", "hooks": "config/h.json"}`,
			map[string]string{"config/h.json": hook("bare")}, nil},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	d := conformance.Driver{Binary: bin}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	errs := make([]error, len(cases))
	for i, c := range cases {
		files := map[string]string{"plug/.claude-plugin/plugin.json": c.manifest}
		for p, data := range c.files {
			files[filepath.ToSlash(filepath.Join("plug", p))] = strings.ReplaceAll(data, "NAME-", c.name[:3]+itoa(i)+"-")
		}
		files["plug/.claude-plugin/plugin.json"] = strings.ReplaceAll(c.manifest, "NAME-", c.name[:3]+itoa(i)+"-")
		s := conformance.Session{Files: files, Args: []string{"--plugin-dir", "plug"},
			Calls: []conformance.Call{{Tool: "Bash", Arg: "echo hi"}}}
		if c.manifest == "" {
			s = conformance.Session{Settings: strings.ReplaceAll(hook("settings"), "NAME-", c.name[:3]+itoa(i)+"-"), Calls: s.Calls}
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, errs[i] = d.Run(ctx, s)
		}(i)
	}
	wg.Wait()
	for i, c := range cases {
		if errs[i] != nil {
			t.Errorf("%s: %v", c.name, errs[i])
			continue
		}
		ents, _ := os.ReadDir(marks)
		var got []string
		prefix := c.name[:3] + itoa(i) + "-"
		for _, e := range ents {
			if n, ok := strings.CutPrefix(e.Name(), prefix); ok {
				got = append(got, n)
			}
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: the hooks of %v ran, want %v", c.name, got, c.want)
		}
	}
}

func itoa(i int) string { return string(rune('a' + i)) }
