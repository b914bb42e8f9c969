package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// ToolUse is one tool call the fake model asks Claude Code to make.
type ToolUse struct {
	// ID is the tool_use id; the tool_result that answers it carries it.
	ID string
	// Name is the tool ("Bash", "Read", "Edit", "Write").
	Name string
	// Input is the tool's input object, marshalled as given.
	Input map[string]any
}

// fakeAPI is a fake of the Anthropic Messages API on loopback, just enough
// for Claude Code in print mode: the first request of the conversation (the
// one that offers tools and carries no tool_result) is answered, streamed
// over server-sent events, with every tool call of the batch in one
// assistant message; the next request carries the tool_result blocks,
// which are recorded, and is answered with a short text that ends the
// turn. Any other request (a side query without tools, a token count) gets
// a short text answer so nothing Claude Code asks on the side can stall it.
//
// With a warm-up call (an MCP session) the fake takes two turns or more:
// the first answer is the warm-up call alone, and the batch follows in the
// answer to the request that carries the warm-up's result, once every stub
// MCP tool is in the request's tool list (Claude Code connects MCP servers
// only after the model's first answer); until then, up to maxWarmups
// times, it asks for the warm-up call again.
//
// The fake also plays Claude Code's auto-mode classifier, which runs on
// the server: Claude Code 2.1.328 asks for it in the Messages request (the
// dangerous-tool-use beta header and a "safeguards" field naming the
// permission mode and the rules) and reads its verdicts from the streamed
// answer's message_delta ("safeguard_results": one verdict a tool_use id).
// With no verdict (NoClassifier, the default) it refuses a call only the
// classifier may allow ("Auto mode is unavailable: its safety check does not run for this
// session"). With ClassifierApproves every tool call of the batch is
// judged not dangerous, so a session measures what runs when the
// classifier lets it.
type fakeAPI struct {
	srv  *http.Server
	ln   net.Listener
	uses []ToolUse
	warm *ToolUse // the harmless first call, nil for one turn
	// warmOnce sends the batch after the first warm-up's result, MCP
	// tools offered or not (a call that must run before the batch, such
	// as a skill whose approvals the batch relies on).
	warmOnce bool
	// sub are the calls sent, once, in answer to a subagent's first
	// request (subagentRequest); nil for none.
	sub []ToolUse

	mu       sync.Mutex
	verdict  ClassifierVerdict // the classifier's verdict on every call sent
	results  map[string]string // tool_use_id -> the result's text
	errs     map[string]bool   // tool_use_id -> is_error was set
	toolList []string          // tool names offered in the first request
	served   bool              // the batch has been sent
	subTools []string          // tool names offered to the subagent
	subSent  bool              // sub has been sent
	warmups  int               // warm-up calls sent
	pending  string            // the id of the warm-up call awaiting its result
	requests int
	log      []string // one line per request, for a failing session's report
}

// ClassifierVerdict is what the fake's auto-mode classifier says of every
// tool call of a session.
type ClassifierVerdict string

const (
	// NoClassifier gives no verdict, as Claude Code sees offline.
	NoClassifier ClassifierVerdict = ""
	// ClassifierApproves judges every call not dangerous ("not_flagged").
	ClassifierApproves ClassifierVerdict = "approve"
)

// newFakeAPI starts the fake on a loopback port.
func newFakeAPI(uses []ToolUse, warm *ToolUse) (*fakeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake Messages API: listen on loopback: %w", err)
	}
	f := &fakeAPI{ln: ln, uses: uses, warm: warm, results: map[string]string{}, errs: map[string]bool{}}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln) //nolint:errcheck // ends with Close
	return f, nil
}

// setClassifier sets the classifier's verdict on every call the fake
// sends from now on.
func (f *fakeAPI) setClassifier(v ClassifierVerdict) {
	f.mu.Lock()
	f.verdict = v
	f.mu.Unlock()
}

// URL is the base URL to give Claude Code as ANTHROPIC_BASE_URL.
func (f *fakeAPI) URL() string { return "http://" + f.ln.Addr().String() }

// Close stops the server.
func (f *fakeAPI) Close() { f.srv.Close() }

// request is the part of a Messages API request the fake reads.
type request struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// block is one content block of a message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	f.mu.Lock()
	f.requests++
	f.log = append(f.log, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			writeJSON(w, map[string]any{"input_tokens": 1})
			return
		}
		writeJSON(w, map[string]any{})
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	results := f.record(req)
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	f.mu.Lock()
	var send []ToolUse
	batch := false
	switch {
	case f.sub != nil && !f.subSent && !results && len(req.Tools) > 0 && subagentRequest(req):
		send = f.sub
		f.subSent = true
		f.subTools = tools
	case f.served || len(req.Tools) == 0:
	case f.warm == nil:
		batch = !results
	case f.warmups == 0:
		if !results {
			send = f.warmUp()
		}
	default:
		if _, ok := f.results[f.pending]; ok {
			if f.warmOnce || mcpToolsOffered(tools) || f.warmups >= maxWarmups {
				batch = true
			} else {
				send = f.warmUp()
			}
		}
	}
	if batch {
		send = f.uses
		f.served = true
		f.toolList = tools
	}
	f.log = append(f.log, fmt.Sprintf("  tools=%d results=%v sent=%d", len(tools), results, len(send)))
	f.mu.Unlock()
	if len(send) > 0 {
		f.respond(w, req.Stream, nil, send)
		return
	}
	f.respond(w, req.Stream, []string{"done"}, nil)
}

