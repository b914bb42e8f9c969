package jsonc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in string
		o        Options
		wantErr  string
		key      string // a key whose value's line is checked
		line     int
	}{
		{"plain", `{"a": 1}`, JSONC, "", "a", 1},
		{"line comment", "{\n// c\n\"a\": 1}", JSONC, "", "a", 3},
		{"block comment", "{/* x\n y */\n\"a\": \"//not\"}", JSONC, "", "a", 3},
		{"comment chars in a string", `{"a": "/* no */ // no"}`, JSONC, "", "a", 1},
		{"trailing comma object", "{\"a\": 1,\n}", JSONC, "", "a", 1},
		{"trailing comma array", "{\"a\": [1, 2, ],}", JSONC, "", "a", 1},
		{"escaped quote", `{"a": "x\" // y", "b": 2}`, JSONC, "", "b", 1},
		{"comment refused", "{// c\n\"a\": 1}", Options{}, "line 1", "", 0},
		{"trailing comma refused", `{"a": 1,}`, Options{Comments: true}, "line 1", "", 0},
		{"unclosed comment", "{\"a\": 1 /* x", JSONC, "never closed", "", 0},
		{"syntax error", "{\"a\" 1}", JSONC, "line 1", "", 0},
	}
	for _, c := range cases {
		v, _, err := Parse([]byte(c.in), c.o)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		m, ok := v.Lookup(c.key)
		if !ok || m.KeyStart.Line != c.line {
			t.Errorf("%s: key %s at line %d, want %d", c.name, c.key, m.KeyStart.Line, c.line)
		}
	}
}

// FuzzBlank: blanking keeps the length and every newline, and what
// parses afterwards is valid JSON.
func FuzzBlank(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, "{// c\n\"a\": [1,],}", "{/* */}", `{"a": "\" //"}`, "[1,,]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Blank([]byte(s), JSONC)
		if err != nil {
			return
		}
		if len(out) != len(s) || bytes.Count(out, []byte("\n")) != strings.Count(s, "\n") {
			t.Fatalf("Blank changed the layout: %q → %q", s, out)
		}
		if v, _, err := Parse([]byte(s), JSONC); err == nil && v != nil && !json.Valid(out) {
			t.Fatalf("parsed but not valid JSON after blanking: %q", out)
		}
	})
}

// TestRecover: a missing comma before a string (the next key, or a string
// element) is read as VS Code's JSONC parser reads it, with the comma;
// any other error is returned.
func TestRecover(t *testing.T) {
	for _, c := range []struct {
		name, in string
		repairs  int
		wantErr  bool
		key      string
		want     string
	}{
		{"none", `{"a": 1, "b": 2}`, 0, false, "b", "2"},
		{"before the next key, on the next line", "{\n  \"a\": true\n  \"b\": 2\n}", 1, false, "b", "2"},
		{"no blank between", `{"a": 1"b": 2}`, 1, false, "b", "2"},
		{"two missing", "{\"a\": 1\n\"b\": 2\n\"c\": 3}", 2, false, "c", "3"},
		{"in an array", `{"a": ["x" "y"]}`, 1, false, "a", `["x","y"]`},
		{"a comment between", "{\"a\": 1 // c\n\"b\": 2}", 1, false, "b", "2"},
		{"before a number element", `{"a": [1 2]}`, 0, true, "", ""},
		{"truncated", `{"a": 1,`, 0, true, "", ""},
		{"missing colon", `{"a" 1}`, 0, true, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _, reps, err := Recover([]byte(c.in), JSONC)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if err != nil {
				return
			}
			if len(reps) != c.repairs {
				t.Errorf("%d repairs, want %d: %v", len(reps), c.repairs, reps)
			}
			if got := Canon(v.Get(c.key)); got != c.want {
				t.Errorf("%s = %s, want %s", c.key, got, c.want)
			}
		})
	}
}
