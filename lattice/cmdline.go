package lattice

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is a Bash command line read the way Claude Code reads one before
// it consults Bash rules: split on the control operators (`&&`, `||`, `|`,
// `|&`, `;`, `&`, newline) into the simple commands each rule is matched
// against. A deny or ask rule fires when it matches any part; an allow rule
// approves the line only when every part is allowed; an expansion anywhere
// makes Claude Code ask whatever the allow rules say (reference section 3,
// "Compound commands").
//
// The text is parsed with mvdan.cc/sh and never expanded or run. Parts keep
// their source text (redirections included, since rules match commands that
// carry them), not a re-rendering: Claude Code matches text, not argv.
type Command struct {
	// Text is the command line as given.
	Text string
	// Parts are the simple commands in order of appearance.
	Parts []string
	// Operators are the control operators joining the parts, each once,
	// in order of first appearance ("newline" for a line break).
	Operators []string
	// Expansions are the expansions found anywhere in the line, each once
	// ("$(…)", "`…`", "<(…)", ">(…)", "$((…))", "$NAME", "${…}").
	Expansions []string
	// Inner are the simple commands inside command and process
	// substitutions (`$(…)`, backticks, `<(…)`, `>(…)`), in order: Claude
	// Code's deny rules see them (2.1.328, measured: `echo $(wget x)` and
	// `x=$(wget x)` are denied by deny Bash(wget)).
	Inner []string
}

// Compound reports whether the line has more than one part.
func (c Command) Compound() bool { return len(c.Parts) > 1 }

// ParseCommand reads a Bash command line. Its error names the line and
// column (within the command) and says what to write instead: text that is
// not complete shell (an unclosed quote), an empty line, or a construct
// Shipgate does not split (if, for, while, case, a function definition),
// whose parts Claude Code's own reading is not documented for.
func ParseCommand(text string) (Command, error) {
	c := Command{Text: text}
	f, err := parseBash(text)
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return c, fmt.Errorf("not a complete shell command at %d:%d: %s (Claude Code prompts for a command it cannot parse)", pe.Pos.Line(), pe.Pos.Col(), pe.Text)
		}
		return c, fmt.Errorf("not a shell command Claude Code can parse: %w", err)
	}
	r := cmdReader{text: text, c: &c}
	r.stmts(f.Stmts)
	if r.err != nil {
		return c, r.err
	}
	if len(c.Parts) == 0 {
		return c, errors.New("no command in it (empty, or only a comment)")
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			r.inner(x.Stmts)
			if x.Backquotes {
				r.expansion("`…`")
			} else {
				r.expansion("$(…)")
			}
		case *syntax.ProcSubst:
			r.inner(x.Stmts)
			if x.Op == syntax.CmdIn {
				r.expansion("<(…)")
			} else {
				r.expansion(">(…)")
			}
		case *syntax.ArithmExp:
			r.expansion("$((…))")
		case *syntax.ParamExp:
			if x.Short && x.Param != nil {
				r.expansion("$" + x.Param.Value)
			} else {
				r.expansion("${…}")
			}
		}
		return true
	})
	return c, nil
}

// cmdReader collects a Command's parts from the syntax tree.
type cmdReader struct {
	text string
	c    *Command
	err  error
}

func (r *cmdReader) operator(op string) {
	for _, o := range r.c.Operators {
		if o == op {
			return
		}
	}
	r.c.Operators = append(r.c.Operators, op)
}

// inner records the simple commands of a substitution's statements.
func (r *cmdReader) inner(ss []*syntax.Stmt) {
	var sub Command
	sr := cmdReader{text: r.text, c: &sub}
	sr.stmts(ss)
	if sr.err == nil {
		r.c.Inner = append(r.c.Inner, sub.Parts...)
	}
}

func (r *cmdReader) expansion(e string) {
	for _, o := range r.c.Expansions {
		if o == e {
			return
		}
	}
	r.c.Expansions = append(r.c.Expansions, e)
}

// stmts reads a statement list; the separators between statements are
// operators.
func (r *cmdReader) stmts(ss []*syntax.Stmt) {
	for i, s := range ss {
		if i > 0 {
			prev := ss[i-1]
			switch {
			case prev.Background:
				r.operator("&")
			case prev.Semicolon.IsValid():
				r.operator(";")
			default:
				r.operator("newline")
			}
		}
		r.stmt(s)
	}
}

