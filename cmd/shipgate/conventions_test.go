package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func runCLIIn(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestCoversExitCodes: 0 yes, 1 no, 3 unknown, 2 usage — in both formats.
func TestCoversExitCodes(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"Bash(npm *)", "Bash(npm test:*)", 0},
		{"Bash", "Bash(rm -rf /)", 0},
		{"Bash(npm test:*)", "Bash(npm *)", 1},
		{"Read(src/**)", "Read(**)", 1},
		{"bash(git *)", "Bash(git status *)", 1}, // tool names are case-sensitive
		{"PowerShell(git :*)", "PowerShell(git :x)", 3},
	}
	for _, c := range cases {
		for _, format := range []string{"text", "json"} {
			if code, out, errs := runCLI("covers", "--format", format, c.a, c.b); code != c.want {
				t.Errorf("covers --format %s %q %q: exit %d, want %d\n%s%s", format, c.a, c.b, code, c.want, out, errs)
			}
		}
	}
	if code, _, _ := runCLI("covers", "Bash"); code != exitUsage {
		t.Errorf("one rule: exit %d, want 2", code)
	}
}

// TestStdinDash: "-" reads standard input wherever a file is read.
func TestStdinDash(t *testing.T) {
	dir := t.TempDir()
	base := writeFile(t, dir, "base.json", `{"permissions":{"allow":["Bash(npm test:*)"]}}`)
	head := `{"permissions":{"allow":["Bash(npm *)"]}}`
	headFile := writeFile(t, dir, "head.json", head)
	pol := "version: 1\nchecks:\n  SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED:\n    action: block\n"
	polFile := writeFile(t, dir, "shipgate.yml", pol)
	cases := []struct {
		name, stdin string
		args        []string
		code        int
		out, err    string
	}{
		{"check --head -", head, []string{"check", "--base", base, "--head", "-", "--format", "json"}, 0, `"decision": "require_review"`, ""},
		{"check --base -", `{"permissions":{"allow":["Bash(npm *)"]}}`, []string{"check", "--base", "-", "--head", base, "--format", "json"}, 0, `"direction": "narrowed"`, ""},
		{"check --policy -", pol, []string{"check", "--base", base, "--head", headFile, "--policy", "-", "--format", "json"}, 0, `"decision": "block"`, ""},
		{"check stdin twice", head, []string{"check", "--base", "-", "--head", "-"}, 2, "", "only one of --base, --head and --policy can be -"},
		{"check stdin not JSON", "{,", []string{"check", "--base", base, "--head", "-", "--format", "json"}, 0, `"parse_failed"`, ""},
		{"validate-policy -", pol, []string{"validate-policy", "-"}, 0, "<stdin>: valid: 1 check raised", ""},
		{"validate-policy - with errors", "version: 1\nchekcs: {}\n", []string{"validate-policy", "-"}, 1, "<stdin>:2", ""},
		{"validate-policy --org -", "version: 1\n", []string{"validate-policy", polFile, "--org", "-"}, 0, "valid", ""},
		{"validate-policy both -", pol, []string{"validate-policy", "-", "--org", "-"}, 2, "", "only one of FILE and --org"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLIIn(c.stdin, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errs)
			}
			if c.out != "" && !strings.Contains(out, c.out) {
				t.Errorf("stdout lacks %q:\n%s", c.out, out)
			}
			if c.err != "" && !strings.Contains(errs, c.err) {
				t.Errorf("stderr lacks %q:\n%s", c.err, errs)
			}
		})
	}
}

// TestReadInputLimit: standard input over the limit is refused, not cut.
func TestReadInputLimit(t *testing.T) {
	if _, _, err := readInput("-", strings.NewReader(strings.Repeat("a", 11)), 10); err == nil || !strings.Contains(err.Error(), "over the 10-byte limit") {
		t.Errorf("11 bytes with a limit of 10: %v", err)
	}
	if b, name, err := readInput("-", strings.NewReader("0123456789"), 10); err != nil || string(b) != "0123456789" || name != "<stdin>" {
		t.Errorf("10 bytes: %q %q %v", b, name, err)
	}
	v, err := readVersion("-", io.MultiReader(strings.NewReader("{"), strings.NewReader(strings.Repeat(" ", 2<<20))))
	if err != nil || !v.TooLarge || !v.Exists {
		t.Errorf("a huge stdin: %+v %v (want exists, too large)", v, err)
	}
}

