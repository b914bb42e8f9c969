package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
)

// coversJSON is the machine-readable answer of `shipgate covers --format
// json`, a stable contract (DESIGN.md section 4).
type coversJSON struct {
	Verdict string `json:"verdict"`
	Witness string `json:"witness"`
	Reason  string `json:"reason"`
}

// coversExit is the exit status of `shipgate covers`, so scripts can branch
// on the answer without parsing it: 0 yes, 1 no, 3 unknown (2 stays the
// usage error of every subcommand).
func coversExit(a lattice.Answer) int {
	switch a {
	case lattice.Yes:
		return exitOK
	case lattice.No:
		return exitFail
	}
	return exitUnknown
}

func runCovers(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("covers", "A B [--list allow|ask|deny] [--format text|json]   (exit 0 yes, 1 no, 3 unknown, 2 usage error)", stderr)
	list := fs.String("list", "allow", "the permission list both rules are declared in: allow, ask or deny")
	format := fs.String("format", "text", "output format: text or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError(stderr, "covers", "need exactly two rules, got %d", len(pos))
	}
	l, err := lattice.ParseList(*list)
	if err != nil {
		return usageError(stderr, "covers", "--list: %v", err)
	}
	if err := oneOf("format", *format, "text", "json"); err != nil {
		return usageError(stderr, "covers", "%v", err)
	}
	for i, p := range pos {
		if strings.TrimSpace(p) == "" {
			return usageError(stderr, "covers", "rule %s is blank: give a rule such as 'Bash(npm test *)'", "AB"[i:i+1])
		}
	}
	a, b := lattice.ParseIn(l, pos[0]), lattice.ParseIn(l, pos[1])
	for _, r := range []lattice.Rule{a, b} {
		if r.Malformed != "" {
			fmt.Fprintf(stderr, "shipgate covers: warning: %s: %s; Claude Code skips such a rule, so it matches nothing\n", r.Text, r.Malformed)
		}
	}
	v := lattice.Covers(a, b)
	witnesses := lattice.Witnesses(a, b, 4)
	if len(witnesses) > 0 && witnesses[0] != v.Witness {
		v.Reason = fmt.Sprintf("%s matches %s, %s does not", b.Text, witnesses[0], a.Text)
	}
	if *format == "json" {
		out := coversJSON{Verdict: v.Answer.String(), Reason: v.Reason}
		if len(witnesses) > 0 {
			out.Witness = witnesses[0].String()
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "shipgate covers: writing output: %v\n", err)
			return exitUsage
		}
		return coversExit(v.Answer)
	}
	switch v.Answer {
	case lattice.Yes:
		fmt.Fprintf(stdout, "yes: %s covers %s\n", a.Text, b.Text)
	case lattice.No:
		fmt.Fprintf(stdout, "no: %s does not cover %s\n", a.Text, b.Text)
		fmt.Fprintf(stdout, "witness: %s\n", witnesses[0])
		for _, w := range witnesses[1:] {
			fmt.Fprintf(stdout, "also:    %s\n", w)
		}
	default:
		fmt.Fprintf(stdout, "unknown: whether %s covers %s depends on how Claude Code reads an ambiguous rule\n", a.Text, b.Text)
	}
	fmt.Fprintf(stdout, "reason: %s\n", v.Reason)
	return coversExit(v.Answer)
}
