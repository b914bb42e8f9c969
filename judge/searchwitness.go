package judge

import (
	"github.com/shipgate-app/shipgate/lattice"
)

// searchOutside are the folders outside the project a bare Grep or Glob
// allow newly lets the agent search (measured on Claude Code 2.1.328 with
// the tools offered, `--tools Bash,Read,Grep,Glob`: with no rule Grep and
// Glob of /etc and ~/.ssh ask; under a bare `Grep` or `Glob` allow they
// run, "Found 197 files /etc/shadow …"; a Read deny still stops them).
// Each goes with the Read call that a Read deny or ask rule on it would
// stop.
var searchOutside = []struct{ dir, read string }{
	{"~/.ssh", "~/.ssh/id_rsa"},
	{"/etc", "/etc/passwd"},
	{"~/.aws", "~/.aws/credentials"},
}

// searchWitnesses are the concrete calls a bare Grep or Glob allow newly
// lets run — a search of a folder outside the project — not stopped by a
// deny or ask rule of stop (a Grep or Glob rule, or the Read rule on the
// folder's file). Nil for any other rule.
func searchWitnesses(r lattice.Rule, stop []lattice.Rule) []string {
	if (r.Canonical != "Grep" && r.Canonical != "Glob") || r.HasSpecifier || r.List != lattice.Allow {
		return nil
	}
	var out []string
	for _, o := range searchOutside {
		c := lattice.Call{Tool: r.Canonical, Arg: o.dir}
		if stoppedBy(c, stop) || stoppedBy(lattice.Call{Tool: "Read", Arg: o.read}, stop) || stoppedBy(lattice.Call{Tool: r.Canonical}, stop) {
			continue
		}
		out = append(out, c.String())
		if len(out) == 2 {
			break
		}
	}
	return out
}

// searchWhy says what a bare Grep or Glob allow lets run, and when.
func searchWhy(tool string) string {
	return "a bare " + tool + " allow lets " + tool + " search folders outside the project without a prompt (with no rule it asks; measured on Claude Code " +
		lattice.ClaudeCodeVersion + "); " + lattice.ClaudeCodeVersion + " offers " + tool + " only when the session's --tools or --allowedTools names it (otherwise the agent searches with grep and find through Bash)"
}

// unconsultedSearchRule reports an allow rule for Grep or Glob with a
// pattern, which Claude Code does not consult: measured on 2.1.328 with
// the tools offered, Grep(//etc/**), Grep(~/**), Grep(*) and the same Glob
// rules leave a search of /etc and ~/.ssh asking, exactly as with no rule
// (only the bare tool name and Read rules decide); inside the project a
// search runs with no rule.
func unconsultedSearchRule(r lattice.Rule) (string, bool) {
	if (r.Canonical != "Grep" && r.Canonical != "Glob") || !r.HasSpecifier || r.List != lattice.Allow {
		return "", false
	}
	return "Claude Code " + lattice.ClaudeCodeVersion + " does not consult a " + r.Canonical + " rule with a pattern (measured: " + r.Canonical +
		"(//etc/**), " + r.Canonical + "(~/**) and " + r.Canonical + "(*) leave a search of /etc asking, as with no rule; a search inside the project needs no rule; only the bare " +
		r.Canonical + " and Read rules decide a search)", true
}
