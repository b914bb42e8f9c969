package judge

import (
	"encoding/json"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/shipgate-app/shipgate/rating"
)

// mcpEffect is what a changed MCP server entry runs or reaches that it did
// not before, part by part. A part is quiet when it provably runs no new
// code and reaches no new host; every other part is held for review.
type mcpEffect struct {
	review []string // parts that may run other code or reach another host
	quiet  []string // parts that do neither (said once, advisory)
}

// runsNothingNew reports whether every changed part is quiet: the change
// is then advisory, not a review.
func (m mcpEffect) runsNothingNew() bool { return len(m.review) == 0 && len(m.quiet) > 0 }

// mcpChangeEffect judges a changed MCP server by what it runs and reaches
// (issue 22): base and head are the entry's JSON text (a .mcp.json,
// .cursor/mcp.json, .vscode/mcp.json, opencode.json or Gemini CLI entry,
// or a Codex mcp_servers table as JSON). One rule for every agent:
//
//   - a variable of env (OpenCode: environment) added, changed or removed
//     is quiet unless its name changes what code runs or where traffic goes
//     (rating.Env: NODE_OPTIONS, LD_PRELOAD, PATH, PYTHONPATH, proxies, …;
//     and loadsCode: NODE_PATH, PYTHONHOME, JAVA_TOOL_OPTIONS, HOME, GIT_*,
//     registries, …) or its value is a URL on another host than before (the
//     server may send its credentials there);
//   - a URL (url, httpUrl, serverUrl) whose scheme, user and host:port stay
//     the same is quiet (a path or query on the same host);
//   - command and args are quiet only when they differ by an `@latest`
//     written on the package `npx` runs: an unpinned name already resolves
//     to the newest release, so `mcp-remote` and `mcp-remote@latest` run
//     the same package. A pinned version changed, another package, another
//     option (`-y` lets npx install what it would have asked about) or
//     another argument is a review;
//   - every other key (type, headers, cwd, trust, autoApprove, envFile,
//     disabled, …) is a review: fail closed.
//
// Entries that are not JSON objects are reviewed whole.
func mcpChangeEffect(base, head string) mcpEffect {
	b, ok1 := decodeObject(base)
	h, ok2 := decodeObject(head)
	if !ok1 || !ok2 {
		return mcpEffect{review: []string{"the whole entry"}}
	}
	if host, ok := bridgedToSameHost(b, h); ok {
		return mcpEffect{quiet: []string{"a stdio server whose arguments name " + host + " replaced by a connection to that host (nothing runs on the machine any more)"}}
	}
	var m mcpEffect
	keys := map[string]bool{}
	for k := range b {
		keys[k] = true
	}
	for k := range h {
		keys[k] = true
	}
	cmdDone := false
	for _, k := range sortedKeys(keys) {
		bv, hv := b[k], h[k]
		if reflect.DeepEqual(bv, hv) {
			continue
		}
		switch k {
		case "env", "environment":
			m.env(k, bv, hv)
		case "url", "httpUrl", "serverUrl":
			switch {
			case sameHost(bv, hv) && sameEndpoint(bv, hv):
				hu, _ := url.Parse(strings.TrimSpace(hv.(string)))
				m.quiet = append(m.quiet, k+": the same server on "+hu.Host+" through another transport endpoint")
			case sameHost(bv, hv):
				m.review = append(m.review, k+": another path on the same host (one host may serve many servers)")
			default:
				m.review = append(m.review, k+": another host or scheme")
			}
		case "command", "args":
			if cmdDone {
				continue
			}
			cmdDone = true
			if pkg, ok := sameNpxPackage(b, h); ok {
				m.quiet = append(m.quiet, "command: "+pkg+" and "+pkg+"@latest are the same unpinned package under npx")
			} else {
				m.review = append(m.review, "command or args: may run other code")
			}
		default:
			m.review = append(m.review, k)
		}
	}
	return m
}

