package diff

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// settingsJSON renders a settings file with the given permissions and
// extra top-level members.
func settingsJSON(p perms, extra map[string]any) string {
	m := map[string]any{}
	for k, v := range extra {
		m[k] = v
	}
	pm := map[string]any{}
	if p.allow != nil {
		pm["allow"] = p.allow
	}
	if p.ask != nil {
		pm["ask"] = p.ask
	}
	if p.deny != nil {
		pm["deny"] = p.deny
	}
	m["permissions"] = pm
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// findingBy returns the first finding with the check and evidence.
func findingBy(r Report, check, evidence string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].CheckID == check && (evidence == "" || r.Findings[i].Evidence == evidence) {
			return &r.Findings[i]
		}
	}
	return nil
}

// TestUnreadableSettingsBlock: a settings file Shipgate cannot read may
// hold anything, a wildcard grant included, so it decides block — padded
// past 1 MiB, nested too deep, or declaring too many rules.
func TestUnreadableSettingsBlock(t *testing.T) {
	base := settingsJSON(perms{allow: []string{"Bash(npm test)"}}, nil)
	deep := `{"permissions":{"allow":["Bash(*)"]},"x":` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + `}`
	many := make([]string, MaxRules+1)
	for i := range many {
		many[i] = "Bash(echo " + strings.Repeat("x", i%7) + ")"
	}
	cases := []struct {
		name, head, evidence string
	}{
		{"padded past 1 MiB", settingsJSON(perms{allow: []string{"Bash(*)"}}, map[string]any{"pad": strings.Repeat("x", MaxFileSize)}), "too_large"},
		{"nested too deep", deep, "too_deep"},
		{"too many rules", settingsJSON(perms{allow: many}, nil), "too_many_rules"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(settingsPair(base, c.head))
			if r.Decision != DecisionBlock {
				t.Fatalf("decision %s, want block; findings %v", r.Decision, checkIDs(r))
			}
			f := findingBy(r, CheckParseFailed, c.evidence)
			if f == nil || f.Action != "block" {
				t.Fatalf("no blocking CONFIG-PARSE-FAILED finding with evidence %s: %+v", c.evidence, r.Findings)
			}
		})
	}
	// Claude Code itself drops a file that is not JSON: it grants nothing,
	// so that stays a review.
	r := Compare(settingsPair(base, `{"permissions": {"allow": ["Bash(*)"],}}`))
	if r.Decision != DecisionRequireReview {
		t.Fatalf("a JSON syntax error decides %s, want require_review", r.Decision)
	}
}

// TestCompareCanceled: a context that ends stops the engine, and the report
// it returns fails closed with an *IncompleteError.
func TestCompareCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := settingsPair(settingsJSON(perms{allow: []string{"Bash(git status)"}}, nil),
		settingsJSON(perms{allow: []string{"Bash(git status)", "Bash(git log *)", "Bash(*x*y*)"}}, nil))
	r, err := CompareContext(ctx, in)
	var ie *IncompleteError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want an *IncompleteError wrapping context.Canceled", err)
	}
	if r.Decision != DecisionBlock {
		t.Fatalf("decision %s, want block (a wildcard-shaped rule was left undecided)", r.Decision)
	}
	if f := findingBy(r, CheckParseFailed, "too_complex"); f == nil || !strings.Contains(f.Message, "stopped") {
		t.Fatalf("no too_complex finding naming the stop: %+v", r.Findings)
	}
	// The same input with time to finish decides on its merits.
	r, err = CompareContext(context.Background(), in)
	if err != nil || findingBy(r, CheckParseFailed, "too_complex") != nil {
		t.Fatalf("uncanceled: err %v, findings %v", err, checkIDs(r))
	}
}

// TestBudgetFailsClosed: a comparison the budget cuts short fails closed,
// with a finding that says the rules were too complex and what to write.
func TestBudgetFailsClosed(t *testing.T) {
	in := settingsPair(settingsJSON(perms{allow: []string{"Bash(git status)"}}, nil),
		settingsJSON(perms{allow: []string{"Bash(git status)", "Bash(git log *)"}, deny: []string{"Bash(git log -p *)"}}, nil))
	ctx := lattice.WithBudget(context.Background(), lattice.NewBudget(1, 1))
	r, err := CompareContext(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	f := findingBy(r, CheckParseFailed, "too_complex")
	if f == nil {
		t.Fatalf("no too_complex finding: %v", checkIDs(r))
	}
	if !strings.Contains(f.Message, "too complex") || !strings.Contains(f.Message, "instead") {
		t.Fatalf("message does not say why and what to write: %s", f.Message)
	}
	if r.Decision == DecisionAllow {
		t.Fatalf("a comparison cut short decides allow")
	}
}
