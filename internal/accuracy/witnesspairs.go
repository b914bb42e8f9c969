package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// witnessPair is one line of the file -witness-pairs writes: the JSON lines
// internal/conformance.ReadRealPairs reads (cmd/conformance -real-pairs),
// so that the witnesses Shipgate printed on real pull requests are asked of
// the real Claude Code under the pair's own settings files.
type witnessPair struct {
	Name      string           `json:"name"`
	Base      witnessSide      `json:"base"`
	Head      witnessSide      `json:"head"`
	Witnesses []printedWitness `json:"witnesses"`
}

type witnessSide struct {
	Settings string `json:"settings"`
	Local    string `json:"local"`
}

type printedWitness struct {
	Rule    string `json:"rule"`
	Witness string `json:"witness"`
}

// reportChanges is the part of a report's rows -witness-pairs reads.
type reportChanges struct {
	Changes []struct {
		Path      string   `json:"path"`
		Agent     string   `json:"agent"`
		Kind      string   `json:"kind"`
		List      string   `json:"list"`
		After     string   `json:"after"`
		Expands   bool     `json:"expands"`
		Witnesses []string `json:"witnesses"`
	} `json:"changes"`
}

// exportWitnessPairs writes, for every replayed pair under out whose
// report prints a witness for an allow rule of the project's
// .claude/settings.json or settings.local.json, both files at the parent
// and at the commit (read from the replay's clone) and those witnesses.
func exportWitnessPairs(ctx context.Context, out, file string) (int, error) {
	res, err := readResults(out)
	if err != nil {
		return 0, err
	}
	var lines []string
	for _, r := range res {
		if r.Exit != 0 || r.Report == nil {
			continue
		}
		var rc reportChanges
		if json.Unmarshal(r.Report, &rc) != nil {
			continue
		}
		wp := witnessPair{Name: r.Repo + " " + r.Commit}
		for _, c := range rc.Changes {
			if c.Agent != "claude-code" || c.Kind != "permission_rule" || c.List != "allow" || !c.Expands ||
				(c.Path != ".claude/settings.json" && c.Path != ".claude/settings.local.json") {
				continue
			}
			for _, w := range c.Witnesses {
				wp.Witnesses = append(wp.Witnesses, printedWitness{Rule: c.After, Witness: w})
			}
		}
		if len(wp.Witnesses) == 0 {
			continue
		}
		clone := filepath.Join(out, ".clones", r.Repo)
		if _, err := os.Stat(filepath.Join(clone, ".git")); err != nil {
			// Without the replay's clone every file would read as absent
			// and every witness as not newly run: refuse.
			return 0, fmt.Errorf("%s: no clone of the replay at %s (run -witness-pairs on the -out folder of a replay): %w", r.Repo, clone, err)
		}
		show := func(rev, path string) string {
			s, err := git(ctx, clone, "show", rev+":"+path)
			if err != nil {
				return "" // absent on that side
			}
			return s
		}
		wp.Base = witnessSide{show(r.Parent, ".claude/settings.json"), show(r.Parent, ".claude/settings.local.json")}
		wp.Head = witnessSide{show(r.Commit, ".claude/settings.json"), show(r.Commit, ".claude/settings.local.json")}
		l, err := json.Marshal(wp)
		if err != nil {
			return 0, err
		}
		lines = append(lines, string(l))
	}
	sort.Strings(lines)
	return len(lines), os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
