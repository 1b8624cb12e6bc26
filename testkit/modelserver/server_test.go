package modelserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func boolp(b bool) *bool { return &b }

// requests in each protocol's shape, built from (system, user text, last is
// tool result).
func anthropicReq(system, user string, toolResult bool) map[string]any {
	msgs := []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": user}}}}
	if toolResult {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}}})
	}
	// Claude Code interleaves system-role messages; the last user message
	// must still be found behind one.
	msgs = append(msgs, map[string]any{"role": "system", "content": "reminder"})
	return map[string]any{"model": "m", "stream": true, "system": []any{map[string]any{"type": "text", "text": system}}, "messages": msgs}
}

func chatReq(system, user string, toolResult bool) map[string]any {
	msgs := []any{map[string]any{"role": "system", "content": system}, map[string]any{"role": "user", "content": user}}
	if toolResult {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "read", "arguments": "{}"}}}},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": "ok"})
	}
	return map[string]any{"model": "m", "stream": true, "messages": msgs}
}

func responsesReq(system, user string, toolResult bool) map[string]any {
	in := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": system}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": user}}},
	}
	if toolResult {
		in = append(in,
			map[string]any{"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
			map[string]any{"type": "function_call_output", "call_id": "c1", "output": "ok"})
	}
	return map[string]any{"model": "m", "stream": true, "input": in}
}

var protocolCases = []struct {
	p    Protocol
	path string
	req  func(system, user string, toolResult bool) map[string]any
}{
	{Anthropic, "/v1/messages", anthropicReq},
	{Chat, "/v1/chat/completions", chatReq},
	{Responses, "/v1/responses", responsesReq},
}

// TestScriptOrder drives the same script through each protocol: rules win
// over turns without consuming them, Times limits a rule, turns go in
// order, and once they are used up the exhausted reply answers and the
// request is reported as a problem.
func TestScriptOrder(t *testing.T) {
	for _, pc := range protocolCases {
		t.Run(string(pc.p), func(t *testing.T) {
			s := &Script{
				Rules: []Rule{
					{Name: "summary", Match: Match{SystemContains: "summarize"}, Reply: Reply{Text: "SUMMARY"}},
					{Name: "once", Match: Match{LastUserContains: "ONCE"}, Reply: Reply{Text: "first time"}, Times: 1},
					{Name: "after-tool", Match: Match{LastIsToolResult: boolp(true), LastUserContains: "tool please"}, Reply: Reply{Text: "tool seen"}},
					{Name: "other-protocol", Match: Match{Protocol: otherProtocol(pc.p)}, Reply: Reply{Text: "WRONG"}},
				},
				Turns: []Reply{{Text: "turn zero"}, {Text: "turn one"}},
			}
			srv := start(t, s, "")
			steps := []struct {
				system, user string
				toolResult   bool
				wantText     string
				wantAnswer   string
			}{
				{"you are an agent", "hello", false, "turn zero", "turn 0"},
				{"please summarize this", "hello", false, "SUMMARY", "rule summary"},
				{"agent", "ONCE", false, "first time", "rule once"},
				{"agent", "ONCE", false, "turn one", "turn 1"},
				{"agent", "tool please", true, "tool seen", "rule after-tool"},
				{"agent", "tool please", false, exhaustedText, "exhausted"},
			}
			for i, st := range steps {
				_, _, body := post(t, srv.URL()+pc.path, pc.req(st.system, st.user, st.toolResult), nil)
				if !strings.Contains(string(body), jsonText(st.wantText)) {
					t.Fatalf("step %d: reply does not contain %q: %s", i, st.wantText, body)
				}
				reqs := srv.Requests()
				if got := reqs[len(reqs)-1].Answer; got != st.wantAnswer {
					t.Fatalf("step %d: answered by %q, want %q", i, got, st.wantAnswer)
				}
			}
			if srv.TurnsUsed() != 2 {
				t.Fatalf("TurnsUsed = %d, want 2", srv.TurnsUsed())
			}
			if p := srv.Problems(); len(p) != 1 || !strings.Contains(p[0], "no turn left") {
				t.Fatalf("Problems = %q, want one exhausted report", p)
			}
			if n := len(srv.ModelRequests(pc.p)); n != len(steps) {
				t.Fatalf("ModelRequests(%s) = %d, want %d", pc.p, n, len(steps))
			}
		})
	}
}

