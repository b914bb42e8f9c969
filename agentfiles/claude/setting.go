package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// Canon renders a value as canonical JSON (object keys sorted), the form
// in which two versions of a setting are compared.
func Canon(v *jsonpos.Value) string { return jsonpos.Canon(v) }

// Truthy is JavaScript truthiness of a JSON value (as Claude Code reads a
// switch): false, 0, "", null are falsy.
func Truthy(v *jsonpos.Value) bool {
	switch v.Kind() {
	case jsonpos.Bool:
		return v.Bool()
	case jsonpos.Number:
		r := strings.TrimLeft(v.Raw(), "-")
		return strings.Trim(strings.Split(strings.Split(r, "e")[0], "E")[0], "0.") != ""
	case jsonpos.String:
		return v.Text() != ""
	case jsonpos.Null, jsonpos.Invalid:
		return false
	}
	return true
}

// Setting is one setting's value in one version, with its line.
type Setting struct {
	Value *jsonpos.Value
	Line  int
}

func (s Setting) Present() bool { return s.Value != nil }

// Lookup reads a setting where Claude Code reads it (settingPlace): inside
// `permissions`, at the top level, or — for a key read in both places —
// inside permissions when present there, else at the top level. A key
// written where Claude Code does not read it is not seen (keys.go reports
// it): reading it there too would let a pull request move a setting to a
// dead place, or a lock out of its live one, unseen. inPermissions is kept
// for the callers; the place table decides.
func Lookup(d *Doc, key string, inPermissions bool) Setting {
	if d == nil {
		return Setting{}
	}
	place := settingPlace(key)
	if place != placeTop {
		if perms := d.Root.Get("permissions"); perms.Kind() == jsonpos.Object {
			if m, ok := perms.Lookup(key); ok {
				return Setting{Value: m.Value, Line: m.KeyStart.Line}
			}
		}
	}
	if place == PlacePermissions {
		return Setting{}
	}
	if m, ok := d.Root.Lookup(key); ok {
		return Setting{Value: m.Value, Line: m.KeyStart.Line}
	}
	return Setting{}
}

// Display renders a setting value for a row, bounded and with anything
// secret-shaped masked.
func Display(s Setting) string {
	if !s.Present() {
		return "(not set)"
	}
	var t string
	if s.Value.Kind() == jsonpos.String {
		t = s.Value.Text()
	} else {
		t = Canon(s.Value)
	}
	t = Sanitize(t)
	if len(t) > 200 {
		t = t[:197] + "..."
	}
	return t
}

// LookupOnly reads one key from one object (parent "" = top level).
func LookupOnly(d *Doc, parent, key string) Setting {
	if d == nil {
		return Setting{}
	}
	obj := d.Root
	if parent != "" {
		obj = d.Root.Get(parent)
	}
	if m, ok := obj.Lookup(key); ok {
		return Setting{Value: m.Value, Line: m.KeyStart.Line}
	}
	return Setting{}
}

// Handler is one hook handler, flattened.
type Handler struct {
	Event, Matcher string
	Canon          string
	ident          string // what it runs: type and command or URL
	Summary        string
	Line           int
	Value          *jsonpos.Value
}

// HookHandlers flattens hooks.<Event>[].hooks[] into handlers.
func HookHandlers(d *Doc) map[string][]Handler {
	out := map[string][]Handler{}
	if d == nil {
		return out
	}
	hooks := d.Root.Get("hooks")
	for _, ev := range hooks.Members() {
		groups := ev.Value
		if groups.Kind() != jsonpos.Array {
			out[ev.Key] = append(out[ev.Key], Handler{Event: ev.Key, Canon: Canon(groups), Summary: "an entry that is not a list of matcher groups", Line: ev.KeyStart.Line})
			continue
		}
		for _, g := range groups.Elements() {
			matcher := g.Get("matcher").Text()
			hs := g.Get("hooks")
			if hs.Kind() != jsonpos.Array {
				out[ev.Key] = append(out[ev.Key], Handler{Event: ev.Key, Matcher: matcher, Canon: Canon(g), Summary: "a matcher group without a hooks list", Line: g.Start().Line})
				continue
			}
			for _, h := range hs.Elements() {
				id := matcher + "\x00" + h.Get("type").Text() + "\x00" + h.Get("command").Text() + "\x00" + h.Get("url").Text()
				out[ev.Key] = append(out[ev.Key], Handler{Event: ev.Key, Matcher: matcher, Canon: matcher + "\x00" + Canon(h), ident: id,
					Summary: handlerSummary(h), Line: h.Start().Line, Value: h})
			}
		}
	}
	return out
}

