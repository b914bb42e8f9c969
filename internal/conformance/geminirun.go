package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// The Gemini CLI runtime oracle: what the pinned bundle runs without a
// prompt when its model asks for real tool calls, against Shipgate's
// model of the repository's .gemini/settings.json (the adapter's Read and
// Combine). Each case (GenerateGemini's settings of the allowed, core,
// exclude and mixed classes) gets one `gemini -p` session against the fake
// Gemini API (agentrun.go; the folder trusted) whose model asks, in one
// turn, for every call of geminiRunProbes. In prompt mode Gemini has
// nobody to ask, so a call either runs or is refused; the comparison is
// "runs without a prompt" against Shipgate's allow. The probes are
// harmless in the throwaway repository.

// geminiRunProbes are the runtime calls: the tool, its arguments ($PROJ
// is the repository) and the surface and call Shipgate decides.
var geminiRunProbes = []struct {
	id, tool string
	args     map[string]any
	surface  agent.Surface
	call     string
}{
	{"call_gs", "run_shell_command", map[string]any{"command": "git status", "description": "status"}, agent.Shell, "git status"},
	{"call_gl", "run_shell_command", map[string]any{"command": "git log --oneline", "description": "log"}, agent.Shell, "git log --oneline"},
	{"call_nt", "run_shell_command", map[string]any{"command": "npm test", "description": "test"}, agent.Shell, "npm test"},
	{"call_ls", "run_shell_command", map[string]any{"command": "ls -la", "description": "list"}, agent.Shell, "ls -la"},
	{"call_rm", "run_shell_command", map[string]any{"command": "rm -rf build", "description": "clean"}, agent.Shell, "rm -rf build"},
	{"call_ec", "run_shell_command", map[string]any{"command": "echo hi", "description": "echo"}, agent.Shell, "echo hi"},
	{"call_wr", "write_file", map[string]any{"file_path": "$PROJ/out.txt", "content": "x\n"}, agent.Tool, "write_file"},
	{"call_rd", "read_file", map[string]any{"file_path": "$PROJ/README.md"}, agent.Tool, "read_file"},
}

// GeminiRunOutcome is one call's decision by the binary and by Shipgate.
type GeminiRunOutcome struct {
	Case            int
	Settings, Call  string
	Binary, Shipgat string
	// Result is the tool result Gemini sent its model (clipped).
	Result string
	// Explained, when set, says why Gemini running a call Shipgate reads
	// as asking is not a defect.
	Explained string
}

// GeminiRunReport is a runtime run's outcomes.
type GeminiRunReport struct {
	Cases, Probes int
	Decided       map[string]int
	// Unsafe are calls Gemini ran that Shipgate's model says ask or deny
	// (the defect); Stricter are calls Shipgate allows that Gemini did not
	// run (its heuristics beneath the rules; the fail-closed side).
	Unsafe, Stricter []GeminiRunOutcome
	// Explained are calls Gemini ran under a rule Shipgate reads as
	// asking, for the reason each gives (reported as such).
	Explained []GeminiRunOutcome
	Errors    []string
}

// Failed reports an unsafe disagreement or an error.
func (r GeminiRunReport) Failed() bool { return len(r.Unsafe) > 0 || len(r.Errors) > 0 }

// Write prints the figures and up to max outcomes of each kind.
func (r GeminiRunReport) Write(w *strings.Builder, max int) {
	fmt.Fprintf(w, "gemini-cli %s at run time: %d cases, %d tool calls (ran %d, refused %d), %d ran that Shipgate does not allow, %d explained, %d Shipgate allows that did not run, %d errors\n",
		GeminiVersion, r.Cases, r.Probes, r.Decided["allow"], r.Decided["refused"], len(r.Unsafe), len(r.Explained), len(r.Stricter), len(r.Errors))
	for _, l := range []struct {
		what string
		os   []GeminiRunOutcome
	}{{"ran, Shipgate does not allow", r.Unsafe}, {"ran under an ask rule (explained)", r.Explained}, {"Shipgate allows, did not run", r.Stricter}} {
		writeCapped(w, max, l.os, func(d GeminiRunOutcome) string {
			return fmt.Sprintf("  case %d %s: %q %s (shipgate %s; gemini said %q)", d.Case, strings.Join(strings.Fields(d.Settings), " "), d.Call, l.what, d.Shipgat, d.Result)
		})
	}
	writeCapped(w, max, r.Errors, errorLine)
}

// GeminiRunCases are the settings of the first n cases of GenerateGemini
// whose class the runtime oracle takes (its MCP and boundary cases need
// servers or calls the probes do not make).
func GeminiRunCases(seed uint64, n int) []string {
	var out []string
	for _, c := range GenerateGemini(seed, 40*n) {
		if len(out) == n {
			break
		}
		if c.Class != "mcp" && c.Class != "boundary" {
			out = append(out, c.Settings)
		}
	}
	return out
}

