package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// Case is one (settings, call) decision of the corpus, labelled with the
// class and shape it exercises so disagreements can be grouped.
type Case struct {
	// Class is the corpus class ("bash-shapes", "path-read", …).
	Class string
	// Label names the shape of the call within the class
	// ("wrapper:timeout", "anchor:///", "readonly", …).
	Label string
	Call  Call
}

// Batch is one session's worth of the corpus: the settings files and the
// cases asked in one Claude Code session.
type Batch struct {
	Class    string
	Settings Settings
	Local    *Settings // settings.local.json, when the batch has one
	Cases    []Case
	// MatchRule, when set, is the batch's one deny rule under allow rules
	// that let every call of its tool run: Claude Code denies a call
	// exactly when the rule matches it, so lattice.Match is asked too.
	MatchRule string `json:",omitempty"`
	// UserMode, when set, is the defaultMode of the user's own settings
	// (~/.claude/settings.json), where Claude Code honours
	// bypassPermissions; the engine is given it as the project's mode.
	UserMode string `json:",omitempty"`
	// Unprivileged runs the session as an unprivileged user (Claude Code
	// ignores bypassPermissions for root).
	Unprivileged bool `json:",omitempty"`
	// Base, for a witness pair (WitnessBatches), is the base side's
	// settings: the cases are asked under both.
	Base *Settings `json:",omitempty"`
	// BaseLocal, for a witness pair of a real repository
	// (RealWitnessBatches), is the base side's settings.local.json.
	BaseLocal *Settings `json:",omitempty"`
	// Name names a real pair's repository and commit.
	Name string `json:",omitempty"`
	// Env is added to the session's environment (the tools class offers
	// the task tools with CLAUDE_CODE_ENABLE_TODO_TOOLS=1).
	Env []string `json:",omitempty"`
}

