package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Fake model servers for the agents that are not Claude Code, so each runs
// a real tool call offline: the agent asks its model what to do, the fake
// answers with the tool calls of a script, and the agent's own permission
// system decides whether each one runs. OpenCode and Copilot CLI speak the
// Anthropic Messages API to a provider whose base URL they are given, so
// they use the Claude Code harness's fake (fakeapi.go) unchanged; Codex
// speaks OpenAI's Responses API and Gemini CLI the Gemini API, served
// here. Every fake answers the first request that offers tools with every
// call of the script in one assistant turn, records the results the agent
// sends back, and answers any later request with a short text that ends
// the turn (so a title or summary request on the side cannot stall it).

// ModelCall is one tool call a fake model asks an agent to make.
type ModelCall struct {
	// ID is the call's id; the agent's result carries it back.
	ID string
	// Name is the agent's tool name ("shell", "run_shell_command", …).
	Name string
	// Args is the tool's argument object.
	Args map[string]any
}

// scriptedModel is the protocol-independent part of a fake: the script,
// whether it was sent, the tools offered and the results recorded.
type scriptedModel struct {
	srv   *http.Server
	ln    net.Listener
	calls []ModelCall

	mu       sync.Mutex
	served   bool
	tools    []string
	results  map[string]string
	requests []string
}

func (m *scriptedModel) start(h http.HandlerFunc) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("fake model: listen on loopback: %w", err)
	}
	m.ln = ln
	m.results = map[string]string{}
	m.srv = &http.Server{Handler: h}
	go m.srv.Serve(ln) //nolint:errcheck // ends with Close
	return nil
}

// URL is the server's base URL (no trailing slash).
func (m *scriptedModel) URL() string { return "http://" + m.ln.Addr().String() }

// Close stops the server.
func (m *scriptedModel) Close() { m.srv.Close() }

// next decides what a request that offers tools (and carries the given
// results) gets: the script, once, on the first request without results.
func (m *scriptedModel) next(line string, tools []string, results map[string]string) []ModelCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, r := range results {
		m.results[id] = r
	}
	var send []ModelCall
	if !m.served && len(tools) > 0 && len(results) == 0 {
		m.served = true
		m.tools = tools
		send = m.calls
	}
	m.requests = append(m.requests, fmt.Sprintf("%s tools=%d results=%d sent=%d", line, len(tools), len(results), len(send)))
	return send
}

// Results returns the recorded tool results by call id.
func (m *scriptedModel) Results() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.results))
	for k, v := range m.results {
		out[k] = v
	}
	return out
}

// Tools returns the tool names offered by the request the script answered.
func (m *scriptedModel) Tools() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]string(nil), m.tools...)
	sort.Strings(out)
	return out
}

// Log is one line per request, for a failing run's report.
func (m *scriptedModel) Log() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.requests, "; ")
}

// FakeResponses is a fake of OpenAI's Responses API (POST …/responses,
// streamed as server-sent events), the wire Codex speaks to a
// model_providers entry with wire_api = "responses".
type FakeResponses struct{ scriptedModel }

// NewFakeResponses starts the fake on a loopback port.
func NewFakeResponses(calls []ModelCall) (*FakeResponses, error) {
	f := &FakeResponses{scriptedModel{calls: calls}}
	return f, f.start(f.serve)
}

func (f *FakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		f.next(r.Method+" "+r.URL.Path, nil, nil)
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	}
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
		Tools []struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		n := t.Name
		if n == "" {
			n = t.Function.Name
		}
		if n == "" {
			n = t.Type
		}
		tools = append(tools, n)
	}
	results := map[string]string{}
	for _, in := range req.Input {
		if strings.HasSuffix(in.Type, "_call_output") {
			results[in.CallID] = outputText(in.Output)
		}
	}
	send := f.next("POST "+r.URL.Path, tools, results)
	w.Header().Set("Content-Type", "text/event-stream")
	var sb strings.Builder
	event := func(v map[string]any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(&sb, "event: %s\ndata: %s\n\n", v["type"], data)
	}
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_fake"}})
	for _, c := range send {
		args, _ := json.Marshal(c.Args)
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{
			"type": "function_call", "id": "fc_" + c.ID, "call_id": c.ID, "name": c.Name, "arguments": string(args), "status": "completed"}})
	}
	if len(send) == 0 {
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{
			"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "done", "annotations": []any{}}}}})
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_fake",
		"usage": map[string]any{"input_tokens": 1, "input_tokens_details": nil, "output_tokens": 1, "output_tokens_details": nil, "total_tokens": 2}}})
	io.WriteString(w, sb.String()) //nolint:errcheck // the client's problem
}

// outputText flattens a function call's output (a string, or an object or
// list of content parts with text).
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b []string
		for _, p := range parts {
			b = append(b, p.Text)
		}
		return strings.Join(b, "\n")
	}
	return string(raw)
}

// FakeGemini is a fake of the Gemini API's generateContent and
// streamGenerateContent (…/models/M:streamGenerateContent?alt=sse), the
// wire Gemini CLI speaks with GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL.
type FakeGemini struct{ scriptedModel }

// NewFakeGemini starts the fake on a loopback port.
func NewFakeGemini(calls []ModelCall) (*FakeGemini, error) {
	f := &FakeGemini{scriptedModel{calls: calls}}
	return f, f.start(f.serve)
}

func (f *FakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	path := r.URL.Path
	switch {
	case strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1})
		return
	case !strings.Contains(path, ":generateContent") && !strings.Contains(path, ":streamGenerateContent"):
		f.next(r.Method+" "+path, nil, nil)
		writeJSON(w, map[string]any{})
		return
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"code":400,"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			tools = append(tools, d.Name)
		}
	}
	results := map[string]string{}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				id := fr.ID
				if id == "" {
					id = f.idOf(fr.Name)
				}
				results[id] = string(fr.Response)
			}
		}
	}
	send := f.next("POST "+path, tools, results)
	var parts []any
	for _, c := range send {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": c.Args}})
	}
	if len(send) == 0 {
		parts = append(parts, map[string]any{"text": "done"})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "gemini-fake",
	}
	if !strings.Contains(path, ":streamGenerateContent") {
		writeJSON(w, resp)
		return
	}
	data, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", data)
}

// idOf is the id of the script's call of a tool (for a response that
// carries only the tool's name).
func (f *FakeGemini) idOf(name string) string {
	for _, c := range f.calls {
		if c.Name == name {
			return c.ID
		}
	}
	return name
}
