package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// runValidatePolicy checks a policy file the way the App reads it, and
// prints each problem as file:line:column: message. Exit 0 when valid, 1
// when the file has errors, 2 when it cannot be read. "-" reads a file from
// standard input.
func runValidatePolicy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate-policy", "FILE [--org FILE]   (FILE - : standard input)", stderr)
	org := fs.String("org", "", "an organisation default (shipgate.yml of the org's .github repository) the file extends (-: standard input)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError(stderr, "validate-policy", "give one policy file, got %d", len(pos))
	}
	if pos[0] == "-" && *org == "-" {
		return usageError(stderr, "validate-policy", "only one of FILE and --org can be - (standard input)")
	}
	read := func(path string) (*policy.Policy, bool, error) {
		data, name, err := readInput(path, stdin, maxPolicySize)
		if err != nil {
			return nil, false, err
		}
		p, err := policy.Parse(name, data, agentfiles.PolicyOptions())
		var es policy.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				fmt.Fprintln(stdout, e.Error())
			}
			return nil, false, nil
		}
		return p, err == nil, err
	}
	var orgPol *policy.Policy
	if *org != "" {
		p, ok, err := read(*org)
		if err != nil {
			return usageError(stderr, "validate-policy", "--org: %v", err)
		}
		if !ok {
			return exitFail
		}
		orgPol = p
	}
	p, ok, err := read(pos[0])
	if err != nil {
		return usageError(stderr, "validate-policy", "%v", err)
	}
	if !ok {
		return exitFail
	}
	m := policy.Merge(orgPol, p)
	raised, notes := checkRaises(m)
	var parts []string
	if raised > 0 {
		parts = append(parts, counted(raised, "check")+" raised")
	}
	if n := len(m.ExtraLaunchers()); n > 0 {
		parts = append(parts, counted(n, "extra launcher"))
	}
	for _, c := range m.AllCeilings() {
		parts = append(parts, fmt.Sprintf("a ceiling of %s and %s from %s", counted(len(c.Allow), "allow rule"), counted(len(c.MustDeny), "must_deny rule"), c.Source))
	}
	if n := len(m.Intent.Allowed) + len(m.Intent.Asked) + len(m.Intent.Denied); n > 0 {
		parts = append(parts, counted(n, "intent"))
	}
	if n := len(m.Reviewers.Review) + len(m.Reviewers.Block); n > 0 {
		parts = append(parts, counted(n, "reviewer team"))
	}
	summary := "the engine's defaults"
	if len(parts) > 0 {
		summary = strings.Join(parts, "; ")
	}
	name := pos[0]
	if name == "-" {
		name = "<stdin>"
	}
	fmt.Fprintf(stdout, "%s: valid: %s.\n", name, summary)
	for _, n := range notes {
		fmt.Fprintf(stdout, "%s: note: %s\n", name, n)
	}
	return exitOK
}

// checkRaises counts the checks the policy really raises (an action or a
// risk above the check's default) and says what it ignores: a policy only
// raises, so a risk at or below the default changes nothing, and a file
// that meant to lower one must be told so rather than called valid alone.
func checkRaises(m *policy.Policy) (raised int, notes []string) {
	ids := make([]string, 0, len(m.Checks))
	for id := range m.Checks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := m.Checks[id]
		def := checkDefault(id)
		up := false
		if r.Action != "" {
			if r.Action.Rank() > def.Action.Rank() {
				up = true
			} else {
				notes = append(notes, fmt.Sprintf("%s: action %s is the check's default; it changes nothing.", id, r.Action))
			}
		}
		if r.Risk != "" {
			if policy.RiskRank(r.Risk) > policy.RiskRank(string(def.Risk)) {
				up = true
			} else {
				notes = append(notes, fmt.Sprintf("%s: risk %s is not above the check's default (%s): a policy only raises, so it is ignored.", id, r.Risk, def.Risk))
			}
		}
		if up {
			raised++
		}
	}
	return raised, notes
}

// checkDefault is the catalogue entry of a check.
func checkDefault(id string) report.CheckInfo {
	for _, c := range report.Catalogue {
		if c.ID == id {
			return c
		}
	}
	return report.CheckInfo{ID: id}
}

// counted is "1 rule", "2 rules": a count with its noun.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
