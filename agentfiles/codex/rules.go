// Package codex models what OpenAI's Codex CLI (0.169.0, measured offline:
// /work/shared/reference/agents-permissions.md section 1) reads from a
// repository: the execpolicy rules of .codex/rules/*.rules (Starlark,
// evaluated here with go.starlark.net under a step budget, no load() and no
// I/O) and the permission keys of .codex/config.toml. It decides what each
// rule matches (token-exact argv prefixes with alternatives), which of two
// rule sets lets more run without a prompt (strictest decision wins across
// every rule of every file), and what a config change loosens. It is pure:
// no network, no clock, no file system; package diff's glue turns its
// results into report rows and findings.
package codex

import (
	"errors"
	"fmt"
	"runtime/metrics"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Version is the Codex CLI release this package's semantics were measured
// on (the conformance harness installs it: make codex).
const Version = "0.169.0"

// Decision is what a matching rule says about a command. The zero value,
// NoMatch, means no rule matched: Codex falls back to its approval policy.
type Decision int

const (
	NoMatch Decision = iota
	Allow
	Prompt
	Forbidden
)

// String is the decision as Codex spells it ("" for NoMatch).
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	case Forbidden:
		return "forbidden"
	}
	return ""
}

// permissiveness orders decisions from what runs most freely (0) to what is
// refused: an allow runs without a prompt, no match falls to the approval
// policy (which may or may not prompt), prompt always asks, forbidden
// refuses.
func (d Decision) permissiveness() int {
	switch d {
	case Allow:
		return 0
	case NoMatch:
		return 1
	case Prompt:
		return 2
	}
	return 3
}

// MoreLenient reports whether d lets a command through more freely than e.
func (d Decision) MoreLenient(e Decision) bool { return d.permissiveness() < e.permissiveness() }

// Rule is one prefix_rule: a token pattern, each position a set of
// alternative tokens, and the decision for argv it matches.
type Rule struct {
	// Pattern holds, per position, the alternatives (in the file's order).
	Pattern [][]string
	// Decision is allow unless the file says prompt or forbidden.
	Decision Decision
	// Justification is the optional reason text.
	Justification string
	// Canonical is canonical_matching=True: tokens compare case-insensitively.
	Canonical bool
	// Path and Line are where the prefix_rule call is.
	Path string
	Line int
}

// NetworkRule is a network_rule (applied by Codex's network proxy, not to
// argv).
type NetworkRule struct {
	Host, Protocol string
	Decision       Decision
	Line           int
}

// HostExecutable is a host_executable entry: which absolute paths a program
// name resolves to under --resolve-host-executables.
type HostExecutable struct {
	Name  string
	Paths []string
	Line  int
}

// RulesFile is what one .rules file defines.
type RulesFile struct {
	Rules   []Rule
	Network []NetworkRule
	Hosts   []HostExecutable
}

// MaxSteps bounds the Starlark evaluation of one file (a loop cannot run
// for ever; Starlark has no while or recursion, so this is a bound on
// size, not a guard against non-termination).
const MaxSteps = 1_000_000

// maxRules bounds the rules one file may define.
const maxRules = 20_000

// MaxEvalAlloc bounds the bytes allocated while one file is evaluated.
// Steps do not bound memory: one step of `x = x + x` doubles a string, and
// a 1 MiB file of 9,000 rules allocates about 47 MiB in all. Past the
// bound the evaluation is cancelled and the file fails closed as a limit
// of Shipgate's (it blocks: Codex may load it). Allocation is read from
// the Go runtime, process-wide, every millisecond: a file is stopped only
// when it, or work beside it, allocates this much in its few milliseconds.
const MaxEvalAlloc = 256 << 20

// maxIterLen bounds the length of a sequence a builtin that walks or
// copies it (list, sorted, any, …) is given: those walk it inside one
// Starlark step, so the step budget does not bound them
// (any(range(10**12)) would run for hours, list(range(10**9)) allocate
// 16 GB).
const maxIterLen = MaxSteps

