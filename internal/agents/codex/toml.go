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
			t.mark(p, prefix, e.Key())
		case unstable.KeyValue:
			t.keyValue(p, prefix, e)
		}
	}
	// The decoder accepted the document, so the parser does too.
	return t, nil
}

// keyValue records a key = value (and the keys of an inline table value).
func (t *Table) keyValue(p *unstable.Parser, prefix []string, e *unstable.Node) {
	parts := append(append([]string(nil), prefix...), keyParts(e.Key())...)
	t.mark(p, parts, e.Key())
	if v := e.Value(); v != nil && v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				t.keyValue(p, parts, c)
			}
		}
	}
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
