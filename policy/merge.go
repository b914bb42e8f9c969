package policy

// Merge combines an organisation default (org) with a repository policy
// (repo) that extends it. The repository can only tighten what the
// organisation set:
//
//   - paths.watch and paths.ignore: the union (an org-ignored path stays
//     ignored);
//   - checks: per check, the stricter action and the higher risk, for the
//     union of the agents either scopes it to (every agent when either
//     does not scope it) — a merge only ever raises;
//   - exec_tier.extra: the union;
//   - ceiling: both apply — every allow rule must fit under the org's
//     ceiling and the repository's; must_deny rules of both must hold;
//   - intent: the union of every list; the stricter action;
//   - reviewers: the repository's review teams when it names any, else
//     the org's; block teams only from the org when the org names any (a
//     repository cannot choose who clears its own blocks).
//
// Either may be nil.
func Merge(org, repo *Policy) *Policy {
	switch {
	case org == nil:
		return repo
	case repo == nil:
		return org
	}
	m := &Policy{Version: 1, Source: repo.Source + " (extending " + org.Source + ")"}
	m.Paths.Watch = append(append([]Item(nil), org.Paths.Watch...), repo.Paths.Watch...)
	m.Paths.Ignore = append(append([]Item(nil), org.Paths.Ignore...), repo.Paths.Ignore...)
	m.Checks = map[string]CheckRule{}
	for id, r := range org.Checks {
		m.Checks[id] = r
	}
	for id, r := range repo.Checks {
		cur := m.Checks[id]
		if r.Action.Rank() > cur.Action.Rank() {
			cur.Action = r.Action
		}
		if RiskRank(r.Risk) > RiskRank(cur.Risk) {
			cur.Risk = r.Risk
		}
		if cur.Line == 0 {
			cur.Line = r.Line
		}
		if _, both := org.Checks[id]; both {
			cur.Agents = unionScope(cur.Agents, r.Agents)
		} else {
			cur.Agents = r.Agents
		}
		m.Checks[id] = cur
	}
	m.ExecTier.Extra = append(append([]Item(nil), org.ExecTier.Extra...), repo.ExecTier.Extra...)
	m.Ceilings = append(append([]Ceiling(nil), org.AllCeilings()...), repo.AllCeilings()...)
	m.Intent = Intent{
		Allowed: append(append([]Item(nil), org.Intent.Allowed...), repo.Intent.Allowed...),
		Asked:   append(append([]Item(nil), org.Intent.Asked...), repo.Intent.Asked...),
		Denied:  append(append([]Item(nil), org.Intent.Denied...), repo.Intent.Denied...),
		Action:  stricter(org.Intent.Action, repo.Intent.Action),
	}
	if len(org.Intent.Agents) > 0 || len(repo.Intent.Agents) > 0 {
		// Checked against every agent either names (claude-code when one
		// of them names none).
		a, b := org.Intent.Agents, repo.Intent.Agents
		if len(a) == 0 {
			a = []Item{{Value: "claude-code"}}
		}
		if len(b) == 0 {
			b = []Item{{Value: "claude-code"}}
		}
		m.Intent.Agents = unionItems(a, b)
	}
	m.Reviewers.Review = repo.Reviewers.Review
	if len(m.Reviewers.Review) == 0 {
		m.Reviewers.Review = org.Reviewers.Review
	}
	m.Reviewers.Block = org.Reviewers.Block
	if len(m.Reviewers.Block) == 0 {
		m.Reviewers.Block = repo.Reviewers.Block
	}
	return m
}

func stricter(a, b Action) Action {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// unionScope merges two agent scopes of a check raise: every agent when
// either is unscoped, else both lists.
func unionScope(a, b []Item) []Item {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	return unionItems(a, b)
}

func unionItems(a, b []Item) []Item {
	seen := map[string]bool{}
	var out []Item
	for _, it := range append(append([]Item(nil), a...), b...) {
		if !seen[it.Value] {
			seen[it.Value] = true
			out = append(out, it)
		}
	}
	return out
}