// RunGeminiRuntime runs every case through a real session.
func RunGeminiRuntime(ctx context.Context, bin string, cases []string, workers int) GeminiRunReport {
	rep := GeminiRunReport{Cases: len(cases), Decided: map[string]int{}}
	runCases(len(cases), workers, func(i int) ([]GeminiRunOutcome, error) { return geminiRunOne(ctx, bin, i, cases[i]) },
		func(i int, outs []GeminiRunOutcome, err error) {
			if err != nil {
				rep.Errors = append(rep.Errors, fmt.Sprintf("case %d: %v", i, err))
			}
			rep.Probes += len(outs)
			for _, o := range outs {
				rep.Decided[o.Binary]++
				switch {
				case o.Explained != "":
					rep.Explained = append(rep.Explained, o)
				case o.Binary == "allow" && o.Shipgat != "allow":
					rep.Unsafe = append(rep.Unsafe, o)
				case o.Binary != "allow" && o.Shipgat == "allow":
					rep.Stricter = append(rep.Stricter, o)
				}
			}
		})
	return rep
}

func geminiRunOne(ctx context.Context, bin string, idx int, settings string) ([]GeminiRunOutcome, error) {
	proj, home, done, err := newRunProject("shipgate-gemini-run-", map[string]string{"README.md": "# r\n", ".gemini/settings.json": settings})
	if err != nil {
		return nil, err
	}
	defer done()
	m, _ := agentfiles.AdapterFor(agentfiles.AgentGemini).(agentfiles.ModelAdapter)
	if m == nil {
		return nil, errors.New("no Gemini adapter")
	}
	d, err := m.Read(".gemini/settings.json", []byte(settings))
	if err != nil {
		return nil, fmt.Errorf("shipgate refuses the settings: %v", err)
	}
	pol := m.Combine([]*agent.Doc{d})
	var calls []ModelCall
	for _, pr := range geminiRunProbes {
		args := map[string]any{}
		for k, v := range pr.args {
			if s, ok := v.(string); ok {
				v = strings.ReplaceAll(s, "$PROJ", proj)
			}
			args[k] = v
		}
		calls = append(calls, ModelCall{ID: pr.id, Name: pr.tool, Args: args})
	}
	res, err := RunAgent(ctx, AgentSession{Agent: "gemini-cli", Bin: bin, Proj: proj, Home: home, Calls: calls})
	if err != nil && res.Tools == nil && strings.Contains(res.Log, "tools=0") && !strings.Contains(res.Log, "tools=0 results=0 sent=1") {
		// The model was offered no tool at all (an empty tools.core):
		// nothing to call, every probe refused.
		err = nil
	}
	if err != nil {
		return nil, err
	}
	offered := map[string]bool{}
	for _, t := range res.Tools {
		offered[t] = true
	}
	var out []GeminiRunOutcome
	for _, pr := range geminiRunProbes {
		bd := "refused"
		r, ok := res.Results[pr.id]
		switch {
		case !ok && !offered[pr.tool]:
			// A tool the settings exclude is not offered to the model.
		case !ok:
			return out, fmt.Errorf("gemini sent no result for %s %q (tools %v; requests %s): %s", pr.tool, pr.call, res.Tools, res.Log, clip(res.Stdout+res.Stderr, 600))
		default:
			if bd, err = geminiRunDecision(r); err != nil {
				return out, fmt.Errorf("%s %q: %v", pr.tool, pr.call, err)
			}
		}
		sd, rule := pol.Decide(pr.surface, pr.call)
		o := GeminiRunOutcome{Case: idx, Settings: settings, Call: pr.call, Binary: bd, Shipgat: sd.String(), Result: clip(r, 160)}
		if bd == "allow" && sd == agent.Ask && rule != nil && pr.surface == agent.Shell && strings.HasPrefix(rule.Text, "tools.confirmationRequired: ") {
			// Reported by the adapter (PERMISSION-RULE-INVALID): the rule
			// hands the call to the shell tool's known-safe heuristic.
			o.Explained = "tools.confirmationRequired on the shell: Gemini's known-safe heuristic runs this read-only command (Shipgate reports the entry as not asking for it)"
		}
		out = append(out, o)
	}
	return out, nil
}

// geminiRunDecision reads a functionResponse: a refusal in words not
// listed here is an error, so a new wording is noticed, never guessed.
func geminiRunDecision(result string) (string, error) {
	low := strings.ToLower(result)
	switch {
	case strings.Contains(low, "policy") || strings.Contains(low, "confirmation") || strings.Contains(low, "not supported in non-interactive") ||
		strings.Contains(low, "not found") || strings.Contains(low, "denied"):
		return "refused", nil
	case strings.Contains(result, "Exit Code") || strings.Contains(result, "Output:") || strings.Contains(result, "# r") ||
		strings.Contains(low, "successfully"):
		return "allow", nil
	}
	return "", fmt.Errorf("unclassified tool result %q", clip(result, 300))
}
