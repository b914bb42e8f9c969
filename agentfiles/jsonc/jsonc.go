// Package jsonc reads JSON with comments (JSONC: `//` and `/* */`
// comments, trailing commas), as VS Code, OpenCode and Cursor read their
// settings, with positions. It blanks comments and trailing commas out
// byte for byte (so every line and column stays where the file has it)
// and parses the rest strictly with jsonpos: duplicate keys, invalid
// UTF-8 and lone surrogates are still reported.
package jsonc

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// Options says which JSONC extensions the agent accepts.
type Options struct {
	// Comments accepts // and /* */ comments.
	Comments bool
	// TrailingCommas accepts a comma before } or ].
	TrailingCommas bool
}

// JSONC accepts both (VS Code's jsonc parser in settings files).
var JSONC = Options{Comments: true, TrailingCommas: true}

// Error is a syntax error with its position.
type Error struct {
	Line, Col int
	Msg       string
	// Limit says the input hit a bound of Shipgate's reader (nesting
	// deeper than jsonpos.DefaultMaxDepth), not an error of the agent's:
	// JSON.parse reads it, so the caller fails closed as for a file that
	// could grant anything.
	Limit bool
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

// Parse reads data as JSONC under o and returns the document with the
// problems jsonpos found (duplicate keys…).
func Parse(data []byte, o Options) (*jsonpos.Value, []jsonpos.Problem, error) {
	clean, err := Blank(data, o)
	if err != nil {
		return nil, nil, err
	}
	v, probs, err := jsonpos.Options{AllowBOM: true}.Parse(clean)
	if err != nil {
		if se, ok := err.(*jsonpos.SyntaxError); ok {
			return nil, probs, &Error{Line: se.Pos.Line, Col: se.Pos.Column, Msg: se.Error(), Limit: se.Kind == jsonpos.SyntaxTooDeep}
		}
		return nil, probs, err
	}
	return v, probs, nil
}

// Blank returns a copy of data with comments and trailing commas (as o
// allows them) replaced by spaces, newlines kept: valid strict JSON at
// the same offsets. An unterminated block comment is an error.
func Blank(data []byte, o Options) ([]byte, error) {
	out := append([]byte(nil), data...)
	line, col := 1, 1
	lastComma := -1 // offset of a comma not yet followed by a value
	adv := func(b byte) {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c == '"':
			lastComma = -1
			adv(c)
			for i++; i < len(out); i++ {
				adv(out[i])
				if out[i] == '\\' && i+1 < len(out) {
					i++
					adv(out[i])
					continue
				}
				if out[i] == '"' || out[i] == '\n' {
					break
				}
			}
			continue
		case c == '/' && i+1 < len(out) && out[i+1] == '/' && o.Comments:
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
				col++
			}
			if i < len(out) {
				adv('\n')
			}
			continue
		case c == '/' && i+1 < len(out) && out[i+1] == '*' && o.Comments:
			sl, sc := line, col
			out[i], out[i+1] = ' ', ' '
			col += 2
			closed := false
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					col += 2
					i++
					closed = true
					break
				}
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
				adv(data[i])
			}
			if !closed {
				return nil, &Error{Line: sl, Col: sc, Msg: "a /* comment is never closed"}
			}
			continue
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 && o.TrailingCommas {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			lastComma = -1
		}
		adv(c)
	}
	return out, nil
}

// Canon is a value's canonical text (jsonpos.Canon: object keys sorted,
// no spaces), so two versions that differ only in layout, key order or
// comments compare equal; an absent value is "absent", never equal to an
// explicit null.
func Canon(v *jsonpos.Value) string {
	if v.Kind() == jsonpos.Invalid {
		return "absent"
	}
	return jsonpos.Canon(v)
}

// ServerSummary names an MCP server entry by its transport and what it
// runs or reaches — the command's first word or the URL's host, never
// arguments, environment values or headers. cmd may be a string or an
// array (OpenCode writes the command as an array).
func ServerSummary(v *jsonpos.Value) string {
	cmd := v.Get("command")
	switch {
	case cmd.Kind() == jsonpos.String:
		if f := strings.Fields(cmd.Text()); len(f) > 0 {
			return "stdio " + f[0]
		}
		return "stdio (empty command)"
	case cmd.Kind() == jsonpos.Array && cmd.Len() > 0:
		return "stdio " + cmd.Index(0).Text()
	}
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		if u := v.Get(k); u.Kind() == jsonpos.String {
			host := u.Text()
			if p, err := url.Parse(host); err == nil && p.Host != "" {
				host = p.Host
			}
			return "remote " + host
		}
	}
	return "a server without a command or url"
}

// Repair is a syntax error VS Code's JSONC reader recovers from in a way
// Shipgate can read exactly, and where it is.
type Repair struct {
	Line, Col int
	Msg       string
}

// maxRepairs bounds how many missing commas Recover supplies.
const maxRepairs = 16

// Recover reads data as Parse does and, where Parse fails on a missing
// comma between two members or elements whose next one starts with a
// string, reads it as VS Code does: its JSONC parser (microsoft/
// node-jsonc-parser, parseObject and parseArray, read 2026-12-02) reports
// CommaExpected, skips nothing and parses the next member or element as
// if the comma were there, and VS Code's settings reader
// (ConfigurationModelParser.doParseContent) keeps what it parsed, errors
// or not. So the file is read with the comma supplied (a blank before the
// next member turned into one, or one inserted where there is none), and
// each repair is returned. Any other error is returned as Parse returns
// it: where the parser recovers otherwise (skipping tokens), Shipgate does
// not claim to read the file as VS Code does.
func Recover(data []byte, o Options) (*jsonpos.Value, []jsonpos.Problem, []Repair, error) {
	clean, err := Blank(data, o)
	if err != nil {
		return nil, nil, nil, err
	}
	var repairs []Repair
	for {
		v, probs, err := jsonpos.Options{AllowBOM: true}.Parse(clean)
		if err == nil {
			return v, probs, repairs, nil
		}
		se, ok := err.(*jsonpos.SyntaxError)
		if !ok {
			return nil, probs, nil, err
		}
		next := -1
		if se.Kind == jsonpos.SyntaxMissingComma && len(repairs) < maxRepairs {
			next = se.Offset
			for next < len(clean) && (clean[next] == ' ' || clean[next] == '\t' || clean[next] == '\r' || clean[next] == '\n') {
				next++
			}
		}
		if next < 0 || next >= len(clean) || clean[next] != '"' {
			return nil, probs, nil, &Error{Line: se.Pos.Line, Col: se.Pos.Column, Msg: se.Error(), Limit: se.Kind == jsonpos.SyntaxTooDeep}
		}
		repairs = append(repairs, Repair{Line: se.Pos.Line, Col: se.Pos.Column, Msg: "a ',' is missing here"})
		blank := -1
		for i := se.Offset; i < next; i++ {
			if clean[i] == ' ' || clean[i] == '\t' {
				blank = i
				break
			}
		}
		if blank >= 0 {
			clean[blank] = ','
		} else {
			clean = append(clean[:se.Offset], append([]byte{','}, clean[se.Offset:]...)...)
		}
	}
}
