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
	"strings"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // the result reached --fail-on
	exitUsage = 2 // unusable arguments or unreadable input
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
		{"validate-policy", "check a policy file (.github/shipgate.yml) and print its errors with line and column", runValidatePolicy},
		{"version", "print the version", func(_ []string, _ io.Reader, stdout, _ io.Writer) int {
			fmt.Fprintln(stdout, "shipgate", version)
			return exitOK
		}},
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
	fmt.Fprintf(stderr, "shipgate: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: shipgate <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'shipgate <command> -h' for a command's flags.")
}

// parseFlags parses flags that may appear before, between or after the
// positional arguments, and returns the positionals. "--" ends flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
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

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: shipgate %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
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
