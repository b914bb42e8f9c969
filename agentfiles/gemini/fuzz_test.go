package gemini

import (
	"fmt"
	"testing"
)

var sprintf = fmt.Sprintf

// FuzzRead: the settings reader never panics, returns a *ParseError or a
// document whose rules have a line inside the file, and its comment
// stripping keeps every offset.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"tools": {"allowed": ["run_shell_command(git status)"], "exclude": ["x"], "core": []}}`,
		"{// c\n\"mcpServers\": {\"s\": {\"trust\": true}}, /* x */ \"mcp\": {\"allowed\": [\"*\"]}}",
		`{"policyPaths": ["a"], "hooks": {}, "general": {"defaultApprovalMode": "auto_edit"}}`,
		`{"a": "/* not a comment */ // nor this"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(StripComments([]byte(src))) != len(src) {
			t.Fatal("StripComments changed the length")
		}
		d, err := Read("s.json", []byte(src))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		lines := 1
		for _, c := range src {
			if c == '\n' {
				lines++
			}
		}
		for _, r := range d.Rules {
			if r.Line < 1 || r.Line > lines {
				t.Fatalf("rule %q at line %d of %d", r.Text, r.Line, lines)
			}
			_ = r.Matches(Call{Tool: ShellTool, Command: r.Prefix})
		}
	})
}
