package conformance

// RedirectClass draws Bash lines that write a file by redirection (>, >>,
// 2>, &>, >|, into the project, a sensitive folder, its parent, /tmp and
// the home) under pattern allow rules, with Edit and Write rules on the
// files (allow, ask or deny) and each permission mode: Claude Code checks
// the file as an Edit call (TestRedirectWrites, measured on 2.1.328; seed
// 2's full corpus found the shape through the sandbox class).
const RedirectClass = "redirect-writes"

// redirectEditRules are the path rules of the class: on the files the
// lines write, and on places they do not.
var redirectEditRules = []string{"Edit(out.txt)", "Edit(**)", "Edit(./src/**)", "Edit(*.txt)", "Write(out.txt)", "Edit(/tmp/**)",
	"Edit(//tmp/**)", "Edit(.claude/**)", "Edit(~/**)", "Edit(.env)", "Edit(err.txt)", "Edit", "Edit(*)"}

// redirectTargets are the redirections the class appends to a command.
var redirectTargets = []string{" > out.txt", " >> out.txt", " 2> err.txt", " &> all.txt", " >| out.txt", " > src/out.txt", " > .env",
	" > ../out.txt", " > /tmp/sg-out.txt", " > .claude/x.txt", " > .git/x.txt", " > ~/x.txt", " > out.txt 2>&1", " > /dev/null"}

// redirectBatch draws one batch of the redirect-writes class.
func (g *gen) redirectBatch(b *Batch) {
	b.Settings.Allow = g.some(1, "Bash(npm *)", "Bash(npm test:*)", "Bash(git *)", "Bash(make *)", "Bash(*)", "Bash(echo *)")
	b.Settings.DefaultMode = g.pick("", "", "acceptEdits", "acceptEdits", "dontAsk", "plan")
	switch g.r.IntN(4) {
	case 0:
		b.Settings.Allow = append(b.Settings.Allow, g.some(1+g.r.IntN(2), redirectEditRules...)...)
	case 1:
		b.Settings.Deny = g.some(1, redirectEditRules...)
	case 2:
		b.Settings.Ask = g.some(1, redirectEditRules...)
	}
	if g.r.IntN(5) == 0 {
		b.Local = &Settings{DefaultMode: g.pick("acceptEdits", "default")}
	}
	for _, cmd := range []string{"npm test", "git status", "make x", "echo x", "cat package.json"} {
		for _, rd := range redirectTargets {
			g.bash(b, "redirect", cmd+rd)
		}
	}
}
