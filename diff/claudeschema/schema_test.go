package claudeschema

import (
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// TestValidateMarks runs Validate on a small schema with every mark the
// extractor writes, so each reading is held even where the pinned schema
// has no node of that kind today.
func TestValidateMarks(t *testing.T) {
	s, err := Parse([]byte(`{"type": "object", "properties": {
		"caught": {"type": "string", "x-catch": true},
		"stripped": {"type": "array", "items": {"type": "string", "x-repaired": ["number"]}},
		"mode": {"type": "string", "enum": ["default", "plan"], "x-accepts": ["manual"]},
		"plugin": {"anyOf": [{"type": "boolean"}, {"x-never": true}]},
		"custom": {"anyOf": [{"type": "string"}, {"x-opaque": true}]},
		"name": {"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"},
		"url": {"type": "string", "format": "uri"},
		"n": {"type": "integer", "minimum": 1},
		"obj": {"type": "object", "required": ["k"], "properties": {"k": {"type": "boolean"}}},
		"rec": {"type": "object", "propertyNames": {"enum": ["A", "B"]}, "additionalProperties": {"type": "string"}}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		doc       string
		path      string // "" = kept
		uncertain bool
	}{
		{`{"caught": 5}`, "", false},
		{`{"stripped": [5, "x"]}`, "", false},
		{`{"stripped": [true]}`, "stripped[0]", false},
		{`{"mode": "manual"}`, "", false},
		{`{"mode": "auto"}`, "mode", false},
		{`{"plugin": true}`, "", false},
		{`{"plugin": "x"}`, "plugin", false},
		{`{"custom": "x"}`, "", false},
		{`{"custom": 5}`, "custom", true},
		{`{"name": "ab"}`, "", false},
		{`{"name": "a"}`, "name", false},
		{`{"name": "abcd"}`, "name", false},
		{`{"name": "A1"}`, "name", false},
		{`{"url": "https://example.com/x"}`, "", false},
		{`{"url": "example.com"}`, "url", false},
		{`{"url": "https://"}`, "url", false},
		{`{"n": 1}`, "", false},
		{`{"n": 1.5}`, "n", false},
		{`{"n": 0}`, "n", false},
		{`{"obj": {}}`, "obj", false},
		{`{"obj": {"k": "yes"}}`, "obj.k", false},
		{`{"rec": {"A": "x"}}`, "", false},
		{`{"rec": {"C": "x"}}`, "rec.C", false},
		{`{"rec": {"A": 5}}`, "rec.A", false},
		{`{"unknown": 5, "n": "x"}`, "n", false},
	}
	for _, c := range cases {
		doc, _, err := jsonpos.Parse([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		v := s.Validate(doc)
		switch {
		case c.path == "" && v != nil:
			t.Errorf("%s: dropped (%s), want kept", c.doc, v.Message())
		case c.path != "" && v == nil:
			t.Errorf("%s: kept, want a violation at %s", c.doc, c.path)
		case v != nil && (v.Path != c.path || v.Uncertain != c.uncertain):
			t.Errorf("%s: %s (uncertain %v), want %s (uncertain %v)", c.doc, v.Path, v.Uncertain, c.path, c.uncertain)
		case v != nil && !strings.Contains(v.Message(), "`"+c.path+"`"):
			t.Errorf("%s: message %q does not name %s", c.doc, v.Message(), c.path)
		}
	}
}
