package claude

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/report"
)

// Ignores is the verb of a violation: Claude Code surely ignores a file
// whose value the schema refuses, and may where Shipgate cannot check
// every form the loader takes (it then fails closed).
func Ignores(v *claudeschema.Violation) string {
	if v.Uncertain {
		return "Claude Code may ignore (Shipgate treats it as ignored)"
	}
	return "Claude Code ignores"
}

// FixHint says how to make the file valid again.
func FixHint(v *claudeschema.Violation) string {
	if v.Path == "" {
		return ""
	}
	return fmt.Sprintf(" To fix it: write `%s` as %s, or remove it.", v.Path, v.Expected)
}

// LostRules names the deny and ask rules a version held ("2 deny rules
// and 1 ask rule"), or "".
func LostRules(d *Doc) string {
	if d == nil {
		return ""
	}
	nDeny, nAsk := len(d.RulesIn(lattice.Deny)), len(d.RulesIn(lattice.Ask))
	var lost []string
	if nDeny > 0 {
		lost = append(lost, report.Plural(nDeny, "deny rule"))
	}
	if nAsk > 0 {
		lost = append(lost, report.Plural(nAsk, "ask rule"))
	}
	return strings.Join(lost, " and ")
}
