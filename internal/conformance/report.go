package conformance

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// ClassStats are one class's figures.
type ClassStats struct {
	Class        string
	Decisions    int
	Agree        int
	Known        int // disagreements a known.txt entry covers
	New          int // disagreements no entry covers (the run fails)
	Unclassified int // Claude Code results the harness could not read (the run fails)
	ByClaude     map[Decision]int
}

// Stats returns the figures per class, in Classes order, and the totals.
func (r *Run) Stats() ([]ClassStats, ClassStats) {
	by := map[string]*ClassStats{}
	total := ClassStats{Class: "total", ByClaude: map[Decision]int{}}
	for _, o := range r.Outcomes {
		s := by[o.Class]
		if s == nil {
			s = &ClassStats{Class: o.Class, ByClaude: map[Decision]int{}}
			by[o.Class] = s
		}
		tally := []*ClassStats{s, &total}
		if strings.HasSuffix(o.Class, MatchesSuffix) {
			tally = tally[:1] // the same decision asked of lattice.Match: not a new one
		}
		for _, t := range tally {
			t.Decisions++
			t.ByClaude[o.Claude]++
			switch {
			case o.Agrees():
				t.Agree++
			case o.Claude == Unclassified:
				t.Unclassified++
			case o.Known != nil:
				t.Known++
			default:
				t.New++
			}
		}
	}
	var out []ClassStats
	for _, c := range Classes {
		for _, name := range []string{c, c + MatchesSuffix} {
			if s := by[name]; s != nil {
				out = append(out, *s)
			}
		}
	}
	return out, total
}

// Failed reports whether the run must fail: a session error, a result the
// harness could not read, or a disagreement no known entry covers.
func (r *Run) Failed() bool {
	stats, t := r.Stats()
	for _, s := range stats {
		if s.New > 0 || s.Unclassified > 0 {
			return true
		}
	}
	return len(r.Errors) > 0 || t.Decisions == 0
}

// group is the disagreements of one class, label and pair of decisions.
type group struct {
	key   string
	known *Known
	items []Outcome
}

// Write prints the figures per class, then every disagreement grouped by
// class, label and the two decisions: the new ones in full, the known
// ones up to knownExamples each (all when knownExamples < 0).
func (r *Run) Write(w io.Writer, knownExamples int) {
	stats, total := r.Stats()
	fmt.Fprintf(w, "Claude Code %s conformance (seed %d): %d decisions in %d sessions, %s\n\n",
		r.Version, r.Seed, total.Decisions, len(r.Sessions), r.Elapsed.Round(time.Second))
	fmt.Fprintf(w, "%-26s %9s %9s %8s %6s %6s %6s   %s\n", "class", "decisions", "agree", "agree%", "known", "new", "unread", "claude: allow/ask/deny")
	for _, s := range append(stats, total) {
		pct := 0.0
		if s.Decisions > 0 {
			pct = 100 * float64(s.Agree) / float64(s.Decisions)
		}
		fmt.Fprintf(w, "%-26s %9d %9d %7.2f%% %6d %6d %6d   %d/%d/%d\n", s.Class, s.Decisions, s.Agree, pct, s.Known, s.New,
			s.Unclassified, s.ByClaude[Allow], s.ByClaude[Ask], s.ByClaude[Deny])
	}
	if n := len(r.Sessions); n > 0 {
		var sum, max time.Duration
		calls := 0
		for _, s := range r.Sessions {
			sum += s.Elapsed
			calls += s.Calls
			if s.Elapsed > max {
				max = s.Elapsed
			}
		}
		fmt.Fprintf(w, "\nsessions: %d, %.0f calls each on average, %.1fs each on average (slowest %.1fs)\n",
			n, float64(calls)/float64(n), sum.Seconds()/float64(n), max.Seconds())
	}
	for _, err := range r.Errors {
		fmt.Fprintf(w, "\nSESSION ERROR: %v\n", err)
	}
	groups := map[string]*group{}
	var keys []string
	for _, o := range r.Outcomes {
		if o.Agrees() {
			continue
		}
		key := fmt.Sprintf("%s | %s | claude %s, shipgate %s", o.Class, o.Label, o.Claude, o.Shipgate)
		g := groups[key]
		if g == nil {
			g = &group{key: key, known: o.Known}
			groups[key] = g
			keys = append(keys, key)
		}
		g.items = append(g.items, o)
	}
	sort.Strings(keys)
	if unused := r.unusedKnown(); len(unused) > 0 {
		fmt.Fprintf(w, "\nknown.txt entries no disagreement of this run needed (remove them once a full run agrees):\n")
		for _, k := range unused {
			fmt.Fprintf(w, "   known.txt:%d %s\n", k.Line, k)
		}
	}
	for _, known := range []bool{false, true} {
		header := false
		for _, k := range keys {
			g := groups[k]
			if (g.known != nil) != known {
				continue
			}
			if !header {
				if known {
					fmt.Fprintf(w, "\n== known disagreements (reported, not failing; known.txt)\n")
				} else {
					fmt.Fprintf(w, "\n== NEW DISAGREEMENTS (the run fails)\n")
				}
				header = true
			}
			fmt.Fprintf(w, "\n-- %s: %d\n", g.key, len(g.items))
			if g.known != nil {
				fmt.Fprintf(w, "   known.txt:%d (%s): %s\n", g.known.Line, g.known.Version, g.known.Reason)
			}
			for i, o := range g.items {
				if known && knownExamples >= 0 && i >= knownExamples {
					fmt.Fprintf(w, "   … %d more\n", len(g.items)-i)
					break
				}
				b := r.Batches[o.Batch]
				fmt.Fprintf(w, "   %s\n      settings: %s\n      claude: %s\n      shipgate: %s\n",
					o.Call, b.Describe(), oneLine(o.ClaudeText, 160), oneLine(o.Why, 200))
			}
		}
	}
}

// unusedKnown returns the known entries (of the pinned version) that no
// disagreement of the run matched.
func (r *Run) unusedKnown() []Known {
	used := map[int]bool{}
	for _, o := range r.Outcomes {
		if o.Known != nil {
			used[o.Known.Line] = true
		}
	}
	var out []Known
	for _, k := range r.Known {
		if k.Version == r.Version && !used[k.Line] {
			out = append(out, k)
		}
	}
	return out
}

// Describe renders a batch's settings on one line.
func (b Batch) Describe() string {
	d := oneLine(b.Settings.JSON(), 400)
	if b.Local != nil {
		d += " + local " + oneLine(b.Local.JSON(), 300)
	}
	return d
}

// oneLine squeezes text onto one clipped line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return clip(s, n)
}
