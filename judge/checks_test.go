package judge

import (
	"os"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/report"
)

// TestCatalogueDocumented: docs/checks.md documents every check ID with
// its default action.
func TestCatalogueDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/checks.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range report.Catalogue {
		row := ""
		for _, line := range strings.Split(string(doc), "\n") {
			if strings.HasPrefix(line, "| `"+c.ID+"`") {
				row = line
			}
		}
		if row == "" {
			t.Errorf("docs/checks.md has no row for %s", c.ID)
			continue
		}
		if !strings.Contains(row, "| "+string(c.Action)+" |") {
			t.Errorf("docs/checks.md row for %s does not give the default action %s", c.ID, c.Action)
		}
		if _, ok := policy.ParseAction(string(c.Action)); !ok {
			t.Errorf("%s has an unknown action %q", c.ID, c.Action)
		}
	}
}
