package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/report"
)

// RenderOptions are what a rendering needs beyond the Report itself: the
// words that place the comparison (which refs, which tool version) and the
// size budget of the surface it goes to. The zero value renders sensibly.
type Options struct {
	// Subject names what was compared, e.g. "Agent permission review
	// origin/main (1a2b3c4d) -> working tree". Empty means a generic header.
	Subject string
	// Reproduce is a command line that repeats this run; printed last.
	Reproduce string
	// Version is the Shipgate version, shown in footers and SARIF.
	Version string
	// MaxBytes bounds the Markdown rendering (GitHub's check-run summary
	// limit is 65,535 characters); 0 means DefaultMaxBytes, a negative
	// value means no room (an empty rendering).
	MaxBytes int
	// Clearing and Preamble are Markdown the caller writes (trusted, not
	// escaped): Clearing goes right under the verdict (who can clear the
	// run and how), Preamble after the decision line (the run's context).
	// Both count against MaxBytes.
	Clearing, Preamble string
}

// DefaultMaxBytes is the Markdown budget when RenderOptions.MaxBytes is 0:
// under GitHub's 65,535-character summary limit with room to spare, counted
// in bytes (never fewer than characters) so the limit holds for any text.
const DefaultMaxBytes = 65000

// Text renders the Report for a terminal: a header, each change with its
// before → after, why and witnesses, the findings, a summary with the
// decision, and the coverage block that says what this run established —
// including files it could not compare, which are never a silent pass.
// Text taken from files is shown with control characters escaped, so a
// crafted rule cannot move the cursor or hide a line.
func Text(r report.Report, o Options) string {
	var b strings.Builder
	subject := o.Subject
	if subject == "" {
		subject = "Agent permission review"
	}
	b.WriteString(plainText(subject) + "\n\n")

	multi := multiAgent(r)
	group := ""
	for _, c := range r.Changes {
		if multi && c.Agent != group {
			group = c.Agent
			fmt.Fprintf(&b, "[%s]\n", agentfiles.AgentDisplay(group))
		}
		marker := " "
		if c.Expands {
			marker = "⚠"
		}
		fmt.Fprintf(&b, "%s %s  %s  %s", marker, orDash(string(c.Risk)), c.Direction, plainText(changeWhere(c)))
		if c.Kind != report.KindRule && c.Kind != "" {
			fmt.Fprintf(&b, "  (%s)", c.Kind)
		}
		b.WriteString("\n")
		before, after := transition(c)
		fmt.Fprintf(&b, "    %s → %s\n", plainText(before), plainText(after))
		if c.Why != "" {
			fmt.Fprintf(&b, "    %s\n", plainText(c.Why))
		}
		if len(c.Witnesses) > 0 {
			ws := make([]string, len(c.Witnesses))
			for i, w := range c.Witnesses {
				ws[i] = witnessText(w)
			}
			fmt.Fprintf(&b, "    %s %s\n", witnessLabel(c), strings.Join(ws, ", "))
		}
		b.WriteString("\n")
	}

	if len(r.Findings) > 0 {
		b.WriteString("Findings:\n")
		group := ""
		for _, f := range r.Findings {
			if multi && f.Agent != group {
				group = f.Agent
				fmt.Fprintf(&b, "  [%s]\n", agentfiles.AgentDisplay(group))
			}
			action := string(f.Action)
			if f.Cleared != "" {
				action += " (approved by " + plainText(f.Cleared) + ")"
			}
			fmt.Fprintf(&b, "  %s  %s  %s  %s\n", action, f.CheckID, orDash(string(f.Risk)), plainText(findingWhere(f)))
			fmt.Fprintf(&b, "    %s\n", plainText(f.Message))
		}
		b.WriteString("\n")
	}

	if len(r.Suggestions) > 0 {
		b.WriteString("Suggested narrower rules:\n")
		for _, sg := range r.Suggestions {
			fmt.Fprintf(&b, "  %s  %s → %s\n", plainText(pathLine(sg.Path, sg.Line)), plainText(sg.Rule), plainText(strings.Join(sg.Rules, ", ")))
			fmt.Fprintf(&b, "    %s\n", plainText(sg.Why))
		}
		b.WriteString("\n")
	}

	limited := limitedFiles(r)
	switch {
	case len(r.Files) == 0 && len(r.Changes) == 0 && len(r.Findings) == 0:
		b.WriteString("No agent-config files were given, so nothing was compared. Decision: " + string(decision(r)) + ".\n")
	case len(r.Changes) == 0 && len(r.Findings) == 0 && len(limited) == 0:
		b.WriteString("No permission changes detected. Decision: " + string(decision(r)) + ".\n")
	default:
		fmt.Fprintf(&b, "%s, %d widening what the agent may do (⚠). Decision: %s.\n", report.Plural(len(r.Changes), "change"), widenings(r), decision(r))
	}
	if len(limited) > 0 {
		fmt.Fprintf(&b, "Not compared: %s. Nothing in this report is a claim that the change to %s is safe.\n",
			plainText(strings.Join(limited, ", ")), map[bool]string{true: "it", false: "them"}[len(limited) == 1])
	}
	b.WriteString("\nWhat this run established:\n")
	for _, fs := range coverageOrder(r.Files) {
		fmt.Fprintf(&b, "  %s: %s\n", plainText(fs.Path), plainText(coverageWords(r, fs)))
	}
	if len(r.Files) == 0 {
		b.WriteString("  no agent-config file was read\n")
	}
	b.WriteString("Checked against " + plainText(agentfiles.CheckedAgainstText(r)) + ". Static configuration only: this is what the files permit, not what the agent did.\n")
	if o.Version != "" {
		fmt.Fprintf(&b, "\nCompared by shipgate %s.\n", plainText(o.Version))
	}
	if o.Reproduce != "" {
		if o.Version == "" {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Reproduce: %s\n", plainText(o.Reproduce))
	}
	return b.String()
}

// multiAgent reports whether the rows concern more than one agent (the
// text output then heads each agent's group; Shipgate's policy file does
// not count).
func multiAgent(r report.Report) bool {
	seen := ""
	other := func(a string) bool {
		if a == agentfiles.AgentShipgate || a == "" {
			return false
		}
		if seen != "" && a != seen {
			return true
		}
		seen = a
		return false
	}
	for _, c := range r.Changes {
		if other(c.Agent) {
			return true
		}
	}
	for _, f := range r.Findings {
		if other(f.Agent) {
			return true
		}
	}
	return false
}

// decision is the Report's decision, "allow" when unset.
func decision(r report.Report) report.Decision {
	if r.Decision == "" {
		return report.DecisionAllow
	}
	return r.Decision
}

// widenings counts the changes the engine called an expansion.
func widenings(r report.Report) int {
	n := 0
	for _, c := range r.Changes {
		if c.Expands {
			n++
		}
	}
	return n
}

// transition returns the two sides of a change as a reviewer reads them:
// permission rules prefixed with their list ("allow: Bash(npm *)"), an
// absent side as "—". Moved rows already carry their lists.
func transition(c report.Change) (before, after string) {
	side := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "—"
		}
		if c.Kind == report.KindRule && c.List != "" && c.Direction != report.DirMoved {
			return c.List + ": " + s
		}
		return s
	}
	return side(c.Before), side(c.After)
}

