// Command shipgate reviews changes to AI coding agents' permission settings.
//
// Subcommands:
//
//	shipgate covers A B     does rule A allow every call rule B allows?
//
// main only wires flags to the packages that do the work.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit are stamped at build time (GoReleaser and
// deploy/build.sh): -ldflags "-X main.version=1.2.3 -X main.commit=SHA".
// An unstamped build says "dev" and takes the commit from Go's VCS stamp
// when it has one.
var (
	version = "dev"
	commit  = ""
)

// buildCommit is the commit the binary was built from: the -X stamp, else
// Go's VCS stamp (go build in a git checkout; "-dirty" when the work tree
// had changes), else "unknown".
func buildCommit() string {
	if commit != "" {
		return commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}

// versionLine is what `shipgate version` and `shipgate --version` print:
// the version, the commit and the Go toolchain, on one line.
func versionLine() string {
	return fmt.Sprintf("shipgate %s (commit %s, %s %s/%s)", version, buildCommit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exit codes shared by every subcommand.
const (
	exitOK      = 0
	exitFail    = 1 // the result reached --fail-on; covers: no
	exitUsage   = 2 // unusable arguments or unreadable input
	exitUnknown = 3 // covers: the answer depends on how Claude Code reads an ambiguous rule
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"check", "review a change to one agent-config file (two versions given as files)", runCheck},
		{"covers", "decide whether permission rule A allows every call rule B allows", runCovers},
		{"diff", "review every agent-config file changed between a base ref and the working tree (real git)", runDiff},
		{"demo", "run the App end to end against a built-in fake GitHub and show its check runs", runDemo},
		{"serve", "run the GitHub App (webhook server and workers)", runServe},
		{"register", "create Shipgate's GitHub App from its manifest (a local page and GitHub's redirect) and save its credentials", runRegister},
		{"ledger", "list every Shipgate decision and approval across an organisation's repositories (jsonl or csv), read back from GitHub", runLedger},
		{"validate-policy", "check a policy file (.github/shipgate.yml) and print its errors with line and column", runValidatePolicy},
		{"probe", "GET a URL and exit 0 on a 2xx answer (the image has no curl: helm test uses this)", runProbe},
		{"version", "print the version, the commit and the Go version it was built with", runVersion},
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if s := closestName(args[0], names); s != "" {
		fmt.Fprintf(stderr, "shipgate: unknown command %q: did you mean %s?\n\n", args[0], s)
	} else {
		fmt.Fprintf(stderr, "shipgate: unknown command %q\n\n", args[0])
	}
	usage(stderr)
	return exitUsage
}

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "", stderr)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "version", "unexpected argument %q", pos[0])
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: shipgate <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'shipgate <command> -h' for a command's flags and an example;")
	fmt.Fprintln(w, "'shipgate --version' for the version.")
}

// parseFlags parses flags that may appear before, between or after the
// positional arguments, and returns the positionals. "--" ends flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	// The flag package prints an error, then calls the usage: the
	// suggestion goes between the two, where it is read, not under the
	// whole usage.
	full := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = full }()
	for {
		if err := fs.Parse(args); err != nil {
			if s := flagSuggestion(fs, err); s != "" {
				fmt.Fprintf(fs.Output(), "shipgate %s: %s\n\n", fs.Name(), s)
			}
			full()
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlagSet returns a flag set that reports errors instead of exiting. Its
// help (-h) prints the synopsis, the flags and at least one example: each
// example is a command line, or a line starting with "#" that explains the
// next one.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: shipgate %s %s\n", name, synopsis)
		fs.PrintDefaults()
		if ex := examples[name]; len(ex) > 0 {
			fmt.Fprintln(stderr, "\nexamples:")
			for _, e := range ex {
				fmt.Fprintf(stderr, "  %s\n", e)
			}
		}
	}
	return fs
}

// examples are the command lines each subcommand's help ends with (a line
// starting with "#" explains the next one). TestHelpHasExamples holds every
// subcommand to having one.
var examples = map[string][]string{
	"check": {
		"# a change to .claude/settings.json, as a reviewer would see it",
		"git show origin/main:.claude/settings.json > /tmp/base.json",
		"shipgate check --base /tmp/base.json --head .claude/settings.json",
		"# the head version on standard input, JSON out, exit 1 on block",
		"git show HEAD:.claude/settings.json | shipgate check --base /tmp/base.json --head - --format json --fail-on block",
	},
	"covers": {
		"shipgate covers 'Bash(npm *)' 'Bash(npm test:*)'        # yes: exit 0",
		"shipgate covers 'Bash(npm test:*)' 'Bash(npm *)'        # no, witness npm publish: exit 1",
		"shipgate covers --list deny --format json 'Read(./secrets/**)' 'Read(./secrets/a)'",
	},
	"diff": {
		"# every agent-config file changed since the merge base with origin/main",
		"shipgate diff --base origin/main --format markdown --fail-on block",
		"# only what is staged for the next commit (the pre-commit hook)",
		"shipgate diff --staged --fail-on block",
	},
	"demo": {
		"shipgate demo",
		"shipgate demo --listen 127.0.0.1:8080 --verbose",
	},
	"serve": {
		"SHIPGATE_APP_ID=123456 SHIPGATE_PRIVATE_KEY_FILE=/etc/shipgate/private-key.pem \\",
		"  SHIPGATE_WEBHOOK_SECRET_FILE=/etc/shipgate/webhook-secret shipgate serve --listen :8080",
	},
	"register": {
		"shipgate register --org acme --webhook-url https://shipgate.example.com/webhook --out shipgate-credentials",
	},
	"validate-policy": {
		"shipgate validate-policy .github/shipgate.yml",
		"shipgate validate-policy .github/shipgate.yml --org ../.github/shipgate.yml",
		"git show origin/main:.github/shipgate.yml | shipgate validate-policy -",
	},
	"probe": {
		"shipgate probe http://shipgate.shipgate.svc/readyz",
		"shipgate probe --timeout 3s http://127.0.0.1:8080/healthz",
	},
	"version": {
		"shipgate version",
		"shipgate --version",
	},
}

// usageError prints a message naming what is wrong and returns exitUsage.
func usageError(stderr io.Writer, cmd string, format string, a ...any) int {
	fmt.Fprintf(stderr, "shipgate %s: %s\n", cmd, fmt.Sprintf(format, a...))
	return exitUsage
}

// flagError turns a flag parsing error into an exit code (help is not an error).
func flagError(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// oneOf checks a flag value against its allowed values.
func oneOf(name, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return fmt.Errorf("--%s %q: use one of %s", name, value, strings.Join(allowed, ", "))
}
