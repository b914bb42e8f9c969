package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
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
func findingBy(r report.Report, check, evidence string) *report.Finding {
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
	many := make([]string, claude.MaxRules+1)
	for i := range many {
		many[i] = "Bash(echo " + strings.Repeat("x", i%7) + ")"
	}
	cases := []struct {
		name, head, evidence string
	}{
		{"padded past 1 MiB", settingsJSON(perms{allow: []string{"Bash(*)"}}, map[string]any{"pad": strings.Repeat("x", report.MaxFileSize)}), "too_large"},
		{"nested too deep", deep, "too_deep"},
		{"too many rules", settingsJSON(perms{allow: many}, nil), "too_many_rules"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(settingsPair(base, c.head))
			if r.Decision != report.DecisionBlock {
				t.Fatalf("decision %s, want block; findings %v", r.Decision, checkIDs(r))
			}
			f := findingBy(r, report.CheckParseFailed, c.evidence)
			if f == nil || f.Action != "block" {
				t.Fatalf("no blocking CONFIG-PARSE-FAILED finding with evidence %s: %+v", c.evidence, r.Findings)
			}
		})
	}
	// Claude Code itself drops a file that is not JSON: it grants nothing,
	// so that stays a review.
	r := Compare(settingsPair(base, `{"permissions": {"allow": ["Bash(*)"],}}`))
	if r.Decision != report.DecisionRequireReview {
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
	if r.Decision != report.DecisionBlock {
		t.Fatalf("decision %s, want block (a wildcard-shaped rule was left undecided)", r.Decision)
	}
	if f := findingBy(r, report.CheckParseFailed, "too_complex"); f == nil || !strings.Contains(f.Message, "stopped") {
		t.Fatalf("no too_complex finding naming the stop: %+v", r.Findings)
	}
	// The same input with time to finish decides on its merits.
	r, err = CompareContext(context.Background(), in)
	if err != nil || findingBy(r, report.CheckParseFailed, "too_complex") != nil {
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
	f := findingBy(r, report.CheckParseFailed, "too_complex")
	if f == nil {
		t.Fatalf("no too_complex finding: %v", checkIDs(r))
	}
	if !strings.Contains(f.Message, "too complex") || !strings.Contains(f.Message, "instead") {
		t.Fatalf("message does not say why and what to write: %s", f.Message)
	}
	if r.Decision == report.DecisionAllow {
		t.Fatalf("a comparison cut short decides allow")
	}
}

// manyFilesDiv shrinks the many-files shape under the race detector (and
// lowers the file bound with it: see TestHostileShapes).
func manyFilesDiv() int {
	if raceEnabled {
		return 10
	}
	return 1
}

// uncompared checks a too_many_files finding that names the first files
// past the bound and counts n, and that only the files within the bound
// have rows.
func uncompared(n int) func(report.Report) error {
	return func(r report.Report) error {
		f := findingBy(r, report.CheckParseFailed, "too_many_files")
		if f == nil {
			return fmt.Errorf("no too_many_files finding")
		}
		if !strings.Contains(f.Message, fmt.Sprintf("the %d after the first %d", n, maxCompared)) || !strings.Contains(f.Message, f.Path) {
			return fmt.Errorf("the finding does not count or name the files not read: %s", f.Message)
		}
		paths := map[string]bool{}
		for _, c := range r.Changes {
			paths[c.Path] = true
		}
		if len(paths) != maxCompared || paths[f.Path] {
			return fmt.Errorf("rows for %d files (want %d), the first file not read among them: %v", len(paths), maxCompared, paths[f.Path])
		}
		return nil
	}
}

// notRead checks that some file was not read for the budget: a blocking
// CONFIG-PARSE-FAILED too_complex finding says so, and no file after it in
// path order was read.
func notRead(r report.Report) error {
	first := ""
	for _, f := range r.Findings {
		if f.CheckID == report.CheckParseFailed && f.Evidence == budgetSpent && strings.Contains(f.Message, "budget was spent before this file was read") {
			if f.Action != "block" {
				return fmt.Errorf("%s not read and not blocking: %s", f.Path, f.Action)
			}
			if first == "" || f.Path < first {
				first = f.Path
			}
		}
	}
	if first == "" {
		return fmt.Errorf("every file was read")
	}
	for _, s := range r.Files {
		if s.Path > first && s.Status == report.StatusCompared {
			return fmt.Errorf("%s compared after %s was not read", s.Path, first)
		}
	}
	return nil
}

// agentNotRead checks that, past the budget, other agents' files are not
// read and block (under the race detector the shapes are a tenth as
// large and the budget may read them all).
func agentNotRead(r report.Report) error {
	n := 0
	for _, f := range r.Findings {
		if f.CheckID == report.CheckParseFailed && strings.Contains(f.Message, agentBudgetSpent) {
			if f.Action != "block" {
				return fmt.Errorf("%s not read and not blocking: %s", f.Path, f.Action)
			}
			n++
		}
	}
	if n == 0 && !raceEnabled {
		return fmt.Errorf("every file was read")
	}
	return nil
}

// allRead checks that every file was read: no CONFIG-PARSE-FAILED finding.
func allRead(r report.Report) error {
	for _, f := range r.Findings {
		if f.CheckID == report.CheckParseFailed {
			return fmt.Errorf("%s not read: %s", f.Path, f.Message)
		}
	}
	return nil
}

// TestBudgetReadsInPathOrder: which files the budget pays to read does not
// depend on the order of the input: the reports of an input and of its
// reverse are the same.
func TestBudgetReadsInPathOrder(t *testing.T) {
	in := bigFiles(4*manyFilesDiv(), hugeSize/manyFilesDiv())
	rev := report.Input{Policy: in.Policy}
	for i := len(in.Files) - 1; i >= 0; i-- {
		rev.Files = append(rev.Files, in.Files[i])
	}
	a, b := Compare(in), Compare(rev)
	if err := notRead(a); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("the report depends on the order of the input files")
	}
}

