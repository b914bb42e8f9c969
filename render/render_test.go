package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shipgate-app/shipgate/internal/sariftest"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// settings builds a settings file from allow, ask and deny lists.
func settings(allow, ask, deny []string) []byte {
	perms := map[string][]string{}
	if allow != nil {
		perms["allow"] = allow
	}
	if ask != nil {
		perms["ask"] = ask
	}
	if deny != nil {
		perms["deny"] = deny
	}
	b, _ := json.MarshalIndent(map[string]any{"permissions": perms}, "", "  ")
	return append(b, '\n')
}

func pair(path string, base, head []byte) report.File {
	f := report.File{Path: path}
	if base != nil {
		f.Base = report.Version{Exists: true, Data: base}
	}
	if head != nil {
		f.Head = report.Version{Exists: true, Data: head}
	}
	return f
}

// sampleReports are reports of several shapes the renderer tests share.
func sampleReports() map[string]report.Report {
	return map[string]report.Report{
		"empty": judge.Compare(report.Input{}),
		"widened": judge.Compare(report.Input{Files: []report.File{pair(".claude/settings.json",
			settings([]string{"Bash(npm test:*)"}, nil, []string{"Read(.env)"}),
			settings([]string{"Bash(npm *)", "Bash(python3 -c *)"}, nil, nil))}}),
		"unchanged": judge.Compare(report.Input{Files: []report.File{pair(".claude/settings.json",
			settings([]string{"Read"}, nil, nil), settings([]string{"Read"}, nil, nil))}}),
		"hostile": judge.Compare(report.Input{Files: []report.File{pair(".claude/settings.json", settings(nil, nil, nil),
			settings([]string{"Bash(echo `id` | tee <script>x</script> *)", "Bash(printf '\x1b[2J\nfake line')"}, nil, nil))}}),
		"parse_failed": judge.Compare(report.Input{Files: []report.File{pair(".claude/settings.json",
			settings(nil, nil, []string{"Bash(rm *)"}), []byte("{\n  // no comments in JSON\n  \"permissions\": {}\n}\n"))}}),
	}
}

func TestRenderDeterministic(t *testing.T) {
	for name, r := range sampleReports() {
		t.Run(name, func(t *testing.T) {
			o := Options{Subject: "s", Reproduce: "shipgate check", Version: "v1"}
			j1, err1 := JSON(r)
			j2, err2 := JSON(r)
			s1, err3 := SARIF(r, o)
			s2, err4 := SARIF(r, o)
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				t.Fatal(err1, err2, err3, err4)
			}
			t1, t2, m1, m2 := Text(r, o), Text(r, o), Markdown(r, o), Markdown(r, o)
			if !bytes.Equal(j1, j2) || !bytes.Equal(s1, s2) || t1 != t2 || m1 != m2 {
				t.Error("rendering the same report twice gave different bytes")
			}
		})
	}
}

// objectKeys returns the keys of the JSON object at the decoder's position,
// in document order, skipping their values.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestJSONContract(t *testing.T) {
	r := sampleReports()["widened"]
	out, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Files, Changes, Findings []json.RawMessage
	}
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Files) == 0 || len(top.Changes) == 0 || len(top.Findings) == 0 {
		t.Fatalf("sample report lacks files, changes or findings: %s", out)
	}
	want := map[string][]string{
		"report":  {"schema", "decision", "checked_against", "files", "changes", "findings", "suggestions"},
		"file":    {"path", "agent", "status"},
		"change":  {"path", "agent", "kind", "list", "direction", "before", "after", "expands", "access", "risk", "line", "witnesses", "why"},
		"finding": {"check_id", "agent", "action", "risk", "path", "line", "evidence", "message"},
	}
	got := map[string][]string{
		"report":  objectKeys(t, out),
		"file":    objectKeys(t, top.Files[0]),
		"change":  objectKeys(t, top.Changes[0]),
		"finding": objectKeys(t, top.Findings[0]),
	}
	for k := range want {
		if strings.Join(got[k], ",") != strings.Join(want[k], ",") {
			t.Errorf("%s keys %v, want %v", k, got[k], want[k])
		}
	}
	if !bytes.HasSuffix(out, []byte("}\n")) || !bytes.HasPrefix(out, []byte("{\n  \"schema\": \"shipgate.report/v1\",\n")) {
		t.Errorf("want 2-space indentation and a trailing newline:\n%s", out)
	}

	// HTML escaping off, nil lists as [].
	r = report.Report{Changes: []report.Change{{Before: "Bash(a < b && c > d)"}}}
	out, _ = JSON(r)
	if !bytes.Contains(out, []byte(`"Bash(a < b && c > d)"`)) {
		t.Errorf("HTML was escaped: %s", out)
	}
	for _, k := range []string{`"files": []`, `"findings": []`, `"witnesses": []`} {
		if !bytes.Contains(out, []byte(k)) {
			t.Errorf("want %s in %s", k, out)
		}
	}
	if bytes.Contains(out, []byte("null")) {
		t.Errorf("null in %s", out)
	}
	if r.Changes[0].Witnesses != nil {
		t.Error("JSON modified the report")
	}
}

