package jsonpos

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzParse holds the parser to JSON.parse's grammar, using encoding/json
// (same RFC 8259 grammar) as the oracle:
//   - it never panics or hangs;
//   - whenever encoding/json accepts the input, Parse accepts it too and
//     builds the same tree — except for nesting deeper than MaxDepth (a
//     documented fail-closed bound) — with strings compared after collapsing
//     runs of U+FFFD (the documented invalid-UTF-8 replacement difference);
//   - whenever Parse accepts the input, encoding/json accepts it too;
//   - every position agrees with LineIndex, and Raw is the source slice;
//   - problems are consistent: one duplicate-key problem per overridden
//     member, and an invalid-UTF-8 problem exactly when the input is not UTF-8.
func FuzzParse(f *testing.F) {
	for _, c := range fatalCases {
		f.Add([]byte(c.in))
	}
	for _, s := range []string{
		n8n, ray, `{}`, `[]`, `0`, `-0.5e+10`, `"\ud800"`, `"\ud83d\ude00"`, `{"a":1,"a":2}`,
		"[\"\xE0\xA0\xFF\xED\xA0\x80\"]", "{\"\xFF\":1,\"\xFE\":2}", `{"\ud800":1,"\udbff":2}`,
		"\xEF\xBB\xBF{}", "{\r\n\t\"é\": [true, false, null]\r\n}", `[1.5, "a\/b\u0041"]`,
		string(settingsFile(5)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, probs, err := Options{MaxSize: -1}.Parse(data)
		pt := newPosTable(data)
		for _, p := range probs {
			if p.Pos != pt.pos(p.Offset) || p.Message == "" {
				t.Fatalf("problem %+v: position disagrees with LineIndex %+v or no message", p, pt.pos(p.Offset))
			}
		}
		stdOK := json.Valid(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *SyntaxError", err, err)
			}
			if v != nil {
				t.Fatalf("value returned with an error")
			}
			if se.Pos != pt.pos(se.Offset) || se.Msg == "" || se.Hint == "" {
				t.Fatalf("error %+v: position disagrees with LineIndex %+v, or no message/hint", se, pt.pos(se.Offset))
			}
			if stdOK && se.Kind != SyntaxTooDeep {
				t.Fatalf("encoding/json accepts %q but Parse fails: %v", data, err)
			}
			return
		}
		if !stdOK {
			t.Fatalf("Parse accepts %q but encoding/json rejects it", data)
		}
		checkTree(t, data, v)
		sameAsStd(t, data, v)

		overridden, dupProblems, utf8Problems := 0, 0, 0
		var count func(*Value)
		count = func(v *Value) {
			for _, m := range v.AllMembers() {
				if m.Overridden {
					overridden++
				}
				count(m.Value)
			}
			for _, e := range v.Elements() {
				count(e)
			}
		}
		count(v)
		for _, p := range probs {
			switch p.Kind {
			case ProblemDuplicateKey:
				dupProblems++
			case ProblemInvalidUTF8:
				utf8Problems++
			}
		}
		if overridden != dupProblems {
			t.Fatalf("%d overridden members but %d duplicate-key problems", overridden, dupProblems)
		}
		if (utf8Problems > 0) == utf8.Valid(data) {
			t.Fatalf("utf8.Valid = %v but %d invalid-UTF-8 problems", utf8.Valid(data), utf8Problems)
		}
	})
}
