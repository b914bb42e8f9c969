package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// CodexCase is one execpolicy question: a set of .rules files loaded
// together and the argv to decide.
type CodexCase struct {
	Class string
	// Files are the rules files' contents, loaded with one --rules each.
	Files []string
	Argv  []string
}

// CodexClasses are the corpus classes, in report order.
var CodexClasses = []string{
	"plain", "alternatives", "starlark", "examples", "strictest", "tokens", "canonical", "invalid",
}

// codexWords are the tokens rules and commands are drawn from: a few
// programs, subcommands and flags, and tokens with blanks, quotes,
// backslashes, case variants and an empty one.
var codexWords = []string{
	"git", "npm", "pnpm", "npx", "rm", "ls", "cargo", "status", "log", "push", "test", "run",
	"-rf", "-r", "--force", "origin", "main", "build", "Git", "GIT", "a b", `it's`, `say "hi"`,
	`back\slash`, "", "é", "x;y", "$HOME", "*",
}

// GenerateCodex makes about n execpolicy decisions from a seed (the same
// seed, the same corpus), spread over CodexClasses.
func GenerateCodex(seed uint64, n int) []CodexCase {
	rng := rand.New(rand.NewPCG(seed, 0x636f646578))
	var out []CodexCase
	round := 0
	for len(out) < n {
		class := CodexClasses[round%len(CodexClasses)]
		round++
		reps := 1
		if class == "invalid" {
			reps = 6 // one decision each: the load fails or not
		}
		for r := 0; r < reps; r++ {
			g := codexGen{rng: rng}
			files := g.files(class)
			queries := g.queries()
			if class == "invalid" {
				queries = queries[:1]
			}
			for _, q := range queries {
				out = append(out, CodexCase{Class: class, Files: files, Argv: q})
			}
		}
	}
	return out
}

type codexGen struct {
	rng *rand.Rand
	// patterns are the generated rules' token lists (alternatives per
	// position), for deriving queries.
	patterns [][][]string
	// canonical marks patterns matched case-insensitively.
	canonical []bool
}

func (g *codexGen) word(class string) string {
	switch class {
	case "tokens":
		return codexWords[g.rng.IntN(len(codexWords))]
	case "canonical":
		return []string{"git", "Git", "GIT", "status", "STATUS", "npm", "Test", "test"}[g.rng.IntN(8)]
	}
	return codexWords[g.rng.IntN(17)]
}

// lit is a Starlark string literal for s.
func starLit(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g *codexGen) pattern(class string) [][]string {
	n := 1 + g.rng.IntN(3)
	var p [][]string
	for i := 0; i < n; i++ {
		k := 1
		if class == "alternatives" || class == "strictest" || g.rng.IntN(5) == 0 {
			k = 1 + g.rng.IntN(3)
		}
		var alts []string
		for j := 0; j < k; j++ {
			alts = append(alts, g.word(class))
		}
		p = append(p, alts)
	}
	return p
}

