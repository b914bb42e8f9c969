package lattice

import (
	"fmt"
	"strings"
)

// Parameter rules, Tool(param:value) (Claude Code 2.1.178+): in a deny or
// ask list, a rule whose specifier is `name:value` with name a top-level
// scalar input field of the tool matches the calls that set that field to
// a value matching value (`*` for any); a call that omits the field never
// matches; the value is compared before normalisation and blanks around
// the colon are ignored. The primary content fields (command, file_path,
// path, notebook_path, url) cannot be used this way: Claude Code ignores
// such a rule with a warning. In an allow list `name:value` is not a
// parameter rule (code.claude.com/docs/en/permissions, "Parameter rules";
// reference section 3.1).
//
// toolInputs lists each built-in tool's input fields as its tool schema
// declares them (code.claude.com/docs/en/tools-reference and the tool
// definitions Claude Code sends to the model; the Bash, Read and WebFetch
// schemas were read from the Claude Code 2.1.328 binary — Bash: command,
// timeout, description, run_in_background, dangerouslyDisableSandbox;
// Read: file_path, offset, limit, pages; WebFetch: url, prompt, offset —
// the others are from the documentation): the scalar fields a
// parameter rule may name, the primary content fields it may not, and the
// fields every call carries (a rule on one of those with the value `*`
// matches every call: it is the whole tool). For a tool not listed, or a
// field a listed tool does not declare, Shipgate cannot tell a parameter
// rule from an ordinary specifier: the rule gets both readings (the
// conservative reading — as a deny it is trusted to stop only what both
// readings stop; removed, it may have stopped everything the parameter
// reading matches).
type toolInput struct {
	fields   []string // scalar fields a parameter rule may name
	required []string // fields every call carries
	primary  []string // content fields a parameter rule may not name
	arrays   []string // non-scalar fields (no parameter rule matches them)
}

var toolInputs = map[string]toolInput{
	"Bash":         {fields: []string{"timeout", "description", "run_in_background", "dangerouslyDisableSandbox"}, primary: []string{"command"}},
	"PowerShell":   {fields: []string{"timeout", "description", "run_in_background", "dangerouslyDisableSandbox"}, primary: []string{"command"}},
	"Read":         {fields: []string{"offset", "limit", "pages"}, primary: []string{"file_path"}},
	"Edit":         {fields: []string{"old_string", "new_string", "replace_all"}, required: []string{"old_string", "new_string"}, primary: []string{"file_path"}},
	"Write":        {fields: []string{"content"}, required: []string{"content"}, primary: []string{"file_path"}},
	"NotebookEdit": {fields: []string{"new_source", "cell_id", "cell_type", "edit_mode"}, required: []string{"new_source"}, primary: []string{"notebook_path"}},
	"Glob":         {fields: []string{"pattern"}, required: []string{"pattern"}, primary: []string{"path"}},
	"Grep": {fields: []string{"pattern", "glob", "output_mode", "-B", "-A", "-C", "-n", "-i", "type", "head_limit", "offset", "multiline"},
		required: []string{"pattern"}, primary: []string{"path"}},
	"WebFetch":  {fields: []string{"prompt", "offset"}, required: []string{"prompt"}, primary: []string{"url"}},
	"WebSearch": {fields: []string{"query"}, required: []string{"query"}, arrays: []string{"allowed_domains", "blocked_domains"}},
	"Agent": {fields: []string{"description", "prompt", "subagent_type", "model", "run_in_background", "name", "team_name", "mode", "isolation"},
		required: []string{"description", "prompt"}},
	"Skill": {fields: []string{"skill", "args"}, required: []string{"skill"}},
}

