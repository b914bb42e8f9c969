package lattice

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMayStopRequiredIndex: looking a large group's readings up by their
// required literal (candidates) answers exactly what testing each rule
// answers, for Bash and path rules with literal prefixes, suffixes and
// required runs of many lengths, and calls that hit and miss them.
func TestMayStopRequiredIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(*seed, 12))
	bits := []string{"a", "b", ".key", "c1", "c12", "x", "/", "--f", "日", "\ufffd"}
	bit := func() string { return bits[r.IntN(len(bits))] }
	for round := 0; round < 20; round++ {
		var none []Rule
		for i := 0; i < minReqIndex+r.IntN(200); i++ {
			var text string
			switch r.IntN(4) {
			case 0:
				text = fmt.Sprintf("Bash(%s *%s%d* %s)", bit(), bit(), r.IntN(30), bit())
			case 1:
				text = fmt.Sprintf("Bash(* %s%s *)", bit(), bit())
			case 2:
				text = fmt.Sprintf("Read(~/**/%s/**/%s%d/**/*%s)", bit(), bit(), r.IntN(30), bit())
			default:
				text = fmt.Sprintf("Read(~/%s**%s)", bit(), bit())
			}
			none = append(none, ParseIn(Deny, text))
		}
		ctx := WithBudget(context.Background(), NewBudget(0, 0))
		ix := indexOf(ctx, none)
		for k := 0; k < 300; k++ {
			var c Call
			arg := ""
			for n := r.IntN(6); n >= 0; n-- {
				arg += bit() + []string{"", " ", "/"}[r.IntN(3)]
			}
			if r.IntN(2) == 0 {
				c = Call{Tool: "Bash", Arg: arg}
			} else {
				c = Call{Tool: "Read", Arg: "~/" + arg}
			}
			want := false
			for i := range none {
				if Match(none[i], c) != No {
					want = true
					break
				}
			}
			if got := ix.mayStop(ctx, none, c); got != want {
				t.Fatalf("round %d, %v: mayStop %v, testing each rule %v", round, c, got, want)
			}
		}
	}
}

// TestCallSetEach: Each visits exactly the calls MayMatch does not rule out
// for the rule, in the set's order; RuleSet.MayMatch answers what asking
// every rule answers.
func TestCallSetEach(t *testing.T) {
	r := rand.New(rand.NewPCG(*seed, 14))
	words := []string{"bash -c 'curl x'", "eval curl x", "python3 -c 'import os'", "find . -exec rm x {} +", "git push", "git  push", "npm", "eval  x", "x"}
	var calls []Call
	for i := 0; i < 400; i++ {
		arg := words[r.IntN(len(words))]
		if r.IntN(2) == 0 {
			arg += fmt.Sprintf(" %d", r.IntN(20))
		}
		tool := "Bash"
		if r.IntN(10) == 0 {
			tool = "Read"
		}
		calls = append(calls, Call{Tool: tool, Arg: arg})
	}
	set := NewCallSet(calls)
	rules := []string{"Bash(eval *)", "Bash(bash -c *)", "Bash(*)", "Bash", "Bash(git push *)", "Bash(git *)", "bash(eval *)", "Read(**)", "Bash(npm)", "Bash(* 3)", "Bash(find . -exec *)"}
	for _, text := range rules {
		rule := ParseIn(Allow, text)
		var got, want []int
		set.Each(rule, func(i int, c Call) bool {
			if c != calls[i] {
				t.Fatalf("%s: call %d is %v, Each gave %v", text, i, calls[i], c)
			}
			got = append(got, i)
			return true
		})
		for i, c := range calls {
			if MayMatch(rule, c) {
				want = append(want, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: Each visited %v, want %v", text, got, want)
		}
		rs := NewRuleSet([]Rule{rule, ParseIn(Deny, "Bash(rm *)")})
		for _, c := range calls {
			want := Match(rule, c) != No || Match(ParseIn(Deny, "Bash(rm *)"), c) != No
			if rs.MayMatch(c) != want {
				t.Fatalf("%s: RuleSet.MayMatch(%v) = %v, want %v", text, c, !want, want)
			}
		}
	}
}

// TestPrefixIndexSameReadings: each through the prefix index visits
// exactly the readings of the group whose literal prefix could agree with
// the text's (a prefix of it, or extending it) — the ones a full scan
// keeps — for random groups and texts, and stops when told to.
func TestPrefixIndexSameReadings(t *testing.T) {
	r := rand.New(rand.NewPCG(*seed, 13))
	bits := []string{"a", "ab", "b", " ", "git ", "git log ", "x", "日", "--f", ""}
	bit := func() string { return bits[r.IntN(len(bits))] }
	tested := 0
	defer func() {
		if tested < 10 {
			t.Errorf("only %d rounds had a group large enough for the prefix index", tested)
		}
	}()
	for round := 0; round < 30; round++ {
		var rules []Rule
		for i := 0; i < 2*minPrefixIndexed+r.IntN(200); i++ {
			text := fmt.Sprintf("Bash(%s%s%s *)", bit(), bit(), bit())
			if r.IntN(4) == 0 {
				text = fmt.Sprintf("Bash(%s%s*%s)", bit(), bit(), bit())
			}
			rules = append(rules, ParseIn(Deny, text))
		}
		ix := newRuleIndex(rules)
		var g *endBuckets
		for _, gg := range ix.byTool["Bash"] {
			if gg.key.arg == argShell && (g == nil || len(gg.all) > len(g.all)) {
				g = gg
			}
		}
		if g == nil || len(g.all) < minPrefixIndexed {
			continue // too few distinct rules this round
		}
		tested++
		for k := 0; k < 100; k++ {
			text := bit() + bit() + bit() + bit()
			if text == "" {
				continue
			}
			// What find keeps of what each visits (its compatible test).
			agrees := func(rd *reading, suffix string) bool {
				return (strings.HasPrefix(text, rd.prefix) || strings.HasPrefix(rd.prefix, text)) &&
					(suffix == "" || strings.HasSuffix(suffix, rd.args.suffix) || strings.HasSuffix(rd.args.suffix, suffix))
			}
			var want map[*reading]int
			for _, suffix := range []string{"", text} {
				want = map[*reading]int{}
				for _, e := range g.all {
					if agrees(e.rd, suffix) {
						want[e.rd]++
					}
				}
				got := map[*reading]int{}
				g.each(text, suffix, func(e indexed) bool {
					if agrees(e.rd, suffix) {
						got[e.rd]++
					}
					return true
				})
				if !maps.Equal(got, want) {
					t.Fatalf("round %d, text %q, suffix %q: %d readings kept, want %d", round, text, suffix, len(got), len(want))
				}
			}
			g.preOnce.Do(func() { g.pre = newPrefixIndex(g.all) })
			if n := g.pre.count(text); n < len(want) {
				t.Fatalf("text %q: count %d under the %d readings it must visit", text, n, len(want))
			}
			visited := 0
			g.pre.each(text, func(indexed) bool { visited++; return false })
			if visited > 1 {
				t.Fatalf("each did not stop: %d visits", visited)
			}
		}
	}
}
