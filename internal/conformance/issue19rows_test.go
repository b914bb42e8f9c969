package conformance

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// letters reads a row's decisions: A allow, Q ask, D deny, C classifier.
var letters = map[Decision]byte{Allow: 'A', Ask: 'Q', Deny: 'D', Classifier: 'C'}

// measuredRow is one session of a measured-row test: settings, the calls,
// and what Claude Code did with each (a letter per call).
type measuredRow struct {
	settings Settings
	local    *Settings
	want     string
}

// runMeasuredRows runs each row as one session on the pinned binary and
// checks, call by call, Claude Code's decision against the row and the
// engine's effective view against Claude Code.
func runMeasuredRows(t *testing.T, class string, calls []Call, rows []measuredRow) {
	t.Helper()
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("runs Claude Code sessions; not in -short")
	}
	var batches []Batch
	for _, r := range rows {
		if len(r.want) != len(calls) {
			t.Fatalf("row %+v: %d decisions for %d calls", r.settings, len(r.want), len(calls))
		}
		var cs []Case
		for _, c := range calls {
			cs = append(cs, Case{Class: class, Label: "measured", Call: c})
		}
		batches = append(batches, Batch{Class: class, Settings: r.settings, Local: r.local, Cases: cs})
	}
	run := Execute(context.Background(), Driver{Binary: bin}, batches, 1, nil, nil)
	for _, err := range run.Errors {
		t.Error(err)
	}
	if len(run.Outcomes) != len(rows)*len(calls) {
		t.Fatalf("%d outcomes for %d calls", len(run.Outcomes), len(rows)*len(calls))
	}
	for _, o := range run.Outcomes {
		r, j := rows[o.Batch], slices.Index(calls, o.Case.Call)
		where := batches[o.Batch].Describe()
		if letters[o.Claude] != r.want[j] {
			t.Errorf("%s, %s: Claude Code %s (%s), measured %c", where, o.Case.Call, o.Claude, clip(o.ClaudeText, 120), r.want[j])
		}
		if !o.Agrees() {
			t.Errorf("%s, %s: Shipgate %s (%s), Claude Code %s", where, o.Case.Call, o.Shipgate, o.Why, o.Claude)
		}
	}
}

// TestAcceptEditsCommands measures which Bash commands defaultMode
// acceptEdits runs with no rule (lattice.AcceptEditsRuns and its table,
// lattice TestMeasuredAcceptEdits): the bundle's list with every path
// operand inside the project — mv and cp with no flag, touch with plain
// operands, sed a plain substitution with -i or --in-place at most — in
// settings.json and as a settings.local.json override.
func TestAcceptEditsCommands(t *testing.T) {
	lines := []string{
		"sed -i s/a/b/ README.md", "sed -i s/a/b/ /etc/hostname", "sed -i s/a/b/ ../x", "sed -i.bak s/a/b/ README.md",
		"sed -i -e s/a/b/ README.md", "sed -e s/a/b/ -i README.md", "sed -i 's/a/b/w /tmp/o' README.md", "sed --in-place s/a/b/ README.md",
		"sed -i s/a/b/ src/app.go", "sed s/a/b/ README.md", "sed -i -f x.sed README.md",
		"mv a b", "mv src/a src/b", "mv a /tmp/b", "mv -f a b", "mv a ../b",
		"cp a b", "cp -r src dst", "cp a /tmp/b", "cp /etc/hostname a",
		"rmdir d", "rmdir /tmp/d", "rmdir -p a/b",
		"touch x", "touch -c x", "touch -t 202001010000 x", "touch /tmp/x",
		"mkdir -p a/b", "mkdir /tmp/d", "rm x", "rm -rf build", "rm /tmp/x",
		"chmod +x a", "ln -s a b", "npm test > out.txt", "echo x > out.txt",
	}
	const want = "AQQQQQQAAAQ" + "AAQQQ" + "AQQQ" + "AQA" + "AQQQ" + "AQAAQ" + "QQQA"
	var calls []Call
	for _, l := range lines {
		calls = append(calls, Call{Tool: "Bash", Arg: l})
	}
	runMeasuredRows(t, "modes", calls, []measuredRow{
		{settings: Settings{DefaultMode: "acceptEdits"}, want: want},
		{settings: Settings{DefaultMode: "default"}, local: &Settings{DefaultMode: "acceptEdits"}, want: want},
	})
}

