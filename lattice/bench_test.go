package lattice

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// typicalPairs are comparisons the review engine makes on real settings
// files: replacements, respellings and coverage checks.
var typicalPairs = [][2]string{
	{"Bash(npm *)", "Bash(npm test:*)"},
	{"Bash(npm test:*)", "Bash(npm *)"},
	{"Bash(git *)", "Bash(git log:*)"},
	{"Bash(npx:*)", "Bash(npx *)"},
	{"Bash(gh pr view:*)", "Bash(gh pr list:*)"},
	{"Bash(uv run:*)", "Bash(uv run pytest:*)"},
	{"Read(src/**)", "Read(src/app/main.go)"},
	{"WebFetch(domain:*.github.com)", "WebFetch(domain:api.github.com)"},
	{"mcp__github", "mcp__github__get_issue"},
	{"Bash(python3 -c *)", "Bash(python3 *)"},
}

func BenchmarkCoversTypical(b *testing.B) {
	rules := make([][2]Rule, len(typicalPairs))
	for i, p := range typicalPairs {
		rules[i] = [2]Rule{Parse(p[0]), Parse(p[1])}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := rules[i%len(rules)]
		Covers(p[0], p[1])
	}
}

func BenchmarkCoversAdversarial8Star(b *testing.B) {
	x := Parse("Bash(*a*b*c*d*e*f*g*h*)")
	y := Parse("Bash(a*b*c*d*e*f*g*h)")
	z := Parse("Bash(*h*g*f*e*d*c*b*a*)")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Covers(x, y)
		Covers(y, x)
		Covers(x, z)
		Covers(z, y)
	}
}

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Parse(typicalPairs[i%len(typicalPairs)][1])
	}
}

// realisticRules returns n distinct rules shaped like those in public
// .claude/settings.json files: prefix rules over common CLIs, exact
// commands, path rules, domains and MCP tools.
func realisticRules(n int) []Rule {
	clis := []string{"git", "gh", "npm", "pnpm", "yarn", "uv", "python3", "go", "cargo", "make", "docker", "kubectl", "bazel", "pytest", "node"}
	subs := []string{"log", "show", "status", "diff", "test", "run", "build", "lint", "pr view", "pr list", "install", "exec", "get", "apply", "fmt", "vet"}
	tails := []string{":*", " *", "", " --help", " -v *"}
	var out []Rule
	add := func(s string) {
		if len(out) < n {
			out = append(out, Parse(s))
		}
	}
	for i := 0; len(out) < n; i++ {
		c := clis[i%len(clis)]
		s := subs[(i/len(clis))%len(subs)]
		t := tails[(i/(len(clis)*len(subs)))%len(tails)]
		switch i % 10 {
		case 7:
			add(fmt.Sprintf("Read(src/%s/**)", s))
		case 8:
			add(fmt.Sprintf("WebFetch(domain:%s.%s.com)", s, c))
		case 9:
			add(fmt.Sprintf("mcp__%s__%s", c, s))
		default:
			add(fmt.Sprintf("Bash(%s %s%s)", c, s, t))
		}
	}
	return out
}

// BenchmarkMatrix500 compares every pair of 500 realistic rules: 250,000
// comparisons per iteration (the target: under 2 s on one core).
func BenchmarkMatrix500(b *testing.B) {
	rules := realisticRules(500)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, x := range rules {
			for _, y := range rules {
				Covers(x, y)
			}
		}
	}
}

// BenchmarkCoversHostile: the single-pair shapes. Each is decided
// (Yes or No) or stops on the budget; the figure is the time either way.
func BenchmarkCoversHostile(b *testing.B) {
	long := strings.Repeat("abcdefghij", 1000)
	pairs := []struct {
		name string
		a, b Rule
	}{
		{"512-distinct-runes-between-stars", starRule(Allow, 512, 0), starRule(Allow, 512, 7)},
		{"128-distinct-runes-between-stars", starRule(Allow, 128, 0), starRule(Allow, 128, 1)},
		{"10000-char-literals", ParseIn(Deny, "Bash("+long+")"), Parse("Bash(" + long + ")")},
		{"10000-char-near-literal", Parse("Bash(" + long + " *)"), Parse("Bash(" + long + ")")},
		{"10000-char-prefix-star", Parse("Bash(" + long + "*)"), Parse("Bash(" + long + "x *)")},
	}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			var v Verdict
			for i := 0; i < b.N; i++ {
				v = Covers(p.a, p.b)
			}
			b.ReportMetric(float64(v.Answer), "answer(0=no,1=yes,2=unknown)")
		})
	}
}

// BenchmarkFindScaling: one added rule asked against n rules sharing its
// prefix with stars mid-pattern (Bash(git log * --flagN)), the engine's
// question for each added rule; n = 10, 100, 1,000, 10,000.
func BenchmarkFindScaling(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		none := make([]Rule, n)
		for i := range none {
			none[i] = Parse(fmt.Sprintf("Bash(git log * --flag%d)", i))
		}
		r := Parse("Bash(git log * --flag-new)")
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ctx := WithBudget(context.Background(), NewBudget(1<<62, 0))
			for i := 0; i < b.N; i++ {
				if _, ans := FindContext(ctx, []Rule{r}, none); ans != Yes {
					b.Fatal(ans)
				}
			}
		})
	}
}
