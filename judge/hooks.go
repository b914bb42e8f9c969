package judge

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// decidingEvent reports whether a hook on the event can answer a
// permission: a PreToolUse hook may allow, ask or deny a call, a
// PermissionRequest hook may answer the prompt (allow or deny). Hooks on
// every other event run commands around the agent's actions but cannot
// make a call run without a prompt, nor stop one that the rules allow.
func decidingEvent(ev string) bool { return ev == "PreToolUse" || ev == "PermissionRequest" }

// hookWhen words when a handler runs: "before Bash tool calls".
func hookWhen(ev, matcher string) string {
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

// hookEffect is what a handler does, as far as Shipgate can tell from its
// text: its type and the command it runs (the same command however it is
// spelled: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`,
// `$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh` and `.claude/hooks/x.sh` are
// one effect), or its URL, prompt or agent. scope is the project folder
// the command runs in. Two handlers with the same effect run the same
// thing; handlers whose effect differs are treated as different (a
// command Shipgate cannot normalise keeps its exact text).
func hookEffect(h claude.Handler, scope string) string {
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
	if strings.Contains(cmd, hookscript.RepoMark) {
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
	env := hookscript.ProjectEnv(scope)
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, ok := hookscript.WordText(w, env)
		if !ok {
			return raw
		}
		switch {
		case strings.HasPrefix(s, hookscript.RepoMark):
			s = "\x02" + path.Clean("/"+strings.TrimLeft(s[len(hookscript.RepoMark):], "/"))
		case strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || (strings.Contains(s, "/") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "-") && !strings.Contains(s, "://") && !strings.ContainsAny(s, "=*?[")):
			s = "\x02" + path.Clean("/"+path.Join(scope, s))
		}
		words = append(words, s)
	}
	return strings.Join(words, "\x00")
}

// quietHook rates a hook row that changes nothing a permission depends on.
var quietHook = rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}

// hookPair is a base handler and a head handler that run the same thing.
type hookPair struct{ base, head claude.Handler }

