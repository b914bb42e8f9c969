package rating

import (
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// TestTierTableHas28Launchers: the seed's 28 launchers, then the exec
// wrappers issue 19 adds (held to the binary by internal/conformance
// TestExecWrappersFromBinary), each in ExecWrappers.
func TestTierTableHas28Launchers(t *testing.T) {
	seed := Launchers[:28]
	if seed[0] != "python -c" || seed[27] != "sudo" {
		t.Fatalf("the seed's table does not open the list: %q … %q", seed[0], seed[27])
	}
	inWrappers := map[string]bool{}
	for _, w := range ExecWrappers {
		inWrappers[w] = true
	}
	for _, l := range Launchers[28:] {
		if !inWrappers[l] {
			t.Errorf("launcher %q past the seed's table is not an exec wrapper", l)
		}
	}
	if want := 28 + len(ExecWrappers) - 2; len(Launchers) != want { // env and sudo are in the seed
		t.Errorf("%d launchers, want %d (the seed's 28 and the exec wrappers)", len(Launchers), want)
	}
}

// TestTierEntries: every launcher in both spellings is admin/critical with
// the canonical table text as evidence.
func TestTierEntries(t *testing.T) {
	var rt Rater
	for _, l := range Launchers {
		for _, spelling := range []string{l + " *", l + ":*"} {
			r := lattice.Parse("Bash(" + spelling + ")")
			got := rt.Rule(r)
			if got.Access != AccessAdmin || got.Risk != RiskCritical || !got.ExecTier || !got.Wildcard {
				t.Errorf("Bash(%s) = %+v, want admin/critical in the tier", spelling, got)
			}
			if got.Evidence != "Bash("+l+" *)" {
				t.Errorf("Bash(%s) evidence %q", spelling, got.Evidence)
			}
		}
	}
}

func TestTierNeverForAskDeny(t *testing.T) {
	var rt Rater
	for _, l := range []lattice.List{lattice.Ask, lattice.Deny} {
		for _, s := range []string{"Bash(npx *)", "Bash(env *)", "Bash(*)", "Bash"} {
			got := rt.Rule(lattice.ParseIn(l, s))
			if got.Access != AccessNone || got.Risk != RiskLow || got.ExecTier {
				t.Errorf("%s %s = %+v, want none/low", l, s, got)
			}
		}
	}
}

// TestTierDoesNotChangeCovers: the lattice never consults the tier.
func TestTierDoesNotChangeCovers(t *testing.T) {
	if v := lattice.Covers(lattice.Parse("Bash(npx *)"), lattice.Parse("Bash(*)")); v.Answer != lattice.No {
		t.Errorf("Bash(npx *) covers Bash(*): %v", v.Answer)
	}
	if v := lattice.Covers(lattice.Parse("Bash(*)"), lattice.Parse("Bash(npx *)")); v.Answer != lattice.Yes {
		t.Errorf("Bash(*) does not cover Bash(npx *)")
	}
}

// TestWiderNeverRatedBelow: a rule wider than a tier rule is never rated
// lower than it (otherwise widening would clear the block).
func TestWiderNeverRatedBelow(t *testing.T) {
	var rt Rater
	rules := []string{"Bash(python3 -c *)", "Bash(python3 *)", "Bash(py*)", "Bash(*)", "Bash", "Bash(npx *)", "Bash(npx*)",
		"Bash(n*)", "Bash(env *)", "Bash(e*)", "Bash(docker run *)", "Bash(docker *)", "Bash(d*)", "Bash(uv run *)", "Bash(uv *)"}
	for _, a := range rules {
		for _, b := range rules {
			ra, rb := lattice.Parse(a), lattice.Parse(b)
			if lattice.StrictlyWider(ra, rb) != lattice.Yes {
				continue
			}
			if rt.Rule(ra).Risk.Rank() < rt.Rule(rb).Risk.Rank() {
				t.Errorf("%s (wider) rated %s below %s rated %s", a, rt.Rule(ra).Risk, b, rt.Rule(rb).Risk)
			}
		}
	}
}

// TestRuleRatings holds shipgate-spec 3.3 and the closed gaps (PowerShell
// is execution; WebFetch(domain:*) and Bash(**) are whole tools).
func TestRuleRatings(t *testing.T) {
	var rt Rater
	cases := []struct {
		rule     string
		access   Access
		risk     Risk
		wildcard bool
	}{
		{"Bash(*)", AccessAdmin, RiskCritical, true},
		{"Bash", AccessAdmin, RiskCritical, true},
		{"Bash(**)", AccessAdmin, RiskCritical, true},
		{"Bash(*:*)", AccessAdmin, RiskCritical, true},
		{"Bash(* --version)", AccessAdmin, RiskCritical, true},
		{"PowerShell", AccessAdmin, RiskCritical, true},
		{"PowerShell(*)", AccessAdmin, RiskCritical, true},
		{"PowerShell(Get-Item *)", AccessExecute, RiskMedium, false},
		{"WebFetch(*)", AccessExecute, RiskHigh, true},
		{"WebFetch", AccessExecute, RiskHigh, true},
		{"WebFetch(domain:*)", AccessExecute, RiskHigh, true},
		{"WebFetch(domain:example.com)", AccessExecute, RiskMedium, false},
		{"Write(*)", AccessExecute, RiskHigh, true},
		{"Edit", AccessExecute, RiskHigh, true},
		{"Edit(src/**)", AccessExecute, RiskMedium, false},
		{"mcp__github__*", AccessExecute, RiskHigh, true},
		{"mcp__github", AccessExecute, RiskHigh, true},
		{"mcp__unknown__*", AccessExecute, RiskHigh, true},
		{"mcp__github__get_issue", AccessExecute, RiskMedium, false},
		{"mcp__github__get_*", AccessExecute, RiskMedium, false},
		{"Read(**)", AccessRead, RiskLow, true},
		{"Read", AccessRead, RiskLow, true},
		{"Grep", AccessRead, RiskLow, true},
		{"Glob(**)", AccessRead, RiskLow, true},
		{"Read(src/**)", AccessRead, RiskLow, false},
		{"Bash(pytest *)", AccessExecute, RiskMedium, false},
		{"Bash(git status:*)", AccessExecute, RiskMedium, false},
		{"Agent(Explore)", AccessExecute, RiskMedium, false},
		// The provider's search, not a fetch of the agent's choosing (measured: asks with no rule, runs allowed).
		{"WebSearch", AccessExternal, RiskMedium, false},
		// Claude Code runs these with no rule (measured): a bare allow grants nothing.
		{"TodoWrite", AccessNone, RiskLow, false},
		{"TaskList", AccessNone, RiskLow, false},
		{"TaskCreate", AccessNone, RiskLow, false},
		{"AskUserQuestion", AccessNone, RiskLow, false},
		{"Agent", AccessNone, RiskLow, false},
		{"LSP", AccessRead, RiskLow, true},
		{"Monitor", AccessAdmin, RiskCritical, true},
		{"*", AccessAdmin, RiskCritical, true},
		{"Skill", AccessExecute, RiskHigh, true},
		{"Write(src/**)", AccessNone, RiskLow, false},
	}
	for _, c := range cases {
		got := rt.Rule(lattice.Parse(c.rule))
		if got.Access != c.access || got.Risk != c.risk || got.Wildcard != c.wildcard {
			t.Errorf("%s = %s/%s wildcard %v, want %s/%s wildcard %v", c.rule, got.Access, got.Risk, got.Wildcard, c.access, c.risk, c.wildcard)
		}
	}
	// A well-configured file has nothing critical.
	for _, s := range []string{"Read(**)", "Glob(**)", "Grep(**)", "Bash(pytest *)", "Bash(git status:*)", "Edit(src/**)"} {
		if got := rt.Rule(lattice.Parse(s)); got.Risk == RiskCritical {
			t.Errorf("%s rated critical", s)
		}
	}
}

func TestRedact(t *testing.T) {
	cases := map[string]string{
		"Bash":                     "Bash",
		"Bash(*)":                  "Bash(*)",
		"Bash(* --version)":        "Bash(<wildcard>)",
		"Bash(npm publish)":        "Bash(<redacted-arguments>)",
		"mcp__github__get_issue":   "mcp__github__get_issue",
		"Read(~/.aws/credentials)": "Read(<redacted-arguments>)",
	}
	for in, want := range cases {
		if got := Redact(lattice.Parse(in)); got != want {
			t.Errorf("Redact(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestSettingsValues(t *testing.T) {
	modes := map[string]Risk{"bypassPermissions": RiskCritical, "auto": RiskHigh, "acceptEdits": RiskHigh,
		"dontAsk": RiskMedium, "plan": RiskHigh, "default": RiskMedium, "manual": RiskMedium, "yolo": RiskHigh}
	for m, want := range modes {
		if got := Mode(m, true).Risk; got != want {
			t.Errorf("Mode(%s) = %s, want %s", m, got, want)
		}
	}
	if Mode("x", false).Risk != RiskHigh {
		t.Errorf("non-string mode not high")
	}
	if r := Switch("enableAllProjectMcpServers", true, true); r.Risk != RiskCritical {
		t.Errorf("enableAllProjectMcpServers true = %+v", r)
	}
	if r := Switch("skipDangerousModePermissionPrompt", true, false); r.Risk != RiskCritical {
		t.Errorf("truthy skipDangerousModePermissionPrompt = %+v", r)
	}
	if r := Switch("enableAllProjectMcpServers", false, false); r.Risk != RiskMedium {
		t.Errorf("false switch = %+v", r)
	}
	if r, why := Env("NODE_OPTIONS"); r.Risk != RiskHigh || why == "" {
		t.Errorf("NODE_OPTIONS = %+v", r)
	}
	if r, why := Env("MY_FLAG"); r.Risk != RiskMedium || why != "" {
		t.Errorf("MY_FLAG = %+v", r)
	}
	for dir, want := range map[string]Risk{"../seer": RiskHigh, "/Users/a/x": RiskHigh, "~": RiskCritical, "/": RiskCritical, "docs": RiskMedium} {
		if got := AdditionalDirectory(dir).Risk; got != want {
			t.Errorf("AdditionalDirectory(%s) = %s, want %s", dir, got, want)
		}
	}
	if a, _ := ModeRank("bypassPermissions"); a <= func() int { r, _ := ModeRank("default"); return r }() {
		t.Errorf("mode order wrong")
	}
}