// bigReport is a report of n expanding allow rules, each with a finding,
// as the engine would sort it (risk descending).
func bigReport(n int) report.Report {
	r := report.Report{Schema: report.Schema, Decision: report.DecisionBlock, Files: []report.FileStatus{{Path: ".claude/settings.json", Status: report.StatusCompared, Rows: n}}}
	risks := []rating.Risk{"critical", "high", "medium", "low"}
	for i := 0; i < n; i++ {
		risk := risks[i*len(risks)/n]
		rule := fmt.Sprintf("Bash(tool-%04d --flag | grep `x` *)", i)
		r.Changes = append(r.Changes, report.Change{Path: ".claude/settings.json", Kind: report.KindRule, List: "allow", Direction: report.DirAdded,
			After: rule, Expands: true, Access: "exec", Risk: risk, Line: i + 3, Witnesses: []string{fmt.Sprintf("tool-%04d --flag | grep `x` rm", i)},
			Why: "runs without a prompt"})
		action := policy.RequireReview
		if risk == "critical" {
			action = policy.Block
		}
		r.Findings = append(r.Findings, report.Finding{CheckID: report.CheckAllowExpanded, Action: action, Risk: risk, Path: ".claude/settings.json",
			Line: i + 3, Evidence: rule, Message: "allow: " + rule + " runs without a prompt.", Key: "k" + rule})
	}
	// As many quiet rows no finding is about (the folded changes table).
	for i := 0; i < n; i++ {
		rule := fmt.Sprintf("Bash(tool-%04d --flag | grep `x` *)", i)
		r.Changes = append(r.Changes, report.Change{Path: ".claude/settings.json", Kind: report.KindRule, List: "deny", Direction: report.DirAdded,
			After: rule, Risk: "low", Line: n + i + 3, Witnesses: []string{}, Why: "narrows"})
	}
	return r
}

// tableRows returns the table rows under a "#### title" heading.
func tableRows(md, title string) []string {
	_, rest, ok := strings.Cut(md, "#### "+title+"\n")
	if !ok {
		return nil
	}
	var rows []string
	for i, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "####") {
			break
		}
		if strings.HasPrefix(line, "|") && i > 2 {
			rows = append(rows, line)
		}
	}
	return rows
}

// cells splits a table row at its unescaped pipes.
func cells(row string) []string {
	var out []string
	cur := strings.Builder{}
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' && i+1 < len(row) {
			cur.WriteByte(row[i])
			cur.WriteByte(row[i+1])
			i++
			continue
		}
		if row[i] == '|' {
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(row[i])
	}
	return append(out, cur.String())
}

// codeSpansClosed reports whether every backtick run of a line is closed
// by a run of the same length (a cut code span would leave one open).
func codeSpansClosed(line string) bool {
	// Outside a code span a backslash-escaped backtick is text (CommonMark);
	// inside one a backslash is literal, so the backtick may close it.
	open := ""
	for i := 0; i < len(line); {
		if open == "" && line[i] == '\\' && i+1 < len(line) {
			i += 2
			continue
		}
		if line[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		switch r := line[i:j]; {
		case open == "":
			open = r
		case r == open:
			open = ""
		}
		i = j
	}
	return open == ""
}

// stripCodeSpans removes the code spans of a line (a run of n backticks up
// to the next run of exactly n).
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		j := i + n
		closed := -1
		for j < len(line) {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				closed = j + m
				break
			}
			j += m
		}
		if closed < 0 {
			b.WriteString(line[i:])
			break
		}
		i = closed
	}
	return b.String()
}

