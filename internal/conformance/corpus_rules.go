package conformance

import (
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
)

// The classes of issue 19 §5 (rule readings the binary contradicted):
// wrappers that run their operand, compound deny and ask rules, pattern
// allows with path operands, path rules in other case and with doubled
// slashes, and the read-only table's measurement. They live apart from
// corpus.go; ruleClass dispatches them from gen.batch.
var ruleClasses = map[string]func(*gen, *Batch){
	"exec-wrappers":  (*gen).execWrappers,
	"compound-deny":  (*gen).compoundDeny,
	"pattern-paths":  (*gen).patternPaths,
	"path-fold":      (*gen).pathFold,
	"readonly-table": (*gen).readOnlyTable,
}

func init() {
	// Before the witness class, which is made from the others; each class
	// draws from its own stream (its index), so the earlier classes'
	// batches do not change.
	last := Classes[len(Classes)-1]
	rest := append([]string(nil), Classes[:len(Classes)-1]...)
	for _, c := range []string{"exec-wrappers", "compound-deny", "pattern-paths", "path-fold", "readonly-table"} {
		rest = append(rest, c)
		classWeight[c] = 1
	}
	Classes = append(rest, last)
}

// ruleClass fills a batch of one of ruleClasses; false for another class.
func (g *gen) ruleClass(b *Batch) bool {
	f, ok := ruleClasses[g.class]
	if ok {
		f(g, b)
	}
	return ok
}

// execWrappers: an allow of a wrapper Claude Code reads as running its
// operand (Bash(timeout *), Bash(nohup:*), …), sometimes a deny, and the
// wrapper running a shell, a network command, a write outside the project
// and a denied command.
func (g *gen) execWrappers(b *Batch) {
	ws := []execWrapper{{"timeout", "5"}, {"timeout", "-s KILL 5"}, {"nohup", ""}, {"nice", ""}, {"nice", "-n 5"},
		{"command", ""}, {"stdbuf", "-o0"}, {"time", ""}}
	for _, w := range g.someWrappers(ws, 2) {
		spell := g.pick(" *", ":*")
		b.Settings.Allow = append(b.Settings.Allow, "Bash("+w.word+spell+")")
	}
	if g.r.IntN(2) == 0 {
		b.Settings.Deny = []string{"Bash(" + g.pick("curl", "npm publish", "rm") + g.pick(":*", " *") + ")"}
	}
	for _, w := range ws {
		pre := strings.TrimSpace(w.word + " " + w.args)
		for _, c := range []string{"sh -c 'curl evil.com'", "bash -c 'npm publish x'", "curl evil.com", "npm publish x",
			"rm x", "rm /tmp/x", "ls", "git push origin main"} {
			g.bash(b, "wrapper:"+w.word, pre+" "+c)
		}
	}
}

// execWrapper is a wrapper command word with the arguments it takes
// before the command it runs.
type execWrapper struct{ word, args string }

// someWrappers picks n distinct wrappers.
func (g *gen) someWrappers(ws []execWrapper, n int) []execWrapper {
	p := g.r.Perm(len(ws))
	out := make([]execWrapper, 0, n)
	for _, i := range p[:n] {
		out = append(out, ws[i])
	}
	return out
}

// compoundDeny: a deny (or ask) rule written as a compound command under
// allow rules that do or do not allow each part on its own, and the lines
// it names, their parts and neighbours.
func (g *gen) compoundDeny(b *Batch) {
	rules := []string{"Bash(curl * | bash)", "Bash(curl * | sh)", "Bash(git add . && git commit *)", "Bash(npm test; npm publish)",
		"Bash(wget * && sh *)"}
	rule := g.pick(rules...)
	if g.r.IntN(3) == 0 {
		b.Settings.Ask = []string{rule}
	} else {
		b.Settings.Deny = []string{rule}
	}
	allows := [][]string{nil, {"Bash(*)"}, {"Bash"}, {"Bash(**)"}, {"Bash(* *)"}, {"Bash(curl *)"}, {"Bash(curl *)", "Bash(bash)"},
		{"Bash(curl *)", "Bash(sh)"}, {"Bash(git *)"}, {"Bash(npm *)"}, {"Bash(wget *)", "Bash(sh *)"}}
	b.Settings.Allow = allows[g.r.IntN(len(allows))]
	for _, c := range []string{"curl x | bash", "curl x |bash", "curl x y | bash", "curl x | sh", "curl x && bash", "curl x; bash",
		"curl x", "bash", "sh", "git add . && git commit -m x", "git add . && git push", "npm test; npm publish",
		"npm test && npm publish", "npm test", "wget x && sh y", "wget x", "ls | bash", "echo x | curl y | bash"} {
		g.bash(b, "compound:"+labelWords(c), c)
	}
}

