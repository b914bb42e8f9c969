package jsonpos_test

import (
	"errors"
	"fmt"

	"github.com/shipgate-app/shipgate/jsonpos"
)

func ExampleParse() {
	settings := []byte(`{
  "permissions": {
    "allow": ["Bash(git log:*)", "Bash(npm test *)"]
  },
  "permissions": {
    "allow": ["Bash(*)"]
  }
}`)
	doc, problems, err := jsonpos.Parse(settings)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range problems {
		fmt.Printf("%s (first at line %d)\n", p.Kind, p.Other.Line)
	}
	for _, rule := range doc.Path("permissions", "allow").Elements() {
		fmt.Printf("line %d: %s\n", rule.Start().Line, rule.Text())
	}
	// Output:
	// duplicate-key (first at line 2)
	// line 6: Bash(*)
}

func ExampleSyntaxError() {
	_, _, err := jsonpos.Parse([]byte("{\n  // deny secrets\n  \"permissions\": {}\n}"))
	var se *jsonpos.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(".claude/settings.json:" + se.Error())
		fmt.Println("hint:", se.Hint)
	}
	// Output:
	// .claude/settings.json:2:3: JSON does not allow comments; Claude Code drops the whole file, deny rules included
	// hint: delete the comment (explain rules in the pull request or a README instead)
}
