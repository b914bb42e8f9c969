package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// Bounds on one table cell, so that no single row (a 50 kB rule, a long
// message) can crowd out the rest of a summary. Cell text is shortened
// before it is escaped and wrapped, so a code span is never cut open.
const (
	mdMaxRule    = 300
	mdMaxText    = 600
	mdMaxWitness = 120
	mdCheckShort = "SHIP-HOST-BOUNDARY-"
	mdMoreHint   = "run `shipgate check` locally or see the annotations"
)

// Markdown renders the Report as the summary of a GitHub check run: a
// one-line verdict, a findings table, a changes table, what this run
// established, and a footer. Text from files is escaped (pipes, backticks,
// HTML) so a rule cannot break the table or inject markup. The result fits
// o.MaxBytes bytes (DefaultMaxBytes when 0): when it would not, rows are
// dropped from the end of each table — the lowest-priority ones, since the
// Report is sorted expanding-first and risk-descending — and a line says
// exactly how many were left out. Rows and code spans are never cut. A
// negative MaxBytes leaves no room at all: the result is empty.
func Markdown(r report.Report, o Options) string {
	limit := o.MaxBytes
	switch {
	case limit == 0:
		limit = DefaultMaxBytes
	case limit < 0:
		return "" // nothing fits
	}

	head := mdHeader(r, o)
	// One table leads: each finding with the change it is about (before →
	// after) and what it lets the agent do, so a witness is printed once.
	// The changes no finding is about (narrowings, respellings, quiet
	// rows) follow, folded.
	attached := findingChanges(r)
	findingRows := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		var c *report.Change
		if attached[i] >= 0 {
			c = &r.Changes[attached[i]]
		}
		findingRows[i] = mdFindingRow(f, c)
	}
	used := map[int]bool{}
	for _, ci := range attached {
		if ci >= 0 {
			used[ci] = true
		}
	}
	var changeRows []string
	for i, c := range r.Changes {
		if !used[i] {
			changeRows = append(changeRows, mdChangeRow(c))
		}
	}
	files := coverageOrder(r.Files)
	coverRows := make([]string, len(files))
	for i, fs := range files {
		coverRows[i] = "- " + mdCode(fs.Path) + ": " + mdEscape(clip(coverageWords(r, fs), mdMaxText)) + "\n"
	}
	foot := mdFooter(r, o)
	suggestions := mdSuggestions(r)
	rest := widenings(r)
	for i := range used {
		if r.Changes[i].Expands {
			rest--
		}
	}

	// Try everything first; then give the findings the first claim on the
	// space (they decide the merge), the changes the rest, and keep the
	// coverage block whole unless it alone is too long.
	nf, nc, nv := len(findingRows), len(changeRows), len(coverRows)
	build := func(nf, nc, nv int) string {
		var b strings.Builder
		b.WriteString(head)
		mdTable(&b, "What changed", "| Action | Where | Change | What it lets the agent do | Check |\n|---|---|---|---|---|\n",
			findingRows[:nf], len(findingRows), "finding")
		b.WriteString(o.Clearing)
		b.WriteString(suggestions)
		b.WriteString(o.Preamble)
		if len(changeRows) > 0 {
			title := report.Plural(len(changeRows), "other change")
			if len(findingRows) == 0 {
				title = report.Plural(len(changeRows), "change")
			}
			fmt.Fprintf(&b, "<details><summary>%s, %d widening what the agent may do</summary>\n\n", title, rest)
			mdTable(&b, "Changes", "| | Risk | Direction | Where | List | Before → After | Why | Witnesses |\n|---|---|---|---|---|---|---|---|\n",
				changeRows[:nc], len(changeRows), "change")
			b.WriteString("</details>\n\n")
		}
		b.WriteString("<details><summary>What this run established</summary>\n\n")
		for _, row := range coverRows[:nv] {
			b.WriteString(row)
		}
		if nv < len(coverRows) {
			fmt.Fprintf(&b, "- … %s not listed\n", report.Plural(len(coverRows)-nv, "more file"))
		}
		if len(coverRows) == 0 {
			b.WriteString("- no agent-config file was read\n")
		}
		b.WriteString("\n</details>\n\n")
		b.WriteString(foot)
		return b.String()
	}
	out := build(nf, nc, nv)
	if len(out) <= limit {
		return out
	}

	// Fixed part: everything with no rows at all (and the omission lines
	// at their longest).
	fixed := len(build(0, 0, 0))
	budget := limit - fixed
	sum := func(rows []string, n int) int {
		t := 0
		for _, x := range rows[:n] {
			t += len(x)
		}
		return t
	}
	fit := func(rows []string, room int) int {
		n, used := 0, 0
		for n < len(rows) && used+len(rows[n]) <= room {
			used += len(rows[n])
			n++
		}
		return n
	}
	// Coverage: keep whole if it takes at most a quarter of the budget.
	nv = fit(coverRows, max(budget/4, budget-sum(findingRows, len(findingRows))-sum(changeRows, len(changeRows))))
	budget -= sum(coverRows, nv)
	// Findings may take up to 60% of what is left when both tables
	// overflow, more when the changes need less.
	fShare := max(budget*6/10, budget-sum(changeRows, len(changeRows)))
	nf = fit(findingRows, fShare)
	nc = fit(changeRows, budget-sum(findingRows, nf))
	nf = fit(findingRows, budget-sum(changeRows, nc))
	out = build(nf, nc, nv)
	for len(out) > limit && (nf > 0 || nc > 0 || nv > 0) {
		// The omission lines grew by a digit or two: give back a row.
		switch {
		case nc > 0:
			nc--
		case nf > 0:
			nf--
		default:
			nv--
		}
		out = build(nf, nc, nv)
	}
	if len(out) > limit {
		out = cutLines(out, limit)
	}
	return out
}

