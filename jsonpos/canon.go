package jsonpos

import (
	"encoding/json"
	"sort"
	"strings"
)

// Canon is a value's canonical JSON text: object keys sorted, no spaces,
// strings re-quoted, numbers and literals as written. Two versions of a
// value that differ only in layout, key order or comments (where the
// reader accepts them) get the same text, which is how settings are
// compared across base and head. A nil (absent) value is "null"; Parse
// never produces one inside a tree.
func Canon(v *Value) string {
	var sb strings.Builder
	writeCanon(&sb, v)
	return sb.String()
}

func writeCanon(sb *strings.Builder, v *Value) {
	switch v.Kind() {
	case Object:
		ms := append([]Member(nil), v.Members()...)
		sort.Slice(ms, func(i, j int) bool { return ms[i].Key < ms[j].Key })
		sb.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				sb.WriteByte(',')
			}
			k, _ := json.Marshal(m.Key)
			sb.Write(k)
			sb.WriteByte(':')
			writeCanon(sb, m.Value)
		}
		sb.WriteByte('}')
	case Array:
		sb.WriteByte('[')
		for i, x := range v.Elements() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCanon(sb, x)
		}
		sb.WriteByte(']')
	case String:
		s, _ := json.Marshal(v.Text())
		sb.Write(s)
	case Number, Bool, Null:
		sb.WriteString(v.Raw())
	default:
		sb.WriteString("null")
	}
}
