package jsonpos

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types. Invalid is the zero Kind, never produced by Parse.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// String returns the JSON name of the kind ("object", "array", ...).
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Pos is a position in the input: a 0-based byte Offset and the 1-based Line
// and Column it falls on (Column counts Unicode code points; see the package
// comment).
type Pos struct {
	Offset int
	Line   int
	Column int
}

// Value is one JSON value of a parsed document with its place in the source.
// A Value is immutable: it is read through methods, so one parsed tree can be
// shared by every part of the review engine.
//
// Every method is safe on a nil *Value and returns a zero result (Kind
// Invalid), so lookups can be chained: v.Get("permissions").Get("allow").Index(0).
type Value struct {
	kind       Kind
	boolean    bool
	start, end pos32
	raw        string
	x          *extra // children of a non-empty container, or the decoded text of an escaped string
}

// pos32 is a Pos stored in half the space: values are the bulk of a parse's
// memory, and inputs are bounded below 2 GiB.
type pos32 struct{ off, line, col int32 }

func (p pos32) pos() Pos { return Pos{Offset: int(p.off), Line: int(p.line), Column: int(p.col)} }

func compact(p Pos) pos32 { return pos32{int32(p.Offset), int32(p.Line), int32(p.Column)} }

// extra holds what only some values need, so that the far more numerous plain
// scalars stay small and carry a single pointer.
type extra struct {
	text  string           // String: decoded text, when it differs from the source
	elems []*Value         // Array elements
	all   []Member         // Object members, source order, overridden ones included
	live  []Member         // the members JSON.parse keeps; == all without duplicates
	idx   map[string]int32 // key identity -> index in all of its last occurrence; nil for small objects
}

// Kind returns the JSON type of the value (Invalid for a nil *Value).
func (v *Value) Kind() Kind {
	if v == nil {
		return Invalid
	}
	return v.kind
}

// Start returns the position of the value's first byte.
func (v *Value) Start() Pos {
	if v == nil {
		return Pos{}
	}
	return v.start.pos()
}

// End returns the position just past the value's last byte, so that
// Raw() == source[Start().Offset:End().Offset].
func (v *Value) End() Pos {
	if v == nil {
		return Pos{}
	}
	return v.end.pos()
}

// Raw returns the exact source text of the value. For a Number it is the
// only representation kept, so no precision is lost.
func (v *Value) Raw() string {
	if v == nil {
		return ""
	}
	return v.raw
}

// Text returns the decoded text of a String, as JSON.parse decodes it (lone
// surrogates and invalid UTF-8 become U+FFFD; see the package comment), and ""
// for any other kind.
func (v *Value) Text() string {
	if v == nil || v.kind != String {
		return ""
	}
	if v.x != nil {
		return v.x.text
	}
	return v.raw[1 : len(v.raw)-1]
}

// Bool returns the value of a Bool, and false for any other kind.
func (v *Value) Bool() bool { return v != nil && v.boolean }

// Member is one "key": value pair of an object.
type Member struct {
	// Key is the decoded key.
	Key string
	// KeyRaw is the key's source text, quotes included.
	KeyRaw string
	// KeyStart is the position of the key's opening quote.
	KeyStart Pos
	// Value is the member's value.
	Value *Value
	// Overridden is set when a later member of the same object has the same
	// key: JSON.parse ignores this one.
	Overridden bool

	// id is the key as JavaScript compares it, when it differs from Key (a
	// lone surrogate, kept as WTF-8); empty otherwise.
	id string
}

// KeyEnd returns the position just past the key's closing quote. (A key never
// spans lines, so it is computed from KeyStart and KeyRaw.)
func (m Member) KeyEnd() Pos {
	return Pos{
		Offset: m.KeyStart.Offset + len(m.KeyRaw),
		Line:   m.KeyStart.Line,
		Column: m.KeyStart.Column + utf8.RuneCountInString(m.KeyRaw),
	}
}

func (m *Member) ident() string {
	if m.id != "" {
		return m.id
	}
	return m.Key
}

// Len returns the number of elements of an Array, the number of distinct keys
// of an Object (as JSON.parse keeps them), and 0 for anything else.
func (v *Value) Len() int {
	if v == nil {
		return 0
	}
	if v.x == nil {
		return 0
	}
	switch v.kind {
	case Array:
		return len(v.x.elems)
	case Object:
		return len(v.x.live)
	}
	return 0
}

// Index returns element i of an Array, or nil when v is not an array or i is
// out of range.
func (v *Value) Index(i int) *Value {
	if v == nil || v.kind != Array || v.x == nil || i < 0 || i >= len(v.x.elems) {
		return nil
	}
	return v.x.elems[i]
}

// Elements returns the elements of an Array in source order (nil otherwise).
// The slice is shared: do not modify it.
func (v *Value) Elements() []*Value {
	if v == nil || v.kind != Array || v.x == nil {
		return nil
	}
	return v.x.elems
}

// Get returns the value of key in an Object — the last one when the key is
// duplicated, as JSON.parse does — or nil when v is not an object or has no
// such key.
func (v *Value) Get(key string) *Value {
	if m, ok := v.Lookup(key); ok {
		return m.Value
	}
	return nil
}

// Lookup returns the member of an Object that JSON.parse keeps for key (the
// last occurrence), with its key position, and whether there is one.
func (v *Value) Lookup(key string) (Member, bool) {
	if v == nil || v.kind != Object || v.x == nil {
		return Member{}, false
	}
	o := v.x
	if o.idx != nil {
		if i, ok := o.idx[key]; ok {
			return o.all[i], true
		}
		return Member{}, false
	}
	for i := len(o.all) - 1; i >= 0; i-- {
		if o.all[i].ident() == key {
			return o.all[i], true
		}
	}
	return Member{}, false
}

// Path follows keys through nested objects: v.Path("permissions", "allow") is
// v.Get("permissions").Get("allow"). It returns nil as soon as a step is
// missing or not an object; Path() is v itself.
func (v *Value) Path(keys ...string) *Value {
	for _, k := range keys {
		v = v.Get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// Members returns the members of an Object that JSON.parse keeps — one per
// distinct key, the last occurrence of each — in the source order of those
// occurrences. (JavaScript would order integer-like keys first and a
// duplicated key at its first occurrence; settings files never depend on
// that.) The slice is shared: do not modify it.
func (v *Value) Members() []Member {
	if v == nil || v.kind != Object || v.x == nil {
		return nil
	}
	return v.x.live
}

// AllMembers returns every member of an Object in source order, including
// those overridden by a later duplicate key (marked Overridden). A reviewer
// needs them: a PR that appends a second "permissions" object silently
// replaces the first. The slice is shared: do not modify it.
func (v *Value) AllMembers() []Member {
	if v == nil || v.kind != Object || v.x == nil {
		return nil
	}
	return v.x.all
}

// Float returns a Number as the float64 JSON.parse produces: correctly
// rounded, ±Inf when it overflows (1e400), ±0 when it underflows. ok is false
// when v is not a Number. Use Raw when the exact text matters.
func (v *Value) Float() (f float64, ok bool) {
	if v == nil || v.kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.raw, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}
