package hookscript

import (
	"path"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/report"
)

// HookCommands is what one version of an agent-config file runs from the
// repository.
type HookCommands struct {
	// Paths are the files its commands run (ExtraPaths).
	Paths []string
	// Dynamic are the texts of the commands Shipgate cannot map to the
	// files they run (`$(git rev-parse --show-toplevel)/x.sh`, `python3
	// "$SCRIPT"`, `python3 -m pkg.hook`): a file whose name one of them
	// names (Mentions) may be what it runs.
	Dynamic []string
}

// CommandsOf lists what one version of an agent-config file runs from the
// repository (p is its repository path, as Classify reads it). A gatherer
// learns from it, for an unchanged file, which changed files are part of
// its hooks; unparsable data runs nothing (Compare reports the file).
func CommandsOf(p string, data []byte) HookCommands {
	out := HookCommands{Paths: ExtraPaths(p, data)}
	if _, ok := agentfiles.OpaqueCommands(p); ok {
		_, bad := OpaqueRefs(p, data)
		for _, b := range bad {
			out.Dynamic = append(out.Dynamic, b.Command)
		}
		return out
	}
	kind, scope := agentfiles.Classify(p, nil)
	if kind == report.NotAgentConfig || kind == report.ScriptFile {
		return out
	}
	d, err := claude.ParseDoc(p, kind, report.Version{Exists: true, Data: data}, claude.RuleCache{})
	if err != nil {
		return out
	}
	_, bad := CommandRefs(d, kind, p, scope)
	for _, b := range append(bad, RootGuesses(d, kind)...) {
		out.Dynamic = append(out.Dynamic, b.Command)
	}
	return out
}

// isNameByte is a byte of a file-name token in a command's text.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// CommandTokens splits a command's text into the words that could name a
// file: the longest runs of letters, digits, '_', '-' and '.'.
func CommandTokens(command string) []string {
	var out []string
	for i := 0; i < len(command); {
		if !isNameByte(command[i]) {
			i++
			continue
		}
		j := i
		for j < len(command) && isNameByte(command[j]) {
			j++
		}
		out = append(out, command[i:j])
		i = j
	}
	return out
}

// Mentions reports whether the text of a command Shipgate cannot resolve
// could name the repository file p: p's file name is one of its words
// (CommandTokens: `$(git rev-parse --show-toplevel)/scripts/guard.py`
// names guard.py), or p's name without its extension ends one of them
// after a dot (`python3 -m scripts.guard` names scripts/guard.py). It
// over-approximates on purpose (guard.py anywhere in the repository
// matches): the answer fails closed.
func Mentions(command, p string) bool {
	b := path.Base(CleanPath(p))
	stem := strings.TrimSuffix(b, path.Ext(b))
	for _, t := range CommandTokens(command) {
		if t == b {
			return true
		}
		if stem != "" && stem != b && (t == stem || strings.HasSuffix(t, "."+stem)) {
			return true
		}
	}
	return false
}
