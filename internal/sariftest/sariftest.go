// Package sariftest checks a rendering against the official SARIF 2.1.0
// schema (README.md says where the vendored copy comes from): the
// renderers' tests and the engine's golden tests both hold every SARIF
// output to it.
package sariftest

import (
	"bytes"
	_ "embed"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

// schema is the SARIF 2.1.0 schema, compiled once.
var schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// Validate fails the test unless out is a valid SARIF 2.1.0 log.
func Validate(t testing.TB, out []byte) {
	t.Helper()
	sch, err := schema()
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("SARIF output is not valid SARIF 2.1.0: %v", err)
	}
}
