package rating

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shipgate-app/shipgate/lattice"
)

// Launchers is the exec-equivalent table of the seed specification (#824):
// each entry's operand — the code after `python3 -c`, the package after
// `npx`, the image after `docker run`, the command after `sudo` — is what
// the launcher runs, so a rule that leaves it to the caller grants arbitrary
// code.
var Launchers = []string{
	"python -c", "python3 -c", "node -e", "node --eval", "node -p", "node --print",
	"ruby -e", "perl -e", "perl -E", "php -r", "bash -c", "sh -c", "zsh -c", "pwsh -c",
	"eval", "npx", "bunx", "pnpm dlx", "pnpm exec", "uvx", "uv tool run", "uv run",
	"pipx run", "docker exec", "docker run", "xargs", "env", "sudo",
	// The wrappers Claude Code itself reads as running their operand (its
	// set of exec wrappers, checked against the pinned binary by
	// internal/conformance TestExecWrappersFromBinary; issue 19 §5): an
	// allow Bash(timeout *) runs `timeout 5 sh -c "…"` without a prompt.
	// timeout(1), nice(1), nohup(1), stdbuf(1) (GNU coreutils); command,
	// builtin (bash(1): `builtin eval …`) and the time keyword (bash(1));
	// noglob (zshmisc(1), a precommand modifier); doas(1).
	"timeout", "nohup", "nice", "command", "stdbuf", "time", "builtin", "noglob", "doas",
}

// ExecWrappers are the entries of Launchers that are wrappers Claude Code
// strips or sees through before matching rules (rather than the seed's
// interpreters and package runners): the set a test holds to the pinned
// binary's own list.
var ExecWrappers = []string{"timeout", "nohup", "nice", "command", "stdbuf", "time", "builtin", "noglob", "doas", "env", "sudo"}