// refusedMethods are the string methods whose result can be quadratic in
// their operands in one step (s.replace("a", s), s.join([s, s])); and
// refusedOps the operators that repeat or format (`"x" * 10**9` is one
// step of a gigabyte). Shipgate refuses a file that uses them (a limit of
// its own: the file blocks): rules files write their patterns out.
var refusedMethods = map[string]bool{"join": true, "replace": true, "format": true}

// ParseError is a rules file Codex would not load, with where and why.
type ParseError struct {
	Path string
	Line int
	Msg  string
	// Limit says the file hit one of Shipgate's bounds (MaxSteps,
	// maxRules), not an error of Codex's: Codex may well load it.
	Limit bool
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// ParseRules evaluates a .rules file as Codex 0.169.0 does: Starlark with
// top-level for/if allowed, no while, no recursion, no load(), and the
// builtins prefix_rule, network_rule and host_executable, each checking its
// arguments; every match/not_match example is checked against its rule at
// load, as Codex does. Any error is a *ParseError: Codex would drop every
// rule (this file's, the other files', the user's).
func ParseRules(path string, data []byte) (*RulesFile, error) {
	return ParseRulesShared(path, data, nil)
}

// MaxSharedSteps is the Starlark steps the rules files of one comparison
// may take together (ParseRulesShared): 500 files of a million steps each
// would otherwise take seconds.
const MaxSharedSteps = 4 * MaxSteps

// ParseRulesShared is ParseRules drawing its steps from *left, the steps
// the comparison's rules files have left together (nil: no shared
// bound); it takes what the file used. A file that meets the shared bound
// is a limit of Shipgate's. Not safe for concurrent use on one *left.
func ParseRulesShared(path string, data []byte, left *int64) (*RulesFile, error) {
	out := &RulesFile{}
	thread := &starlark.Thread{
		Name: path,
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errors.New("no imports are available: Codex execpolicy files cannot load()")
		},
		Print: func(*starlark.Thread, string) {},
	}
	max, shared := uint64(MaxSteps), false
	if left != nil {
		if *left <= 0 {
			return nil, &ParseError{Path: path, Limit: true,
				Msg: fmt.Sprintf("the rules files of this change take more than %d Starlark steps together, more than Shipgate runs in one evaluation; this one was not evaluated", MaxSharedSteps)}
		}
		if uint64(*left) < max {
			max, shared = uint64(*left), true
		}
		defer func() { *left -= int64(thread.ExecutionSteps()) }()
	}
	thread.SetMaxExecutionSteps(max)
	callLine := func(th *starlark.Thread) int {
		if th.CallStackDepth() > 1 {
			return int(th.CallFrame(1).Pos.Line)
		}
		return 0
	}
	var loadErr error
	fail := func(th *starlark.Thread, format string, a ...any) (starlark.Value, error) {
		err := &ParseError{Path: path, Line: callLine(th), Msg: fmt.Sprintf(format, a...)}
		if loadErr == nil {
			loadErr = err
		}
		return nil, err
	}
	prefixRule := func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		// Codex 0.169.0 takes pattern, decision, match and not_match by
		// position too; an argument given as None is a type error there.
		if len(args) > 4 {
			return fail(th, "prefix_rule takes at most 4 positional arguments")
		}
		var pattern *starlark.List
		var decision, justification, match, notMatch, canonical starlark.Value
		if err := starlark.UnpackArgs(b.Name(), args, kwargs,
			"pattern", &pattern, "decision?", &decision, "match?", &match, "not_match?", &notMatch,
			"justification?", &justification, "canonical_matching?", &canonical); err != nil {
			return fail(th, "%v", err)
		}
		for _, v := range []starlark.Value{decision, justification, match, notMatch, canonical} {
			if v == starlark.None {
				return fail(th, "an optional argument of prefix_rule cannot be None")
			}
		}
		r := Rule{Path: path, Line: callLine(th), Decision: Allow}
		if pattern.Len() == 0 {
			return fail(th, "pattern cannot be empty")
		}
		for i := 0; i < pattern.Len(); i++ {
			switch v := pattern.Index(i).(type) {
			case starlark.String:
				r.Pattern = append(r.Pattern, []string{string(v)})
			case *starlark.List:
				if v.Len() == 0 {
					return fail(th, "pattern alternatives cannot be empty")
				}
				var alts []string
				for j := 0; j < v.Len(); j++ {
					s, ok := v.Index(j).(starlark.String)
					if !ok {
						return fail(th, "pattern alternative must be a string, got %s", v.Index(j).Type())
					}
					alts = append(alts, string(s))
				}
				r.Pattern = append(r.Pattern, alts)
			default:
				return fail(th, "pattern element must be a string or a list of strings, got %s", v.Type())
			}
		}
		d, err := decisionArg(decision)
		if err != nil {
			return fail(th, "%v", err)
		}
		if d != NoMatch {
			r.Decision = d
		}
		if justification != nil {
			s, ok := justification.(starlark.String)
			if !ok {
				return fail(th, "justification must be a string")
			}
			if strings.TrimSpace(string(s)) == "" {
				return fail(th, "justification cannot be empty")
			}
			r.Justification = string(s)
		}
		if canonical != nil {
			bv, ok := canonical.(starlark.Bool)
			if !ok {
				return fail(th, "canonical_matching must be a bool")
			}
			r.Canonical = bool(bv)
		}
		examples := func(v starlark.Value, name string) ([][]string, error) {
			if v == nil {
				return nil, nil
			}
			l, ok := v.(*starlark.List)
			if !ok {
				return nil, fmt.Errorf("%s must be a list", name)
			}
			var out [][]string
			for i := 0; i < l.Len(); i++ {
				switch e := l.Index(i).(type) {
				case starlark.String:
					argv, ok := SplitShell(string(e))
					if !ok {
						return nil, errors.New("invalid example: example string has invalid shell syntax")
					}
					if len(argv) == 0 {
						return nil, errors.New("invalid example: example cannot be an empty string")
					}
					out = append(out, argv)
				case *starlark.List:
					var argv []string
					for j := 0; j < e.Len(); j++ {
						s, ok := e.Index(j).(starlark.String)
						if !ok {
							return nil, fmt.Errorf("invalid example: %s token must be a string", name)
						}
						argv = append(argv, string(s))
					}
					if len(argv) == 0 {
						return nil, errors.New("invalid example: example cannot be an empty list")
					}
					out = append(out, argv)
				default:
					return nil, fmt.Errorf("invalid example: %s entry must be a string or a list of strings", name)
				}
			}
			return out, nil
		}
		ms, err := examples(match, "match")
		if err != nil {
			return fail(th, "%v", err)
		}
		nms, err := examples(notMatch, "not_match")
		if err != nil {
			return fail(th, "%v", err)
		}
		var unmatched []string
		for _, m := range ms {
			if !r.Matches(m) {
				unmatched = append(unmatched, fmt.Sprintf("%q", strings.Join(m, " ")))
			}
		}
		if len(unmatched) > 0 {
			return fail(th, "expected every example to match at least one rule; unmatched examples: [%s]", strings.Join(unmatched, ", "))
		}
		for _, m := range nms {
			if r.Matches(m) {
				return fail(th, "expected example to not match rule: %q", strings.Join(m, " "))
			}
		}
		if len(out.Rules) >= maxRules {
			v, err := fail(th, "more than %d rules in one file: more than Shipgate compares", maxRules)
			loadErr.(*ParseError).Limit = true
			return v, err
		}
		out.Rules = append(out.Rules, r)
		return starlark.None, nil
	}
	networkRule := func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			return fail(th, "network_rule takes named arguments only")
		}
		var host, protocol string
		var decision starlark.String
		var justification starlark.Value
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "protocol", &protocol,
			"decision", &decision, "justification?", &justification); err != nil {
			return fail(th, "%v", err)
		}
		if justification != nil {
			if s, ok := justification.(starlark.String); !ok || strings.TrimSpace(string(s)) == "" {
				return fail(th, "invalid rule: justification cannot be empty")
			}
		}
		if strings.ContainsAny(host, "*?") {
			return fail(th, "network_rule host must be a specific host; wildcards are not allowed")
		}
		switch protocol {
		case "http", "https", "socks5_tcp", "socks5_udp":
		default:
			return fail(th, "invalid protocol: %s", protocol)
		}
		d, err := decisionArg(decision)
		if err != nil {
			return fail(th, "%v", err)
		}
		if d == NoMatch {
			d = Allow
		}
		out.Network = append(out.Network, NetworkRule{Host: host, Protocol: protocol, Decision: d, Line: callLine(th)})
		return starlark.None, nil
	}
	hostExecutable := func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			return fail(th, "host_executable takes named arguments only")
		}
		var name string
		var paths *starlark.List
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "paths", &paths); err != nil {
			return fail(th, "%v", err)
		}
		if name == "" || strings.ContainsAny(name, "/\\") {
			return fail(th, "invalid rule: host_executable name must be a bare executable name (got %s)", name)
		}
		h := HostExecutable{Name: name, Line: callLine(th)}
		for i := 0; i < paths.Len(); i++ {
			s, ok := paths.Index(i).(starlark.String)
			if !ok {
				return fail(th, "host_executable paths must be strings")
			}
			if !strings.HasPrefix(string(s), "/") {
				return fail(th, "invalid rule: host_executable paths must be absolute (got %s)", string(s))
			}
			h.Paths = append(h.Paths, string(s))
		}
		out.Hosts = append(out.Hosts, h)
		return starlark.None, nil
	}
	predeclared := starlark.StringDict{
		"prefix_rule":     starlark.NewBuiltin("prefix_rule", prefixRule),
		"network_rule":    starlark.NewBuiltin("network_rule", networkRule),
		"host_executable": starlark.NewBuiltin("host_executable", hostExecutable),
	}
	for _, name := range []string{"list", "tuple", "sorted", "reversed", "enumerate", "zip", "dict", "any", "all", "min", "max"} {
		predeclared[name] = boundedIter(starlark.Universe[name].(*starlark.Builtin), func(th *starlark.Thread, n int) error {
			err := &ParseError{Path: path, Line: callLine(th), Limit: true,
				Msg: fmt.Sprintf("%s() is given a sequence of %d elements, more than the %d Shipgate walks in one step", name, n, maxIterLen)}
			if loadErr == nil {
				loadErr = err
			}
			return err
		})
	}
	if !utf8.Valid(data) {
		return nil, &ParseError{Path: path, Line: lineOfInvalid(data), Msg: "the file is not valid UTF-8: Codex reads a rules file as UTF-8 text and refuses it"}
	}
	if i := strings.IndexByte(string(data), 0); i >= 0 {
		return nil, &ParseError{Path: path, Line: 1 + strings.Count(string(data[:i]), "\n"), Msg: "the file holds a NUL byte: Codex's Starlark reader refuses it (Shipgate's stops reading there)"}
	}
	// Codex's dialect (starlark-rust): top-level if/for, reassigned
	// globals and recursion work; while, set and print do not.
	// Recursion runs at most maxCallDepth calls deep (boundDepth): to
	// Starlark's own bound of 100,000 frames it took about a second of
	// CPU and 140 MB of stack per file.
	opts := &syntax.FileOptions{TopLevelControl: true, GlobalReassign: true, Recursion: true}
	f, err := opts.Parse(path, data, 0)
	if err != nil {
		return nil, starlarkError(path, err)
	}
	var missing *syntax.Ident
	syntax.Walk(f, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && missing == nil && !codexUniversal(id.Name) {
			missing = id
		}
		return missing == nil
	})
	if missing != nil {
		line, _ := missing.Span()
		return nil, &ParseError{Path: path, Line: int(line.Line), Msg: fmt.Sprintf("Variable `%s` not found", missing.Name)}
	}
	if pe := refused(path, f); pe != nil {
		return nil, pe
	}
	boundDepth(f)
	predeclared[depthCheck] = starlark.NewBuiltin(depthCheck, func(th *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if th.CallStackDepth() > maxCallDepth {
			err := &ParseError{Path: path, Line: callLine(th), Limit: true,
				Msg: fmt.Sprintf("calls nest more than %d deep (a recursion): Codex runs it, Shipgate does not evaluate that deep; write the rules out", maxCallDepth)}
			if loadErr == nil {
				loadErr = err
			}
			return nil, err
		}
		return starlark.False, nil
	})
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return nil, starlarkError(path, err)
	}
	stop := watchAlloc(thread, MaxEvalAlloc)
	_, err = prog.Init(thread, predeclared)
	if stop() {
		return nil, &ParseError{Path: path, Line: callLine(thread), Limit: true,
			Msg: fmt.Sprintf("evaluating it allocates more than %d MiB, more than Shipgate allows one rules file; write the rules out instead of building large values", MaxEvalAlloc>>20)}
	}
	if loadErr != nil {
		return nil, loadErr
	}
	if err != nil {
		pe := starlarkError(path, err).(*ParseError)
		switch {
		case thread.ExecutionSteps() >= max && shared:
			pe.Limit = true
			pe.Msg = fmt.Sprintf("the rules files of this change take more than %d Starlark steps together, more than Shipgate runs in one evaluation (%s)", MaxSharedSteps, pe.Msg)
		case thread.ExecutionSteps() >= max:
			pe.Limit = true
			pe.Msg = fmt.Sprintf("evaluating it takes more than %d Starlark steps, more than Shipgate runs (%s)", MaxSteps, pe.Msg)
		}
		return nil, pe
	}
	return out, nil
}