func TestMarkdownBudget(t *testing.T) {
	r := bigReport(5000)
	for _, budget := range []int{0, 65000, 20000, 3000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			md := Markdown(r, Options{MaxBytes: budget, Version: "v1"})
			limit := budget
			if limit == 0 {
				limit = DefaultMaxBytes
			}
			if len(md) > limit || !utf8.ValidString(md) {
				t.Fatalf("markdown is %d bytes (valid UTF-8: %v), budget %d", len(md), utf8.ValidString(md), limit)
			}
			if utf8.RuneCountInString(md) > 65535 {
				t.Fatalf("over GitHub's 65,535 characters")
			}
			fr, cr := tableRows(md, "What changed"), tableRows(md, "Changes")
			if len(fr) == 0 || len(cr) == 0 {
				t.Errorf("a budget of %d shows %d findings and %d changes; want some of each", limit, len(fr), len(cr))
			}
			for _, row := range append(fr, cr...) {
				if !strings.HasSuffix(row, " |") {
					t.Errorf("cut row: %q", row)
				}
				if !codeSpansClosed(row) {
					t.Errorf("unbalanced code span: %q", row)
				}
			}
			for _, row := range fr {
				if n := len(cells(row)); n != 7 {
					t.Errorf("finding row has %d cells: %q", n-2, row)
				}
			}
			for _, row := range cr {
				if n := len(cells(row)); n != 10 {
					t.Errorf("change row has %d cells: %q", n-2, row)
				}
			}
			wantF := fmt.Sprintf("… %d more findings not shown; run `shipgate check` locally or see the annotations.", 5000-len(fr))
			wantC := fmt.Sprintf("… %d more changes not shown; run `shipgate check` locally or see the annotations.", 5000-len(cr))
			if !strings.Contains(md, wantF) || !strings.Contains(md, wantC) {
				t.Errorf("want %q and %q in the summary", wantF, wantC)
			}
			// Lowest priority is cut: the first rows are kept.
			if !strings.Contains(cr[0], "tool-0000") || !strings.Contains(fr[0], "tool-0000") {
				t.Errorf("the first (highest-priority) rows were not kept: %q", cr[0])
			}
			if !strings.Contains(md, "10000 changes, 5000 widening") {
				t.Errorf("the verdict must count the whole report")
			}
		})
	}
	// The same through the engine: 5,000 allow rules added to one file.
	var rules []string
	for i := 0; i < 5000; i++ {
		rules = append(rules, fmt.Sprintf("Bash(tool%04d run *)", i))
	}
	eng := judge.Compare(report.Input{Files: []report.File{pair(".claude/settings.json", settings([]string{"Read"}, nil, nil), settings(append([]string{"Read"}, rules...), nil, nil))}})
	if len(eng.Changes) != 5000 {
		t.Fatalf("%d changes, want 5000", len(eng.Changes))
	}
	md := Markdown(eng, Options{})
	fr := tableRows(md, "What changed")
	want := fmt.Sprintf("… %d more findings not shown; run `shipgate check` locally or see the annotations.", 5000-len(fr))
	if len(md) > DefaultMaxBytes || len(fr) == 0 || !strings.Contains(md, want) {
		t.Errorf("engine report: %d bytes, %d finding rows shown, want %q", len(md), len(fr), want)
	}

	// A report that fits is not cut.
	small := bigReport(10)
	md = Markdown(small, Options{})
	if strings.Contains(md, "not shown") || len(tableRows(md, "Changes")) != 10 || len(tableRows(md, "What changed")) != 10 {
		t.Errorf("a small report was cut:\n%s", md)
	}
}

