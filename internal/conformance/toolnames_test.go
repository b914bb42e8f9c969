package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// ToolNamesEnv selects TestToolNamesOnTheBinary's mode: "update" rewrites
// lattice/claude_names.txt from the pinned binary.
const ToolNamesEnv = "SHIPGATE_TOOL_NAMES"

// toolNameLiteral is a string literal of the binary shaped like a tool
// name (lattice's toolNameShape), in any of JavaScript's quotes.
var toolNameLiteral = regexp.MustCompile("[\"'`]([A-Z][A-Za-z0-9]{0,63})[\"'`]")

// binaryToolNames reads the names lattice.NoSuchTool rests on from the
// binary's bytes: every literal shaped like a tool name, sorted.
func binaryToolNames(t *testing.T, bin string) []string {
	t.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range toolNameLiteral.FindAllSubmatch(data, -1) {
		seen[string(m[1])] = true
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestToolNamesOnTheBinary derives from the pinned binary the names
// lattice.NoSuchTool calls no tool (issue 22: a bare allow of TodoRead,
// which 2.1.328 does not have, blocked as a wildcard), and measures what a
// rule naming one does:
//   - lattice/claude_names.txt lists exactly the binary's string literals
//     shaped like a tool name (so a name NoSuchTool accepts is spelled
//     nowhere in the binary);
//   - every tool a session offers, with the environments that offer more
//     (the task tools, TodoWrite, ToolSearch), and every name of the
//     binary's own tool-name list and alias tables is one NoSuchTool
//     rejects;
//   - a deny rule naming TodoRead, AgentTool (claudekit's commands allow
//     both) or a made-up name draws the binary's warning "matches no known
//     tool" in its debug log, as a deny rule of TodoWrite or Task does not;
//   - an allow rule naming them leaves the tools offered as with no rule,
//     and a call of one is answered "No such tool available".
func TestToolNamesOnTheBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	names := binaryToolNames(t, bin)
	_, self, _, _ := runtime.Caller(0)
	file := filepath.Join(filepath.Dir(self), "..", "..", "lattice", "claude_names.txt")
	pinned, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	for _, l := range strings.Split(string(pinned), "\n") {
		if strings.HasPrefix(l, "#") {
			head = append(head, l)
		}
	}
	want := strings.Join(head, "\n") + "\n" + strings.Join(names, "\n") + "\n"
	if os.Getenv(ToolNamesEnv) == "update" {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if string(pinned) != want {
		t.Errorf("lattice/claude_names.txt is not the binary's list of tool-shaped literals (%d names in the binary): run this test with %s=update", len(names), ToolNamesEnv)
	}
	for _, n := range names {
		if lattice.NoSuchTool(n) {
			t.Errorf("NoSuchTool(%s), and the binary spells it", n)
		}
	}

	// The binary's own list of tool names and its alias tables.
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`\[((?:"[A-Za-z_]+",)*"[A-Za-z_]+")\],[\w$]+=\{(Task:"Agent"[^}]*)\}`).FindSubmatch(data)
	if list == nil {
		t.Fatal("the binary's tool-name list (the array before the alias table {Task:\"Agent\",…}) was not found: read the new binary again")
	}
	for _, m := range regexp.MustCompile(`"?([A-Za-z_]+)"?`).FindAllSubmatch(append(append([]byte(nil), list[1]...), list[2]...), -1) {
		if n := string(m[1]); lattice.NoSuchTool(n) {
			t.Errorf("NoSuchTool(%s), and it is in the binary's tool-name list or alias table", n)
		}
	}
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}

	ctx := context.Background()
	absent := []string{"TodoRead", "AgentTool", "ShipgateNoSuchTool"}
	for _, n := range absent {
		if !lattice.NoSuchTool(n) {
			t.Errorf("NoSuchTool(%s) = false", n)
		}
	}
	dbg := filepath.Join(t.TempDir(), "debug.txt")
	deny, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": append([]string{"TodoWrite", "Task"}, absent...)}})
	if _, err := (Driver{Binary: bin}).Run(ctx, Session{Settings: string(deny) + "\n", Args: []string{"--debug-file", dbg}, Calls: []Call{{Tool: "Read", Arg: "$PROJ/README.md"}}}); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(dbg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append([]string{"TodoWrite", "Task"}, absent...) {
		warned := strings.Contains(string(log), `deny rule "`+n+`" matches no known tool`)
		if warned != lattice.NoSuchTool(n) {
			t.Errorf("deny %s: the binary warns %v that it matches no known tool; NoSuchTool says %v", n, warned, lattice.NoSuchTool(n))
		}
	}

	allow, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": absent}})
	var calls []Call
	for _, n := range absent {
		calls = append(calls, Call{Tool: n})
	}
	for _, set := range toolsOffered {
		offered := map[string]bool{}
		bare, err := Driver{Binary: bin}.Run(ctx, Session{Env: set.env, Calls: []Call{{Tool: "Read", Arg: "$PROJ/README.md"}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range bare.Tools {
			offered[tool] = true
			if lattice.NoSuchTool(tool) {
				t.Errorf("%v: NoSuchTool(%s), and the session offers it", set.env, tool)
			}
		}
		r, err := Driver{Binary: bin}.Run(ctx, Session{Settings: string(allow) + "\n", Env: set.env, Calls: calls})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Tools) != len(bare.Tools) {
			t.Errorf("%v: the allow rules changed the tools offered: %v, with no rule %v", set.env, r.Tools, bare.Tools)
		}
		for i, x := range r.Results {
			if !strings.Contains(x.Text, "No such tool available: "+absent[i]) {
				t.Errorf("%v: a call of %s under allow %s: %s %q, want \"No such tool available\"", set.env, absent[i], absent[i], x.Decision, clip(x.Text, 160))
			}
		}
	}
	// ToolSearch, behind ENABLE_TOOL_SEARCH: a tool behind a flag.
	r, err := Driver{Binary: bin}.Run(ctx, Session{Env: []string{"ENABLE_TOOL_SEARCH=1"}, Calls: []Call{{Tool: "Read", Arg: "$PROJ/README.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range r.Tools {
		if lattice.NoSuchTool(tool) {
			t.Errorf("ENABLE_TOOL_SEARCH=1: NoSuchTool(%s), and the session offers it", tool)
		}
	}
}
