package conformance

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// TestFakeAPIStreamsTheBatchAndRecordsResults plays Claude Code's side of
// the two requests: the first (tools offered, no tool_result) must come
// back as one streamed message holding every tool call, the second's
// tool_result blocks must be recorded.
func TestFakeAPIStreamsTheBatchAndRecordsResults(t *testing.T) {
	uses := []ToolUse{
		{ID: "toolu_000000", Name: "Bash", Input: map[string]any{"command": "npm test"}},
		{ID: "toolu_000001", Name: "Read", Input: map[string]any{"file_path": "/etc/hostname"}},
	}
	f, err := newFakeAPI(uses, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	post := func(body string) *http.Response {
		t.Helper()
		resp, err := http.Post(f.URL()+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// A side request without tools gets text, not the batch.
	resp := post(`{"stream":false,"messages":[{"role":"user","content":"title?"}]}`)
	var side map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&side); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if side["stop_reason"] != "end_turn" {
		t.Fatalf("side request: stop_reason %v, want end_turn", side["stop_reason"])
	}

	resp = post(`{"stream":true,"tools":[{"name":"Bash"},{"name":"Read"}],"messages":[{"role":"user","content":[{"type":"text","text":"go"}]}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var events []string
	inputs := map[int]string{}
	names := map[int]string{}
	stop := ""
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, name)
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type, Name string
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event data %q: %v", data, err)
		}
		switch ev.Type {
		case "content_block_start":
			names[ev.Index] = ev.ContentBlock.Name
		case "content_block_delta":
			inputs[ev.Index] += ev.Delta.PartialJSON
		case "message_delta":
			stop = ev.Delta.StopReason
		}
	}
	resp.Body.Close()
	if events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Fatalf("events %v: want message_start … message_stop", events)
	}
	if stop != "tool_use" {
		t.Fatalf("stop_reason %q, want tool_use", stop)
	}
	for i, u := range uses {
		var in map[string]any
		if err := json.Unmarshal([]byte(inputs[i]), &in); err != nil {
			t.Fatalf("block %d input %q: %v", i, inputs[i], err)
		}
		if names[i] != u.Name || !reflect.DeepEqual(in, u.Input) {
			t.Fatalf("block %d: %s %v, want %s %v", i, names[i], in, u.Name, u.Input)
		}
	}

	resp = post(`{"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_000000","is_error":true,"content":"This command requires approval"},` +
		`{"type":"tool_result","tool_use_id":"toolu_000001","content":[{"type":"text","text":"1\tvm"}]}]}]}`)
	resp.Body.Close()
	res, errs := f.Results()
	want := map[string]string{"toolu_000000": "This command requires approval", "toolu_000001": "1\tvm"}
	if !reflect.DeepEqual(res, want) || !errs["toolu_000000"] || errs["toolu_000001"] {
		t.Fatalf("recorded %v %v, want %v with the first an error", res, errs, want)
	}
}

// TestClassify holds the reading of tool results to texts Claude Code
// 2.1.328 was seen to return.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		version string
		tool    string
		text    string
		isError bool
		want    Decision
	}{
		{"2.1.328", "Bash", "SHIPGATE-STUB-RAN npm test", false, Allow},
		{"2.1.328", "Bash", "(Bash completed with no output)", false, Allow},
		{"2.1.328", "Bash", "Exit code 127\n/bin/bash: line 1: npm:x: command not found", true, Allow},
		{"2.1.328", "Bash", "This command requires approval", true, Ask},
		{"2.1.328", "Bash", "Claude requested permissions to use Bash, but you haven't granted it yet.", true, Ask},
		{"2.1.328", "Bash", "This command uses shell operators that require approval for safety", true, Ask},
		{"2.1.328", "Bash", "A nested command in this command can't be checked before it runs", true, Ask},
		{"2.1.328", "Bash", "Output redirection to '/p/out.txt' needs approval. The path is inside the working directories", true, Ask},
		{"2.1.328", "Bash", "cat in '/etc/passwd' was blocked. For security, Claude Code may only concatenate files from the allowed working directories", true, Ask},
		{"2.1.328", "Bash", "'eval' evaluates arguments as shell code", true, Ask},
		{"2.1.328", "Bash", "find with '-exec' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule", true, Ask},
		{"2.1.328", "Bash", "A permission rule denies a command inside this shell -c script, so Claude Code could not check it for dangerous removals. Approving runs the whole script, including that command.", true, Ask},
		{"2.1.328", "Bash", "Permission to use Bash with command curl x has been denied.", true, Deny},
		{"2.1.328", "Bash", "Auto mode is unavailable: its safety check does not run for this session, so Bash was not run.", true, Classifier},
		{"2.1.328", "Read", "1\tSHIPGATE-FILE-CONTENT\n2", false, Allow},
		{"2.1.328", "WebFetch", "getaddrinfo ENOTFOUND example.com", true, Allow},
		{"2.1.328", "Bash", "Glob patterns are not allowed in write operations. Please specify an exact file path.", true, Ask},
		// The tool's input check refused it before any permission: not an allow.
		{"2.1.328", "Edit", "<tool_use_error>Cannot create new file - file already exists.</tool_use_error>", true, Unclassified},
		{"2.1.328", "WebFetch", "WebFetch denied access to domain:sub.example.com.", true, Deny},
		{"2.1.328", "Bash", "Run outside of the sandbox", true, Ask},
		{"2.1.328", "WebFetch", "Claude requested permissions to use WebFetch, but you haven't granted it yet.", true, Ask},
		{"2.1.328", "Read", "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>", true, Deny},
		{"2.1.328", "Read", "<tool_use_error>Error: No such tool available: Read. Read is disabled for this session</tool_use_error>", true, Deny},
		{"2.1.328", "Read", "Permission to use Read has been denied because Claude Code is running in don't ask mode.", true, Deny},
		{"2.1.328", "Edit", "<tool_use_error>File is covered by a Read deny rule in your permission settings and cannot be edited.</tool_use_error>", true, Deny},
		{"2.1.328", "Edit", "Cannot write to /p/e1.txt while in plan mode.", true, Deny},
		{"2.1.328", "Write", "File created successfully at: /p/w1.txt", false, Allow},
		{"2.1.328", "Write", "Claude requested permissions to write to /h/w2.txt, but you haven't granted it yet.", true, Ask},
		{"2.1.328", "Write", "<tool_use_error>Something new</tool_use_error>", true, Unclassified},
		{"2.1.328", "Read", "File does not exist.", true, Unclassified},
	} {
		if got := classify(Call{Tool: tc.tool}, tc.text, tc.isError); got != tc.want {
			t.Errorf("[%s] %s %q (error %v): %s, want %s", tc.version, tc.tool, tc.text, tc.isError, got, tc.want)
		}
	}
}

func TestParseKnown(t *testing.T) {
	ks, err := ParseKnown("# comment\n\nbash-readonly | readonly | allow | ask | 2.1.328 | read-only commands\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Known{{Class: "bash-readonly", Label: "readonly", Claude: "allow", Shipgate: "ask", Version: "2.1.328", Reason: "read-only commands", Line: 3}}
	if !reflect.DeepEqual(ks, want) {
		t.Fatalf("got %+v, want %+v", ks, want)
	}
	if ks, err := ParseKnown("modes | b | allow | ask | 2.1.328 | x | xargs y"); err != nil || ks[0].Reason != "x | xargs y" {
		t.Fatalf("a reason with a |: %+v, %v", ks, err)
	}
	for _, bad := range []string{
		"a | b | allow | ask | 2.1.328",                         // five fields
		"a | b | runs | ask | 2.1.328 | why",                    // not a decision
		"a | b | allow | ask |  | why",                          // no version
		"a | b | allow | ask | 2.1.328 | ",                      // no reason
		"a | b | allow | ask | 2.1.328 | why",                   // not a class
		"* | b | allow | ask | 2.1.328 | why",                   // a glob, not a class
		"bash-* | b | allow | ask | 2.1.328 | why",              // a glob over several classes
		"modes | b | classifier | ask | 2.1.328 | x\nmodes | c", // the second line is broken
	} {
		if _, err := ParseKnown(bad); err == nil {
			t.Errorf("ParseKnown(%q) accepted it", bad)
		}
	}
	if _, err := KnownDisagreements(); err != nil {
		t.Fatalf("known.txt: %v", err)
	}
}

func TestMatchKnown(t *testing.T) {
	ks := []Known{
		{Class: "bash-*", Label: "wrapper:*", Claude: "allow", Shipgate: "*", Version: ClaudeCodeVersion, Reason: "r1"},
		{Class: "path-read", Label: "project", Claude: "allow", Shipgate: "ask", Version: "0.0.1", Reason: "old version"},
	}
	for _, tc := range []struct {
		class, label     string
		claude, shipgate Decision
		want             string
	}{
		{"bash-wrappers", "wrapper:timeout 5", Allow, Ask, "r1"},
		{"bash-wrappers", "wrapper:env FOO=1/x", Allow, Deny, "r1"},
		{"bash-wrappers", "wrapper:env", Ask, Allow, ""},
		{"bash-wrappers", "assignment:CI=1", Allow, Ask, ""},
		{"path-read", "project", Allow, Ask, ""}, // measured on another version: does not count
	} {
		o := Outcome{Case: Case{Class: tc.class, Label: tc.label}, Claude: tc.claude, Shipgate: tc.shipgate}
		got := ""
		if k := matchKnown(ks, o); k != nil {
			got = k.Reason
		}
		if got != tc.want {
			t.Errorf("%s/%s %s→%s: matched %q, want %q", tc.class, tc.label, tc.claude, tc.shipgate, got, tc.want)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"a", "a", true}, {"a", "ab", false}, {"*", "", true}, {"a*", "a/b c", true}, {"*b", "ab", true},
		{"a*b", "ab", true}, {"a*b", "a", false}, {"a*a", "a", false}, {"a*b*c", "a-b-c", true}, {"a*b*c", "a-c-b", false},
	} {
		if got := glob(tc.p, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
}

// TestGenerate checks the corpus is reproducible, spans every class, is at
// least 20,000 decisions at the full run's size, and never repeats a call
// within a session nor gives two Edit/Write calls one file.
func TestGenerate(t *testing.T) {
	a, b := Generate(7, 3000), Generate(7, 3000)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two corpora")
	}
	if reflect.DeepEqual(a, Generate(8, 3000)) {
		t.Fatal("two seeds gave one corpus")
	}
	full := Generate(1, 24000)
	perClass := map[string]int{}
	total := 0
	for _, bt := range full {
		seen := map[Call]bool{}
		for _, c := range bt.Cases {
			if seen[c.Call] {
				t.Fatalf("batch %s repeats %v", bt.Class, c.Call)
			}
			seen[c.Call] = true
			if strings.Contains(c.Call.Arg, "{n}") {
				t.Fatalf("unnumbered file %v", c.Call)
			}
			perClass[c.Class]++
			total++
		}
		if len(bt.Cases) > callsPerBatch {
			t.Fatalf("batch of %d calls", len(bt.Cases))
		}
		var js map[string]any
		if err := json.Unmarshal([]byte(bt.Settings.JSON()), &js); err != nil && bt.Settings.Raw == "" {
			t.Fatalf("settings do not parse: %v", err) // (a Raw file may be broken on purpose)
		}
	}
	if total < 20000 {
		t.Fatalf("the full corpus has %d decisions, want at least 20000", total)
	}
	for _, c := range Classes {
		if perClass[c] < 200 && c != WitnessClass || perClass[c] < 40 {
			t.Errorf("class %s has %d decisions in the full corpus", c, perClass[c])
		}
	}
}

func TestShipgateCall(t *testing.T) {
	lay := Layout{Root: "/t", Home: "/t/home", Proj: "/t/proj", Extra: "/t/extra"}
	for _, tc := range []struct {
		in   Call
		want lattice.Call
	}{
		{Call{Tool: "Read", Arg: "$PROJ/src/a.go"}, lattice.Call{Tool: "Read", Arg: "src/a.go"}},
		{Call{Tool: "Edit", Arg: "$HOME/.ssh/id_rsa"}, lattice.Call{Tool: "Edit", Arg: "~/.ssh/id_rsa"}},
		{Call{Tool: "Write", Arg: "$EXTRA/n.md"}, lattice.Call{Tool: "Write", Arg: "/t/extra/n.md"}},
		{Call{Tool: "Read", Arg: "/etc/passwd"}, lattice.Call{Tool: "Read", Arg: "/etc/passwd"}},
		{Call{Tool: "Bash", Arg: "cat $EXTRA/n.md"}, lattice.Call{Tool: "Bash", Arg: "cat /t/extra/n.md"}},
		{Call{Tool: "Bash", Arg: "ls", Param: "timeout", Value: "5000"}, lattice.Call{Tool: "Bash", Arg: "ls", Param: "timeout", Value: "5000"}},
		{Call{Tool: "Bash", Arg: "ls", Param: "none"}, lattice.Call{Tool: "Bash", Arg: "ls"}},
		{Call{Tool: "mcp__gh__get_issue"}, lattice.Call{Tool: "mcp__gh__get_issue"}},
	} {
		if got := ShipgateCall(lay, tc.in); got != tc.want {
			t.Errorf("ShipgateCall(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestMeasuredRows holds the engine to every decision recorded from the
// real binary (testdata/measured.jsonl, a sample of the full run, and
// testdata/findings.jsonl, curated rows each measured in its own session;
// every row names the Claude Code version it was measured on), without
// running it: a row the engine gets wrong fails unless known.txt lists its
// class.
func TestMeasuredRows(t *testing.T) {
	var rows []Row
	for _, name := range []string{"testdata/measured.jsonl", "testdata/findings.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ParseRows(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows = append(rows, rs...)
	}
	if len(rows) < 100 {
		t.Fatalf("only %d measured rows", len(rows))
	}
	known, err := KnownDisagreements()
	if err != nil {
		t.Fatal(err)
	}
	lay := Layout{Root: "/tmp/sg", Home: "/tmp/sg/home", Proj: "/tmp/sg/proj", Extra: "/tmp/sg/extra"}
	agree, knownN := 0, 0
	for i, row := range rows {
		b := row.Batch()
		sg := ShipgateDecide(lay, b)[0]
		got := Decision(sg.Decision)
		o := Outcome{Case: b.Cases[0], Claude: row.Claude, Shipgate: got, Why: sg.Why}
		tagAutoClassifier(&o)
		if o.Agrees() {
			agree++
			continue
		}
		if k := matchKnown(known, o); k != nil && row.Version == ClaudeCodeVersion {
			knownN++
			continue
		}
		t.Errorf("row %d [Claude Code %s] %s/%s %v with %s: Claude Code %s, Shipgate %s",
			i+1, row.Version, row.Class, row.Label, b.Cases[0].Call, b.Describe(), o.Claude, got)
	}
	t.Logf("%d measured rows: %d agree, %d known disagreements", len(rows), agree, knownN)
}

func FuzzParseKnown(f *testing.F) {
	f.Add(knownFile)
	f.Add("a | b | allow | ask | 2.1.328 | why\n")
	f.Add("|||||\n")
	f.Fuzz(func(t *testing.T, text string) {
		ks, err := ParseKnown(text)
		if err != nil {
			return
		}
		// Every entry read back from its rendering is itself.
		for _, k := range ks {
			again, err := ParseKnown(k.String())
			if err != nil || len(again) != 1 {
				t.Fatalf("%q: re-read %v, %v", k.String(), again, err)
			}
			again[0].Line = k.Line
			if again[0] != k {
				t.Fatalf("re-read %+v, want %+v", again[0], k)
			}
		}
	})
}

func FuzzParseRows(f *testing.F) {
	f.Add([]byte(`{"claude_code":"2.1.328","class":"c","label":"l","settings":{"allow":["Bash"]},"tool":"Bash","arg":"ls","claude":"allow"}` + "\n"))
	f.Add([]byte("# c\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseRows(data)
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Version == "" || r.Tool == "" {
				t.Fatalf("row without version or tool accepted: %+v", r)
			}
		}
	})
}

// TestFakeAPIWarmsUpForMCP plays an MCP session: the first request gets
// the warm-up call alone; its result with the MCP tools still missing gets
// another warm-up; once every stub tool is offered, the batch.
func TestFakeAPIWarmsUpForMCP(t *testing.T) {
	uses := []ToolUse{{ID: "toolu_000000", Name: "mcp__gh__get_issue", Input: map[string]any{}}}
	f, err := newFakeAPI(uses, &ToolUse{Name: "Read", Input: map[string]any{"file_path": "/p/README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ask := func(tools []string, results ...string) []string {
		t.Helper()
		var ts, blocks []string
		for _, n := range tools {
			ts = append(ts, `{"name":"`+n+`"}`)
		}
		for _, id := range results {
			blocks = append(blocks, `{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}`)
		}
		msgs := `[{"role":"user","content":[{"type":"text","text":"go"}]}]`
		if len(blocks) > 0 {
			msgs = `[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"user","content":[` + strings.Join(blocks, ",") + `]}]`
		}
		body := `{"stream":false,"tools":[` + strings.Join(ts, ",") + `],"messages":` + msgs + `}`
		resp, err := http.Post(f.URL()+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct {
			Content []struct{ Type, ID, Name string } `json:"content"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				got = append(got, b.ID+" "+b.Name)
			}
		}
		return got
	}
	all := append([]string{"Read", "Bash"}, MCPTools()...)
	steps := []struct {
		tools   []string
		results []string
		want    string
	}{
		{[]string{"Read", "Bash"}, nil, "toolu_warm00 Read"},
		{[]string{"Read", "Bash", "mcp__gh__get_issue"}, []string{"toolu_warm00"}, "toolu_warm01 Read"}, // not every stub tool yet
		{all, []string{"toolu_warm00"}, ""},                                                             // the pending warm-up's result is not there
		{all, []string{"toolu_warm00", "toolu_warm01"}, "toolu_000000 mcp__gh__get_issue"},
		{all, []string{"toolu_warm00", "toolu_warm01", "toolu_000000"}, ""}, // after the batch: text
	}
	for i, s := range steps {
		if got := strings.Join(ask(s.tools, s.results...), ","); got != s.want {
			t.Errorf("step %d: tool calls %q, want %q", i, got, s.want)
		}
	}
	if _, errs := f.Results(); len(errs) == 0 {
		t.Errorf("no results recorded")
	}
}