func (r *cmdReader) stmt(s *syntax.Stmt) {
	if r.err != nil || s == nil || s.Cmd == nil {
		if s != nil && s.Cmd == nil && len(s.Redirs) > 0 && r.err == nil {
			r.part(s) // a bare redirection (`> file`) is a command of its own
		}
		return
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		r.stmt(x.X)
		switch x.Op {
		case syntax.AndStmt:
			r.operator("&&")
		case syntax.OrStmt:
			r.operator("||")
		case syntax.Pipe:
			r.operator("|")
		case syntax.PipeAll:
			r.operator("|&")
		}
		r.stmt(x.Y)
	case *syntax.Subshell:
		r.stmts(x.Stmts)
	case *syntax.Block:
		r.stmts(x.Stmts)
	case *syntax.CallExpr, *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TimeClause:
		r.part(s)
	default:
		pos := s.Cmd.Pos()
		r.err = fmt.Errorf("at %d:%d: Shipgate reads a command as simple commands joined by && || | ; & — write the commands this %s runs instead", pos.Line(), pos.Col(), construct(s.Cmd))
	}
}

// part records a simple command's source text: from its first word,
// assignment or redirection to its last, without the separator after it.
func (r *cmdReader) part(s *syntax.Stmt) {
	start, end := s.Position.Offset(), s.Position.Offset()
	if s.Cmd != nil {
		start, end = s.Cmd.Pos().Offset(), s.Cmd.End().Offset()
	}
	for _, rd := range s.Redirs {
		start = min(start, rd.Pos().Offset())
		end = max(end, rd.End().Offset())
	}
	end = min(end, uint(len(r.text)))
	if p := trimBlanks(r.text[start:end]); p != "" {
		r.c.Parts = append(r.c.Parts, p)
	}
}

// construct names a compound command for an error.
func construct(c syntax.Command) string {
	switch c.(type) {
	case *syntax.IfClause:
		return "if"
	case *syntax.WhileClause:
		return "while/until loop"
	case *syntax.ForClause:
		return "for loop"
	case *syntax.CaseClause:
		return "case"
	case *syntax.FuncDecl:
		return "function definition"
	case *syntax.CoprocClause:
		return "coproc"
	}
	return "construct"
}

// trimBlanks trims the shell's blanks and newlines, and nothing else: a
// vertical tab or a no-break space is a word character to Bash, so it is
// part of the command.
func trimBlanks(s string) string { return strings.Trim(s, " \t\n") }

// Pipeline is one pipeline of two or more commands in a command line
// (`curl x | bash`): its text as written and its commands.
type Pipeline struct {
	Text  string
	Parts []string
}

// Joined is the pipeline's commands joined by " | ", the spelling Claude
// Code matches a pipeline rule against (measured on 2.1.328: deny
// Bash(curl * | bash) denies `curl x |bash`).
func (p Pipeline) Joined() string { return strings.Join(p.Parts, " | ") }

// Pipelines returns the pipelines of two or more commands in a command
// line, in order; nil when it has none or does not parse. Claude Code
// 2.1.328 matches a deny or ask rule written as a pipeline against each
// pipeline whole (measured), while a rule joined by `&&`, `||` or `;`
// never sees its line whole.
func Pipelines(line string) []Pipeline {
	f, err := parseBash(line)
	if err != nil {
		return nil
	}
	var out []Pipeline
	var leaves func(s *syntax.Stmt, acc *[]*syntax.Stmt)
	leaves = func(s *syntax.Stmt, acc *[]*syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			leaves(b.X, acc)
			leaves(b.Y, acc)
			return
		}
		*acc = append(*acc, s)
	}
	var walk func(s *syntax.Stmt)
	walk = func(s *syntax.Stmt) {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok {
			return
		}
		switch b.Op {
		case syntax.Pipe, syntax.PipeAll:
			var acc []*syntax.Stmt
			leaves(s, &acc)
			p := Pipeline{}
			a, z := int(acc[0].Pos().Offset()), int(acc[len(acc)-1].End().Offset())
			if a < 0 || z > len(line) || a > z {
				return
			}
			p.Text = line[a:z]
			for _, l := range acc {
				x, y := int(l.Pos().Offset()), int(l.End().Offset())
				if x < 0 || y > len(line) || x > y {
					return
				}
				p.Parts = append(p.Parts, strings.TrimSpace(line[x:y]))
			}
			out = append(out, p)
		default:
			walk(b.X)
			walk(b.Y)
		}
	}
	for _, s := range f.Stmts {
		walk(s)
	}
	return out
}