// witnessLabel says what a change's witnesses are: calls a new allow rule
// lets through without a prompt, worded for the tool (runs, reads, edits,
// fetches, calls), or calls a removed deny or ask rule no longer stops.
func witnessLabel(c report.Change) string {
	if c.Kind != report.KindRule {
		return "now possible:"
	}
	list := c.List
	if c.Direction == report.DirMoved {
		// A move from deny frees what the deny stopped, whatever the target.
		if from, _, ok := strings.Cut(c.Before, ": "); ok && from == "deny" && list != "allow" {
			list = "deny"
		}
	}
	switch list {
	case "deny":
		return "no longer denied:"
	case "ask":
		return "no longer asked about:"
	}
	rule := c.After
	if c.Direction == report.DirMoved {
		_, rule, _ = strings.Cut(rule, ": ")
	}
	tool, _, _ := strings.Cut(rule, "(")
	switch {
	case tool == "Read" || tool == "Glob" || tool == "Grep":
		return "now reads:"
	case tool == "Edit" || tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit":
		return "now edits:"
	case tool == "WebFetch":
		return "now fetches:"
	case tool == "WebSearch":
		return "now searches:"
	case strings.HasPrefix(tool, "mcp__"):
		return "now calls:"
	case tool == "Bash" || tool == "PowerShell":
		return "now runs:"
	}
	return "now allowed:"
}

// witnessText shows a witness as is, quoted when it would be misread in a
// comma-separated list (empty, padded, or containing ", ").
func witnessText(w string) string {
	if w == "" || strings.TrimSpace(w) != w || strings.Contains(w, ", ") || hasControl(w) {
		return strconv.Quote(w)
	}
	return w
}

// limitedFiles lists the files this run could not compare.
func limitedFiles(r report.Report) []string {
	var out []string
	for _, fs := range r.Files {
		if isLimited(fs.Status) {
			out = append(out, fs.Path)
		}
	}
	return out
}

