package diff

import (
	"fmt"
	"runtime"
	"testing"
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
func benchPair(n int) Input {
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
	for i := 0; i < b.N; i++ {
		r := Compare(in)
		if len(r.Changes) == 0 {
			b.Fatal("no changes")
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MiB")
}

// BenchmarkCompare60 is a realistic 60-rule settings pair (target: under
// 2 ms of engine time).
func BenchmarkCompare60(b *testing.B) { benchCompare(b, 60) }

// BenchmarkCompare2000 is a 2,000-rule pair (target: under 200 ms).
func BenchmarkCompare2000(b *testing.B) { benchCompare(b, 2000) }
