package lattice

import (
	"regexp"
	"slices"
	"strings"
)

// PlanStripped reports whether Claude Code sets an allow rule aside in plan
// mode: a session that starts in plan mode (defaultMode plan, from any
// settings file) runs with its auto-mode classifier, and before it does it
// strips every allow rule that would let a call bypass the classifier
// (stripDangerousPermissionsForAutoMode in ClaudeCodeVersion's bundle; the
// predicate is isDangerousClassifierPermission). A call such a rule matches
// goes to the classifier instead of running. Deny and ask rules are kept.
//
// Read from the 2.1.328 bundle and measured on it (internal/conformance
// TestPlanModeStripsBroadAllows):
//
//   - Bash with no specifier, and any Bash rule whose specifier is only
//     stars and blanks: Bash, Bash(*), Bash(**), Bash(* *);
//   - a Bash rule naming an interpreter or a launcher (ShellLaunchers: python,
//     node, npx, npm run, bash, ssh, env, sudo, …) bare, with :*, ␣* or *, or
//     with a flag then a star (Bash(python3 -c *), Bash(python3 -m pytest *)
//     — a dotted module name after -m is kept);
//   - a Bash rule whose text before its first star is wrappers, flags,
//     numbers and launchers only, or ends in a path, a flag, punctuation or
//     a prefix of a launcher's name (Bash(timeout 5 python *), Bash(* x),
//     Bash(./*), Bash(n*));
//   - the same for PowerShell, with its own launchers (iex, Start-Process,
//     pwsh, cmd, …);
//   - every Agent and Monitor rule, whatever its specifier.
//
// Bash(git *), Bash(npm *), Bash(npm run build:*), Bash(curl *) and
// Bash(make *) are kept (measured). Claude Code strips every Bash allow in
// plan mode in some hosted sessions (its remote and cowork entry points);
// a local CLI session, which the rules here describe, keeps the rest.
func PlanStripped(r Rule) bool {
	if r.List != Allow || r.Malformed != "" {
		return false
	}
	switch r.Canonical {
	case "Agent", "Monitor":
		return true
	case "Bash":
		if !r.HasSpecifier || r.Specifier == "" {
			return true
		}
		return launcherPrefix(r.Specifier, ShellLaunchers) || launcherRule(r.Specifier, ShellLaunchers)
	case "PowerShell":
		if !r.HasSpecifier || r.Specifier == "" {
			return true
		}
		return powerShellStripped(r.Specifier)
	}
	return false
}

// ShellLaunchers are the commands whose Bash allow rules plan mode strips
// (the bundle's list in ClaudeCodeVersion, in its order): interpreters and
// package runners that run code they are given, shells, and the wrappers
// that run their operand.
var ShellLaunchers = []string{"python", "python3", "python2", "node", "deno", "tsx", "ruby", "perl", "php", "lua",
	"npx", "bunx", "pnpx", "npm run", "yarn run", "pnpm run", "bun run", "npm exec", "npm x", "pnpm exec", "pnpm dlx",
	"yarn exec", "yarn dlx", "bun exec", "bun x", "bash", "sh", "ssh",
	"zsh", "fish", "eval", "exec", "env", "xargs", "sudo"}

// stripWrappers are the words the bundle lets stand before a launcher in a
// rule's text (its set of shells and wrappers).
var stripWrappers = []string{"sh", "bash", "zsh", "fish", "csh", "tcsh", "ksh", "mksh", "dash", "ash", "hush", "rbash",
	"rsh", "busybox", "toybox", "wsl", "cmd", "powershell", "pwsh", "env", "xargs", "command", "builtin", "noglob", "nice",
	"stdbuf", "nohup", "timeout", "time", "watch", "ionice", "chrt", "setsid", "taskset", "strace", "ltrace", "script",
	"flock", "unshare", "nsenter", "sandbox-exec", "sudo", "doas", "pkexec", "su", "runuser"}

// powerShellLaunchers extend the launchers for PowerShell rules.
var powerShellLaunchers = append(slices.Clip(ShellLaunchers[:28]), "pwsh", "powershell", "cmd", "wsl", "iex", "invoke-expression",
	"icm", "invoke-command", "start-process", "saps", "start", "start-job", "sajb", "start-threadjob", "invoke-wmimethod",
	"iwmi", "invoke-cimmethod", "icim", "wmic", "register-objectevent", "register-engineevent", "register-wmievent",
	"register-scheduledjob", "new-pssession", "nsn", "enter-pssession", "etsn", "add-type", "new-object")

