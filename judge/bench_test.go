package judge

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// benchRules makes n distinct, realistic allow rules: prefix rules over
// common CLIs, exact commands, paths, domains and MCP tools.
func benchRules(n, salt int) []string {
	clis := []string{"git", "gh", "npm", "pnpm", "yarn", "uv", "python3", "go", "cargo", "make", "docker", "kubectl", "bazel", "pytest", "node", "terraform"}
	subs := []string{"log", "show", "status", "diff", "test", "run", "build", "lint", "pr view", "pr list", "install", "get", "apply", "fmt", "vet", "check"}
	var out []string
	for i := 0; len(out) < n; i++ {
		c, s := clis[i%len(clis)], subs[(i/len(clis))%len(subs)]
		k := i / (len(clis) * len(subs))
		switch i % 9 {
		case 6:
			out = append(out, fmt.Sprintf("Read(src/%s%d/**)", s, k))
		case 7:
			out = append(out, fmt.Sprintf("WebFetch(domain:%s%d.%s.example.com)", c, k, s))
		case 8:
			out = append(out, fmt.Sprintf("mcp__%s%d__%s", c, k, s))
		default:
			out = append(out, fmt.Sprintf("Bash(%s %s%d:*)", c, s, k+salt))
		}
	}
	return out
}

// benchPair is a base with n rules and a head that widens some, adds some,
// removes some and touches the deny list: a realistic review.
func benchPair(n int) report.Input {
	base := benchRules(n, 0)
	head := append([]string(nil), base...)
	changed := max(n/20, 3)
	for i := 0; i < changed; i++ {
		head[i*7%len(head)] = benchRules(n, 1000)[i]          // replacements
		head = append(head, fmt.Sprintf("Bash(tool%d *)", i)) // additions
	}
	head = head[:len(head)-1]
	deny := []string{"Read(.env)", "Read(~/.ssh/**)", "Bash(rm -rf *)", "Bash(curl:*)"}
	b := perms{allow: base, deny: deny}.json()
	h := perms{allow: head, deny: deny[:3], ask: []string{"Bash(git push *)"}}.json()
	return settingsPair(b, h)
}

func benchCompare(b *testing.B, n int) {
	in := benchPair(n)
	b.ReportAllocs()
	var ms runtime.MemStats
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		r := Compare(in)
		if len(r.Changes) == 0 {
			b.Fatal("no changes")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms")
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MiB")
}

// BenchmarkCompare60 is a realistic 60-rule settings pair (target: under
// 2 ms of engine time).
func BenchmarkCompare60(b *testing.B) { benchCompare(b, 60) }

// BenchmarkCompare2000 is a 2,000-rule pair (target: under 200 ms).
func BenchmarkCompare2000(b *testing.B) { benchCompare(b, 2000) }

// compareBench runs Compare on one input and reports the work budget it
// spent (steps, out of lattice.DefaultTotalSteps) and the process's CPU
// time per comparison (cpu-ms; run with GOMAXPROCS=1 so that it is one
// core's, the garbage collector's included).
func compareBench(b *testing.B, in report.Input) {
	b.ReportAllocs()
	var used int64
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		bud := lattice.NewBudget(0, 0)
		if _, err := CompareContext(lattice.WithBudget(context.Background(), bud), in); err != nil {
			b.Fatal(err)
		}
		used = bud.Used()
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms")
	b.ReportMetric(float64(used), "steps")
}

// BenchmarkHostile holds the adversarial shapes, generated
// (judge/shapes_test.go), and their scaling curves: the rule counts grow
// 10, 100, 1,000, 2,000.
func BenchmarkHostile(b *testing.B) {
	b.Run("stars-128-runes", func(b *testing.B) { compareBench(b, shapeStars(128)) })
	for _, n := range []int{10, 100, 300, 1000, 2000} {
		b.Run(fmt.Sprintf("opts/n=%d", n), func(b *testing.B) { compareBench(b, shapeOpts(n)) })
	}
	for _, n := range []int{10, 100, 1000, 1500, 2000, 3000} {
		b.Run(fmt.Sprintf("many-files/n=%d", n), func(b *testing.B) { compareBench(b, shapeManyFiles(n)) })
	}
	for _, c := range [][2]int{{100, 1}, {400, 1}, {400, 10}, {400, 100}} {
		b.Run(fmt.Sprintf("opencode/rules=%d/files=%d", c[0], c[1]), func(b *testing.B) { compareBench(b, shapeOpenCode(c[0], c[1])) })
		b.Run(fmt.Sprintf("vscode/rules=%d/files=%d", c[0], c[1]), func(b *testing.B) { compareBench(b, shapeVSCode(c[0], c[1])) })
	}
	for _, c := range [][3]int{{60, 3, 14 << 10}, {500, 3, 14 << 10}, {100, 3, 512 << 10}, {100, 3000, 0}} {
		b.Run(fmt.Sprintf("copilot-skills/files=%d/tools=%d/prose=%dKiB", c[0], c[1], c[2]>>10), func(b *testing.B) { compareBench(b, shapeSkills(c[0], c[1], c[2])) })
	}
	for _, n := range []int{100, 1000, 3000} {
		b.Run(fmt.Sprintf("ambiguous/n=%d", n), func(b *testing.B) { compareBench(b, shapeAmbiguous(n)) })
	}
	for _, n := range []int{1, 2, 4, 16} {
		b.Run(fmt.Sprintf("big-files/n=%d", n), func(b *testing.B) { compareBench(b, bigFiles(n, hugeSize)) })
	}
	for _, n := range []int{10, 100, 1000, 2000} {
		b.Run(fmt.Sprintf("mid-star/n=%d", n), func(b *testing.B) { compareBench(b, shapeMidStar(n)) })
		b.Run(fmt.Sprintf("rewritten/n=%d", n), func(b *testing.B) { compareBench(b, shapeRewritten(n)) })
		b.Run(fmt.Sprintf("realistic/n=%d", n), func(b *testing.B) { compareBench(b, benchPair(n)) })
	}
}

// BenchmarkHuge is the worst case: 1 MiB settings files built to be as
// costly as possible (judge/shapes_test.go). Target: well under a second of
// CPU each, whatever the rules say.
func BenchmarkHuge(b *testing.B) {
	shapes := hugeShapes(hugeSize)
	names := make([]string, 0, len(shapes))
	for name := range shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) { compareBench(b, shapes[name]) })
	}
}
