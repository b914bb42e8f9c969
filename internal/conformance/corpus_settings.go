package conformance

import "strings"

// The settings classes: how Claude Code loads a file, rather than how it
// matches a rule.
const (
	// SyntaxClass writes settings files as text: a UTF-8 byte order mark,
	// // and /* */ comments, trailing commas, duplicate keys (at the top
	// level, in permissions, in a list), text after the object, other
	// top-level values, in the project file or the local one. Claude Code
	// reads the file with JSON.parse: a file that does not parse is dropped
	// whole, its deny rules included; of duplicate keys the last wins.
	SyntaxClass = "settings-syntax"
	// ScopeClass sets the scalar settings in both files: the local file's
	// defaultMode, additionalDirectories or disableBypassPermissionsMode
	// over the project's, a local file that sets nothing ({}), none at all.
	ScopeClass = "scope-overrides"
)

// syntaxRules are the rules of every file of the syntax class: a call of
// each list tells a file that loads from one that is dropped.
const syntaxRules = `"allow": ["Bash(npm *)"], "deny": ["Bash(git push:*)"], "ask": ["Bash(curl *)"]`

// syntaxShapes are the texts of the syntax class, each with its label.
var syntaxShapes = []struct{ label, text string }{
	{"plain", `{"permissions": {` + syntaxRules + `}}`},
	{"bom", "\ufeff" + `{"permissions": {` + syntaxRules + `}}`},
	{"bom-twice", "\ufeff\ufeff" + `{"permissions": {` + syntaxRules + `}}`},
	{"line-comment", "// team settings\n" + `{"permissions": {` + syntaxRules + `}}`},
	{"block-comment", `{"permissions": {/* rules */ ` + syntaxRules + `}}`},
	{"trailing-comma-list", `{"permissions": {"allow": ["Bash(npm *)",], "deny": ["Bash(git push:*)"], "ask": ["Bash(curl *)"]}}`},
	{"trailing-comma-object", `{"permissions": {` + syntaxRules + `,}}`},
	{"duplicate-permissions", `{"permissions": {"deny": ["Bash(git push:*)"]}, "permissions": {"allow": ["Bash(npm *)"]}}`},
	{"duplicate-deny", `{"permissions": {"deny": ["Bash(git push:*)"], "allow": ["Bash(npm *)"], "deny": []}}`},
	{"duplicate-allow", `{"permissions": {"allow": [], "deny": ["Bash(git push:*)"], "allow": ["Bash(npm *)"]}}`},
	{"text-after", `{"permissions": {` + syntaxRules + `}} x`},
	{"two-objects", `{"permissions": {` + syntaxRules + `}}{}`},
	{"leading-blank-lines", "\n\n  " + `{"permissions": {` + syntaxRules + `}}` + "\n\n"},
	{"crlf", strings.ReplaceAll("{\n\"permissions\": {\n"+syntaxRules+"\n}\n}\n", "\n", "\r\n")},
	{"array-top", `[{"permissions": {` + syntaxRules + `}}]`},
	{"null-top", `null`},
	{"single-quotes", `{'permissions': {` + syntaxRules + `}}`},
	{"unquoted-key", `{permissions: {` + syntaxRules + `}}`},
	{"nbsp-blank", "{\u00a0\"permissions\": {" + syntaxRules + "}}"},
	{"escaped-key", `{"perm\u0069ssions": {` + syntaxRules + `}}`},
}

// syntaxBatch draws one batch of the syntax class: one shape in the
// project file (the local file empty), or in the local file under a
// project file with a broad allow.
func (g *gen) syntaxBatch(b *Batch) {
	s := syntaxShapes[g.r.IntN(len(syntaxShapes))]
	where := "project"
	if g.r.IntN(3) == 0 {
		where = "local"
		b.Settings.Allow = []string{"Bash(git *)"}
		b.Local = &Settings{Raw: s.text + "\n"}
	} else {
		b.Settings.Raw = s.text + "\n"
	}
	label := where + ":" + s.label
	for _, c := range []string{"npm test", "npm publish x", "git push x", "git push origin main", "curl x", "ls", "git status"} {
		g.bash(b, label, c)
	}
	g.add(b, label, Call{Tool: "Read", Arg: "$PROJ/src/app.go"})
}

// scopeBatch draws one batch of the scope class.
func (g *gen) scopeBatch(b *Batch) {
	modes := []string{"", "default", "acceptEdits", "plan", "dontAsk"}
	b.Settings.DefaultMode = g.pick(modes...)
	b.Settings.Allow = g.some(g.r.IntN(2), "Bash(npm *)", "Read(~/**)", "Edit(./docs/**)")
	switch g.r.IntN(5) {
	case 0: // no local file
	case 1: // a local file that sets nothing
		b.Local = &Settings{}
	case 2:
		b.Local = &Settings{DefaultMode: g.pick(modes[1:]...)}
	case 3:
		b.Local = &Settings{AdditionalDirectories: []string{"$EXTRA"}}
		if g.r.IntN(2) == 0 {
			b.Settings.AdditionalDirectories = []string{"$EXTRA"}
			b.Local.AdditionalDirectories = []string{}
		}
	default:
		b.Settings.AdditionalDirectories = []string{"$EXTRA"}
		b.Local = &Settings{DefaultMode: g.pick(modes[1:]...), Allow: g.some(1, "Bash(git *)", "Edit(./src/**)")}
	}
	if b.Local != nil && g.r.IntN(4) == 0 {
		b.Local.Extra = map[string]any{"permissions": map[string]any{"disableBypassPermissionsMode": "disable"}}
		if b.Local.DefaultMode != "" || len(b.Local.Allow) > 0 || len(b.Local.AdditionalDirectories) > 0 {
			b.Local.Extra = nil // (Extra's "permissions" would replace the typed lists)
		}
	}
	for _, p := range []string{"$PROJ/src/app.go", "$HOME/.ssh/id_rsa", "/etc/passwd", "$EXTRA/notes.md"} {
		g.add(b, "read:"+pathLabel(p), Call{Tool: "Read", Arg: p})
	}
	for _, p := range []string{"$PROJ/e{n}.txt", "$PROJ/docs/e{n}.md", "$PROJ/src/e{n}.go", "$EXTRA/e{n}.md", "$HOME/e{n}.txt"} {
		g.add(b, "edit:"+pathLabel(p), Call{Tool: "Edit", Arg: p})
		g.add(b, "write:"+pathLabel(p), Call{Tool: "Write", Arg: p})
	}
	for _, c := range []string{"rm -rf build", "touch x", "npm publish x", "git push x", "ls", "cat $EXTRA/notes.md", "curl x"} {
		g.bash(b, "bash", c)
	}
}
