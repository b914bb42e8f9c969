package judge

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
	"github.com/shipgate-app/shipgate/agentfiles/hookscript"
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// quietHook rates a hook row that changes nothing a permission depends on.
var quietHook = rating.Rating{Access: rating.AccessNone, Risk: rating.RiskLow}

// hookPair is a base handler and a head handler that run the same thing;
// move, when set, is the moved folder of the script the head's command
// names (the base's named it at its old place).
type hookPair struct {
	base, head claude.Handler
	move       *report.Move
}

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
			bs = append(bs, &slot{h: h, effect: hookscript.Effect(h, scope)})
		}
	}
	for _, ev := range sortedKeys(hh) {
		for _, h := range hh[ev] {
			hs = append(hs, &slot{h: h, effect: hookscript.Effect(h, scope)})
		}
	}
	var same, moved []hookPair
	pair := func(match func(b, h *slot) bool, into *[]hookPair, unmove bool) {
		for _, h := range hs {
			if h.used {
				continue
			}
			effect, mv := h.effect, (*report.Move)(nil)
			if unmove {
				if effect, mv = e.unmoved(h.effect); mv == nil {
					continue
				}
			}
			for _, b := range bs {
				if !b.used && b.effect == effect && match(b, h) {
					b.used, h.used = true, true
					*into = append(*into, hookPair{b.h, h.h, mv})
					break
				}
			}
		}
	}
	sameSlot := func(b, h *slot) bool { return b.h.Event == h.h.Event && b.h.Matcher == h.h.Matcher }
	// Exact text first, so a respelling pairs only what is left; a
	// script moved with its folder last, so it pairs only what no
	// spelling of the same path did.
	pair(func(b, h *slot) bool { return sameSlot(b, h) && b.h.Canon == h.h.Canon }, &same, false)
	pair(sameSlot, &same, false)
	pair(func(b, h *slot) bool { return true }, &moved, false)
	pair(sameSlot, &same, true)
	pair(func(b, h *slot) bool { return true }, &moved, true)

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
		fields := hookscript.ChangedFields(b, h)
		if len(fields) == 0 && p.move != nil {
			e.row(f, report.KindHook, report.DirRespelled, b.Event+claude.HookMatcher(b.Matcher)+": "+b.Summary, label, false, quietHook, h.Line, h.Line,
				"the same command: its script moved with its folder, unchanged ("+movedFolder(*p.move)+"), so it runs the same code at the same moments")
			continue
		}
		if len(fields) == 0 {
			// Only the spelling differs: the same command runs.
			e.row(f, report.KindHook, report.DirRespelled, b.Event+claude.HookMatcher(b.Matcher)+": "+b.Summary, label, false, quietHook, h.Line, h.Line,
				"the same command, spelled otherwise: it runs the same thing at the same moments")
			continue
		}
		if !hookscript.DecidingEvent(h.Event) || hookscript.OnlyCosmetic(fields) {
			e.row(f, report.KindHook, report.DirChanged, label, label+": "+strings.Join(fields, ", "), false, quietHook, h.Line, h.Line,
				"the same command with other settings, "+hookscript.When(h.Event, h.Matcher)+": it cannot decide a permission either way")
			continue
		}
		rt := rating.Hook(h.Event)
		e.row(f, report.KindHook, report.DirChanged, label, label+": "+strings.Join(fields, ", "), true, rt, h.Line, h.Line,
			"the same command with other settings, "+hookscript.When(h.Event, h.Matcher)+": a guard's timeout and async decide whether it can stop a call in time")
		note(at(h.Event), true, "changes "+h.Summary+claude.HookMatcher(h.Matcher)+" ("+strings.Join(fields, ", ")+")", h.Line, false)
	}
	for _, p := range moved {
		b, h := p.base, p.head
		before := b.Event + claude.HookMatcher(b.Matcher) + ": " + b.Summary
		after := h.Event + claude.HookMatcher(h.Matcher) + ": " + h.Summary
		if !hookscript.DecidingEvent(b.Event) && !hookscript.DecidingEvent(h.Event) {
			e.row(f, report.KindHook, report.DirMoved, before, after, false, quietHook, h.Line, h.Line,
				"the same command now runs "+hookscript.When(h.Event, h.Matcher)+" (was "+hookscript.When(b.Event, b.Matcher)+"): neither event can decide a permission")
			continue
		}
		rt := rating.Hook(h.Event)
		if !hookscript.DecidingEvent(h.Event) {
			rt = rating.Hook(b.Event)
		}
		why := "the same command now runs " + hookscript.When(h.Event, h.Matcher) + " (was " + hookscript.When(b.Event, b.Matcher) + ")"
		switch {
		case !hookscript.DecidingEvent(h.Event):
			why += ": it no longer stops the calls it could deny " + hookscript.When(b.Event, b.Matcher)
		case !hookscript.DecidingEvent(b.Event):
			why += ": it may now allow or deny those calls"
		default:
			why += ": it may now answer other calls, and no longer stops the ones it no longer sees"
		}
		e.row(f, report.KindHook, report.DirMoved, before, after, true, rt, h.Line, h.Line, why)
		note(at(h.Event), true, "moves "+h.Summary+" to "+hookscript.When(h.Event, h.Matcher)+" (was "+hookscript.When(b.Event, b.Matcher)+")", h.Line, false)
	}
	for _, s := range hs {
		if s.used {
			continue
		}
		h := s.h
		rt := rating.Hook(h.Event)
		label := h.Event + claude.HookMatcher(h.Matcher)
		why := "a new command runs " + hookscript.When(h.Event, h.Matcher) + ", by itself and without a prompt"
		if hookscript.DecidingEvent(h.Event) {
			why = "a new command runs " + hookscript.When(h.Event, h.Matcher) + ": it may allow or deny them without a prompt"
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
		if hookscript.DecidingEvent(b.Event) {
			rt := rating.Hook(b.Event)
			e.row(f, report.KindHook, report.DirRemoved, label, "", true, rt, b.Line, 1,
				"a hook that could deny calls is removed: it no longer stops what it stopped "+hookscript.When(b.Event, b.Matcher))
			note(at(b.Event), true, "removes "+b.Summary+claude.HookMatcher(b.Matcher)+", so it no longer stops what it stopped "+hookscript.When(b.Event, b.Matcher), b.Line, true)
			continue
		}
		e.row(f, report.KindHook, report.DirRemoved, label, "", false, quietHook, b.Line, 1,
			"no longer runs "+hookscript.When(b.Event, b.Matcher)+"; a hook on this event cannot decide a permission, so no call it could have stopped now runs")
		note(at(b.Event), false, "removes "+b.Summary+claude.HookMatcher(b.Matcher), b.Line, true)
	}

	for _, ev := range order {
		g := groups[ev]
		if len(g.review) > 0 {
			e.finding(report.Finding{CheckID: report.CheckHookChanged, Risk: g.rt.Risk, Path: f.Path, Line: g.line, HeadLine: g.headLine, Base: g.base,
				Evidence: "events=" + ev, Title: ev + " hooks changed",
				Message: fmt.Sprintf("%s: the %s hooks change (%s): %s.", f.Path, ev, strings.Join(g.review, "; "), hookscript.EffectBasis(ev, g.review)),
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
