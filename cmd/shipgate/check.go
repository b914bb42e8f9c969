package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles"
	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/render"
	"github.com/shipgate-app/shipgate/report"
)

// reportFlags are the output flags check and diff share.
type reportFlags struct {
	format     *string
	failOn     *string
	policyPath *string
	color      *string
	// Further reports of the same run, each written to its own file, so
	// that one run gives a CI job everything (the GitHub Action: SARIF for
	// code scanning, Markdown for the job summary, the decision).
	sarifFile, markdownFile, jsonFile, textFile *string
	// githubOutput is a GitHub Actions output file: decision=... (and
	// sarif-file=... with --sarif-file) are appended to it.
	githubOutput *string
}

func addReportFlags(fs interface {
	String(name, value, usage string) *string
}) reportFlags {
	return reportFlags{
		format:     fs.String("format", "text", "output format: text, json, markdown or sarif"),
		failOn:     fs.String("fail-on", "", "exit 1 when the decision reaches review (require_review or block) or block; never (the default) always exits 0 on a report"),
		policyPath: fs.String("policy", "", "policy file (.github/shipgate.yml) to apply (-: standard input)"),
		color:      fs.String("color", "auto", "colour the text report: auto (when standard output is a terminal and NO_COLOR is unset), always or never"),

		sarifFile:    fs.String("sarif-file", "", "also write the SARIF report to this file (same run)"),
		markdownFile: fs.String("markdown-file", "", "also write the Markdown report to this file (same run)"),
		jsonFile:     fs.String("json-file", "", "also write the JSON report to this file (same run)"),
		textFile:     fs.String("text-file", "", "also write the text report, uncoloured, to this file (same run)"),
		githubOutput: fs.String("github-output", "", "append decision=... (and sarif-file=...) to this GitHub Actions output file ($GITHUB_OUTPUT)"),
	}
}

func (f reportFlags) validate() error {
	if err := oneOf("format", *f.format, "text", "json", "markdown", "sarif"); err != nil {
		return err
	}
	if *f.failOn != "" {
		if err := oneOf("fail-on", *f.failOn, "review", "block", "never"); err != nil {
			return err
		}
	}
	return oneOf("color", *f.color, "auto", "always", "never")
}

// loadPolicy reads a policy file given on the command line ("-": standard
// input).
func loadPolicy(path string) (*policy.Policy, error) {
	return loadPolicyFrom(path, os.Stdin)
}

// loadPolicyFrom reads a policy file, "-" from stdin.
func loadPolicyFrom(path string, stdin io.Reader) (*policy.Policy, error) {
	if path == "" {
		return nil, nil
	}
	data, name, err := readInput(path, stdin, maxPolicySize)
	if err != nil {
		return nil, fmt.Errorf("reading the policy: %w", err)
	}
	return policy.Parse(name, data, agentfiles.PolicyOptions())
}

// maxPolicySize bounds a policy file read from the command line (the App
// reads at most 1 MiB of .github/shipgate.yml too).
const maxPolicySize = 1 << 20

// readInput reads a file named on the command line; "-" reads standard
// input (named "<stdin>" in messages), refusing more than limit bytes.
func readInput(path string, stdin io.Reader, limit int64) (data []byte, name string, err error) {
	if path == "-" {
		if stdin == nil {
			return nil, "<stdin>", errors.New("standard input is not available")
		}
		data, err = io.ReadAll(io.LimitReader(stdin, limit+1))
		if err != nil {
			return nil, "<stdin>", fmt.Errorf("reading standard input: %w", err)
		}
		if int64(len(data)) > limit {
			return nil, "<stdin>", fmt.Errorf("standard input is over the %d-byte limit", limit)
		}
		return data, "<stdin>", nil
	}
	data, err = os.ReadFile(path)
	return data, path, err
}

