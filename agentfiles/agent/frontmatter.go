package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/agentfiles/jsonc"
	"github.com/shipgate-app/shipgate/jsonpos"
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
	block, ok := frontmatterBlock(data)
	if !ok {
		return nil, nil
	}
	if block == nil {
		return nil, &ParseError{File: file, Line: 1, Col: 1, Msg: "the frontmatter is never closed (a line of ---)"}
	}
	var n yaml.Node
	if err := yaml.Unmarshal(block, &n); err != nil {
		return nil, &ParseError{File: file, Line: 2, Col: 1, Msg: "the frontmatter is not YAML: " + err.Error(),
			MayStillGrant: strings.Contains(err.Error(), "exceeded max depth")}
	}
	if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	return n.Content[0], nil
}

// frontmatterBlock is the YAML text Frontmatter parses: ok is false when
// the file opens no frontmatter, and block nil when it is never closed.
func frontmatterBlock(data []byte) (block []byte, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return nil, false
	}
	rest := data[bytes.IndexByte(data, '\n')+1:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, true
	}
	return rest[:end+1], true
}

// FrontmatterSize is how many bytes of data Frontmatter hands to the YAML
// parser (0 for a file with no frontmatter or one never closed): the rest
// of the file, the Markdown after it, is only scanned for the closing
// line. The engine charges its work budget by it (judge, loadAgentFile).
func FrontmatterSize(data []byte) int {
	block, _ := frontmatterBlock(data)
	return len(block)
}

// YAMLServers reads a frontmatter mapping of MCP server definitions
// (Copilot CLI's mcp-servers, Gemini CLI's mcp_servers in an agent file)
// as servers, in the file's order: each entry's summary and canonical
// text are those of its JSON form, so a server is summarised as the
// agents' JSON files summarise theirs. A value that is not a mapping, or
// an entry that has no JSON form, is an error naming the line.
func YAMLServers(file string, v *yaml.Node) ([]Server, error) {
	if v.Kind != yaml.MappingNode {
		return nil, &ParseError{File: file, Line: v.Line + 1, Col: v.Column, Msg: "the MCP servers are not a mapping of names to servers"}
	}
	var out []Server
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var x any
		if err := val.Decode(&x); err != nil {
			return nil, &ParseError{File: file, Line: val.Line + 1, Col: val.Column, Msg: "MCP server " + k.Value + ": " + err.Error()}
		}
		data, err := json.Marshal(x)
		if err != nil {
			return nil, &ParseError{File: file, Line: val.Line + 1, Col: val.Column, Msg: "MCP server " + k.Value + " has no JSON form: " + err.Error()}
		}
		jv, _, err := jsonpos.Parse(data)
		if err != nil {
			return nil, &ParseError{File: file, Line: val.Line + 1, Col: val.Column, Msg: "MCP server " + k.Value + ": " + err.Error()}
		}
		// The frontmatter starts on the file's second line.
		out = append(out, Server{Name: k.Value, Summary: jsonc.ServerSummary(jv), Canon: jsonc.Canon(jv), Pos: Pos{File: file, Line: k.Line + 1, Col: k.Column}})
	}
	return out, nil
}
