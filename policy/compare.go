package policy

import (
	"fmt"
	"sort"
)

// Loosenings lists how head lets through more than base: a raised check
// lowered or dropped, a ceiling rule added or the ceiling removed, a
// must_deny rule or an intent dropped, a path newly ignored, a launcher
// no longer rated, review teams changed. A policy change is a change to
// the gate itself, so a pull request that loosens the policy is held for
// review (it is evaluated under the base's policy, but merged it governs
// every later pull request). Either side may be nil (no policy).
func Loosenings(base, head *Policy) []string {
	var out []string
	if base == nil {
		return nil // from the defaults, a policy can only raise
	}
	if head == nil {
		return []string{"the policy file is removed: the engine's defaults apply again"}
	}
	for id, b := range base.Checks {
		h := head.Checks[id]
		if h.Action.Rank() < b.Action.Rank() {
			out = append(out, fmt.Sprintf("checks.%s.action lowered from %s to %s", id, b.Action, orDefault(string(h.Action))))
		}
		if RiskRank(h.Risk) < RiskRank(b.Risk) {
			out = append(out, fmt.Sprintf("checks.%s.risk lowered from %s to %s", id, b.Risk, orDefault(h.Risk)))
		}
		if _, ok := head.Checks[id]; ok && len(h.Agents) > 0 {
			if len(b.Agents) == 0 {
				out = append(out, fmt.Sprintf("checks.%s is scoped to agents %s: other agents' findings are no longer raised", id, joinItems(h.Agents)))
			} else {
				for _, a := range b.Agents {
					if !h.AppliesTo(a.Value) {
						out = append(out, fmt.Sprintf("checks.%s.agents no longer names %s", id, a.Value))
					}
				}
			}
		}
	}
	for _, a := range base.IntentAgents() {
		found := false
		for _, b := range head.IntentAgents() {
			found = found || a == b
		}
		if !found {
			out = append(out, fmt.Sprintf("intent.agents no longer names %s: its intents are not checked", a))
		}
	}
	missing := func(b, h []Item, what string) {
		have := map[string]bool{}
		for _, i := range h {
			have[i.Value] = true
		}
		for _, i := range b {
			if !have[i.Value] {
				out = append(out, fmt.Sprintf("%s %q removed", what, i.Value))
			}
		}
	}
	added := func(b, h []Item, what string) {
		had := map[string]bool{}
		for _, i := range b {
			had[i.Value] = true
		}
		for _, i := range h {
			if !had[i.Value] {
				out = append(out, fmt.Sprintf("%s %q added", what, i.Value))
			}
		}
	}
	added(base.Paths.Ignore, head.Paths.Ignore, "paths.ignore")
	missing(base.Paths.Watch, head.Paths.Watch, "paths.watch")
	missing(base.ExecTier.Extra, head.ExecTier.Extra, "exec_tier.extra")
	switch {
	case base.Ceiling != nil && head.Ceiling == nil:
		out = append(out, "the ceiling is removed")
	case base.Ceiling != nil:
		if base.Ceiling.HasAllow && !head.Ceiling.HasAllow {
			out = append(out, "ceiling.allow is removed: allow rules are no longer bounded")
		} else if base.Ceiling.HasAllow {
			added(base.Ceiling.Allow, head.Ceiling.Allow, "ceiling.allow")
		}
		missing(base.Ceiling.MustDeny, head.Ceiling.MustDeny, "ceiling.must_deny")
		if actionOf(head.Ceiling.Action).Rank() < actionOf(base.Ceiling.Action).Rank() {
			out = append(out, "ceiling.action lowered")
		}
	}
	missing(base.Intent.Allowed, head.Intent.Allowed, "intent.allowed")
	missing(base.Intent.Asked, head.Intent.Asked, "intent.asked")
	missing(base.Intent.Denied, head.Intent.Denied, "intent.denied")
	if actionOf(head.Intent.Action).Rank() < actionOf(base.Intent.Action).Rank() {
		out = append(out, "intent.action lowered")
	}
	added(base.Reviewers.Review, head.Reviewers.Review, "reviewers.review team")
	added(base.Reviewers.Block, head.Reviewers.Block, "reviewers.block team")
	sort.Strings(out)
	return out
}

func orDefault(s string) string {
	if s == "" {
		return "the default"
	}
	return s
}

// actionOf is a ceiling's or an intent's action, block by default.
func actionOf(a Action) Action {
	if a == "" {
		return Block
	}
	return a
}

func joinItems(its []Item) string {
	vs := values(its)
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
