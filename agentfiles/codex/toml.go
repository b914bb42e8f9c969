package codex

import (
	"errors"
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Table is a decoded TOML document with the line of every key.
type Table struct {
	// Values is the document (tables are map[string]any).
	Values map[string]any
	// Lines maps a dotted key path ("sandbox_workspace_write.network_access",
	// "mcp_servers.docs") to the line it is written on.
	Lines map[string]int
}

// Line is the line of a dotted key, or of its nearest written parent
// (1 when none is written).
func (t *Table) Line(key string) int {
	for k := key; k != ""; {
		if l, ok := t.Lines[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 1
}

// MaxKeyDepth bounds how many parts a key may have, dotted and through
// the tables and inline tables it lies in. Codex's keys have at most five
// (profiles.p.sandbox_workspace_write.network_access); recording the line
// of every prefix of a 200,000-part key took 40 GB. A deeper key is a
// limit of Shipgate's (ParseError.Limit): Codex may read the file, so it
// fails closed as one that could grant anything.
const MaxKeyDepth = 64

// ReadTOML decodes a TOML document strictly (TOML 1.0: a duplicate key, a
// table defined twice or a malformed value is an error, as in Codex's
// reader) and records where each key is written. Errors carry the line and
// column.
func ReadTOML(path string, data []byte) (*Table, error) {
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &ParseError{Path: path, Line: line, Msg: fmt.Sprintf("column %d: %s", col, strings.TrimPrefix(de.Error(), "toml: "))}
		}
		return nil, &ParseError{Path: path, Msg: err.Error()}
	}
	if v == nil {
		v = map[string]any{}
	}
	t := &Table{Values: v, Lines: map[string]int{}}
	p := &unstable.Parser{KeepComments: false}
	p.Reset(data)
	var prefix []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			prefix = keyParts(e.Key())
			if err := t.deep(path, p, prefix, e.Key()); err != nil {
				return nil, err
			}
			t.mark(p, prefix, e.Key())
		case unstable.KeyValue:
			if err := t.keyValue(path, p, prefix, e); err != nil {
				return nil, err
			}
		}
	}
	// The decoder accepted the document, so the parser does too.
	return t, nil
}

// deep refuses a key of more than MaxKeyDepth parts.
func (t *Table) deep(path string, p *unstable.Parser, parts []string, it unstable.Iterator) error {
	if len(parts) <= MaxKeyDepth {
		return nil
	}
	line := 0
	for it.Next() {
		if n := it.Node(); n.Raw.Length > 0 {
			line = p.Shape(n.Raw).Start.Line
			break
		}
	}
	return &ParseError{Path: path, Line: line, Limit: true,
		Msg: fmt.Sprintf("a key nested %d deep, more than the %d Shipgate reads (Codex's own keys have at most five parts)", len(parts), MaxKeyDepth)}
}

// keyValue records a key = value (and the keys of an inline table value).
func (t *Table) keyValue(path string, p *unstable.Parser, prefix []string, e *unstable.Node) error {
	parts := append(append([]string(nil), prefix...), keyParts(e.Key())...)
	if err := t.deep(path, p, parts, e.Key()); err != nil {
		return err
	}
	t.mark(p, parts, e.Key())
	if v := e.Value(); v != nil && v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				if err := t.keyValue(path, p, parts, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// mark records the line of every prefix of a dotted key not yet seen.
func (t *Table) mark(p *unstable.Parser, parts []string, it unstable.Iterator) {
	line := 0
	for it.Next() {
		n := it.Node()
		if n.Raw.Length > 0 {
			line = p.Shape(n.Raw).Start.Line
			break
		}
	}
	if line == 0 {
		return
	}
	for i := 1; i <= len(parts); i++ {
		k := strings.Join(parts[:i], ".")
		if _, ok := t.Lines[k]; !ok {
			t.Lines[k] = line
		}
	}
}

func keyParts(it unstable.Iterator) []string {
	var out []string
	for it.Next() {
		out = append(out, string(it.Node().Data))
	}
	return out
}
