package diff

import (
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/policy"
)

func mustPolicy(t *testing.T, src string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse(".github/shipgate.yml", []byte(src), PolicyOptions())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func findingsOf(r Report, id string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.CheckID == id {
			out = append(out, f)
		}
	}
	return out
}

func TestCeiling(t *testing.T) {
	pol := mustPolicy(t, `version: 1
ceiling:
  allow: ["Bash(npm test *)", "Bash(npm run *)", "Bash(git status *)", "Read(**)"]
  must_deny: ["Read(.env)", "Bash(rm -rf *)"]
`)
	base := perms{allow: []string{"Bash(npm test *)"}, deny: []string{"Read(.env)", "Bash(rm *)"}}.json()
	cases := []struct {
		name    string
		head    string
		want    int
		message string
	}{
		{"within", perms{allow: []string{"Bash(npm test *)", "Bash(npm run lint)", "Read(src/**)"}, deny: []string{"Read(.env)", "Bash(rm *)"}}.json(), 0, ""},
		{"union of ceiling rules", perms{allow: []string{"Bash(npm run build)", "Bash(git status -s)"}, deny: []string{"Read(.env)", "Bash(rm *)"}}.json(), 0, ""},
		{"exceeds", perms{allow: []string{"Bash(npm *)"}, deny: []string{"Read(.env)", "Bash(rm *)"}}.json(), 1, "it allows `npm publish`"},
		{"must_deny dropped", perms{allow: []string{"Bash(npm test *)"}, deny: []string{"Bash(rm *)"}}.json(), 1, "`.env` is not denied"},
		{"must_deny narrowed", perms{allow: []string{"Bash(npm test *)"}, deny: []string{"Read(.env)", "Bash(rm -r *)"}}.json(), 1, "Bash(rm -rf *) must stay denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := settingsPair(base, c.head)
			in.Policy = pol
			r := Compare(in)
			got := findingsOf(r, CheckCeiling)
			if len(got) != c.want {
				t.Fatalf("%d ceiling findings, want %d: %v", len(got), c.want, got)
			}
			if c.want > 0 {
				if r.Decision != DecisionBlock {
					t.Errorf("decision %s", r.Decision)
				}
				if !strings.Contains(got[0].Message, c.message) {
					t.Errorf("message %q lacks %q", got[0].Message, c.message)
				}
			}
		})
	}
}

func TestIntents(t *testing.T) {
	pol := mustPolicy(t, `version: 1
intent:
  allowed: ["npm test", "Read(src/app.go)"]
  asked: ["git push origin main"]
  denied: ["rm -rf /", "Read(.env)"]
  action: require_review
`)
	good := perms{allow: []string{"Bash(npm test *)", "Read(src/**)"}, ask: []string{"Bash(git push *)"}, deny: []string{"Bash(rm *)", "Read(.env)"}}.json()
	cases := []struct {
		name   string
		head   string
		broken []string
	}{
		{"all hold", good, nil},
		{"deny removed", perms{allow: []string{"Bash(npm test *)", "Read(src/**)"}, ask: []string{"Bash(git push *)"}, deny: []string{"Read(.env)"}}.json(), []string{"rm -rf /"}},
		{"allowed lost", perms{allow: []string{"Read(src/**)"}, ask: []string{"Bash(git push *)"}, deny: []string{"Bash(rm *)", "Read(.env)"}}.json(), []string{"npm test"}},
		{"ask turned allow", perms{allow: []string{"Bash(npm test *)", "Read(src/**)", "Bash(git *)"}, deny: []string{"Bash(rm *)", "Read(.env)"}}.json(), []string{"git push origin main"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := settingsPair(good, c.head)
			if c.head == good {
				in = settingsPair(perms{}.json(), c.head)
			}
			in.Policy = pol
			r := Compare(in)
			got := findingsOf(r, CheckIntent)
			var calls []string
			for _, f := range got {
				calls = append(calls, strings.TrimPrefix(f.Evidence[strings.Index(f.Evidence, "call=")+5:], ""))
				if f.Action != "require_review" || f.Path != ".github/shipgate.yml" || f.Line == 0 {
					t.Errorf("finding %+v", f)
				}
			}
			if strings.Join(calls, ",") != strings.Join(c.broken, ",") {
				t.Errorf("violated %v, want %v", calls, c.broken)
			}
		})
	}
}

// TestPolicyDoesNotLower: a policy cannot lower a default below the engine.
func TestPolicyDoesNotLower(t *testing.T) {
	_, err := policy.Parse("p.yml", []byte("version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW: {action: advisory}\n"), PolicyOptions())
	if err == nil || !strings.Contains(err.Error(), "below the default block") {
		t.Fatalf("err = %v", err)
	}
}
