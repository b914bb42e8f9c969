package agent

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter reads the YAML block between a leading "---" line and the
// next one of a Markdown file (a skill's SKILL.md, an agent file), as
// Copilot CLI and OpenCode do: a BOM is skipped; no opening line is no
// frontmatter (nil, nil); an opening line never closed, or a block that is
// not YAML, is a ParseError (the agent drops the file). A block that is
// not a mapping gives nil. YAML nested past the library's bound is
// Shipgate's limit, not the agent's, so that error may still grant
// (MayStillGrant: fail closed).
func Frontmatter(file string, data []byte) (*yaml.Node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return nil, nil
	}
	rest := data[bytes.IndexByte(data, '\n')+1:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, &ParseError{File: file, Line: 1, Col: 1, Msg: "the frontmatter is never closed (a line of ---)"}
	}
	var n yaml.Node
	if err := yaml.Unmarshal(rest[:end+1], &n); err != nil {
		return nil, &ParseError{File: file, Line: 2, Col: 1, Msg: "the frontmatter is not YAML: " + err.Error(),
			MayStillGrant: strings.Contains(err.Error(), "exceeded max depth")}
	}
	if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	return n.Content[0], nil
}