var (
	// commandBase is the bundle's command-name fold: the base name,
	// lowercased, without a version suffix or .exe (python3.11 → python).
	commandBase   = regexp.MustCompile(`(?s)^(.*?[^\d.])?[\d.]*(?:\.exe)?$`)
	blankRun      = regexp.MustCompile(`[ \t]+`)
	starRun       = regexp.MustCompile(`\*[ *]*\*`)
	harmlessWord  = regexp.MustCompile(`(?i)^(?:\w+\+?=|-|/+\w$|\d[\d.]*[smhd]?$|[^a-z0-9]*$)|[^\w .+@%,:~/-]`)
	shellCFlag    = regexp.MustCompile(`(?i)^(?:-\w*c|/c)$`)
	pathLike      = regexp.MustCompile(`(?i)^(?:[/~\\]|[a-z]:)|(?:^|[\\/])\.\.(?:[\\/]|$)`)
	flagWord      = regexp.MustCompile(`^(?:-|[^a-z0-9:]*$)`)
	dottedModule  = regexp.MustCompile(`^-m\s+\w+\.[\w.]+(\s*:|\s+)$`)
	pythonVersion = regexp.MustCompile(`^python[\d.]*$`)
	psDotPath     = regexp.MustCompile(`^\.(?:\\[\w.+@-]*[\w+@-])+`)
)

// foldCommand is the bundle's fold of one command word.
func foldCommand(w string) string {
	if i := strings.LastIndexAny(w, `/\`); i >= 0 {
		w = w[i+1:]
	}
	return commandBase.ReplaceAllString(strings.ToLower(w), "$1")
}

// normalRule is the bundle's normal form of a rule's specifier: trimmed,
// lowercased, blanks and star runs collapsed, the first word folded
// (foldCommand) and quotes dropped.
func normalRule(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = blankRun.ReplaceAllString(s, " ")
	s = starRun.ReplaceAllString(s, "*")
	if n, ok := firstRuleWord(s); ok {
		s = foldCommand(strings.NewReplacer(`"`, "", `'`, "").Replace(s[:n])) + s[n:]
	}
	return strings.NewReplacer(`"`, "", `'`, "").Replace(s)
}

// firstRuleWord is the length of the shortest run of word units at the
// start of s (a quoted string with no star, or a character other than a
// blank, a star, = or a quote) followed by a blank, a final :* or the end.
func firstRuleWord(s string) (int, bool) {
	p := 0
	for p < len(s) {
		switch c := s[p]; c {
		case '"', '\'':
			end := strings.IndexByte(s[p+1:], c)
			if end < 0 || strings.Contains(s[p+1:p+1+end], "*") {
				return 0, false
			}
			p += end + 2
		case ' ', '*', '=':
			return 0, false
		default:
			p++
		}
		if p == len(s) || s[p] == ' ' || s[p:] == ":*" {
			return p, true
		}
	}
	return 0, false
}

// launcherRule is the bundle's check of a normalised rule against the
// launchers: only stars, a launcher bare, with :*, ␣* or *, or with a flag
// and a star (a dotted module after python -m excepted).
func launcherRule(spec string, launchers []string) bool {
	r := normalRule(spec)
	if r == "*" {
		return true
	}
	for _, l := range launchers {
		if r == l || r == l+":*" || r == l+" *" || r == l+"*" {
			return true
		}
		if strings.HasPrefix(r, l+" ") && strings.HasSuffix(r, "*") {
			a := r[len(l)+1:]
			if strings.HasPrefix(a, "-") && !(pythonVersion.MatchString(l) && dottedModule.MatchString(a[:len(a)-1])) {
				return true
			}
		}
	}
	return false
}

