package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/copilot"
)

// The Copilot CLI runtime oracle: what the pinned binary runs without a
// prompt when its model asks for real tool calls, against Shipgate's
// model of the repository's configuration (copilot.Read and
// copilot.Combine). Each generated repository gets one `copilot -p`
// session (BYOK against the fake Anthropic API, agentrun.go; the folder
// trusted; no --allow-tool) whose model asks, in one turn, for every call
// of copilotRunProbes; the tool results say what became of each: it ran
// (allow), it was refused for want of an interactive answer (ask: -p has
// nobody to ask), or a rule refused it (deny). Where the case has a skill
// the model runs it alone first and asks for the calls in the next turn.
// The probes are harmless
// in the throwaway repository: nothing reaches outside it but a
// connection to a closed loopback port.

// copilotRunProbes are the runtime calls: the tool Copilot's model calls,
// its input, and the surface and call Shipgate decides.
var copilotRunProbes = []struct {
	id, tool string
	input    map[string]any
	surface  agent.Surface
	call     string
}{
	{"toolu_rm", "bash", map[string]any{"command": "rm -rf build", "description": "clean"}, agent.Shell, "rm -rf build"},
	{"toolu_gp", "bash", map[string]any{"command": "git push origin main", "description": "push"}, agent.Shell, "git push origin main"},
	{"toolu_nt", "bash", map[string]any{"command": "npm test", "description": "test"}, agent.Shell, "npm test"},
	{"toolu_tm", "bash", map[string]any{"command": "touch made", "description": "mark"}, agent.Shell, "touch made"},
	{"toolu_cs", "bash", map[string]any{"command": "curl -s http://127.0.0.1:9/ | sh", "description": "install"}, agent.Shell, "curl -s http://127.0.0.1:9/ | sh"},
}

// copilotRunRules are the rules the generator draws a repository's
// permissions from.
var copilotRunRules = []string{"shell(git:*)", "shell(git push)", "shell(npm test)", "shell", "shell(rm:*)", "shell(touch:*)", "shell(curl:*)", "shell(npm:*)"}

// CopilotRunCase is one generated repository.
type CopilotRunCase struct {
	Files map[string]string
}

// GenerateCopilotRun makes n repositories from seed: a settings file
// whose permissions allow and deny rules drawn from copilotRunRules.
func GenerateCopilotRun(seed uint64, n int) []CopilotRunCase {
	rng := rand.New(rand.NewPCG(seed, 0xc0b2))
	var out []CopilotRunCase
	for len(out) < n {
		pick := func(k int) []string {
			var rs []string
			for i := 0; i < k; i++ {
				rs = append(rs, copilotRunRules[rng.IntN(len(copilotRunRules))])
			}
			return rs
		}
		perms := map[string][]string{"allow": pick(1 + rng.IntN(3))}
		if rng.IntN(2) == 0 {
			perms["deny"] = pick(1 + rng.IntN(2))
		}
		data, _ := json.Marshal(map[string]any{"permissions": perms})
		c := CopilotRunCase{Files: map[string]string{".github/copilot/settings.json": string(data) + "\n"}}
		if rng.IntN(2) == 0 {
			// A skill the model runs first: its allowed-tools are
			// approved for the session.
			c.Files[".github/skills/rel/SKILL.md"] = "---\nname: rel\ndescription: release\nallowed-tools: " + strings.Join(pick(1+rng.IntN(2)), ", ") + "\n---\nRelease.\n"
		}
		out = append(out, c)
	}
	return out
}

// CopilotRunOutcome is one call's decision by the binary and by Shipgate.
type CopilotRunOutcome struct {
	Case            int
	Call            string
	Binary, Shipgat string
	Config          string
}

// CopilotRunReport is a runtime run's outcomes.
type CopilotRunReport struct {
	Cases, Probes int
	Decided       map[string]int
	Disagree      []CopilotRunOutcome
	Errors        []string
}

// Failed reports a disagreement or an error.
func (r CopilotRunReport) Failed() bool { return len(r.Disagree) > 0 || len(r.Errors) > 0 }

// Write prints the figures and up to max disagreements and errors.
func (r CopilotRunReport) Write(w *strings.Builder, max int) {
	fmt.Fprintf(w, "copilot-cli %s at run time: %d cases, %d tool calls (allow %d, ask %d, deny %d), %d disagreements, %d errors\n",
		CopilotVersion, r.Cases, r.Probes, r.Decided["allow"], r.Decided["ask"], r.Decided["deny"], len(r.Disagree), len(r.Errors))
	writeCapped(w, max, r.Disagree, func(d CopilotRunOutcome) string {
		return fmt.Sprintf("  case %d %s: %q: copilot %s, shipgate %s", d.Case, strings.TrimSpace(d.Config), d.Call, d.Binary, d.Shipgat)
	})
	writeCapped(w, max, r.Errors, errorLine)
}

