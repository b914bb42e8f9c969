package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/jsonpos"
	"github.com/shipgate-app/shipgate/lattice"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// The sandbox as Claude Code 2.1.328 runs it (measured with the conformance
// harness, class sandbox, where bubblewrap and socat are installed — without
// them Claude Code turns the sandbox off without a word):
//
//   - sandbox.enabled alone changes no decision: a Bash command no rule
//     allows still asks, and runs inside the walls once approved.
//   - With sandbox.enabled and sandbox.autoAllowBashIfSandboxed both true,
//     every Bash command no deny or ask rule stops runs WITHOUT A PROMPT
//     inside the sandbox (`curl x`, `npm publish`, `rm -rf build`). The
//     default of autoAllowBashIfSandboxed is false.
//   - What still prompts under that grant: deny rules deny and ask rules
//     ask as ever; a command matching sandbox.excludedCommands runs outside
//     the sandbox through the normal permission flow; `eval`, `exec`,
//     `watch`, `setsid`, `find -exec`, a `{ …; }` block, a line starting
//     with `-`, an assignment prefix (`FOO=1 npm test`, `env FOO=1 …`) and
//     an rm of the root, the home or a working directory ask; a call with
//     dangerouslyDisableSandbox asks ("Run outside of the sandbox") unless
//     allowUnsandboxedCommands is false, when the flag is ignored and the
//     call runs sandboxed.
//   - The walls: writes outside the project (and filesystem.allowWrite)
//     fail ("Read-only file system"); the network goes through a proxy that
//     refuses every domain not in network.allowedDomains ("deny
//     network-outbound other.org:443"), and `"*"` lets every domain
//     through. Reads are not walled by default.
//   - settings.local.json overrides settings.json key by key: a local
//     autoAllowBashIfSandboxed true over a project enabled sandbox is the
//     grant; a local false over a project true keeps it off.
//
// So switching the grant on (either half, in either file, or removing the
// local override that kept it off) grants the whole Bash tool bounded by
// the walls, and is rated by them (sandboxGrantRating).

// sandboxState is the effective sandbox of one scope on one side.
type sandboxState struct {
	enabled, autoAllow bool
	// unsandboxed is allowUnsandboxedCommands (default true): a call with
	// dangerouslyDisableSandbox leaves the walls, after a prompt.
	unsandboxed bool
	domains     []string // network.allowedDomains
	writes      []string // filesystem.allowWrite
	excluded    []string // excludedCommands
	// line of the key that decided the grant, in the file that set it.
	line int
	path string
}

// grants reports whether every Bash command runs without a prompt inside
// the sandbox.
func (s sandboxState) grants() bool { return s.enabled && s.autoAllow }

// sandboxState reads the effective sandbox settings of a scope: its
// settings files surely read (surelyRead), settings.json first and
// settings.local.json over it, key by key; lists add up. A file that does
// not parse contributes nothing (Claude Code drops it whole).
func (e *engine) sandboxState(scope string, head bool) sandboxState {
	st := sandboxState{unsandboxed: true}
	files := append([]*fileState(nil), e.scopes[scope]...)
	sort.SliceStable(files, func(i, j int) bool {
		return claude.SandboxFileOrder(files[i].Path) < claude.SandboxFileOrder(files[j].Path)
	})
	for _, f := range files {
		if !surelyRead(f, scope) {
			continue
		}
		d := f.base
		if head {
			d = f.head
		}
		if d == nil {
			continue
		}
		sb := d.Root.Get("sandbox")
		if sb.Kind() != jsonpos.Object {
			continue
		}
		for _, m := range sb.Members() {
			switch m.Key {
			case "enabled":
				st.enabled = m.Value.Kind() == jsonpos.Bool && claude.Truthy(m.Value)
				st.line, st.path = m.KeyStart.Line, f.Path
			case "autoAllowBashIfSandboxed":
				st.autoAllow = m.Value.Kind() == jsonpos.Bool && claude.Truthy(m.Value)
				st.line, st.path = m.KeyStart.Line, f.Path
			case "allowUnsandboxedCommands":
				st.unsandboxed = !(m.Value.Kind() == jsonpos.Bool && !claude.Truthy(m.Value))
			case "excludedCommands":
				st.excluded = append(st.excluded, sortedKeys(stringSet(m.Value))...)
			case "network":
				st.domains = append(st.domains, sortedKeys(stringSet(m.Value.Get("allowedDomains")))...)
			case "filesystem":
				st.writes = append(st.writes, sortedKeys(stringSet(m.Value.Get("allowWrite")))...)
			}
		}
	}
	return st
}

