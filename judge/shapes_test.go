package judge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/report"
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
func shapeStars(runes int) report.Input {
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
func shapeOpts(n int) report.Input {
	var allow []string
	for i := 0; i < n; i++ {
		allow = append(allow, fmt.Sprintf("Bash(* --opt%d *)", i))
	}
	return settingsPair(perms{allow: []string{"Bash(npm test)"}}.json(), perms{allow: allow, deny: []string{"Bash(rm *)"}}.json())
}

// shapeMidStar: n rules sharing prefixes with a star mid-pattern,
// Bash(git <sub> * --flagN), half of them at the base.
func shapeMidStar(n int) report.Input {
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
func shapeRewritten(n int) report.Input {
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
const hugeSize = report.MaxFileSize * 7 / 8

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
func hugeShapes(mib int) map[string]report.Input {
	most := claude.MaxRules * mib / hugeSize // as many rules as fit, within the limit
	base := perms{allow: []string{"Bash(npm test)"}, deny: []string{"Bash(rm *)"}}.json()
	pair := func(p perms) report.Input { return settingsPair(base, p.json()) }
	return map[string]report.Input{
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
		// Every rule shares a 300-character literal prefix and differs
		// after it.
		"shared-long-prefix": pair(perms{allow: fill(mib, most, func(i int) string { return fmt.Sprintf("Bash(%s %d *)", strings.Repeat("x", 300), i) })}),
		// Long literal runs between stars: 200 characters, twice, per
		// rule, and a deny rule of the same shape.
		"long-runs-between-stars": pair(perms{allow: fill(mib, most, func(i int) string {
			return fmt.Sprintf("Bash(*%s%d*%s*)", strings.Repeat("a", 200), i, strings.Repeat("b", 200))
		}), deny: []string{"Bash(*" + strings.Repeat("a", 200) + "*" + strings.Repeat("b", 100) + "*)"}}),
		// Runes spread over the whole code space, eight per rule, so that
		// the alphabet of any search over several rules has hundreds of
		// intervals; deny rules of single spread runes share the prefix.
		"many-distinct-runes": pair(perms{allow: fill(mib*3/4, most*3/4, func(i int) string {
			var sb strings.Builder
			sb.WriteString("Bash(git *")
			for k := 0; k < 8; k++ {
				sb.WriteRune(spreadRune(i*8 + k))
				sb.WriteByte('*')
			}
			return sb.String() + ")"
		}), deny: fill(mib/4, most/4, func(i int) string { return "Bash(git *" + string(spreadRune(i*37)) + "*)" })}),
		// A huge deny list shadowing the allow rules: every allow rule's
		// search must escape thousands of deny rules sharing its prefix.
		"deny-shadowing-allows": pair(perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(git push origin b%d *)", i) }),
			deny: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(git push * --force%d *)", i) })}),
		// Every rule rewritten between base and head, as many as fit.
		"all-rewritten": shapeRewrittenN(most, mib),
		// Path rules sixty directories deep with double stars.
		"deep-paths": pair(perms{allow: fill(mib, most, func(i int) string {
			var sb strings.Builder
			sb.WriteString("Read(~/")
			for k := 0; k < 60; k++ {
				fmt.Fprintf(&sb, "d%d/", k)
			}
			return sb.String() + fmt.Sprintf("**/x%d/**)", i)
		})}),
		// Parameter rules: the base denies by a field's value, the head
		// removes them all (each removal is a search over the rest).
		"param-rules": settingsPair(perms{allow: []string{"Bash(npm test)"}, deny: fill(mib, most-1, func(i int) string { return fmt.Sprintf("Bash(description:*k%d*x*)", i) })}.json(),
			perms{allow: []string{"Bash(npm test)"}, deny: []string{"Bash(rm *)"}}.json()),
		// JSON nested just under the depth limit beside mid-star rules.
		"deep-json": settingsPair(base, deepJSON(perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(git log * --flag%d)", i) })}, 990)),
		// A pair that spends the budget first, then thousands of rules
		// rewritten between base and head: pairing them must not turn
		// quadratic once the budget is gone.
		"burn-then-rewrite": burnThenRewrite(most/2, mib),
		// A small file that spends the whole budget, sorted before a
		// 1 MiB file of rewritten rules: once the budget is spent, pairing
		// and judging the rewrites must stay linear (it took 43 s of CPU
		// when each pair still asked its question).
		"spent-then-rewrite": spentFirst(shapeRewrittenN(most, mib)),
		// Long literal rules, rewritten between base and head.
		"long-literals": settingsPair(perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(%s%d:*)", strings.Repeat("x", 2000), i) })}.json(),
			perms{allow: fill(mib/2, most/2, func(i int) string { return fmt.Sprintf("Bash(%s%d *)", strings.Repeat("x", 2000), i) })}.json()),
	}
}

// shapeRewrittenN is shapeRewritten with n rules (fewer when they would
// fill more than size bytes).
func shapeRewrittenN(n, size int) report.Input {
	var base, head []string
	total := 0
	for i := 0; i < n && total < size; i++ {
		b := fmt.Sprintf("Bash(tool%d sub%d:*)", i%50, i)
		base = append(base, b)
		if i%3 == 0 {
			head = append(head, fmt.Sprintf("Bash(tool%d *)", i%50))
		} else {
			head = append(head, fmt.Sprintf("Bash(tool%d sub%d *)", i%50, i))
		}
		total += len(b) + 4
	}
	return settingsPair(perms{allow: base}.json(), perms{allow: head}.json())
}

// spreadRune is the i-th of runes spread over the code space (no
// surrogates, no blanks or controls).
func spreadRune(i int) rune {
	r := rune(0x100 + (i*7919)%0x10e000)
	if r >= 0xd800 && r <= 0xdfff {
		r += 0x800
	}
	return r
}

// deepJSON is the settings file of p with an extra member nested depth
// levels deep.
func deepJSON(p perms, depth int) string {
	js := p.json()
	return strings.TrimSuffix(strings.TrimSpace(js), "}") + `, "x": ` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}"
}

// burnThenRewrite: a deny and an allow rule of many distinct runes
// between stars (each question about them spends a search's budget) and
// n rules rewritten between base and head.
func burnThenRewrite(n, size int) report.Input {
	rw := shapeRewrittenN(n, size*3/4)
	var bp, hp struct {
		Permissions struct {
			Allow []string `json:"allow"`
			Deny  []string `json:"deny"`
		} `json:"permissions"`
	}
	_ = json.Unmarshal(rw.Files[0].Base.Data, &bp)
	_ = json.Unmarshal(rw.Files[0].Head.Data, &hp)
	var burn []string
	for i := 0; i < 6; i++ {
		burn = append(burn, "Bash(x"+starPattern(300, rune(0x4e00+i*150))+")")
	}
	deny := []string{"Bash(x" + starPattern(300, 0x4e00+75) + ")"}
	return settingsPair(perms{allow: bp.Permissions.Allow}.json(), perms{allow: append(burn, hp.Permissions.Allow...), deny: deny}.json())
}

// shapeManyFiles is a pull request touching n small settings files, each
// in its own project folder: two allow rules added and a deny rule removed
// in each (the App reads at most 3,000 files of a pull request).
func shapeManyFiles(n int) report.Input {
	var in report.Input
	for i := 0; i < n; i++ {
		base := perms{allow: []string{"Bash(npm test)"}, deny: []string{"Bash(rm *)", fmt.Sprintf("Bash(git push * --force%d)", i)}}.json()
		head := perms{allow: []string{"Bash(npm test)", fmt.Sprintf("Bash(tool%d *)", i), fmt.Sprintf("Bash(git log * --x%d)", i)}, deny: []string{"Bash(rm *)"}}.json()
		in.Files = append(in.Files, report.File{Path: fmt.Sprintf("pkg%d/.claude/settings.json", i),
			Base: report.Version{Exists: true, Data: []byte(base)}, Head: report.Version{Exists: true, Data: []byte(head)}})
	}
	return in
}

// spentFirst is in, moved into folder z/, with a small settings file
// sorted before it (folder a/) whose rules spend the whole work budget: twelve allow rules and
// a deny rule of 300 distinct runes between stars, each question about
// them a search over the per-search limit.
func spentFirst(in report.Input) report.Input {
	var burn []string
	for i := 0; i < 12; i++ {
		burn = append(burn, "Bash(x"+starPattern(300, rune(0x4e00+i*150))+")")
	}
	deny := []string{"Bash(x" + starPattern(300, 0x4e00+75) + ")"}
	b := settingsPair(perms{allow: []string{"Bash(npm test)"}}.json(), perms{allow: burn, deny: deny}.json()).Files[0]
	b.Path = "a/.claude/settings.json"
	out := report.Input{Files: []report.File{b}, Policy: in.Policy}
	for _, f := range in.Files {
		f.Path = "z/" + f.Path
		out.Files = append(out.Files, f)
	}
	return out
}

// bigFiles is a pull request of n settings files of about 1 MiB each, in
// folders pN/, every file's rules its own (Bash(gitN log * --flagK * --xM)):
// nothing is shared between files, so each costs its whole compilation.
func bigFiles(n int, size int) report.Input {
	var in report.Input
	most := claude.MaxRules * size / hugeSize
	for i := 0; i < n; i++ {
		head := perms{allow: fill(size, most, func(k int) string { return fmt.Sprintf("Bash(git%d log * --flag%d * --x%d)", i, k, k%13) })}.json()
		in.Files = append(in.Files, report.File{Path: fmt.Sprintf("p%d/.claude/settings.json", i),
			Base: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)"]}}`)}, Head: report.Version{Exists: true, Data: []byte(head)}})
	}
	return in
}

// shapeOpenCode is files opencode.json files (folders pN/ when more than
// one) of n bash patterns with stars mid-pattern, allow, deny and ask in
// turn (the last match wins), half of them added at the head: the other
// agents' comparison is quadratic in the rules of one surface.
func shapeOpenCode(n, files int) report.Input {
	opc := func(r []string) string { return `{"permission": {"bash": {` + strings.Join(r, ", ") + `}}}` }
	acts := []string{"allow", "deny", "ask"}
	var in report.Input
	for f := 0; f < files; f++ {
		var base, head []string
		for i := 0; i < n; i++ {
			p := fmt.Sprintf("%q: %q", fmt.Sprintf("git%d * --flag%d * --x%d", f, i, i%7), acts[i%3])
			head = append(head, p)
			if i%2 == 0 {
				base = append(base, p)
			}
		}
		path := "opencode.json"
		if files > 1 {
			path = fmt.Sprintf("p%d/opencode.json", f)
		}
		in.Files = append(in.Files, report.File{Path: path, Base: report.Version{Exists: true, Data: []byte(opc(base))}, Head: report.Version{Exists: true, Data: []byte(opc(head))}})
	}
	return in
}

// shapeVSCode is files .vscode/settings.json files (folders pN/ when more
// than one) of n terminal auto-approve regular expressions, two in three
// approving, half of them added at the head.
func shapeVSCode(n, files int) report.Input {
	vsc := func(r []string) string { return `{"chat.tools.terminal.autoApprove": {` + strings.Join(r, ", ") + `}}` }
	var in report.Input
	for f := 0; f < files; f++ {
		var base, head []string
		for i := 0; i < n; i++ {
			k := fmt.Sprintf(`"/^git%d .*--f%d.*x%d/": %v`, f, i, i%7, i%3 != 1)
			head = append(head, k)
			if i%2 == 0 {
				base = append(base, k)
			}
		}
		path := ".vscode/settings.json"
		if files > 1 {
			path = fmt.Sprintf("p%d/.vscode/settings.json", f)
		}
		in.Files = append(in.Files, report.File{Path: path, Base: report.Version{Exists: true, Data: []byte(vsc(base))}, Head: report.Version{Exists: true, Data: []byte(vsc(head))}})
	}
	return in
}

// shapeAmbiguous: n allow rules read two ways (Bash(toolN * --x *):
// several stars and a trailing ` *`) at the base and head, and n narrower
// rules added, each covered by one of them: proving each covered asks,
// for every ambiguous rule of the pool, whether the others still cover it.
func shapeAmbiguous(n int) report.Input {
	var base, head []string
	for i := 0; i < n; i++ {
		base = append(base, fmt.Sprintf("Bash(tool%d * --x *)", i))
	}
	head = append(head, base...)
	for i := 0; i < n; i++ {
		head = append(head, fmt.Sprintf("Bash(tool%d a --x b)", i))
	}
	return settingsPair(perms{allow: base}.json(), perms{allow: head}.json())
}

// shapeSkills is files Copilot CLI skills (.github/skills/sN/SKILL.md),
// each a frontmatter of tools allowed-tools entries (shell patterns with
// stars mid-pattern) and prose bytes of Markdown after it; the head edits
// every skill's prose and adds shell(git push) to every tenth skill.
func shapeSkills(files, tools, prose int) report.Input {
	line := "The router loads each route's data before it renders; see `loader` and `beforeLoad`.\n"
	body := strings.Repeat(line, prose/len(line)+1)[:prose]
	var in report.Input
	for f := 0; f < files; f++ {
		var ts []string
		for i := 0; i < tools; i++ {
			ts = append(ts, fmt.Sprintf("shell(git%d log * --flag%d)", f, i))
		}
		doc := func(extra, edit string) []byte {
			return []byte(fmt.Sprintf("---\nname: s%d\ndescription: skill %d\nallowed-tools: %s%s\n---\n%s%s", f, f, strings.Join(ts, ", "), extra, body, edit))
		}
		extra := ""
		if f%10 == 0 {
			extra = ", shell(git push)"
		}
		in.Files = append(in.Files, report.File{Path: fmt.Sprintf(".github/skills/s%03d/SKILL.md", f),
			Base: report.Version{Exists: true, Data: doc("", "")}, Head: report.Version{Exists: true, Data: doc(extra, "One more line.\n")}})
	}
	return in
}