func TestMarkdownEscaping(t *testing.T) {
	r := sampleReports()["hostile"]
	md := Markdown(r, Options{})
	// Outside code spans (where GitHub shows < as text) no HTML survives.
	var prose strings.Builder
	for _, line := range strings.Split(md, "\n") {
		prose.WriteString(stripCodeSpans(line) + "\n")
	}
	if strings.Contains(prose.String(), "<script>") || strings.Contains(md, "\x1b") {
		t.Errorf("raw HTML or escape sequence in the summary:\n%s", md)
	}
	for _, title := range []string{"What changed", "Changes"} {
		want := map[string]int{"What changed": 7, "Changes": 10}[title]
		rows := tableRows(md, title)
		if len(rows) == 0 && title == "What changed" {
			t.Fatalf("no %s rows:\n%s", title, md)
		}
		for _, row := range rows {
			if n := len(cells(row)); n != want {
				t.Errorf("%s row split into %d cells by file content: %q", title, n-2, row)
			}
			if !codeSpansClosed(row) {
				t.Errorf("unbalanced code span: %q", row)
			}
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"a", "`a`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"", "` `"},
		{"a|b", "`a|b`"},
	} {
		if got := mdCode(tc.in); got != tc.want {
			t.Errorf("mdCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := mdCell("a|b"); got != "`a\\|b`" {
		t.Errorf("mdCell(a|b) = %q", got)
	}
	if got := mdEscape("<b>*x*</b> | [l](u)"); got != `&lt;b&gt;\*x\*&lt;/b&gt; \| \[l\](u)` {
		t.Errorf("mdEscape = %q", got)
	}
	txt := Text(r, Options{})
	if strings.Contains(txt, "\x1b") || strings.Contains(txt, "\nfake line") {
		t.Errorf("control characters reached the terminal rendering:\n%s", txt)
	}
}

func TestSARIF(t *testing.T) {
	for name, r := range sampleReports() {
		t.Run(name, func(t *testing.T) {
			out, err := SARIF(r, Options{Version: "1.2.3"})
			if err != nil {
				t.Fatal(err)
			}
			sariftest.Validate(t, out)
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Name, Version string
							Rules         []struct{ ID string }
						}
					}
					Results []struct {
						RuleID, Level       string
						PartialFingerprints map[string]string
					}
				}
			}
			if err := json.Unmarshal(out, &log); err != nil || len(log.Runs) != 1 {
				t.Fatalf("want one run: %v", err)
			}
			run := log.Runs[0]
			if run.Tool.Driver.Name != "shipgate" || run.Tool.Driver.Version != "1.2.3" || len(run.Tool.Driver.Rules) != len(report.Catalogue) {
				t.Errorf("driver %+v", run.Tool.Driver)
			}
			if len(run.Results) != len(r.Findings) {
				t.Fatalf("%d results for %d findings", len(run.Results), len(r.Findings))
			}
			for i, res := range run.Results {
				want := map[string]string{"block": "error", "require_review": "warning", "advisory": "note"}[string(r.Findings[i].Action)]
				if res.Level != want || res.RuleID != r.Findings[i].CheckID || res.PartialFingerprints[sarifFingerprintID] == "" {
					t.Errorf("result %d: %+v for %+v", i, res, r.Findings[i])
				}
			}
		})
	}

	// Identity survives moved lines; a line of 0 has no region.
	f := report.Finding{CheckID: report.CheckAllowExpanded, Action: "require_review", Risk: "high", Path: "a b/.claude/settings.json", Line: 3, HeadLine: 3, Message: "m", Key: "k"}
	moved := f
	moved.Line, moved.HeadLine = 40, 40
	noLine := f
	noLine.Line, noLine.HeadLine = 0, 0
	noLine.Key = "other"
	out, err := SARIF(report.Report{Findings: []report.Finding{f, moved, noLine}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sariftest.Validate(t, out)
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine int }
					}
				}
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results
	if res[0].PartialFingerprints[sarifFingerprintID] != res[1].PartialFingerprints[sarifFingerprintID] {
		t.Error("the fingerprint changed when the line moved")
	}
	if res[0].PartialFingerprints[sarifFingerprintID] == res[2].PartialFingerprints[sarifFingerprintID] {
		t.Error("different findings share a fingerprint")
	}
	if loc := res[1].Locations[0].PhysicalLocation; loc.Region == nil || loc.Region.StartLine != 40 || loc.ArtifactLocation.URI != "a%20b/.claude/settings.json" {
		t.Errorf("location %+v", loc)
	}
	if res[2].Locations[0].PhysicalLocation.Region != nil {
		t.Error("a finding without a line has a region")
	}
}

