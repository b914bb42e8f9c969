package render_test

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/judge"
	"github.com/shipgate-app/shipgate/render"
	"github.com/shipgate-app/shipgate/report"
)

// One report, judged once, rendered for each reader: the terminal (Text),
// the check run (Markdown), code scanning (SARIF) and machines (JSON).
func Example() {
	r := judge.Compare(report.Input{Files: []report.File{{
		Path: ".claude/settings.json",
		Base: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)"]}}`)},
		Head: report.Version{Exists: true, Data: []byte(`{"permissions": {"allow": ["Bash(npm test)", "Bash(*)"]}}`)},
	}}})
	o := render.Options{Version: "example"}
	text := render.Text(r, o)
	fmt.Println(strings.SplitN(text, "\n", 2)[0])
	fmt.Println(strings.Contains(render.Markdown(r, o), "Bash(*)"))
	sarif, _ := render.SARIF(r, o)
	fmt.Println(strings.Contains(string(sarif), `"ruleId": "SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW"`))
	js, _ := render.JSON(r)
	fmt.Println(strings.Contains(string(js), `"decision": "block"`))
	// Output:
	// Agent permission review
	// true
	// true
	// true
}
