package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCoversCLI(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"yes", []string{"covers", "Bash(npm *)", "Bash(npm test:*)"}, 0, "yes: Bash(npm *) covers Bash(npm test:*)", ""},
		{"no with a readable witness", []string{"covers", "Bash(npm test:*)", "Bash(npm *)"}, 1, "witness: npm publish", ""},
		{"unknown", []string{"covers", "PowerShell(git :*)", "PowerShell(git :x)"}, 3, "unknown:", ""},
		{"flags after the rules", []string{"covers", "Read(src/**)", "Read(src/**)", "--list", "deny"}, 0, "yes:", ""},
		{"deny list", []string{"covers", "--list=deny", "*", "Bash"}, 0, "yes:", ""},
		{"one rule", []string{"covers", "Bash"}, 2, "", "need exactly two rules, got 1"},
		{"three rules", []string{"covers", "a", "b", "c"}, 2, "", "need exactly two rules, got 3"},
		{"bad list", []string{"covers", "--list", "allowed", "a", "b"}, 2, "", `unknown permission list "allowed"`},
		{"bad format", []string{"covers", "--format", "yaml", "a", "b"}, 2, "", `--format "yaml": use one of text, json`},
		{"blank rule", []string{"covers", " ", "Bash"}, 2, "", "rule A is blank"},
		{"malformed rule warns", []string{"covers", "Bash(npm *", "Bash(npm)"}, 1, "no:", "unclosed parenthesis"},
		{"unknown flag", []string{"covers", "--nope", "a", "b"}, 2, "", "flag provided but not defined"},
		{"unknown command", []string{"cover", "a", "b"}, 2, "", `unknown command "cover"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errs)
			}
			if c.out != "" && !strings.Contains(out, c.out) {
				t.Errorf("stdout %q does not contain %q", out, c.out)
			}
			if c.err != "" && !strings.Contains(errs, c.err) {
				t.Errorf("stderr %q does not contain %q", errs, c.err)
			}
		})
	}
}

func TestCoversJSONContract(t *testing.T) {
	cases := []struct {
		a, b, verdict, witness string
		code                   int
	}{
		{"Bash(npm *)", "Bash(npm test:*)", "yes", "", 0},
		{"Bash(npm test:*)", "Bash(npm *)", "no", "npm publish", 1},
		{"PowerShell(git :*)", "PowerShell(git :x)", "unknown", "", 3},
	}
	for _, c := range cases {
		code, out, errs := runCLI("covers", "--format", "json", c.a, c.b)
		if code != c.code {
			t.Fatalf("covers %s %s: exit %d, want %d: %s", c.a, c.b, code, c.code, errs)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not JSON: %q: %v", out, err)
		}
		if len(got) != 3 {
			t.Errorf("keys %v, want exactly verdict, witness, reason", got)
		}
		if got["verdict"] != c.verdict || got["witness"] != c.witness || got["reason"] == "" {
			t.Errorf("covers %s %s = %v, want verdict %s witness %q", c.a, c.b, got, c.verdict, c.witness)
		}
	}
}