// compareHooks judges hooks by their effect: which command runs, on which
// event and matcher, and whether that event can decide a permission.
//
//   - A new command (one no handler of the base ran on that event and
//     matcher) is HOOK-CHANGED, require_review.
//   - The same command respelled, reordered or moved between groups is a
//     quiet row; moved to another event or matcher it is quiet unless a
//     permission-deciding event is involved (it may now answer other
//     calls, or no longer stop the ones it did).
//   - A removed handler of a deciding event (a guard) is require_review,
//     worded as a removal; any other removed handler (a formatter, a
//     notifier) is advisory.
//   - The same command with other settings (timeout, async) is review on a
//     deciding event (a shorter timeout or async stops a guard), quiet
//     otherwise.
func (e *engine) compareHooks(f *fileState) {
	scope := ownerScope(f)
	bh, hh := claude.HookHandlers(f.base), claude.HookHandlers(f.head)
	// Pair handlers that run the same thing on the same event and matcher.
	type slot struct {
		h      claude.Handler
		effect string
		used   bool
	}
	var bs, hs []*slot
	for _, ev := range sortedKeys(bh) {
		for _, h := range bh[ev] {
			bs = append(bs, &slot{h: h, effect: hookEffect(h, scope)})
		}
	}
	for _, ev := range sortedKeys(hh) {
		for _, h := range hh[ev] {
			hs = append(hs, &slot{h: h, effect: hookEffect(h, scope)})
		}
	}
	var same, moved []hookPair
	pair := func(match func(b, h *slot) bool, into *[]hookPair) {
		for _, h := range hs {
			if h.used {
				continue
			}
			for _, b := range bs {
				if !b.used && b.effect == h.effect && match(b, h) {
					b.used, h.used = true, true
					*into = append(*into, hookPair{b.h, h.h})
					break
				}
			}
		}
	}
	// Exact text first, so a respelling pairs only what is left.
	pair(func(b, h *slot) bool {
		return b.h.Event == h.h.Event && b.h.Matcher == h.h.Matcher && b.h.Canon == h.h.Canon
	}, &same)
	pair(func(b, h *slot) bool { return b.h.Event == h.h.Event && b.h.Matcher == h.h.Matcher }, &same)
	pair(func(b, h *slot) bool { return true }, &moved)

	type group struct {
		review, advisory []string
		line, headLine   int
		base             bool
		rt               rating.Rating
	}
	groups := map[string]*group{}
	var order []string
	at := func(ev string) *group {
		g, ok := groups[ev]
		if !ok {
			g = &group{rt: rating.Hook(ev), headLine: 1}
			groups[ev] = g
			order = append(order, ev)
		}
		return g
	}
	note := func(g *group, review bool, part string, line int, base bool) {
		if review {
			g.review = append(g.review, part)
		} else {
			g.advisory = append(g.advisory, part)
		}
		if g.line == 0 {
			g.line, g.base = line, base
			if !base {
				g.headLine = line
			}
		}
	}

	for _, p := range same {
		b, h := p.base, p.head
		if b.Canon == h.Canon {
			continue // the same handler, perhaps reordered
		}
		label := h.Event + claude.HookMatcher(h.Matcher) + ": " + h.Summary
		fields := changedFields(b, h)
		if len(fields) == 0 {
			// Only the spelling differs: the same command runs.
			e.row(f, report.KindHook, report.DirRespelled, b.Event+claude.HookMatcher(b.Matcher)+": "+b.Summary, label, false, quietHook, h.Line, h.Line,
				"the same command, spelled otherwise: it runs the same thing at the same moments")
			continue
		}
		if !decidingEvent(h.Event) || onlyCosmetic(fields) {
			e.row(f, report.KindHook, report.DirChanged, label, label+": "+strings.Join(fields, ", "), false, quietHook, h.Line, h.Line,
				"the same command with other settings, "+hookWhen(h.Event, h.Matcher)+": it cannot decide a permission either way")
			continue
		}
		rt := rating.Hook(h.Event)
		e.row(f, report.KindHook, report.DirChanged, label, label+": "+strings.Join(fields, ", "), true, rt, h.Line, h.Line,
			"the same command with other settings, "+hookWhen(h.Event, h.Matcher)+": a guard's timeout and async decide whether it can stop a call in time")
		note(at(h.Event), true, "changes "+h.Summary+claude.HookMatcher(h.Matcher)+" ("+strings.Join(fields, ", ")+")", h.Line, false)
	}
	for _, p := range moved {
		b, h := p.base, p.head
		before := b.Event + claude.HookMatcher(b.Matcher) + ": " + b.Summary
		after := h.Event + claude.HookMatcher(h.Matcher) + ": " + h.Summary
		if !decidingEvent(b.Event) && !decidingEvent(h.Event) {
			e.row(f, report.KindHook, report.DirMoved, before, after, false, quietHook, h.Line, h.Line,
				"the same command now runs "+hookWhen(h.Event, h.Matcher)+" (was "+hookWhen(b.Event, b.Matcher)+"): neither event can decide a permission")
			continue
		}
		rt := rating.Hook(h.Event)
		if !decidingEvent(h.Event) {
			rt = rating.Hook(b.Event)
		}
		why := "the same command now runs " + hookWhen(h.Event, h.Matcher) + " (was " + hookWhen(b.Event, b.Matcher) + ")"
		switch {
		case !decidingEvent(h.Event):
			why += ": it no longer stops the calls it could deny " + hookWhen(b.Event, b.Matcher)
		case !decidingEvent(b.Event):
			why += ": it may now allow or deny those calls"
		default:
			why += ": it may now answer other calls, and no longer stops the ones it no longer sees"
		}
		e.row(f, report.KindHook, report.DirMoved, before, after, true, rt, h.Line, h.Line, why)
		note(at(h.Event), true, "moves "+h.Summary+" to "+hookWhen(h.Event, h.Matcher)+" (was "+hookWhen(b.Event, b.Matcher)+")", h.Line, false)
	}
	for _, s := range hs {
		if s.used {
			continue
		}
		h := s.h
		rt := rating.Hook(h.Event)
		label := h.Event + claude.HookMatcher(h.Matcher)
		why := "a new command runs " + hookWhen(h.Event, h.Matcher) + ", by itself and without a prompt"
		if decidingEvent(h.Event) {
			why = "a new command runs " + hookWhen(h.Event, h.Matcher) + ": it may allow or deny them without a prompt"
		}
		e.row(f, report.KindHook, report.DirAdded, "", label+": "+h.Summary, true, rt, h.Line, h.Line, why)
		note(at(h.Event), true, "adds "+h.Summary+claude.HookMatcher(h.Matcher), h.Line, false)
	}
	for _, s := range bs {
		if s.used {
			continue
		}
		b := s.h
		label := b.Event + claude.HookMatcher(b.Matcher) + ": " + b.Summary
		if decidingEvent(b.Event) {
			rt := rating.Hook(b.Event)
			e.row(f, report.KindHook, report.DirRemoved, label, "", true, rt, b.Line, 1,
				"a hook that could deny calls is removed: it no longer stops what it stopped "+hookWhen(b.Event, b.Matcher))
			note(at(b.Event), true, "removes "+b.Summary+claude.HookMatcher(b.Matcher)+", so it no longer stops what it stopped "+hookWhen(b.Event, b.Matcher), b.Line, true)
			continue
		}
		e.row(f, report.KindHook, report.DirRemoved, label, "", false, quietHook, b.Line, 1,
			"no longer runs "+hookWhen(b.Event, b.Matcher)+"; a hook on this event cannot decide a permission, so no call it could have stopped now runs")
		note(at(b.Event), false, "removes "+b.Summary+claude.HookMatcher(b.Matcher), b.Line, true)
	}

	for _, ev := range order {
		g := groups[ev]
		if len(g.review) > 0 {
			e.finding(report.Finding{CheckID: report.CheckHookChanged, Risk: g.rt.Risk, Path: f.Path, Line: g.line, HeadLine: g.headLine, Base: g.base,
				Evidence: "events=" + ev, Title: ev + " hooks changed",
				Message: fmt.Sprintf("%s: the %s hooks change (%s): %s.", f.Path, ev, strings.Join(g.review, "; "), hookEffectBasis(ev, g.review)),
				Key:     report.CheckHookChanged + "|" + f.Path + "|" + ev + "|" + strings.Join(g.review, ";")})
		}
		if len(g.advisory) > 0 {
			e.finding(report.Finding{CheckID: report.CheckHookChanged, Action: policy.Advisory, Risk: rating.RiskLow, Path: f.Path, Line: g.line, HeadLine: g.headLine, Base: g.base,
				Evidence: "events=" + ev + " removed", Title: ev + " hooks removed",
				Message: fmt.Sprintf("%s: the %s hooks change (%s): a %s hook cannot decide a permission, so no call runs now that did not before.",
					f.Path, ev, strings.Join(g.advisory, "; "), ev),
				Key: report.CheckHookChanged + "|" + f.Path + "|" + ev + "|removed|" + strings.Join(g.advisory, ";")})
		}
	}
}