// labelWords is a command's label: its words without their arguments'
// text (operators kept).
func labelWords(c string) string {
	f := strings.Fields(c)
	if len(f) > 4 {
		f = f[:4]
	}
	return strings.Join(f, " ")
}

// patternPaths: pattern and exact allow rules (and the whole tool) with
// the write commands Claude Code checks paths of: operands inside the
// project, outside the working directories, in an additional directory,
// globs, through a wrapper.
func (g *gen) patternPaths(b *Batch) {
	b.Settings.Allow = g.some(1+g.r.IntN(2), "Bash(**)", "Bash(* *)", "Bash(rm *)", "Bash(rm:*)", "Bash(*)", "Bash(mkdir *)",
		"Bash(cp *)", "Bash(mv *)", "Bash(touch *)", "Bash(rm /tmp/x)", "Bash(rm -rf *)")
	if g.r.IntN(3) == 0 {
		b.Settings.AdditionalDirectories = []string{"$EXTRA"}
	}
	for _, cmd := range []string{"rm", "rm -rf", "rm -f", "rmdir", "mkdir", "mkdir -p", "touch", "cp x", "mv x"} {
		for _, p := range []string{"x", "src/x", "./x", "../x", "/tmp/x", "~/x", "$EXTRA/x", "*.o", "src/*.o", "x?", "[ab]", "-- -x"} {
			g.bash(b, "write:"+strings.Fields(cmd)[0]+" "+pathKind(p), cmd+" "+p)
		}
	}
	for _, c := range []string{"timeout 5 rm /tmp/x", "nice rm ../x", "chmod +x /tmp/x", "ls *.md", "cat *.md", "rm x y", "rm x /tmp/y"} {
		g.bash(b, "write-other", c)
	}
}

// pathKind names where a path operand points.
func pathKind(p string) string {
	switch {
	case strings.ContainsAny(p, "*?["):
		return "glob"
	case strings.HasPrefix(p, "--"):
		return "dash"
	case strings.HasPrefix(p, "$EXTRA"):
		return "extra"
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, "~"), strings.HasPrefix(p, ".."):
		return "outside"
	}
	return "project"
}

// pathFold: Read and Edit rules written in another case or with doubled
// slashes, as deny rules under Read, Edit, Write or as allow rules.
func (g *gen) pathFold(b *Batch) {
	rules := []string{"Read(//ETC/hostname)", "Read(//etc//hostname)", "Read(//Etc/**)", "Read(///etc//**)", "Read(~/.SSH/**)",
		"Read(~//.ssh/id_rsa)", "Read(./SRC/**)", "Read(SRC/app.go)", "Edit(./SRC/**)", "Edit(DOCS/**)", "Edit(src//**)",
		"Read(//ETC/**)", "Edit(~/SRC/**)", "Read(./Docs//readme.md)"}
	picked := g.some(1+g.r.IntN(2), rules...)
	if g.r.IntN(2) == 0 {
		b.Settings.Allow = []string{"Read", "Edit", "Write"}
		b.Settings.Deny = picked
	} else {
		b.Settings.Allow = picked
	}
	for _, p := range readPaths {
		g.add(b, "fold-read:"+pathLabel(p), Call{Tool: "Read", Arg: p})
	}
	for _, p := range editPaths {
		g.add(b, "fold-edit:"+pathLabel(p), Call{Tool: "Edit", Arg: p})
	}
}

// readOnlyTable: the read-only table's measurement (lattice.ReadOnlyProbes)
// asked again with no rule, and under an unrelated allow.
func (g *gen) readOnlyTable(b *Batch) {
	if g.r.IntN(3) == 0 {
		b.Settings.Allow = []string{"Bash(npm test:*)"}
	}
	for _, p := range lattice.ReadOnlyProbes() {
		label := "table:asks"
		if p.Runs {
			label = "table:runs"
		}
		g.bash(b, label, p.Line)
	}
}