// subagentMarker starts the prompt the harness gives a subagent (the
// Agent call's input), so the fake tells the subagent's conversation from
// the session's own, whose prompt is "go".
const subagentMarker = "SHIPGATE-SUBAGENT"

// subagentRequest reports whether a request is of a subagent's
// conversation: its first message, the user's, is the Agent call's prompt.
func subagentRequest(req request) bool {
	if len(req.Messages) == 0 || req.Messages[0].Role != "user" {
		return false
	}
	return strings.Contains(resultText(req.Messages[0].Content), subagentMarker)
}

// maxWarmups bounds the warm-up calls of an MCP session.
const maxWarmups = 6

// warmUp is the next warm-up call (f.mu held).
func (f *fakeAPI) warmUp() []ToolUse {
	u := *f.warm
	u.ID = fmt.Sprintf("toolu_warm%02d", f.warmups)
	f.warmups++
	f.pending = u.ID
	return []ToolUse{u}
}

// record stores the tool_result blocks of the request's messages and
// reports whether there were any. They are looked for in every message,
// not only the last: Claude Code may send a note of its own after them
// (a session whose Bash calls changed into a folder of the project).
func (f *fakeAPI) record(req request) bool {
	found := false
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range req.Messages {
		var blocks []block
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			found = true
			f.results[b.ToolUseID] = resultText(b.Content)
			f.errs[b.ToolUseID] = b.IsError
		}
	}
	return found
}

// resultText flattens a tool_result's content (a string or text blocks).
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []block
	if json.Unmarshal(raw, &bs) == nil {
		var parts []string
		for _, b := range bs {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// respond answers with a message of text blocks and tool_use blocks,
// streamed when the request asked for it.
func (f *fakeAPI) respond(w http.ResponseWriter, stream bool, texts []string, uses []ToolUse) {
	stop := "end_turn"
	if len(uses) > 0 {
		stop = "tool_use"
	}
	if !stream {
		var content []map[string]any
		for _, t := range texts {
			content = append(content, map[string]any{"type": "text", "text": t})
		}
		for _, u := range uses {
			content = append(content, map[string]any{"type": "tool_use", "id": u.ID, "name": u.Name, "input": u.Input})
		}
		writeJSON(w, map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var sb strings.Builder
	event := func(name string, v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(&sb, "event: %s\ndata: %s\n\n", name, data)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	i := 0
	for _, t := range texts {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
			"delta": map[string]any{"type": "text_delta", "text": t}})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for _, u := range uses {
		in, _ := json.Marshal(u.Input)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
			"content_block": map[string]any{"type": "tool_use", "id": u.ID, "name": u.Name, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	delta := map[string]any{"stop_reason": stop, "stop_sequence": nil}
	if v := f.safeguardResults(uses); v != nil {
		delta["safeguard_results"] = v
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": delta, "usage": map[string]any{"output_tokens": 1}})
	event("message_stop", map[string]any{"type": "message_stop"})
	io.WriteString(w, sb.String()) //nolint:errcheck // the client's problem
}

// safeguardResults is the classifier's verdicts on uses as Claude Code
// 2.1.328 reads them from a message_delta (its schema for
// "safeguard_results": a "dangerous_tool_use" entry whose status is
// "available" with one result a tool_use id, "evaluated" with outcome
// "flagged" or "not_flagged"), or nil for no verdict.
func (f *fakeAPI) safeguardResults(uses []ToolUse) []any {
	f.mu.Lock()
	v := f.verdict
	f.mu.Unlock()
	if v != ClassifierApproves || len(uses) == 0 {
		return nil
	}
	verdicts := map[string]any{}
	for _, u := range uses {
		verdicts[u.ID] = map[string]any{"type": "evaluated", "outcome": "not_flagged"}
	}
	return []any{map[string]any{"type": "dangerous_tool_use", "status": map[string]any{"type": "available", "tool_uses": verdicts}}}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client's problem
}

// Results returns the recorded tool_result texts by tool_use id.
func (f *fakeAPI) Results() (map[string]string, map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.results))
	errs := make(map[string]bool, len(f.errs))
	for k, v := range f.results {
		out[k] = v
	}
	for k, v := range f.errs {
		errs[k] = v
	}
	return out, errs
}