// bridgedToSameHost reports a stdio bridge replaced by the remote server it
// forwarded to (`npx -y mcp-remote https://mcp.example.dev/sse` →
// `"url": "https://mcp.example.dev/mcp"`): the head runs no command at all
// and reaches no server the base did not: the same URL, or one that
// differs only in its transport endpoint (one host may serve many servers,
// so another path is not the same server). The base must run a known
// bridge (bridgeTarget), whose tools are the remote server's own: a local
// server that merely takes a URL argument (`node server.js --upstream
// https://api.example.dev`) has tools of its own, and the remote server on
// that host may offer others, so its replacement stays a review. The head
// may hold only a transport type and the URL; headers, env or anything
// else keep it a review.
func bridgedToSameHost(b, h map[string]any) (string, bool) {
	if _, ok := b["command"]; !ok {
		return "", false
	}
	var hu any
	for k, v := range h {
		switch k {
		case "type", "transport":
		case "url", "httpUrl", "serverUrl":
			if hu != nil {
				return "", false
			}
			hu = v
		default:
			return "", false
		}
	}
	words, ok := commandWords(b)
	if !ok || hu == nil {
		return "", false
	}
	w, ok := bridgeTarget(words)
	if !ok || !strings.Contains(w, "://") || !sameHost(w, hu) || (w != hu && !sameEndpoint(w, hu)) {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(w))
	if err != nil {
		return "", false
	}
	return u.Host, true
}

// bridgeTarget returns the URL a stdio-to-remote bridge connects to, when
// words run one: mcp-remote, installed (`mcp-remote URL …`) or run by npx
// or bunx (`npx [-y|--yes] mcp-remote[@version] URL …`); its first
// positional argument is the server's URL and the tools it serves are
// that server's. Anything else (another package, an npx option that
// picks another package, a URL in another position) is not a bridge:
// fail closed. Other bridges (supergateway, mcp-proxy) read their
// arguments in modes of their own and are not recognised.
func bridgeTarget(words []string) (string, bool) {
	i := 0
	switch path.Base(words[0]) {
	case "mcp-remote":
	case "npx", "npx.cmd", "bunx":
		i = 1
		for i < len(words) && (words[i] == "-y" || words[i] == "--yes") {
			i++
		}
		if i >= len(words) {
			return "", false
		}
		name, _, _ := strings.Cut(words[i], "@")
		if name != "mcp-remote" {
			return "", false
		}
	default:
		return "", false
	}
	if i+1 >= len(words) {
		return "", false
	}
	return words[i+1], true
}

// decodeObject reads a JSON object, refusing a key written twice at any
// depth: which one an agent keeps is the agent's reading, not ours, so
// such an entry is reviewed whole.
func decodeObject(text string) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(text))
	v, ok := decodeValue(d, 0)
	if !ok {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false // trailing text
	}
	o, isObj := v.(map[string]any)
	return o, isObj
}