// TestSchemaClassDrawsManyKeys: the schema class samples the binary's
// settings schema widely, in the CI subset too: many distinct keys, every
// level of perturbation, both files.
func TestSchemaClassDrawsManyKeys(t *testing.T) {
	for _, c := range []struct{ n, keys, wheres int }{{ciDecisions, 15, 20}, {24000, 60, 120}} {
		keys, wheres, levels, files := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, b := range Generate(ciSeed, c.n) {
			if b.Class != SchemaClass {
				continue
			}
			for _, cs := range b.Cases {
				parts := strings.SplitN(cs.Label, ":", 3)
				if len(parts) != 3 {
					t.Fatalf("label %q: want file:level:where", cs.Label)
				}
				files[parts[0]], levels[parts[1]], wheres[parts[2]] = true, true, true
				keys[strings.FieldsFunc(parts[2], func(r rune) bool { return r == '.' || r == '[' || r == '|' })[0]] = true
			}
			for _, text := range []string{b.Settings.JSON(), b.Local.JSON()} {
				var doc map[string]any
				if err := json.Unmarshal([]byte(text), &doc); err != nil {
					t.Fatalf("a schema-class file does not parse: %v\n%s", err, text)
				}
			}
		}
		if len(keys) < c.keys || len(wheres) < c.wheres || len(levels) != len(schemaLevels) || len(files) != 2 {
			t.Errorf("N=%d: the schema class draws %d top-level keys (want %d), %d nodes (want %d), levels %v, files %v",
				c.n, len(keys), c.keys, len(wheres), c.wheres, levels, files)
		}
	}
}