// Settings is the part of a settings file the corpus varies.
type Settings struct {
	Allow                 []string `json:"allow,omitempty"`
	Ask                   []string `json:"ask,omitempty"`
	Deny                  []string `json:"deny,omitempty"`
	DefaultMode           string   `json:"defaultMode,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// Extra holds top-level keys beside "permissions" ("sandbox", a
	// mistyped "model", …): the settings classes of corpus_settings.go.
	Extra map[string]any `json:"extra,omitempty"`
	// Raw, when set, is the file's text as written (a BOM, comments,
	// trailing commas, duplicate keys): JSON returns it unchanged.
	Raw string `json:"raw,omitempty"`
}

// JSON renders the settings file.
func (s Settings) JSON() string {
	if s.Raw != "" {
		return s.Raw
	}
	perm := map[string]any{}
	if len(s.Allow) > 0 {
		perm["allow"] = s.Allow
	}
	if len(s.Ask) > 0 {
		perm["ask"] = s.Ask
	}
	if len(s.Deny) > 0 {
		perm["deny"] = s.Deny
	}
	if s.DefaultMode != "" {
		perm["defaultMode"] = s.DefaultMode
	}
	if len(s.AdditionalDirectories) > 0 {
		perm["additionalDirectories"] = s.AdditionalDirectories
	}
	top := map[string]any{"permissions": perm}
	for k, v := range s.Extra {
		top[k] = v
	}
	data, _ := json.MarshalIndent(top, "", "  ")
	return string(data) + "\n"
}

// Session is the batch as the driver runs it.
func (b Batch) Session() Session {
	s := Session{Settings: b.Settings.JSON(), Unprivileged: b.Unprivileged, MCP: b.Class == "mcp", Env: b.Env}
	if b.Local != nil {
		s.Local = b.Local.JSON()
	}
	if b.UserMode != "" {
		s.User = `{"skipWebFetchPreflight": true, "permissions": {"defaultMode": "` + b.UserMode + `"}}` + "\n"
	}
	for _, c := range b.Cases {
		s.Calls = append(s.Calls, c.Call)
	}
	return s
}

// Classes lists the corpus classes in report order.
var Classes = []string{
	"bash-match", "path-match", "bash-shapes", "bash-wrappers", "bash-deny", "bash-ask", "bash-compound", "bash-readonly",
	"path-read", "path-edit", "modes", "additional-dirs", "skipped-rules", "settings-local",
	"two-readings", "command-checks", "webfetch", "bypass", "mcp", "params", SandboxClass, ToolsClass, SyntaxClass, ScopeClass, PlanBroadClass, RedirectClass, WitnessClass,
}

// classWeight is each class's share of the corpus.
var classWeight = map[string]int{
	"bash-match": 3, "path-match": 2, "bash-shapes": 3, "bash-wrappers": 2, "bash-deny": 2, "bash-ask": 1, "bash-compound": 2, "bash-readonly": 1,
	"path-read": 3, "path-edit": 2, "modes": 2, "additional-dirs": 1, "skipped-rules": 1, "settings-local": 1,
	"two-readings": 1, "command-checks": 1, "webfetch": 1, "bypass": 1, "mcp": 1, "params": 1, SandboxClass: 1, ToolsClass: 1, SyntaxClass: 1, ScopeClass: 1, PlanBroadClass: 1, RedirectClass: 1,
}

// callsPerBatch is the most calls one session makes. Claude Code answers a
// few hundred calls of one message in seconds.
const callsPerBatch = 200

// Generate returns a corpus of about n decisions spread over every class,
// the same for the same seed.
func Generate(seed uint64, n int) []Batch {
	total := 0
	for _, w := range classWeight {
		total += w
	}
	var out []Batch
	for ci, class := range Classes {
		if class == WitnessClass {
			continue
		}
		r := rand.New(rand.NewPCG(seed, uint64(ci)+1))
		want := n * classWeight[class] / total / classDivisor(class)
		if want < 20 {
			want = 20
		}
		g := gen{r: r, class: class}
		for got := 0; got < want; {
			b := g.batch()
			b.Cases = dedupeCases(b.Cases)
			if len(b.Cases) > callsPerBatch {
				r.Shuffle(len(b.Cases), func(i, j int) { b.Cases[i], b.Cases[j] = b.Cases[j], b.Cases[i] })
				b.Cases = b.Cases[:callsPerBatch]
			}
			if rest := want - got; len(b.Cases) > rest && rest >= 10 {
				b.Cases = b.Cases[:rest]
			}
			b.Cases = orderCases(b.Cases)
			got += len(b.Cases)
			out = append(out, b)
		}
	}
	// The printed witnesses of pairs made from the corpus, a class at a
	// time in turn (each pair is two sessions).
	pairs := n / 600
	if pairs < 5 {
		pairs = 5
	}
	byClass := map[string][]Batch{}
	for _, b := range out {
		byClass[b.Class] = append(byClass[b.Class], b)
	}
	var mixed []Batch
	for k := 0; len(mixed) < len(out); k++ {
		for _, c := range Classes {
			if k < len(byClass[c]) {
				mixed = append(mixed, byClass[c][k])
			}
		}
	}
	return append(out, WitnessBatches(mixed, pairs)...)
}

// OnlyClasses keeps the batches whose class matches the glob (* is any
// text), for a run of some classes only.
func OnlyClasses(bs []Batch, pattern string) []Batch {
	var out []Batch
	for _, b := range bs {
		if glob(pattern, b.Class) {
			out = append(out, b)
		}
	}
	return out
}

// dedupeCases keeps the first case of every call.
func dedupeCases(cs []Case) []Case {
	seen := map[Call]bool{}
	var out []Case
	for _, c := range cs {
		if !seen[c.Call] {
			seen[c.Call] = true
			out = append(out, c)
		}
	}
	return out
}

// orderCases puts the calls that change the shell's working directory last
// (Claude Code keeps one working directory across Bash calls) and numbers
// the files Edit and Write create, so no call finds another's file.
func orderCases(cs []Case) []Case {
	sort.SliceStable(cs, func(i, j int) bool { return !changesDir(cs[i].Call) && changesDir(cs[j].Call) })
	for i := range cs {
		if t := cs[i].Call.Tool; t == "Edit" || t == "Write" {
			cs[i].Call.Arg = strings.ReplaceAll(cs[i].Call.Arg, "{n}", fmt.Sprint(i))
		}
	}
	return cs
}

func changesDir(c Call) bool {
	return c.Tool == "Bash" && (strings.HasPrefix(c.Arg, "cd ") || strings.Contains(c.Arg, " cd ") || strings.Contains(c.Arg, "&& cd"))
}

// gen draws one class's batches.
type gen struct {
	r     *rand.Rand
	class string
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) some(n int, xs ...string) []string {
	p := g.r.Perm(len(xs))
	if n > len(xs) {
		n = len(xs)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = xs[p[i]]
	}
	return out
}

func (g *gen) add(b *Batch, label string, c Call) {
	b.Cases = append(b.Cases, Case{Class: g.class, Label: label, Call: c})
}

func (g *gen) bash(b *Batch, label, cmd string) { g.add(b, label, Call{Tool: "Bash", Arg: cmd}) }

// The command vocabulary. Every first word is stubbed by the driver; the
// read-only ones Claude Code auto-allows are listed apart.
var (
	bases = []string{"npm test", "npm run build", "npm publish", "git push", "git commit -m x", "curl", "make build",
		"docker run", "cargo build", "go test", "python3 -m pytest", "kubectl apply", "terraform apply", "gh pr create",
		"yarn install", "pip install", "rm", "chmod +x", "npx prettier", "git checkout", "make", "npm", "git"}
	tails    = []string{"x", "--help", "-v", "main", "origin main", "./...", "src", "-rf x", "https://example.com", "a b c"}
	readOnly = []string{"ls", "ls -la", "git status", "git log", "git diff", "git show", "git branch", "git rev-parse HEAD",
		"cat README.md", "grep -r x .", "head README.md", "wc -l README.md", "pwd", "echo hi", "which npm", "date",
		"whoami", "uname -a", "true", "sort README.md", "stat README.md", "du -sh .", "file README.md", "basename a/b",
		"dirname a/b", "jq . package.json", "sed -n 1p README.md", "tail README.md", "find . -name x", "xargs echo",
		"timeout 5 ls", "ls | wc -l", "git status && ls"}
	notReadOnly = []string{"printenv", "env", "npm --version", "go version", "git fetch", "git config user.name", "npm ls",
		"awk 1 README.md", "sed -i s/a/b/ README.md", "touch x", "mkdir d", "echo x > y.txt", "kubectl get pods",
		"gh pr list", "make -n", "cat ~/.ssh/id_rsa", "cat /etc/passwd", "ls ~/.ssh", "grep x /etc/hostname", "find /etc/ssl -name x", "tail /etc/hostname"}
	wrappers = []string{"timeout 5", "timeout -s KILL 5", "nice -n 5", "nice -10", "nohup", "time", "stdbuf -o0",
		"command", "xargs", "env", "env -i", "env FOO=1", "sudo", "sudo -u x", "xargs -n1", "command -v", "watch",
		"setsid", "timeout 5 nice", "exec"}
	assignments = []string{"NODE_ENV=test", "LANG=C", "TZ=UTC", "NO_COLOR=1", "CI=1", "RUST_LOG=debug", "GOOS=linux",
		"FORCE_COLOR=1", "TERM=xterm", "FOO=1", "DEBUG=1", "NODE_OPTIONS=x", "PATH=/x", "LD_PRELOAD=x", "PYTHONPATH=x",
		"HOME=/x", "LC_ALL=C", "NPM_CONFIG_X=1", "BASH_ENV=x", "PAGER=x", "EDITOR=x", "GIT_DIR=x", "CI=1 FOO=1",
		"CI=1 NODE_ENV=test"}
)

// ruleShapes spells a Bash allow/ask/deny rule for a base command.
func (g *gen) ruleShape(base string) (shape, rule string) {
	words := strings.Fields(base)
	first := words[0]
	shapes := []struct{ name, text string }{
		{"colon-star", base + ":*"},
		{"space-star", base + " *"},
		{"star", base + "*"},
		{"exact", base},
		{"middle-star", first + " * " + g.pick("main", "x", "--help")},
		{"leading-star", "* " + g.pick("--version", "--help", "x")},
		{"leading-star-word", "*" + words[len(words)-1]},
		{"double-star-tail", base + " **"},
		{"escaped-star", base + `\*`},
		{"space-colon-star", base + " :*"},
		{"two-stars", first + " * *"},
		{"star-middle-colon", first + " *:*"},
		{"double-space", strings.Replace(base, " ", "  ", 1) + " *"},
		{"inner-lead-blank", " " + base + " *"},
		{"inner-trail-blank", base + " * "},
		{"compound-exact", "cd web && " + base},
		{"compound-star", base + " | sh:*"},
		{"compound-and-star", base + " && " + first + " *"},
	}
	s := shapes[g.r.IntN(len(shapes))]
	return s.name, "Bash(" + s.text + ")"
}

// callsFor returns probe calls around a base command.
func (g *gen) callsFor(b *Batch, base string) {
	words := strings.Fields(base)
	first := words[0]
	g.bash(b, "exact", base)
	for _, t := range g.some(3, tails...) {
		g.bash(b, "extra-args", base+" "+t)
	}
	g.bash(b, "glued", base+"x")
	g.bash(b, "glued-colon", base+":x")
	g.bash(b, "literal-star", base+"*")
	g.bash(b, "literal-backslash-star", base+`\*`)
	g.bash(b, "double-space", strings.Replace(base, " ", "  ", 1)+" x")
	if len(words) > 1 {
		g.bash(b, "first-word", first)
		g.bash(b, "first-word-other", first+" "+g.pick("other", "x", "install", "version"))
		g.bash(b, "middle", first+" "+g.pick("x", "push origin", "a")+" main")
	}
	g.bash(b, "version", base+" --version")
	g.bash(b, "other-command", g.pick(bases...)+" "+g.pick(tails...))
}

func (g *gen) batch() Batch {
	b := Batch{Class: g.class}
	if g.ruleClass(&b) { // corpus_rules.go
		return b
	}
	switch g.class {
	case "bash-match":
		// Under Bash(*) every simple command runs: a deny rule decides
		// exactly the calls it matches.
		base := g.pick(bases...)
		_, rule := g.ruleShape(base)
		b.Settings.Allow = []string{"Bash(*)"}
		b.Settings.Deny = []string{rule}
		b.MatchRule = rule
		g.callsFor(&b, base)
		for _, other := range g.some(6, bases...) {
			g.callsFor(&b, other)
		}
	case "path-match":
		// Under Read, Edit and Write every path runs: a deny rule decides
		// exactly the calls of its tool it matches.
		shape, rule := g.pathRule(g.pick("Read", "Edit", "Read", "Edit", "Write"))
		b.Settings.Allow = []string{"Read", "Edit", "Write"}
		b.Settings.Deny = []string{rule}
		b.MatchRule = rule
		tool := rule
		if i := strings.IndexByte(rule, '('); i > 0 {
			tool = rule[:i]
		}
		shape = tool + "@" + shape
		for _, p := range readPaths {
			g.add(&b, "read:"+pathLabel(p)+" deny "+shape, Call{Tool: "Read", Arg: p})
		}
		for _, p := range editPaths {
			g.add(&b, "edit:"+pathLabel(p)+" deny "+shape, Call{Tool: "Edit", Arg: p})
			g.add(&b, "write:"+pathLabel(p)+" deny "+shape, Call{Tool: "Write", Arg: p})
		}
	case "bash-shapes":
		for i := 0; i < 1+g.r.IntN(3); i++ {
			_, rule := g.ruleShape(g.pick(bases...))
			b.Settings.Allow = append(b.Settings.Allow, rule)
		}
		if g.r.IntN(4) == 0 {
			b.Settings.Allow = append(b.Settings.Allow, g.pick("Bash(**)", "Bash(***)", "Bash(* *)", "Bash(*)", "Bash"))
		}
		for _, base := range bases {
			g.callsFor(&b, base)
		}
		g.guarded(&b)
	case "bash-wrappers":
		base := g.pick(bases[:12]...)
		b.Settings.Allow = []string{"Bash(" + base + ":*)", "Bash(" + g.pick(bases...) + " *)"}
		if g.r.IntN(2) == 0 {
			b.Settings.Deny = []string{"Bash(" + g.pick("curl", "rm", "git push", "npm publish") + ":*)"}
		}
		for _, rule := range append(append([]string{}, b.Settings.Allow...), b.Settings.Deny...) {
			cmd := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(rule, "Bash("), ")"), ":*"), " *")
			for _, w := range wrappers {
				g.bash(&b, "wrapper:"+w, w+" "+cmd+" "+g.pick(tails...))
				g.bash(&b, "wrapper:"+w, w+" "+cmd)
			}
			for _, a := range assignments {
				g.bash(&b, "assignment:"+a, a+" "+cmd+" "+g.pick(tails...))
			}
		}
	case "bash-deny":
		b.Settings.Allow = []string{g.pick("Bash(*)", "Bash", "Bash(**)", "Bash(* *)", "Bash(npm *)", "Bash(git *)")}
		denied := g.some(1+g.r.IntN(2), "curl", "rm", "git push", "npm publish", "wget", "docker")
		for _, d := range denied {
			b.Settings.Deny = append(b.Settings.Deny, "Bash("+d+g.pick(":*", " *", "*", "")+")")
		}
		for _, d := range denied {
			w := strings.Fields(d)
			rest := strings.Join(w[1:], " ")
			q := func(s string) string { return strings.TrimSpace(s + " " + rest) }
			for _, form := range []struct{ label, cmd string }{
				{"plain", q(w[0])}, {"args", q(w[0]) + " x"}, {"abs-path", q("/usr/bin/"+w[0]) + " x"},
				{"backslash", q(`\`+w[0]) + " x"}, {"single-quoted", q("'"+w[0]+"'") + " x"}, {"split-quote", q(w[0][:1]+`"`+w[0][1:]+`"`) + " x"},
				{"dot-slash", q("./"+w[0]) + " x"}, {"subst", "echo $(" + q(w[0]) + " x)"}, {"proc-subst", "cat <(" + q(w[0]) + " x)"},
				{"assign-subst", "x=$(" + q(w[0]) + " x)"}, {"eval", "eval " + q(w[0]) + " x"}, {"bash-c", "bash -c '" + q(w[0]) + " x'"},
				{"sh-c", "sh -c '" + q(w[0]) + " x'"}, {"python-c", `python3 -c 'import os; os.system("` + q(w[0]) + ` x")'`},
				{"find-exec", "find . -exec " + q(w[0]) + " {} +"}, {"xargs", "echo x | xargs " + q(w[0])},
				{"compound", "ls && " + q(w[0]) + " x"}, {"pipe", q(w[0]) + " x | cat"}, {"semicolon", "true; " + q(w[0])},
				{"subshell", "(" + q(w[0]) + " x)"}, {"background", q(w[0]) + " x &"}, {"newline", "ls\n" + q(w[0]) + " x"},
			} {
				g.bash(&b, "deny:"+form.label, form.cmd)
			}
			for _, wr := range wrappers {
				g.bash(&b, "deny-wrapper:"+wr, wr+" "+q(w[0])+" x")
			}
			for _, a := range assignments[:12] {
				g.bash(&b, "deny-assignment", a+" "+q(w[0])+" x")
			}
		}
		for _, c := range g.some(10, bases...) {
			g.bash(&b, "other", c+" x")
		}
		for _, c := range []string{"eval echo x", "exec echo x", "watch ls", "setsid ls", "rm -rf x", "-x", "echo x > out.txt", "ls 2>&1", "ls > /dev/null", "ls | tee log.txt", "echo $(ls)", "echo $HOME", "ls &", "(ls)", "{ ls; }", "ls \\\n -la"} {
			g.bash(&b, "command-check", c)
		}
	case "bash-ask":
		b.Settings.Allow = []string{g.pick("Bash(*)", "Bash(npm *)", "Bash(git *)", "Bash(npm test:*)", "Bash(ls *)")}
		asked := g.some(1+g.r.IntN(2), "git push", "npm publish", "curl", "rm", "docker run")
		for _, a := range asked {
			b.Settings.Ask = append(b.Settings.Ask, "Bash("+a+g.pick(":*", " *", "")+")")
		}
		for _, a := range asked {
			for _, c := range []struct{ label, cmd string }{
				{"plain", a}, {"args", a + " x"}, {"after-and", "ls && " + a}, {"after-readonly-pipe", "ls | " + a},
				{"if-body", "if true; then " + a + "; fi"}, {"subshell", "(" + a + ")"}, {"background", "npm test & " + a},
				{"semicolon", "npm test; " + a}, {"or", "false || " + a}, {"wrapper-timeout", "timeout 5 " + a},
				{"wrapper-env", "env " + a}, {"assignment", "FOO=1 " + a}, {"glued", a + "x"},
			} {
				g.bash(&b, "ask:"+c.label, c.cmd)
			}
		}
		for _, c := range g.some(12, bases...) {
			g.bash(&b, "other", c+" "+g.pick(tails...))
		}
	case "bash-compound":
		b.Settings.Allow = g.some(1+g.r.IntN(3), "Bash(npm test:*)", "Bash(npm run build)", "Bash(git commit:*)", "Bash(make *)",
			"Bash(cd web && npm ci)", "Bash(curl x | sh:*)", "Bash(npm test && npm run lint)", "Bash(go test *)")
		parts := []string{"npm test", "npm run build", "git commit -m x", "make build", "go test ./...", "ls", "git status",
			"curl x", "npm publish", "echo hi", "cd web", "npm ci", "npm run lint", "sh"}
		for i := 0; i < 60; i++ {
			a, c := g.pick(parts...), g.pick(parts...)
			op := g.pick(" && ", " || ", "; ", " | ", "\n", " & ")
			g.bash(&b, "op:"+strings.TrimSpace(strings.ReplaceAll(op, "\n", "newline")), a+op+c)
		}
		for _, p := range parts {
			g.bash(&b, "part", p)
			g.bash(&b, "redirect-file", p+" > out.txt")
			g.bash(&b, "redirect-devnull", p+" > /dev/null 2>&1")
			g.bash(&b, "subst", p+" $(echo x)")
			g.bash(&b, "var", p+" $HOME")
			g.bash(&b, "subshell", "("+p+")")
			g.bash(&b, "group", "{ "+p+"; }")
			g.bash(&b, "tee", p+" | tee log.txt")
		}
		g.bash(&b, "compound-exact", "cd web && npm ci")
		g.bash(&b, "compound-exact-other", "cd web && rm x")
		g.bash(&b, "compound-rule-text", "curl x | sh")
		g.bash(&b, "compound-rule-text", "npm test && npm run lint")
	case "bash-readonly":
		if g.r.IntN(3) == 0 {
			b.Settings.Allow = []string{g.pick("Bash(npm test:*)", "Bash(git commit:*)")}
		}
		for _, c := range readOnly {
			g.bash(&b, "readonly", c)
		}
		for _, c := range notReadOnly {
			g.bash(&b, "not-readonly", c)
		}
	case "path-read", "path-edit":
		g.pathBatch(&b)
	case "modes":
		b.Settings.DefaultMode = g.pick("default", "acceptEdits", "plan", "dontAsk")
		if g.r.IntN(2) == 0 {
			b.Settings.Allow = g.some(1+g.r.IntN(2), "Bash(npm test:*)", "Read(~/.ssh/**)", "Edit(./src/**)", "Bash(git *)", "Read(//etc/**)")
		}
		if g.r.IntN(3) == 0 {
			b.Settings.Deny = g.some(1, "Bash(curl:*)", "Read(*.env)", "Edit(./docs/**)")
		}
		g.mixedCalls(&b)
		// The tools besides Bash that plan mode hands to its auto-mode
		// classifier (measured on 2.1.328), in every mode.
		g.add(&b, "tool", Call{Tool: "WebFetch", Arg: "evil.example.com"})
		g.add(&b, "tool", Call{Tool: "WebSearch"})
		g.add(&b, "tool", Call{Tool: "Agent"})
	case "additional-dirs":
		b.Settings.AdditionalDirectories = []string{"$EXTRA"}
		if g.r.IntN(2) == 0 {
			b.Settings.DefaultMode = g.pick("acceptEdits", "default", "dontAsk")
		}
		if g.r.IntN(2) == 0 {
			b.Settings.Allow = g.some(1, "Read(/$EXTRA/**)", "Edit(/$EXTRA/src/**)", "Read(../extra/**)", "Edit(../extra/**)")
		}
		g.mixedCalls(&b)
		for _, p := range []string{"$EXTRA/notes.md", "$EXTRA/src/x.go", "$EXTRA/.env", "$EXTRA/deep/a/b.txt"} {
			g.add(&b, "extra-read", Call{Tool: "Read", Arg: p})
		}
		for _, p := range []string{"$EXTRA/e{n}.md", "$EXTRA/src/e{n}.go"} {
			g.add(&b, "extra-edit", Call{Tool: "Edit", Arg: p})
			g.add(&b, "extra-write", Call{Tool: "Write", Arg: p})
		}
		g.bash(&b, "extra-bash", "cat $EXTRA/notes.md")
		g.bash(&b, "extra-bash", "ls $EXTRA")
	case "skipped-rules":
		target := g.pick("curl", "npm publish", "git push")
		spell := g.some(3, " Bash("+target+":*)", "Bash ("+target+":*)", "Bash("+target+":*) ", "bash("+target+":*)",
			"BASH("+target+":*)", "Bash(:*)", "Bash()", "Bash("+target, "Bash("+target+")x", "Bash( "+target+" *)",
			"Bash("+target+"  *)", "Bash("+target+" :*)")
		switch g.r.IntN(3) {
		case 0:
			b.Settings.Allow = []string{"Bash(*)"}
			b.Settings.Deny = spell
		case 1:
			b.Settings.Allow = []string{"Bash(*)"}
			b.Settings.Ask = spell
		default:
			b.Settings.Allow = spell
		}
		for _, c := range []string{target, target + " x", target + "x", ":x", "npm test", "ls -la", "echo hi"} {
			g.bash(&b, "spelling", c)
		}
		g.mixedCalls(&b)
	case "settings-local":
		b.Settings.Allow = g.some(1, "Bash(npm *)", "Bash(git *)", "Read(~/**)", "Bash(*)")
		b.Local = &Settings{}
		switch g.r.IntN(4) {
		case 0:
			b.Local.Deny = g.some(2, "Bash(npm publish:*)", "Bash(git push:*)", "Read(~/.ssh/**)", "Bash(curl:*)")
		case 1:
			b.Local.Ask = g.some(2, "Bash(npm publish:*)", "Bash(git push:*)", "Read(~/.ssh/**)", "Bash(curl:*)")
		case 2:
			b.Local.Allow = g.some(2, "Bash(curl *)", "Edit(./src/**)", "Read(//etc/**)")
		default:
			b.Local.DefaultMode = g.pick("acceptEdits", "dontAsk", "plan")
			b.Settings.DefaultMode = g.pick("default", "acceptEdits", "dontAsk")
		}
		g.mixedCalls(&b)
	case "two-readings":
		g.twoReadings(&b)
	case "command-checks":
		g.commandChecks(&b)
	case "webfetch":
		g.webFetch(&b)
	case "mcp":
		g.mcp(&b)
	case "params":
		g.params(&b)
	case SandboxClass:
		g.sandboxBatch(&b)
	case ToolsClass:
		g.toolsBatch(&b)
	case SyntaxClass:
		g.syntaxBatch(&b)
	case ScopeClass:
		g.scopeBatch(&b)
	case PlanBroadClass:
		g.planBroadBatch(&b)
	case RedirectClass:
		g.redirectBatch(&b) // corpus_redirect.go
	case SchemaClass:
		g.schemaBatch(&b) // corpus_schema.go
	case NotebookClass:
		g.notebookBatch(&b) // corpus_tools_notebook.go
	case "bypass":
		// Claude Code ignores bypassPermissions for root, so the session
		// runs unprivileged; the mode is set in the project (where a
		// repository sets it) or in the user's settings.
		b.Unprivileged = true
		if g.r.IntN(2) == 0 {
			b.Settings.DefaultMode = "bypassPermissions"
		} else {
			b.UserMode = "bypassPermissions"
		}
		if g.r.IntN(2) == 0 {
			b.Settings.Deny = g.some(2, "Bash(curl:*)", "Bash(npm publish:*)", "Read(~/.ssh/**)", "Edit(./docs/**)")
		}
		if g.r.IntN(2) == 0 {
			b.Settings.Ask = g.some(1, "Bash(git push:*)", "Read(//etc/**)", "Bash(rm *)")
		}
		g.mixedCalls(&b)
		g.guarded(&b)
		for _, c := range []string{"rm -rf /", "curl x", "npm publish x", "git push x", "cat ~/.ssh/id_rsa", "rm ./x"} {
			g.bash(&b, "bypass-bash", c)
		}
	}
	return b
}

// twoReadings settles the rules Shipgate read two ways: each as a deny
// under allow rules that let every call run (the deny decides), as an
// ask under acceptEdits (for Write), and as an allow.
func (g *gen) twoReadings(b *Batch) {
	bash := []string{"Bash(git * *)", "Bash(npm * *)", "Bash(pip * *)", "Bash(* *)", "Bash(terraform *:*)", "Bash(git *:*)", "Bash(npm run *:*)"}
	write := []string{"Write(./*)", "Write(*)", "Write(**)", "Write(/*)", "Write(./**)", "Write(~/*)"}
	switch g.r.IntN(3) {
	case 0:
		r := g.pick(bash...)
		b.Settings.Allow = []string{"Bash(*)"}
		b.Settings.Deny = []string{r}
		b.MatchRule = r
	case 1:
		r := g.pick(bash...)
		b.Settings.Allow = []string{r}
	default:
		r := g.pick(write...)
		switch g.r.IntN(3) {
		case 0:
			b.Settings.Allow = []string{"Read", "Edit", "Write"}
			b.Settings.Deny = []string{r}
			b.MatchRule = r
		case 1:
			b.Settings.DefaultMode = "acceptEdits"
			b.Settings.Ask = []string{r}
		default:
			b.Settings.Allow = []string{r}
		}
	}
	for _, c := range []string{"git", "git push", "git push x", "git push origin main", "git a b c", "git push*", "git x:y", "git push:x",
		"npm", "npm x", "npm run build", "npm run build x", "npm x y", "pip", "pip install", "pip install x", "pip install*",
		"terraform", "terraform apply", "terraform apply x", "terraform apply:x", "terraform x:y", "ls", "make", "make x",
		"make x y", "curl x | sh", "npm test && make x", "echo hi > out.txt", "make x $(echo y)"} {
		g.bash(b, "probe", c)
	}
	for _, p := range editPaths {
		g.add(b, "write:"+pathLabel(p), Call{Tool: "Write", Arg: p})
		g.add(b, "edit:"+pathLabel(p), Call{Tool: "Edit", Arg: p})
	}
}

// commandChecks measures Claude Code's command checks under the whole
// tool and under pattern rules: which rm paths ask, $VAR arguments, cd,
// quoted wrappers, harmless redirections after an allowed command.
func (g *gen) commandChecks(b *Batch) {
	b.Settings.Allow = []string{g.pick("Bash(*)", "Bash", "Bash(**)", "Bash(npm run build)", "Bash(git *)", "Bash(make *)")}
	if g.r.IntN(2) == 0 {
		b.Settings.Deny = []string{g.pick("Bash(npm publish:*)", "Bash(curl *)", "Bash(rm -rf *)")}
	}
	for _, c := range []string{"rm x", "rm ./x", "rm -rf ./x", "rm src/x", "rm -rf x", "rm ../x", "rm -r .", "rm -rf ~", "rm -rf ~/x",
		"rm /tmp/x", "rm -rf /tmp/x", "rm *.o", "rm -f x", "rmdir x", "rm -rf ./...", "rm ./...", "rm -- -x"} {
		g.bash(b, "rm", c)
	}
	for _, c := range []string{"git status $HOME", "ls $HOME", "cat $HOME/.ssh/id_rsa", "echo $HOME", "cat $X", "git log $X",
		"grep x $HOME", "make $X", "npm run build $X", "git commit -m \"$X\""} {
		g.bash(b, "var", c)
	}
	for _, c := range []string{"cd web", "cd src && ls", "cd nosuchdir", "cd nosuchdir && ls", "cd .. && ls", "cd /tmp", "cd ~"} {
		g.bash(b, "cd", c)
	}
	for _, c := range []string{"'timeout' 5 npm publish x", "\\timeout 5 npm publish x", "/usr/bin/timeout 5 npm publish x",
		"'curl' x", "/usr/bin/curl x", "'rm' -rf x", "/bin/rm -rf x"} {
		g.bash(b, "spelled", c)
	}
	for _, c := range []string{"npm run build > /dev/null", "npm run build 2>&1", "npm run build > /dev/null 2>&1", "make x 2>/dev/null",
		"git commit -m x > /dev/null", "npm run build >> /dev/null", "npm run build &> /dev/null", "npm run build > out.txt"} {
		g.bash(b, "redirect", c)
	}
	for _, c := range []string{"ls \\\n -la", "npm run build \\\n x", "make \\\n x", "git status \\\n -s"} {
		g.bash(b, "continuation", c)
	}
}

// webFetch measures WebFetch(domain:…) rules (an allowed fetch fails to
// resolve the host offline, which shows it ran).
func (g *gen) webFetch(b *Batch) {
	rules := []string{"WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)", "WebFetch(domain:*)", "WebFetch",
		"WebFetch(domain:example.*)", "WebFetch(domain:EXAMPLE.com)", "WebFetch(example.com)", "WebFetch(domain:.example.com)",
		"WebFetch(domain:sub.example.com)", "WebFetch(*)"}
	b.Settings.Allow = g.some(1+g.r.IntN(2), rules...)
	if g.r.IntN(2) == 0 {
		b.Settings.Deny = g.some(1, rules...)
	}
	if g.r.IntN(3) == 0 {
		b.Settings.Ask = g.some(1, rules...)
	}
	for _, h := range []string{"example.com", "sub.example.com", "a.b.example.com", "example.org", "EXAMPLE.COM", "notexample.com",
		"example.com.evil.test", "example.net", "www.example.com", "deep.sub.example.com", "example.co", "examplecom.test",
		"sub.example.org", "example.com.", "x-example.com", "api.sub.example.com"} {
		g.add(b, "fetch", Call{Tool: "WebFetch", Arg: h})
	}
}

// mcp measures MCP tool rules and tool-name globs over the stub servers'
// tools (MCPServers): server tokens, single tools, families, and globs in
// every list, with and without a mode.
func (g *gen) mcp(b *Batch) {
	allow := []string{"mcp__gh", "mcp__gh__*", "mcp__gh__get_issue", "mcp__gh__get_*", "mcp__db__query", "mcp__db",
		"mcp__*", "*", "mcp__gh*", "mcp__g*__get_issue", "mcp__gh__*issue", "mcp__gh(*)", "mcp__gh__get_issue(*)",
		"mcp__GH__get_issue", "mcp__gh_ext", "mcp__gh_ext__*", "mcp__gh__", "mcp__", "mcp__*__get_issue"}
	deny := []string{"mcp__gh__delete_repo", "mcp__db", "mcp__*", "mcp__gh__delete_*", "mcp__*__drop_table",
		"mcp__gh", "mcp__gh__*", "mcp__gh_*", "mcp__gh__get_issue(*)", "mcp__gh*", "mcp__db__*", "mcp__*__get_issue"}
	b.Settings.Allow = g.some(1+g.r.IntN(2), allow...)
	if g.r.IntN(2) == 0 {
		b.Settings.Deny = g.some(1, deny...)
	}
	if g.r.IntN(3) == 0 {
		// (A deny "*" takes every tool out of the model's list, the
		// warm-up Read too, so the batch is never asked: ask only.)
		b.Settings.Ask = g.some(1, append([]string{"*"}, deny...)...)
	}
	if g.r.IntN(4) == 0 {
		b.Settings.DefaultMode = g.pick("acceptEdits", "dontAsk", "plan")
	}
	for _, t := range MCPTools() {
		g.add(b, "mcp:"+strings.TrimPrefix(t, "mcp__"), Call{Tool: t})
	}
}

// params measures parameter rules, Tool(param:value): each call sets the
// one optional field it names (or none), so the rule's question is asked
// alone.
func (g *gen) params(b *Batch) {
	deny := []string{"Bash(timeout:*)", "Bash(timeout:5000)", "Bash(timeout: *)", "Bash(run_in_background:true)",
		"Bash(description:*)", "Bash(description:conf*)", "Bash(dangerouslyDisableSandbox:true)", "WebFetch(prompt:*)",
		"WebFetch(prompt:conf*)", "WebFetch(prompt:other)", "Read(offset:*)", "Read(limit:10)", "Bash(command:npm *)",
		"Read(file_path:*)", "Bash(nosuchfield:*)", "Bash(timeout:5*)", "Read(offset:5)", "Read(limit:*)", "WebFetch(offset:*)",
		"Bash(run_in_background:*)", "Bash(description:other)"}
	b.Settings.Allow = []string{"Bash(*)", "Read", "WebFetch"}
	if g.r.IntN(4) == 0 {
		b.Settings.Allow = []string{"Bash(*)"}
	}
	switch g.r.IntN(4) {
	case 0, 1:
		// One rule: each call's decision is that rule's.
		if g.r.IntN(2) == 0 {
			b.Settings.Deny = g.some(1, deny...)
		} else {
			b.Settings.Ask = g.some(1, deny...)
		}
	case 2:
		b.Settings.Deny = g.some(2, deny...)
	default:
		b.Settings.Deny = g.some(1, deny...)
		b.Settings.Ask = g.some(1, deny...)
	}
	for _, c := range []string{"npm test", "timeout 5 npm test", "npm publish", "ls"} {
		for _, pv := range [][2]string{{"none", ""}, {"timeout", "5000"}, {"timeout", "60000"}, {"description", "conformance call"},
			{"description", "other"}, {"run_in_background", "true"}, {"run_in_background", "false"}, {"dangerouslyDisableSandbox", "true"}} {
			label := "bash:" + pv[0]
			if strings.HasPrefix(c, "timeout ") {
				label = "bash-timeout-command:" + pv[0] // the legacy prefix reading of Bash(timeout:*)
			}
			g.add(b, label, Call{Tool: "Bash", Arg: c, Param: pv[0], Value: pv[1]})
		}
	}
	for _, pv := range [][2]string{{"none", ""}, {"offset", "1"}, {"offset", "5"}, {"limit", "10"}, {"limit", "5"}} {
		g.add(b, "read:"+pv[0], Call{Tool: "Read", Arg: "$PROJ/src/app.go", Param: pv[0], Value: pv[1]})
	}
	for _, h := range []string{"example.com", "example.org"} {
		for _, v := range []string{"conformance call", "other"} {
			g.add(b, "fetch:prompt", Call{Tool: "WebFetch", Arg: h, Param: "prompt", Value: v})
		}
	}
}

// guarded adds commands Claude Code asks about whatever the allow rules
// say.
func (g *gen) guarded(b *Batch) {
	for _, c := range []string{"eval npm test", "exec npm test", "watch npm test", "setsid npm test", "find . -exec npm test {} +",
		"npm test > out.txt", "npm test $(echo x)", "npm test &", "-rf x", "npm test | tee log.txt"} {
		g.bash(b, "guarded", c)
	}
}

// Path vocabulary. $PROJ, $HOME and $EXTRA are the session's folders.
var (
	readPaths = []string{"$PROJ/a.txt", "$PROJ/src/app.go", "$PROJ/src/deep/x.go", "$PROJ/.env", "$PROJ/src/.env",
		"$PROJ/x.env", "$PROJ/docs/readme.md", "$PROJ/docs/sub/x.md", "$PROJ/secrets/key", "$PROJ/web/src/a.ts",
		"$HOME/.ssh/id_rsa", "$HOME/notes.txt", "$HOME/.env", "$HOME/src/app.go", "$HOME/docs/readme.md",
		"/etc/hostname", "/etc/passwd", "/usr/lib/os-release", "$EXTRA/notes.md", "$EXTRA/src/x.go"}
	editPaths = []string{"$PROJ/e{n}.txt", "$PROJ/src/e{n}.go", "$PROJ/src/deep/e{n}.go", "$PROJ/e{n}.env", "$PROJ/src/e{n}.env",
		"$PROJ/docs/e{n}.md", "$PROJ/docs/sub/e{n}.md", "$PROJ/secrets/e{n}", "$HOME/e{n}.txt", "$HOME/.ssh/e{n}",
		"$HOME/src/e{n}.go", "$EXTRA/e{n}.md", "$EXTRA/src/e{n}.go"}
	anchors    = []string{"//", "///", "////", "~/", "/", "./", ""}
	pathBodies = []string{"**", "*", "src/**", "*.env", "**/*.env", "docs/*.md", "docs/**", ".ssh/**", "secrets", "src/",
		"*.go", "src/*.go", "etc/**", "etc/hostname", "src/deep/**", "web/**", "**/src/**", ".env", "?.txt", "[ab].txt"}
)

// pathRule spells a path rule with an anchor; a root anchor points at the
// session's folders or at /etc.
func (g *gen) pathRule(tool string) (label, rule string) {
	a := g.pick(anchors...)
	body := g.pick(pathBodies...)
	if strings.HasPrefix(a, "//") && !strings.HasPrefix(body, "etc") && g.r.IntN(3) > 0 {
		// A root-anchored rule for the folder outside the project and
		// home (//$EXTRA/src/**). Shipgate cannot know where a checkout
		// or a home lies, so root rules into those are not asked.
		rule = tool + "(" + a[:len(a)-1] + "$EXTRA/" + body + ")"
		return "anchor:" + a + "extra", rule
	}
	if g.r.IntN(12) == 0 {
		return "bare-tool", tool
	}
	return "anchor:" + a, tool + "(" + a + body + ")"
}

func (g *gen) pathBatch(b *Batch) {
	tools := []string{"Read"}
	if g.class == "path-edit" {
		tools = []string{"Edit", "Write", "Edit", "Read"}
	}
	n := 1 + g.r.IntN(3)
	for i := 0; i < n; i++ {
		label, rule := g.pathRule(g.pick(tools...))
		_ = label
		switch g.r.IntN(5) {
		case 0:
			b.Settings.Deny = append(b.Settings.Deny, rule)
		case 1:
			b.Settings.Ask = append(b.Settings.Ask, rule)
		default:
			b.Settings.Allow = append(b.Settings.Allow, rule)
		}
	}
	if g.class == "path-edit" && g.r.IntN(3) == 0 {
		b.Settings.DefaultMode = "acceptEdits"
	}
	for _, p := range readPaths {
		g.add(b, "read:"+pathLabel(p), Call{Tool: "Read", Arg: p})
	}
	if g.class == "path-edit" {
		for _, p := range editPaths {
			g.add(b, "edit:"+pathLabel(p), Call{Tool: "Edit", Arg: p})
			g.add(b, "write:"+pathLabel(p), Call{Tool: "Write", Arg: p})
		}
	}
}

// pathLabel names the zone of a path.
func pathLabel(p string) string {
	switch {
	case strings.HasPrefix(p, "$PROJ/"):
		return "project"
	case strings.HasPrefix(p, "$HOME/"):
		return "home"
	case strings.HasPrefix(p, "$EXTRA/"):
		return "extra"
	}
	return "root"
}

// mixedCalls adds a spread of calls of every tool.
func (g *gen) mixedCalls(b *Batch) {
	for _, p := range readPaths {
		g.add(b, "read:"+pathLabel(p), Call{Tool: "Read", Arg: p})
	}
	for _, p := range g.some(8, editPaths...) {
		g.add(b, "edit:"+pathLabel(p), Call{Tool: "Edit", Arg: p})
		g.add(b, "write:"+pathLabel(p), Call{Tool: "Write", Arg: p})
	}
	for _, c := range g.some(20, bases...) {
		g.bash(b, "bash", c+" "+g.pick(tails...))
	}
	for _, c := range g.some(8, readOnly...) {
		g.bash(b, "bash-readonly", c)
	}
	for _, c := range g.some(4, notReadOnly...) {
		g.bash(b, "bash-not-readonly", c)
	}
	g.bash(b, "bash-rm", "rm -rf x")
}