// mdHeader is the one-line verdict and the counts behind it.
func mdHeader(r report.Report, o Options) string {
	var b strings.Builder
	counts := map[string]int{}
	for _, f := range r.Findings {
		if f.Cleared != "" {
			counts["approved"]++
			continue
		}
		counts[string(f.Action)]++
	}
	var parts []string
	for _, a := range []string{"block", "require_review", "advisory", "approved"} {
		if counts[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[a], strings.ReplaceAll(a, "_", " ")))
		}
	}
	findings := "no findings"
	if len(r.Findings) > 0 {
		findings = report.Plural(len(r.Findings), "finding") + " (" + strings.Join(parts, ", ") + ")"
	}
	limited := limitedFiles(r)
	blocking := counts["block"] + counts["require_review"]
	switch d := decision(r); {
	case d == report.DecisionBlock:
		fmt.Fprintf(&b, "### ⛔ Blocked: %s %s the merge\n\n", report.Plural(counts["block"], "finding"), map[bool]string{true: "holds", false: "hold"}[counts["block"] == 1])
	case d == report.DecisionRequireReview:
		fmt.Fprintf(&b, "### ⚠️ Review required: %s %s a reviewer\n\n", report.Plural(blocking, "finding"), map[bool]string{true: "needs", false: "need"}[blocking == 1])
	case len(limited) > 0:
		b.WriteString("### ❔ Not every file could be compared\n\n")
	case len(r.Changes) == 0 && len(r.Findings) == 0:
		b.WriteString("### ✅ No permission changes detected\n\n")
	default:
		b.WriteString("### ✅ No change widens what the agent may do\n\n")
	}
	if o.Subject != "" {
		b.WriteString(mdEscape(clip(o.Subject, mdMaxText)) + "\n\n")
	}
	fmt.Fprintf(&b, "**Decision: %s** · %s, %d widening what the agent may do (⚠️) · %s.\n\n",
		decision(r), report.Plural(len(r.Changes), "change"), widenings(r), findings)
	if len(limited) > 0 {
		names := make([]string, 0, len(limited))
		for _, p := range limited {
			names = append(names, mdCode(p))
		}
		if len(names) > 10 {
			names = append(names[:10], fmt.Sprintf("and %d more", len(limited)-10))
		}
		fmt.Fprintf(&b, "**Not compared:** %s. Nothing here is a claim that the change to %s is safe.\n\n",
			strings.Join(names, ", "), map[bool]string{true: "it", false: "them"}[len(limited) == 1])
	}
	return b.String()
}

