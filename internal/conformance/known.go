package conformance

import (
	_ "embed"
	"fmt"
	"strings"
)

// Known is one known disagreement class: a run reports the disagreements
// it covers and does not fail on them. Each names the Claude Code version
// it was measured on and why the two sides differ.
type Known struct {
	Class, Label     string // globs over Case.Class and Case.Label (* is any text)
	Claude, Shipgate string // the decisions, or "*"
	Version          string // the Claude Code version it was measured on
	Reason           string
	Line             int // line in known.txt
}

// String renders the entry as it is written in known.txt.
func (k Known) String() string {
	return strings.Join([]string{k.Class, k.Label, k.Claude, k.Shipgate, k.Version, k.Reason}, " | ")
}

//go:embed known.txt
var knownFile string

// KnownDisagreements is the parsed known.txt.
func KnownDisagreements() ([]Known, error) { return ParseKnown(knownFile) }

// ParseKnown reads a known-disagreement list: one entry a line,
// `class | label | claude | shipgate | version | reason`, where class and
// label are globs and claude/shipgate are decisions or `*`; blank lines
// and lines starting with # are skipped. Only the reason may contain a |.
func ParseKnown(text string) ([]Known, error) {
	var out []Known
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "|", 6) // the reason may hold a |
		if len(f) != 6 {
			return nil, fmt.Errorf("known.txt:%d: want 6 fields separated by |, got %d: class | label | claude | shipgate | version | reason", i+1, len(f))
		}
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		k := Known{Class: f[0], Label: f[1], Claude: f[2], Shipgate: f[3], Version: f[4], Reason: f[5], Line: i + 1}
		for _, d := range []string{k.Claude, k.Shipgate} {
			switch Decision(d) {
			case Allow, Ask, Deny, Classifier, Unclassified, "unknown", "*":
			default:
				return nil, fmt.Errorf("known.txt:%d: %q is not a decision (allow, ask, deny, classifier, unknown, unclassified or *)", i+1, d)
			}
		}
		if k.Version == "" || k.Reason == "" {
			return nil, fmt.Errorf("known.txt:%d: every entry names the Claude Code version and a reason", i+1)
		}
		if !isClass(k.Class) {
			return nil, fmt.Errorf("known.txt:%d: %q is not a corpus class: an entry names its class (one of %s, or one with %q), not a glob over several",
				i+1, k.Class, strings.Join(Classes, ", "), MatchesSuffix)
		}

		out = append(out, k)
	}
	return out, nil
}

// isClass reports whether name is a corpus class (or its Matches rows).
func isClass(name string) bool {
	name = strings.TrimSuffix(name, MatchesSuffix)
	for _, c := range Classes {
		if c == name {
			return true
		}
	}
	return false
}

// matchKnown returns the first entry covering a disagreement, or nil.
// Only entries measured on the pinned version count: a new version must
// be measured again.
func matchKnown(ks []Known, o Outcome) *Known {
	for i := range ks {
		k := &ks[i]
		if k.Version != ClaudeCodeVersion {
			continue
		}
		if !glob(k.Class, o.Class) || !glob(k.Label, o.Label) {
			continue
		}
		if (k.Claude == "*" || k.Claude == string(o.Claude)) && (k.Shipgate == "*" || k.Shipgate == string(o.Shipgate)) {
			return k
		}
	}
	return nil
}

// glob reports whether s matches pattern, where * stands for any text
// (slashes and blanks included) and every other character for itself.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