func has(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// paramName is a plausible input field name.
func paramName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' || c == '-':
			if i == 0 && c != '-' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// splitParam splits a specifier `name:value` (blanks around the colon
// ignored); ok is false when it does not have that shape.
func splitParam(spec string) (name, value string, ok bool) {
	i := strings.IndexByte(spec, ':')
	if i <= 0 {
		return "", "", false
	}
	name = strings.TrimSpace(spec[:i])
	if !paramName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(spec[i+1:]), true
}

// compileParam reads a deny or ask rule as a parameter rule when the tool
// declares the field it names. handled is false when the rule is not one
// (then the tool's own specifier language applies, and withParamReading
// may add the parameter reading).
func (r *Rule) compileParam(tool, spec string) (rds []*reading, handled bool) {
	if r.List == Allow {
		return nil, false
	}
	name, value, ok := splitParam(spec)
	if !ok {
		return nil, false
	}
	in, known := toolInputs[tool]
	if !known {
		return nil, false
	}
	switch {
	case has(in.primary, name):
		r.malformed(fmt.Sprintf("%s is the %s tool's content field, which a parameter rule cannot name (Claude Code ignores the rule with a warning); write %s(<pattern>) instead", name, tool, tool))
		return []*reading{empty}, true
	case has(in.arrays, name):
		r.malformed(fmt.Sprintf("%s is a list field of %s: a parameter rule matches scalar fields only, so this rule matches nothing", name, tool))
		return []*reading{empty}, true
	case !has(in.fields, name):
		return nil, false
	case value == "":
		r.malformed("a parameter rule with an empty value")
		return []*reading{empty}, true
	case tool == "WebFetch":
		// Measured on 2.1.328 (the conformance class params): a deny or
		// ask WebFetch(prompt:*), WebFetch(prompt:conf*) or
		// WebFetch(prompt:other) changes nothing — a fetch whose prompt
		// matches runs under allow WebFetch and asks without it. A WebFetch
		// call is checked against domain rules only.
		r.malformed(fmt.Sprintf("Claude Code %s ignores a parameter rule on WebFetch (measured: a fetch whose %s matches runs under allow WebFetch); restrict fetches with WebFetch(domain:…)", ClaudeCodeVersion, name))
		return []*reading{empty}, true
	case tool == "Read" && strings.ContainsAny(value, "*"):
		// Measured on 2.1.328: deny Read(limit:*) and ask Read(offset:*)
		// let reads with a limit or an offset run, while Read(limit:10)
		// and Read(offset:5) match those values.
		r.malformed(fmt.Sprintf("Claude Code %s ignores a Read parameter rule whose value has a wildcard (measured: deny Read(%s:*) lets a read with a %s run; Read(%s:10) matches only that value)", ClaudeCodeVersion, name, name, name))
		return []*reading{empty}, true
	case has(in.required, name) && strings.Trim(value, "*") == "":
		r.Note = fmt.Sprintf("every %s call carries %s, so %s(%s:*) matches every %s call: it is the whole tool", tool, name, tool, name, tool)
		return []*reading{wholeTool(tool)}, true
	}
	if tool == "Bash" && legacyPrefixShape(spec) {
		// Measured on 2.1.328 (the conformance class params): a deny
		// Bash(timeout:*) also denies the command `timeout 5 npm test`
		// sent with no timeout field ("Permission to use Bash with command
		// timeout 5 npm test has been denied"), while Bash(timeout: *) and
		// Bash(timeout:**) do not: the spelling `X:*` is the parameter rule
		// and the legacy prefix rule at once.
		r.also = r.compileShell(tool, spec, false, true)
		r.Note = fmt.Sprintf("Claude Code %s reads %s(%s) both as the parameter rule on %s and as the legacy prefix rule %s: it matches calls that set %s and the command %s …", ClaudeCodeVersion, tool, spec, name, spec, name, name)
	}
	return []*reading{paramReading(tool, name, value)}, true
}

// legacyPrefixShape reports a specifier written `X:*` with X non-empty,
// made of no blanks and no wildcard: the legacy prefix spelling Claude
// Code also reads a parameter rule of that shape as.
func legacyPrefixShape(spec string) bool {
	x, ok := strings.CutSuffix(spec, ":*")
	return ok && x != "" && !strings.ContainsAny(x, " \t*:\\")
}

// withParamReading adds the parameter reading to a deny or ask rule of
// shape `name:value` whose tool's input fields Shipgate does not know
// (an unlisted tool, a field a listed tool does not declare is not one):
// Claude Code may read it either way.
func (r *Rule) withParamReading(tool, spec string, readings []*reading) []*reading {
	if r.List == Allow || r.Malformed != "" {
		return readings
	}
	if _, known := toolInputs[tool]; known {
		return readings
	}
	name, value, ok := splitParam(spec)
	if !ok || value == "" {
		return readings
	}
	r.ambiguous(fmt.Sprintf("%s(%s:…) may be a parameter rule on the input field %s (Claude Code 2.1.178+) or an ordinary specifier: Shipgate does not know the %s tool's input fields", tool, name, name, tool))
	return append(readings, paramReading(tool, name, value))
}