// render writes a report in the chosen format and returns the exit code.
func writeReport(stdout, stderr io.Writer, cmd string, r report.Report, f reportFlags, o render.Options) int {
	out, err := renderAs(r, *f.format, o)
	if err != nil {
		fmt.Fprintf(stderr, "shipgate %s: rendering the report: %v\n", cmd, err)
		return exitUsage
	}
	if *f.format == "text" && useColor(*f.color, stdout, os.LookupEnv) {
		out = []byte(colorize(string(out)))
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "shipgate %s: writing the report: %v\n", cmd, err)
		return exitUsage
	}
	if err := writeReportFiles(r, f, o); err != nil {
		fmt.Fprintf(stderr, "shipgate %s: %v\n", cmd, err)
		return exitUsage
	}
	switch {
	case *f.failOn == "block" && r.Decision == report.DecisionBlock:
		return exitFail
	case *f.failOn == "review" && r.Decision != report.DecisionAllow:
		return exitFail
	}
	return exitOK
}

// renderAs renders r in one of the report formats.
func renderAs(r report.Report, format string, o render.Options) ([]byte, error) {
	switch format {
	case "json":
		return render.JSON(r)
	case "sarif":
		return render.SARIF(r, o)
	case "markdown":
		return []byte(render.Markdown(r, o)), nil
	}
	return []byte(render.Text(r, o)), nil
}

// writeReportFiles writes the reports the --*-file flags ask for and
// appends the decision to --github-output: every output a CI job needs
// from the one comparison this run made.
func writeReportFiles(r report.Report, f reportFlags, o render.Options) error {
	for _, w := range []struct{ format, path string }{
		{"sarif", *f.sarifFile}, {"markdown", *f.markdownFile}, {"json", *f.jsonFile}, {"text", *f.textFile},
	} {
		if w.path == "" {
			continue
		}
		out, err := renderAs(r, w.format, o)
		if err != nil {
			return fmt.Errorf("rendering the %s report: %w", w.format, err)
		}
		if err := os.WriteFile(w.path, out, 0o644); err != nil {
			return fmt.Errorf("writing the %s report (--%s-file): %w", w.format, w.format, err)
		}
	}
	if *f.githubOutput == "" {
		return nil
	}
	lines := "decision=" + string(r.Decision) + "\n"
	if *f.sarifFile != "" {
		abs, err := filepath.Abs(*f.sarifFile)
		if err != nil {
			return fmt.Errorf("--sarif-file: %w", err)
		}
		if strings.ContainsAny(abs, "\n\r") {
			return fmt.Errorf("--github-output: the --sarif-file path %q holds a line break, which the output file cannot carry", abs)
		}
		lines += "sarif-file=" + abs + "\n"
	}
	out, err := os.OpenFile(*f.githubOutput, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--github-output: %w", err)
	}
	if _, err := out.WriteString(lines); err != nil {
		out.Close()
		return fmt.Errorf("--github-output: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("--github-output: %w", err)
	}
	return nil
}

// readVersion reads one side of `shipgate check`: "" or /dev/null is an
// absent file; "-" is standard input; a file over the size limit is
// reported, not read.
func readVersion(path string, stdin io.Reader) (report.Version, error) {
	if path == "" || path == os.DevNull {
		return report.Version{}, nil
	}
	if path == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, report.MaxFileSize+1))
		if err != nil {
			return report.Version{}, fmt.Errorf("reading standard input: %w", err)
		}
		if int64(len(data)) > report.MaxFileSize {
			return report.Version{Exists: true, TooLarge: true,
				Unreadable: fmt.Sprintf("standard input is over the %d-byte limit; it was not read", report.MaxFileSize)}, nil
		}
		return report.Version{Exists: true, Data: data}, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return report.Version{}, fmt.Errorf("%s does not exist (use /dev/null for an absent side)", path)
		}
		return report.Version{}, err
	}
	if st.IsDir() {
		return report.Version{}, fmt.Errorf("%s is a directory, not a settings file", path)
	}
	if st.Size() > report.MaxFileSize {
		return report.Version{Exists: true, TooLarge: true,
			Unreadable: fmt.Sprintf("the file is %d bytes, over the %d-byte limit; it was not read", st.Size(), report.MaxFileSize)}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return report.Version{}, err
	}
	return report.Version{Exists: true, Data: data}, nil
}

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "--base FILE --head FILE [--path P] [--policy FILE] [--format text|json|markdown|sarif] [--fail-on review|block] [--color auto|always|never]", stderr)
	base := fs.String("base", "", "the file before the change (/dev/null or omitted: the file is new; -: standard input)")
	head := fs.String("head", "", "the file after the change (/dev/null or omitted: the file is deleted; -: standard input)")
	path := fs.String("path", "", "the file's path in the repository (default: from --head or --base, else .claude/settings.json); the policy's paths.watch and paths.ignore apply")
	rf := addReportFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "check", "unexpected argument %q: give the files with --base and --head", pos[0])
	}
	if err := rf.validate(); err != nil {
		return usageError(stderr, "check", "%v", err)
	}
	if (*base == "" || *base == os.DevNull) && (*head == "" || *head == os.DevNull) {
		return usageError(stderr, "check", "give --base, --head or both")
	}
	if n := countStdin(*base, *head, *rf.policyPath); n > 1 {
		return usageError(stderr, "check", "only one of --base, --head and --policy can be - (standard input)")
	}
	// The policy first: its paths.watch and paths.ignore decide whether
	// --path is an agent-config file at all.
	pol, err := loadPolicyFrom(*rf.policyPath, stdin)
	if err != nil {
		return usageError(stderr, "check", "--policy: %v", err)
	}
	repoPath := *path
	if repoPath == "" {
		repoPath = guessRepoPath(pol, *head, *base)
	}
	if kind, _ := agentfiles.Classify(repoPath, pol); kind == report.NotAgentConfig {
		if pol.Ignored(repoPath) {
			return usageError(stderr, "check", "--path %q is ignored by the policy (paths.ignore), so Shipgate does not review it", repoPath)
		}
		return usageError(stderr, "check", "--path %q is not an agent-config file Shipgate reads (.claude/settings.json, .claude/settings.local.json, .mcp.json, in any directory, or a .json file the policy's paths.watch names)", repoPath)
	}
	bv, err := readVersion(*base, stdin)
	if err != nil {
		return usageError(stderr, "check", "--base: %v", err)
	}
	hv, err := readVersion(*head, stdin)
	if err != nil {
		return usageError(stderr, "check", "--head: %v", err)
	}
	r := judge.Compare(report.Input{Files: []report.File{{Path: repoPath, Base: bv, Head: hv}}, Policy: pol})
	o := render.Options{
		Subject:   fmt.Sprintf("Agent permission review  %s -> %s", side(*base), side(*head)),
		Version:   version,
		Reproduce: shellJoin(append([]string{"shipgate", "check"}, args...)...),
	}
	return writeReport(stdout, stderr, "check", r, rf, o)
}

