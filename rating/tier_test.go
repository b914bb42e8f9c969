package rating

import (
	"context"
	"flag"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

var tierSeed = flag.Uint64("rating.seed", 20261201, "seed of the generated rules (tier property tests)")

// tierRow is one expected tier decision.
type tierRow struct {
	rule     string
	tier     bool
	evidence string // checked when set
	unsure   bool   // in the tier through one reading only (Sure false)
}

// TestTierRows holds every example of issue 9, the task and the seed, with
// the evidence each shows.
func TestTierRows(t *testing.T) {
	rows := []tierRow{
		// Issue 9: launcher grants that dodged the block.
		{"Bash(npx -y *)", true, "Bash(npx <redacted-arguments>)", false},
		{"Bash(npx **)", true, "Bash(npx <redacted-arguments>)", false},
		{"Bash(npx * *)", true, "Bash(npx <redacted-arguments>)", false},
		{"Bash(python3 -c **)", true, "Bash(python3 -c <redacted-arguments>)", false},
		{"Bash(sudo **)", true, "Bash(sudo <redacted-arguments>)", false},
		{"Bash(docker run --rm -it *)", true, "Bash(docker run <redacted-arguments>)", false},
		{"Bash(env -i *)", true, "Bash(env <redacted-arguments>)", false},
		{"Bash(uvx *@*)", true, "Bash(uvx <redacted-arguments>)", false},
		// The task's examples: flags before the operand, a fixed tail.
		{"Bash(npx * --help)", true, "Bash(npx <redacted-arguments>)", false},
		{"Bash(docker run --rm *)", true, "Bash(docker run <redacted-arguments>)", false},
		// Entries.
		{"Bash(npx *)", true, "Bash(npx *)", false},
		{"Bash(npx:*)", true, "Bash(npx *)", false},
		{"Bash(node --eval *)", true, "Bash(node --eval *)", false},
		{"Bash(perl -E:*)", true, "Bash(perl -E *)", false},
		// The seed's wider rules: evidence sliced from the entry.
		{"Bash(python3 *)", true, "Bash(python3 *)", false},
		{"Bash(python3:*)", true, "Bash(python3 *)", false},
		{"Bash(docker *)", true, "Bash(docker *)", false},
		{"Bash(docker:*)", true, "Bash(docker *)", false},
		{"Bash(npx*)", true, "Bash(npx*)", false},
		{"Bash(python3 -c*)", true, "Bash(python3 -c*)", false},
		{"Bash(n*)", true, "Bash(n*)", false},
		{"Bash(e*)", true, "Bash(e*)", false},
		{"Bash(p*)", true, "Bash(p*)", false},
		{"Bash(uv *)", true, "Bash(uv *)", false},
		{"Bash(pnpm *)", true, "Bash(pnpm *)", false},
		{"Bash(node *)", true, "Bash(node *)", false},
		// Blanks inside a rule are normalised (Claude Code 2.1.328): the entry.
		{"Bash( uv * )", true, "Bash(uv *)", false},
		{"Bash(npx  *)", true, "Bash(npx *)", false},
		{"Bash(npx\t*)", true, "Bash(npx *)", false},
		// A rule with two readings is rated as the one in the tier.
		{"Bash(npx :*)", false, "", false}, // a blank before :* matches nothing (measured: lattice TestBlankBeforeLegacyPrefix)
		// Claude Code 2.1.328 skips a miscased tool name: the rule grants nothing.
		{"bash(docker *)", false, "", false},
		// Operands a star leaves open are selectable even with fixed text
		// around them: the code "foo…", the package "prettier…".
		{"Bash(python3 -c foo*)", true, "Bash(python3 -c <redacted-arguments>)", false},
		{"Bash(npx prettier*)", true, "Bash(npx <redacted-arguments>)", false},
		{"Bash(python3 -c \"*\")", true, "Bash(python3 -c <redacted-arguments>)", false},
		// Flags and option values before the operand; none is disclosed.
		{"Bash(sudo -u private-user *)", true, "Bash(sudo <redacted-arguments>)", false},
		{"Bash(sudo -u root -- *)", true, "Bash(sudo <redacted-arguments>)", false},
		{"Bash(env FOO=1 BAR=2 *)", true, "Bash(env <redacted-arguments>)", false},
		{"Bash(env -u HOME *)", true, "Bash(env <redacted-arguments>)", false},
		{"Bash(npx --package private-pkg *)", true, "Bash(npx <redacted-arguments>)", false},
		{"Bash(docker -H tcp://h run *)", true, "Bash(docker run <redacted-arguments>)", false},
		{"Bash(docker run -v /:/host -e X=1 *)", true, "Bash(docker run <redacted-arguments>)", false},
		{"Bash(docker -H run run *)", true, "Bash(docker run <redacted-arguments>)", false}, // host "run"
		{"Bash(xargs -n 1 *)", true, "Bash(xargs <redacted-arguments>)", false},
		{"Bash(uv run --with private-pkg *)", true, "Bash(uv run <redacted-arguments>)", false},
		{"Bash(bash +e -c *)", true, "Bash(bash -c <redacted-arguments>)", false},
		{"Bash(python3 -I -c *)", true, "Bash(python3 -c <redacted-arguments>)", false},
		{"Bash(python3 * -c *)", true, "Bash(python3 -c <redacted-arguments>)", false},
		// A star before fixed text leaves the word it stands for open:
		// `p* -c *` surely matches `python3 -c <code>` (decided here, where
		// the seed's prefix test could not: see docs/checks.md).
		{"Bash(p* -c *)", true, "Bash(python -c <redacted-arguments>)", false},
		{"Bash(sudo * root *)", true, "Bash(sudo <redacted-arguments>)", false},
		// Flags are not interpreted: these surely match `bash -e -c <code>`,
		// `ruby -c -e <code>`, `python -e -c <code>` (fail closed).
		{"Bash(bash -e *)", true, "Bash(bash -c <redacted-arguments>)", false},
		{"Bash(ruby -c *)", true, "Bash(ruby -e <redacted-arguments>)", false},
		{"Bash(python -e *)", true, "Bash(python -c <redacted-arguments>)", false},

		// Fixed operands stay outside (the seed), whatever surrounds them.
		{"Bash(npx prettier *)", false, "Bash(<redacted-arguments>)", false},
		{"Bash(npx -y prettier *)", false, "", false},
		{"Bash(npx prettier --check .)", false, "Bash(<redacted-arguments>)", false},
		{"Bash(python3 -c foo *)", false, "", false},
		{"Bash(python3 -c 'print(1)' *)", false, "", false},
		{"Bash(docker run --rm alpine *)", false, "", false},
		{"Bash(docker exec my-container *)", false, "", false},
		{"Bash(sudo -u root ls *)", false, "", false},
		{"Bash(npx private-package *)", false, "Bash(<redacted-arguments>)", false},
		{"Bash(env CI=1 npm test *)", false, "", false},
		{"Bash(xargs grep *)", false, "", false},
		// Not a launcher.
		{"Bash(n *)", false, "Bash(<redacted-arguments>)", false},
		{"Bash(n:*)", false, "", false},
		{"Bash(npm *)", false, "", false},
		{"Bash(npm test *)", false, "Bash(<redacted-arguments>)", false},
		{"Bash(find *)", false, "", false},
		{"Bash(make *)", false, "", false},
		{"Bash(sed *)", false, "", false},
		{"Bash(gh api *)", false, "", false},
		{"Bash(git * main)", false, "", false},
		{"Bash(python3 -m pytest *)", false, "", false},
		{"Bash(node script.js *)", false, "", false},
		{"Bash(docker inspect *)", false, "", false},
		{"Bash(docker ps)", false, "", false},
		{"Bash(npx)", false, "", false},
		{"Bash(python3 -c)", false, "", false},
		// The table is bounded: no executable identity through paths, case
		// or quoting.
		{"Bash(./npx *)", false, "", false},
		{"Bash(/usr/bin/npx *)", false, "", false},
		{"Bash(NPX *)", false, "", false},
		{`Bash("npx" *)`, false, "", false},
		// Malformed rules and other tools abstain.
		{"Bash(npx *", false, "", false},
		{"Bash(npx *))", false, "", false},
		{"Bash(npx *)suffix", false, "", false},
		{"Bash(python3 *", false, "", false},
		{"Bash(n*)suffix", false, "", false},
		{"Read(npx *)", false, "", false},
		{"Read(p*)", false, "", false},
		{"Shell(npx *)", false, "", false},
	}
	checkTierRows(t, Rater{}, rows)
	// Negatives that are well-formed Bash rules keep execute/medium.
	var rt Rater
	for _, s := range []string{"Bash(n *)", "Bash(npm *)", "Bash(python3 -c foo *)", "Bash(npx prettier *)"} {
		if got := rt.Rule(lattice.Parse(s)); got.Access != AccessExecute || got.Risk != RiskMedium {
			t.Errorf("%s = %+v, want execute/medium", s, got)
		}
	}
}

func checkTierRows(t *testing.T, rt Rater, rows []tierRow) {
	t.Helper()
	for _, c := range rows {
		r := lattice.Parse(c.rule)
		m, in := rt.Tier(r)
		if in != c.tier {
			t.Errorf("Tier(%s) = %v (%+v), want %v", c.rule, in, m, c.tier)
			continue
		}
		got := rt.Rule(r)
		if c.tier {
			if got.Risk != RiskCritical || got.Access != AccessAdmin || !got.ExecTier || !got.Wildcard {
				t.Errorf("%s rated %+v", c.rule, got)
			}
			if m.Undecided {
				t.Errorf("%s undecided: %+v", c.rule, m)
			}
			if m.Sure == c.unsure {
				t.Errorf("%s: Sure = %v", c.rule, m.Sure)
			}
		} else if got.ExecTier {
			t.Errorf("%s is in the tier", c.rule)
		}
		if c.evidence != "" && got.Evidence != c.evidence {
			t.Errorf("%s evidence %q, want %q", c.rule, got.Evidence, c.evidence)
		}
	}
}

// TestTierEveryLauncher: for every launcher of the table, the entry in both
// spellings, wider rules, flags and option values before the operand and a
// fixed tail are in; a fixed operand, the exact launcher and a longer
// command name are out.
func TestTierEveryLauncher(t *testing.T) {
	for _, text := range Launchers {
		l, ok := launcherFor(text)
		if !ok {
			t.Fatalf("table entry %q does not parse", text)
		}
		ws := l.Words
		marker := len(ws) > 1 && strings.HasPrefix(ws[len(ws)-1], "-")
		// pos is the operands the launcher reads before the command it
		// runs (timeout's duration).
		pos := strings.Repeat(" 5", l.Positionals)
		// withFlags puts flag text where the launcher's grammar allows it:
		// after the words, or before the marker.
		withFlags := func(flags string) string {
			if marker {
				return strings.Join(ws[:len(ws)-1], " ") + " " + flags + " " + ws[len(ws)-1]
			}
			return text + " " + flags
		}
		rows := []tierRow{
			{"Bash(" + text + " *)", true, "Bash(" + text + " *)", false},
			{"Bash(" + text + ":*)", true, "Bash(" + text + " *)", false},
			{"Bash(" + text + "*)", true, "Bash(" + text + "*)", false},
			{"Bash(" + text + " **)", true, "Bash(" + text + " <redacted-arguments>)", false},
			{"Bash(" + text + " * --help)", true, "Bash(" + text + " <redacted-arguments>)", false},
			{"Bash(" + ws[0] + " *)", true, "", false},
			{"Bash(" + withFlags("-q") + " *)", true, "", false},
			{"Bash(" + withFlags("--quiet -q") + " *)", true, "", false},
			{"Bash(" + text + pos + " fixed-operand *)", false, "", false},
			{"Bash(" + text + pos + " fixed-operand)", false, "", false},
			{"Bash(" + text + ")", false, "", false},
			{"Bash(" + ws[0] + "x" + strings.TrimPrefix(text, ws[0]) + " *)", false, "", false},
		}
		if len(l.ValueOptions) > 0 {
			opt := l.ValueOptions[0]
			rows = append(rows, tierRow{"Bash(" + withFlags(opt+" some-value") + " *)", true, "", false})
		}
		if l.Positionals > 0 {
			// The duration is not the operand: the command after it is.
			rows = append(rows, tierRow{"Bash(" + text + " 5 *)", true, "Bash(" + text + " <redacted-arguments>)", false})
		}
		if !marker {
			// A dash word is an option, not the operand.
			rows = append(rows, tierRow{"Bash(" + text + " -fixed *)", true, "", false})
		}
		t.Run(text, func(t *testing.T) { checkTierRows(t, Rater{}, rows) })
	}
}

// TestExtraLaunchers: a policy's launchers go through the same criterion.
func TestExtraLaunchers(t *testing.T) {
	rt := Rater{Extra: []string{"npm exec", "yarn dlx", " ", "bad*"}}
	checkTierRows(t, rt, []tierRow{
		{"Bash(npm exec *)", true, "Bash(npm exec *)", false},
		{"Bash(npm exec:*)", true, "Bash(npm exec *)", false},
		{"Bash(npm *)", true, "Bash(npm *)", false},
		{"Bash(yarn *)", true, "Bash(yarn *)", false},
		{"Bash(npm exec -y *)", true, "Bash(npm exec <redacted-arguments>)", false},
		{"Bash(npm --workspaces exec *)", true, "Bash(npm exec <redacted-arguments>)", false},
		// A policy launcher's command has no value-option table: a fixed
		// word after an option is its operand.
		{"Bash(npm -w pkg exec *)", false, "", false},
		{"Bash(yarn dlx * --help)", true, "Bash(yarn dlx <redacted-arguments>)", false},
		{"Bash(npm test *)", false, "", false},
		{"Bash(npm exec prettier *)", false, "", false},
		{"Bash(yarn dlx create-app *)", false, "", false},
	})
	var plain Rater
	if _, in := plain.Tier(lattice.Parse("Bash(npm *)")); in {
		t.Errorf("Bash(npm *) is in the seed's tier")
	}
}

// TestTierFailsClosed: a decision that runs out of work, or whose context
// ends, rates the rule as the tier (critical, block), saying why.
func TestTierFailsClosed(t *testing.T) {
	r := lattice.Parse("Bash(docker run --rm alpine *)")
	tiny := Rater{Budget: 3}
	m, in := tiny.Tier(r)
	if !in || !m.Undecided || m.Display != "Bash(<redacted-arguments>)" {
		t.Fatalf("tiny budget: %v %+v", in, m)
	}
	got := tiny.Rule(r)
	if got.Risk != RiskCritical || !got.ExecTier || !strings.Contains(got.Basis, "too complex") {
		t.Errorf("tiny budget rated %+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A cancelled context is noticed at the first automaton step: a rule
	// that needs the automata fails closed.
	hard := lattice.Parse("Bash(docker run " + strings.Repeat("-a b ", 40) + "alpine *)")
	if m, in := (Rater{}).TierContext(ctx, hard); !in || !m.Undecided {
		t.Errorf("cancelled: %v %+v", in, m)
	}
	// With the default budget the same rules are decided (outside).
	for _, x := range []lattice.Rule{r, hard} {
		if m, in := (Rater{}).Tier(x); in {
			t.Errorf("%s: %+v", x.Text, m)
		}
	}
}

// TestTierEvidenceNeverDiscloses: a tier rule's evidence is built from the
// table text, never from the declaration's arguments.
func TestTierEvidenceNeverDiscloses(t *testing.T) {
	var rt Rater
	for _, s := range []string{"Bash(sudo -u s3cr3t *)", "Bash(npx --package s3cr3t *)", "Bash(env TOKEN=s3cr3t *)",
		"Bash(python3 -c s3cr3t*)", "Bash(npx s3cr3t*)", "Bash(docker run -e K=s3cr3t *)", "Bash(uvx *s3cr3t*)",
		"Bash(npx * s3cr3t)", "Bash(docker -H s3cr3t run *)"} {
		got := rt.Rule(lattice.Parse(s))
		if !got.ExecTier {
			t.Errorf("%s not in the tier: %+v", s, got)
		}
		if strings.Contains(got.Evidence, "s3cr3t") || strings.Contains(got.Basis, "s3cr3t") {
			t.Errorf("%s discloses its argument: %+v", s, got)
		}
	}
}

// tierGen builds random Bash rules around the launchers, with flags,
// option values, fixed words and stars, so that in- and out-of-tier rules
// are both common.
type tierGen struct{ r *rand.Rand }

var (
	genFirst = []string{"npx", "python3", "docker", "sudo", "env", "uv", "node", "n", "p", "np"}
	genMid   = []string{"-c", "-e", "run", "exec", "tool", "-y", "--rm", "-q", "-u root", "-v a:b", "--with x",
		"prettier", "foo", "FOO=1", "*", "*", "-*", "x*", "*@*"}
	genTail = []string{"", " *", ":*", "*", " --help", " * --help", " **", " * *"}
)

func (g tierGen) rule() string {
	parts := []string{genFirst[g.r.IntN(len(genFirst))]}
	for n := g.r.IntN(4); n > 0; n-- {
		parts = append(parts, genMid[g.r.IntN(len(genMid))])
	}
	return "Bash(" + strings.Join(parts, " ") + genTail[g.r.IntN(len(genTail))] + ")"
}

// freshWord is a random operand word made of letters no rule of the
// generator holds.
func (g tierGen) freshWord() string {
	const letters = "jkqzJKQZ"
	b := make([]byte, 3+g.r.IntN(6))
	for i := range b {
		b[i] = letters[g.r.IntN(len(letters))]
	}
	return string(b)
}

// TestTierFamiliesMatch: every rule declared in the tier really matches, by
// lattice.Matches, commands with many distinct operand words in the
// operand position (every reading for a sure match, one reading
// otherwise).
func TestTierFamiliesMatch(t *testing.T) {
	g := tierGen{rand.New(rand.NewPCG(*tierSeed, 1))}
	var rules []string
	for i := 0; i < 400; i++ {
		rules = append(rules, g.rule())
	}
	for _, l := range Launchers {
		rules = append(rules, "Bash("+l+" *)", "Bash("+l+" -q *)", "Bash("+l+" * --help)")
	}
	var rt Rater
	checked := 0
	for _, s := range rules {
		r := lattice.Parse(s)
		m, in := rt.Tier(r)
		if !in {
			continue
		}
		if m.Undecided {
			t.Errorf("%s undecided", s)
			continue
		}
		checked++
		f := m.Family
		if !strings.HasPrefix(f.Prefix, strings.Fields(m.Launcher)[0]+" ") || !strings.HasSuffix(f.Prefix, " ") {
			t.Errorf("%s: family prefix %q does not stand for %s", s, f.Prefix, m.Launcher)
		}
		words := map[string]bool{}
		for k := 0; k < 24; k++ {
			w := f.Word(k)
			if w == "" || strings.ContainsAny(w, " \t") || words[w] {
				t.Errorf("%s: operand word %d %q is not a new word", s, k, w)
			}
			words[w] = true
			c := lattice.Call{Tool: "Bash", Arg: f.Command(k)}
			if m.Sure && !lattice.Matches(r, c) {
				t.Errorf("%s declared in the tier (%s) but does not match %q", s, m.Launcher, c.Arg)
			}
			if !m.Sure && lattice.Match(r, c) == lattice.No {
				t.Errorf("%s declared in the tier through one reading, but no reading matches %q", s, c.Arg)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d generated rules in the tier", checked)
	}
}

// TestTierAgreesWithSampling: a rule that matches (lattice.Matches)
// `L F w T` for many fresh operand words w, for some launcher form and some
// flag context and tail, is in the tier: no launcher grant escapes the
// criterion on the generated rules.
func TestTierAgreesWithSampling(t *testing.T) {
	g := tierGen{rand.New(rand.NewPCG(*tierSeed, 2))}
	// Flag contexts as each launcher's documentation has them: options
	// anywhere, option values only after an option of the command that
	// takes one, assignments only for env and sudo.
	flagsFor := func(l lattice.Launcher) []string {
		out := []string{"", "-y ", "--rm ", "-q ", "-y -q "}
		for _, v := range []string{"-u root ", "-v a:b ", "--with x "} {
			if slices.Contains(l.ValueOptions, strings.Fields(v)[0]) {
				out = append(out, v)
			}
		}
		if l.Assignments {
			out = append(out, "FOO=1 ")
		}
		return out
	}
	tails := []string{"", " --help", " x", " * --help", " -q", " foo", " --help x"}
	var prefixes []string
	for _, text := range Launchers {
		l, _ := launcherFor(text)
		ws := l.Words
		marker := len(ws) > 1 && strings.HasPrefix(ws[len(ws)-1], "-")
		// pos is the operands the launcher reads before the command it
		// runs (timeout's duration).
		pos := strings.Repeat(" 5", l.Positionals)
		for _, f := range flagsFor(l) {
			switch {
			case marker:
				prefixes = append(prefixes, strings.Join(ws[:len(ws)-1], " ")+" "+f+ws[len(ws)-1]+" ")
			default:
				prefixes = append(prefixes, text+" "+f+strings.TrimPrefix(pos+" ", " "))
			}
		}
	}
	var rt Rater
	in, sampled := 0, 0
	for i := 0; i < 500; i++ {
		s := g.rule()
		r := lattice.Parse(s)
		var words []string
		for k := 0; k < 12; k++ {
			words = append(words, g.freshWord())
		}
		var hit string
	search:
		for _, p := range prefixes {
			for _, tail := range tails {
				all := true
				for _, w := range words {
					if !lattice.Matches(r, lattice.Call{Tool: "Bash", Arg: p + w + tail}) {
						all = false
						break
					}
				}
				if all {
					hit = p + "<w>" + tail
					break search
				}
			}
		}
		_, tier := rt.Tier(r)
		if tier {
			in++
		}
		if hit != "" {
			sampled++
			if !tier {
				t.Errorf("%s matches %q for every sampled operand word but is not in the tier", s, hit)
			}
		}
	}
	if sampled < 50 || in < sampled {
		t.Errorf("sampled %d launcher grants, %d rules in the tier", sampled, in)
	}
}

// TestTierMonotone: a rule that covers a tier rule is in the tier (a
// pull request cannot clear the block by widening).
func TestTierMonotone(t *testing.T) {
	g := tierGen{rand.New(rand.NewPCG(*tierSeed, 3))}
	var rules []lattice.Rule
	for i := 0; i < 120; i++ {
		rules = append(rules, lattice.Parse(g.rule()))
	}
	var rt Rater
	tier := make([]bool, len(rules))
	sure := make([]bool, len(rules))
	for i, r := range rules {
		m, in := rt.Tier(r)
		tier[i], sure[i] = in, in && m.Sure
	}
	pairs := 0
	for i, a := range rules {
		for j, b := range rules {
			if i == j || !sure[j] || lattice.Covers(a, b).Answer != lattice.Yes {
				continue
			}
			pairs++
			if !tier[i] {
				t.Errorf("%s covers %s (in the tier) but is not in the tier", a.Text, b.Text)
			}
		}
	}
	if pairs < 20 {
		t.Errorf("only %d covering pairs", pairs)
	}
}

// FuzzTier: the tier decision never panics, stays within its budget, and a
// rule declared surely in the tier matches its family; evidence is built
// from the table text only.
func FuzzTier(f *testing.F) {
	for _, s := range []string{"npx *", "npx -y *", "python3 -c **", "uvx *@*", "sudo -u x *", "p* -c *", "n*",
		"docker run --rm alpine *", "env A=1 *", "npx:*", "npx * --help", "*", "a\\*b *"} {
		f.Add(s)
	}
	var rt Rater
	f.Fuzz(func(t *testing.T, spec string) {
		r := lattice.Parse("Bash(" + spec + ")")
		m, in := rt.Tier(r)
		if !in || m.Undecided {
			return
		}
		ok := false
		for _, l := range Launchers {
			if m.Display == "Bash("+l+" *)" || m.Display == "Bash("+l+" <redacted-arguments>)" {
				ok = true
			}
			for n := 1; n <= len(l)+1; n++ {
				if m.Display == "Bash("+(l + " ")[:n]+"*)" {
					ok = true
				}
			}
		}
		if !ok {
			t.Errorf("evidence %q is not built from the table", m.Display)
		}
		for k := 0; k < 3; k++ {
			c := lattice.Call{Tool: "Bash", Arg: m.Family.Command(k)}
			if m.Sure && !lattice.Matches(r, c) {
				t.Errorf("%q in the tier but does not match %q", spec, c.Arg)
			}
		}
	})
}

// TestExcludedLauncherIsNotPrepared: a launcher a rule's literal prefix
// rules out is never prepared (its automata are the cost of a one-shot
// `shipgate check`'s first Bash rule), and one the rule may reach is, with
// the same verdict as an unprepared decision.
func TestExcludedLauncherIsNotPrepared(t *testing.T) {
	const extra = "zzq-excluded-launcher -c"
	rt := Rater{Extra: []string{extra}}
	built := func() bool {
		e := entryFor(extra)
		return len(e.ready.Words) > 0
	}
	for _, tc := range []struct {
		rule   string
		inTier bool
		built  bool
	}{
		{"Bash(npm test:*)", false, false},
		{"Bash(git status)", false, false},
		{"Bash(zzq-excluded-launcher --version)", false, true},
		{"Bash(zzq-excluded-launcher -c *)", true, true},
	} {
		r := lattice.Parse(tc.rule)
		_, in := rt.Tier(r)
		if in != tc.inTier {
			t.Errorf("%s: in the tier %v, want %v", tc.rule, in, tc.inTier)
		}
		if got := built(); got != tc.built {
			t.Errorf("after %s: launcher %q prepared %v, want %v", tc.rule, extra, got, tc.built)
		}
		v := entryFor(extra).parsed.Operand(context.Background(), r, 0)
		if (v.Answer == lattice.Yes) != tc.inTier {
			t.Errorf("%s: the unprepared launcher answers %v", tc.rule, v.Answer)
		}
	}
}