func otherProtocol(p Protocol) Protocol {
	if p == Anthropic {
		return Chat
	}
	return Anthropic
}

// jsonText is how s appears inside a JSON string (so multi-byte or quoted
// text still matches the raw stream).
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestRecording checks the in-memory record and the JSONL log: bodies
// verbatim, credentials redacted, the view fields rules used.
func TestRecording(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "requests.jsonl")
	srv := start(t, &Script{Turns: []Reply{{Text: "a"}, {Text: "b"}}}, logPath)
	post(t, srv.URL()+"/v1/messages?beta=true", anthropicReq("sys", "first prompt", false), map[string]string{"x-api-key": "sk-secret", "anthropic-version": "2023-06-01"})
	post(t, srv.URL()+"/v1/chat/completions", chatReq("sys", "second prompt", true), map[string]string{"Authorization": "Bearer sk-secret"})
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-secret") {
		t.Fatal("credential leaked into the request log")
	}
	var logged []Request
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r Request
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line is not a Request: %v", err)
		}
		logged = append(logged, r)
	}
	mem := srv.Requests()
	if len(logged) != 2 || len(mem) != 2 {
		t.Fatalf("logged %d, in memory %d, want 2 each", len(logged), len(mem))
	}
	tests := []struct {
		i          int
		protocol   Protocol
		query      string
		lastUser   string
		toolResult bool
		header     string
	}{
		{0, Anthropic, "beta=true", "first prompt", false, "x-api-key"},
		{1, Chat, "", "second prompt", true, "authorization"},
	}
	for _, tc := range tests {
		for _, r := range []Request{logged[tc.i], mem[tc.i]} {
			if r.Seq != tc.i+1 || r.Protocol != tc.protocol || r.Query != tc.query || r.LastUserText != tc.lastUser || r.LastIsToolResult != tc.toolResult {
				t.Fatalf("request %d = seq %d %s query %q last %q tool %v", tc.i, r.Seq, r.Protocol, r.Query, r.LastUserText, r.LastIsToolResult)
			}
			if r.Header[tc.header] != "[redacted]" {
				t.Fatalf("request %d header %s = %q, want redacted", tc.i, tc.header, r.Header[tc.header])
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil || body["messages"] == nil {
				t.Fatalf("request %d body not recorded verbatim: %s", tc.i, r.Body)
			}
		}
	}
	if mem[0].Header["anthropic-version"] != "2023-06-01" {
		t.Fatalf("ordinary header lost: %v", mem[0].Header)
	}
}

