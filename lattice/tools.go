package lattice

import "strings"

// Family says which rule language a tool's specifier is written in.
type Family string

const (
	// FamilyShell is Bash (and Monitor): a glob over the whole command string.
	FamilyShell Family = "shell"
	// FamilyPowerShell is PowerShell: the shell glob, matched case-insensitively.
	FamilyPowerShell Family = "powershell"
	// FamilyPath is Read and Edit: gitignore-style path patterns with anchors.
	FamilyPath Family = "path"
	// FamilyUnconsulted is Write, NotebookEdit, Glob and MultiEdit: Claude Code
	// accepts path rules for them but never consults them (2.1.210+).
	FamilyUnconsulted Family = "unconsulted_path"
	// FamilyDomain is WebFetch: domain:host patterns.
	FamilyDomain Family = "domain"
	// FamilyMCP is an mcp__server[__tool] token.
	FamilyMCP Family = "mcp"
	// FamilyToolGlob is a tool-name glob such as "*" or "mcp__*".
	FamilyToolGlob Family = "tool_glob"
	// FamilyGeneric is every other tool (Agent, Skill, WebSearch, tools
	// Shipgate does not model): the specifier is matched as a glob on its
	// own text. (A name the binary has no tool of reads as matching
	// nothing: NoSuchTool.)
	FamilyGeneric Family = "generic"
	// FamilyInvalid is a rule Claude Code cannot read at all.
	FamilyInvalid Family = "invalid"
)

// knownTools maps every canonical tool name Claude Code documents (and the
// legacy names it still accepts) to the family of its specifier.
var knownTools = map[string]Family{
	"Bash":          FamilyShell,
	"Monitor":       FamilyShell,
	"PowerShell":    FamilyPowerShell,
	"Read":          FamilyPath,
	"Edit":          FamilyPath,
	"Write":         FamilyUnconsulted,
	"NotebookEdit":  FamilyUnconsulted,
	"Glob":          FamilyUnconsulted,
	"MultiEdit":     FamilyUnconsulted,
	"WebFetch":      FamilyDomain,
	"WebSearch":     FamilyGeneric,
	"Grep":          FamilyGeneric,
	"Agent":         FamilyGeneric,
	"Skill":         FamilyGeneric,
	"Cd":            FamilyCd,
	"LSP":           FamilyGeneric,
	"ExitPlanMode":  FamilyGeneric,
	"KillShell":     FamilyGeneric,
	"TodoWrite":     FamilyGeneric,
	"ToolSearch":    FamilyGeneric,
	"Workflow":      FamilyGeneric,
	"TaskCreate":    FamilyGeneric,
	"TaskStop":      FamilyGeneric,
	"TaskOutput":    FamilyGeneric,
	"TaskUpdate":    FamilyGeneric,
	"TaskList":      FamilyGeneric,
	"TaskGet":       FamilyGeneric,
	"NotebookRead":  FamilyGeneric,
	"LS":            FamilyGeneric,
	"SlashCommand":  FamilyGeneric,
	"BashOutput":    FamilyGeneric,
	"EnterPlanMode": FamilyGeneric,
}

// aliases maps legacy tool names to their canonical name: Task was renamed
// Agent in Claude Code 2.1.63 and Task(...) stays an alias.
var aliases = map[string]string{"Task": "Agent"}

// (The input fields parameter rules may name are in params.go.)

// canonicalTool resolves a tool name as written. It returns the canonical
// name and its family, and whether the name is known exactly. For a name
// that differs from a known one only by case it returns that tool with
// exact=false: Claude Code treats such rules as invalid in current versions
// (#28210), so the lattice reads them two ways.
func canonicalTool(name string) (canon string, fam Family, exact bool) {
	if a, ok := aliases[name]; ok {
		return a, knownTools[a], true
	}
	if f, ok := knownTools[name]; ok {
		return name, f, true
	}
	for k, f := range knownTools {
		if strings.EqualFold(k, name) {
			return k, f, false
		}
	}
	for a, k := range aliases {
		if strings.EqualFold(a, name) {
			return k, knownTools[k], false
		}
	}
	return name, FamilyGeneric, true
}

// KnownTool reports whether name is a tool name Claude Code documents
// (canonical spelling, aliases included, MCP tokens excluded).
func KnownTool(name string) bool {
	if _, ok := aliases[name]; ok {
		return true
	}
	_, ok := knownTools[name]
	return ok
}
