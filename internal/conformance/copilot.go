package conformance

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/agentfiles/copilot"
)

// The Copilot CLI oracle: for generated repositories (skills in the
// default folders, in folders skillDirectories names and elsewhere;
// language servers in .github/lsp.json) the pinned @github/copilot
// binary's `copilot skill list` and `copilot lsp list` (offline, the
// folder trusted in a throwaway HOME) against which skills and servers
// Shipgate reads (copilot.Read, copilot.Combine, copilot.SkillRead).

// CopilotVersion is the @github/copilot release the oracle pins.
const CopilotVersion = "1.0.102"

// CopilotBinaryEnv points the oracle at a copilot executable;
// CopilotRequireEnv=1 makes a missing one a failure (CI).
const (
	CopilotBinaryEnv  = "SHIPGATE_COPILOT_BIN"
	CopilotRequireEnv = "SHIPGATE_REQUIRE_COPILOT"
)

// copilotBinary is the pinned @github/copilot package's native binary.
var copilotBinary = pinnedBinary{name: "Copilot CLI", version: CopilotVersion, target: "copilot", pkg: "@github/copilot",
	binEnv: CopilotBinaryEnv, cacheEnv: "SHIPGATE_COPILOT_CACHE", requireEnv: CopilotRequireEnv, cacheName: "copilot-cli",
	path:      []string{"node_modules", "@github", "copilot-linux-x64", "copilot"},
	versionOK: func(out string) bool { return strings.HasPrefix(out, "GitHub Copilot CLI "+CopilotVersion+".") }}

// FindCopilot returns the native copilot executable ("" if none).
func FindCopilot() string { return copilotBinary.find() }

// CopilotCase is one generated repository.
type CopilotCase struct {
	Files map[string]string
}

// GenerateCopilot makes n cases from seed.
func GenerateCopilot(seed uint64, n int) []CopilotCase {
	rng := rand.New(rand.NewPCG(seed, 0xc0b1))
	places := []string{".github/skills/%s/SKILL.md", ".agents/skills/%s/SKILL.md", "tools/skills/%s/SKILL.md", "docs/%s/SKILL.md", "tools/skills/SKILL.md", "my-skills/%s/SKILL.md"}
	dirs := []string{"tools/skills", "./my-skills", "docs/none"}
	var out []CopilotCase
	for len(out) < n {
		c := CopilotCase{Files: map[string]string{}}
		for i := 0; i < 1+rng.IntN(4); i++ {
			name := fmt.Sprintf("sk%d", i)
			p := fmt.Sprintf(places[rng.IntN(len(places))], name)
			if strings.HasSuffix(p, "skills/SKILL.md") {
				name = "top"
			}
			c.Files[p] = fmt.Sprintf("---\nname: %s\ndescription: d%s\nallowed-tools: shell(git:*)\n---\nx\n", name, name)
		}
		var ds []string
		for _, d := range dirs {
			if rng.IntN(2) == 0 {
				ds = append(ds, fmt.Sprintf("%q", d))
			}
		}
		if len(ds) > 0 {
			c.Files[".github/copilot/settings.json"] = `{"skillDirectories": [` + strings.Join(ds, ", ") + `]}`
		}
		switch rng.IntN(3) {
		case 0:
			c.Files[".github/lsp.json"] = `{"lspServers": {"gopls": {"command": "gopls", "fileExtensions": {".go": "go"}}, "ev": {"command": "sh", "args": ["-c", "id"], "fileExtensions": {".sh": "shell"}}}}`
		case 1:
			c.Files[".github/lsp.json"] = `{"lspServers": {"one": {"command": "x", "fileExtensions": {".x": "x"}}}}`
		}
		out = append(out, c)
	}
	return out
}

// CopilotReport is a run's figures.
type CopilotReport struct {
	Cases    int
	Disagree []string
	Errors   []string
}

// Failed reports a disagreement or an error.
func (r CopilotReport) Failed() bool { return len(r.Disagree) > 0 || len(r.Errors) > 0 }