// handlerSummary names what a handler runs without disclosing it: the type,
// the command's first word (or the URL's host), and a digest.
func handlerSummary(h *jsonpos.Value) string {
	typ := h.Get("type").Text()
	if typ == "" {
		typ = "command"
	}
	switch {
	case h.Get("command").Kind() == jsonpos.String:
		return typ + " " + CommandSummary(h.Get("command").Text())
	case h.Get("url").Kind() == jsonpos.String:
		return typ + " " + hostOf(h.Get("url").Text())
	}
	return typ + " handler"
}

// CommandSummary is the program a command runs (its first word after any
// leading VAR=value assignments, which may hold secrets and are shown by
// name only) and a short digest of the whole command.
func CommandSummary(cmd string) string {
	sum := sha256.Sum256([]byte(cmd))
	var assigned []string
	word := ""
	for _, f := range strings.Fields(cmd) {
		if name, _, ok := strings.Cut(f, "="); ok && envName.MatchString(name) {
			assigned = append(assigned, name)
			continue
		}
		word = Sanitize(f)
		break
	}
	s := fmt.Sprintf("`%s`", word)
	if len(assigned) > 0 {
		s += " with " + strings.Join(assigned, ", ") + " set"
	}
	return s + " (sha256 " + hex.EncodeToString(sum[:4]) + ")"
}

// envName is a shell variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an unparsable URL)"
	}
	return u.Hostname()
}

// FieldValue shows a scalar hook field (timeouts, flags); anything else,
// which may carry a command or a secret, only as changed.
func FieldValue(v *jsonpos.Value) string {
	switch v.Kind() {
	case jsonpos.Number, jsonpos.Bool:
		return v.Raw()
	case jsonpos.Invalid:
		return "(not set)"
	}
	return "(a value)"
}

func HookMatcher(m string) string {
	if m == "" {
		return ""
	}
	return " [" + Sanitize(m) + "]"
}

// MCPServers returns the servers of an .mcp.json version by name.
func MCPServers(d *Doc) map[string]jsonpos.Member {
	out := map[string]jsonpos.Member{}
	if d == nil {
		return out
	}
	for _, key := range []string{"mcpServers", "servers"} {
		for _, m := range d.Root.Get(key).Members() {
			out[m.Key] = m
		}
	}
	return out
}

// ServerSummary names a server by its transport and what it runs or
// reaches — the command's first word or the URL's host, never arguments,
// environment values or headers.
func ServerSummary(v *jsonpos.Value) string {
	switch {
	case v.Get("command").Kind() == jsonpos.String:
		if strings.TrimSpace(v.Get("command").Text()) == "" {
			return "stdio (empty command)"
		}
		return "stdio " + strings.SplitN(CommandSummary(v.Get("command").Text()), " (sha256", 2)[0]
	case v.Get("url").Kind() == jsonpos.String:
		return "remote " + hostOf(v.Get("url").Text())
	case v.Get("serverUrl").Kind() == jsonpos.String:
		return "remote " + hostOf(v.Get("serverUrl").Text())
	}
	return "a server without a command or url"
}

// secretShapes are token formats that must never be echoed into a report.
var secretShapes = regexp.MustCompile(`(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abpors]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----)`)

// Sanitize masks token-shaped secrets in text taken from a file.
func Sanitize(s string) string {
	return secretShapes.ReplaceAllStringFunc(s, func(m string) string {
		n := 4
		if len(m) < 8 {
			n = 0
		}
		return m[:n] + "[REDACTED]"
	})
}