// maxCallDepth bounds how deep calls nest in an evaluation (recursion).
const maxCallDepth = 1000

// depthCheck names the builtin boundDepth calls at the start of every
// function; the space makes it a name no file can write or shadow.
const depthCheck = "shipgate depth"

// boundDepth makes every function of f (def and lambda) begin with a call
// of depthCheck, which fails past maxCallDepth nested calls: a depth
// bound Starlark's interpreter lacks (it allows 100,000).
func boundDepth(f *syntax.File) {
	check := func(pos syntax.Position) syntax.Expr {
		return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: depthCheck}, Lparen: pos, Rparen: pos}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DefStmt:
			x.Body = append([]syntax.Stmt{&syntax.ExprStmt{X: check(x.Def)}}, x.Body...)
		case *syntax.LambdaExpr:
			// depth() returns False, so `depth() or body` is body.
			x.Body = &syntax.BinaryExpr{OpPos: x.Lambda, Op: syntax.OR, X: check(x.Lambda), Y: x.Body}
		}
		return true
	})
}

// refused finds the first operator or method call Shipgate does not
// evaluate (refusedOps, refusedMethods): such a file is a limit of
// Shipgate's, not an error of Codex's.
func refused(path string, f *syntax.File) *ParseError {
	var out *ParseError
	at := func(n syntax.Node, what string) {
		if out == nil {
			p, _ := n.Span()
			out = &ParseError{Path: path, Line: int(p.Line), Limit: true,
				Msg: what + ": its result can be far larger than the file in one step, so Shipgate does not evaluate it; write the values out literally"}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryExpr:
			if (x.Op == syntax.STAR || x.Op == syntax.PERCENT) && !(isIntLit(x.X) && isIntLit(x.Y)) {
				at(n, "the operator "+x.Op.String()+" (repetition or formatting)")
			}
		case *syntax.AssignStmt:
			if x.Op == syntax.STAR_EQ || x.Op == syntax.PERCENT_EQ {
				at(n, "the operator "+x.Op.String()+" (repetition or formatting)")
			}
		case *syntax.DotExpr:
			if refusedMethods[x.Name.Name] {
				at(n, "the method ."+x.Name.Name+"()")
			}
		}
		return out == nil
	})
	return out
}