func TestTextCoverage(t *testing.T) {
	const limitNote = "This is an input limit, not a finding about the change"
	deny := settings(nil, nil, []string{"Bash(rm *)"})
	for _, tc := range []struct {
		name     string
		files    []report.File
		want     []string
		wantNot  []string
		noChange bool
	}{
		{name: "parse_failed", files: []report.File{pair(".claude/settings.json", deny, []byte("{\"permissions\": {\"deny\": [\"Bash(rm *)\",]}}"))},
			want: []string{".claude/settings.json: cannot compare: the head version does not parse as a settings file (line 1)",
				"Claude Code cannot read it either and drops the whole file (SHIP-HOST-BOUNDARY-CONFIG-PARSE-FAILED)", "Not compared: .claude/settings.json."},
			wantNot: []string{"No permission changes detected", limitNote}},
		{name: "too_large", files: []report.File{{Path: ".claude/settings.json", Base: report.Version{Exists: true, Data: deny}, Head: report.Version{Exists: true, Data: oversizedSettings()}}},
			want:    []string{".claude/settings.json: cannot compare: ", limitNote, "Not compared: .claude/settings.json."},
			wantNot: []string{"No permission changes detected"}},
		{name: "unreadable", files: []report.File{{Path: ".mcp.json", Base: report.Version{Exists: true, Data: []byte("{}")}, Head: report.Version{Exists: true, Unreadable: "a symbolic link, which Shipgate does not follow"}}},
			want: []string{".mcp.json: cannot compare: a symbolic link, which Shipgate does not follow. " + limitNote}},
		{name: "unchanged", files: []report.File{pair(".claude/settings.local.json", deny, deny)},
			want: []string{".claude/settings.local.json: unchanged (read for the effective view only)", "No permission changes detected. Decision: allow."}},
		{name: "compared", files: []report.File{pair(".claude/settings.json", settings([]string{"Read"}, nil, nil), settings([]string{"Read", "Edit(src/**)"}, nil, nil)),
			pair(".claude/settings.local.json", deny, deny)},
			want: []string{".claude/settings.json: compared; 1 row", "1 change, 1 widening what the agent may do (⚠). Decision: require_review.",
				"  .claude/settings.local.json: unchanged"},
			wantNot: []string{"No permission changes detected", "cannot compare"}},
		{name: "new", files: []report.File{pair(".mcp.json", nil, []byte(`{"mcpServers": {}}`))},
			want: []string{".mcp.json: added (new file); 0 rows", "No permission changes detected."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			txt := Text(judge.Compare(report.Input{Files: tc.files}), Options{Reproduce: "shipgate check x"})
			for _, w := range append(tc.want, "What this run established:",
				"Static configuration only: this is what the files permit, not what the agent did.") {
				if !strings.Contains(txt, w) {
					t.Errorf("want %q in:\n%s", w, txt)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(txt, w) {
					t.Errorf("do not want %q in:\n%s", w, txt)
				}
			}
			if !strings.HasSuffix(txt, "Reproduce: shipgate check x\n") {
				t.Errorf("the reproduce line must come last:\n%s", txt)
			}
			md := Markdown(judge.Compare(report.Input{Files: tc.files}), Options{})
			if !strings.Contains(md, "What this run established") {
				t.Errorf("markdown lacks the coverage section")
			}
		})
	}
}

func TestTextChangeShape(t *testing.T) {
	txt := Text(sampleReports()["widened"], Options{Subject: "Agent permission review  origin/main (1a2b3c4d) -> working tree"})
	for _, w := range []string{
		"Agent permission review  origin/main (1a2b3c4d) -> working tree\n\n",
		"⚠ medium  widened  .claude/settings.json:",
		"    allow: Bash(npm test:*) → allow: Bash(npm *)\n",
		"    now runs: npm ",
		"    no longer denied: .env",
		"— → allow: Bash(python3 -c *)",
		"Findings:\n  block  SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW  critical  .claude/settings.json:",
		"Decision: block.",
	} {
		if !strings.Contains(txt, w) {
			t.Errorf("want %q in:\n%s", w, txt)
		}
	}
}

// TestFootersNameEveryAgentChecked: the text and Markdown footers name the
// version of every agent whose files the report read, not only Claude
// Code's.
func TestFootersNameEveryAgentChecked(t *testing.T) {
	files := []report.File{pair(".codex/config.toml", []byte("model = \"o3\"\n"), []byte("model = \"o3\"\napproval_policy = \"never\"\n"))}
	r := judge.Compare(report.Input{Files: files})
	if r.CheckedAgainst["codex"] == "" {
		t.Fatalf("checked_against lacks codex: %v", r.CheckedAgainst)
	}
	want := "Claude Code " + r.CheckedAgainst["claude-code"] + ", Codex CLI " + r.CheckedAgainst["codex"]
	if txt := Text(r, Options{}); !strings.Contains(txt, "Checked against "+want+".") {
		t.Errorf("text footer lacks %q:\n%s", want, txt)
	}
	if md := Markdown(r, Options{}); !strings.Contains(md, "checked against "+want+" ·") {
		t.Errorf("markdown footer lacks %q:\n%s", want, md)
	}
}

// oversizedSettings is a valid settings file just over MaxFileSize.
func oversizedSettings() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"permissions\": {\n    \"allow\": [\n")
	for i := 0; b.Len() < report.MaxFileSize+1024; i++ {
		fmt.Fprintf(&b, "      \"Bash(echo %06d)\",\n", i)
	}
	b.WriteString("      \"Bash(true)\"\n    ]\n  }\n}\n")
	return b.Bytes()
}
