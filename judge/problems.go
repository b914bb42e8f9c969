package judge

import (
	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// problem is one entry of a file that its agent reads differently from
// how it looks — a key written twice, a rule the agent skips, a key it
// ignores — in the one form the problems pipeline (problemFindings)
// judges, whichever agent's model found it: claudeProblems reads Claude
// Code's (claude.Doc), modelProblems every other agent's (agent.Doc).
type problem struct {
	kind      string // agent.ProblemDuplicateKey, ProblemInvalidRule, ProblemUnknownKey (Claude Code's also invalid_utf8, lone_surrogate)
	key       string // where: the key path or the list entry
	line      int
	restricts bool // a skipped deny or ask entry: it would have protected something
	// message is the finding's message after the file's path; evidence
	// its evidence.
	message, evidence string
	// findingKey is the finding's Key. Approvals bind to keys (the delta
	// digest), so each model keeps the spelling it has always had.
	findingKey string
	// seen is what makes a head problem one the base already had.
	seen string
}

// claudeProblems are the problems of one version of a Claude Code file
// (nil-safe).
func claudeProblems(path string, d *claude.Doc) []problem {
	if d == nil {
		return nil
	}
	out := make([]problem, 0, len(d.Problems))
	for _, p := range d.Problems {
		q := problem{kind: p.Kind, key: p.Key, line: p.Line, restricts: p.List == "deny" || p.List == "ask",
			message: sentence(p.Message), evidence: p.Key, seen: p.Kind + "|" + p.Key + "|" + p.Message}
		switch p.Kind {
		case "duplicate_key", "invalid_utf8", "lone_surrogate":
			q.message, q.evidence = p.Message, p.Kind+": "+p.Key
			q.findingKey = "problem|" + path + "|" + p.Kind + "|" + p.Key
		case "invalid_rule":
			q.findingKey = "problem|" + path + "|" + p.Key
		case "unknown_key":
			q.findingKey = "problem|" + path + "|unknown|" + p.Key
		}
		out = append(out, q)
	}
	return out
}

// modelProblems are the problems of one version of another agent's file,
// read into the agent-neutral model (nil-safe).
func modelProblems(path string, d *agent.Doc) []problem {
	if d == nil {
		return nil
	}
	out := make([]problem, 0, len(d.Problems))
	for _, p := range d.Problems {
		out = append(out, problem{kind: p.Kind, key: p.Key, line: p.Pos.Line, restricts: p.Restricts,
			message: sentence(p.Message), evidence: p.Key, findingKey: "problem|" + path + "|" + p.Kind + "|" + p.Key,
			seen: p.Kind + "|" + p.Key + "|" + p.Message})
	}
	return out
}

// problemFindings reports the problems of a file's head that its base
// did not have, for every agent alike: a key written twice (or text the
// parser cannot read as written) is DUPLICATE-KEY, an entry the agent
// skips RULE-INVALID (medium when it was a deny or ask entry), a key it
// ignores UNKNOWN-KEY; other kinds (a file dropped whole) are reported
// elsewhere. base nil: the file is new.
func (e *engine) problemFindings(f *fileState, base, head []problem) {
	had := make(map[string]bool, len(base))
	for _, p := range base {
		had[p.seen] = true
	}
	display := agentfiles.AgentDisplay(agentfiles.AgentClaudeCode)
	if f.agent != "" {
		display = agentfiles.AgentDisplay(f.agent)
	}
	for _, p := range head {
		if had[p.seen] {
			continue
		}
		fd := report.Finding{Agent: f.agent, Path: f.Path, Line: p.line, HeadLine: max(p.line, 1), Evidence: p.evidence,
			Message: f.Path + ": " + p.message, Key: p.findingKey}
		switch p.kind {
		case agent.ProblemDuplicateKey, "invalid_utf8", "lone_surrogate":
			fd.CheckID, fd.Title = report.CheckDuplicateKey, "read differently from how it looks"
		case agent.ProblemInvalidRule:
			fd.CheckID, fd.Title, fd.Risk = report.CheckRuleInvalid, "entry "+display+" skips", rating.RiskLow
			if p.restricts {
				fd.Risk = rating.RiskMedium
			}
		case agent.ProblemUnknownKey:
			fd.CheckID, fd.Title = report.CheckUnknownKey, "unknown key "+p.key
		case agent.ProblemRecovered:
			// Read as the agent reads it: said, so the author fixes it.
			fd.CheckID, fd.Title, fd.Action, fd.Risk = report.CheckParseFailed, "a syntax error "+display+" recovers from", policy.Advisory, rating.RiskLow
		default:
			continue
		}
		e.finding(fd)
	}
}
