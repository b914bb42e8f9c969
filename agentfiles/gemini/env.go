package gemini

import (
	"regexp"
	"strings"
)

// Gemini CLI's .env loading (bundle chunk-2YTYPKEZ.js, findEnvFile and
// loadEnvironment; the path traced in judge/testdata/surface/gemini-cli-
// 0.61.0.txt): at start it walks from the working folder up and loads the
// first of <folder>/.gemini/.env (trusted folders only) and <folder>/.env
// it finds, with dotenv, into its own process environment — every command
// its shell tool runs inherits it (measured: NODE_OPTIONS from a project
// .env reaches the git processes it starts). In a trusted folder every
// variable loads, except that a project .env (not .gemini/.env) skips
// DEBUG, DEBUG_MODE, GEMINI_CLI_IDE_SERVER_STDIO_COMMAND and _ARGS; in an
// untrusted one only GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_CLOUD_PROJECT
// and GOOGLE_CLOUD_LOCATION load, sanitised. A variable already set in the
// environment is not overridden.

// EnvVar is one variable a .env file sets.
type EnvVar struct {
	Name  string
	Value string
	Line  int
}

// envLine is one dotenv assignment (dotenv's LINE expression, read one
// line at a time): an optional export, a name, = or ": ", a value.
var envLine = regexp.MustCompile(`^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(.*)$`)

// ProjectEnvExcluded are the variables Gemini CLI does not take from a
// project .env (DEFAULT_EXCLUDED_ENV_VARS); .gemini/.env may set them.
var ProjectEnvExcluded = map[string]bool{"DEBUG": true, "DEBUG_MODE": true,
	"GEMINI_CLI_IDE_SERVER_STDIO_COMMAND": true, "GEMINI_CLI_IDE_SERVER_STDIO_ARGS": true}

// ReadEnv lists the variables a .env file sets, each at its line. It reads
// every line on its own, so a line that dotenv would take as part of an
// earlier multi-line quoted value still counts as an assignment: it may
// list a variable dotenv does not set, never miss one it sets. The last
// assignment of a name wins, as in dotenv.
func ReadEnv(data []byte) []EnvVar {
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	idx := map[string]int{}
	var out []EnvVar
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n") {
		m := envLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v := EnvVar{Name: m[1], Value: envValue(m[2]), Line: i + 1}
		if j, ok := idx[v.Name]; ok {
			out[j] = v
			continue
		}
		idx[v.Name] = len(out)
		out = append(out, v)
	}
	return out
}

// envValue is a dotenv value without its quotes or trailing comment.
func envValue(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.ContainsAny(s[:1], `'"`+"`") && strings.HasSuffix(s, s[:1]) {
		return s[1 : len(s)-1]
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(s, "#") {
		return ""
	}
	return strings.TrimSpace(s)
}
