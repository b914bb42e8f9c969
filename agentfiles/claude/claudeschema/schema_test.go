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
		"rec": {"type": "object", "propertyNames": {"enum": ["A", "B"]}, "additionalProperties": {"type": "string"}},
		"req": {"type": "object", "properties": {"s": {"anyOf": [{"type": "string"}, {"type": "object"}]}}, "x-required": ["s"]},
		"refined": {"type": "string", "x-refined": true},
		"refinedKept": {"type": "string", "x-refined": true, "x-refine-kept": true},
		"sandbox": {"type": "object", "properties": {
			"network": {"type": "object", "properties": {"allowMachLookup": {"type": "array", "items": {"type": "string", "x-refined": true}}}},
			"credentials": {"type": "object", "x-refined": true, "properties": {"awsPairs": {"type": "array", "items": {"type": "object", "x-refined": true,
				"properties": {"accessKeyIdVar": {"type": "string"}, "secretAccessKeyVar": {"type": "string"}, "sessionTokenVar": {"type": "string"}}}}}}
		}},
		"managedMcpServers": {"type": "object", "additionalProperties": {"type": "object", "x-refined": true}},
		"extraKnownMarketplaces": {"type": "object", "x-refined": true, "additionalProperties": {"type": "object", "required": ["source"], "properties": {
			"source": {"anyOf": [
				{"type": "object", "required": ["source", "url"], "properties": {"source": {"type": "string", "const": "url"}, "url": {"type": "string", "format": "uri"}}},
				{"type": "object", "required": ["source", "repo"], "properties": {"source": {"type": "string", "const": "github"}, "repo": {"type": "string"}}}
			]}
		}}}
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
		// x-required: zod's input side calls it optional, the parse does not.
		{`{"req": {"s": "x"}}`, "", false},
		{`{"req": {}}`, "req", false},
		// A refinement Shipgate does not model fails closed; one the
		// extractor measured as never dropping is read.
		{`{"refined": "x"}`, "refined", true},
		{`{"refinedKept": "x y"}`, "", false},
		// Modelled refinements (refinements.go).
		{`{"sandbox": {"network": {"allowMachLookup": ["com.example.*", "*"]}}}`, "", false},
		{`{"sandbox": {"network": {"allowMachLookup": ["com.*.x"]}}}`, "sandbox.network.allowMachLookup[0]", false},
		{`{"sandbox": {"network": {"allowMachLookup": ["**"]}}}`, "sandbox.network.allowMachLookup[0]", false},
		{`{"sandbox": {"credentials": {"awsPairs": [{"accessKeyIdVar": "A", "secretAccessKeyVar": "B"}, {"accessKeyIdVar": "C", "secretAccessKeyVar": "D", "sessionTokenVar": "E"}]}}}`, "", false},
		{`{"sandbox": {"credentials": {"awsPairs": [{"accessKeyIdVar": "A", "secretAccessKeyVar": "A"}]}}}`, "sandbox.credentials", false},
		{`{"sandbox": {"credentials": {"awsPairs": [{"accessKeyIdVar": "A", "secretAccessKeyVar": "B"}, {"accessKeyIdVar": "C", "secretAccessKeyVar": "B"}]}}}`, "sandbox.credentials", false},
		// Not read from a project file at all.
		{`{"managedMcpServers": {"x": 5}}`, "", false},
		// An invalid marketplace entry is ignored; a source of no known
		// kind drops the file.
		{`{"extraKnownMarketplaces": {"k": {"source": {"source": "url", "url": "nope"}}}}`, "", false},
		{`{"extraKnownMarketplaces": {"k": {"source": {"source": "github"}}}}`, "", false},
		{`{"extraKnownMarketplaces": {"k": {"source": {"source": "svn", "url": "https://x"}}}}`, "extraKnownMarketplaces.k.source.source", false},
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

// TestRefinementTable: every reading in refinements.go names a node of
// the pinned schema and says why; a stale row (a node a new version
// renamed) fails here instead of leaving its node Uncertain unnoticed.
func TestRefinementTable(t *testing.T) {
	seen := map[string]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.refine != nil {
			seen[n.where] = true
		}
		for _, c := range n.props {
			walk(c)
		}
		walk(n.items)
		walk(n.additional)
		for _, a := range n.anyOf {
			walk(a)
		}
	}
	walk(Pinned().root)
	for where, r := range refinements {
		if !seen[where] {
			t.Errorf("refinements[%q]: no node of the pinned schema is there", where)
		}
		if r.why == "" || r.kept == (r.check != nil) && !r.unread {
			t.Errorf("refinements[%q]: want a reason and exactly one of kept, check, unread", where)
		}
	}
}
