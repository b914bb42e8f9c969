package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shipgate-app/shipgate/diff"
	"github.com/shipgate-app/shipgate/policy"
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
		p, err := policy.Parse(name, data, diff.PolicyOptions())
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
	var parts []string
	if n := len(m.Checks); n > 0 {
		parts = append(parts, fmt.Sprintf("%d check(s) raised", n))
	}
	if n := len(m.ExtraLaunchers()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d extra launcher(s)", n))
	}
	for _, c := range m.AllCeilings() {
		parts = append(parts, fmt.Sprintf("a ceiling of %d allow rule(s) and %d must_deny rule(s) from %s", len(c.Allow), len(c.MustDeny), c.Source))
	}
	if n := len(m.Intent.Allowed) + len(m.Intent.Asked) + len(m.Intent.Denied); n > 0 {
		parts = append(parts, fmt.Sprintf("%d intent(s)", n))
	}
	if n := len(m.Reviewers.Review) + len(m.Reviewers.Block); n > 0 {
		parts = append(parts, fmt.Sprintf("%d reviewer team(s)", n))
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
	return exitOK
}
