// Package gather builds the engine's input (report.Input) for a change, the
// same way for the GitHub App and for `shipgate diff`: given a repository
// at a base and a head revision, it finds every agent-config path (by the
// patterns the agent adapter declares: agentfiles.Classify), resolves symlinks
// inside the repository (one leaving it, or a submodule, is a file that
// could not be read: the engine fails closed on it), treats case variants
// (.claude/Settings.json, .CLAUDE/settings.json, .MCP.json, which Claude
// Code reads on a case-insensitive file system) as the canonical file,
// adds the unchanged settings files of the same projects (the effective
// view), and reads the policy file at base and head.
//
// Reading is behind a small interface (Source, Revision) with two
// implementations: GitHub (trees, contents and pull-request files, within a
// call budget) and Git (a local work tree, gather/gitrepo). An error
// while reading is returned, never turned into "nothing changed".
package gather

import (
	"context"
	"fmt"
)

// Kind says what a path is at one revision.
type Kind int

// Kinds of entry.
const (
	// Missing: nothing at the path.
	Missing Kind = iota
	// File: a regular (or executable) file.
	File
	// Symlink: a symbolic link; Entry.Target holds its text.
	Symlink
	// Submodule: a gitlink; Entry.Commit is the commit it pins. Its files
	// belong to another repository.
	Submodule
	// Dir: a directory.
	Dir
	// Other: anything else (a special file in a work tree).
	Other
)

func (k Kind) String() string {
	switch k {
	case Missing:
		return "missing"
	case File:
		return "file"
	case Symlink:
		return "symlink"
	case Submodule:
		return "submodule"
	case Dir:
		return "directory"
	}
	return "special file"
}

// Entry is what one path is at one revision and, for a file read with
// Revision.Read, its content.
type Entry struct {
	Path string
	Kind Kind
	// Target is a symlink's text, as stored (not resolved).
	Target string
	// Commit is the commit a submodule pins.
	Commit string
	// Size is a file's size in bytes (-1 when unknown).
	Size int64
	// TooLarge marks a file over report.MaxFileSize: Data is not read.
	TooLarge bool
	// Data is a file's content (Read only; nil in listings).
	Data []byte
	// ID identifies the entry's content where the host has one (a git
	// object name); listings use it to tell a followed symlink apart.
	ID string
}

// Revision reads one side of a change.
type Revision interface {
	// Read says what path is at this revision and, for a file within
	// report.MaxFileSize, returns its content. It never follows a symlink at
	// path: a symlink is Kind Symlink with its Target. Paths given are
	// already resolved by the gatherer (no symlink or submodule on the way);
	// a host that cannot tell may answer Missing for a path under one.
	Read(ctx context.Context, path string) (Entry, error)
}

// Status says how a path differs between base and head.
type Status int

// Statuses of a changed path.
const (
	Modified Status = iota
	Added
	Deleted
)

// Change is one path that differs between base and head (a rename is a
// deletion and an addition).
type Change struct {
	Path   string
	Status Status
	// Link marks a path listed because it is, or may be, a symlink at the
	// head (Selector.Links); Target is its text when the host knows it.
	// The gatherer reads the head to be sure.
	Link   bool
	Target string
}

// Selector says which changed paths the gatherer needs: Pathspecs for a
// host that lists changes by git pathspec (so a large repository is never
// walked whole), and Match, the exact test every listed path must pass.
type Selector struct {
	Pathspecs []string
	Match     func(path string) bool
	// Links asks for every changed path that is, or may be, a symlink at
	// the head too, whatever its name (Change.Link): a folder symlink
	// `pkg -> vendor/x` makes vendor/x/.claude appear as pkg/.claude. A
	// host may over-report (GitHub tells a symlink only by its patch).
	Links bool
}

// Source is a repository at a base and a head revision.
type Source interface {
	// Base and Head read the two sides.
	Base() Revision
	Head() Revision
	// ListBase lists the base's files, symlinks (Target may be empty: Read
	// returns it) and submodules. complete is false when the host cut the
	// listing (a very large tree): a path not listed may then exist.
	ListBase(ctx context.Context) (entries []Entry, complete bool, err error)
	// Changed lists the paths sel selects that differ between base and
	// head. truncated is true when the host lists only so many changed
	// files and there were more.
	Changed(ctx context.Context, sel Selector) (changes []Change, truncated bool, err error)
}

// ReadError is a failure to read from the host: the gather fails with it
// (the App retries the job and then reports the failure on the check run;
// the CLI exits with it) rather than concluding anything.
type ReadError struct {
	What string // what was being read ("the pull request's files", "x at abc123")
	Err  error
}

func (e *ReadError) Error() string { return fmt.Sprintf("reading %s: %v", e.What, e.Err) }

// Unwrap returns the host's error.
func (e *ReadError) Unwrap() error { return e.Err }