// isIntLit reports whether e is an integer literal.
func isIntLit(e syntax.Expr) bool {
	l, ok := e.(*syntax.Literal)
	return ok && l.Token == syntax.INT
}

// boundedIter wraps a builtin that walks or copies its arguments so that
// a sequence longer than maxIterLen is refused (over calls limit).
func boundedIter(b *starlark.Builtin, over func(*starlark.Thread, int) error) *starlark.Builtin {
	return starlark.NewBuiltin(b.Name(), func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		for _, a := range args {
			if n := starlark.Len(a); n > maxIterLen {
				return nil, over(th, n)
			}
		}
		return starlark.Call(th, b, args, kwargs)
	})
}

// watchAlloc cancels thread once the process has allocated more than
// limit bytes since the call; stop ends the watch and reports whether it
// cancelled.
func watchAlloc(thread *starlark.Thread, limit uint64) (stop func() bool) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	start := read()
	var over atomic.Bool
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if read()-start > limit {
					over.Store(true)
					thread.Cancel("allocation limit")
					return
				}
			}
		}
	}()
	return func() bool {
		close(done)
		<-finished
		return over.Load()
	}
}

// lineOfInvalid is the line of the first invalid UTF-8 sequence.
func lineOfInvalid(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		i += n
	}
	return line
}

