package report

import (
	"github.com/shipgate-app/shipgate/policy"
)

// MaxFileSize is the largest agent-config file read (1 MiB); a larger one
// is reported and fails closed.
const MaxFileSize = 1 << 20

// Version is one side (base or head) of a file.
type Version struct {
	// Exists is false when the file is absent on this side (new or deleted).
	Exists bool
	// Data is the file's content.
	Data []byte
	// Unreadable, when set, says why the content could not be read (too
	// large to fetch, a symlink, a submodule): the file is reported and the
	// comparison fails closed.
	Unreadable string
	// TooLarge marks an unreadable file that is over MaxFileSize.
	TooLarge bool
	// NotRead marks an unreadable file the gatherer left unread because
	// the change's agent-config input passed the bound it reads in one
	// evaluation (Unreadable says so in words).
	NotRead bool
}

// File is one agent-config file at base and head. Unchanged files may be
// given too: they are not rows, but their rules take part in the
// effective view (a deny rule in settings.local.json shadows an allow rule
// added to settings.json).
type File struct {
	Path string
	// As, when set, is the path Claude Code reads this file as, and the one
	// it is classified by: a case variant (.claude/Settings.json) opens as
	// .claude/settings.json on a case-insensitive file system. Path stays
	// the repository's spelling, for reports and annotations.
	As   string
	Base Version
	Head Version
}

// MaxInputBytes bounds the bytes of agent-config input one comparison
// reads: every version of every file, base and head, scripts and the
// policy file included (8 MiB). Each file is capped at MaxFileSize and a
// comparison compares at most MaxComparedFiles, but 500 files of 1 MiB on
// both sides is 1 GB to fetch, hold and parse (measured: 2.4 GB of peak
// memory and 10 s of CPU in shipgate diff). Real changes read tens of
// kilobytes. The gatherer (gather, for the App and the CLI
// alike) stops reading once the bound is spent and names the files it
// left in Input.Unread, which block.
const MaxInputBytes = 8 << 20

// Input is what Compare reads.
type Input struct {
	Files []File
	// Policy is the policy in force (the base's).
	Policy *policy.Policy
	// PolicyChange, when set, is a change to the policy file itself.
	PolicyChange *PolicyChange
	// Unread are the agent-config files (and scripts) the change touches
	// that were not read because the input had passed MaxInputBytes: they
	// may hold any grant, so one CONFIG-PARSE-FAILED finding names them
	// and blocks.
	Unread []string
	// Moves are the folders of hook scripts the change moves whole: the
	// gatherer found, file by file, the same names and the same content
	// under From at the base as under To at the head (gather/moves.go).
	// A hook whose command names a script under To where the base's named
	// the same script under From runs the same code, and the engine reads
	// it as a respelling.
	Moves []Move
	// Renames are the agent-config files the change moves or renames as
	// the same grant (gather/renames.go): the head of To is compared
	// against the base of From, which is no row of its own. The gatherer
	// proves each; the engine pairs only a file deleted at From with a
	// file added at To of the same agent and kind.
	Renames []Rename
}

// Rename is one agent-config file moved or renamed: From deleted, To
// added. Unit is what moved as one (a skill's or a plugin's folder, a
// project folder holding a .env, or the file itself): UnitFrom → UnitTo,
// Files files in it, each the same at To as at From except the
// agent-config files, which the engine compares.
type Rename struct {
	From, To         string
	UnitFrom, UnitTo string
	Files            int
}

// Move is a folder of scripts moved whole: every file under From at the
// base is under To at the head with the same content, and nothing else
// is there. Files counts them. With File set, From and To are one script
// renamed in its folder with the same content (Files is 1).
type Move struct {
	From, To string
	Files    int
	File     bool
}

// PolicyChange is the policy file at base and at head (either may be nil:
// absent, or not parsing — a proposed file with errors is reported by the
// caller with its positions).
type PolicyChange struct {
	Path       string
	Base, Head *policy.Policy
	// HeadLine is where to annotate (the file's first line by default).
	HeadLine int
}

// FileKind is how a file is read.
type FileKind int

const (
	// NotAgentConfig is any other file.
	NotAgentConfig FileKind = iota
	// SettingsFile is a Claude Code settings file.
	SettingsFile
	// MCPFile is an .mcp.json server list.
	MCPFile
	// SkillFile is a skill, .claude/skills/<name>/SKILL.md: its
	// frontmatter's allowed-tools pre-approve tools while it runs.
	SkillFile
	// CommandFile is a custom command, .claude/commands/**/*.md (commands
	// are skills since Claude Code 2.1.3): the same frontmatter.
	CommandFile
	// SubagentFile is a subagent definition, .claude/agents/**/*.md: its
	// frontmatter's permissionMode, hooks, tools and model.
	SubagentFile
	// ScriptFile is a repository file a hook, status line or helper of a
	// settings file (or a skill's or subagent's hooks) executes: a change to
	// it is a change to the hook. Which files are scripts depends on the
	// settings (ExtraPaths names them); Classify returns ScriptFile for
	// every other file of a .claude folder (where hook scripts usually
	// live), so that a pull request that edits only .claude/hooks/check.sh
	// is read with the settings that run it.
	ScriptFile
)

// classifiedPath is the path a file is classified by (As, else Path).
func (f File) ClassifiedPath() string {
	if f.As != "" {
		return f.As
	}
	return f.Path
}