func patternText(p [][]string, nested bool) string {
	var parts []string
	for _, alts := range p {
		if len(alts) == 1 && !nested {
			parts = append(parts, starLit(alts[0]))
			continue
		}
		var q []string
		for _, a := range alts {
			q = append(q, starLit(a))
		}
		parts = append(parts, "["+strings.Join(q, ", ")+"]")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (g *codexGen) decision() string {
	switch g.rng.IntN(4) {
	case 0:
		return ""
	case 1:
		return `, decision="allow"`
	case 2:
		return `, decision="prompt"`
	}
	return `, decision="forbidden"`
}

// codexQuote quotes a token for an example string.
func codexQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " '\"\\$;*#\t") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func (g *codexGen) rule(class string) string {
	p := g.pattern(class)
	canon := class == "canonical" && g.rng.IntN(2) == 0
	g.patterns = append(g.patterns, p)
	g.canonical = append(g.canonical, canon)
	s := "prefix_rule(pattern=" + patternText(p, g.rng.IntN(4) == 0) + g.decision()
	if canon {
		s += ", canonical_matching=True"
	} else if class == "canonical" {
		s += ", canonical_matching=False"
	}
	if class == "examples" {
		inst := make([]string, len(p))
		for i, alts := range p {
			inst[i] = alts[g.rng.IntN(len(alts))]
		}
		switch g.rng.IntN(6) {
		case 0: // a matching string example, with an extra word
			var q []string
			for _, t := range inst {
				q = append(q, codexQuote(t))
			}
			s += fmt.Sprintf(", match=[%s]", starLit(strings.Join(q, " ")+" extra"))
		case 1: // a matching list example
			var q []string
			for _, t := range inst {
				q = append(q, starLit(t))
			}
			s += ", match=[[" + strings.Join(q, ", ") + "]]"
		case 2: // a not_match example that is too short or another word
			s += fmt.Sprintf(", not_match=[%s]", starLit("zzz "+codexQuote(inst[0])))
		case 3: // a match example that does not match (load fails)
			s += `, match=["zzz other"]`
		case 4: // a not_match example that matches (load fails)
			s += fmt.Sprintf(", not_match=[%s]", starLit(strings.Join(inst, " ")))
		case 5: // an example with invalid shell syntax or empty
			s += []string{`, match=["git 'unterminated"]`, `, match=[""]`, `, match=[[]]`, `, not_match=["a\\"]`}[g.rng.IntN(4)]
		}
	}
	if g.rng.IntN(6) == 0 {
		s += `, justification="reviewed"`
	}
	return s + ")"
}

func (g *codexGen) file(class string) string {
	var lines []string
	n := 1 + g.rng.IntN(3)
	for i := 0; i < n; i++ {
		lines = append(lines, g.rule(class))
	}
	if class == "starlark" {
		// Loops, functions, comprehensions and variables building rules.
		subs := []string{g.word(class), g.word(class), g.word(class)}
		prog := g.word(class)
		dec := []string{"allow", "prompt", "forbidden"}[g.rng.IntN(3)]
		var q []string
		for _, s := range subs {
			q = append(q, starLit(s))
		}
		g.patterns = append(g.patterns, [][]string{{prog}, subs})
		g.canonical = append(g.canonical, false)
		switch g.rng.IntN(4) {
		case 0:
			lines = append(lines, fmt.Sprintf("SUBS = [%s]\nfor s in SUBS:\n    prefix_rule(pattern=[%s, s], decision=%q)", strings.Join(q, ", "), starLit(prog), dec))
		case 1:
			lines = append(lines, fmt.Sprintf("def rule(*toks, decision=%q):\n    prefix_rule(pattern=list(toks), decision=decision)\n[rule(%s, s) for s in [%s]]", dec, starLit(prog), strings.Join(q, ", ")))
		case 2:
			lines = append(lines, fmt.Sprintf("P = %s\nprefix_rule(pattern=[P, [%s]], decision=%q)", starLit(prog), strings.Join(q, ", "), dec))
		case 3:
			lines = append(lines, fmt.Sprintf("x = 1\nx = 2\nif x == 2:\n    for s in [%s]:\n        prefix_rule(pattern=[%s] + [s], decision=%q)", strings.Join(q, ", "), starLit(prog), dec))
		}
	}
	if class == "invalid" {
		bad := []string{
			`prefix_rule(pattern=["git"], decision="deny")`,
			`prefix_rule(pattern=[])`,
			`prefix_rule(pattern=["git", []])`,
			`prefix_rule(pattern="git status")`,
			`prefix_rule(pattern=["git"], justification="")`,
			`prefix_rule(pattern=["git"], foo=1)`,
			`load("other.rules", "x")`,
			`prefix_rule(pattern=["git"], decision=None)`,
			`print("x")`,
			"i = 0\nwhile i < 2:\n    i += 1",
			`prefix_rule(pattern=["git"]`,
			`prefix_rule(pattern=["git", 1])`,
			`prefix_rule(["git"], "prompt")`,
			`prefix_rule(pattern=("git",))`,
			`network_rule(host="*.example.com", protocol="https", decision="allow")`,
			`network_rule(host="example.com", protocol="ftp", decision="allow")`,
			`network_rule(host="example.com", protocol="https", decision="prompt")`,
			`host_executable(name="git", paths=["git"])`,
			`host_executable(name="git", paths=["/usr/bin/git"])`,
			`fail("no")`,
			`x = 1 // 0`,
			`s = set([1])`,
			"def f(n):\n    if n > 0:\n        f(n - 1)\nf(3)",
			`prefix_rule(pattern=["git"], decision="Allow")`,
		}
		lines = append(lines, bad[g.rng.IntN(len(bad))])
	}
	return strings.Join(lines, "\n") + "\n"
}

func (g *codexGen) files(class string) []string {
	n := 1
	if class == "strictest" {
		n = 2 + g.rng.IntN(2)
	}
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, g.file(class))
	}
	return out
}

// queries derives argv from the generated patterns: an instance of a
// pattern, one word short, one longer, with a token's case or spelling
// changed, and an unrelated command.
func (g *codexGen) queries() [][]string {
	var out [][]string
	for i, p := range g.patterns {
		inst := make([]string, len(p))
		for j, alts := range p {
			inst[j] = alts[g.rng.IntN(len(alts))]
		}
		out = append(out, inst)
		out = append(out, append(append([]string(nil), inst...), "extra"))
		if len(inst) > 1 {
			out = append(out, inst[:len(inst)-1])
		}
		mut := append([]string(nil), inst...)
		k := g.rng.IntN(len(mut))
		switch g.rng.IntN(3) {
		case 0:
			mut[k] = strings.ToUpper(mut[k])
		case 1:
			mut[k] += "x"
		case 2:
			if g.canonical[i] {
				mut[k] = strings.ToLower(mut[k])
			} else {
				mut[k] = "/usr/bin/" + mut[k]
			}
		}
		out = append(out, mut)
	}
	out = append(out, []string{"unrelated", "cmd"})
	return out
}