func isLimited(status string) bool {
	switch status {
	case report.StatusCompared, report.StatusAdded, report.StatusDeleted, report.StatusUnchanged:
		return false
	}
	return true
}

// coverageOrder puts the files the run could not compare first (as the
// original tool orders blocking limits first), then the compared files,
// then the unchanged ones read only for the effective view; by path within
// each group.
func coverageOrder(fs []report.FileStatus) []report.FileStatus {
	rank := func(s string) int {
		switch {
		case isLimited(s):
			return 0
		case s == report.StatusUnchanged:
			return 2
		}
		return 1
	}
	out := make([]report.FileStatus, 0, len(fs))
	for g := 0; g <= 2; g++ {
		for _, f := range fs {
			if rank(f.Status) == g {
				out = append(out, f)
			}
		}
	}
	return out
}

// coverageWords says in words what the run did with one file. A file it
// could not compare says so, with the reason, and whether that is an input
// limit of this run or something Claude Code itself trips on.
func coverageWords(r report.Report, fs report.FileStatus) string {
	rows := report.Plural(fs.Rows, "row")
	withDetail := func(s string) string {
		if fs.Detail != "" {
			return s + " (" + strings.TrimSuffix(fs.Detail, ".") + ")"
		}
		return s
	}
	switch fs.Status {
	case report.StatusCompared:
		return withDetail("compared; " + rows)
	case report.StatusAdded:
		return withDetail("added (new file); " + rows)
	case report.StatusDeleted:
		return withDetail("deleted; " + rows)
	case report.StatusUnchanged:
		return "unchanged (read for the effective view only)"
	case report.StatusTooLarge:
		return "cannot compare: " + detailOr(fs, "the file is larger than the 1 MiB Shipgate reads") +
			". This is an input limit, not a finding about the change"
	case report.StatusParseFailed:
		if f, ok := parseFinding(r, fs.Path); ok && f.Evidence == "json_parse_failed" {
			where := ""
			if f.Line > 0 {
				where = fmt.Sprintf(" (line %d)", f.Line)
			}
			return "cannot compare: the head version does not parse as a settings file" + where +
				"; Claude Code cannot read it either and drops the whole file (" + f.CheckID + ")"
		}
		return "cannot compare: " + detailOr(fs, "the head version could not be read") +
			". This is an input limit, not a finding about the change"
	}
	return "cannot compare: " + fs.Status + withDetail("")
}

func detailOr(fs report.FileStatus, def string) string {
	if fs.Detail == "" {
		return def
	}
	return strings.TrimSuffix(fs.Detail, ".")
}

// parseFinding returns the CONFIG-PARSE-FAILED finding on a path, whose
// evidence says why the file could not be read: json_parse_failed,
// too_large or unreadable.
func parseFinding(r report.Report, path string) (report.Finding, bool) {
	for _, f := range r.Findings {
		if f.CheckID == report.CheckParseFailed && f.Path == path {
			return f, true
		}
	}
	return report.Finding{}, false
}

// changeWhere is a change's "path:line"; a removed row's line is in the
// base version, and says so.
func changeWhere(c report.Change) string {
	return where(c.Path, c.Line, c.HeadLine, c.Direction == report.DirRemoved)
}

// findingWhere is a finding's "path:line"; a line of the base version
// (what the finding is about was removed) says so.
func findingWhere(f report.Finding) string { return where(f.Path, f.Line, f.HeadLine, f.Base) }

// where is "path:line". For something removed, line is the base's: the
// place is the head line where its annotation sits (the list it left), with
// the base's line beside it, so the tables and the annotations name one
// line ("settings.json:12 (line 13 at the base)").
func where(path string, line, headLine int, base bool) string {
	switch {
	case base && line > 0 && headLine > 0:
		return pathLine(path, headLine) + fmt.Sprintf(" (line %d at the base)", line)
	case base && line > 0:
		return pathLine(path, line) + " (base)"
	}
	return pathLine(path, line)
}

// pathLine is "path:line", or the path alone when the line is unknown.
func pathLine(path string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", path, line)
	}
	return path
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// hasControl reports whether s holds a control or format character a
// terminal or a Markdown viewer could act on.
func hasControl(s string) bool {
	for _, r := range s {
		if unsafeRune(r) {
			return true
		}
	}
	return !utf8.ValidString(s)
}

func unsafeRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// plainText makes text from a file safe to print on one line: control and
// invisible formatting characters (escape sequences, newlines, bidi
// overrides) are shown as Go escapes instead of acting on the terminal.
func plainText(s string) string {
	if !hasControl(s) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
