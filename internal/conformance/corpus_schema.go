package conformance

import (
	"encoding/json"
	"strings"

	"github.com/shipgate-app/shipgate/agentfiles/claude/claudeschema"
)

// SchemaClass perturbs the keys of Claude Code's own settings schema (the
// schema pinned from the binary, agentfiles/claude/claudeschema): for a node of it, a
// value of a JSON kind it does not take (a top-level scalar, an object's
// member, a list's entry), a value off an enum's list, or a valid sample,
// written into settings.json and, independently, settings.local.json,
// each beside deny, ask and allow rules of its own. The loads file of
// agentfiles/claude/claudeschema holds the loader's verdict on such documents; this
// class measures what the verdict does to decisions: a dropped file's
// rules are gone, a kept one's apply, exactly where Shipgate says so.
const SchemaClass = "schema-perturb"

func init() {
	// After the rule-reading classes (corpus_rules.go's init runs first),
	// before the witness class: each class draws from the stream of its
	// index, so the other classes' batches do not change.
	last := Classes[len(Classes)-1]
	Classes = append(append(Classes[:len(Classes)-1:len(Classes)-1], SchemaClass), last)
	classWeight[SchemaClass] = 1
}

// schemaRules are each file's rules; every call of the batch tells one
// list of one file apart (deny → ask, ask → allow, allow → ask when the
// file is dropped).
var schemaRules = map[string]struct {
	allow, ask, deny string
	calls            []string
}{
	"project": {"Bash(npm *)", "Bash(ls *)", "Bash(git push:*)", []string{"npm test", "ls src", "git push x"}},
	"local":   {"Bash(make *)", "Bash(cat *)", "Bash(curl:*)", []string{"make x", "cat src/app.go", "curl x"}},
}

// sessionEffects are keys whose valid sample would change the session
// itself rather than its permissions (a helper command run for the API
// key or for credentials, a status line, a model Claude Code refuses, a
// login method the fake API cannot answer, hooks that run a command): the
// class draws only their wrong values, which the loader refuses.
var sessionEffects = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper",
	"proxyAuthHelper", "statusLine", "subagentStatusLine", "fileSuggestion", "hooks", "forceLoginMethod", "forceLoginOrgUUID",
	"forceLoginGatewayUrl", "processWrapper", "defaultShell", "minimumVersion", "requiredMinimumVersion", "requiredMaximumVersion",
	"availableModels", "enforceAvailableModels", "deniedModels", "modelOverrides", "model", "fallbackModel", "advisorModel",
	"policyHelper", "policyHelpers", "sshConfigs", "sshHostCommands", "remote", "worktree", "env", "autoMemoryDirectory", "plansDirectory",
	"claudeMd", "outputStyle", "agent", "language"}

// schemaLevels are the kinds of perturbation, drawn in turn so each is
// sampled whatever the schema's shape.
var schemaLevels = []string{"top-level", "nested", "element", "enum", "valid"}

// perturbationsByLevel is the pinned schema's perturbations, by level.
var perturbationsByLevel = func() map[string][]claudeschema.Perturbation {
	out := map[string][]claudeschema.Perturbation{}
	for _, p := range claudeschema.Pinned().Perturbations() {
		top := strings.FieldsFunc(p.Where, func(r rune) bool { return r == '.' || r == '[' || r == '|' })[0]
		if p.Level == "valid" && contains(sessionEffects, top) {
			continue
		}
		out[p.Level] = append(out[p.Level], p)
	}
	return out
}()

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// schemaBatch draws one batch of the schema class: a perturbation in the
// project file and another in the local file.
func (g *gen) schemaBatch(b *Batch) {
	for _, where := range []string{"project", "local"} {
		ps := perturbationsByLevel[schemaLevels[g.r.IntN(len(schemaLevels))]]
		p := ps[g.r.IntN(len(ps))]
		text := schemaFile(p, where)
		if where == "project" {
			b.Settings.Raw = text
		} else {
			b.Local = &Settings{Raw: text}
		}
		label := where + ":" + p.Level + ":" + p.Where
		for _, c := range schemaRules[where].calls {
			g.bash(b, label, c)
		}
	}
}

// schemaFile is a perturbation's document with the file's rules added to
// its permissions (a list the perturbation itself sets is left as it is;
// a permissions value that is no object is left without rules).
func schemaFile(p claudeschema.Perturbation, where string) string {
	top := map[string]any{}
	for k, v := range p.Doc {
		top[k] = v
	}
	r := schemaRules[where]
	perm, ok := top["permissions"].(map[string]any)
	switch {
	case !ok && top["permissions"] != nil:
	default:
		m := map[string]any{}
		for k, v := range perm {
			m[k] = v
		}
		for k, rule := range map[string]string{"allow": r.allow, "ask": r.ask, "deny": r.deny} {
			if _, set := m[k]; !set {
				m[k] = []string{rule}
			}
		}
		top["permissions"] = m
	}
	data, _ := json.MarshalIndent(top, "", "  ")
	return string(data) + "\n"
}
