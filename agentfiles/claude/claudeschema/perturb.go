package claudeschema

import (
	"sort"
	"strings"
)

// Perturbation is one settings value drawn from the schema: a valid sample
// of a node, or a value of a JSON kind the node does not take, placed in a
// document whose other members are valid samples. The conformance harness
// writes it beside deny and ask rules and asks the real binary whether the
// rules still apply (corpus_schema.go).
type Perturbation struct {
	// Where names the node as the loads file does ("sandbox.enabled",
	// "hooks.PreToolUse[]").
	Where string
	// Level says what was changed: "top-level" (a top-level key's value),
	// "nested" (an object's member below the top), "element" (a list's
	// entry), "enum" (a value off an enum's list), "valid" (a valid sample).
	Level string
	// Doc is the settings document's top-level members.
	Doc map[string]any
}

// Perturbations lists the perturbations of every node of the schema to a
// depth of four keys, in a fixed order.
func (s *Schema) Perturbations() []Perturbation {
	var out []Perturbation
	keys := make([]string, 0, len(s.root.props))
	for k := range s.root.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		perturb(s.root.props[k], func(v any) map[string]any { return map[string]any{k: v} }, k, 1, false, &out)
	}
	return out
}

// wrongKinds are the values of each JSON kind a perturbation tries.
var wrongKinds = []struct {
	kind  string
	value any
}{{"string", "x"}, {"number", 5.0}, {"boolean", true}, {"null", nil}, {"array", []any{}}, {"object", map[string]any{}}}

func perturb(n *node, skel func(any) map[string]any, where string, depth int, element bool, out *[]Perturbation) {
	if n == nil || depth > 4 || n.refine != nil && n.refine.unread {
		return
	}
	level := "nested"
	switch {
	case element:
		level = "element"
	case depth == 1:
		level = "top-level"
	}
	if ok, has := sampleOf(n, 0); has {
		*out = append(*out, Perturbation{Where: where, Level: "valid", Doc: skel(ok)})
	}
	kinds := n.kinds()
	for _, w := range wrongKinds {
		if !kinds[w.kind] && !n.repaired[w.kind] && !n.catch {
			*out = append(*out, Perturbation{Where: where, Level: level, Doc: skel(w.value)})
		}
	}
	if len(n.enum) > 0 && !n.catch {
		*out = append(*out, Perturbation{Where: where, Level: "enum", Doc: skel("shipgate-not-a-value")})
	}
	if !typeIs(n, "object") {
		if n.items != nil && typeIs(n, "array") {
			perturb(n.items, func(v any) map[string]any { return skel([]any{v}) }, where+"[]", depth+1, true, out)
		}
		return
	}
	base, _ := sampleOf(n, 0)
	props := make([]string, 0, len(n.props))
	for k := range n.props {
		props = append(props, k)
	}
	sort.Strings(props)
	for _, k := range props {
		perturb(n.props[k], func(v any) map[string]any {
			o := clone(base)
			o[k] = v
			return skel(o)
		}, where+"."+k, depth+1, false, out)
	}
}

func typeIs(n *node, t string) bool {
	for _, x := range n.types {
		if x == t {
			return true
		}
	}
	return false
}

// kinds are the JSON kinds a node admits (all of them for a node without
// a type; none for one that admits nothing).
func (n *node) kinds() map[string]bool {
	out := map[string]bool{}
	if n.never {
		return out
	}
	if len(n.anyOf) > 0 {
		for _, a := range n.anyOf {
			for k := range a.kinds() {
				out[k] = true
			}
		}
		return out
	}
	if len(n.types) == 0 {
		for _, w := range wrongKinds {
			out[w.kind] = true
		}
		return out
	}
	for _, t := range n.types {
		if t == "integer" {
			t = "number"
		}
		out[t] = true
	}
	return out
}

func clone(v any) map[string]any {
	o := map[string]any{}
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			o[k] = x
		}
	}
	return o
}

// sampleOf is a valid value of a node, as the extractor's sample: the
// const, the enum's first value, the first branch, the shortest string,
// the minimum, an object of its required keys.
func sampleOf(n *node, depth int) (any, bool) {
	if n == nil || depth > 8 || n.never {
		return nil, false
	}
	if n.hasConst {
		return n.constant, true
	}
	if len(n.enum) > 0 {
		return n.enum[0], true
	}
	if len(n.anyOf) > 0 {
		return sampleOf(n.anyOf[0], depth+1)
	}
	if len(n.types) == 0 {
		return nil, false
	}
	switch n.types[0] {
	case "string":
		if n.format == "uri" || n.format == "url" {
			return "https://example.com/x", true
		}
		return strings.Repeat("x", max(1, n.minLen)), true
	case "integer", "number":
		switch {
		case n.min != nil:
			return *n.min, true
		case n.exclMin != nil:
			return *n.exclMin + 1, true
		}
		return 1.0, true
	case "boolean":
		return true, true
	case "null":
		return nil, true
	case "array":
		e, ok := sampleOf(n.items, depth+1)
		list := []any{}
		for i := 0; ok && i < n.minItems; i++ {
			list = append(list, e)
		}
		return list, true
	case "object":
		o := map[string]any{}
		for _, k := range n.required {
			v, ok := sampleOf(n.props[k], depth+1)
			if !ok {
				return nil, false
			}
			o[k] = v
		}
		return o, true
	}
	return nil, false
}
