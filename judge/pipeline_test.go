package judge

import (
	"encoding/json"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// TestPipelineRules holds the effective view to what Claude Code 2.1.328
// was measured to do with deny and ask rules written as compound commands
// (issue 19 §5; the conformance class compound-deny): a pipeline rule
// matches each pipeline of a line whole unless every command of it is
// allowed on its own by a rule that is not the whole tool; a rule joined
// by && never sees its line whole.
func TestPipelineRules(t *testing.T) {
	settings := func(allow, deny, ask []string) map[string][]byte {
		// A nil list would marshal to null, which Claude Code's schema refuses
		// (the whole file is dropped): write empty lists as [].
		for _, l := range []*[]string{&allow, &deny, &ask} {
			if *l == nil {
				*l = []string{}
			}
		}
		data, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": allow, "deny": deny, "ask": ask}})
		return map[string][]byte{".claude/settings.json": data}
	}
	pipe := []string{"Bash(curl * | bash)"}
	cases := []struct {
		allow, deny, ask []string
		line             string
		want             CallDecision
	}{
		{nil, pipe, nil, "curl x | bash", CallDenied},
		{nil, pipe, nil, "curl x |bash", CallDenied},
		{nil, pipe, nil, "curl x y | bash", CallDenied},
		{nil, pipe, nil, "curl x && bash", CallAsks},
		{[]string{"Bash(curl *)"}, pipe, nil, "curl x | bash", CallDenied},
		{[]string{"Bash(curl *)", "Bash(sh)"}, pipe, nil, "curl x |bash", CallDenied},
		{[]string{"Bash(*)"}, pipe, nil, "curl x | bash", CallDenied},
		{[]string{"Bash(*)"}, pipe, nil, "curl x && bash", CallRuns},
		{[]string{"Bash(**)"}, pipe, nil, "curl x | bash", CallRuns},
		{[]string{"Bash(curl *)", "Bash(bash)"}, pipe, nil, "curl x | bash", CallRuns},
		{[]string{"Bash(bash)"}, pipe, nil, "curl x | bash", CallDenied},
		{[]string{"Bash(*)"}, nil, pipe, "curl x | bash", CallAsks},
		{[]string{"Bash(curl *)", "Bash(bash)"}, nil, pipe, "curl x | bash", CallRuns},
		// Joined by &&: never the whole line.
		{[]string{"Bash"}, []string{"Bash(wget * && sh *)"}, nil, "wget x && sh y", CallRuns},
		{[]string{"Bash(npm *)"}, []string{"Bash(wget * && sh *)"}, nil, "wget x && sh y", CallAsks},
		{[]string{"Bash(*)"}, []string{"Bash(git add . && git commit *)"}, nil, "git add . && git commit -m x", CallRuns},
		// An exact compound rule matches its whole line as written,
		// whatever allows the parts.
		{nil, []string{"Bash(npm test; npm publish)"}, nil, "npm test; npm publish", CallDenied},
		{[]string{"Bash(*)"}, []string{"Bash(npm test; npm publish)"}, nil, "npm test; npm publish", CallDenied},
		{[]string{"Bash(npm *)"}, []string{"Bash(npm test; npm publish)"}, nil, "npm test; npm publish", CallDenied},
		{[]string{"Bash(npm test)", "Bash(npm publish)"}, []string{"Bash(npm test; npm publish)"}, nil, "npm test; npm publish", CallDenied},
		{[]string{"Bash(**)"}, []string{"Bash(git add . && git push)"}, nil, "git add . && git push", CallDenied},
		{[]string{"Bash(npm *)"}, []string{"Bash(npm test; npm publish)"}, nil, "npm test;npm publish", CallRuns},
		// An exact compound ask rule is never matched whole: the line
		// runs once its parts are allowed, and asks only when they are not.
		{[]string{"Bash(npm *)"}, nil, []string{"Bash(npm test; npm publish)"}, "npm test; npm publish", CallRuns},
		{[]string{"Bash(npm test)", "Bash(npm publish)"}, nil, []string{"Bash(npm test; npm publish)"}, "npm test; npm publish", CallRuns},
		{[]string{"Bash(**)"}, nil, []string{"Bash(npm test; npm publish)"}, "npm test; npm publish", CallRuns},
		{[]string{"Bash(*)"}, nil, []string{"Bash(npm test; npm publish)"}, "npm test; npm publish", CallRuns},
		{[]string{"Bash"}, nil, []string{"Bash(npm test; npm publish)"}, "npm test; npm publish", CallRuns},
		{[]string{"Bash(npm *)"}, nil, []string{"Bash(npm test && npm publish)"}, "npm test && npm publish", CallRuns},
		{[]string{}, nil, []string{"Bash(npm test; npm publish)"}, "npm test; npm publish", CallAsks},
		// An exact pipeline ask is matched whole like the pattern one.
		{[]string{"Bash(curl *)"}, nil, []string{"Bash(curl x | bash)"}, "curl x | bash", CallAsks},
		{[]string{"Bash(curl *)"}, []string{"Bash(curl x | bash)"}, nil, "curl x | bash", CallDenied},
	}
	for _, c := range cases {
		got := NewEffective(settings(c.allow, c.deny, c.ask)).Decide(lattice.Call{Tool: "Bash", Arg: c.line})
		if got.Decision != c.want {
			t.Errorf("allow %v deny %v ask %v: %q = %s (%s), want %s (measured on Claude Code %s)", c.allow, c.deny, c.ask, c.line, got.Decision, got.Why, c.want, lattice.ClaudeCodeVersion)
		}
	}
}