// TestHostileShapes: the adversarial shapes and 1 MiB files built
// to be costly finish inside the work budget and decide what their content
// could grant (the time is the benchmarks' business, not this test's).
func TestHostileShapes(t *testing.T) {
	if raceEnabled {
		defer func(n int) { maxCompared = n }(maxCompared)
		maxCompared = MaxComparedFiles / manyFilesDiv()
	}
	type want struct {
		decision report.Decision
		exact    bool   // a realistic shape: decided without the budget's backstop
		check    string // a check every added allow rule raises ("" for none)
		evidence string // a CONFIG-PARSE-FAILED finding with this evidence
		rows     func(report.Report) error
		// quietStops: the searches the budget cut short are all in passes
		// whose answer only words a row (no finding is owed).
		quietStops bool
	}
	countDir := func(dir string, n int) func(report.Report) error {
		return func(r report.Report) error {
			got := 0
			for _, c := range r.Changes {
				if c.Direction == dir {
					got++
				}
			}
			if got != n {
				return fmt.Errorf("%d %s rows, want %d", got, dir, n)
			}
			return nil
		}
	}
	cases := map[string]struct {
		in   report.Input
		want want
	}{
		"10 allow + 3 deny of 128 runes between stars": {shapeStars(128), want{decision: report.DecisionBlock, check: report.CheckWildcardAllow}},
		"300 rules Bash(* --optN *)":                   {shapeOpts(300), want{decision: report.DecisionBlock, check: report.CheckWildcardAllow}},
		"2,000 rules Bash(git <sub> * --flagN)":        {shapeMidStar(2000), want{decision: report.DecisionRequireReview, exact: true, check: report.CheckAllowExpanded}},
		"2,000 rules rewritten":                        {shapeRewritten(2000), want{decision: report.DecisionRequireReview, exact: true, rows: countDir(report.DirRespelled, 1333)}},
		"2,000 realistic rules (the benchmark pair)":   {benchPair(2000), want{decision: report.DecisionRequireReview, exact: true}},
		// Past MaxComparedFiles the files after the bound are not read:
		// one finding names them and blocks (they could hold Bash(*)).
		"3,000 small files in one pull request": {shapeManyFiles(3000 / manyFilesDiv()), want{decision: report.DecisionBlock, evidence: "too_many_files", rows: uncompared(3000/manyFilesDiv() - maxCompared)}},
		"as many small files as the bound":      {shapeManyFiles(maxCompared), want{decision: report.DecisionRequireReview, exact: true, check: report.CheckAllowExpanded}},
		"one small file past the bound":         {shapeManyFiles(maxCompared + 1), want{decision: report.DecisionBlock, evidence: "too_many_files", rows: uncompared(1)}},
		"300 small files in one pull request":   {shapeManyFiles(300 / manyFilesDiv()), want{decision: report.DecisionRequireReview, exact: true, check: report.CheckAllowExpanded}},
		// Compiling is charged to the budget: the files past what it pays
		// for are not read, and each blocks as unreadable.
		"four 1 MiB files of their own rules": {bigFiles(4*manyFilesDiv(), hugeSize/manyFilesDiv()), want{decision: report.DecisionBlock, rows: notRead}},
		// Rules read two ways: proving an added rule covered asks, for each
		// of them, whether the others still cover it. 100 are decided
		// exactly (each addition covered: allow); of 3,000 the budget
		// decides the first and the rest fail closed (review; under the
		// race detector a tenth as many, all decided).
		"100 ambiguous rules, each covering an added one": {shapeAmbiguous(100), want{decision: report.DecisionAllow, exact: true, rows: countDir(report.DirCovered, 100)}},
		"3,000 ambiguous rules, each covering an added one": {shapeAmbiguous(3000 / manyFilesDiv()), want{decision: map[bool]report.Decision{false: report.DecisionRequireReview, true: report.DecisionAllow}[raceEnabled], rows: func(r report.Report) error {
			if !raceEnabled && findingBy(r, report.CheckParseFailed, "too_complex") == nil {
				return fmt.Errorf("no too_complex finding")
			}
			return nil
		}}},
		// The other agents' comparison is quadratic per surface: 400
		// adversarial OpenCode patterns or VS Code regular expressions spend
		// the budget and fail closed; a hundred such files are charged for
		// reading (their adapters compile every pattern) and the files past
		// the budget are not read, each blocking.
		"400 OpenCode patterns with stars mid-pattern": {shapeOpenCode(400, 1), want{decision: report.DecisionBlock, evidence: "too_complex"}},
		"400 VS Code regular expressions":              {shapeVSCode(400, 1), want{decision: report.DecisionBlock, evidence: "too_complex"}},
		"100 OpenCode files of 400 patterns":           {shapeOpenCode(400, 100/manyFilesDiv()), want{decision: report.DecisionBlock, evidence: "too_complex", rows: agentNotRead}},
		"100 VS Code files of 400 expressions":         {shapeVSCode(400, 100/manyFilesDiv()), want{decision: report.DecisionBlock, evidence: "too_complex", rows: agentNotRead}},
		// A Copilot CLI skill is charged for its frontmatter, its prose
		// only as scanned (issue 22: 20-odd skills of 10-20 KB spent the
		// budget): sixty realistic skills are read whole and decided
		// exactly; a hundred of 512 KiB prose each, or of 100 KiB of
		// allowed-tools each, spend it, and the files past it block unread.
		// (Under the race detector, which lowers maxCompared to 50, as many
		// as it compares: CI's make test runs there.)
		"60 Copilot skills of 14 KiB prose":                    {shapeSkills(min(60, maxCompared), 3, 14<<10), want{decision: report.DecisionRequireReview, exact: true, rows: allRead}},
		"100 Copilot skills of 512 KiB prose":                  {shapeSkills(min(100, maxCompared), 3, 512<<10), want{decision: report.DecisionBlock, rows: agentNotRead}},
		"100 Copilot skills of 3,000 allowed-tools (~100 KiB)": {shapeSkills(100/manyFilesDiv(), 3000, 0), want{decision: report.DecisionBlock, rows: agentNotRead}},
	}
	size := hugeSize
	if raceEnabled {
		size /= 8
	}
	for name, in := range hugeShapes(size) {
		w := want{decision: report.DecisionBlock}
		switch name {
		case "one-giant-star-rule", "giant-allow-and-deny":
			w.evidence = "rule_too_large"
		case "many-star-rules", "many-opt-rules", "near-limit-star-rules":
			w.check = report.CheckWildcardAllow
		case "many-mid-star-rules":
			w.decision, w.check = report.DecisionRequireReview, report.CheckAllowExpanded
		case "shared-long-prefix", "deny-shadowing-allows":
			// Every rule adds a prefix grant: decided exactly.
			w.decision, w.exact, w.check = report.DecisionRequireReview, true, report.CheckAllowExpanded
		case "long-runs-between-stars":
			// The deny rule covers every allow rule; the few the budget
			// decides are stopped by it, the rest block undecided.
		case "many-distinct-runes":
			// Prefix grants (git …): a rule holding a denied rune adds
			// nothing (decided exactly while the budget lasts), what the
			// budget leaves undecided counts as a grant with its finding.
			w.decision = report.DecisionRequireReview
		case "deep-json":
			w.decision, w.check = report.DecisionRequireReview, report.CheckAllowExpanded
		case "all-rewritten":
			// 12,000 distinct rules: compiling them is charged 15 M steps,
			// so the budget runs out in the last pass, which only words the
			// removed allow rules (still covered at the head or not): every
			// addition is decided exactly, and no finding is needed.
			w.quietStops = true
			w.decision, w.rows = report.DecisionRequireReview, func(r report.Report) error {
				n := 0
				for _, c := range r.Changes {
					if c.Direction == report.DirRespelled {
						n++
					}
				}
				if n == 0 {
					return fmt.Errorf("no respelled rows")
				}
				return nil
			}
		case "deep-paths":
			// Reads outside the project, sixty directories deep: each a
			// new grant. Compiling 3,600 rules of 250 characters is charged
			// 14 M steps, so the budget runs out before every rule is
			// judged (decided exactly before compiling was charged): a rule
			// whose wildcard shape is left undecided could read every path
			// of the home folder, and blocks. An eighth of the file (under
			// the race detector) is decided exactly.
			w.check = report.CheckAllowExpanded
			if size < hugeSize {
				w.decision, w.exact = report.DecisionRequireReview, true
			}
		case "param-rules":
			// Every parameter deny removed: each a DENY-REMOVED finding.
			w.decision, w.exact = report.DecisionRequireReview, true
			w.rows = func(r report.Report) error {
				n := 0
				for _, f := range r.Findings {
					if f.CheckID == report.CheckDenyRemoved {
						n++
					}
				}
				if n < 100 {
					return fmt.Errorf("%d DENY-REMOVED findings, want one per removed parameter rule", n)
				}
				return nil
			}
		case "burn-then-rewrite":
			// Rules that could be launcher grants (x… reads as xargs) left
			// undecided block; the rewritten rules still pair.
			w.rows = func(r report.Report) error {
				for _, c := range r.Changes {
					if c.Direction == report.DirRespelled {
						return nil
					}
				}
				return fmt.Errorf("no respelled rows")
			}
		case "spent-then-rewrite":
			// The first file spends the budget (its x… rules could be
			// launcher grants: block); the rewritten file after it is not
			// paired but judged rule by rule, each failing closed with a
			// too_complex finding in its own file.
			w.rows = func(r report.Report) error {
				for _, f := range r.Findings {
					if f.CheckID == report.CheckParseFailed && f.Evidence == "too_complex" && strings.HasPrefix(f.Path, "z/") {
						return nil
					}
				}
				return fmt.Errorf("no too_complex finding in the file after the budget was spent")
			}
		case "many-path-rules":
			// Reads inside the project need no rule, so most of these add
			// nothing; looking past them against thousands of deny rules
			// full of ** spends the budget, and the rest fails closed.
			w.decision = report.DecisionRequireReview
		case "long-literals":
			// Every rule is respelled (x…x5:* to x…x5 *): exact, not Unknown.
			w.decision, w.exact = report.DecisionAllow, true
			w.rows = func(r report.Report) error {
				for _, c := range r.Changes {
					if c.Direction != report.DirRespelled {
						return fmt.Errorf("a %s row: %s", c.Direction, c.Why)
					}
				}
				if len(r.Changes) == 0 {
					return fmt.Errorf("no rows")
				}
				return nil
			}
		}
		cases[fmt.Sprintf("%d KiB: %s", size>>10, name)] = struct {
			in   report.Input
			want want
		}{in, w}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := lattice.NewBudget(0, 0)
			r, err := CompareContext(lattice.WithBudget(context.Background(), b), c.in)
			if err != nil {
				t.Fatal(err)
			}
			if b.Used() > b.Total()+b.Total()/50 {
				t.Errorf("used %d steps of a %d budget", b.Used(), b.Total())
			}
			if r.Decision != c.want.decision {
				t.Errorf("decision %s, want %s", r.Decision, c.want.decision)
			}
			if c.want.evidence != "" {
				if f := findingBy(r, report.CheckParseFailed, c.want.evidence); f == nil || f.Action != "block" {
					t.Errorf("no blocking CONFIG-PARSE-FAILED %s finding: %v", c.want.evidence, checkIDs(r))
				}
			}
			if c.want.check != "" {
				added := map[string]bool{}
				for _, ch := range r.Changes {
					if ch.Kind == report.KindRule && ch.List == "allow" && ch.Direction == report.DirAdded {
						added[ch.After] = true
					}
				}
				for _, f := range r.Findings {
					if f.CheckID == c.want.check {
						delete(added, strings.TrimPrefix(f.Title, "allow "))
					}
				}
				if len(added) > 0 {
					t.Errorf("%d added allow rules without a %s finding", len(added), c.want.check)
				}
			}
			if c.want.exact && b.GaveUp() > 0 {
				t.Errorf("%d searches gave up on a realistic shape", b.GaveUp())
			}
			if b.GaveUp() > 0 && !c.want.quietStops && findingBy(r, report.CheckParseFailed, "too_complex") == nil {
				t.Errorf("%d searches gave up and no too_complex finding says so", b.GaveUp())
			}
			if c.want.rows != nil {
				if err := c.want.rows(r); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// hardPair is an allow rule whose every call a deny rule also matches,
// both with many distinct runes between stars: deciding that the allow
// rule adds nothing takes a product search far over the per-search budget.
// lead is what the allow rule starts with ("git " or "" for a wildcard).
func hardPair(lead string) (allow, deny string) {
	allow = "Bash(" + lead + starPattern(100, 0x4e00) + ")"
	var sb strings.Builder
	sb.WriteString("Bash(" + lead + "*")
	for i := 0; i < 100; i += 2 {
		sb.WriteRune(rune(0x4e00 + i))
		sb.WriteByte('*')
	}
	sb.WriteByte(')')
	return allow, sb.String()
}

// ruleLine is the line of the JSON text on which s (quoted) stands.
func ruleLine(t *testing.T, text, s string) int {
	t.Helper()
	b, _ := json.Marshal(s)
	i := strings.Index(text, string(b))
	if i < 0 {
		t.Fatalf("%s not in the file", s)
	}
	return strings.Count(text[:i], "\n") + 1
}

// TestTooComplexPerRule: a rule whose judgement the work budget cuts short
// gets a too_complex finding of its own, naming it (path:line, text): it
// blocks when the rule could be a wildcard or launcher grant and requires
// review otherwise, and the other rules of the file keep their exact rows.
func TestTooComplexPerRule(t *testing.T) {
	base := perms{allow: []string{"Bash(npm test)", "Bash(git status:*)"}, deny: []string{"Bash(rm *)"}}.json()
	cases := []struct {
		name     string
		lead     string
		decision report.Decision
		action   string
	}{
		{"a prefixed rule: review", "git ", report.DecisionRequireReview, "require_review"},
		{"a rule starting with a star: block", "", report.DecisionBlock, "block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hard, hardDeny := hardPair(c.lead)
			head := perms{allow: []string{"Bash(npm test)", "Bash(git status *)", "Bash(git log *)", hard}, deny: []string{"Bash(rm *)", hardDeny}}.json()
			b := lattice.NewBudget(0, 0)
			r, err := CompareContext(lattice.WithBudget(context.Background(), b), settingsPair(base, head))
			if err != nil {
				t.Fatal(err)
			}
			if b.GaveUp() == 0 {
				t.Fatalf("no search gave up: the case does not test the budget")
			}
			if r.Decision != c.decision {
				t.Errorf("decision %s, want %s", r.Decision, c.decision)
			}
			var complex []report.Finding
			for _, f := range r.Findings {
				if f.Evidence == "too_complex" {
					complex = append(complex, f)
				}
			}
			if len(complex) != 1 {
				t.Fatalf("%d too_complex findings, want one for the rule: %+v", len(complex), complex)
			}
			f := complex[0]
			line := ruleLine(t, head, hard)
			if f.Line != line || string(f.Action) != c.action || !strings.Contains(f.Title, hard) {
				t.Errorf("finding at line %d, action %s, title %q; want line %d, action %s, the rule named", f.Line, f.Action, f.Title, line, c.action)
			}
			if want := fmt.Sprintf(".claude/settings.json:%d: ", line); !strings.HasPrefix(f.Message, want) || !strings.Contains(f.Message, "instead") {
				t.Errorf("message does not name %s… and what to write instead: %s", want, f.Message)
			}
			// The other rules are judged exactly: the respelling pairs, the
			// new prefix rule has its witnesses.
			var respelled, logRow bool
			for _, ch := range r.Changes {
				switch {
				case ch.Direction == report.DirRespelled && ch.After == "Bash(git status *)":
					respelled = true
				case ch.After == "Bash(git log *)" && ch.Expands && len(ch.Witnesses) > 0:
					logRow = true
				}
			}
			if !respelled || !logRow {
				t.Errorf("the other rules lost their exact rows (respelled %v, git log witnesses %v): %+v", respelled, logRow, r.Changes)
			}
		})
	}
}

// TestTooComplexManyRules: past maxComplexRules rules cut short in one
// file, the rest are counted in one more finding, which blocks when one of
// them could be a wildcard grant.
func TestTooComplexManyRules(t *testing.T) {
	var allow []string
	for i := 0; i < maxComplexRules+5; i++ {
		allow = append(allow, fmt.Sprintf("Bash(tool%d --x%d *)", i, i))
	}
	allow = append(allow, "Bash(*zz*)")
	in := settingsPair(perms{allow: []string{"Bash(npm test)"}}.json(), perms{allow: allow}.json())
	// Every search gives up at once; the total leaves the rules compiled.
	r, err := CompareContext(lattice.WithBudget(context.Background(), lattice.NewBudget(0, 1)), in)
	if err != nil {
		t.Fatal(err)
	}
	n, more := 0, (*report.Finding)(nil)
	for i, f := range r.Findings {
		if f.Evidence != "too_complex" {
			continue
		}
		n++
		if strings.HasSuffix(f.Key, "|more") {
			more = &r.Findings[i]
		}
	}
	if n != maxComplexRules+1 || more == nil {
		t.Fatalf("%d too_complex findings (more: %v), want %d and one for the rest", n, more != nil, maxComplexRules+1)
	}
	if more.Action != "block" || !strings.Contains(more.Message, "6 more rules") {
		t.Errorf("the rest: action %s, message %s; want block, 6 more rules", more.Action, more.Message)
	}
	if r.Decision != report.DecisionBlock {
		t.Errorf("decision %s, want block", r.Decision)
	}
}

// TestMayBeCompound: a line mayBeCompound rules out parses as one simple
// command, and the compound lines are not ruled out.
func TestMayBeCompound(t *testing.T) {
	lines := []string{"git log *", "npm test", "cd web && npm ci", "a; b", "a | b", "a & b", "a\nb", "echo $(id)", "echo `id`",
		"(cd x)", "{ a; }", "a || b", "x > out.txt", "! a", "a # ; b", "'a; b'", `"a && b"`, "find . -exec x {} +", "a\\;b", "x <<< y",
		"python3 -c 'import os'", "env A=1 b", "a  b", "a\tb", "x*y", "*", "", "a\r\nb", "coproc x", "time a", "if a; then b; fi"}
	for _, l := range lines {
		cmd, err := lattice.ParseCommand(l)
		if err != nil {
			continue
		}
		if !mayBeCompound(l) && cmd.Compound() {
			t.Errorf("%q is compound (%d parts) but mayBeCompound rules it out", l, len(cmd.Parts))
		}
	}
	for _, l := range []string{"cd web && npm ci", "a; b", "a | b", "a || b"} {
		if !mayBeCompound(l) {
			t.Errorf("%q ruled out", l)
		}
	}
}
