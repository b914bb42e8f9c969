package judge

import (
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
)

// placeholderWords are plausible words for the placeholder `x` the
// lattice's witnesses leave where any word would do (`npx x`, `npm exec x`,
// `python3 -c x`): keyed by the command text before the placeholder, each
// a word a reviewer reads as a real command. A replacement is used only
// when it is still a true witness (concrete checks it with lattice.Match),
// so the table can only change the wording, never the claim.
var placeholderWords = map[string][]string{
	"npx":                       {"cowsay", "create-react-app"},
	"npm exec":                  {"cowsay", "eslint"},
	"npm install -g":            {"left-pad", "typescript"},
	"pnpm dlx":                  {"create-vite", "cowsay"},
	"pnpm exec":                 {"eslint", "tsc"},
	"yarn dlx":                  {"create-react-app", "cowsay"},
	"bunx":                      {"cowsay", "prettier"},
	"uvx":                       {"ruff", "black"},
	"pipx run":                  {"black", "cowsay"},
	"pip install":               {"requests", "left-pad"},
	"python3 -c":                {`"import os; os.system('id')"`, `"print(1)"`},
	"python -c":                 {`"import os; os.system('id')"`, `"print(1)"`},
	"node -e":                   {`"require('child_process').execSync('id')"`, `"console.log(1)"`},
	"ruby -e":                   {`"system('id')"`, `"puts 1"`},
	"perl -e":                   {`"system('id')"`, `"print 1"`},
	"php -r":                    {`"system('id');"`, `"echo 1;"`},
	"bash -c":                   {"whoami", "id"},
	"sh -c":                     {"whoami", "id"},
	"zsh -c":                    {"whoami", "id"},
	"eval":                      {"whoami", "id"},
	"sudo":                      {"whoami", "id"},
	"env":                       {"bash", "sh"},
	"docker run --privileged":   {"alpine", "ubuntu"},
	"kubectl delete ns":         {"production", "staging"},
	"gh secret set":             {"NPM_TOKEN", "DEPLOY_KEY"},
	"git config core.hooksPath": {".hooks", "/tmp/hooks"},
	"wget https://example.com/": {"install.sh", "payload.bin"},
}

// placeholderInfix are whole witnesses with a placeholder inside, and
// their readable forms.
var placeholderInfix = map[string][]string{
	"docker exec x sh":             {"docker exec web sh"},
	"kubectl exec x -- sh":         {"kubectl exec web -- sh"},
	"aws s3 rm s3://x --recursive": {"aws s3 rm s3://backups --recursive"},
	"uv run python x.py":           {"uv run python script.py"},
	"git -c core.pager=x log":      {"git -c core.pager=less log"},
}

// leadingWildcardWords are commands put before a witness that starts with
// no program name: what the rule's leading * lets run.
var leadingWildcardWords = []string{"bash -c whoami", "rm -rf build"}

