package gemini

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
)

// Gemini CLI 0.61.0's project subagents (.gemini/agents/*.md of the
// folder it starts in: AgentRegistry.loadAgents and
// loadAgentsFromDirectory in bundle/chunk-JDPZ4CE3.js). In a trusted
// folder each .md file directly in the folder whose name does not start
// with "_" is parsed (YAML frontmatter, validated strictly); a new or
// changed file (its sha256) is registered only after the user
// acknowledges it ("New Agents Discovered", which lists the agents and
// their MCP servers); once registered:
//
//   - the model invokes a local agent with invoke_agent, which the default
//     policy allows (policies/agents.toml), and the agent's mcp_servers
//     are started then (LocalAgentExecutor.create), a command without a
//     prompt;
//   - an mcp_servers entry with trust: true runs its tools without a
//     confirmation (DiscoveredMCPToolInvocation: trusted folder and trust);
//   - a remote agent (kind: remote, agent_card_url or agent_card_json)
//     has its card fetched at startup and the task sent to it; invoking
//     it asks (a dynamic ask_user rule above the default allow);
//   - tools: only narrows the parent's tools (the subagent's calls pass
//     the same policy engine).
//
// A file Gemini cannot load is reported as an error and skipped.

// IsAgentFile reports whether Gemini CLI loads p as a project subagent:
// .gemini/agents/<name>.md (not in a deeper folder, not starting with
// "_").
func IsAgentFile(p string) bool {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	return (dir == ".gemini/agents" || strings.HasSuffix(dir, "/.gemini/agents")) && strings.HasSuffix(base, ".md") && !strings.HasPrefix(base, "_")
}

// agentFrontmatter is Gemini's FRONTMATTER_REGEX.
var agentFrontmatter = regexp.MustCompile(`^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)`)

// agentName is the name schema's slug.
var agentName = regexp.MustCompile(`^[a-z0-9-_]+$`)

// localKeys and remoteKeys are the keys Gemini's strict schemas accept.
var (
	localKeys  = map[string]bool{"kind": true, "name": true, "description": true, "display_name": true, "tools": true, "mcp_servers": true, "model": true, "temperature": true, "max_turns": true, "timeout_mins": true}
	remoteKeys = map[string]bool{"kind": true, "name": true, "description": true, "display_name": true, "auth": true, "agent_card_url": true, "agent_card_json": true}
)

