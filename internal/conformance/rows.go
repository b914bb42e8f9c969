package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Row is one measured decision kept as a table row: the settings, the call
// and what the named Claude Code version did. The table test holds the
// engine to every row without running the binary.
type Row struct {
	Version  string    `json:"claude_code"`
	Class    string    `json:"class"`
	Label    string    `json:"label"`
	Settings Settings  `json:"settings"`
	Local    *Settings `json:"local,omitempty"`
	UserMode string    `json:"user_mode,omitempty"`
	Tool     string    `json:"tool"`
	Arg      string    `json:"arg"`
	Param    string    `json:"param,omitempty"` // the call's one input field (the params class)
	Value    string    `json:"value,omitempty"`
	Claude   Decision  `json:"claude"`
}

// Batch is the row as a one-case batch.
func (r Row) Batch() Batch {
	return Batch{Class: r.Class, Settings: r.Settings, Local: r.Local, UserMode: r.UserMode, Unprivileged: r.UserMode != "" || r.Settings.DefaultMode == "bypassPermissions",
		Cases: []Case{{Class: r.Class, Label: r.Label, Call: Call{Tool: r.Tool, Arg: r.Arg, Param: r.Param, Value: r.Value}}}}
}

// RowsPerGroup is how many rows of each (class, label, Claude decision,
// Shipgate decision) group a recording for the repository keeps.
const RowsPerGroup = 3

// Rows renders the run's decisions as JSON lines: up to perGroup of every
// group of class, label and both decisions (all of them when perGroup < 0),
// so every shape and every disagreement is represented. Unclassified
// results are left out (they measure nothing).
func (r *Run) Rows(seed uint64, perGroup int) string {
	var buf bytes.Buffer
	if seed != 0 {
		fmt.Fprintf(&buf, "# measured on Claude Code %s by `go run ./cmd/conformance -seed %d -record`; one JSON object a line\n", r.Version, seed)
	} else {
		fmt.Fprintf(&buf, "# measured on Claude Code %s by the conformance harness (cmd/conformance -record, sampled by -replay); one JSON object a line\n", r.Version)
	}
	count := map[string]int{}
	var rows []Row
	for _, o := range r.Outcomes {
		if o.Claude == Unclassified || strings.HasSuffix(o.Class, MatchesSuffix) || o.Class == WitnessClass {
			continue
		}
		key := o.Class + "|" + o.Label + "|" + string(o.Claude) + "|" + string(o.Shipgate)
		if perGroup >= 0 && count[key] >= perGroup {
			continue
		}
		count[key]++
		b := r.Batches[o.Batch]
		rows = append(rows, Row{Version: r.Version, Class: o.Class, Label: o.Label, Settings: b.Settings, Local: b.Local, UserMode: b.UserMode,
			Tool: o.Call.Tool, Arg: o.Call.Arg, Param: o.Call.Param, Value: o.Call.Value, Claude: o.Claude})
	}
	sort.SliceStable(rows, func(i, j int) bool { return classOrder(rows[i].Class) < classOrder(rows[j].Class) })
	for _, row := range rows {
		data, _ := json.Marshal(row)
		buf.Write(data)
		buf.WriteByte('\n')
	}
	return buf.String()
}

func classOrder(c string) int {
	for i, x := range Classes {
		if x == c {
			return i
		}
	}
	return len(Classes)
}

// ParseRows reads rows written by Rows.
func ParseRows(data []byte) ([]Row, error) {
	var out []Row
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		var r Row
		dec := json.NewDecoder(strings.NewReader(t))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if r.Version == "" || r.Tool == "" {
			return nil, fmt.Errorf("line %d: a row names the Claude Code version and the tool", line)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// CheckVersion runs `claude --version` and fails unless it is the pinned
// version: figures from another version are not this harness's figures.
func CheckVersion(ctx context.Context, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin", "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("conformance: %s --version: %w", bin, err)
	}
	got := strings.Fields(string(out))
	if len(got) == 0 || got[0] != ClaudeCodeVersion {
		return fmt.Errorf("conformance: %s is Claude Code %q, the harness pins %s (internal/conformance/claude-code.version): install the pinned one with `make claude-code`, or measure the new version as docs/conformance.md says",
			bin, strings.TrimSpace(string(out)), ClaudeCodeVersion)
	}
	return nil
}

// Dump renders every outcome as a JSON line (for studying a run).
func (r *Run) Dump() []byte {
	var buf bytes.Buffer
	for _, o := range r.Outcomes {
		data, _ := json.Marshal(map[string]any{"class": o.Class, "label": o.Label, "tool": o.Call.Tool, "arg": o.Call.Arg,
			"claude": o.Claude, "shipgate": o.Shipgate, "text": o.ClaudeText, "why": o.Why, "settings": r.Batches[o.Batch].Describe()})
		buf.Write(data)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// tagAutoClassifier marks a recorded row the way a live run marks a call
// the auto-mode classifier refused (the recording keeps no result text):
// in plan mode Claude Code refuses every Bash call no rule decides that
// way offline, and runs it when the classifier approves (measured with the
// fake classifier), which is what Classifier means.
func tagAutoClassifier(o *Outcome) {
	if !strings.HasSuffix(o.Label, AutoClassifierSuffix) && o.Claude == Deny && o.Call.Tool == "Bash" && o.Shipgate == Classifier && strings.Contains(o.Why, "defaultMode plan") {
		o.Label += AutoClassifierSuffix
	}
	if strings.HasSuffix(o.Label, AutoClassifierSuffix) && o.Claude == Deny {
		// Recorded before the harness had a decision of its own for it.
		o.Claude = Classifier
	}
}

// Replay judges recorded rows again with the engine as it is now, without
// running Claude Code: its answers are in the rows. One batch a row; a row
// of bash-match or path-match is put to lattice.Match too.
func Replay(rows []Row, known []Known) *Run {
	run := &Run{Known: known}
	lay := Layout{Root: "/tmp/sg", Home: "/tmp/sg/home", Proj: "/tmp/sg/proj", Extra: "/tmp/sg/extra"}
	for i, row := range rows {
		if run.Version == "" {
			run.Version = row.Version
		}
		b := row.Batch()
		if (row.Class == "bash-match" || row.Class == "path-match" || row.Class == "two-readings") && len(row.Settings.Deny) == 1 && len(row.Settings.Allow) > 0 &&
			(row.Settings.Allow[0] == "Bash(*)" || row.Settings.Allow[0] == "Read") {
			b.MatchRule = row.Settings.Deny[0] // the class's one deny rule (corpus.go)
		}
		run.Batches = append(run.Batches, b)
		sg := ShipgateDecide(lay, b)[0]
		o := Outcome{Case: b.Cases[0], Batch: i, Claude: row.Claude, ClaudeText: "(recorded)", Shipgate: Decision(sg.Decision), Why: sg.Why}
		tagAutoClassifier(&o)
		outs := []Outcome{o}
		if b.MatchRule != "" {
			outs = append(outs, matchOutcomes(lay, i, b, outs)...)
		}
		for _, o := range outs {
			if !o.Agrees() && row.Version == ClaudeCodeVersion {
				o.Known = matchKnown(known, o)
			}
			run.Outcomes = append(run.Outcomes, o)
		}
	}
	return run
}
