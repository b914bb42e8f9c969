package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Error is a problem in a policy file, with the position a user needs.
type Error struct {
	Path   string
	Line   int
	Column int
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Errors is every problem found in one policy file.
type Errors []*Error

func (es Errors) Error() string {
	var b bytes.Buffer
	for i, e := range es {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// Parse reads a policy file strictly: unknown keys, wrong types and a
// version other than 1 are errors naming the line. path names the file in
// errors.
func Parse(path string, data []byte) (*Policy, error) {
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{Path: path, Msg: "the policy file is empty: it needs at least `version: 1`"}}
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			var es Errors
			for _, m := range te.Errors {
				es = append(es, yamlError(path, m))
			}
			return nil, es
		}
		return nil, Errors{yamlError(path, err.Error())}
	}
	var es Errors
	if p.Version != 1 {
		es = append(es, &Error{Path: path, Line: 1, Msg: fmt.Sprintf("version %d is not supported: write `version: 1`", p.Version)})
	}
	for id, r := range p.Checks {
		if r.Action != "" {
			if _, ok := ParseAction(string(r.Action)); !ok {
				es = append(es, &Error{Path: path, Msg: fmt.Sprintf("checks.%s.action %q: use advisory, require_review or block", id, r.Action)})
			}
		}
		if r.Risk != "" && RiskRank(r.Risk) == 0 {
			es = append(es, &Error{Path: path, Msg: fmt.Sprintf("checks.%s.risk %q: use low, medium, high or critical", id, r.Risk)})
		}
	}
	if len(es) > 0 {
		return nil, es
	}
	return &p, nil
}

// yamlError turns a yaml.v3 message ("yaml: line 3: ...") into an Error.
func yamlError(path, msg string) *Error {
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{Path: path, Line: n, Msg: m[2]}
	}
	return &Error{Path: path, Msg: msg}
}