// TestColor: --color and NO_COLOR decide whether the text report carries
// ANSI colours; other formats never do.
func TestColor(t *testing.T) {
	dir := t.TempDir()
	base := writeFile(t, dir, "base.json", `{"permissions":{"allow":["Bash(npm test:*)"]}}`)
	head := writeFile(t, dir, "head.json", `{"permissions":{"allow":["Bash(*)"]}}`)
	esc := "\x1b["
	for _, c := range []struct {
		args  []string
		color bool
	}{
		{[]string{"--color", "always"}, true},
		{[]string{"--color=never"}, false},
		{nil, false}, // auto, and a buffer is not a terminal
		{[]string{"--color", "always", "--format", "json"}, false},
		{[]string{"--color", "always", "--format", "markdown"}, false},
	} {
		code, out, errs := runCLI(append([]string{"check", "--base", base, "--head", head}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		if got := strings.Contains(out, esc); got != c.color {
			t.Errorf("%v: coloured = %v, want %v", c.args, got, c.color)
		}
		if c.color {
			if !strings.Contains(out, ansiBold+ansiRed+"⚠ critical") || !strings.Contains(out, "Decision: block."+ansiReset) {
				t.Errorf("%v: the widening and the decision are not red:\n%q", c.args, out)
			}
			if plain := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(out, ""); strings.Contains(plain, esc) {
				t.Errorf("stray escapes")
			}
		}
	}
	if code, _, errs := runCLI("check", "--base", base, "--head", head, "--color", "yes"); code != 2 || !strings.Contains(errs, `--color "yes": use one of auto, always, never`) {
		t.Errorf("--color yes: exit %d %s", code, errs)
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cases := []struct {
		mode string
		env  map[string]string
		want bool
	}{
		{"always", map[string]string{"NO_COLOR": "1"}, true}, // an explicit flag wins
		{"never", nil, false},
		{"auto", map[string]string{"NO_COLOR": "1"}, false},
		{"auto", map[string]string{"TERM": "dumb"}, false},
	}
	if err == nil {
		defer tty.Close()
		cases = append(cases, []struct {
			mode string
			env  map[string]string
			want bool
		}{
			{"auto", nil, true},
			{"auto", map[string]string{"NO_COLOR": ""}, true}, // empty NO_COLOR is unset
		}...)
	}
	for _, c := range cases {
		var w io.Writer = &bytes.Buffer{}
		if tty != nil && err == nil {
			w = tty
		}
		if got := useColor(c.mode, w, env(c.env)); got != c.want {
			t.Errorf("useColor(%s, %v) = %v, want %v", c.mode, c.env, got, c.want)
		}
	}
	if useColor("auto", &bytes.Buffer{}, env(nil)) {
		t.Error("auto coloured a buffer")
	}
}

// TestHelpHasExamples: every subcommand's -h shows its flags and an example,
// and exits 0.
func TestHelpHasExamples(t *testing.T) {
	for _, c := range commands() {
		for _, h := range []string{"-h", "--help"} {
			code, _, errs := runCLI(c.name, h)
			if code != 0 {
				t.Errorf("%s %s: exit %d", c.name, h, code)
			}
			if !strings.Contains(errs, "usage: shipgate "+c.name) || !strings.Contains(errs, "\nexamples:\n  shipgate") && !strings.Contains(errs, "\nexamples:\n  #") && !strings.Contains(errs, "\nexamples:\n  SHIPGATE_") {
				t.Errorf("%s %s lacks a usage line or an example:\n%s", c.name, h, errs)
			}
		}
	}
	code, _, errs := runCLI("--help")
	if code != 0 || !strings.Contains(errs, "--version") {
		t.Errorf("shipgate --help: exit %d\n%s", code, errs)
	}
}

// TestFlagTypo: a mistyped flag is an error that names it, with a
// suggestion when one is near.
func TestFlagTypo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--fial-on", "block"}, "did you mean --fail-on?"},
		{[]string{"covers", "--lst", "deny", "a", "b"}, "did you mean --list?"},
		{[]string{"diff", "--formt", "json"}, "did you mean --format?"},
		{[]string{"serve", "--worker", "3"}, "did you mean --workers?"},
		// Two neighbours swapped: one edit.
		{[]string{"diff", "--bsae", "main"}, "did you mean --base?"},
		{[]string{"check", "--haed", "x.json"}, "did you mean --head?"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(errs, "flag provided but not defined") || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", c.args, code, c.want, errs)
		}
		// Where it is read: before the usage, not under it.
		if i, u := strings.Index(errs, c.want), strings.Index(errs, "usage:"); i < 0 || u < 0 || i > u {
			t.Errorf("%v: the suggestion is not before the usage:\n%s", c.args, errs)
		}
	}
	for _, c := range []struct{ typed, want string }{{"chek", "did you mean check?"}, {"dif", "did you mean diff?"}, {"valdiate-policy", "did you mean validate-policy?"}} {
		code, _, errs := runCLI(c.typed)
		if code != exitUsage || !strings.Contains(errs, "unknown command \""+c.typed+"\": "+c.want) {
			t.Errorf("command %q: exit %d, stderr lacks %q:\n%s", c.typed, code, c.want, errs)
		}
	}
	if code, _, errs := runCLI("zzzzzz"); code != exitUsage || strings.Contains(errs, "did you mean") {
		t.Errorf("a command near nothing: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("covers", "--zzzzzzzz", "a", "b"); code != exitUsage || strings.Contains(errs, "did you mean") {
		t.Errorf("a flag near nothing: exit %d, %s", code, errs)
	}
}

// TestCheckEnv: SHIPGATE_* variables are held to the flags that name them.
func TestCheckEnv(t *testing.T) {
	newFS := func() *flag.FlagSet {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.Int("workers", 4, "concurrent evaluations (SHIPGATE_WORKERS)")
		fs.Duration("job-timeout", time.Minute, "time limit (SHIPGATE_JOB_TIMEOUT)")
		fs.Bool("redeliver-failed", true, "accept redeliveries (SHIPGATE_REDELIVER_FAILED)")
		fs.String("private-key-file", "", "PEM file (SHIPGATE_PRIVATE_KEY_FILE; or SHIPGATE_PRIVATE_KEY with the PEM itself)")
		return fs
	}
	cases := []struct {
		name    string
		args    []string
		environ []string
		want    []string // substrings of the error; none: no error
	}{
		{"valid", nil, []string{"SHIPGATE_WORKERS=8", "SHIPGATE_JOB_TIMEOUT=30s", "SHIPGATE_REDELIVER_FAILED=false", "PATH=/bin"}, nil},
		{"alternative name", nil, []string{"SHIPGATE_PRIVATE_KEY=-----BEGIN"}, nil},
		{"empty is unset", nil, []string{"SHIPGATE_WORKERS="}, nil},
		{"not a number", nil, []string{"SHIPGATE_WORKERS=abc"}, []string{`SHIPGATE_WORKERS="abc": not a whole number (it sets --workers)`}},
		{"not a duration", nil, []string{"SHIPGATE_JOB_TIMEOUT=30"}, []string{"SHIPGATE_JOB_TIMEOUT", "duration"}},
		{"not a bool", nil, []string{"SHIPGATE_REDELIVER_FAILED=yes please"}, []string{"SHIPGATE_REDELIVER_FAILED", "true or false"}},
		{"the flag wins", []string{"--workers", "2"}, []string{"SHIPGATE_WORKERS=abc"}, nil},
		{"typo", nil, []string{"SHIPGATE_WROKERS=8"}, []string{"unknown environment variable SHIPGATE_WROKERS (did you mean SHIPGATE_WORKERS?)"}},
		{"unknown, nothing near", nil, []string{"SHIPGATE_COLOUR_SCHEME=dark"}, []string{"unknown environment variable SHIPGATE_COLOUR_SCHEME;"}},
		{"every problem named", nil, []string{"SHIPGATE_WORKERS=x", "SHIPGATE_NOPE=1"}, []string{"SHIPGATE_WORKERS", "SHIPGATE_NOPE"}},
		{"not ours", nil, []string{"SHIPGATEWAY=1", "XSHIPGATE_WORKERS=abc"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := newFS()
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			err := checkEnv(fs, c.environ)
			if len(c.want) == 0 {
				if err != nil {
					t.Errorf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestServeEnvErrors: `shipgate serve` refuses a bad or unknown SHIPGATE_*
// variable before starting anything.
func TestServeEnvErrors(t *testing.T) {
	for _, c := range []struct{ k, v, want string }{
		{"SHIPGATE_WORKERS", "abc", `SHIPGATE_WORKERS="abc"`},
		{"SHIPGATE_QUEUE_SIZE", "1e3", `SHIPGATE_QUEUE_SIZE="1e3"`},
		{"SHIPGATE_SHUTDOWN_GRACE", "25", "SHIPGATE_SHUTDOWN_GRACE"},
		{"SHIPGATE_REDIS_LEASE", "soon", "SHIPGATE_REDIS_LEASE"},
		{"SHIPGATE_APPID", "1", "did you mean SHIPGATE_APP_ID?"},
	} {
		t.Run(c.k, func(t *testing.T) {
			t.Setenv(c.k, c.v)
			code, _, errs := runCLI("serve", "--app-id", "1")
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%s=%s: exit %d, stderr lacks %q:\n%s", c.k, c.v, code, c.want, errs)
			}
		})
	}
}

// TestEnvNamesDocumented: every SHIPGATE_* name serve's code reads is named
// by one of its flags, so checkEnv never refuses a variable Shipgate uses.
func TestEnvNamesDocumented(t *testing.T) {
	var help bytes.Buffer
	run([]string{"serve", "-h"}, strings.NewReader(""), io.Discard, &help)
	known := map[string]bool{}
	for _, n := range envName.FindAllString(help.String(), -1) {
		known[n] = true
	}
	for _, f := range []string{"serve.go", "serve_redis.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range regexp.MustCompile(`"(SHIPGATE_[A-Z0-9_]+)"`).FindAllStringSubmatch(string(src), -1) {
			if !known[n[1]] {
				t.Errorf("%s reads %s, which no flag of serve names in its usage (checkEnv would refuse it)", f, n[1])
			}
		}
	}
	// The chart's and the plain manifests' variables are all accepted.
	for _, f := range []string{"../../deploy/kubernetes/shipgate.yaml", "../../deploy/kubernetes/shipgate-ha.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range regexp.MustCompile(`name: (SHIPGATE_[A-Z0-9_]+)`).FindAllStringSubmatch(string(b), -1) {
			if !known[n[1]] {
				t.Errorf("%s sets %s, which serve does not know", f, n[1])
			}
		}
	}
}

// TestCheckPolicyWatch: check --policy applies paths.watch and paths.ignore
// before deciding whether --path is an agent-config file.
func TestCheckPolicyWatch(t *testing.T) {
	dir := t.TempDir()
	base := writeFile(t, dir, "base.json", `{"permissions":{"allow":["Bash(npm test:*)"]}}`)
	head := writeFile(t, dir, "head.json", `{"permissions":{"allow":["Bash(npm *)"]}}`)
	watch := writeFile(t, dir, "watch.yml", "version: 1\npaths:\n  watch: [\"tools/agent/*.json\"]\n")
	ignore := writeFile(t, dir, "ignore.yml", "version: 1\npaths:\n  ignore: [\"examples/**\"]\n")
	cases := []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"watched path", []string{"--path", "tools/agent/claude.json", "--policy", watch}, 0, `"path": "tools/agent/claude.json"`, ""},
		{"watched path, no policy", []string{"--path", "tools/agent/claude.json"}, 2, "", "not an agent-config file"},
		{"unwatched path", []string{"--path", "tools/other.json", "--policy", watch}, 2, "", "paths.watch"},
		{"ignored path", []string{"--path", "examples/.claude/settings.json", "--policy", ignore}, 2, "", "ignored by the policy (paths.ignore)"},
		{"not ignored", []string{"--path", ".claude/settings.json", "--policy", ignore}, 0, `"decision": "require_review"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--base", base, "--head", head, "--format", "json"}, c.args...)
			code, out, errs := runCLI(args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			if !strings.Contains(out, c.out) || !strings.Contains(errs, c.err) {
				t.Errorf("stdout %q / stderr %q, want %q / %q", out, errs, c.out, c.err)
			}
		})
	}
	// Without --path, a --head file at a watched path is named by it.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "tools/agent/claude.json", `{"permissions":{"allow":["Bash(npm *)"]}}`)
	code, out, errs := runCLI("check", "--base", base, "--head", "tools/agent/claude.json", "--policy", watch, "--format", "json")
	if code != 0 || !strings.Contains(out, `"path": "tools/agent/claude.json"`) {
		t.Errorf("guessed path: exit %d\n%s%s", code, out, errs)
	}
}