// codexUniversal reports whether a name is available in Codex's Starlark
// where Go's universe has it too: print and set are not (measured), so a
// file naming them fails in Codex and is refused here.
func codexUniversal(name string) bool { return name != "print" && name != "set" }

// decisionArg reads a decision= argument (nil = not given).
func decisionArg(v starlark.Value) (Decision, error) {
	if v == nil {
		return NoMatch, nil
	}
	s, ok := v.(starlark.String)
	if !ok {
		return NoMatch, fmt.Errorf("decision must be a string")
	}
	switch string(s) {
	case "allow":
		return Allow, nil
	case "prompt":
		return Prompt, nil
	case "forbidden":
		return Forbidden, nil
	}
	return NoMatch, fmt.Errorf("invalid decision: %s", string(s))
}

// starlarkError turns an evaluation error into a ParseError with a line.
func starlarkError(path string, err error) error {
	if pe, ok := err.(*ParseError); ok {
		return pe
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return &ParseError{Path: path, Line: int(se.Pos.Line), Msg: se.Msg}
	}
	var el resolve.ErrorList
	if errors.As(err, &el) && len(el) > 0 {
		return &ParseError{Path: path, Line: int(el[0].Pos.Line), Msg: el[0].Msg}
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		line := 0
		if len(ee.CallStack) > 0 {
			line = int(ee.CallStack[len(ee.CallStack)-1].Pos.Line)
		}
		return &ParseError{Path: path, Line: line, Msg: ee.Msg}
	}
	return &ParseError{Path: path, Msg: err.Error()}
}

