package jsonpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// settingsFile builds a realistic .claude/settings.json with the given number
// of permission rules (70% allow, 10% ask, 20% deny), plus hooks and env, in
// the shapes seen in public repositories.
func settingsFile(rules int) []byte {
	shapes := []string{
		"Bash(git log:*)", "Bash(pnpm test:*)", "Bash(gh pr view:*)", "Bash(uv run pytest *)",
		"Read(~/.ssh/**)", "Edit(/src/**/*.ts)", "WebFetch(domain:docs.example.com)",
		"mcp__sentry__search_issues", "Bash(curl -sS https://play.example.com/?user=play:*)", "WebSearch",
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"$schema\": \"https://json.schemastore.org/claude-code-settings.json\",\n  \"permissions\": {\n")
	lists := []struct {
		name string
		n    int
	}{{"allow", rules * 7 / 10}, {"ask", rules / 10}, {"deny", rules - rules*7/10 - rules/10}}
	k := 0
	for li, l := range lists {
		fmt.Fprintf(&b, "    %q: [\n", l.name)
		for i := range l.n {
			sep := ","
			if i == l.n-1 {
				sep = ""
			}
			s := shapes[k%len(shapes)]
			fmt.Fprintf(&b, "      %q%s\n", s[:len(s)-1]+fmt.Sprintf("-%d", k)+s[len(s)-1:], sep)
			k++
		}
		b.WriteString("    ]")
		if li < len(lists)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  },\n")
	b.WriteString(`  "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "pnpm prettier --write \"$CLAUDE_FILE_PATHS\"", "timeout": 30}]}]},` + "\n")
	b.WriteString(`  "env": {"NODE_ENV": "development", "DISABLE_TELEMETRY": "1"},` + "\n")
	b.WriteString(`  "enableAllProjectMcpServers": true, "cleanupPeriodDays": 14` + "\n}\n")
	return b.Bytes()
}

// settingsOfSize grows settingsFile until it is just under size bytes.
func settingsOfSize(size int) []byte {
	lo, hi := 1, size/8
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(settingsFile(mid)) <= size {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return settingsFile(lo)
}

func benchParse(b *testing.B, data []byte) {
	if _, _, err := Parse(data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse60Rules(b *testing.B)   { benchParse(b, settingsFile(60)) }
func BenchmarkParse2000Rules(b *testing.B) { benchParse(b, settingsFile(2000)) }
func BenchmarkParse1MiB(b *testing.B)      { benchParse(b, settingsOfSize(DefaultMaxSize)) }

// BenchmarkParse1MiBNumbers is the worst case for values per byte: a 1 MiB
// array of one-digit numbers (half a million values).
func BenchmarkParse1MiBNumbers(b *testing.B) {
	data := append([]byte("["), bytes.Repeat([]byte("0,"), DefaultMaxSize/2-2)...)
	data = append(data, "0]"...)
	benchParse(b, data)
}

// BenchmarkStdlib2000Rules is the baseline: encoding/json into an interface{}
// (no positions, no duplicate detection).
func BenchmarkStdlib2000Rules(b *testing.B) {
	data := settingsFile(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSettingsFixture(t *testing.T) {
	for _, n := range []int{60, 2000} {
		data := settingsFile(n)
		v, probs, err := Parse(data)
		if err != nil || len(probs) != 0 {
			t.Fatalf("%d rules: %v %v", n, err, probs)
		}
		perm := v.Get("permissions")
		if got := perm.Get("allow").Len() + perm.Get("ask").Len() + perm.Get("deny").Len(); got != n {
			t.Fatalf("fixture has %d rules, want %d", got, n)
		}
		checkTree(t, data, v)
		sameAsStd(t, data, v)
	}
	if n := len(settingsOfSize(DefaultMaxSize)); n > DefaultMaxSize || n < DefaultMaxSize-200 {
		t.Fatalf("1 MiB fixture is %d bytes", n)
	}
}

// TestAllocations guards the allocation budget: a handful of blocks per
// parse, not one allocation per value.
func TestAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	for _, c := range []struct {
		rules, max int
	}{{60, 30}, {2000, 60}} {
		data := settingsFile(c.rules)
		n := testing.AllocsPerRun(20, func() { _, _, _ = Parse(data) })
		if int(n) > c.max {
			t.Errorf("%d rules: %v allocations per parse, budget %d", c.rules, n, c.max)
		}
	}
}
