package hookscript

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"mvdan.cc/sh/v3/syntax"
)

// DecidingEvent reports whether a hook on the event can answer a
// permission: a PreToolUse hook may allow, ask or deny a call, a
// PermissionRequest hook may answer the prompt (allow or deny). Hooks on
// every other event run commands around the agent's actions but cannot
// make a call run without a prompt, nor stop one that the rules allow.
func DecidingEvent(ev string) bool { return ev == "PreToolUse" || ev == "PermissionRequest" }

// When words when a handler runs: "before Bash tool calls".
func When(ev, matcher string) string {
	m := "tool"
	if matcher != "" && matcher != "*" {
		m = "`" + claude.Sanitize(matcher) + "`"
	}
	switch ev {
	case "PreToolUse":
		return "before " + m + " calls"
	case "PermissionRequest":
		return "when a " + m + " call asks for permission"
	}
	return "on " + ev + claude.HookMatcher(matcher)
}

// Effect is what a handler does, as far as Shipgate can tell from its
// text: its type and the command it runs (the same command however it is
// spelled: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`,
// `$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh` and `.claude/hooks/x.sh` are
// one effect), or its URL, prompt or agent. scope is the project folder
// the command runs in. Two handlers with the same effect run the same
// thing; handlers whose effect differs are treated as different (a
// command Shipgate cannot normalise keeps its exact text).
func Effect(h claude.Handler, scope string) string {
	if h.Value == nil {
		return "\x00raw\x00" + h.Canon
	}
	typ := h.Value.Get("type").Text()
	if typ == "" {
		typ = "command"
	}
	if c := h.Value.Get("command"); c.Text() != "" {
		return typ + "\x00" + normaliseCommand(c.Text(), scope)
	}
	return typ + "\x00" + claude.Canon(h.Value.Get("url")) + "\x00" + claude.Canon(h.Value.Get("prompt")) + "\x00" + claude.Canon(h.Value.Get("agent"))
}

// normaliseCommand spells a single simple command (no operators,
// redirections, assignments or substitutions) as the words it expands to,
// with $CLAUDE_PROJECT_DIR expanded and every word that is a relative or
// project path written as its repository path: Claude Code runs a
// project's hooks in the project folder, so `./x.sh`, `x/../x.sh` and
// `"$CLAUDE_PROJECT_DIR"/x.sh` name one file. Anything else is its
// trimmed text, so only identical text is the same command.
func normaliseCommand(cmd, scope string) string {
	raw := "\x00text\x00" + strings.TrimSpace(cmd)
	if strings.Contains(cmd, RepoMark) {
		return raw
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		return raw
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return raw
	}
	env := ProjectEnv(scope)
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, ok := WordText(w, env)
		if !ok {
			return raw
		}
		switch {
		case strings.HasPrefix(s, RepoMark):
			s = "\x02" + path.Clean("/"+strings.TrimLeft(s[len(RepoMark):], "/"))
		case strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || (strings.Contains(s, "/") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "-") && !strings.Contains(s, "://") && !strings.ContainsAny(s, "=*?[")):
			s = "\x02" + path.Clean("/"+path.Join(scope, s))
		}
		words = append(words, s)
	}
	return strings.Join(words, "\x00")
}

// EffectBasis says what a group of review-level hook changes means:
// only removals of a guard are worded as removals.
func EffectBasis(ev string, parts []string) string {
	removal := true
	for _, p := range parts {
		if !strings.HasPrefix(p, "removes ") {
			removal = false
		}
	}
	switch {
	case removal:
		return "a " + ev + " hook can deny or ask about calls; without it, those calls follow the permission rules alone"
	case DecidingEvent(ev):
		return "a " + ev + " hook decides calls: it can let them run without a prompt, or deny them"
	}
	return "a command Claude Code runs by itself " + When(ev, "") + ", without a prompt"
}

// ChangedFields names the fields, other than the command's spelling, in
// which two handlers that run the same thing differ.
func ChangedFields(b, h claude.Handler) []string {
	if b.Value == nil || h.Value == nil {
		return []string{"(the entry)"}
	}
	keys := map[string]bool{}
	for _, m := range b.Value.Members() {
		keys[m.Key] = true
	}
	for _, m := range h.Value.Members() {
		keys[m.Key] = true
	}
	var fields []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if k == "command" {
			continue // same effect: the spelling is all that differs
		}
		if claude.Canon(b.Value.Get(k)) != claude.Canon(h.Value.Get(k)) {
			fields = append(fields, fmt.Sprintf("%s %s → %s", k, claude.FieldValue(b.Value.Get(k)), claude.FieldValue(h.Value.Get(k))))
		}
	}
	return fields
}

// OnlyCosmetic reports whether the changed fields cannot change what a
// handler decides (its status message only).
func OnlyCosmetic(fields []string) bool {
	for _, f := range fields {
		if !strings.HasPrefix(f, "statusMessage ") {
			return false
		}
	}
	return true
}
