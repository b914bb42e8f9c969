package gather_test

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/gather"
	"github.com/shipgate-app/shipgate/judge"
)

// tree is one revision held in memory: path → content.
type tree map[string]string

func (t tree) Read(_ context.Context, p string) (gather.Entry, error) {
	if c, ok := t[p]; ok {
		return gather.Entry{Path: p, Kind: gather.File, Data: []byte(c), Size: int64(len(c))}, nil
	}
	return gather.Entry{Path: p, Kind: gather.Missing}, nil
}

// change is a Source over two in-memory trees: the App reads the same
// questions from GitHub (gather.GitHub), the CLI from git (gather.Git).
type change struct{ base, head tree }

func (c change) Base() gather.Revision { return c.base }
func (c change) Head() gather.Revision { return c.head }

func (c change) ListBase(context.Context) ([]gather.Entry, bool, error) {
	var es []gather.Entry
	for p, data := range c.base {
		es = append(es, gather.Entry{Path: p, Kind: gather.File, Size: int64(len(data))})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
	return es, true, nil
}

func (c change) Changed(_ context.Context, sel gather.Selector) ([]gather.Change, bool, error) {
	var cs []gather.Change
	for p, h := range c.head {
		if b, ok := c.base[p]; !ok {
			cs = append(cs, gather.Change{Path: p, Status: gather.Added})
		} else if b != h {
			cs = append(cs, gather.Change{Path: p, Status: gather.Modified})
		}
	}
	for p := range c.base {
		if _, ok := c.head[p]; !ok {
			cs = append(cs, gather.Change{Path: p, Status: gather.Deleted})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
	return cs, false, nil
}

// Gather reads what a change does to the agents' files, and the engine
// judges it: gather → judge, as the App and the CLI both run it.
func ExampleGather() {
	src := change{
		base: tree{".claude/settings.json": `{"permissions": {"allow": ["Bash(npm test)"]}}`, "README.md": "hi"},
		head: tree{".claude/settings.json": `{"permissions": {"allow": ["Bash(npm test)", "Bash(*)"]}}`, "README.md": "hello"},
	}
	res, err := gather.Gather(context.Background(), src, gather.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Input.Files {
		fmt.Println("read:", f.Path)
	}
	rep := judge.Compare(res.Input)
	fmt.Println("decision:", rep.Decision)
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.CheckID)
	}
	fmt.Println(strings.Join(ids, "\n"))
	// Output:
	// read: .claude/settings.json
	// decision: block
	// SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW
}