// hookEffectBasis says what a group of review-level hook changes means:
// only removals of a guard are worded as removals.
func hookEffectBasis(ev string, parts []string) string {
	removal := true
	for _, p := range parts {
		if !strings.HasPrefix(p, "removes ") {
			removal = false
		}
	}
	switch {
	case removal:
		return "a " + ev + " hook can deny or ask about calls; without it, those calls follow the permission rules alone"
	case decidingEvent(ev):
		return "a " + ev + " hook decides calls: it can let them run without a prompt, or deny them"
	}
	return "a command Claude Code runs by itself " + hookWhen(ev, "") + ", without a prompt"
}

// changedFields names the fields, other than the command's spelling, in
// which two handlers that run the same thing differ.
func changedFields(b, h claude.Handler) []string {
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
	for _, k := range sortedKeys(keys) {
		if k == "command" {
			continue // same effect: the spelling is all that differs
		}
		if claude.Canon(b.Value.Get(k)) != claude.Canon(h.Value.Get(k)) {
			fields = append(fields, fmt.Sprintf("%s %s → %s", k, claude.FieldValue(b.Value.Get(k)), claude.FieldValue(h.Value.Get(k))))
		}
	}
	return fields
}

// onlyCosmetic reports whether the changed fields cannot change what a
// handler decides (its status message only).
func onlyCosmetic(fields []string) bool {
	for _, f := range fields {
		if !strings.HasPrefix(f, "statusMessage ") {
			return false
		}
	}
	return true
}
