package judge

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// unreadInput reports the files the gatherer left unread past
// MaxInputBytes (Input.Unread): one finding that names them and blocks,
// as too_many_files does, since any of them may hold a wildcard grant.
func (e *engine) unreadInput(paths []string) {
	if len(paths) == 0 {
		return
	}
	ps := append([]string(nil), paths...)
	sort.Strings(ps)
	ps = slices.Compact(ps)
	named := ps[:min(len(ps), 10)]
	msg := fmt.Sprintf("this change's agent-config files add up to more than the %d MiB Shipgate reads in one evaluation, so %d of them were not read: %s",
		report.MaxInputBytes>>20, len(ps), strings.Join(named, ", "))
	if len(named) < len(ps) {
		msg += fmt.Sprintf(" and %d more", len(ps)-len(named))
	}
	msg += ". They may grant anything (a wildcard allow rule such as Bash(*)), so this blocks: split the pull request, or bring the files down to the size of real configuration (kilobytes)."
	e.finding(report.Finding{CheckID: report.CheckParseFailed, Risk: rating.RiskCritical, Action: policy.Block, Path: ps[0], Line: 1, HeadLine: 1,
		Evidence: "input_too_large", Message: msg, Title: fmt.Sprintf("%d agent-config files not read (input over %d MiB)", len(ps), report.MaxInputBytes>>20), Key: "input_too_large"})
}
