package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/codex"
)

// The Codex runtime oracle: what Codex's sandbox and approval policy do
// when a shell call runs, for generated project config.toml files
// (GenerateCodexConfigs), against codex.EffectiveConfig. Each case is one
// `codex exec` session against the fake Responses API (agentrun.go) whose
// model asks for three exec_command calls: a write in the project, a write
// in a folder outside the project and the temporary folders, and the same
// write asking for escalated permissions. Whether each file exists after
// the session is what the sandbox let through; the escalated call's
// answer is the approval decision. `codex exec` has nobody to ask: it
// rejects every escalation ("approval policy is Never") whatever the
// project file's approval_policy says (measured), so that call checks the
// exec mode, not Shipgate's reading of an interactive session's policy.

// CodexRunOutcome is one case of both sides.
type CodexRunOutcome struct {
	Case int
	TOML string
	// Codex and Shipgate are "refused" or "project=<bool> outside=<bool>":
	// whether a write in the project and one outside it ran.
	Codex, Shipgate string
	// Escalation is Codex's answer to the escalated call.
	Escalation string
}

// RunCodexRuntime runs every case.
func RunCodexRuntime(ctx context.Context, bin string, cases []CodexConfigCase) ([]CodexRunOutcome, []string) {
	var out []CodexRunOutcome
	var errs []string
	for i, c := range cases {
		o, err := codexRunOne(ctx, bin, i, c)
		if err != nil {
			errs = append(errs, fmt.Sprintf("case %d: %v", i, err))
			continue
		}
		out = append(out, o)
	}
	return out, errs
}

func codexRunOne(ctx context.Context, bin string, idx int, c CodexConfigCase) (CodexRunOutcome, error) {
	o := CodexRunOutcome{Case: idx, TOML: c.TOML}
	// Not under /tmp: Codex puts its sandbox helper beside CODEX_HOME and
	// refuses a temporary folder.
	dir, err := os.MkdirTemp(codexConfigTmp, "shipgate-codexrun-")
	if err != nil {
		return o, err
	}
	defer os.RemoveAll(dir)
	proj, home, outside := filepath.Join(dir, "proj"), filepath.Join(dir, "home"), filepath.Join(dir, "outside")
	if err := writeTree(proj, map[string]string{"README.md": "# r\n", ".codex/config.toml": c.TOML}); err != nil {
		return o, err
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return o, err
	}
	if err := gitInit(proj); err != nil {
		return o, err
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return o, err
	}
	e, serr := codex.EffectiveConfig(".codex/config.toml", []byte(c.TOML), proj, tmp)
	calls := []ModelCall{
		{ID: "call_in", Name: "exec_command", Args: map[string]any{"cmd": "echo x > in.txt"}},
		{ID: "call_out", Name: "exec_command", Args: map[string]any{"cmd": "echo x > " + filepath.Join(outside, "out.txt")}},
		{ID: "call_esc", Name: "exec_command", Args: map[string]any{"cmd": "echo x > esc.txt", "sandbox_permissions": "require_escalated", "justification": "a test"}},
	}
	// TMPDIR a folder of its own: the outside folder is no writable root
	// of workspace-write.
	res, err := RunAgent(ctx, AgentSession{Agent: "codex", Bin: bin, Proj: proj, Home: home, Calls: calls, Env: []string{"TMPDIR=" + tmp}})
	if err != nil {
		if res.Tools == nil && strings.Contains(res.Stderr, "Error") {
			o.Codex = "refused"
		} else {
			return o, err
		}
	} else {
		exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
		o.Codex = fmt.Sprintf("project=%v outside=%v", exists(filepath.Join(proj, "in.txt")), exists(filepath.Join(outside, "out.txt")))
		o.Escalation = clip(firstLine(res.Results["call_esc"], ""), 120)
		if exists(filepath.Join(proj, "esc.txt")) {
			o.Escalation = "ran"
		}
	}
	if serr != nil {
		o.Shipgate = "refused"
		return o, nil
	}
	inRoots := func(p string) bool {
		for _, r := range e.Roots {
			if r == p || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
				return true
			}
		}
		return false
	}
	switch e.Sandbox {
	case "danger-full-access":
		o.Shipgate = "project=true outside=true"
	case "read-only":
		o.Shipgate = "project=false outside=false"
	default:
		o.Shipgate = fmt.Sprintf("project=true outside=%v", inRoots(outside))
	}
	return o, nil
}

// gitInit makes dir a git repository (Codex looks for the project's
// root, and trusts it by that path).
func gitInit(dir string) error {
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init %s: %v: %s", dir, err, out)
	}
	return nil
}
