package policy

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/policy.schema.json")

var known = map[string]Action{
	"SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED": RequireReview,
	"SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW": Block,
	"SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY":        Advisory,
}

const full = `version: 1
paths:
  watch: ["tools/agent/*.json"]
  ignore: ["examples/**"]
checks:
  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:
    action: block
    risk: critical
  SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY:
    action: require_review
exec_tier:
  extra: ["npm exec", "yarn dlx"]
ceiling:
  allow:
    - Bash(npm test *)
    - Bash(git *)
    - Read(**)
  must_deny:
    - Read(.env)
  action: require_review
intent:
  allowed: ["npm test", "Read(src/app.go)"]
  asked: ["git push origin main"]
  denied: ["rm -rf /", "Read(.env)", "mcp__github__delete_repository"]
reviewers:
  review: ["acme/security"]
  block: ["acme/security-leads"]
`

func TestParseFull(t *testing.T) {
	p, err := Parse(".github/shipgate.yml", []byte(full), Options{Checks: known})
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 1 || len(p.Paths.Watch) != 1 || p.Paths.Ignore[0].Value != "examples/**" {
		t.Errorf("paths: %+v", p.Paths)
	}
	if r := p.Checks["SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"]; r.Action != Block || r.Risk != "critical" || r.Line != 6 {
		t.Errorf("checks: %+v", r)
	}
	if got := p.ActionFor("SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED", RequireReview); got != Block {
		t.Errorf("ActionFor = %s", got)
	}
	if got := p.RiskFor("SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED", "high"); got != "critical" {
		t.Errorf("RiskFor = %s", got)
	}
	if got := p.ExtraLaunchers(); len(got) != 2 || got[1] != "yarn dlx" {
		t.Errorf("extra %v", got)
	}
	c := p.AllCeilings()
	if len(c) != 1 || len(c[0].Allow) != 3 || c[0].Allow[2].Line != 17 || c[0].Action != RequireReview || !c[0].HasAllow {
		t.Errorf("ceiling %+v", c)
	}
	if len(p.Intent.Denied) != 3 || p.Intent.Denied[0].Line != 24 || p.Intent.Denied[0].Source != ".github/shipgate.yml" {
		t.Errorf("intent %+v", p.Intent)
	}
	if Teams(p.Reviewers.Block)[0] != "acme/security-leads" {
		t.Errorf("reviewers %+v", p.Reviewers)
	}
	if !p.Watched("tools/agent/x.json") || p.Watched("tools/agent/a/x.json") || !p.Ignored("examples/a/b.json") {
		t.Errorf("globs")
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 0, "empty"},
		{"no version", "paths: {}\n", 1, 1, "missing `version: 1`"},
		{"version 2", "version: 2\n", 1, 10, "version \"2\" is not supported"},
		{"unknown key", "version: 1\nchekcs: {}\n", 2, 1, `did you mean "checks"?`},
		{"unknown nested key", "version: 1\npaths:\n  wach: []\n", 3, 3, `did you mean "watch"?`},
		{"wrong type", "version: 1\npaths:\n  watch: x\n", 3, 10, "must be a list of strings"},
		{"unknown check", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDE:\n    action: block\n", 3, 3, `did you mean "SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"?`},
		{"lowered action", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW:\n    action: require_review\n", 4, 13, "below the default block"},
		{"bad action", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    action: deny\n", 4, 13, "use advisory, require_review or block"},
		{"bad risk", "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    risk: severe\n", 4, 11, "use low, medium, high or critical"},
		{"bad rule", "version: 1\nceiling:\n  allow:\n    - Bash(npm *\n", 4, 7, "unclosed parenthesis"},
		{"ambiguous rule", "version: 1\nceiling:\n  must_deny:\n    - PowerShell(rm :*)\n", 4, 7, "can be read two ways"},
		{"a must_deny that denies nothing", "version: 1\nceiling:\n  must_deny:\n    - Bash(rm :*)\n", 4, 7, "denies nothing"},
		{"skipped rule", "version: 1\nceiling:\n  must_deny:\n    - bash(rm *)\n", 4, 7, "case-sensitive"},
		{"advisory ceiling", "version: 1\nceiling:\n  action: advisory\n", 3, 11, "below the default block"},
		{"bad team", "version: 1\nreviewers:\n  review: [security]\n", 3, 12, "org/team-slug"},
		{"wildcard launcher", "version: 1\nexec_tier:\n  extra: [\"npm exec *\"]\n", 3, 11, "without a wildcard"},
		{"blank item", "version: 1\nintent:\n  denied: [\"\"]\n", 3, 12, "is blank"},
		{"yaml syntax", "version: 1\npaths: [\n", 2, 0, "YAML syntax"},
		{"duplicate key", "version: 1\nversion: 1\n", 2, 1, "appears twice"},
		{"two documents", "version: 1\n---\nversion: 1\n", 2, 1, "second YAML document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("p.yml", []byte(c.src), Options{Checks: known})
			es, ok := err.(Errors)
			if !ok || len(es) == 0 {
				t.Fatalf("err = %v, want Errors", err)
			}
			e := es[0]
			if e.Line != c.line || (c.col != 0 && e.Column != c.col) || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("got %s, want line %d col %d containing %q", e, c.line, c.col, c.msg)
			}
			if !strings.HasPrefix(e.Error(), "p.yml:") {
				t.Errorf("error does not name the file: %s", e)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	org, err := Parse("acme/.github:shipgate.yml", []byte(`version: 1
checks:
  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED: {action: block}
ceiling:
  allow: ["Bash(*)", "Read(**)"]
intent:
  denied: ["rm -rf /"]
reviewers:
  review: ["acme/security"]
  block: ["acme/security-leads"]
`), Options{Checks: known})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := Parse(".github/shipgate.yml", []byte(`version: 1
checks:
  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED: {action: require_review, risk: high}
ceiling:
  allow: ["Bash(npm *)"]
intent:
  allowed: ["npm test"]
reviewers:
  review: ["acme/webapp-owners"]
  block: ["acme/webapp-owners"]
`), Options{Checks: known})
	if err != nil {
		t.Fatal(err)
	}
	m := Merge(org, repo)
	if got := m.ActionFor("SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED", RequireReview); got != Block {
		t.Errorf("a repository lowered the org's raise: %s", got)
	}
	if got := m.RiskFor("SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED", "medium"); got != "high" {
		t.Errorf("risk %s", got)
	}
	if len(m.AllCeilings()) != 2 {
		t.Errorf("ceilings %d, want both", len(m.AllCeilings()))
	}
	if len(m.Intent.Denied) != 1 || len(m.Intent.Allowed) != 1 || m.Intent.Denied[0].Source != "acme/.github:shipgate.yml" {
		t.Errorf("intent %+v", m.Intent)
	}
	if Teams(m.Reviewers.Review)[0] != "acme/webapp-owners" || Teams(m.Reviewers.Block)[0] != "acme/security-leads" {
		t.Errorf("reviewers %+v: a repository must not choose who clears its blocks when the org names a team", m.Reviewers)
	}
	if Merge(nil, repo) != repo || Merge(org, nil) != org {
		t.Errorf("merge with nil")
	}
}

func TestParseCall(t *testing.T) {
	cases := map[string]string{
		"npm test":                       "Bash:npm test",
		"Read(.env)":                     "Read:.env",
		"Task(Explore)":                  "Agent:Explore",
		"WebFetch(evil.example.com)":     "WebFetch:evil.example.com",
		"mcp__github__delete_repository": "mcp__github__delete_repository:",
		"(cd web && npm ci)":             "Bash:(cd web && npm ci)",
		"Bash(curl -s x | sh)":           "Bash:curl -s x | sh",
	}
	for in, want := range cases {
		c, err := ParseCall(in)
		if err != nil || c.Tool+":"+c.Arg != want {
			t.Errorf("ParseCall(%q) = %+v %v, want %s", in, c, err, want)
		}
	}
	// A Bash intent must be a command Claude Code can split into parts.
	for in, want := range map[string]string{
		"echo (x)":                   "not a complete shell command at 1:1",
		`Bash(echo "unclosed)`:       "not a complete shell command at 1:6",
		"for f in *; do rm $f; done": "write the commands this for loop runs instead",
		"":                           "empty call",
	} {
		if _, err := ParseCall(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCall(%q) error = %v, want it to contain %q", in, err, want)
		}
	}
}

// TestSchemaCurrent holds docs/policy.schema.json to the Go types.
func TestSchemaCurrent(t *testing.T) {
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	const file = "../docs/policy.schema.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./policy -run TestSchemaCurrent -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/policy.schema.json is out of date: run go test ./policy -run TestSchemaCurrent -update")
	}
	for _, key := range []string{`"version"`, `"ceiling"`, `"must_deny"`, `"intent"`, `"reviewers"`, `"exec_tier"`, `"additionalProperties": false`} {
		if !bytes.Contains(got, []byte(key)) {
			t.Errorf("schema lacks %s", key)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte("version: 1\n"))
	f.Add([]byte("version: 1\nchecks: {x: {action: block}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("p.yml", data, Options{Checks: known})
		if err == nil && (p == nil || p.Version != 1) {
			t.Fatalf("accepted a policy without version 1")
		}
		if err != nil {
			if _, ok := err.(Errors); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
	})
}

func TestLoosenings(t *testing.T) {
	base, err := Parse("p.yml", []byte(full), Options{Checks: known})
	if err != nil {
		t.Fatal(err)
	}
	if got := Loosenings(base, base); len(got) != 0 {
		t.Errorf("same policy: %v", got)
	}
	loose := strings.NewReplacer("action: block\n    risk: critical", "action: require_review", "    - Bash(git *)\n", "    - Bash(git *)\n    - Bash(*)\n",
		`denied: ["rm -rf /", "Read(.env)", "mcp__github__delete_repository"]`, `denied: ["rm -rf /"]`).Replace(full)
	head, err := Parse("p.yml", []byte(loose), Options{Checks: known})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Loosenings(base, head), "\n")
	for _, want := range []string{"checks.SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED.action lowered from block to require_review",
		`ceiling.allow "Bash(*)" added`, `intent.denied "Read(.env)" removed`, "risk lowered from critical"} {
		if !strings.Contains(got, want) {
			t.Errorf("loosenings lack %q:\n%s", want, got)
		}
	}
	if got := Loosenings(base, nil); len(got) != 1 {
		t.Errorf("removal: %v", got)
	}
	if got := Loosenings(nil, head); got != nil {
		t.Errorf("from defaults: %v", got)
	}
}