// acceptEditsList is the array literal that holds the commands acceptEdits
// runs in the binary's bundled code: ["mkdir","touch",…] in 2.1.328.
var acceptEditsList = regexp.MustCompile(`\["mkdir","touch"(?:,"[a-z]+")*\]`)

// TestAcceptEditsListFromBinary holds lattice.AcceptEditsCommands to the
// pinned binary's own list (its acceptEdits check: `["mkdir","touch","rm",
// "rmdir","mv","cp","sed"]` in 2.1.328), so a version that adds or drops a
// command fails here with the list it has.
func TestAcceptEditsListFromBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("reads the 370 MB binary; not in -short")
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var lists []string
	for _, loc := range acceptEditsList.FindAllIndex(data, -1) {
		// The bundle holds other such lists (a command classifier's
		// fs_mutation group); the acceptEdits one is the list its mode
		// check reads, a few hundred bytes on.
		if !bytes.Contains(data[loc[1]:min(loc[1]+600, len(data))], []byte(`mode==="acceptEdits"`)) {
			continue
		}
		if s := string(bytes.ReplaceAll(data[loc[0]:loc[1]], []byte(`"`), nil)); !slices.Contains(lists, s) {
			lists = append(lists, s)
		}
	}
	want := "[" + strings.Join(lattice.AcceptEditsCommands, ",") + "]"
	if len(lists) != 1 || lists[0] != want {
		t.Errorf("the binary's acceptEdits lists %v, lattice.AcceptEditsCommands %s", lists, want)
	}
}

// TestBlankBeforeLegacyPrefix: Bash(npm :*) matches nothing as an allow,
// a deny or an ask rule (lattice reads it dead).
func TestBlankBeforeLegacyPrefix(t *testing.T) {
	var calls []Call
	for _, l := range []string{"npm  test x", "npm test", "npm :x", "npm test x", "npm", "npm : x"} {
		calls = append(calls, Call{Tool: "Bash", Arg: l})
	}
	runMeasuredRows(t, "skipped-rules", calls, []measuredRow{
		{settings: Settings{Allow: []string{"Bash(npm :*)"}}, want: "QQQQQQ"},
		{settings: Settings{Allow: []string{"Bash(*)"}, Deny: []string{"Bash(npm :*)"}}, want: "AAAAAA"},
		{settings: Settings{Allow: []string{"Bash(*)"}, Ask: []string{"Bash(npm :*)"}}, want: "AAAAAA"},
	})
}

// TestReadRuleCoversItsDirectory: a Read rule dir/** decides a read-only
// command on dir itself — `ls ~/.ssh` runs under allow Read(~/.ssh/**)
// (in plan mode too) and is denied by deny Read(~/.ssh/**) in either file.
func TestReadRuleCoversItsDirectory(t *testing.T) {
	calls := []Call{{Tool: "Bash", Arg: "ls ~/.ssh"}, {Tool: "Bash", Arg: "cat ~/.ssh/id_rsa"}, {Tool: "Bash", Arg: "ls /etc"},
		{Tool: "Read", Arg: "$HOME/.ssh/id_rsa"}, {Tool: "Bash", Arg: "ls ~"}}
	deny := []string{"Read(~/.ssh/**)"}
	runMeasuredRows(t, "path-read", calls, []measuredRow{
		{settings: Settings{Allow: deny}, want: "AAQAQ"},
		{settings: Settings{Allow: deny, DefaultMode: "plan"}, want: "AACAC"},
		{settings: Settings{Deny: deny}, want: "DDQDQ"},
		{settings: Settings{Allow: []string{"Bash(git *)"}}, local: &Settings{Deny: deny}, want: "DDQDQ"},
	})
}