// Write prints the figures and up to max disagreements.
func (r CopilotReport) Write(w *bytes.Buffer, max int) {
	fmt.Fprintf(w, "copilot-cli %s: %d cases, %d disagreements, %d errors\n", CopilotVersion, r.Cases, len(r.Disagree), len(r.Errors))
	for i, d := range append(append([]string(nil), r.Disagree...), r.Errors...) {
		if i == max {
			break
		}
		fmt.Fprintf(w, "  %s\n", d)
	}
}

var (
	reSkillLine = regexp.MustCompile(`^\s+(\S+) - `)
	reLSPLine   = regexp.MustCompile(`^\s+• (\S+) \(`)
)

// RunCopilot compares every case (one at a time: each starts the binary
// twice).
func RunCopilot(ctx context.Context, bin string, cases []CopilotCase) CopilotReport {
	rep := CopilotReport{Cases: len(cases)}
	for i, c := range cases {
		bs, bl, err := copilotLists(ctx, bin, c)
		if err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("case %d: %v", i, err))
			continue
		}
		ss, sl := copilotShipgate(c)
		if fmt.Sprint(bs) != fmt.Sprint(ss) {
			rep.Disagree = append(rep.Disagree, fmt.Sprintf("case %d skills: copilot %v, shipgate %v (%v)", i, bs, ss, sortedFiles(c.Files)))
		}
		if fmt.Sprint(bl) != fmt.Sprint(sl) {
			rep.Disagree = append(rep.Disagree, fmt.Sprintf("case %d language servers: copilot %v, shipgate %v", i, bl, sl))
		}
	}
	return rep
}

func sortedFiles(m map[string]string) []string {
	var out []string
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// copilotShipgate is what Shipgate reads: the names of the skills it
// counts and the language servers.
func copilotShipgate(c CopilotCase) (skills, lsps []string) {
	var docs []*agent.Doc
	for p, data := range c.Files {
		if _, ok := copilot.Classify(p); !ok {
			continue
		}
		if d, err := copilot.Read(p, []byte(data)); err == nil {
			docs = append(docs, d)
		}
	}
	for _, p := range copilot.SkillsRead(docs) {
		m := regexp.MustCompile(`(?m)^name: (\S+)`).FindStringSubmatch(c.Files[p])
		if m != nil {
			skills = append(skills, m[1])
		}
	}
	for _, d := range docs {
		for _, s := range d.Settings {
			if n, ok := strings.CutPrefix(s.Key, "lspServers."); ok {
				lsps = append(lsps, n)
			}
		}
	}
	sort.Strings(skills)
	sort.Strings(lsps)
	return skills, lsps
}

// copilotLists runs `copilot skill list` and `copilot lsp list` in the
// case's repository, trusted.
func copilotLists(ctx context.Context, bin string, c CopilotCase) (skills, lsps []string, err error) {
	dir, err := os.MkdirTemp("", "shipgate-copilot-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	if err := writeTree(proj, c.Files); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		return nil, nil, err
	}
	if err := writeTree(home, map[string]string{".copilot/config.json": fmt.Sprintf(`{"trusted_folders": [%q]}`, proj)}); err != nil {
		return nil, nil, err
	}
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.local/state", "XDG_CACHE_HOME="+home+"/.cache")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("copilot %v: %v: %s", args, err, clip(string(out), 400))
		}
		return string(out), nil
	}
	out, err := run("skill", "list")
	if err != nil {
		return nil, nil, err
	}
	inProject := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "Project skills:"):
			inProject = true
		case l != "" && !strings.HasPrefix(l, " "):
			inProject = false
		case inProject:
			if m := reSkillLine.FindStringSubmatch(l); m != nil {
				skills = append(skills, m[1])
			}
		}
	}
	out, err = run("lsp", "list")
	if err != nil {
		return nil, nil, err
	}
	for _, l := range strings.Split(out, "\n") {
		if m := reLSPLine.FindStringSubmatch(l); m != nil {
			lsps = append(lsps, m[1])
		}
	}
	sort.Strings(skills)
	sort.Strings(lsps)
	return skills, lsps, nil
}
