package policy

// Merge combines an organisation default (org) with a repository policy
// (repo) that extends it. The repository can only tighten what the
// organisation set:
//
//   - paths.watch and paths.ignore: the union (an org-ignored path stays
//     ignored);
//   - checks: per check, the stricter action and the higher risk;
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