// startsWithWord reports whether a command starts with a character a
// program name starts with (a letter, a digit, a path or a variable).
func startsWithWord(cmd string) bool {
	c := cmd[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("./~$_-\"'", rune(c))
}

// hostWords replace the placeholder label of a host witness
// (`x.github.com` under `domain:*.github.com`).
var hostWords = []string{"gist", "uploads", "evil"}

// readableForms are the readable spellings of a witness with a
// placeholder, best first (none when it has no placeholder).
func readableForms(c lattice.Call) []lattice.Call {
	var out []lattice.Call
	add := func(arg string) {
		out = append(out, lattice.Call{Tool: c.Tool, Arg: arg, Param: c.Param, Value: c.Value})
	}
	switch c.Tool {
	case "Bash", "PowerShell", "Monitor":
		for _, s := range placeholderInfix[c.Arg] {
			add(s)
		}
		if prefix, ok := strings.CutSuffix(c.Arg, " x"); ok {
			for _, w := range placeholderWords[prefix] {
				add(prefix + " " + w)
			}
		}
		if prefix, ok := strings.CutSuffix(c.Arg, "/x"); ok {
			for _, w := range placeholderWords[prefix+"/"] {
				add(prefix + "/" + w)
			}
		}
		if c.Tool == "Bash" && c.Arg != "" && !startsWithWord(c.Arg) {
			// The shortest call of a pattern with a leading * is its
			// literal tail alone (`:--help` for Bash(*:--help)), which
			// runs no program. The * takes any command before it: measured
			// on Claude Code 2.1.328 (TestLeadingWildcardWitnessOnTheBinary),
			// `bash -c whoami :--help` runs whoami under that rule.
			for _, w := range leadingWildcardWords {
				add(w + " " + c.Arg)
			}
		}
	case "WebFetch":
		if rest, ok := strings.CutPrefix(c.Arg, "x."); ok && strings.Contains(rest, ".") {
			for _, w := range hostWords {
				add(w + "." + rest)
			}
		}
	}
	return out
}

// concrete replaces placeholder witnesses with readable ones that are
// still witnesses: every rule of all surely matches the replacement, no
// rule of none may match it (Match answers No for each), and keep (when
// set) accepts it. Calls without a placeholder, or whose readable forms
// all fail, are kept as they were. The none list is bounded: past
// maxConcreteRules rules the check would cost more than the wording is
// worth, and the calls are kept as found.
func (e *engine) concrete(calls []lattice.Call, all, none []lattice.Rule, keep func(lattice.Call) bool) []lattice.Call {
	if len(none) > maxConcreteRules {
		return calls
	}
	out := make([]lattice.Call, len(calls))
	seen := map[lattice.Call]bool{}
	for _, c := range calls {
		seen[c] = true
	}
	for i, c := range calls {
		out[i] = c
		forms := readableForms(c)
		if r, ok := ruleCase(c, all); ok {
			forms = append([]lattice.Call{r}, forms...)
		}
		for _, r := range forms {
			if seen[r] || !e.isWitness(r, all, none) || (keep != nil && !keep(r)) {
				continue
			}
			out[i], seen[r] = r, true
			break
		}
	}
	return out
}

// ruleCase spells a path witness with the letter case of the rules it
// was found for: Claude Code matches paths without regard to case, so the
// search may return `changelog.md` for Edit(CHANGELOG.md); a reviewer
// should read the file as the rule names it. Each literal run of a rule's
// pattern found in the witness, ignoring case, is put back in the rule's
// case (concrete then checks the result is still a witness). Paths
// outside the project keep the folded spelling.
func ruleCase(c lattice.Call, all []lattice.Rule) (lattice.Call, bool) {
	if c.Tool != "Read" && c.Tool != "Edit" && c.Tool != "Write" || strings.HasPrefix(c.Arg, "/") || strings.HasPrefix(c.Arg, "~") {
		// Outside the project the folded spelling (/etc/hosts for
		// Edit(//ETC/Hosts)) is the file that exists on Linux.
		return c, false
	}
	arg := c.Arg
	for _, r := range all {
		if !r.HasSpecifier {
			continue
		}
		for _, lit := range strings.FieldsFunc(r.Specifier, func(r rune) bool { return strings.ContainsRune("*?[]{}/", r) }) {
			low, lowArg := strings.ToLower(lit), strings.ToLower(arg)
			if len(lit) < 2 || len(low) != len(lit) || len(lowArg) != len(arg) || lit == low {
				continue
			}
			if j := strings.Index(lowArg, low); j >= 0 && arg[j:j+len(lit)] != lit {
				arg = arg[:j] + lit + arg[j+len(lit):]
			}
		}
	}
	if arg == c.Arg {
		return c, false
	}
	c.Arg = arg
	return c, true
}

// maxConcreteRules bounds the rules concrete checks a replacement against.
const maxConcreteRules = 400

// isWitness reports whether every rule of all surely matches c and no rule
// of none may.
func (e *engine) isWitness(c lattice.Call, all, none []lattice.Rule) bool {
	for _, r := range all {
		if lattice.MatchContext(e.ctx, r, c) != lattice.Yes {
			return false
		}
	}
	for _, r := range none {
		if lattice.MatchContext(e.ctx, r, c) != lattice.No {
			return false
		}
	}
	return true
}
