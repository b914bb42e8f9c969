package agentfiles

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// pluginKeysNotParts are the keys of a plugin manifest (or marketplace
// entry) in the pinned 2.1.328 schema that name no repository file
// Shipgate must read as a part, with why. A key the schema gains is
// neither a part nor here: TestPluginPartsCoverSchema fails on it.
var pluginKeysNotParts = map[string]string{
	"$schema": "metadata", "name": "metadata", "displayName": "metadata", "version": "metadata", "description": "metadata",
	"author": "metadata", "homepage": "metadata", "repository": "metadata", "license": "metadata", "keywords": "metadata",
	"category": "metadata", "tags": "metadata", "relevance": "metadata", "metadata": "metadata", "engines": "metadata",
	"defaultEnabled": "inline in the manifest (any change to it is reviewed)", "dependencies": "inline in the manifest",
	"network": "inline in the manifest", "settings": "inline in the manifest", "channels": "inline in the manifest",
	"userConfig": "inline in the manifest", "binaries": "inline in the manifest (fetched at install)",
	"headers": "inline in the entry", "headersHelper": "inline in the entry", "source": "the plugin's root (PluginLayouts)",
	"strict": "inline in the entry", "experimental": "its monitors are read with monitors; evals, outputStyles, themes, syntaxHighlighting grant nothing",
	"types": "a .d.ts type contract: grants nothing", "outputStyles": "output styles: prompts, grant nothing",
	"themes": "themes: grant nothing",
}

// TestPluginPartsCoverSchema holds pluginParts to the manifest schema
// taken from the binary (claudeschema's TestPluginSchemaFromBinary): every
// key of plugin.json and of a marketplace entry is a part or listed in
// pluginKeysNotParts, and a part replaces its default folder exactly
// when the schema says that folder "is not auto-loaded" once it is set.
func TestPluginPartsCoverSchema(t *testing.T) {
	data, err := os.ReadFile("claude/claudeschema/plugins-" + lattice.ClaudeCodeVersion + ".schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	parts := map[string]bool{}
	for _, pp := range pluginParts {
		parts[string(pp.part)] = true
	}
	for _, doc := range []string{"plugin.json", "marketplace entry"} {
		props := s.Properties[doc].Properties
		if len(props) == 0 {
			t.Fatalf("the pinned schema has no %s properties", doc)
		}
		var keys []string
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !parts[k] && pluginKeysNotParts[k] == "" {
				t.Errorf("%s key %q is neither a plugin part Shipgate reads nor listed as naming none", doc, k)
			}
		}
		for _, pp := range pluginParts {
			desc, ok := props[string(pp.part)]
			if !ok {
				t.Errorf("%s has no key %q any more", doc, pp.part)
				continue
			}
			if replaces := strings.Contains(string(desc), "not auto-loaded"); replaces != pp.replaces && pp.part != PartMonitors {
				t.Errorf("%s %q: the schema says replaces=%v, pluginParts %v", doc, pp.part, replaces, pp.replaces)
			}
		}
	}
}