// TestNonStreaming checks the JSON (stream:false) answers of each protocol.
func TestNonStreaming(t *testing.T) {
	reply := Reply{Thinking: "hmm", Text: "calling", ToolCalls: []ToolCall{{Name: "read", Input: json.RawMessage(`{"path":"a"}`)}}, Usage: &Usage{InputTokens: 42, OutputTokens: 3}}
	tests := []struct {
		p     Protocol
		path  string
		check func(t *testing.T, m map[string]any)
	}{
		{Anthropic, "/v1/messages", func(t *testing.T, m map[string]any) {
			content := m["content"].([]any)
			if len(content) != 3 || m["stop_reason"] != "tool_use" || num(t, m, "usage.input_tokens") != 42 {
				t.Fatalf("anthropic message: %v", m)
			}
			tu := content[2].(map[string]any)
			if tu["type"] != "tool_use" || dig(t, tu, "input.path") != "a" {
				t.Fatalf("tool_use block: %v", tu)
			}
		}},
		{Chat, "/v1/chat/completions", func(t *testing.T, m map[string]any) {
			ch := m["choices"].([]any)[0].(map[string]any)
			msg := ch["message"].(map[string]any)
			calls := msg["tool_calls"].([]any)
			if ch["finish_reason"] != "tool_calls" || msg["content"] != "calling" || msg["reasoning_content"] != "hmm" || len(calls) != 1 {
				t.Fatalf("chat completion: %v", m)
			}
			if args := dig(t, calls[0].(map[string]any), "function.arguments"); args != `{"path":"a"}` {
				t.Fatalf("arguments %v", args)
			}
			if num(t, m, "usage.prompt_tokens") != 42 {
				t.Fatalf("usage %v", m["usage"])
			}
		}},
		{Responses, "/v1/responses", func(t *testing.T, m map[string]any) {
			out := m["output"].([]any)
			if m["status"] != "completed" || len(out) != 3 || out[2].(map[string]any)["type"] != "function_call" || num(t, m, "usage.input_tokens") != 42 {
				t.Fatalf("response: %v", m)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(string(tc.p), func(t *testing.T) {
			srv := start(t, &Script{Turns: []Reply{reply}}, "")
			body := map[string]any{"model": "m", "stream": false, "messages": []any{map[string]any{"role": "user", "content": "x"}}, "input": "x"}
			status, ctype, raw := post(t, srv.URL()+tc.path, body, nil)
			if status != 200 || !strings.HasPrefix(ctype, "application/json") {
				t.Fatalf("status %d type %q: %s", status, ctype, raw)
			}
			tc.check(t, obj(t, string(raw)))
		})
	}
}

// TestErrorReply checks scripted HTTP errors carry the status and an error
// body the protocol's clients parse.
func TestErrorReply(t *testing.T) {
	tests := []struct {
		pc       int
		status   int
		wantType string
	}{
		{0, 429, "rate_limit_error"},
		{0, 500, "api_error"},
		{1, 400, "invalid_request_error"},
		{2, 400, "invalid_request_error"},
	}
	for _, tc := range tests {
		pc := protocolCases[tc.pc]
		srv := start(t, &Script{Turns: []Reply{{Error: &HTTPError{Status: tc.status, Message: "boom"}}}}, "")
		status, _, raw := post(t, srv.URL()+pc.path, pc.req("s", "u", false), nil)
		m := obj(t, string(raw))
		if status != tc.status || str(t, m, "error.message") != "boom" || str(t, m, "error.type") != tc.wantType {
			t.Fatalf("%s %d: got status %d body %s", pc.p, tc.status, status, raw)
		}
	}
}

// TestAuxEndpoints checks the probes agents make besides model requests.
func TestAuxEndpoints(t *testing.T) {
	srv := start(t, &Script{Model: "my-model", Turns: []Reply{{Text: "x"}}}, "")
	status, _, raw := post(t, srv.URL()+"/v1/messages/count_tokens?beta=true", map[string]any{"messages": []any{}}, nil)
	if status != 200 || num(t, obj(t, string(raw)), "input_tokens") <= 0 {
		t.Fatalf("count_tokens: %d %s", status, raw)
	}
	resp, err := http.Get(srv.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) != 1 || list.Data[0].ID != "my-model" {
		t.Fatalf("models: %v %+v", err, list)
	}
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodHead, srv.URL()+"/api/hello", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /api/hello: %v %v", err, resp)
	}
	resp.Body.Close()
	status, _, _ = post(t, srv.URL()+"/v1/nope", map[string]any{}, nil)
	if status != 404 {
		t.Fatalf("unknown endpoint: status %d, want 404", status)
	}
	status, _, _ = post(t, srv.URL()+"/v1/messages", "not an object", nil)
	if status != 400 {
		t.Fatalf("bad body: status %d, want 400", status)
	}
	if srv.TurnsUsed() != 0 {
		t.Fatal("aux or bad requests consumed a turn")
	}
	if p := srv.Problems(); len(p) != 2 {
		t.Fatalf("Problems = %q, want the unknown endpoint and the bad body", p)
	}
	if reqs := srv.Requests(); len(reqs) != 5 || reqs[0].Protocol != Aux {
		t.Fatalf("recorded %d requests (first %s), want 5 starting with aux", len(reqs), reqs[0].Protocol)
	}
}

// TestBindsLoopback guards the one rule that keeps agents off the network
// side: the server listens on 127.0.0.1 only.
func TestBindsLoopback(t *testing.T) {
	srv := start(t, &Script{Turns: []Reply{{Text: "x"}}}, "")
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") || srv.Port() == 0 {
		t.Fatalf("URL %s port %d", srv.URL(), srv.Port())
	}
}

func TestParseScript(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		vars    map[string]string
		wantErr string
		check   func(t *testing.T, s *Script)
	}{
		{name: "vars are JSON-escaped", src: `{"turns":[{"tool_calls":[{"name":"Read","input":{"file_path":"${WORK}/n.txt"}}]}]}`,
			vars: map[string]string{"WORK": `/tmp/a "b"\c`},
			check: func(t *testing.T, s *Script) {
				var in map[string]string
				if err := json.Unmarshal(s.Turns[0].ToolCalls[0].Input, &in); err != nil || in["file_path"] != `/tmp/a "b"\c/n.txt` {
					t.Fatalf("input %s (%v)", s.Turns[0].ToolCalls[0].Input, err)
				}
			}},
		{name: "missing var", src: `{"turns":[{"text":"${NOPE} ${ALSO}"}]}`, wantErr: "undefined variables NOPE, ALSO"},
		{name: "unknown field", src: `{"turns":[{"txt":"x"}]}`, wantErr: `unknown field "txt"`},
		{name: "empty reply", src: `{"turns":[{}]}`, wantErr: "turns[0]: reply is empty"},
		{name: "nameless call", src: `{"turns":[{"tool_calls":[{"input":{}}]}]}`, wantErr: "tool_calls[0] has no name"},
		{name: "input not object", src: `{"turns":[{"tool_calls":[{"name":"a","input":[1]}]}]}`, wantErr: "input must be a JSON object"},
		{name: "bad status", src: `{"turns":[{"error":{"status":200,"message":"x"}}]}`, wantErr: "not an HTTP error status"},
		{name: "bad protocol", src: `{"rules":[{"name":"r","match":{"protocol":"smoke-signals"},"reply":{"text":"x"}}],"turns":[]}`, wantErr: `unknown protocol "smoke-signals"`},
		{name: "custom call needs no JSON input", src: `{"turns":[{"tool_calls":[{"name":"apply_patch","custom":true,"custom_input":"*** Begin Patch"}]}]}`,
			check: func(t *testing.T, s *Script) {
				if !s.Turns[0].ToolCalls[0].Custom {
					t.Fatal("custom flag lost")
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseScript([]byte(tc.src), tc.vars)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

// TestScenarioScriptsLoad keeps the committed e2e scenario scripts valid.
func TestScenarioScriptsLoad(t *testing.T) {
	files, err := filepath.Glob("../../e2e/scenarios/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario scripts found in e2e/scenarios")
	}
	for _, f := range files {
		if _, err := LoadScript(f, map[string]string{"WORK": "/w"}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestUsageFor(t *testing.T) {
	s := &Script{Usage: Usage{InputTokens: 500}}
	tests := []struct {
		reply Reply
		want  Usage
	}{
		{Reply{}, Usage{InputTokens: 500, OutputTokens: defaultOutputTokens}},
		{Reply{Usage: &Usage{OutputTokens: 9}}, Usage{InputTokens: 500, OutputTokens: 9}},
		{Reply{Usage: &Usage{InputTokens: 70000, CacheReadTokens: 3}}, Usage{InputTokens: 70000, OutputTokens: defaultOutputTokens, CacheReadTokens: 3}},
	}
	for i, tc := range tests {
		if got := s.usageFor(tc.reply); got != tc.want {
			t.Errorf("%d: usageFor = %+v, want %+v", i, got, tc.want)
		}
	}
	if got := (&Script{}).usageFor(Reply{}); got.InputTokens != defaultInputTokens {
		t.Errorf("empty script input tokens = %d, want %d", got.InputTokens, defaultInputTokens)
	}
}
