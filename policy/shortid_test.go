package policy

import (
	"strings"
	"testing"
)

// TestShortCheckIDs: a policy may name a check by its short ID (without
// SHIP-HOST-BOUNDARY-), in any case; the parsed policy holds the full ID.
func TestShortCheckIDs(t *testing.T) {
	ids := map[string]Action{
		"SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED":   "require_review",
		"SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED": "require_review",
		"SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW": "block",
		"SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED":          "require_review",
		"SHIP-HOST-BOUNDARY-MCP-SERVER-CHANGED":        "require_review",
		"SHIP-OTHER-AREA-SERVER-ADDED":                 "advisory",
	}
	resolve := []struct{ in, want string }{
		{"SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED", "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"},
		{"PERMISSION-DENY-REMOVED", "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"},
		{"permission-deny-removed", "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"},
		{"DENY-REMOVED", "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"},
		{"MCP-SERVER-ADDED", "SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED"},
		{"SERVER-ADDED", ""}, // two checks end with it: ambiguous
		{"REMOVED-X", ""},
		{"", ""},
		{"ENIED-REMOVED", ""}, // a suffix only at a dash
	}
	for _, c := range resolve {
		got, ok := ResolveCheckID(c.in, ids)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("ResolveCheckID(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}

	p, err := Parse("p.yml", []byte("version: 1\nchecks:\n  PERMISSION-DENY-REMOVED:\n    action: block\n  mcp-server-added:\n    risk: high\n"), Options{Checks: ids})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := p.Checks["SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"]; !ok || r.Action != "block" || r.Line != 3 {
		t.Errorf("short ID not resolved: %+v", p.Checks)
	}
	if r := p.Checks["SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED"]; r.Risk != "high" {
		t.Errorf("lower-case short ID not resolved: %+v", p.Checks)
	}
	if len(p.Checks) != 2 {
		t.Errorf("checks %v", p.Checks)
	}

	errCases := []struct{ src, msg string }{
		{"version: 1\nchecks:\n  SERVER-ADDED:\n    action: block\n", `unknown check ID "SERVER-ADDED"`},
		{"version: 1\nchecks:\n  PERMISION-DENY-REMOVED:\n    action: block\n", `did you mean "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"?`},
		{"version: 1\nchecks:\n  PERMISSION-WILDCARD-ALLOW:\n    action: require_review\n", "below the default block"},
		{"version: 1\nchecks:\n  PERMISSION-DENY-REMOVED:\n    action: block\n  SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED:\n    risk: high\n", "already raised on line 3"},
	}
	for _, c := range errCases {
		_, err := Parse("p.yml", []byte(c.src), Options{Checks: ids})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: err %v, want %q", c.src, err, c.msg)
		}
	}
}
