package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/lattice"
)

// RealPair is a pull request of a real repository's history, as the
// accuracy corpus records it (internal/accuracy -witness-pairs): the
// project's two settings files at the base and the head, and the witnesses
// Shipgate printed for the widenings it found. Checking them with the
// binary measures issue 22's target on real files rather than generated
// ones: every printed witness newly runs.
type RealPair struct {
	Name      string        `json:"name"` // repository and commit
	Base      RealSettings  `json:"base"`
	Head      RealSettings  `json:"head"`
	Witnesses []RealWitness `json:"witnesses"`
}

// RealSettings is one side's .claude/settings.json and settings.local.json
// ("" for an absent file).
type RealSettings struct {
	Settings string `json:"settings"`
	Local    string `json:"local"`
}

// RealWitness is one printed witness and the rule it was printed for.
type RealWitness struct {
	Rule    string `json:"rule"`
	Witness string `json:"witness"`
}

// ReadRealPairs reads RealPairs, one JSON object a line.
func ReadRealPairs(data []byte) ([]RealPair, error) {
	var out []RealPair
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var p RealPair
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// RealWitnessBatches turns real pairs into witness batches: each witness
// the harness can call safely (harnessCall: no program named by a path,
// nothing expanded, no file outside the session's folders) is asked of
// Claude Code under the head and the base settings. skipped counts the
// witnesses left out that way. A settings file with a placeholder the
// session layout would expand ($PROJ, $HOME, …) is left as written: real
// files hold none of them.
func RealWitnessBatches(pairs []RealPair) (batches []Batch, skipped int) {
	for _, p := range pairs {
		head := realSettings(p.Head.Settings)
		base := realSettings(p.Base.Settings)
		b := Batch{Class: WitnessClass, Settings: head, Base: &base, Name: p.Name}
		if p.Head.Local != "" || p.Base.Local != "" {
			hl, bl := realSettings(p.Head.Local), realSettings(p.Base.Local)
			b.Local, b.BaseLocal = &hl, &bl
		}
		for _, w := range p.Witnesses {
			tool := lattice.Parse(w.Rule).Canonical
			c, ok := harnessCall(tool, w.Witness)
			if !ok || w.Witness == tool {
				skipped++
				continue
			}
			b.Cases = append(b.Cases, Case{Class: WitnessClass, Label: "witness:" + c.Tool, Call: c})
		}
		if len(b.Cases) == 0 {
			continue
		}
		n := len(b.Cases)
		b.Cases = withoutExistingCases(b.Cases)
		skipped += n - len(b.Cases)
		if len(b.Cases) == 0 {
			continue
		}
		b.Cases = orderCases(dedupeCases(b.Cases))
		batches = append(batches, b)
	}
	return batches, skipped
}

// realSettings is a real settings file as the session writes it: "" (no
// file) is an empty object, which Claude Code reads as no file; and the
// keys that make Claude Code run a command of the file's own (hooks, the
// status line, credential helpers), load code (plugins, MCP servers) or
// change the environment are taken out — other people's commands are not
// run on this machine, and none of them decides a permission rule's call.
// A file that does not parse is written as it is (Claude Code drops it and
// runs nothing in it).
func realSettings(text string) Settings {
	if strings.TrimSpace(text) == "" {
		return Settings{Raw: "{}\n"}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &m) != nil {
		return Settings{Raw: text}
	}
	for _, k := range commandKeys {
		delete(m, k)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Settings{Raw: text}
	}
	return Settings{Raw: string(b) + "\n"}
}

// commandKeys are the settings keys realSettings takes out of a real file:
// every command helper (claude.HelperKeys, held to the binary's own list by
// TestHelperKeysInBinary), hooks, the environment, and what loads MCP
// servers or plugins.
var commandKeys = append(slices.Clone(claude.HelperKeys), "hooks", "disableAllHooks", "env", "enableAllProjectMcpServers",
	"enabledMcpjsonServers", "mcpServers", "enabledPlugins", "extraKnownMarketplaces", "additionalMarketplaces", "plugins", "sshHostCommands")

// withoutExistingCases is withoutExistingTargets over cases.
func withoutExistingCases(cs []Case) []Case {
	var calls []Call
	for _, c := range cs {
		calls = append(calls, c.Call)
	}
	keep := map[Call]bool{}
	for _, c := range withoutExistingTargets(calls) {
		keep[c] = true
	}
	var out []Case
	for _, c := range cs {
		if keep[c.Call] {
			out = append(out, c)
		}
	}
	return out
}