// countStdin counts the arguments that read standard input ("-").
func countStdin(paths ...string) int {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	return n
}

func side(p string) string {
	switch p {
	case "", os.DevNull:
		return "(absent)"
	case "-":
		return "(standard input)"
	}
	return p
}

// guessRepoPath names the file in the repository from the file given: a
// path the policy watches is taken as it is.
func guessRepoPath(pol *policy.Policy, paths ...string) string {
	for _, p := range paths {
		if p == "" || p == os.DevNull || p == "-" {
			continue
		}
		slash := filepath.ToSlash(p)
		if pol.Watched(strings.TrimPrefix(path.Clean("/"+slash), "/")) {
			return strings.TrimPrefix(path.Clean("/"+slash), "/")
		}
		if k, _ := agentfiles.Classify(slash, nil); k != report.NotAgentConfig {
			if i := strings.Index(slash, ".claude/"); i >= 0 && !strings.Contains(slash[:i], "..") {
				return ".claude/" + slash[i+len(".claude/"):]
			}
			return filepath.Base(slash)
		}
		switch base := filepath.Base(p); {
		case strings.HasSuffix(base, "mcp.json"):
			return ".mcp.json"
		case strings.Contains(base, "local"):
			return ".claude/settings.local.json"
		}
	}
	return ".claude/settings.json"
}
