package conformance

// PlanBroadClass draws plan mode — from settings.json, or from a
// settings.local.json over a project's default or dontAsk — together with
// the broad allow rules Claude Code sets aside in plan mode (Bash(*),
// Bash(python3 *), Agent, …; lattice.PlanStripped) and narrower ones it
// keeps, with calls each of them matches; and the same rules outside plan
// mode, where they apply. (The 2.1.328 corpus found the class through
// settings-local: 45 calls Shipgate said Bash(*) ran went to the
// classifier.)
const PlanBroadClass = "plan-broad"

// planBroadAllows are the allow rules of the class: set aside in plan
// mode, then kept (measured on 2.1.328).
var planBroadAllows = []string{"Bash(*)", "Bash", "Bash(**)", "Bash(* *)", "Bash(python3 *)", "Bash(python:*)",
	"Bash(node *)", "Bash(npm run *)", "Bash(npx *)", "Bash(bash *)", "Bash(n*)", "Bash(* --version)",
	"Bash(python3 -m pytest *)", "Agent",
	"Bash(git *)", "Bash(npm *)", "Bash(npm run build:*)", "Bash(curl *)", "Bash(make *)"}

// planBroadCalls are the Bash calls of the class: what the rules match.
var planBroadCalls = []string{"npm publish x", "python3 x.py", "python x.py", "node x.js", "npm run build", "npx x",
	"bash x.sh", "npm --version", "python3 -m pytest x", "git push x", "curl x", "make x", "ls"}

// planBroadBatch draws one batch of the plan-broad class.
func (g *gen) planBroadBatch(b *Batch) {
	allow := g.some(1+g.r.IntN(2), planBroadAllows...)
	switch g.r.IntN(6) {
	case 0:
		b.Settings.DefaultMode = "plan"
	case 1, 2:
		b.Settings.DefaultMode = g.pick("", "default", "dontAsk")
		b.Local = &Settings{DefaultMode: "plan"}
	case 3:
		b.Settings.DefaultMode = "plan"
		b.Local = &Settings{DefaultMode: g.pick("default", "dontAsk")}
	case 4:
		b.Local = &Settings{DefaultMode: "plan", Allow: allow}
		allow = nil
	default:
		b.Settings.DefaultMode = g.pick("default", "dontAsk")
	}
	b.Settings.Allow = allow
	for _, c := range planBroadCalls {
		g.bash(b, "bash", c)
	}
	g.add(b, "tool", Call{Tool: "Agent"})
	g.add(b, "read:proj", Call{Tool: "Read", Arg: "$PROJ/src/app.go"})
}