// mdTable writes a titled table of rows, or nothing when it has none, and
// says how many rows were left out.
func mdTable(b *strings.Builder, title, header string, rows []string, total int, noun string) {
	if total == 0 {
		return
	}
	fmt.Fprintf(b, "#### %s\n\n", title)
	if len(rows) > 0 {
		b.WriteString(header)
		for _, row := range rows {
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	if n := total - len(rows); n > 0 {
		fmt.Fprintf(b, "… %d more %s not shown; %s.\n\n", n, pluralNoun(n, noun), mdMoreHint)
	}
}

func pluralNoun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// mdFindingRow is one row of the leading table: the finding's action and
// place, the change it is about (before → after; c is nil when no row of
// the report is), its message (which names the calls the
// change lets through) and its check.
func mdFindingRow(f report.Finding, c *report.Change) string {
	action := mdAction(f.Action)
	if f.Cleared != "" {
		action = "✅ approved (" + mdEscape(string(f.Action)) + ", by " + mdEscape(f.Cleared) + ")"
	}
	change := "—"
	if c != nil {
		b, a := transition(*c)
		change = mdCell(clip(b, mdMaxRule)) + " → " + mdCell(clip(a, mdMaxRule))
		if strings.TrimSpace(c.Before) == "" {
			change = "added " + mdCell(clip(a, mdMaxRule))
		} else if strings.TrimSpace(c.After) == "" {
			change = "removed " + mdCell(clip(b, mdMaxRule))
		}
	}
	return "| " + action +
		" | " + agentLabel(f.Agent) + mdCell(findingWhere(f)) +
		" | " + change +
		" | " + mdProse(clip(f.Message, mdMaxText)) +
		" | " + mdCell(strings.TrimPrefix(f.CheckID, mdCheckShort)) + " " + mdEscape(string(f.Risk)) + " |\n"
}

// findingChanges maps each finding of the report to the index of the
// change row it is about (-1 for none): a row of the same file and line,
// an expanding one first. Several findings about one rule (a wildcard
// grant that also passes a ceiling) share it.
func findingChanges(r report.Report) []int {
	out := make([]int, len(r.Findings))
	for i, f := range r.Findings {
		best := -1
		for j, c := range r.Changes {
			if c.Path != f.Path {
				continue
			}
			if f.Line <= 0 || c.Line != f.Line || f.Base != (c.Direction == report.DirRemoved) {
				continue
			}
			// Several rows on one line (a one-line allow list): the one
			// whose rule the message names.
			named := func(k int) bool {
				x := r.Changes[k]
				return (x.After != "" && strings.Contains(f.Message, x.After)) || (x.After == "" && x.Before != "" && strings.Contains(f.Message, x.Before))
			}
			if best < 0 || (named(j) && !named(best)) || (named(j) == named(best) && c.Expands && !r.Changes[best].Expands) {
				best = j
			}
		}
		out[i] = best
	}
	return out
}

// mdChangeRow is one row of the changes table.
func mdChangeRow(c report.Change) string {
	marker := ""
	if c.Expands {
		marker = "⚠️"
	}
	side := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "—"
		}
		return mdCell(clip(s, mdMaxRule))
	}
	list := c.List
	if c.Kind != report.KindRule {
		list = c.Kind
	}
	var ws []string
	for i, w := range c.Witnesses {
		if i == 3 {
			ws = append(ws, fmt.Sprintf("and %d more", len(c.Witnesses)-3))
			break
		}
		ws = append(ws, mdCell(clip(w, mdMaxWitness)))
	}
	return "| " + marker +
		" | " + mdEscape(string(c.Risk)) +
		" | " + mdEscape(c.Direction) +
		" | " + agentLabel(c.Agent) + mdCell(changeWhere(c)) +
		" | " + mdEscape(list) +
		" | " + side(c.Before) + " → " + side(c.After) +
		" | " + mdProse(clip(c.Why, mdMaxText)) +
		" | " + strings.Join(ws, ", ") + " |\n"
}

// mdMaxSuggestions bounds the suggestions the summary lists (each is also
// a review comment on its line, and all are in the JSON report).
const mdMaxSuggestions = 20