// ReadAgent reads one version of a subagent file: its MCP servers, the
// trust each has, and a remote agent's card as settings. A file Gemini
// would refuse (no frontmatter, not YAML, a key its schema does not
// accept) is a ParseError: Gemini skips the agent, and a reviewer should
// see why.
func ReadAgent(file string, data []byte) (*agent.Doc, error) {
	d := &agent.Doc{File: file}
	m := agentFrontmatter.FindSubmatchIndex(data)
	if m == nil {
		return nil, &agent.ParseError{File: file, Line: 1, Col: 1, Msg: "Gemini CLI refuses a subagent file without YAML frontmatter (a first line of ---, closed by another)"}
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data[m[2]:m[3]], &n); err != nil {
		return nil, &agent.ParseError{File: file, Line: 2, Col: 1, Msg: "the frontmatter is not YAML: " + err.Error(),
			MayStillGrant: strings.Contains(err.Error(), "exceeded max depth")}
	}
	if len(n.Content) == 0 {
		return nil, &agent.ParseError{File: file, Line: 2, Col: 1, Msg: "the frontmatter is empty: Gemini CLI refuses the subagent (it needs a name and a description)"}
	}
	root := n.Content[0]
	var defs []*yaml.Node
	switch root.Kind {
	case yaml.MappingNode:
		defs = []*yaml.Node{root}
	case yaml.SequenceNode:
		// A list of remote agents.
		defs = root.Content
	default:
		return nil, &agent.ParseError{File: file, Line: root.Line + 1, Col: root.Column, Msg: "the frontmatter is neither a mapping nor a list of remote agents: Gemini CLI refuses the file"}
	}
	for _, def := range defs {
		if err := readAgentDef(d, file, def, root.Kind == yaml.SequenceNode); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func readAgentDef(d *agent.Doc, file string, def *yaml.Node, listed bool) error {
	if def.Kind != yaml.MappingNode {
		return &agent.ParseError{File: file, Line: def.Line + 1, Col: def.Column, Msg: "a subagent definition is not a mapping: Gemini CLI refuses the file"}
	}
	get := func(k string) *yaml.Node {
		for i := 0; i+1 < len(def.Content); i += 2 {
			if def.Content[i].Value == k {
				return def.Content[i+1]
			}
		}
		return nil
	}
	name := "?"
	if v := get("name"); v != nil {
		name = v.Value
	}
	remote := listed
	if k := get("kind"); k != nil {
		remote = k.Value == "remote"
	} else if get("agent_card_url") != nil || get("agent_card_json") != nil {
		remote = true
	}
	keys := localKeys
	if remote {
		keys = remoteKeys
	}
	for i := 0; i+1 < len(def.Content); i += 2 {
		if k := def.Content[i]; !keys[k.Value] {
			return &agent.ParseError{File: file, Line: k.Line + 1, Col: k.Column,
				Msg: fmt.Sprintf("%s is not a key of a %s subagent: Gemini CLI's schema is strict and refuses the agent", k.Value, map[bool]string{true: "remote", false: "local"}[remote])}
		}
	}
	if v := get("name"); v == nil || !agentName.MatchString(v.Value) {
		return &agent.ParseError{File: file, Line: def.Line + 1, Col: def.Column, Msg: "a subagent needs a name of lower-case letters, digits, - and _: Gemini CLI refuses it"}
	}
	if v := get("description"); !remote && (v == nil || v.Value == "") {
		return &agent.ParseError{File: file, Line: def.Line + 1, Col: def.Column, Msg: "a local subagent needs a description: Gemini CLI refuses it"}
	}
	pos := func(v *yaml.Node) agent.Pos { return agent.Pos{File: file, Line: v.Line + 1, Col: v.Column} }
	if remote {
		card, where := get("agent_card_url"), "agent_card_url"
		if card == nil {
			card, where = get("agent_card_json"), "agent_card_json"
		}
		if card == nil {
			return &agent.ParseError{File: file, Line: def.Line + 1, Col: def.Column, Msg: "a remote subagent needs agent_card_url or agent_card_json: Gemini CLI refuses it"}
		}
		val := card.Value
		if where == "agent_card_json" {
			val = "(an inline agent card)"
		}
		d.Settings = append(d.Settings, agent.Setting{Key: "remote agent " + name, Value: val, Pos: pos(card), Grant: 1, Check: agent.CheckEnv,
			Why: "a remote (A2A) subagent: once acknowledged, Gemini CLI fetches its card at startup and sends it the tasks the model delegates (each invocation asks)"})
		return nil
	}
	srvNode := get("mcp_servers")
	if srvNode == nil {
		return nil
	}
	srv, err := agent.YAMLServers(file, srvNode)
	if err != nil {
		return err
	}
	for i := range srv {
		srv[i].Summary += "; started when the model invokes subagent " + name + ", which Gemini's default policy allows"
	}
	d.Servers = append(d.Servers, srv...)
	for i := 0; i+1 < len(srvNode.Content); i += 2 {
		sn, sv := srvNode.Content[i], srvNode.Content[i+1]
		for j := 0; j+1 < len(sv.Content); j += 2 {
			var trusted bool
			if sv.Content[j].Value == "trust" && sv.Content[j+1].Decode(&trusted) == nil && trusted {
				d.Settings = append(d.Settings, agent.Setting{Key: "agent " + name + " mcp_servers." + sn.Value + ".trust", Value: "true", Pos: pos(sv.Content[j]), Grant: 1, Check: agent.CheckAllow,
					Why: "every tool of this MCP server runs without a confirmation when subagent " + name + " calls it (trust in a trusted folder)"})
			}
		}
	}
	return nil
}
