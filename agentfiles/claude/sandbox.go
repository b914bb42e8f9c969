package claude

import (
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/lattice"
	"mvdan.cc/sh/v3/syntax"
)

// SandboxFileOrder puts a scope's settings.json before its
// settings.local.json, the order Claude Code applies them in.
func SandboxFileOrder(p string) int {
	if path.Base(p) == "settings.local.json" {
		return 1
	}
	return 0
}

// OpenDomain reports a network.allowedDomains entry that lets every domain
// through (`*`, measured) or every domain of a public suffix.
func OpenDomain(d string) bool {
	d = strings.TrimSpace(strings.ToLower(d))
	return d == "*" || d == "*.*" || strings.HasPrefix(d, "*.") && !strings.Contains(d[2:], ".")
}

// OpenWrite reports a filesystem.allowWrite entry that opens the whole
// filesystem or the home directory (shell start-up files, keys).
func OpenWrite(p string) bool {
	p = strings.TrimRight(strings.TrimSpace(p), "/")
	return p == "" || p == "~" || p == "$HOME" || p == "/" || p == "//" || p == "/home" || p == "/root"
}

// SandboxAsks reports whether Claude Code still asks about a Bash line that
// the sandbox grant would otherwise run without a prompt, and why (the
// checks measured on 2.1.328, listed at the top of this file). A line it
// cannot parse asks.
func SandboxAsks(line string) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return "Claude Code cannot parse the line, so it asks", true
	}
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "-") {
		return "a line starting with - is an incomplete fragment, and Claude Code asks", true
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.Block:
			why = "a block { …; } cannot be checked, so Claude Code asks"
		case *syntax.CallExpr:
			var fields []string
			for _, w := range x.Args {
				fields = append(fields, w.Lit())
			}
			if len(fields) > 0 {
				for _, a := range x.Assigns {
					if !safeAssignment(a.Name.Value) {
						why = "a command after an assignment of `" + a.Name.Value + "` asks"
						return false
					}
				}
			}
			if len(fields) == 0 {
				return true
			}
			switch fields[0] {
			case "eval", "exec":
				why = "`" + fields[0] + "` evaluates its arguments as shell code, so Claude Code asks"
			case "watch", "setsid":
				why = "what `" + fields[0] + "` starts cannot be checked, so Claude Code asks"
			case "env":
				for _, a := range fields[1:] {
					if strings.Contains(a, "=") {
						why = "`env` with an assignment asks"
					}
				}
			case "find":
				for _, a := range fields[1:] {
					switch a {
					case "-exec", "-execdir", "-ok", "-okdir", "-delete":
						why = "find " + a + " runs commands or deletes files, so Claude Code asks"
					}
				}
			case "rm", "rmdir":
				recursive, root := false, false
				for _, a := range fields[1:] {
					switch {
					case a == "/" || a == "/*" || a == "." || a == "./" || a == "~" || a == "~/" || a == "..":
						root = true
					case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"), a == "--recursive":
						recursive = true
					}
				}
				if recursive && root {
					why = "an rm of the root, the home or a working directory asks"
				}
			}
		}
		return why == ""
	})
	return why, why != ""
}

// SandboxExcluded reports whether a part of the line matches one of the
// sandbox's excludedCommands (patterns spelled as Bash rules are: `docker
// *`, `docker:*`): such a command runs outside the sandbox through the
// normal permission flow.
func SandboxExcluded(line string, patterns []string) bool {
	if len(patterns) == 0 {
		return false
	}
	cmd, err := lattice.ParseCommand(line)
	if err != nil {
		return true
	}
	for _, p := range patterns {
		r := lattice.ParseIn(lattice.Allow, "Bash("+p+")")
		for _, part := range cmd.Parts {
			if lattice.Match(r, lattice.Call{Tool: "Bash", Arg: part}) != lattice.No {
				return true
			}
		}
	}
	return false
}

// safeAssignment reports whether Claude Code reads past a leading
// assignment of the variable as harmless (NODE_ENV, CI, LANG, …: the
// variables an allow rule matches past, lattice.CommandForms); the sandbox
// grant runs a command after those and asks after any other (measured on
// 2.1.328: `CI=1 npm test` runs, `FOO=1 npm test` asks).
func safeAssignment(name string) bool {
	for _, f := range lattice.CommandForms(name + "=1 true").Allow {
		if f.Text == "true" {
			return true
		}
	}
	return false
}
