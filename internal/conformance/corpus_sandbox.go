package conformance

import (
	"fmt"
	"os/exec"
	"strings"
)

// SandboxClass measures the sandbox (Claude Code needs bubblewrap and socat
// for it, and turns it off without a word where they are missing): both
// halves of the grant (sandbox.enabled, autoAllowBashIfSandboxed) on, off
// or unset, split between settings.json and settings.local.json (a local
// override on either side), with excludedCommands, allowUnsandboxedCommands,
// network and write walls, a deny or an ask rule, and the commands the
// grant still asks about.
const SandboxClass = "sandbox"

// sandboxBatch draws one batch of the sandbox class.
func (g *gen) sandboxBatch(b *Batch) {
	tri := func() any { // true, false or unset (nil)
		switch g.r.IntN(3) {
		case 0:
			return true
		case 1:
			return false
		}
		return nil
	}
	proj := map[string]any{}
	local := map[string]any{}
	put := func(m map[string]any, k string, v any) {
		if v != nil {
			m[k] = v
		}
	}
	switch g.r.IntN(4) {
	case 0: // both halves in the project file
		put(proj, "enabled", tri())
		put(proj, "autoAllowBashIfSandboxed", tri())
	case 1: // enabled in the project, the auto-allow half in the local file
		proj["enabled"] = true
		put(local, "autoAllowBashIfSandboxed", tri())
	case 2: // the local file overrides the project's grant
		proj["enabled"], proj["autoAllowBashIfSandboxed"] = true, true
		put(local, g.pick("enabled", "autoAllowBashIfSandboxed"), false)
	default: // the grant on, in full, the usual way
		proj["enabled"], proj["autoAllowBashIfSandboxed"] = true, true
	}
	if g.r.IntN(3) == 0 {
		proj["excludedCommands"] = g.some(1, "docker *", "docker:*", "git push *", "npm publish")
	}
	if g.r.IntN(4) == 0 {
		proj["allowUnsandboxedCommands"] = false
	}
	if g.r.IntN(3) == 0 {
		proj["network"] = map[string]any{"allowedDomains": g.some(1, "example.com", "*", "*.example.com")}
	}
	if len(proj) > 0 {
		b.Settings.Extra = map[string]any{"sandbox": proj}
	}
	if len(local) > 0 || g.r.IntN(4) == 0 {
		b.Local = &Settings{}
		if len(local) > 0 {
			b.Local.Extra = map[string]any{"sandbox": local}
		}
	}
	switch g.r.IntN(4) {
	case 0:
		b.Settings.Deny = g.some(1, "Bash(curl:*)", "Bash(npm publish:*)", "Bash(rm *)")
	case 1:
		b.Settings.Ask = g.some(1, "Bash(git push:*)", "Bash(curl *)")
	case 2:
		b.Settings.Allow = g.some(1, "Bash(npm *)", "Bash(git *)")
	}
	if g.r.IntN(4) == 0 {
		b.Settings.DefaultMode = "acceptEdits"
	}
	for _, c := range g.some(12, bases...) {
		g.bash(b, "sandbox:plain", c+" "+g.pick(tails...))
	}
	for _, c := range []string{"curl x", "npm publish", "rm -rf build", "git push origin main", "docker run x", "ls"} {
		g.bash(b, "sandbox:plain", c)
	}
	for _, c := range []string{"eval npm test", "exec npm test", "watch npm test", "setsid npm test", "find . -exec npm test {} +",
		"find . -delete", "-rf x", "{ npm test; }", "(npm test)", "npm test &", "npm test > out.txt", "npm test $(echo x)",
		"npm test | tee log.txt", "bash -c 'curl x'", "sh -c 'npm publish'", "npm test && curl x", "curl x | sh", "sudo npm test",
		"xargs -n1 curl", "timeout 5 curl x", "ls \\\n -la"} {
		g.bash(b, "sandbox:checks", c)
	}
	for _, c := range []string{"rm x", "rm -rf ./x", "rm ../x", "rm -r .", "rm -rf ~", "rm -rf /", "rm -rf ~/x", "rm /tmp/x", "rm *.o", "rm ./..."} {
		g.bash(b, "sandbox:rm", c)
	}
	for _, a := range g.some(5, assignments...) {
		g.bash(b, "sandbox:assignment", a+" npm test")
	}
	for _, c := range []string{"env FOO=1 npm test", "env npm test", "env -i npm test"} {
		g.bash(b, "sandbox:env", c)
	}
	for _, c := range []string{"npm test", "curl x"} {
		g.add(b, "sandbox:unsandboxed", Call{Tool: "Bash", Arg: c, Param: "dangerouslyDisableSandbox", Value: "true"})
		g.add(b, "sandbox:sandboxed-flag", Call{Tool: "Bash", Arg: c, Param: "dangerouslyDisableSandbox", Value: "false"})
	}
	for i := range b.Cases {
		if strings.HasPrefix(b.Cases[i].Call.Arg, "cd ") {
			b.Cases[i].Label = "sandbox:cd"
		}
	}
}

// sandboxTools fails a run with sandbox batches where bubblewrap or socat
// is missing: Claude Code then turns the sandbox off without a word, and
// every decision of the class would measure the machine, not the settings.
func sandboxTools(batches []Batch) error {
	for _, b := range batches {
		if b.Class != SandboxClass {
			continue
		}
		for _, tool := range []string{"bwrap", "socat"} {
			if _, err := exec.LookPath(tool); err != nil {
				return fmt.Errorf("conformance: the %s class needs bubblewrap and socat (Debian: apt-get install bubblewrap socat; .ci/run installs them): %s: %w", SandboxClass, tool, err)
			}
		}
		return nil
	}
	return nil
}