// RunCopilotRuntime runs every case through a real session.
func RunCopilotRuntime(ctx context.Context, bin string, cases []CopilotRunCase, workers int) CopilotRunReport {
	rep := CopilotRunReport{Cases: len(cases), Decided: map[string]int{}}
	runCases(len(cases), workers, func(i int) ([]CopilotRunOutcome, error) { return copilotRunOne(ctx, bin, i, cases[i]) },
		func(i int, outs []CopilotRunOutcome, err error) {
			if err != nil {
				rep.Errors = append(rep.Errors, fmt.Sprintf("case %d: %v", i, err))
			}
			rep.Probes += len(outs)
			for _, o := range outs {
				rep.Decided[o.Binary]++
				if o.Binary != o.Shipgat {
					rep.Disagree = append(rep.Disagree, o)
				}
			}
		})
	sort.Slice(rep.Disagree, func(i, j int) bool { return rep.Disagree[i].Case < rep.Disagree[j].Case })
	return rep
}

func copilotRunOne(ctx context.Context, bin string, idx int, c CopilotRunCase) ([]CopilotRunOutcome, error) {
	files := map[string]string{"README.md": "# r\n"}
	for p, d := range c.Files {
		files[p] = d
	}
	proj, home, done, err := newRunProject("shipgate-copilot-run-", files)
	if err != nil {
		return nil, err
	}
	defer done()
	// Shipgate's side in prompt mode: a skill's allowed-tools are
	// approved by the interactive front end only (cli-main.js: a React
	// effect on skill.invoked calls addApprovedRules), and -p runs none
	// of them (measured here: the skill runs, its tools still ask), so
	// the skills are left out; the adapter counts them, for interactive
	// sessions.
	var docs []*agent.Doc
	for p, data := range c.Files {
		if k, ok := copilot.Classify(p); !ok || k == copilot.Skill {
			continue
		}
		d, err := copilot.Read(p, []byte(data))
		if err != nil {
			return nil, fmt.Errorf("shipgate refuses %s: %v", p, err)
		}
		docs = append(docs, d)
	}
	pol := copilot.Combine(docs)
	var calls []ModelCall
	var first *ModelCall
	if _, ok := c.Files[".github/skills/rel/SKILL.md"]; ok {
		// The skill runs alone first; the calls follow in the next turn.
		first = &ModelCall{ID: "toolu_sk", Name: "skill", Args: map[string]any{"skill": "rel"}}
	}
	for _, pr := range copilotRunProbes {
		calls = append(calls, ModelCall{ID: pr.id, Name: pr.tool, Args: pr.input})
	}
	res, err := RunAgent(ctx, AgentSession{Agent: "copilot-cli", Bin: bin, Proj: proj, Home: home, Calls: calls, First: first})
	if err != nil {
		return nil, err
	}
	if r := res.Results["toolu_warm00"]; first != nil && !strings.Contains(r, "loaded successfully") {
		return nil, fmt.Errorf("the skill did not run first (result %q)", clip(r, 300))
	}
	var out []CopilotRunOutcome
	for _, pr := range copilotRunProbes {
		r, ok := res.Results[pr.id]
		if !ok {
			return out, fmt.Errorf("copilot sent no result for %q (requests %s): %s", pr.call, res.Log, clip(res.Stdout, 600))
		}
		bd, err := copilotRunDecision(r)
		if err != nil {
			return out, fmt.Errorf("%q: %v", pr.call, err)
		}
		d, _ := pol.Decide(pr.surface, pr.call)
		out = append(out, CopilotRunOutcome{Case: idx, Call: pr.call, Binary: bd, Shipgat: d.String(), Config: copilotRunConfig(c)})
	}
	return out, nil
}

// copilotRunDecision reads a tool result: a refusal in words not listed
// here is an error, so a new wording is noticed, never guessed.
func copilotRunDecision(result string) (string, error) {
	switch {
	case strings.Contains(result, "no interactive user response was available"):
		return "ask", nil
	case strings.Contains(result, "<shellId:") || strings.Contains(result, "exit code"):
		return "allow", nil
	case strings.Contains(strings.ToLower(result), "denied") || strings.Contains(strings.ToLower(result), "not allowed"):
		return "deny", nil
	}
	return "", fmt.Errorf("unclassified tool result %q", clip(result, 300))
}

// copilotRunConfig is a case's files in one line, for the report.
func copilotRunConfig(c CopilotRunCase) string {
	var out []string
	for _, p := range sortedFiles(c.Files) {
		out = append(out, p+": "+strings.Join(strings.Fields(c.Files[p]), " "))
	}
	return strings.Join(out, "; ")
}
