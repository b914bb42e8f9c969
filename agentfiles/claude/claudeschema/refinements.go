package claudeschema

import (
	"fmt"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// Refinements: zod checks a few settings with functions JSON Schema
// cannot state (the extractor marks such a node "x-refined"). Where one
// fails, the loader drops the whole file, unless a pre-filter removed the
// value first. Validate reads each refined node in one of three ways:
//
//   - kept: the refinement never drops the file. For a string node the
//     extractor measured it ("x-refine-kept": every breaking value it
//     tried — blanks, separators, "..", NUL, non-ASCII, inner wildcards,
//     URLs, paths — was kept); for an object node the table below says
//     why (the loader ignores an invalid entry with a warning, or does
//     not read the key from a project file), each held by probes in the
//     loads file.
//   - modelled: the table below checks what the binary checks (measured
//     on the probes and on the loader's own messages).
//   - anything else: Shipgate cannot run the check, so a value there is
//     an Uncertain violation and the file is compared as dropped (fail
//     closed: a head that may lose its denials is a deny removal; a base
//     that may have been ignored granted nothing).
//
// A new refined node in a new Claude Code version is therefore Uncertain
// until someone reads it, never silently accepted.

// refinement is Shipgate's reading of one refined node.
type refinement struct {
	// kept: the loader removes or ignores a value failing the check; the
	// file stays.
	kept bool
	// entries: the node is a record whose invalid entries the loader
	// ignores, keeping the file, unless the entry's source is of no known
	// kind (measured on the probes under it).
	entries bool
	// unread: the loader deletes the key from a project or local file
	// before it validates the file.
	unread bool
	// check returns what the value must be when it fails the binary's
	// check, or "".
	check func(v *jsonpos.Value) string
	// why is the measurement behind the reading.
	why string
}

// refinements are keyed by where (the loads file's names for nodes).
var refinements = map[string]*refinement{
	// Entry filters: an invalid entry is ignored with a warning
	// ("Invalid marketplace entry was ignored", "Invalid entry was
	// ignored"); the file is read.
	"extraKnownMarketplaces": {kept: true, entries: true, why: "an invalid entry (its key not its settings source's name, a value its schema refuses) is ignored with a warning; an unknown kind of source drops the file"},
	"additionalMarketplaces": {kept: true, entries: true, why: "an invalid entry (its key not its settings source's name, a value its schema refuses) is ignored with a warning; an unknown kind of source drops the file"},
	"allowedMcpServers[]":    {kept: true, why: "an entry naming more or less than one of serverName, serverCommand, serverUrl is ignored with a warning"},
	"deniedMcpServers[]":     {kept: true, why: "an entry naming more or less than one of serverName, serverCommand, serverUrl is ignored with a warning"},
	// Not read from a project file: the loader deletes the key first
	// (managedMcpServers: "only honored from managed settings") or
	// ignores policyHelpers there (every probe of it, wrong types
	// included, is kept).
	"managedMcpServers":                     {unread: true, why: `the key is removed from a project or local file before validation ("only honored from managed settings")`},
	"policyHelpers.default":                 {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.linux":                   {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.macos":                   {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.windows":                 {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.wsl":                     {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.linux.defaultSettings":   {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.macos.defaultSettings":   {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.windows.defaultSettings": {kept: true, why: "not read from a project or local file (every probe kept)"},
	"policyHelpers.wsl.defaultSettings":     {kept: true, why: "not read from a project or local file (every probe kept)"},
	// Modelled.
	"sandbox.network.allowMachLookup[]":    {check: trailingWildcardOnly, why: `"Wildcards are only allowed as a single trailing \"*\""`},
	"sandbox.credentials":                  {check: distinctAWSVars, why: `"appears in more than one awsPairs slot (within or across pairs)"`},
	"sandbox.credentials.awsPairs[]":       {kept: true, why: "its members' distinctness is checked with every pair's, at sandbox.credentials"},
	"strictKnownMarketplaces[]|.plugins[]": {check: remotePluginSource, why: `"Plugins in a settings-sourced marketplace must use remote sources"`},
	"allowedMarketplaces[]|.plugins[]":     {check: remotePluginSource, why: `"Plugins in a settings-sourced marketplace must use remote sources"`},
	"blockedMarketplaces[]|.plugins[]":     {check: remotePluginSource, why: `"Plugins in a settings-sourced marketplace must use remote sources"`},
}

// place names every node below n as the loads file does and attaches its
// reading.
func place(n *node, where string) {
	if n == nil {
		return
	}
	n.where = where
	n.refine = refinements[where]
	for k, c := range n.props {
		place(c, where+"."+k)
	}
	place(n.items, where+"[]")
	place(n.additional, where+".*")
	for _, a := range n.anyOf {
		place(a, where+"|")
	}
}

// checkRefinement appends the violation of a refined node's check, if
// any: a modelled check's failure, or Uncertain where Shipgate cannot
// run it.
func checkRefinement(n *node, v *jsonpos.Value, path string, out *[]*Violation) {
	if !n.refined || n.refineKept {
		return
	}
	st := v.Start()
	switch r := n.refine; {
	case r != nil && r.kept:
	case r != nil && r.check != nil:
		if want := r.check(v); want != "" {
			*out = append(*out, &Violation{Path: path, Line: st.Line, Column: st.Column, Expected: want, Got: describe(v)})
		}
	default:
		*out = append(*out, &Violation{Path: path, Line: st.Line, Column: st.Column, Expected: "a value Claude Code's own check (a zod refinement Shipgate does not model) accepts", Got: describe(v), Uncertain: true})
	}
}

// unknownSource reports whether a marketplace entry's source names a
// kind of source no branch of the entry's schema defines (the one entry
// error that drops the file).
func unknownSource(entry *node, v *jsonpos.Value) bool {
	src := v.Get("source")
	if src == nil || src.Kind() != jsonpos.Object {
		return false
	}
	kind := src.Get("source")
	if kind == nil || kind.Kind() != jsonpos.String || entry == nil || entry.props["source"] == nil {
		return false
	}
	for _, alt := range entry.props["source"].anyOf {
		if d := alt.props["source"]; d != nil && d.hasConst && equal(d.constant, kind) {
			return false
		}
	}
	return true
}

// trailingWildcardOnly: a Mach service name may end in one "*" and hold
// no other.
func trailingWildcardOnly(v *jsonpos.Value) string {
	if v.Kind() != jsonpos.String {
		return ""
	}
	if strings.Contains(strings.TrimSuffix(v.Text(), "*"), "*") {
		return `a name with at most one "*", at its end`
	}
	return ""
}

// distinctAWSVars: every variable named in sandbox.credentials.awsPairs
// fills one slot of one pair.
func distinctAWSVars(v *jsonpos.Value) string {
	pairs := v.Get("awsPairs")
	if pairs == nil || pairs.Kind() != jsonpos.Array {
		return ""
	}
	seen := map[string]bool{}
	for _, p := range pairs.Elements() {
		if p.Kind() != jsonpos.Object {
			continue
		}
		for _, k := range []string{"accessKeyIdVar", "secretAccessKeyVar", "sessionTokenVar"} {
			x := p.Get(k)
			if x == nil || x.Kind() != jsonpos.String {
				continue
			}
			if seen[x.Text()] {
				return fmt.Sprintf("awsPairs that name each variable once (%q fills two slots)", x.Text())
			}
			seen[x.Text()] = true
		}
	}
	return ""
}

// remotePluginSource: a plugin declared inline in a settings-sourced
// marketplace has a remote source (an object), not a relative path.
func remotePluginSource(v *jsonpos.Value) string {
	if v.Kind() != jsonpos.Object {
		return ""
	}
	if s := v.Get("source"); s != nil && s.Kind() == jsonpos.String {
		return "a plugin entry with a remote source (github, git-subdir, npm, url, …), not a path"
	}
	return ""
}