// commandOptions holds, per command name, the options of its launcher
// forms that take the next word as their value, and whether assignments or
// `+` options may precede the operand. They come from each command's own
// documentation (python(1), node(1), ruby(1), perlrun, php(1), bash(1),
// zsh(1), about_Pwsh, npm-exec(1), bun x, pnpm dlx/exec, uv run / uv tool
// run, pipx run, docker run / exec and the docker CLI's global options,
// GNU xargs(1), GNU env(1), sudo(8)), reviewed 2026-12-01. An option
// missing here is still an option (any word starting with a dash is); only
// an option's separate value word is lost, and a rule that fixes that
// value keeps its prior rating (see docs/checks.md).
var commandOptions = map[string]lattice.Launcher{
	"python":  {ValueOptions: []string{"-W", "-X", "--check-hash-based-pycs"}},
	"python3": {ValueOptions: []string{"-W", "-X", "--check-hash-based-pycs"}},
	"node": {ValueOptions: []string{"-r", "--require", "--import", "--loader", "--experimental-loader",
		"--input-type", "-C", "--conditions", "--env-file", "--title", "--inspect-port"}},
	"ruby": {ValueOptions: []string{"-I", "-r", "-C", "-E", "--encoding"}},
	"perl": {ValueOptions: []string{"-I"}},
	"php":  {ValueOptions: []string{"-c", "-d", "-z"}},
	"bash": {ValueOptions: []string{"-o", "-O", "--rcfile", "--init-file"}, PlusOptions: true},
	"sh":   {ValueOptions: []string{"-o"}, PlusOptions: true},
	"zsh":  {ValueOptions: []string{"-o"}, PlusOptions: true},
	"pwsh": {ValueOptions: []string{"-ExecutionPolicy", "-ep", "-ex", "-WorkingDirectory", "-wd", "-OutputFormat", "-of",
		"-InputFormat", "-if", "-WindowStyle", "-w", "-ConfigurationName", "-config", "-SettingsFile", "-settings"}},
	"npx":  {ValueOptions: []string{"-p", "--package", "-c", "--call", "-w", "--workspace"}},
	"bunx": {ValueOptions: []string{"-p", "--package"}},
	"pnpm": {ValueOptions: []string{"--package", "-C", "--dir", "-F", "--filter", "--reporter"}},
	"uvx": {ValueOptions: []string{"--from", "--with", "-w", "--with-editable", "--with-requirements", "-p", "--python",
		"--directory", "--project", "--env-file", "--index", "--index-url", "--default-index", "--extra-index-url",
		"--cache-dir", "--config-file"}},
	"uv": {ValueOptions: []string{"--from", "--with", "-w", "--with-editable", "--with-requirements", "-p", "--python",
		"--directory", "--project", "--env-file", "--index", "--index-url", "--default-index", "--extra-index-url",
		"--cache-dir", "--config-file", "--extra", "--group", "--package"}},
	"pipx": {ValueOptions: []string{"--spec", "--python", "--pip-args", "--index-url"}},
	"docker": {ValueOptions: []string{
		// global options
		"-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey",
		// docker run / docker exec
		"-a", "--attach", "--add-host", "--blkio-weight", "--cap-add", "--cap-drop", "--cgroup-parent", "--cidfile",
		"--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--detach-keys", "--device", "--dns",
		"--dns-option", "--dns-search", "--domainname", "-e", "--env", "--env-file", "--entrypoint", "--expose",
		"--gpus", "--group-add", "--health-cmd", "--health-interval", "--health-retries", "--health-timeout",
		"-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--label", "--label-file", "--link",
		"--log-driver", "--log-opt", "--mac-address", "-m", "--memory", "--memory-swap", "--mount", "--name",
		"--network", "--net", "--network-alias", "--pid", "--platform", "-p", "--publish", "--pull", "--restart",
		"--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt",
		"--sysctl", "--tmpfs", "-u", "--user", "--ulimit", "--userns", "--uts", "-v", "--volume",
		"--volumes-from", "-w", "--workdir"}},
	"xargs": {ValueOptions: []string{"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args",
		"-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}},
	"env": {ValueOptions: []string{"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}, Assignments: true},
	"sudo": {ValueOptions: []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir",
		"-h", "--host", "-p", "--prompt", "-R", "--chroot", "-r", "--role", "-t", "--type", "-T",
		"--command-timeout", "-U", "--other-user"}, Assignments: true},
	"doas":    {ValueOptions: []string{"-u", "-C"}},
	"timeout": {ValueOptions: []string{"-s", "--signal", "-k", "--kill-after"}, Positionals: 1},
	"nice":    {ValueOptions: []string{"-n", "--adjustment"}},
	"stdbuf":  {ValueOptions: []string{"-i", "--input", "-o", "--output", "-e", "--error"}},
}

// TierMatch says why a rule is in the exec-equivalent tier.
type TierMatch struct {
	// Launcher is the table entry whose operand the rule leaves
	// selectable; empty when Undecided and no entry was found.
	Launcher string
	// Entry is true for the entry itself (`Bash(npx *)`, `Bash(npx:*)`).
	Entry bool
	// Sure says every reading of the rule leaves the operand selectable;
	// false when only one reading of an ambiguous rule does (a rule Claude
	// Code may read as a launcher grant is rated as one).
	Sure bool
	// Undecided says the decision ran out of work (a pathological pattern):
	// the rule is rated as the tier, failing closed.
	Undecided bool
	// Display is the rule as evidence shows it, never copied from the
	// declaration: the canonical table text for an entry (`Bash(npx *)`);
	// for a single-trailing-star rule wider than an entry, its own
	// trailing-star text sliced from the entry (`Bash(n*)`); for any other
	// rule the entry's words and `<redacted-arguments>` (`Bash(npx
	// <redacted-arguments>)` for `Bash(npx -y *)`), so flags, fixed words and
	// tails are not disclosed; for an undecided rule the redacted rule.
	Display string
	// Family is the family of commands with distinct operand words behind
	// the decision (lattice.OperandFamily); it holds the rule's own text and
	// is not evidence.
	Family lattice.OperandFamily
}

// Tier reports whether a Bash allow rule is in the exec-equivalent tier:
// for some launcher of the table (and of the policy's extra launchers),
// what the rule matches leaves the launcher's code, command or package
// operand selectable — for one fixed flag context and one fixed tail,
// infinitely many operand words (lattice.Launcher.Operand decides it on the
// automata). Entries (`Bash(npx *)`), wider rules (`Bash(n*)`), flags before
// the operand (`Bash(npx -y *)`, `Bash(sudo -u x *)`) and fixed tails
// (`Bash(npx * --help)`) are in; fixed operands (`Bash(npx prettier *)`,
// `Bash(python3 -c foo *)`) are not. Lowercase and padded spellings are
// rated too (a rule Claude Code may read as Bash). The whole tool keeps its
// own rating in Rule; ask and deny rules are never in the tier. A decision
// that runs out of work answers in the tier with Undecided set.
func (rt Rater) Tier(r lattice.Rule) (TierMatch, bool) {
	return rt.TierContext(context.Background(), r)
}

// TierContext is Tier under a context that may end the decision early (it
// then fails closed: in the tier, Undecided).
func (rt Rater) TierContext(ctx context.Context, r lattice.Rule) (TierMatch, bool) {
	if r.List != lattice.Allow || !r.HasSpecifier || !strings.EqualFold(strings.TrimSpace(r.Tool), "Bash") {
		return TierMatch{}, false
	}
	if r.Malformed != "" || r.Dead() {
		return TierMatch{}, false
	}
	budget := rt.Budget
	if budget <= 0 {
		budget = DefaultTierBudget
	}
	undecided := false
	for _, text := range rt.ordered(r) {
		e := entryFor(text)
		// Excludes needs only the launcher's words: a launcher the rule's
		// literal prefix rules out never has its automata built (a
		// one-shot `shipgate check` would otherwise build every table
		// entry's template for its first Bash rule).
		if !e.ok || e.parsed.Excludes(r) {
			continue
		}
		l := e.prepared()
		if budget <= 0 {
			undecided = true
			break
		}
		v := l.Operand(ctx, r, budget)
		budget -= v.Spent
		if v.Answer == lattice.No || (v.Answer == lattice.Unknown && v.Family.Loop == "") {
			undecided = undecided || v.Undecided
			continue
		}
		m := TierMatch{Launcher: l.String(), Sure: v.Answer == lattice.Yes, Undecided: v.Undecided, Family: v.Family}
		m.Display, m.Entry = display(r, l.String())
		return m, true
	}
	if undecided {
		return TierMatch{Undecided: true, Display: Redact(r)}, true
	}
	return TierMatch{}, false
}

// DefaultTierBudget is the work one tier decision spends at most across
// the whole table, in the lattice's steps (see lattice.Budget and
// lattice.Launcher.Operand): a few tens of milliseconds at worst. Realistic
// shapes need at most a few thousand, a 1,000-character literal rule about
// 50,000 (BenchmarkTierSteps); a rule that needs more is rated as the tier,
// failing closed.
const DefaultTierBudget = 2_000_000

// ordered lists the launchers to try for a rule: an entry the rule spells
// first, then entries whose text the rule's trailing-star stem is a prefix
// of, then entries whose words the rule starts with, then the rest, each
// group in table order, so that evidence names the entry the rule reads
// as (`Bash(node --eval *)`, `Bash(node --eval **)`: node --eval, not node -e).
func (rt Rater) ordered(r lattice.Rule) []string {
	all := rt.launchers()
	spec := normBlanks(r.Specifier)
	stem, star := stemOf(spec)
	var groups [4][]string
	for _, l := range all {
		switch {
		case star && len(stem) == len(l)+1 && stem[len(l)] == ' ' && stem[:len(l)] == l:
			groups[0] = append(groups[0], l) // the entry itself (displayStem)
		case star && stem != "" && len(stem) <= len(l) && strings.HasPrefix(l, stem):
			groups[1] = append(groups[1], l) // wider than the entry: no redaction
		case strings.HasPrefix(spec, normBlanks(l)+" "):
			groups[2] = append(groups[2], l)
		default:
			groups[3] = append(groups[3], l)
		}
	}
	return append(append(append(groups[0], groups[1]...), groups[2]...), groups[3]...)
}

// normBlanks joins the words of s with single spaces, as Claude Code
// normalises blanks; s itself when it already is so (the table's entries
// and most rules), without allocating.
func normBlanks(s string) string {
	tidy := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c >= 0x80 ||
			(c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ')) {
			tidy = false
			break
		}
	}
	if tidy {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// display renders a tier rule for evidence from the table text alone, and
// says whether the rule is the entry itself.
func display(r lattice.Rule, entry string) (string, bool) {
	stem, star := stemOf(normBlanks(r.Specifier)) // as Claude Code normalises blanks
	return displayStem(stem, star, entry)
}

// stemOf is a normalised specifier's trailing-star stem, the legacy `:*`
// read as ` *`; star is false when the specifier does not end in a single
// trailing star (or has other stars or escapes).
func stemOf(spec string) (string, bool) {
	stem, ok := strings.CutSuffix(spec, "*")
	if !ok || strings.ContainsAny(stem, "*\\") {
		return "", false
	}
	if x, legacy := strings.CutSuffix(stem, ":"); legacy && x != "" && strings.TrimRight(x, " ") == x {
		stem = x + " "
	}
	return stem, true
}

// displayStem is display from the rule's stem (stemOf).
func displayStem(stem string, star bool, entry string) (string, bool) {
	if !star {
		return "Bash(" + entry + " <redacted-arguments>)", false
	}
	switch {
	case stem == entry+" ":
		return "Bash(" + entry + " *)", true
	case stem != "" && len(stem) <= len(entry)+1 && strings.HasPrefix(entry+" ", stem):
		return "Bash(" + (entry + " ")[:len(stem)] + "*)", false
	}
	return "Bash(" + entry + " <redacted-arguments>)", false
}

// launcherFor returns the lattice's launcher for a table or policy entry,
// with its command's value options and its automata built (prepared once:
// every Bash rule the launcher does not exclude asks about it).
func launcherFor(text string) (lattice.Launcher, bool) {
	e := entryFor(text)
	if !e.ok {
		return e.parsed, false
	}
	return e.prepared(), true
}

// launcherEntry is a table or policy entry's launcher: parsed, with its
// command's value options, at once; its automata built on first use.
type launcherEntry struct {
	parsed lattice.Launcher
	ok     bool
	once   sync.Once
	ready  lattice.Launcher
}

// prepared returns the entry's launcher with its automata built, building
// them on the first call.
func (e *launcherEntry) prepared() lattice.Launcher {
	e.once.Do(func() { e.ready = e.parsed.Prepared() })
	return e.ready
}

// entryFor returns the cached entry for a launcher's text, parsing it on
// first use.
func entryFor(text string) *launcherEntry {
	if e, ok := entries.Load(text); ok {
		return e.(*launcherEntry)
	}
	l, ok := lattice.ParseLauncher(text)
	if ok {
		opts := commandOptions[l.Words[0]]
		l.ValueOptions, l.Assignments, l.PlusOptions, l.Positionals = opts.ValueOptions, opts.Assignments, opts.PlusOptions, opts.Positionals
	}
	e := &launcherEntry{parsed: l, ok: ok}
	if int64(len(Launchers))+maxPreparedExtra > preparedCount.Add(1) {
		got, _ := entries.LoadOrStore(text, e)
		return got.(*launcherEntry)
	}
	return e
}

// entries caches launchers by their text; maxPreparedExtra bounds what
// policies add to it (a hostile policy cannot grow it without end).
var (
	entries          sync.Map
	preparedCount    atomic.Int64
	maxPreparedExtra = int64(256)
)

// launchers is the table with the policy's extra prefixes.
func (rt Rater) launchers() []string {
	if len(rt.Extra) == 0 {
		return Launchers
	}
	out := append([]string(nil), Launchers...)
	for _, e := range rt.Extra {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