// launcherPrefix is the bundle's check of the text before a rule's first
// star: a launcher command (with its flags), or only wrappers, harmless
// words and launchers and then a path, punctuation or a prefix of a
// one-word launcher's name.
func launcherPrefix(spec string, launchers []string) bool {
	r := spec
	if strings.HasSuffix(r, ":*") {
		r = r[:len(r)-2] + " *"
	}
	i := prefixBeforeStar(r)
	if i == r {
		return false
	}
	words := strings.Split(normalRule(i), " ")
	last := -1
	for k, w := range words {
		if !flagWord.MatchString(w) {
			last = k
		}
	}
	if slices.Contains(launchers, strings.Join(words[:last+1], " ")) {
		return true
	}
	known := append(slices.Clip(stripWrappers), launchers...)
	m := 0
	for {
		tok, n, ok := nextRuleToken(i, m)
		if !ok {
			break
		}
		h := strings.NewReplacer(`"`, "", `'`, "").Replace(tok)
		if shellCFlag.MatchString(h) {
			return true
		}
		if !harmlessWord.MatchString(h) && !slices.Contains(known, foldCommand(h)) {
			return false
		}
		m = n
	}
	d := strings.NewReplacer(`"`, "", `'`, "").Replace(strings.TrimSpace(i[m:]))
	if harmlessWord.MatchString(d) || pathLike.MatchString(d) {
		return true
	}
	if g := foldCommand(d); g != "" {
		for _, l := range known {
			if !strings.Contains(l, " ") && strings.HasPrefix(l, g) {
				return true
			}
		}
	}
	return false
}

// prefixBeforeStar is the text before the first star not escaped by a
// backslash (\* and \\ are escapes).
func prefixBeforeStar(s string) string {
	for p := 0; p < len(s); p++ {
		switch s[p] {
		case '\\':
			if p+1 < len(s) && (s[p+1] == '*' || s[p+1] == '\\') {
				p++
			}
		case '*':
			return s[:p]
		}
	}
	return s
}

// nextRuleToken reads one blank-led token at p that a blank follows (the
// bundle's sticky token scan: escapes, quoted strings, other characters);
// it returns the token, where the scan goes on, and whether there was one.
func nextRuleToken(s string, p int) (string, int, bool) {
	q := p
	for q < len(s) && isBlank(s[q]) {
		q++
	}
	start := q
	for q < len(s) && !isBlank(s[q]) {
		switch c := s[q]; c {
		case '\\':
			if q+1 >= len(s) {
				return "", 0, false
			}
			q += 2
		case '\'':
			end := strings.IndexByte(s[q+1:], '\'')
			if end < 0 {
				return "", 0, false
			}
			q += end + 2
		case '"':
			k := q + 1
			for k < len(s) && s[k] != '"' {
				if s[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(s) {
				return "", 0, false
			}
			q = k + 1
		default:
			q++
		}
	}
	if q == start || q >= len(s) || q > len(s) {
		return "", 0, false
	}
	return s[start:q], q, true
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// powerShellStripped is launcherPrefix and the launcher forms for a
// PowerShell rule, with PowerShell's launchers and `.\dir\x` paths read
// with forward slashes.
func powerShellStripped(spec string) bool {
	l := spec
	if loc := psDotPath.FindStringIndex(l); loc != nil {
		rest := l[loc[1]:]
		if rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest == ":*" {
			l = strings.ReplaceAll(l[:loc[1]], `\`, "/") + rest
		}
	}
	if launcherPrefix(l, powerShellLaunchers) {
		return true
	}
	r := normalRule(spec)
	for _, a := range append(slices.Clip(powerShellLaunchers), "get-module", "gmo", "module") {
		if r == a || r == a+":*" || r == a+"*" || r == a+" *" || strings.HasPrefix(r, a+" -") && strings.HasSuffix(r, "*") {
			return true
		}
	}
	return false
}

// PlanReadsAnyway reports an allow rule of the Read tool: in plan mode
// Claude Code reads any file without a prompt (measured on 2.1.328:
// ~/.ssh/id_rsa and /etc/passwd with no rule), so what the rule grants
// runs without it while the session plans, and newly runs once the
// session leaves plan mode (seed 4's witness class: Read(~/**) added
// under plan mode, $HOME/.ssh/id_rsa allowed at the base and the head).
func PlanReadsAnyway(r Rule) bool {
	return r.List == Allow && r.Malformed == "" && r.Canonical == "Read"
}
