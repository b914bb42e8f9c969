package judge

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// perms builds a settings file from allow/ask/deny lists.
type perms struct{ allow, ask, deny []string }

func (p perms) json() string {
	m := map[string]any{}
	add := func(k string, v []string) {
		if v != nil {
			m[k] = v
		}
	}
	add("allow", p.allow)
	add("ask", p.ask)
	add("deny", p.deny)
	b, _ := json.MarshalIndent(map[string]any{"permissions": m}, "", "  ")
	return string(b)
}

func settingsPair(base, head string) report.Input {
	return report.Input{Files: []report.File{{Path: ".claude/settings.json",
		Base: report.Version{Exists: base != "", Data: []byte(base)},
		Head: report.Version{Exists: head != "", Data: []byte(head)}}}}
}

func checkIDs(r report.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Action == "advisory" {
			continue
		}
		out = append(out, strings.TrimPrefix(f.CheckID, "SHIP-HOST-BOUNDARY-"))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func rowsSummary(r report.Report) []string {
	var out []string
	for _, c := range r.Changes {
		mark := ""
		if c.Expands {
			mark = "!"
		}
		out = append(out, fmt.Sprintf("%s%s %s %s→%s", mark, c.Direction, c.List, c.Before, c.After))
	}
	return out
}

// TestRepresentativeCases holds shipgate-spec 7.3: base → head ⇒ expected
// classification, decision and checks.
func TestRepresentativeCases(t *testing.T) {
	cases := []struct {
		n          int
		base, head perms
		decision   report.Decision
		checks     []string // PERMISSION- prefixed names without SHIP-HOST-BOUNDARY-
		rows       []string // expected row summaries (subset, in any order)
	}{
		{1, perms{allow: []string{"Bash(npm test:*)"}}, perms{allow: []string{"Bash(npm *)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, []string{"!widened allow Bash(npm test:*)→Bash(npm *)"}},
		{2, perms{allow: []string{"Bash(npm *)"}}, perms{allow: []string{"Bash(npm test:*)"}}, report.DecisionAllow,
			nil, []string{"narrowed allow Bash(npm *)→Bash(npm test:*)"}},
		{3, perms{allow: []string{"Bash(npm:*)"}}, perms{allow: []string{"Bash(npm test:*)"}}, report.DecisionAllow,
			nil, []string{"narrowed allow Bash(npm:*)→Bash(npm test:*)"}},
		{4, perms{allow: []string{"Bash(npm run test:*)"}}, perms{allow: []string{"Bash(npm run test:*)", "Bash(npm run test:unit)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, []string{"!added allow →Bash(npm run test:unit)"}},
		{5, perms{allow: []string{"Bash(git add:*)"}}, perms{allow: []string{"Bash(git add *)"}}, report.DecisionAllow,
			nil, []string{"respelled allow Bash(git add:*)→Bash(git add *)"}},
		{6, perms{allow: []string{"Bash(*)"}}, perms{allow: []string{"Bash"}}, report.DecisionAllow,
			nil, []string{"respelled allow Bash(*)→Bash"}},
		{7, perms{allow: []string{"Bash(gh pr *)"}}, perms{allow: []string{"Bash(gh pr view *)", "Bash(gh pr diff *)", "Bash(gh pr list *)", "Bash(gh pr checks *)"}}, report.DecisionAllow,
			nil, []string{"narrowed allow Bash(gh pr *)→Bash(gh pr view *)", "narrowed allow Bash(gh pr *)→Bash(gh pr checks *)"}},
		{8, perms{allow: []string{"Bash(pnpm run lint:*)"}}, perms{allow: []string{"Bash(pnpm run lint *)", "Bash(pnpm run lint:fix *)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, []string{"respelled allow Bash(pnpm run lint:*)→Bash(pnpm run lint *)", "!added allow →Bash(pnpm run lint:fix *)"}},
		{9, perms{allow: []string{"Bash(git *)"}}, perms{allow: []string{"Bash(git *)", "Bash(git merge --no-ff -X ours:*)"}}, report.DecisionAllow,
			nil, []string{"covered allow Bash(git *)→Bash(git merge --no-ff -X ours:*)"}},
		{10, perms{allow: []string{"Bash(git status *)"}, deny: []string{"Bash(git log *)"}}, perms{allow: []string{"Bash(git status --short *)", "Bash(git log *)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED", "PERMISSION-DENY-REMOVED"}, []string{"!moved allow deny: Bash(git log *)→allow: Bash(git log *)", "narrowed allow Bash(git status *)→Bash(git status --short *)"}},
		{11, perms{allow: []string{"Bash(npm *)"}}, perms{allow: []string{"Bash(npm test *)"}, deny: []string{"Bash(npm *)"}}, report.DecisionAllow,
			nil, nil},
		{12, perms{allow: []string{"Bash(git status *)"}}, perms{allow: []string{"Bash(git *)"}, deny: []string{"Bash(git status *)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, []string{"!widened allow Bash(git status *)→Bash(git *)"}},
		{13, perms{allow: []string{"Read"}}, perms{allow: []string{"Read", "mcp__github__get_issue"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, []string{"!added allow →mcp__github__get_issue"}},
		{14, perms{allow: []string{"Read"}}, perms{allow: []string{"Read", "mcp__github__*"}}, report.DecisionBlock,
			[]string{"PERMISSION-WILDCARD-ALLOW"}, nil},
		{15, perms{allow: []string{"mcp__github"}}, perms{allow: []string{"mcp__github__get_issue"}}, report.DecisionAllow,
			nil, []string{"narrowed allow mcp__github→mcp__github__get_issue"}},
		{16, perms{allow: []string{"Edit", "Write"}}, perms{allow: []string{"Edit", "Write", "Edit(**/.env.example)", "Write(**/.env.example)"}}, report.DecisionAllow,
			nil, []string{"covered allow Edit→Edit(**/.env.example)"}},
		{17, perms{allow: []string{"Read"}}, perms{allow: []string{"Read", "Edit(**/.env.example)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, nil},
		{18, perms{deny: []string{"Read(.env.*)"}}, perms{deny: []string{"Read(.env.*)", "Read(!.env.example)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-DENY-REMOVED"}, []string{"!added deny →Read(!.env.example)"}},
		{19, perms{deny: []string{"Read(.env.*)"}}, perms{deny: []string{"Read(!.env.example)", "Read(.env.*)"}}, report.DecisionAllow,
			nil, nil},
		{20, perms{deny: []string{"Write(.env)", "NotebookEdit(.env)"}}, perms{deny: []string{"Bash(rm -rf *)"}}, report.DecisionAllow,
			nil, []string{"removed deny Write(.env)→"}},
		{21, perms{deny: []string{"Write", "Read(.env)"}}, perms{deny: []string{"Read(.env)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-DENY-REMOVED"}, []string{"!removed deny Write→"}},
		{22, perms{allow: []string{"Bash(python3 -c *)"}}, perms{allow: []string{"Bash(python3 *)"}}, report.DecisionBlock,
			[]string{"PERMISSION-WILDCARD-ALLOW"}, []string{"!widened allow Bash(python3 -c *)→Bash(python3 *)"}},
		{23, perms{allow: []string{"Bash(npx:*)"}}, perms{allow: []string{"Bash(npx *)"}}, report.DecisionAllow,
			nil, []string{"respelled allow Bash(npx:*)→Bash(npx *)"}},
		{24, perms{allow: []string{"*"}}, perms{allow: []string{"*", "Bash(npm test)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, nil},
		{25, perms{allow: []string{"Bash(find *)"}}, perms{allow: []string{"Bash(find *)", "Bash(find . -delete)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-ALLOW-EXPANDED"}, []string{"!added allow →Bash(find . -delete)"}},
		// Claude Code 2.1.328 (measured): blanks inside a rule are normalised,
		// a blank outside it makes Claude Code skip the rule.
		{26, perms{deny: []string{"Bash(rm:*)"}}, perms{deny: []string{"Bash( rm *)"}}, report.DecisionAllow,
			nil, []string{"respelled deny Bash(rm:*)→Bash( rm *)"}},
		{27, perms{deny: []string{"Bash(rm:*)"}}, perms{deny: []string{" Bash(rm *)"}}, report.DecisionRequireReview,
			[]string{"PERMISSION-DENY-REMOVED"}, []string{"added deny → Bash(rm *)"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			r := Compare(settingsPair(c.base.json(), c.head.json()))
			if r.Decision != c.decision {
				t.Errorf("decision %s, want %s\nrows: %q\nfindings: %v", r.Decision, c.decision, rowsSummary(r), r.Findings)
			}
			if got := checkIDs(r); !slices.Equal(got, c.checks) {
				t.Errorf("checks %v, want %v\nrows: %q", got, c.checks, rowsSummary(r))
			}
			rows := rowsSummary(r)
			for _, want := range c.rows {
				if !slices.Contains(rows, want) {
					t.Errorf("missing row %q in %q", want, rows)
				}
			}
		})
	}
}

// TestExecTierBlocks: each widen-and-still-block pair of the seed.
func TestExecTierBlocks(t *testing.T) {
	for _, p := range [][2]string{{"Bash(python3 -c *)", "Bash(python3 *)"}, {"Bash(npx *)", "Bash(npx*)"}, {"Bash(env *)", "Bash(e*)"}} {
		r := Compare(settingsPair(perms{allow: []string{p[0]}}.json(), perms{allow: []string{p[1]}}.json()))
		if r.Decision != report.DecisionBlock {
			t.Errorf("%s → %s: decision %s", p[0], p[1], r.Decision)
		}
		var wild []report.Finding
		for _, f := range r.Findings {
			if f.CheckID == report.CheckWildcardAllow {
				wild = append(wild, f)
			}
		}
		if len(wild) != 1 || !strings.Contains(wild[0].Message, p[1]) {
			t.Errorf("%s → %s: findings %v", p[0], p[1], r.Findings)
		}
		if r.Changes[0].Risk != "critical" {
			t.Errorf("%s → %s: row risk %s", p[0], p[1], r.Changes[0].Risk)
		}
	}
	// A respelling grants nothing; a narrowing from a broader allow is not
	// an expansion even into a tier rule.
	for _, p := range [][2]string{{"Bash(npx:*)", "Bash(npx *)"}, {"Bash(*)", "Bash(npx *)"}, {"Bash(python3 *)", "Bash(python3 -c *)"}} {
		r := Compare(settingsPair(perms{allow: []string{p[0]}}.json(), perms{allow: []string{p[1]}}.json()))
		if r.Decision != report.DecisionAllow {
			t.Errorf("%s → %s: decision %s, findings %v", p[0], p[1], r.Decision, r.Findings)
		}
	}
	// A newly added launcher blocks, with the table text as evidence.
	r := Compare(settingsPair(perms{allow: []string{"Bash(npm test *)"}}.json(), perms{allow: []string{"Bash(npm test *)", "Bash(npx:*)"}}.json()))
	if r.Decision != report.DecisionBlock || r.Findings[0].Evidence != "Bash(npx *)" {
		t.Errorf("launcher added: %s %v", r.Decision, r.Findings)
	}
}

// TestEffectiveView: rules across the settings files of one project are
// evaluated together (deny, then ask, then allow).
func TestEffectiveView(t *testing.T) {
	local := perms{deny: []string{"Bash(npm publish *)", "Bash(npm exec *)"}}.json()
	in := report.Input{Files: []report.File{
		{Path: ".claude/settings.json",
			Base: report.Version{Exists: true, Data: []byte(perms{allow: []string{"Bash(npm test *)"}}.json())},
			Head: report.Version{Exists: true, Data: []byte(perms{allow: []string{"Bash(npm test *)", "Bash(npm publish *)"}}.json())}},
		{Path: ".claude/settings.local.json", Base: report.Version{Exists: true, Data: []byte(local)}, Head: report.Version{Exists: true, Data: []byte(local)}},
	}}
	r := Compare(in)
	if r.Decision != report.DecisionAllow {
		t.Fatalf("an allow rule shadowed by a deny in settings.local.json expanded: %v", rowsSummary(r))
	}
	if !strings.Contains(r.Changes[0].Why, "deny: Bash(npm publish *)") {
		t.Errorf("why does not name the shadowing deny: %q", r.Changes[0].Why)
	}
	// A partly shadowed rule's witnesses avoid the denied calls.
	in.Files[0].Head.Data = []byte(perms{allow: []string{"Bash(npm test *)", "Bash(npm *)"}}.json())
	r = Compare(in)
	if r.Decision != report.DecisionRequireReview {
		t.Fatalf("decision %s", r.Decision)
	}
	for _, w := range r.Changes[0].Witnesses {
		if strings.HasPrefix(w, "npm publish") || strings.HasPrefix(w, "npm exec") {
			t.Errorf("witness %q is denied by settings.local.json", w)
		}
	}
	// Removing the deny from settings.local.json frees the calls: the
	// finding says they now run without a prompt.
	in = report.Input{Files: []report.File{
		{Path: ".claude/settings.json", Base: report.Version{Exists: true, Data: []byte(perms{allow: []string{"Bash(npm *)"}}.json())}, Head: report.Version{Exists: true, Data: []byte(perms{allow: []string{"Bash(npm *)"}}.json())}},
		{Path: ".claude/settings.local.json", Base: report.Version{Exists: true, Data: []byte(local)}, Head: report.Version{Exists: true, Data: []byte(perms{deny: []string{"Bash(npm exec *)"}}.json())}},
	}}
	r = Compare(in)
	if r.Decision != report.DecisionRequireReview || !strings.Contains(r.Findings[0].Message, "now runs without a prompt (allow: Bash(npm *))") {
		t.Errorf("deny removal: %s %v", r.Decision, r.Findings)
	}
}

func TestFileLevelFailures(t *testing.T) {
	base := perms{allow: []string{"Bash(npm test *)"}, deny: []string{"Read(.env)", "Bash(rm *)"}}.json()
	cases := []struct {
		name, head string
		status     string
		check      string
		risk       string
		line       int
	}{
		{"comment", "{\n  // allow npm\n  \"permissions\": {}\n}", report.StatusParseFailed, report.CheckParseFailed, "high", 2},
		{"trailing comma", "{\"permissions\": {\"allow\": [\"Bash(x)\",]}}", report.StatusParseFailed, report.CheckParseFailed, "high", 1},
		{"not an object", "[1,2]", report.StatusParseFailed, report.CheckParseFailed, "high", 1},
		// Claude Code 2.1.328 reads a byte order mark: the head is {}, so
		// the base's denials go.
		{"bom", "\ufeff{}", report.StatusCompared, report.CheckDenyRemoved, "high", 0},
		{"empty", "", report.StatusDeleted, report.CheckDenyRemoved, "high", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(settingsPair(base, c.head))
			if r.Files[0].Status != c.status {
				t.Errorf("status %s, want %s", r.Files[0].Status, c.status)
			}
			if r.Decision == report.DecisionAllow {
				t.Errorf("a broken or deleted file passed")
			}
			found := false
			for _, f := range r.Findings {
				if f.CheckID == c.check {
					found = true
					if string(f.Risk) != c.risk {
						t.Errorf("risk %s, want %s", f.Risk, c.risk)
					}
					if c.line > 0 && f.Line != c.line {
						t.Errorf("line %d, want %d", f.Line, c.line)
					}
				}
			}
			if !found {
				t.Errorf("no %s finding: %v", c.check, r.Findings)
			}
		})
	}
	big := `{"permissions":{"allow":["` + strings.Repeat("x", report.MaxFileSize) + `"]}}`
	r := Compare(settingsPair(base, big))
	if r.Files[0].Status != report.StatusTooLarge || r.Decision == report.DecisionAllow {
		t.Errorf("too large: %+v %s", r.Files[0], r.Decision)
	}
}

func TestProblemsAreFindings(t *testing.T) {
	head := "{\n  \"permissions\": {\"deny\": [\"Read(.env)\"]},\n  \"permissions\": {\"allow\": [\"Bash(npm test *)\", 3, \"  \"]},\n  \"permission\": {}\n}"
	r := Compare(settingsPair(perms{deny: []string{"Read(.env)"}}.json(), head))
	got := map[string]int{}
	for _, f := range r.Findings {
		got[f.CheckID] = f.Line
	}
	if got[report.CheckDuplicateKey] != 3 {
		t.Errorf("duplicate key finding at line %d: %v", got[report.CheckDuplicateKey], r.Findings)
	}
	if _, ok := got[report.CheckRuleInvalid]; !ok {
		t.Errorf("no invalid rule finding")
	}
	if got[report.CheckUnknownKey] != 4 {
		t.Errorf("unknown key finding: %v", r.Findings)
	}
	// The first permissions object is overridden: its deny rule is gone.
	if _, ok := got[report.CheckDenyRemoved]; !ok {
		t.Errorf("the overridden deny was not reported removed: %v", r.Findings)
	}
}

// TestByteOrderMark: Claude Code 2.1.328 reads a settings file that starts
// with a UTF-8 byte order mark (measured: its deny rules apply), so a base
// with a mark and denials is compared as what it holds, and a head {}
// removes those denials — it used to be compared as an empty base and pass.
func TestByteOrderMark(t *testing.T) {
	deny := perms{deny: []string{"Read(./.env)", "Bash(curl *)"}}.json()
	cases := []struct {
		name, base, head string
		decision         report.Decision
		checks           []string
	}{
		{"base with a mark, head {}", "\ufeff" + deny, "{}", report.DecisionRequireReview, []string{"PERMISSION-DENY-REMOVED"}},
		{"base with a mark, head without", "\ufeff" + deny, deny, report.DecisionAllow, nil},
		{"head gains a mark", deny, "\ufeff" + deny, report.DecisionAllow, nil},
		{"head with a mark adds an allow", "\ufeff{}", "\ufeff" + perms{allow: []string{"Bash(npm *)"}}.json(), report.DecisionRequireReview, []string{"PERMISSION-ALLOW-EXPANDED"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(settingsPair(c.base, c.head))
			if r.Decision != c.decision {
				t.Errorf("decision %s, want %s: %v", r.Decision, c.decision, r.Findings)
			}
			if got := checkIDs(r); !slices.Equal(got, c.checks) {
				t.Errorf("checks %v, want %v", got, c.checks)
			}
			if r.Files[0].Status == report.StatusParseFailed {
				t.Errorf("a file with a byte order mark is reported unreadable")
			}
			if c.checks != nil && c.checks[0] == "PERMISSION-DENY-REMOVED" && len(r.Findings) != 2 {
				t.Errorf("%d findings, want one a removed denial: %v", len(r.Findings), r.Findings)
			}
		})
	}
}

// TestSchemaDropsWholeFile: Claude Code 2.1.328 ignores a whole settings
// file when one value fails its settings schema (measured on the binary,
// project and local files alike): a head that fails drops the base's
// denials, and a base that fails granted nothing, so a fix switches its
// dormant allow rules on.
func TestSchemaDropsWholeFile(t *testing.T) {
	denials := `"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"]}`
	base := "{" + denials + "}"
	cases := []struct{ name, extra, key string }{
		{"model is a number", `"model": 5`, "model"},
		{"cleanupPeriodDays is a string", `"cleanupPeriodDays": "30"`, "cleanupPeriodDays"},
		{"additionalDirectories is a string", `"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"], "additionalDirectories": "../shared"}`, "permissions.additionalDirectories"},
		{"ask is an object", `"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"], "ask": {"Bash(git push *)": true}}`, "permissions.ask"},
		{"sandbox.enabled is a string", `"sandbox": {"enabled": "yes"}`, "sandbox.enabled"},
		{"disableBypassPermissionsMode is true", `"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"], "disableBypassPermissionsMode": true}`, "permissions.disableBypassPermissionsMode"},
		{"a hook event is a string", `"hooks": {"PreToolUse": "echo hi"}`, "hooks.PreToolUse"},
	}
	for _, path := range []string{".claude/settings.json", ".claude/settings.local.json"} {
		for _, c := range cases {
			head := "{" + denials + ", " + c.extra + "}"
			if strings.HasPrefix(c.extra, `"permissions"`) {
				head = "{" + c.extra + "}"
			}
			t.Run(path+"/"+c.name, func(t *testing.T) {
				in := settingsPair(base, head)
				in.Files[0].Path = path
				r := Compare(in)
				if r.Decision == report.DecisionAllow {
					t.Fatalf("a head Claude Code ignores passed: %v", r.Findings)
				}
				removed, named := 0, false
				for _, f := range r.Findings {
					if f.CheckID == report.CheckDenyRemoved {
						removed++
					}
					if f.CheckID == report.CheckParseFailed && strings.Contains(f.Message, "Claude Code ignores this whole file: `"+c.key+"` must be") {
						named = true
					}
				}
				if removed != 2 {
					t.Errorf("%d deny removals, want 2: %v", removed, r.Findings)
				}
				if !named {
					t.Errorf("no finding names `%s`: %v", c.key, r.Findings)
				}
			})
		}
	}
	// The other way: the base fails, so its allow rule lay dormant; the
	// head fixes the value and switches it on.
	dormant := `"permissions": {"allow": ["Bash(npm *)"]}`
	r := Compare(settingsPair("{"+dormant+`, "cleanupPeriodDays": "30"}`, "{"+dormant+`, "cleanupPeriodDays": 30}`))
	if got := checkIDs(r); !slices.Equal(got, []string{"PERMISSION-ALLOW-EXPANDED"}) {
		t.Errorf("fixing \"30\" → 30 under allow Bash(npm *): checks %v, want the allow as a grant", got)
	}
	// Both fail: nothing changes in effect; an advisory says the file is
	// still ignored.
	r = Compare(settingsPair(`{"model": 5, "permissions": {"deny": ["Bash(x)"]}}`, `{"model": 5}`))
	if r.Decision != report.DecisionAllow {
		t.Errorf("a file ignored before and after: %s, want allow: %v", r.Decision, r.Findings)
	}
	// Valid files are not touched: an unknown key, an alias the loader
	// accepts, a non-string rule it strips.
	for _, h := range []string{"{" + denials + `, "shipgateUnknown": 5}`, `{"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"], "defaultMode": "manual"}}`, `{"permissions": {"deny": ["Read(./.env)", "Bash(curl *)", 5]}}`} {
		r := Compare(settingsPair(base, h))
		for _, f := range r.Findings {
			if f.CheckID == report.CheckDenyRemoved || strings.Contains(f.Message, "ignores this whole file") {
				t.Errorf("%s: %s", h, f.Message)
			}
		}
	}
}

// TestEffectiveScalars: Claude Code merges settings.local.json over
// settings.json (a scalar of the local file replaces the project's), so
// removing a local override, or deleting the local file, widens when the
// project's value is wider — though neither file's own diff says so.
func TestEffectiveScalars(t *testing.T) {
	two := func(project, localBase, localHead string) report.Input {
		return report.Input{Files: []report.File{
			{Path: ".claude/settings.json", Base: report.Version{Exists: true, Data: []byte(project)}, Head: report.Version{Exists: true, Data: []byte(project)}},
			{Path: ".claude/settings.local.json", Base: report.Version{Exists: localBase != "", Data: []byte(localBase)}, Head: report.Version{Exists: localHead != "", Data: []byte(localHead)}},
		}}
	}
	mode := func(m string) string { return `{"permissions": {"defaultMode": "` + m + `"}}` }
	cases := []struct {
		name                          string
		project, localBase, localHead string
		decision                      report.Decision
		want                          string // a word the finding's message holds
	}{
		{"local default removed over project acceptEdits", mode("acceptEdits"), mode("default"), `{}`, report.DecisionRequireReview, "acceptEdits"},
		{"local file with default deleted over project acceptEdits", mode("acceptEdits"), mode("default"), "", report.DecisionRequireReview, "acceptEdits"},
		{"local default removed over project plan", mode("plan"), mode("default"), `{}`, report.DecisionRequireReview, "~/.ssh/id_rsa"},
		// Plan mode's auto-mode classifier may run the Bash calls no rule
		// decides (measured with the harness's fake classifier): a grant
		// even where every read is already allowed.
		{"local default removed over project plan that allows every read", `{"permissions": {"defaultMode": "plan", "allow": ["Read"]}}`, mode("default"), `{}`, report.DecisionRequireReview, "classifier may now run `npm publish`"},
		{"local plan added over project acceptEdits that allows every read", `{"permissions": {"defaultMode": "acceptEdits", "allow": ["Read"]}}`, "", mode("plan"), report.DecisionRequireReview, "classifier approves tool calls"},
		{"local default removed over project bypassPermissions", mode("bypassPermissions"), mode("default"), "", report.DecisionBlock, "bypassPermissions"},
		{"local disableBypassPermissionsMode removed", `{}`, `{"permissions": {"disableBypassPermissionsMode": "disable"}}`, `{}`, report.DecisionRequireReview, "lock is lifted"},
		{"local lock removed while the project holds it", `{"permissions": {"disableBypassPermissionsMode": "disable"}}`, `{"permissions": {"disableBypassPermissionsMode": "disable"}}`, `{}`, report.DecisionAllow, ""},
		{"local override removed over the same project mode", mode("default"), mode("default"), `{}`, report.DecisionAllow, ""},
		{"local plan removed over project default", mode("default"), mode("plan"), `{}`, report.DecisionRequireReview, "defaultMode"},
		{"local enableAllProjectMcpServers false removed over project true", `{"enableAllProjectMcpServers": true}`, `{"enableAllProjectMcpServers": false}`, "", report.DecisionBlock, "enableAllProjectMcpServers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(two(c.project, c.localBase, c.localHead))
			if r.Decision != c.decision {
				t.Fatalf("decision %s, want %s: %v", r.Decision, c.decision, r.Findings)
			}
			if c.want == "" {
				return
			}
			found := false
			for _, f := range r.Findings {
				found = found || (f.Action != "advisory" && strings.Contains(f.Message, c.want))
			}
			if !found {
				t.Errorf("no finding naming %q: %v", c.want, r.Findings)
			}
		})
	}
}

// TestOneRiskPerRuleOnOneLine: rules that share a line (a one-line allow
// list, a frontmatter allowed-tools) keep their own risks; the finding and
// the row of one rule share the higher of theirs. Matched by place alone,
// every rule on the line took the worst one's risk (Bash(git status:*)
// rated high beside mcp__sentry).
func TestOneRiskPerRuleOnOneLine(t *testing.T) {
	r := Compare(settingsPair("{}", `{"permissions": {"allow": ["Bash(git status:*)", "mcp__sentry", "Bash(sh:*)"]}}`))
	want := map[string]rating.Risk{"Bash(git status:*)": rating.RiskMedium, "mcp__sentry": rating.RiskHigh, "Bash(sh:*)": rating.RiskCritical}
	for _, c := range r.Changes {
		if w, ok := want[c.After]; ok && c.Risk != w {
			t.Errorf("row %s: risk %s, want %s", c.After, c.Risk, w)
		}
	}
	for _, f := range r.Findings {
		for text, w := range want {
			if strings.HasSuffix(f.Key, "|"+text) && f.Risk != w {
				t.Errorf("finding %s on %s: risk %s, want %s", f.CheckID, text, f.Risk, w)
			}
		}
	}
	if len(r.Changes) != 3 {
		t.Fatalf("rows: %v", rowsSummary(r))
	}
}
