package diff

import (
	"fmt"
	"strings"
)

// Adversarial and realistic rule shapes (issue 11), generated: the
// benchmarks measure them and TestHostileShapes holds their decisions.

// starPattern is `*c1*c2*...*cn*` over n distinct runes from base.
func starPattern(n int, base rune) string {
	var sb strings.Builder
	sb.WriteByte('*')
	for i := 0; i < n; i++ {
		sb.WriteRune(base + rune(i))
		sb.WriteByte('*')
	}
	return sb.String()
}

// shapeStars: 10 allow and 3 deny rules Bash(*<128 distinct runes between
// stars>*), each over its own slice of runes.
func shapeStars(runes int) Input {
	var allow, deny []string
	for i := 0; i < 10; i++ {
		allow = append(allow, "Bash("+starPattern(runes, rune(0x4e00+i*runes))+")")
	}
	for i := 0; i < 3; i++ {
		deny = append(deny, "Bash("+starPattern(runes, rune(0x4e00+(i+3)*runes/2))+")")
	}
	return settingsPair(perms{allow: []string{"Bash(npm test)"}}.json(), perms{allow: append([]string{"Bash(npm test)"}, allow...), deny: deny}.json())
}

// shapeOpts: n added rules Bash(* --optN *).
func shapeOpts(n int) Input {
	var allow []string
	for i := 0; i < n; i++ {
		allow = append(allow, fmt.Sprintf("Bash(* --opt%d *)", i))
	}
	return settingsPair(perms{allow: []string{"Bash(npm test)"}}.json(), perms{allow: allow, deny: []string{"Bash(rm *)"}}.json())
}

// shapeMidStar: n rules sharing prefixes with a star mid-pattern,
// Bash(git <sub> * --flagN), half of them at the base.
func shapeMidStar(n int) Input {
	subs := []string{"log", "diff", "show", "commit", "push"}
	var base, head []string
	for i := 0; i < n; i++ {
		r := fmt.Sprintf("Bash(git %s * --flag%d)", subs[i%len(subs)], i)
		head = append(head, r)
		if i%2 == 0 {
			base = append(base, r)
		}
	}
	return settingsPair(perms{allow: base, deny: []string{"Bash(git push * --force)"}}.json(), perms{allow: head, deny: []string{"Bash(git push * --force)"}}.json())
}

// shapeRewritten: n rules all rewritten between base and head: the legacy
// `:*` spelling at the base, ` *` at the head, every third one widened.
func shapeRewritten(n int) Input {
	var base, head []string
	for i := 0; i < n; i++ {
		base = append(base, fmt.Sprintf("Bash(tool%d sub%d:*)", i%50, i))
		if i%3 == 0 {
			head = append(head, fmt.Sprintf("Bash(tool%d *)", i%50))
		} else {
			head = append(head, fmt.Sprintf("Bash(tool%d sub%d *)", i%50, i))
		}
	}
	return settingsPair(perms{allow: base}.json(), perms{allow: head}.json())
}

// hugeSize is the size the 1 MiB shapes fill: a little under MaxFileSize,
// so they are read and compared rather than refused.
const hugeSize = MaxFileSize * 7 / 8

// fill repeats rule(i) for i = 0, 1, … until the rules' text reaches
// size bytes (or MaxRules rules).
func fill(size, most int, rule func(i int) string) []string {
	var out []string
	total := 0
	for i := 0; total < size && len(out) < most; i++ {
		r := rule(i)
		out = append(out, r)
		total += len(r) + 4
	}
	return out
}

// hugeShapes are 1 MiB settings files built to be as costly as possible:
// whatever the rules say, the engine must finish well under a second.
// mib is the size they fill: hugeSize for the benchmarks and a plain test
// run, an eighth of it under the race detector (which runs the engine about
// fifty times slower; the decisions do not depend on the size).
func hugeShapes(mib int) map[string]Input {
	most := MaxRules * mib / hugeSize // as many rules as fit, within the limit
	base := perms{allow: []string{"Bash(npm test)"}, deny: []string{"Bash(rm *)"}}.json()
	pair := func(p perms) Input { return settingsPair(base, p.json()) }
	return map[string]Input{
		// One allow rule of a quarter of a million distinct runes
		// between stars.
		"one-giant-star-rule": pair(perms{allow: []string{"Bash(" + starPattern(mib/8, 0x4e00) + ")"}}),
		// A giant allow and a giant deny over overlapping runes.
		"giant-allow-and-deny": pair(perms{allow: []string{"Bash(" + starPattern(mib/16, 0x4e00) + ")"},
			deny: []string{"Bash(" + starPattern(mib/16, rune(0x4e00+mib/64)) + ")"}}),
		// MaxRules rules of 24 distinct runes between stars.
		"many-star-rules": pair(perms{allow: fill(mib, most, func(i int) string { return "Bash(" + starPattern(24, rune(0x4e00+i%997*7)) + ")" })}),
		// Options between stars, as many as fit.
		"many-opt-rules": pair(perms{allow: fill(mib, most, func(i int) string { return fmt.Sprintf("Bash(* --opt%d *)", i) })}),
		// Shared prefixes with mid-pattern stars.
		"many-mid-star-rules": pair(perms{allow: fill(mib, most, func(i int) string { return fmt.Sprintf("Bash(git log * --flag%d * --x%d)", i, i%13) })}),
		// Path rules with many double stars, allow and deny (under home: reads inside the project need no rule in Claude Code 2.1.328).
		"many-path-rules": pair(perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Read(~/**/a%d/**/b/**/c%d/**)", i%31, i) }),
			deny: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Read(~/**/b/**/c%d/**/*.key)", i) })}),
		// Rules just under the compile limits: 1,400 distinct runes
		// between stars each, as many as the file's limit allows, and a
		// deny rule of the same shape.
		"near-limit-star-rules": pair(perms{allow: fill(mib, 6, func(i int) string { return "Bash(" + starPattern(1400, rune(0x4e00+i*700)) + ")" }),
			deny: []string{"Bash(" + starPattern(1400, 0x4e00+350) + ")"}}),
		// Long literal rules, rewritten between base and head.
		"long-literals": settingsPair(perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(%s%d:*)", strings.Repeat("x", 2000), i) })}.json(),
			perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(%s%d *)", strings.Repeat("x", 2000), i) })}.json()),
	}
}
