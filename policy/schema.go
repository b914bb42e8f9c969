package policy

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// JSONSchema describes an Item in the JSON Schema: a string.
func (Item) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: ptr(uint64(1))}
}

func ptr[T any](v T) *T { return &v }

// Schema returns the JSON Schema of the policy file, generated from the Go
// types so the two cannot drift (a test holds docs/policy.schema.json to
// it). Editors use it to complete and check .github/shipgate.yml.
func Schema() ([]byte, error) {
	r := &jsonschema.Reflector{ExpandedStruct: true, DoNotReference: true, RequiredFromJSONSchemaTags: true}
	s := r.Reflect(&Policy{})
	s.ID = "https://shipgate.dev/schemas/policy.schema.json"
	s.Title = "Shipgate policy (.github/shipgate.yml)"
	s.Description = "Tunes the Shipgate gate for a repository or, as shipgate.yml in the organisation's .github repository, for an organisation. See docs/policy.md."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