// decodeValue reads one JSON value from d, objects checked for duplicate
// keys, nesting bounded.
func decodeValue(d *json.Decoder, depth int) (any, bool) {
	if depth > 32 {
		return nil, false
	}
	t, err := d.Token()
	if err != nil {
		return nil, false
	}
	switch t {
	case json.Delim('{'):
		o := map[string]any{}
		for d.More() {
			kt, err := d.Token()
			k, isKey := kt.(string)
			if err != nil || !isKey {
				return nil, false
			}
			if _, dup := o[k]; dup {
				return nil, false
			}
			v, ok := decodeValue(d, depth+1)
			if !ok {
				return nil, false
			}
			o[k] = v
		}
		if _, err := d.Token(); err != nil {
			return nil, false
		}
		return o, true
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, ok := decodeValue(d, depth+1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		if _, err := d.Token(); err != nil {
			return nil, false
		}
		return a, true
	case json.Delim('}'), json.Delim(']'):
		return nil, false
	}
	return t, true
}

// env judges a changed env block variable by variable.
func (m *mcpEffect) env(key string, bv, hv any) {
	bm, bok := asMap(bv)
	hm, hok := asMap(hv)
	if !bok || !hok {
		m.review = append(m.review, key+": not an object")
		return
	}
	names := map[string]bool{}
	for n := range bm {
		names[n] = true
	}
	for n := range hm {
		names[n] = true
	}
	for _, n := range sortedKeys(names) {
		if reflect.DeepEqual(bm[n], hm[n]) {
			continue
		}
		if rt, _ := rating.Env(n); rt.Risk == rating.RiskHigh {
			m.review = append(m.review, key+" "+n+" ("+rt.Basis+")")
			continue
		}
		if loadsCode(n) {
			m.review = append(m.review, key+" "+n+" (may change what code the server loads or runs)")
			continue
		}
		hs, _ := hm[n].(string)
		bs, _ := bm[n].(string)
		if strings.Contains(hs, "://") && !sameHost(bs, hs) {
			m.review = append(m.review, key+" "+n+" (a URL on another host: the server may send what it holds there)")
			continue
		}
		// A variable that loads no code can still change what the server
		// does: READ_ONLY removed, a toolset or an allowed folder widened,
		// a credential given (a ${VAR} reference hands the server the
		// user's own). Its tools may run without a prompt under rules
		// Shipgate cannot see (user settings, a local "don't ask again"),
		// so only a value that configures nothing is quiet: a placeholder
		// set, or a placeholder removed.
		verb, v := "changed to a placeholder", hm[n]
		switch {
		case bm[n] == nil:
			verb = "set to a placeholder"
		case hm[n] == nil:
			verb, v = "removed (it held a placeholder)", bm[n]
		}
		if !envPlaceholder(v) || (hm[n] != nil && bm[n] != nil && !envPlaceholder(bm[n])) {
			m.review = append(m.review, key+" "+n+" (its value may change what the server does)")
			continue
		}
		m.quiet = append(m.quiet, key+" "+n+" "+verb)
	}
}

// envPlaceholderWords mark a value written to be replaced: it configures
// nothing until someone does (GROQ_API_KEY_HERE, your-token, <key>).
var envPlaceholderWords = []string{"YOUR", "_HERE", "-HERE", " HERE", "HERE_", "XXX", "CHANGEME", "CHANGE_ME", "CHANGE-ME", "REPLACE", "PLACEHOLDER", "TODO", "INSERT_", "INSERT-", "INSERT "}

// envPlaceholder reports whether an env value configures nothing: empty,
// a <…> or […] slot, one character repeated (xxxx, ****), or text
// naming itself a placeholder. A ${VAR} reference is not one: it hands
// the server the user's own variable.
func envPlaceholder(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.TrimSpace(s)
	if s == "" || (strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") && !strings.ContainsAny(s[1:len(s)-1], "<>$")) ||
		(strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && !strings.ContainsAny(s[1:len(s)-1], "[]$")) {
		return true
	}
	if strings.ContainsAny(s, "$`{}") {
		return false
	}
	if strings.Count(s, s[:1]) == len(s) && len(s) >= 3 {
		return true
	}
	if strings.ContainsAny(s, "/\\:=,;") {
		// A path, URL or list names something real even when a word of
		// it reads like a placeholder (/home/you/your-projects).
		return false
	}
	u := strings.ToUpper(s)
	for _, w := range envPlaceholderWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// transportEndpoints are the last path segments by which one MCP server
// offers its transports (SSE and streamable HTTP): /sse and /mcp on the
// same host and folder are the same server.
var transportEndpoints = map[string]bool{"sse": true, "mcp": true, "message": true, "messages": true, "stream": true, "http": true}

// sameEndpoint reports whether two URLs on one host name the same server
// through its transport endpoints: the same path but for a last segment
// that is a transport endpoint on both, and the same query.
func sameEndpoint(a, b any) bool {
	as, _ := a.(string)
	bs, _ := b.(string)
	au, err1 := url.Parse(strings.TrimSpace(as))
	bu, err2 := url.Parse(strings.TrimSpace(bs))
	if err1 != nil || err2 != nil || au.RawQuery != bu.RawQuery || au.Fragment != bu.Fragment {
		return false
	}
	ad, af := path.Split(strings.TrimSuffix(au.EscapedPath(), "/"))
	bd, bf := path.Split(strings.TrimSuffix(bu.EscapedPath(), "/"))
	return ad == bd && transportEndpoints[strings.ToLower(af)] && transportEndpoints[strings.ToLower(bf)]
}

// codeEnvNames and codeEnvPrefixes are variables, beyond rating.Env's
// list, that change which code a server's interpreter, package manager or
// shell loads or runs: module and library paths, runtime options, package
// registries and indexes, the home and config folders tools read their
// dotfiles from, and the commands tools start (pager, editor).
var codeEnvNames = map[string]bool{
	"HOME": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true, "ZDOTDIR": true, "SHELL": true, "SHELLOPTS": true, "BASHOPTS": true,
	"PROMPT_COMMAND": true, "PS4": true, "IFS": true, "CLASSPATH": true, "DOTNET_STARTUP_HOOKS": true, "ELECTRON_RUN_AS_NODE": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "BROWSER": true, "TMPDIR": true, "RUSTFLAGS": true, "RUSTC_WRAPPER": true,
	"CC": true, "CXX": true, "LDFLAGS": true, "CFLAGS": true, "MAKEFLAGS": true,
}

var codeEnvPrefixes = []string{"LD_", "DYLD_", "NODE_", "NPM_", "YARN_", "PNPM_", "BUN_", "DENO_", "PYTHON", "PIP_", "UV_", "POETRY_",
	"CONDA", "VIRTUAL_ENV", "GIT_", "RUBY", "GEM_", "BUNDLE_", "PERL", "JAVA", "JDK_", "_JAVA", "MAVEN_", "GRADLE_", "CARGO_", "GO",
	"LUA_", "PHP", "COMPOSER_", "R_LIBS", "R_PROFILE", "JULIA_", "DOCKER_", "KUBECONFIG"}

// loadsCode reports whether an env variable may change which code runs
// (NODE_ENV, a mode the same code reads, does not).
func loadsCode(name string) bool {
	u := strings.ToUpper(name)
	if u == "NODE_ENV" {
		return false
	}
	if codeEnvNames[u] {
		return true
	}
	for _, p := range codeEnvPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// asMap reads an absent value as an empty object.
func asMap(v any) (map[string]any, bool) {
	if v == nil {
		return map[string]any{}, true
	}
	o, ok := v.(map[string]any)
	return o, ok
}

// sameHost reports whether two URLs (strings) have the same scheme, user
// and host:port, with no expansion in any of them.
func sameHost(a, b any) bool {
	as, aok := a.(string)
	bs, bok := b.(string)
	if !aok || !bok {
		return false
	}
	au, err1 := url.Parse(strings.TrimSpace(as))
	bu, err2 := url.Parse(strings.TrimSpace(bs))
	if err1 != nil || err2 != nil || au.Host == "" {
		return false
	}
	for _, s := range []string{au.Scheme, au.Host, au.User.String()} {
		if strings.ContainsAny(s, "${}%") {
			return false
		}
	}
	return strings.EqualFold(au.Scheme, bu.Scheme) && strings.EqualFold(au.Host, bu.Host) && au.User.String() == bu.User.String()
}

// sameNpxPackage reports whether two entries run npx on the same unpinned
// package, written once as NAME and once as NAME@latest, with every other
// word of command and args the same. It returns the package's name.
func sameNpxPackage(b, h map[string]any) (string, bool) {
	bw, ok1 := commandWords(b)
	hw, ok2 := commandWords(h)
	if !ok1 || !ok2 || len(bw) != len(hw) || len(bw) < 2 {
		return "", false
	}
	if p := path.Base(bw[0]); p != "npx" && p != "npx.cmd" || bw[0] != hw[0] {
		return "", false
	}
	pi := -1
	for i := 1; i < len(bw); i++ {
		w := bw[i]
		if w == "-p" || w == "--package" || strings.HasPrefix(w, "--package=") || w == "-c" || w == "--call" || w == "--" {
			return "", false // npx runs a package other than the first word
		}
		if !strings.HasPrefix(w, "-") {
			pi = i
			break
		}
	}
	if pi < 0 {
		return "", false
	}
	for i := range bw {
		if i != pi && bw[i] != hw[i] {
			return "", false
		}
	}
	bn, bLatest := unLatest(bw[pi])
	hn, hLatest := unLatest(hw[pi])
	if bn != hn || bLatest == hLatest || !npmName.MatchString(bn) {
		return "", false
	}
	return bn, true
}

// npmName is a registry package name, scoped or not: no version, tag,
// path, URL or expansion.
var npmName = regexp.MustCompile(`^(@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$`)

// unLatest strips an @latest from a package spec.
func unLatest(spec string) (string, bool) {
	if n, ok := strings.CutSuffix(spec, "@latest"); ok && n != "" && !strings.HasSuffix(n, "/") && strings.Count(n, "@") <= 1 {
		return n, true
	}
	return spec, false
}

// commandWords is an entry's command and args as one list of words: a
// string command split on spaces, an array command (OpenCode) as is.
func commandWords(e map[string]any) ([]string, bool) {
	var out []string
	switch c := e["command"].(type) {
	case string:
		out = strings.Fields(c)
	case []any:
		for _, x := range c {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
	default:
		return nil, false
	}
	switch a := e["args"].(type) {
	case nil:
	case []any:
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
	default:
		return nil, false
	}
	return out, len(out) > 0
}

// quietWhy says, once, why a changed server runs nothing new.
func (m mcpEffect) quietWhy() string {
	q := append([]string(nil), m.quiet...)
	sort.Strings(q)
	return "runs no new code and reaches no new host: " + strings.Join(q, "; ")
}
