package jsonpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unicode/utf8"
)

// checkTree verifies the invariants of a parsed tree against the input: every
// Raw is the source slice between Start and End, every position agrees with
// an independent LineIndex, and the shape is consistent.
func checkTree(t testing.TB, data []byte, v *Value) {
	t.Helper()
	pt := newPosTable(data)
	var walk func(v *Value, depth int)
	checkPos := func(what string, p Pos) {
		t.Helper()
		if want := pt.pos(p.Offset); want != p {
			t.Fatalf("%s: position %+v, LineIndex says %+v", what, p, want)
		}
	}
	walk = func(v *Value, depth int) {
		if v == nil {
			t.Fatalf("nil value in tree")
		}
		checkPos("start of "+v.Kind().String(), v.Start())
		checkPos("end of "+v.Kind().String(), v.End())
		if got := string(data[v.Start().Offset:v.End().Offset]); got != v.Raw() {
			t.Fatalf("Raw %q != source slice %q", v.Raw(), got)
		}
		switch v.Kind() {
		case Array:
			if v.Len() != len(v.Elements()) {
				t.Fatalf("array Len %d != %d elements", v.Len(), len(v.Elements()))
			}
			for i, e := range v.Elements() {
				if v.Index(i) != e {
					t.Fatalf("Index(%d) mismatch", i)
				}
				walk(e, depth+1)
			}
		case Object:
			live := 0
			for _, m := range v.AllMembers() {
				checkPos("key "+m.Key, m.KeyStart)
				checkPos("key end "+m.Key, m.KeyEnd())
				if got := string(data[m.KeyStart.Offset:m.KeyEnd().Offset]); got != m.KeyRaw {
					t.Fatalf("KeyRaw %q != source %q", m.KeyRaw, got)
				}
				if !m.Overridden {
					live++
					if got := v.Get(m.ident()); got != m.Value {
						t.Fatalf("Get(%q) does not return the live member", m.Key)
					}
				}
				walk(m.Value, depth+1)
			}
			if live != v.Len() || live != len(v.Members()) {
				t.Fatalf("object: %d live members, Len %d, Members %d", live, v.Len(), len(v.Members()))
			}
		case String, Number, Bool, Null:
		default:
			t.Fatalf("invalid kind %d", v.Kind())
		}
	}
	walk(v, 0)
}

// posTable holds the position of every rune start of an input, computed in
// one pass, so that checking every position of a tree stays linear even on a
// long single-line input (LineIndex.Pos is linear in the line's length). It is
// checked against LineIndex itself.
type posTable struct {
	ix  *LineIndex
	tab []Pos // zero Pos for offsets inside a rune
}

func newPosTable(data []byte) *posTable {
	pt := &posTable{ix: NewLineIndex(data), tab: make([]Pos, len(data)+1)}
	line, col, i := 1, 1, 0
	if bytes.HasPrefix(data, []byte(bom)) {
		for ; i < len(bom); i++ {
			pt.tab[i] = Pos{Offset: i, Line: 1, Column: 1}
		}
	}
	for i < len(data) {
		pt.tab[i] = Pos{Offset: i, Line: line, Column: col}
		if data[i] == '\n' {
			line, col = line+1, 1
			i++
			continue
		}
		_, size := utf8.DecodeRune(data[i:])
		i += size
		col++
	}
	pt.tab[len(data)] = Pos{Offset: len(data), Line: line, Column: col}
	return pt
}

func (pt *posTable) pos(off int) Pos {
	if off >= 0 && off < len(pt.tab) && pt.tab[off].Line != 0 {
		return pt.tab[off]
	}
	return pt.ix.Pos(off)
}

// toAny converts a tree to what encoding/json decodes into an interface{}
// with UseNumber: map[string]any (last duplicate wins), []any, string,
// json.Number, bool, nil.
func toAny(v *Value) any {
	switch v.Kind() {
	case Object:
		m := make(map[string]any, v.Len())
		for _, mm := range v.AllMembers() {
			m[mm.Key] = toAny(mm.Value)
		}
		return m
	case Array:
		a := make([]any, 0, v.Len())
		for _, e := range v.Elements() {
			a = append(a, toAny(e))
		}
		return a
	case String:
		return v.Text()
	case Number:
		return json.Number(v.Raw())
	case Bool:
		return v.Bool()
	case Null:
		return nil
	}
	return fmt.Sprintf("invalid kind %d", v.Kind())
}

// stdDecode decodes data with encoding/json the way toAny represents trees.
func stdDecode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// nodeDecode replaces every maximal ill-formed subpart of data with U+FFFD,
// as Node decodes a file read as "utf8". It is written independently of the
// package's invalidLen: a maximal subpart is the longest proper prefix of a
// valid encoding, which is exactly where utf8.FullRune is false.
func nodeDecode(data []byte) []byte {
	out := make([]byte, 0, len(data)+16)
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError || size != 1 {
			out = append(out, data[i:i+size]...)
			i += size
			continue
		}
		k := 1
		for i+k < len(data) && !utf8.FullRune(data[i:i+k+1]) {
			k++
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += k
	}
	return out
}

// sameAsStd reports whether the tree equals encoding/json's decoding of data
// as Node reads it (invalid UTF-8 replaced per maximal subpart, which is the
// one documented difference from encoding/json's byte-by-byte replacement).
func sameAsStd(t testing.TB, data []byte, v *Value) {
	t.Helper()
	want, err := stdDecode(nodeDecode(data))
	if err != nil {
		t.Fatalf("encoding/json rejects %q: %v", data, err)
	}
	got := toAny(v)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tree differs from encoding/json for %q:\n got %#v\nwant %#v", data, got, want)
	}
}