// sandboxGrantRating rates the grant of the whole Bash tool bounded by the
// sandbox's walls: an open network or writes anywhere is a wildcard (it
// blocks); otherwise it is a high-risk grant to review, worded by its
// walls.
func sandboxGrantRating(st sandboxState) (rating.Rating, string) {
	var walls []string
	wild := false
	var open []string
	for _, d := range st.domains {
		if claude.OpenDomain(d) {
			wild = true
			open = append(open, d)
		}
	}
	switch {
	case len(open) > 0:
		walls = append(walls, "the network is open (network.allowedDomains "+strings.Join(open, ", ")+")")
	case len(st.domains) > 0:
		walls = append(walls, "network to "+strings.Join(st.domains, ", ")+" only")
	default:
		walls = append(walls, "no network (no allowed domain)")
	}
	var wideWrites []string
	for _, w := range st.writes {
		if claude.OpenWrite(w) {
			wild = true
			wideWrites = append(wideWrites, w)
		}
	}
	switch {
	case len(wideWrites) > 0:
		walls = append(walls, "writes anywhere under "+strings.Join(wideWrites, ", "))
	case len(st.writes) > 0:
		walls = append(walls, "writes in the project and "+strings.Join(st.writes, ", "))
	default:
		walls = append(walls, "writes in the project only")
	}
	if len(st.excluded) > 0 {
		walls = append(walls, "excludedCommands ("+strings.Join(st.excluded, ", ")+") run outside the sandbox and still ask")
	}
	if st.unsandboxed {
		walls = append(walls, "a call may leave the sandbox (dangerouslyDisableSandbox) after a prompt")
	}
	basis := "every Bash command runs without a prompt inside the sandbox (Claude Code " + lattice.ClaudeCodeVersion + ", measured): " + strings.Join(walls, "; ")
	if wild {
		return rating.Rating{Access: rating.AccessExecute, Risk: rating.RiskCritical, Wildcard: true, Evidence: "sandbox.autoAllowBashIfSandboxed", Basis: basis}, basis
	}
	return rating.Rating{Access: rating.AccessExecute, Risk: rating.RiskHigh, Evidence: "sandbox.autoAllowBashIfSandboxed", Basis: basis}, basis
}

// compareSandboxGrant compares the effective sandbox grant of f's scope:
// when the head runs every Bash command without a prompt inside the
// sandbox and the base did not, that is a grant of the whole Bash tool
// bounded by the walls, whichever file or key switched it on (a key added,
// a local override removed, a local file deleted). Reported once a scope.
func (e *engine) compareSandboxGrant(f *fileState) {
	if f.kind != report.SettingsFile {
		return
	}
	b, h := e.sandboxState(f.scope, false), e.sandboxState(f.scope, true)
	if !h.grants() || b.grants() {
		return
	}
	key := report.CheckSandboxLoosened + "|" + f.scope + "|auto-allow"
	for _, x := range e.findings {
		if x.Key == key {
			return
		}
	}
	rt, basis := sandboxGrantRating(h)
	check := report.CheckSandboxLoosened
	if rt.Wildcard {
		check = report.CheckWildcardAllow
	}
	p, line := h.path, h.line
	if p == "" {
		p, line = f.Path, 1
	}
	if p != f.Path {
		// The grant is switched on by this file's change (a removed
		// override, a deleted file) but set in another file of the scope.
		line = 1
	}
	before := "sandbox: Bash asks for what no rule allows (enabled " + fmt.Sprint(b.enabled) + ", autoAllowBashIfSandboxed " + fmt.Sprint(b.autoAllow) + ")"
	after := "sandbox: every Bash command runs without a prompt inside the sandbox (enabled and autoAllowBashIfSandboxed, effective in " + p + ")"
	e.row(f, report.KindSandbox, report.DirChanged, before, after, true, rt, line, line, basis)
	e.finding(report.Finding{CheckID: check, Risk: rt.Risk, Path: f.Path, Line: line, HeadLine: line,
		Evidence: "setting=sandbox.autoAllowBashIfSandboxed", Title: "sandbox auto-allows Bash",
		Message: fmt.Sprintf("%s: with sandbox.enabled and sandbox.autoAllowBashIfSandboxed now both in effect, %s.", f.Path, basis),
		Key:     key})
}
