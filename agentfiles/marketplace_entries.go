package agentfiles

import (
	"crypto/sha256"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/agent"
	"github.com/shipgate-app/shipgate/jsonpos"
)

// A Claude Code marketplace read entry by entry.
//
// A marketplace (.claude-plugin/marketplace.json) lists plugins; a session
// loads a listed plugin's parts once the user installs and enables it.
// gather reads the files of every entry whose source is a folder of the
// repository (PluginLayouts) and compares them as what the plugin makes of
// them, so an entry added for such a folder brings in the repository only
// what its files hold, and those files are compared as new. The sixth
// round's corpus (wshobson/agents, anthropics/claude-code) flagged 36 pull
// requests for a marketplace whose only change was such an entry, or an
// entry's description, or one of several hundred entries edited: the
// whole file was one hashed value.
//
// marketplaceSettings makes one hook-class setting of each entry, keyed by
// the folder it names (so a plugin renamed in place is a change of its
// entry, reviewed: enabledPlugins and a skill's namespace refer to the
// name) or, for a remote source, by its name; and one of the marketplace's
// own keys. A setting whose value holds nothing but the entry's name (and
// strict: whether a plugin.json must be present) is of Grant 0: added or
// removed it is a quiet row (judge), changed in place it is reviewed. An
// entry with anything else of its own — an inline hook, command or server,
// a remote source, a source or part path Shipgate does not resolve, a key
// it does not know — is of Grant 1: added, changed or removed it is
// reviewed (HOOK-CHANGED), naming the entry and its line; but for an
// entry whose only such part is a remote source, removed (QuietRemoval:
// wshobson/agents 7f2727b52e removed three, reviewed in the seventh
// round's sample).

// marketplaceEntryMeta are the keys of a marketplace entry that describe
// the plugin and load nothing (manifestMetadata, and a listing's labels).
var marketplaceEntryMeta = func() map[string]bool {
	m := map[string]bool{"category": true, "tags": true}
	for _, k := range manifestMetadata {
		m[k] = true
	}
	return m
}()