// Key is a rule's identity for comparing two versions of a file: its
// decision and pattern, alternatives sorted (their order does not matter
// to Codex), tokens folded when matching is canonical.
func (r Rule) Key() string {
	var b strings.Builder
	b.WriteString(r.Decision.String())
	if r.Canonical {
		b.WriteString("/ci")
	}
	for _, alts := range r.Pattern {
		a := r.altSet(alts)
		b.WriteString("|")
		b.WriteString(strings.Join(a, "\x00"))
	}
	return b.String()
}

// altSet is the sorted, de-duplicated (and folded when canonical) set of a
// position's alternatives.
func (r Rule) altSet(alts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range alts {
		if r.Canonical {
			a = strings.ToLower(a)
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// String renders a rule as the call a reviewer would write.
func (r Rule) String() string {
	var parts []string
	for _, alts := range r.Pattern {
		if len(alts) == 1 {
			parts = append(parts, fmt.Sprintf("%q", alts[0]))
			continue
		}
		var q []string
		for _, a := range alts {
			q = append(q, fmt.Sprintf("%q", a))
		}
		parts = append(parts, "["+strings.Join(q, ", ")+"]")
	}
	s := "prefix_rule(pattern=[" + strings.Join(parts, ", ") + "]"
	if r.Decision != Allow {
		s += fmt.Sprintf(", decision=%q", r.Decision.String())
	}
	if r.Canonical {
		s += ", canonical_matching=True"
	}
	return s + ")"
}