// mdSuggestions lists the proven narrower rules: where, the rule, what to
// write instead, and the proof in a sentence — and, when applying them
// would not clear the run, how many findings would still hold it.
func mdSuggestions(r report.Report) string {
	ss := r.Suggestions
	if len(ss) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Suggested narrower rules\n\n")
	if n := r.HoldingBeyondSuggestions(); n > 0 && decision(r) != report.DecisionAllow {
		fmt.Fprintf(&b, "Applying them narrows the rules they replace but does not by itself clear this run: %s would still hold the merge (a kept policy intent is still a new grant; other findings are not about these rules).\n\n", report.Plural(n, "finding"))
	}
	for i, sg := range ss {
		if i == mdMaxSuggestions {
			fmt.Fprintf(&b, "- … %s not listed here; `shipgate check --format json` lists them all.\n", report.Plural(len(ss)-i, "more suggestion"))
			break
		}
		rules := make([]string, len(sg.Rules))
		for j, r := range sg.Rules {
			rules[j] = mdCode(clip(r, mdMaxRule))
		}
		fmt.Fprintf(&b, "- %s: replace %s with %s. %s\n", mdCode(pathLine(sg.Path, sg.Line)), mdCode(clip(sg.Rule, mdMaxRule)),
			strings.Join(rules, " and "), mdProse(clip(sg.Why, mdMaxText)))
	}
	b.WriteString("\n")
	return b.String()
}

// mdAction is an action with its emoji.
func mdAction(a policy.Action) string {
	switch a {
	case "block":
		return "⛔ block"
	case "require_review":
		return "⚠️ review"
	case "advisory":
		return "ℹ️ advisory"
	}
	return mdEscape(string(a))
}

// mdFooter names the tool version and the limit of what it claims.
func mdFooter(r report.Report, o Options) string {
	v := "shipgate"
	if o.Version != "" {
		v += " " + mdEscape(clip(o.Version, 80))
	}
	s := "<sub>" + v + " · checked against " + mdEscape(agentfiles.CheckedAgainstText(r)) + " · Static configuration only: this is what the files permit, not what the agent did.</sub>\n"
	if o.Reproduce != "" {
		s += "\nReproduce: " + mdCode(clip(o.Reproduce, mdMaxText)) + "\n"
	}
	return s
}

// clip shortens s to at most n bytes at a UTF-8 boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// cutLines cuts s to at most n bytes at the end of a line (so no table row
// or code span is split), as a last resort when even the fixed parts of a
// summary do not fit.
func cutLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i >= 0 {
		return s[:i+1]
	}
	return ""
}

// mdEscape makes text safe in Markdown prose and in a table cell: Markdown
// punctuation is backslash-escaped, HTML is neutralised, pipes cannot end
// a cell, and control characters (newlines included) are shown as escapes.
func mdEscape(s string) string {
	s = plainText(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdProse renders an engine message for a table cell. Messages quote
// commands and rules between single backticks; when the backticks pair up,
// the quoted parts become code spans (their content escaped as code) and
// the rest is escaped as prose. Either way nothing from a file can open
// markup: an unpaired backtick is escaped like any other character.
func mdProse(s string) string {
	parts := strings.Split(s, "`")
	if len(parts) < 3 || len(parts)%2 == 0 {
		return mdEscape(s)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(mdEscape(p))
		} else {
			b.WriteString(mdCell(p))
		}
	}
	return b.String()
}

// mdCell is a code span inside a table cell: as mdCode, with pipes
// escaped, because GitHub splits table cells before it reads code spans
// (and drops the backslash of \| inside the span when it does).
func mdCell(s string) string {
	return mdCode(strings.ReplaceAll(plainText(s), "|", `\|`))
}

// mdCode wraps text in a code span that its content cannot close: the
// fence is one backtick longer than the longest run inside, padded with a
// space when the content starts or ends with a backtick (or with a space
// at both ends, which Markdown would strip). Control characters are shown
// as escapes.
func mdCode(s string) string {
	s = plainText(s)
	if s == "" {
		return "` `"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return fence + s + fence
}

// agentLabel names a row's agent before its place, for every agent but
// Claude Code (rows are grouped by agent, Claude Code first).
func agentLabel(agentName string) string {
	if agentName == "" || agentName == agentfiles.AgentClaudeCode || agentName == agentfiles.AgentShipgate {
		return ""
	}
	return "**" + mdEscape(agentfiles.AgentDisplay(agentName)) + "** "
}