// marketplaceSettings reads a strict-JSON marketplace at p into its
// settings (ok false when root holds no plugins list: the caller hashes
// the file whole). why says what a marketplace is.
func marketplaceSettings(p string, root *jsonpos.Value, why string) ([]agent.Setting, bool) {
	plugins := root.Get("plugins")
	if plugins != nil && plugins.Kind() != jsonpos.Array {
		return nil, false
	}
	var out []agent.Setting
	// The marketplace's own keys: its name (plugins are enabled as
	// name@marketplace) and metadata.pluginRoot (where bare sources
	// lie) are Grant 0, anything else is read as a grant.
	var b strings.Builder
	own, grant := 0, 0
	b.WriteByte('{')
	for _, m := range root.Members() {
		switch m.Key {
		case "plugins", "owner", "$schema", "description", "version":
			continue
		case "metadata":
			if m.Value.Kind() == jsonpos.Object {
				// Its description and version are metadata; pluginRoot
				// places the plugins (their files are read where it says).
				for _, mm := range m.Value.Members() {
					if marketplaceEntryMeta[mm.Key] {
						continue
					}
					if mm.Key != "pluginRoot" {
						grant = 1
					}
					fmt.Fprintf(&b, "%q:%s,", "metadata."+mm.Key, jsonpos.Canon(mm.Value))
					own++
				}
				continue
			}
		}
		if m.Key != "name" {
			grant = 1
		}
		fmt.Fprintf(&b, "%q:%s,", m.Key, jsonpos.Canon(m.Value))
		own++
	}
	b.WriteByte('}')
	value := fmt.Sprintf("%d keys besides its metadata and plugins, sha256 %x", own, sha256Prefix(b.String()))
	if grant == 0 {
		value = "name " + strconv.Quote(root.Get("name").Text()) + ", nothing else besides its metadata and plugins"
	}
	out = append(out, agent.Setting{Key: "file " + p, Value: value, Pos: agent.Pos{File: p, Line: 1}, Grant: grant, Check: agent.CheckHook,
		Why: why + " (read entry by entry: its own keys here, each plugin it lists as a setting of its own)"})

	// Local entries are keyed by their folder, unless several name one.
	local := map[string]int{}
	roots := map[*jsonpos.Value]string{}
	manifestDir := path.Dir(path.Dir(p))
	if manifestDir == "." {
		manifestDir = ""
	}
	for _, me := range marketplaceEntries(manifestDir, root) {
		if localPartPath("", me.src.Text()) {
			roots[me.obj] = me.root
			local[me.root]++
		}
	}
	seen := map[string]int{}
	for i, e := range plugins.Elements() {
		line := e.Start().Line
		name := e.Get("name").Text()
		if e.Kind() != jsonpos.Object {
			out = append(out, agent.Setting{Key: fmt.Sprintf("plugin #%d of %s", i+1, p), Value: clipJSON(jsonpos.Canon(e)), Pos: agent.Pos{File: p, Line: line},
				Grant: 1, Check: agent.CheckHook, Why: why + " (an entry that is not an object: not read by Shipgate, any change is reviewed)"})
			continue
		}
		key := "plugin " + strconv.Quote(name)
		if r, ok := roots[e]; ok {
			folder := r
			if folder == "" {
				folder = "."
			}
			key = "plugin in " + folder
			if local[r] > 1 {
				key = "plugin " + strconv.Quote(name) + " in " + folder
			}
		}
		if seen[key]++; seen[key] > 1 {
			key += fmt.Sprintf(" (entry %d)", i+1)
		}
		var eb strings.Builder
		var keys []string
		grant := 0
		remote, other := false, false // a source Shipgate does not read; anything else of the entry's own
		eb.WriteByte('{')
		for _, m := range e.Members() {
			if marketplaceEntryMeta[m.Key] {
				continue
			}
			v := jsonpos.Canon(m.Value)
			switch {
			case m.Key == "source" && m.Value.Kind() == jsonpos.String && localPartPath("", m.Value.Text()):
				continue // the folder: its files are read and compared themselves
			case isPluginPart(m.Key):
				local, rest := partPaths(m.Key, m.Value)
				if rest == nil {
					continue // ./ paths: their files are read and compared themselves
				}
				if local > 0 {
					parts := make([]string, len(rest))
					for j, r := range rest {
						parts[j] = jsonpos.Canon(r)
					}
					v = "[" + strings.Join(parts, ",") + "]"
				}
				grant, other = 1, true
			case m.Key == "strict":
				// Whether a plugin.json must be present: an entry added
				// or removed either way loads no more than its files,
				// which are compared; strict switched in place is
				// reviewed (a plugin that did not load may now).
				if m.Value.Kind() != jsonpos.Bool {
					grant, other = 1, true
				} else if m.Value.Bool() {
					continue // the default
				}
			case m.Key == "source":
				grant, remote = 1, true // a remote source, or a path Shipgate does not resolve
			case m.Key != "name":
				grant, other = 1, true
			}
			fmt.Fprintf(&eb, "%q:%s,", m.Key, v)
			keys = append(keys, m.Key)
		}
		eb.WriteByte('}')
		value := fmt.Sprintf("%s besides its metadata and part paths, sha256 %x", strings.Join(keys, ", "), sha256Prefix(eb.String()))
		ewhy := why + " (this entry declares more than its name, folder and the ./ paths of its parts — an inline part, a remote source, another key — which Shipgate does not read: any change is reviewed)"
		if grant == 0 {
			value = "name " + strconv.Quote(name) + ", nothing else besides its metadata, folder and part paths"
			if s := e.Get("strict"); s != nil && s.Kind() == jsonpos.Bool && !s.Bool() {
				value += ", strict false"
			}
			ewhy = why + " (this entry declares nothing but its name, folder and the ./ paths of its parts: the plugin's commands, agents, skills, hooks and servers are read from the files they name, and compared themselves)"
		}
		// An entry whose only grant is its remote source: removing it
		// stops offering the plugin, as removing it from enabledPlugins
		// does (a quiet row); an inline hook or an unknown key removed
		// may take a guard with it, and stays reviewed.
		quietRemoval := remote && !other
		out = append(out, agent.Setting{Key: key + " of " + p, Value: value, Pos: agent.Pos{File: p, Line: line}, Grant: grant, Check: agent.CheckHook, Why: ewhy,
			QuietRemoval: quietRemoval})
	}
	return out, true
}

// sha256Prefix is the first 8 bytes of s's SHA-256.
func sha256Prefix(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:8]
}

// clipJSON shortens a canonical JSON text for a setting's value.
func clipJSON(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
