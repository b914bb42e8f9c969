package claudeschema_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
	"github.com/shipgate-app/shipgate/internal/conformance"
	"github.com/shipgate-app/shipgate/jsonpos"
)

// TestDropOnTheBinary asks the real Claude Code, through the conformance
// harness, about files with one mistyped value: it runs the calls their
// deny rules stop as if the file were not there (and no longer runs the
// grant of its allow rule), in settings.json and settings.local.json
// alike; Validate must say the same of each file.
func TestDropOnTheBinary(t *testing.T) {
	bin := conformance.ClaudeForTest(t)
	const rules = `"permissions": {"deny": ["Read(./.env)", "Bash(cat *)"], "allow": ["Bash(npm *)"]%s}`
	file := func(inPerms, top string) string {
		return "{" + fmt.Sprintf(rules, inPerms) + top + "}\n"
	}
	cases := []struct {
		name    string
		content string
		local   bool
		dropped bool
	}{
		{"valid", file("", ""), false, false},
		{"valid with a byte order mark", "\ufeff" + file("", ""), false, false},
		{"an unknown key", file("", `, "shipgateUnknown": 5`), false, false},
		{"model: 5", file("", `, "model": 5`), false, true},
		{`cleanupPeriodDays: "30"`, file("", `, "cleanupPeriodDays": "30"`), false, true},
		{"additionalDirectories as a string", file(`, "additionalDirectories": "../shared"`, ""), false, true},
		{"ask as an object", file(`, "ask": {"Bash(git push *)": true}`, ""), false, true},
		{`sandbox.enabled: "yes"`, file("", `, "sandbox": {"enabled": "yes"}`), false, true},
		{"disableBypassPermissionsMode: true", file(`, "disableBypassPermissionsMode": true`, ""), false, true},
		{"a hook event as a string", file("", `, "hooks": {"PreToolUse": "echo hi"}`), false, true},
		{"local: valid", file("", ""), true, false},
		{"local: model: 5", file("", `, "model": 5`), true, true},
		{"local: ask as an object", file(`, "ask": {"Bash(git push *)": true}`, ""), true, true},
	}
	calls := []conformance.Call{{Tool: "Read", Arg: "$PROJ/.env"}, {Tool: "Bash", Arg: "cat .env"}, {Tool: "Bash", Arg: "npm publish"}}
	kept := []conformance.Decision{conformance.Deny, conformance.Deny, conformance.Allow}
	dropped := []conformance.Decision{conformance.Allow, conformance.Allow, conformance.Ask}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	d := conformance.Driver{Binary: bin}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	results := make([]conformance.SessionResult, len(cases))
	errs := make([]error, len(cases))
	for i, c := range cases {
		s := conformance.Session{Settings: c.content, Calls: calls}
		if c.local {
			s.Settings, s.Local = "", c.content
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = d.Run(ctx, s)
		}()
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatalf("session: %v", errs[i])
			}
			want := kept
			if c.dropped {
				want = dropped
			}
			var got []conformance.Decision
			for _, r := range results[i].Results {
				got = append(got, r.Decision)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Claude Code decided %v on %v, want %v (dropped=%v)\n%s", got, calls, want, c.dropped, c.content)
			}
			doc, _, err := jsonpos.Options{AllowBOM: true}.Parse([]byte(c.content))
			if err != nil {
				t.Fatal(err)
			}
			if v := claudeschema.Pinned().Validate(doc); (v != nil) != c.dropped {
				t.Errorf("Validate: %v, the binary dropped=%v", v, c.dropped)
			}
			t.Logf("%s: %v (%s)", c.name, got, strings.TrimSpace(c.content))
		})
	}
}

// TestOverrideOnTheBinary asks the real Claude Code how it merges
// settings.local.json over settings.json: a local scalar (defaultMode)
// replaces the project's, and deleting it restores the project's value; a
// local list (additionalDirectories) is added to the project's, not put in
// its place. judge/effective.go models the first; the engine reads lists
// file by file, which the second justifies.
func TestOverrideOnTheBinary(t *testing.T) {
	bin := conformance.ClaudeForTest(t)
	mode := func(m string) string { return `{"permissions": {"defaultMode": "` + m + `"}}` }
	edits := []conformance.Call{{Tool: "Write", Arg: "$PROJ/w1.txt"}, {Tool: "Bash", Arg: "rm -rf build"}}
	reads := []conformance.Call{{Tool: "Read", Arg: "/etc/passwd"}}
	extra := []conformance.Call{{Tool: "Read", Arg: "$EXTRA/notes.md"}}
	cases := []struct {
		name           string
		project, local string
		calls          []conformance.Call
		want           []conformance.Decision
	}{
		{"project acceptEdits", mode("acceptEdits"), "", edits, []conformance.Decision{conformance.Allow, conformance.Allow}},
		{"project acceptEdits, local default", mode("acceptEdits"), mode("default"), edits, []conformance.Decision{conformance.Ask, conformance.Ask}},
		{"project plan", mode("plan"), "", reads, []conformance.Decision{conformance.Allow}},
		{"project plan, local default", mode("plan"), mode("default"), reads, []conformance.Decision{conformance.Ask}},
		{"project additionalDirectories, local an empty list", `{"permissions": {"additionalDirectories": ["$EXTRA"]}}`, `{"permissions": {"additionalDirectories": []}}`, extra, []conformance.Decision{conformance.Allow}},
		{"local additionalDirectories, project another", `{"permissions": {"additionalDirectories": ["$HOME"]}}`, `{"permissions": {"additionalDirectories": ["$EXTRA"]}}`, extra, []conformance.Decision{conformance.Allow}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	d := conformance.Driver{Binary: bin}
	results := make([]conformance.SessionResult, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = d.Run(ctx, conformance.Session{Settings: c.project, Local: c.local, Calls: c.calls})
		}()
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatalf("session: %v", errs[i])
			}
			var got []conformance.Decision
			for _, r := range results[i].Results {
				got = append(got, r.Decision)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("Claude Code decided %v on %v, want %v\nproject %s\nlocal %s", got, c.calls, c.want, c.project, c.local)
			}
			t.Logf("%s: %v", c.name, got)
		})
	}
}
